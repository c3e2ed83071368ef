/*
 * A host's measured speed per app version: each successful job it reports
 * counts at rsc_fpops_est / elapsed_time (see sched_hav.h and db_hav.c).
 */
#include "sched_hav.h"
#include "log.h"

#include <math.h>

void sched_hav_add(struct sched_hav *h, const struct db_result *res, double elapsed)
{
	if (res->app_version_id <= 0 || !(elapsed > 0) || !isfinite(elapsed))
		return;
	ARRAY_GROW(h->v, h->n);
	h->v[h->n++] = (struct sched_hav_job){ res->name, res->workunitid, res->app_version_id,
					       elapsed };
}

void sched_hav_free(struct sched_hav *h)
{
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

struct fpops_batch {
	const struct sched_hav_job *jobs;
	size_t n;
	double *fpops;          /* per job; 0: its workunit not read */
};

static int take_fpops(struct db_wu_fpops *f, void *arg)
{
	struct fpops_batch *b = arg;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->jobs[i].wuid == f->id)
			b->fpops[i] = f->rsc_fpops_est;
	return 0;
}

/* One job's sample, unless its speed is no speed. */
static int record_one(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		      const struct sched_hav_job *j, double fpops)
{
	double flops = fpops / j->elapsed;

	if (!(flops > 0))
		return DB_OK;   /* no estimate (or one below a double's range): nothing measured */
	if (!isfinite(flops) || flops > SCHED_HAV_MAX_FLOPS) {
		log_warn("%s: result %s: %g FLOPs in %g s is %g FLOPS, above %g; not taken as "
			 "app version %" PRId64 "'s speed", lbl, j->name, fpops, j->elapsed, flops,
			 SCHED_HAV_MAX_FLOPS, j->avid);
		return DB_OK;
	}
	return db_hav_report(ctx->db, hostid, j->avid, flops, j->elapsed);
}

/* Jobs j[0..n), n at most DB_SEQ_BATCH: their estimates in one statement. */
static int hav_batch(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		     const struct sched_hav_job *j, size_t n)
{
	int64_t ids[DB_SEQ_BATCH];
	double fpops[DB_SEQ_BATCH] = { 0 };
	struct fpops_batch b = { j, n, fpops };
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		ids[i] = j[i].wuid;
	rc = db_workunit_enum_fpops(ctx->db, ids, n, take_fpops, &b);
	for (i = 0; rc == DB_OK && i < n; i++)
		rc = record_one(ctx, lbl, hostid, &j[i], fpops[i]);
	return rc;
}

int sched_hav_record(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		     const struct sched_hav *h)
{
	size_t i, k;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < h->n; i += k) {
		k = h->n - i < DB_SEQ_BATCH ? h->n - i : DB_SEQ_BATCH;
		rc = hav_batch(ctx, lbl, hostid, &h->v[i], k);
	}
	return rc;
}
