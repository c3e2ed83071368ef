/*
 * Assigned jobs: create_work --target_host, --target_user, --target_team
 * (upstream's assignment table). Their results wait INACTIVE, out of the
 * general queue that every host's scheduler reads, so no other host ever
 * looks at them; a host asking for work first gets those assigned to it,
 * its user or its user's team. A user's or a team's job goes to whichever
 * of their hosts asks first, once per host (one_result_per_user_per_wu is
 * for the open queue: the admin chose these targets). When one times out or fails the
 * transitioner makes another, which waits for the target again.
 */
#include "sched_policy.h"
#include "db_sched.h"
#include "log.h"

#define ASSIGNED_PER_RPC 50     /* waiting results read per request */

/*
 * Send r if the host can run it and has no result of its job yet. The
 * admin chose the target, so one_result_per_user_per_wu does not apply: a
 * job assigned to a user goes to any of the user's hosts, again after a
 * timeout.
 */
static int send_one(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct db_result *r, struct sched_reply *reply)
{
	struct db_workunit wu = { 0 };
	const struct sched_bav *bav;
	const struct db_app *app;
	int64_t had = 0;
	int rc;

	if (sched_wu_in_reply(reply, r->workunitid))
		return DB_OK;
	rc = db_result_count_wu_host(ctx->db, r->workunitid, host->id, -1, &had);
	if (rc != DB_OK || had > 0)
		return rc;
	rc = db_workunit_lookup_id(ctx->db, r->workunitid, &wu);
	if (rc != DB_OK) {
		db_workunit_release(&wu);
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	}
	app = sched_app_by_id(apps, r->appid);
	bav = app ? sched_choose(req, reply, r->appid, &wu, SCHED_RSC_WANTED) : NULL;
	if (!bav || !sched_host_fits(host, wu.rsc_memory_bound, wu.rsc_disk_bound)) {
		db_workunit_release(&wu);
		return DB_OK;
	}
	sched_result_assign(host, bav, &wu, r);
	rc = db_result_claim_assigned(ctx->db, r);
	if (rc == DB_OK) {
		log_info("host %" PRId64 ": assigned job %s sent", host->id, r->name);
		rc = sched_job_append(app, bav, r, &wu, reply, true);
	}
	db_workunit_release(&wu);
	return rc == DB_NOT_FOUND ? DB_OK : rc;    /* another of the user's hosts was first */
}

int sched_send_assigned(const struct sched_ctx *ctx, const struct sched_request *req,
			const struct db_host *host, const struct sched_apps *apps,
			struct sched_reply *reply)
{
	struct db_result_list w = { NULL, 0 };
	size_t i;
	int rc;

	if (!apps->have_assignments || !sched_any_rsc_wants(req, reply))
		return DB_OK;
	rc = db_result_enum_assigned(ctx->db, host->id, host->userid, ASSIGNED_PER_RPC,
				     db_result_list_take, &w);
	for (i = 0; rc == DB_OK && i < w.n; i++)
		if ((long)reply->njobs < ctx->cfg->max_wus_to_send &&
		    sched_quota_left(ctx, host, reply->njobs) > 0)
			rc = send_one(ctx, req, host, apps, &w.v[i], reply);
	db_result_list_release(&w);
	return rc;
}
