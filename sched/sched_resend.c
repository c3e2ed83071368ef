/*
 * resend_lost_results, upstream BOINC's option. The client lists every job
 * it holds in <other_results>; a job the database has in progress on the
 * host that is neither there nor reported in the request was lost (the
 * reply that carried it never arrived, the client was reinstalled, its
 * disk was wiped). Rather than wait for its deadline, the scheduler sends
 * it again, with a fresh deadline, when the host asks for work -- or, when
 * it can no longer be done in time or the host has no version of its app,
 * marks it over with no reply, as a timeout would, so the transitioner makes
 * another result at once. A segment of a work sequence is never sent again:
 * the host that lost it lost the sequence, which is relocated
 * (sched_seq.c, sched_seq_lost_segment).
 */
#include "sched_policy.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

bool sched_client_has(const struct sched_request *req, const char *name)
{
	size_t i;

	for (i = 0; i < req->nother; i++)
		if (req->other[i].name && !strcmp(req->other[i].name, name))
			return true;
	for (i = 0; i < req->nresults; i++)
		if (!strcmp(req->results[i].name, name))
			return true;
	return false;
}

/* One lost job: sent again, or given up. */
static int resend_one(const struct sched_ctx *ctx, const struct sched_request *req,
		      const struct db_host *host, const struct sched_apps *apps,
		      struct db_result *r, struct sched_reply *reply)
{
	struct db_workunit wu = { 0 };
	const struct sched_bav *bav = NULL;
	const struct db_app *app;
	int rc = db_workunit_lookup_id(ctx->db, r->workunitid, &wu);

	if (rc != DB_OK) {
		db_workunit_release(&wu);
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	}
	/* not needed any more: the transitioner settles it as for any other */
	if (wu.error_mask || wu.canonical_resultid) {
		db_workunit_release(&wu);
		return DB_OK;
	}
	/* the version it was sent as, if the host (and its prefs) can still use it; else the best */
	app = sched_app_by_id(apps, r->appid);
	bav = app ? sched_usable_by_id(reply, r->app_version_id) : NULL;
	if (app && (!bav || !sched_prefs_allow(reply, bav)))
		bav = sched_choose(req, reply, r->appid, &wu, SCHED_RSC_ANY);
	if (!bav || (double)now() + wu.rsc_fpops_est / bav->u.projected_flops >=
			    (double)r->report_deadline) {
		rc = db_result_mark_lost(ctx->db, r->id, host->id);
		if (rc == DB_OK)
			sched_reply_touch(reply, wu.id, now());
		if (rc == DB_OK) {
			log_info("host %" PRId64 ": lost job %s given up (%s)", host->id, r->name,
				 bav ? "it cannot be done by its deadline" :
					 "no version of its app it may use");
			sched_reply_message(reply, "low", "Didn't resend lost task %s (expired)", r->name);
		}
		db_workunit_release(&wu);
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	}
	sched_result_assign(host, bav, &wu, r);
	rc = db_result_resend(ctx->db, r);
	if (rc == DB_OK) {
		log_info("host %" PRId64 ": lost job %s sent again", host->id, r->name);
		sched_reply_message(reply, "low", "Resent lost task %s", r->name);
		rc = sched_job_append(app, bav, r, &wu, reply, true);
	}
	db_workunit_release(&wu);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

int sched_resend_lost(const struct sched_ctx *ctx, const struct sched_request *req,
		      const struct db_host *host, const struct sched_apps *apps,
		      struct sched_reply *reply)
{
	struct db_result_list j = { NULL, 0 };
	size_t i;
	int rc;

	if (!ctx->set->resend_lost_results || !req->has_other || host->id <= 0 ||
	    !sched_any_rsc_wants(req, reply))
		return DB_OK;
	rc = db_result_enum_host_jobs_in_progress(ctx->db, host->id, db_result_list_take, &j);
	for (i = 0; rc == DB_OK && i < j.n; i++)
		if (!sched_client_has(req, j.v[i].name) &&
		    (long)reply->njobs < ctx->cfg->max_wus_to_send)
			rc = resend_one(ctx, req, host, apps, &j.v[i], reply);
	db_result_list_release(&j);
	return rc;
}
