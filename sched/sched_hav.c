/*
 * A host's measured speed per app version: each successful job it reports
 * counts at rsc_fpops_est / elapsed_time; each client error counts against
 * its reliability (see sched_hav.h and db_hav.c).
 */
#include "sched_hav.h"
#include "log.h"

#include <math.h>

void sched_hav_add(struct sched_hav *h, const struct db_result *res, double elapsed)
{
	if (res->app_version_id <= 0 || !(elapsed > 0) || !(elapsed <= SCHED_HAV_MAX_ELAPSED))
		return;
	ARRAY_GROW(h->v, h->n);
	h->v[h->n++] = (struct sched_hav_job){ .name = res->name, .wuid = res->workunitid,
					       .avid = res->app_version_id, .elapsed = elapsed };
}

void sched_hav_error(struct sched_hav *h, const struct db_result *res, double turnaround)
{
	if (res->app_version_id <= 0)
		return;
	ARRAY_GROW(h->v, h->n);
	h->v[h->n++] = (struct sched_hav_job){ .name = res->name, .wuid = res->workunitid,
					       .avid = res->app_version_id, .error = true,
					       .turnaround = turnaround };
}

void sched_hav_release(struct sched_hav *h)
{
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

static int take_fpops(struct db_wu_fpops *f, void *arg)
{
	*(double *)arg = f->rsc_fpops_est;
	return 0;
}

/*
 * One job's sample; a job not taken is looked at again (its estimate read)
 * to say why when its speed is too high -- rare, so the common path is one
 * statement a job.
 */
static int record_one(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		      const struct sched_hav_job *j)
{
	double fpops = 0, flops;
	bool taken;
	int rc;

	if (j->error)
		return db_hav_outcome(ctx->db, hostid, j->avid, HAV_ERROR, j->turnaround);
	rc = db_hav_report(ctx->db, hostid, j->avid, j->wuid, j->elapsed, SCHED_HAV_MAX_FLOPS,
			   &taken);
	if (rc != DB_OK || taken)
		return rc;
	rc = db_workunit_enum_fpops(ctx->db, &j->wuid, 1, take_fpops, &fpops);
	flops = fpops / j->elapsed;
	if (rc == DB_OK && flops > 0)   /* no estimate: nothing measured, nothing to say */
		log_warn("%s: result %s: %g FLOPs in %g s is %g FLOPS, above %g; not taken as "
			 "app version %" PRId64 "'s speed", lbl, j->name, fpops, j->elapsed, flops,
			 SCHED_HAV_MAX_FLOPS, j->avid);
	return rc;
}

int sched_hav_record(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		     const struct sched_hav *h)
{
	size_t i;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < h->n; i++)
		rc = record_one(ctx, lbl, hostid, &h->v[i]);
	return rc;
}
