/*
 * The scheduler obeys the volunteer's project preferences (lib/prefs.h),
 * as upstream's sched_send.cpp does: for the host's venue (else the
 * default block), no job of an app the volunteer did not select -- unless
 * "send others" is on and the selected apps had no job for the host -- and
 * none for a resource turned off (no_cpu, no_cuda, no_ati, no_intel_gpu,
 * no_apple_gpu, and wseq's no_other_coproc for any other coprocessor type), nor a beta app or version without allow_beta_work. The
 * rule acts in sched_choose(), so ordinary jobs, assigned jobs, lost jobs
 * sent again, and sequences (assigned or topped up) all obey it.
 */
#include "sched_policy.h"
#include "db_account.h"
#include "log.h"

void sched_prefs_read(const struct db_user *user, const struct db_host *host,
		      struct sched_reply *reply)
{
	struct sbuf err = SBUF_INIT(512);

	prefs_project_release(&reply->prefs);
	reply->others_ok = false;
	if (prefs_project_parse(user->project_prefs, host->venue, &reply->prefs, &err) < 0)
		log_warn("user %" PRId64 ": project prefs ignored: %s", user->id, sbuf_str(&err));
	sbuf_release(&err);
}

/* The switch that turns a request's resource off. */
static int rsc_switch(enum sched_rsc_kind k)
{
	switch (k) {
	case SCHED_RSC_CPU: return PREFS_CPU;
	case SCHED_RSC_NVIDIA: return PREFS_NVIDIA;
	case SCHED_RSC_ATI: return PREFS_ATI;
	case SCHED_RSC_INTEL: return PREFS_INTEL;
	case SCHED_RSC_APPLE: return PREFS_APPLE;
	case SCHED_RSC_OTHER: return PREFS_OTHER;
	}
	return -1;
}

void sched_prefs_mark(const struct sched_request *req, const struct sched_apps *a,
		      const struct sched_reply *reply, struct sched_bav *b)
{
	const struct prefs_project *p = &reply->prefs;
	const struct db_app *app = sched_app_by_id(a, b->av->appid);
	int s = b->u.rsc >= 0 && b->u.rsc < req->nrsc ? rsc_switch(req->rsc[b->u.rsc].kind) : -1;

	b->off = (s >= 0 && p->no_rsc[s]) ||
		 (!p->allow_beta && (b->av->beta || (app && app->beta)));
	b->unselected = !prefs_project_selected(p, b->av->appid);
}

bool sched_prefs_allow(const struct sched_reply *reply, const struct sched_bav *b)
{
	return !b->off && (!b->unselected || reply->others_ok);
}

bool sched_prefs_send_others(struct sched_reply *reply, size_t sent)
{
	const struct prefs_project *p = &reply->prefs;

	if (sent > 0 || reply->others_ok || !p->allow_others || p->napps == 0)
		return false;
	reply->others_ok = true;
	return true;
}

int sched_global_prefs(const struct sched_ctx *ctx, const struct sched_request *req,
		       struct db_user *user, bool weak, struct sched_reply *reply)
{
	double db_t = prefs_global_mod_time(user->global_prefs);
	double master_t = req->global_prefs_mod_time, working_t = req->working_prefs_mod_time;
	bool have_db = user->global_prefs && *user->global_prefs;
	bool same = req->global_prefs_source_email_hash &&
		    !strcmp(req->global_prefs_source_email_hash, reply->account.email_hash);
	int rc;

	if (!weak && req->global_prefs && same && (!have_db || master_t > db_t)) {
		rc = db_user_set_global_prefs(ctx->db, user->id, req->global_prefs);
		if (rc != DB_OK)
			return rc;
		log_info("user %" PRId64 ": computing prefs of %.0f taken from the client",
			 user->id, master_t);
		free(user->global_prefs);
		user->global_prefs = xstrdup(req->global_prefs);
		return DB_OK;
	}
	if (have_db && db_t > master_t && db_t > working_t) {
		free(reply->account.global_prefs);
		reply->account.global_prefs = xstrdup(user->global_prefs);
	}
	return DB_OK;
}
