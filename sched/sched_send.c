/*
 * Choosing work for a host: unsent results, highest priority first, of apps
 * the host has a version for, within its memory and disk, never two
 * results of one workunit to one host or (one_result_per_user_per_wu, the
 * default) to hosts of one account, until the seconds of work it asked
 * for are covered. Each result is claimed with a conditional UPDATE, so
 * schedulers running side by side never send one result twice.
 */
#include "sched_policy.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

bool sched_wu_in_reply(const struct sched_reply *reply, int64_t wuid)
{
	size_t i;

	for (i = 0; i < reply->njobs; i++)
		if (reply->jobs[i].wu.id == wuid)
			return true;
	return false;
}

int sched_job_append(const struct db_app *app, const struct sched_bav *bav, struct db_result *r,
		     struct db_workunit *wu, struct sched_reply *reply, bool touch)
{
	struct sched_job job = { 0 };
	double flops = bav->u.projected_flops > 0 ? bav->u.projected_flops : 1e9;

	if (touch)
		sched_reply_touch(reply, wu->id, r->report_deadline);
	job.app = app;
	job.av = bav->av;
	job.platform = bav->platform;
	job.bav = bav;
	job.result = *r;
	job.wu = *wu;
	memset(r, 0, sizeof(*r));
	memset(wu, 0, sizeof(*wu));
	job.rsc = bav->u.rsc;
	job.seconds = job.wu.rsc_fpops_est / flops;
	job.instances = bav->u.rsc > 0 ? bav->u.ncoproc : bav->u.avg_ncpus;
	reply->rsc_secs[job.rsc] += job.seconds;
	reply->rsc_insts[job.rsc] += job.instances;
	reply->rsc_room[job.rsc]--;
	ARRAY_GROW(reply->jobs, reply->njobs);
	reply->jobs[reply->njobs++] = job;
	return DB_OK;
}

void sched_result_assign(const struct db_host *host, const struct sched_bav *bav,
			 const struct db_workunit *wu, struct db_result *r)
{
	r->hostid = host->id;
	r->userid = host->userid;
	r->sent_time = now();
	r->report_deadline = r->sent_time + (int64_t)wu->delay_bound;
	r->app_version_id = bav->av->id;
	r->app_version_num = bav->av->version_num;
}

bool sched_host_fits(const struct db_host *host, double memory, double disk)
{
	return memory <= host->m_nbytes && disk <= host->d_free;
}

int64_t sched_quorum_user(const struct sched_ctx *ctx, const struct db_host *host)
{
	return ctx->set->one_result_per_user ? host->userid : -1;
}

/*
 * Adaptive replication of the job just put into the reply: marked to be
 * verified (claim_jobs() replicates its workunit) and logged -- at info, a
 * replica being worth a line; a job sent alone is not.
 */
static void adapt(const struct db_host *host, const struct db_app *app, struct sched_job *job)
{
	enum sched_ar d = sched_ar_decide(app, job->bav, &job->wu, sched_ar_draw());

	if (d == SCHED_AR_OFF)
		return;
	job->replicate = d != SCHED_AR_SINGLE;
	if (job->replicate)
		log_info("host %" PRId64 ": result %s: %s for version %" PRId64 " (%" PRId64
			 " consecutive valid, trust after %d); replicated", host->id,
			 job->result.name, sched_ar_name(d), job->av->id,
			 job->bav->consecutive_valid, app->trust_after);
	else
		log_debug("host %" PRId64 ": result %s: %s for version %" PRId64, host->id,
			  job->result.name, sched_ar_name(d), job->av->id);
}

/* The workunits of a batch of candidates neither the host nor (usually) its user has a result of. */
struct cand_wus {
	struct db_workunit *v;
	size_t n;
};

DB_ROWS_TAKER(take_wu, struct db_workunit)

static int cand_wus_read(const struct sched_ctx *ctx, const struct db_host *host,
			 const struct sched_apps *apps, const struct db_result_list *c,
			 struct cand_wus *w)
{
	struct db_rows l = DB_ROWS(w->v, w->n, 0);
	int64_t ids[DB_SEQ_BATCH], user = sched_quorum_user(ctx, host);
	size_t i, n = 0;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < c->n; i++) {
		/* a result of an unknown or deprecated app: its workunit is not needed */
		if (!sched_app_by_id(apps, c->v[i].appid))
			continue;
		ids[n++] = c->v[i].workunitid;
		if (n == DB_SEQ_BATCH) {
			rc = db_workunit_enum_for_host(ctx->db, ids, n, host->id, user, take_wu, &l);
			n = 0;
		}
	}
	if (rc == DB_OK && n > 0)
		rc = db_workunit_enum_for_host(ctx->db, ids, n, host->id, user, take_wu, &l);
	return rc;
}

static struct db_workunit *cand_wu(struct cand_wus *w, int64_t id)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->v[i].id == id)
			return &w->v[i];
	return NULL;
}

static void cand_wus_release(struct cand_wus *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		db_workunit_release(&w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/*
 * Can this host take result r (read locked) now? wu is its workunit, NULL
 * when the host already has a result of it. Adds the job when it can (the
 * job takes wu's contents); claim_jobs() marks it sent.
 */
static int consider(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct db_result *r, struct db_workunit *wu, struct sched_reply *reply)
{
	const struct db_app *app = sched_app_by_id(apps, r->appid);
	const struct sched_bav *bav;
	int rc;

	if (!app || !wu || sched_wu_in_reply(reply, r->workunitid))
		return DB_NOT_FOUND;
	/* a job pinned to one version of its app (remote submission) gets only that one */
	bav = sched_choose(req, reply, r->appid, wu, SCHED_RSC_WANTED);
	if (!bav)
		return DB_NOT_FOUND;
	if (wu->error_mask || wu->canonical_resultid ||
	    !sched_host_fits(host, wu->rsc_memory_bound, wu->rsc_disk_bound))
		return DB_NOT_FOUND;
	if ((rc = sched_exec_check(ctx, app, wu)) != DB_OK)
		return rc;
	sched_result_assign(host, bav, wu, r);
	rc = sched_job_append(app, bav, r, wu, reply, false);
	adapt(host, app, &reply->jobs[reply->njobs - 1]);
	return rc;
}

/*
 * Mark the ordinary jobs put into the reply (from index first on) sent: one
 * statement per app version and deadline among them (DB_SEQ_BATCH at a
 * time); their workunits' transition times are moved at the RPC's end. The
 * results were read locked, so each is still unsent; if one is not, the
 * RPC runs again without sending work.
 */
static int claim_jobs(const struct sched_ctx *ctx, const struct db_host *host,
		      struct sched_reply *reply, size_t first)
{
	bool *claimed = xcalloc(reply->njobs + 1, sizeof(bool));
	int64_t ids[DB_SEQ_BATCH], wus[DB_SEQ_BATCH], t = now(), matched = 0;
	size_t idx[DB_SEQ_BATCH], i, j, k, n;
	int rc = DB_OK;

	for (i = first; rc == DB_OK && i < reply->njobs; i++) {
		const struct db_app_version *av = reply->jobs[i].av;
		int64_t deadline = t + (int64_t)reply->jobs[i].wu.delay_bound;

		if (claimed[i])
			continue;
		for (j = i, n = 0; j < reply->njobs && n < DB_SEQ_BATCH; j++) {
			if (claimed[j] || reply->jobs[j].av != av ||
			    t + (int64_t)reply->jobs[j].wu.delay_bound != deadline)
				continue;
			claimed[j] = true;
			idx[n] = j;
			ids[n] = reply->jobs[j].result.id;
			wus[n++] = reply->jobs[j].wu.id;
		}
		rc = db_result_claim_many(ctx->db, ids, n, host->id, host->userid, t, deadline,
					  av->id, av->version_num, &matched);
		if (rc == DB_OK && matched != (int64_t)n && ctx->pool && sched_pool_used(ctx->pool)) {
			/* one claimed ahead was sent by another process (its lease had ended) */
			log_info("host %" PRId64 ": %" PRId64 " of %zu results were no longer unsent; "
				 "forgetting those claimed ahead, the request runs again", host->id,
				 matched, n);
			sched_pool_forget(ctx->pool);
			rc = DB_RETRY;
		} else if (rc == DB_OK && matched != (int64_t)n) {
			rc = log_error("host %" PRId64 ": %" PRId64 " of %zu results read locked "
				       "were no longer unsent", host->id, matched, n);
		}
		for (k = 0; rc == DB_OK && k < n; k++) {
			struct sched_job *job = &reply->jobs[idx[k]];

			if (job->replicate)
				rc = db_workunit_replicate(ctx->db, wus[k], job->app->target_nresults,
							   t);
			reply->jobs[idx[k]].result.sent_time = t;
			reply->jobs[idx[k]].result.report_deadline = deadline;
			sched_reply_touch(reply, wus[k], deadline);
		}
	}
	free(claimed);
	return rc;
}

/* "host 7: sent 3 jobs (CPU 3600 s of 7200 asked, NVIDIA 900 s of 800)" */
static void log_sent(const struct sched_request *req, const struct sched_reply *reply,
		     const struct db_host *host)
{
	struct sbuf b = SBUF_INIT(1024);
	int i;

	for (i = 0; i < req->nrsc; i++)
		if (reply->rsc_secs[i] > 0 || req->rsc[i].req_secs > 0)
			sbuf_addf(&b, "%s%s %.0f s of %.0f asked", b.len ? ", " : "", req->rsc[i].type,
				  reply->rsc_secs[i], req->rsc[i].req_secs);
	log_info("host %" PRId64 ": sent %zu jobs (%s)", host->id, reply->njobs, sbuf_str(&b));
	sbuf_release(&b);
}

/*
 * The work already in the reply (lost jobs sent again, assigned jobs,
 * sequence segments) counts for at most sequence_share of each resource's
 * request, so ordinary jobs are never crowded out: the excess is set aside
 * while ordinary jobs are chosen (sign -1), and put back after (+1).
 */
static void set_aside(const struct sched_ctx *ctx, const struct sched_request *req,
		      struct sched_reply *reply, double *excess, int sign)
{
	int i;

	for (i = 0; i < req->nrsc; i++) {
		if (sign < 0) {
			double cap = ctx->set->sequence_share * req->rsc[i].req_secs;

			excess[i] = reply->rsc_secs[i] > cap ? reply->rsc_secs[i] - cap : 0;
		}
		reply->rsc_secs[i] += sign * excess[i];
	}
}

/* Every resource the request asks work for has it (or none was asked for)? */
static bool satisfied(const struct sched_request *req, const struct sched_reply *reply)
{
	return !sched_any_rsc_wants(req, reply);
}

/* Does the request want more, within the candidates it may examine? */
static bool wants_more(const struct sched_ctx *ctx, const struct sched_request *req,
		       const struct sched_reply *reply, long max_jobs, long examined)
{
	return examined < ctx->set->candidates && (long)reply->njobs < max_jobs &&
	       !satisfied(req, reply);
}

/* Candidates c[0..n): their workunits read, each considered in turn while the request wants more. */
static int consider_rows(const struct sched_ctx *ctx, const struct sched_request *req,
			 const struct db_host *host, const struct sched_apps *apps,
			 struct sched_reply *reply, long max_jobs, struct db_result *c, size_t n)
{
	struct db_result_list l = { c, n };
	struct cand_wus w = { NULL, 0 };
	size_t i;
	int rc = cand_wus_read(ctx, host, apps, &l, &w);

	for (i = 0; rc == DB_OK && i < n; i++) {
		int r;

		if ((long)reply->njobs >= max_jobs || satisfied(req, reply))
			break;
		r = consider(ctx, req, host, apps, &c[i], cand_wu(&w, c[i].workunitid), reply);
		if (r == DB_ERROR || r == DB_RETRY)
			rc = r;
	}
	cand_wus_release(&w);
	return rc;
}

/* The results this process claimed ahead first: 4, then up to 32 at a time. */
static int fill_from_pool(const struct sched_ctx *ctx, const struct sched_request *req,
			  const struct db_host *host, const struct sched_apps *apps,
			  struct sched_reply *reply, long max_jobs, long *examined)
{
	struct db_result_list c = { NULL, 0 };
	size_t batch = 4, first;
	int rc = DB_OK;

	while (rc == DB_OK && wants_more(ctx, req, reply, max_jobs, *examined)) {
		if ((long)batch > ctx->set->candidates - *examined)
			batch = (size_t)(ctx->set->candidates - *examined);
		first = sched_pool_lend(ctx->pool, now(), batch, &c);
		if (c.n == 0)
			break;
		rc = consider_rows(ctx, req, host, apps, reply, max_jobs, c.v, c.n);
		*examined += (long)c.n;
		sched_pool_settle(ctx->pool, &c, first);
		c.n = 0;
		batch = DB_SEQ_BATCH;
	}
	free(c.v);
	return rc;
}

/*
 * Unsent results read locked in batches (SKIP LOCKED: what a scheduler
 * beside this one holds is passed over) -- those free of a lease, or (leased)
 * those another process claimed ahead -- 6 first (a request most often wants
 * one job or a few; each row read is locked and carries its XML), twice as
 * many each time after, up to sched_candidates examined in all. With ahead,
 * each read takes that many more, and what the request leaves of the last
 * is claimed ahead into the pool. *exhausted: none are left to read.
 */
static int fill_scan(const struct sched_ctx *ctx, const struct sched_request *req,
		     const struct db_host *host, const struct sched_apps *apps,
		     struct sched_reply *reply, long max_jobs, bool leased, size_t ahead,
		     long *examined, bool *exhausted)
{
	struct db_result_list c = { NULL, 0 };
	long batch = max_jobs < 6 ? max_jobs + 1 : 6;
	int64_t t = now(), after_priority = INT64_MAX, after_id = 0;
	size_t i, k;
	int rc = DB_OK;

	*exhausted = false;
	while (rc == DB_OK && wants_more(ctx, req, reply, max_jobs, *examined)) {
		long limit;

		for (i = 0; i < c.n; i++)
			db_result_release(&c.v[i]);
		c.n = 0;
		if (batch > ctx->set->candidates - *examined)
			batch = ctx->set->candidates - *examined;
		limit = batch + (long)ahead;
		rc = db_result_enum_unsent_lock(ctx->db, leased, t, after_priority, after_id,
						(int)limit, db_result_list_take, &c);
		if (c.n > 0) {  /* before consider() takes the rows over */
			after_priority = c.v[c.n - 1].priority;
			after_id = c.v[c.n - 1].id;
		}
		/* this process's own leases were candidates already: no app takes them again */
		for (i = 0; leased && i < c.n; i++)
			if (ctx->pool && sched_pool_has(ctx->pool, c.v[i].id))
				c.v[i].appid = 0;
		for (i = 0; rc == DB_OK && i < c.n &&
		     wants_more(ctx, req, reply, max_jobs, *examined); i += k) {
			k = c.n - i < (size_t)batch ? c.n - i : (size_t)batch;
			rc = consider_rows(ctx, req, host, apps, reply, max_jobs, c.v + i, k);
			*examined += (long)k;
		}
		if ((long)c.n < limit) {
			*exhausted = true;
			break;
		}
		batch *= 2;
	}
	if (rc == DB_OK && ahead > 0)
		rc = sched_pool_lease(ctx->pool, ctx->db, &c, ahead,
				      t + ctx->set->claim_ahead_lease);
	for (i = 0; i < c.n; i++)
		db_result_release(&c.v[i]);
	free(c.v);
	return rc;
}

/*
 * Candidates: the results claimed ahead, then those free of a lease; when
 * none of those is left, those other processes claimed ahead.
 */
static int fill(const struct sched_ctx *ctx, const struct sched_request *req,
		const struct db_host *host, const struct sched_apps *apps,
		struct sched_reply *reply, long max_jobs)
{
	size_t ahead = ctx->pool ? sched_pool_ahead(ctx->pool, ctx->set, now()) : 0;
	size_t held = ctx->pool ? sched_pool_size(ctx->pool) : 0, most = 2 * (size_t)ctx->set->claim_ahead;
	long examined = 0;
	bool exhausted = false;
	int rc = ctx->pool ? fill_from_pool(ctx, req, host, apps, reply, max_jobs, &examined) :
			     DB_OK;

	/* what the pool holds and no host took stays until its lease ends: it is bounded */
	if (held + ahead > most)
		ahead = held < most ? most - held : 0;
	if (rc == DB_OK && wants_more(ctx, req, reply, max_jobs, examined))
		rc = fill_scan(ctx, req, host, apps, reply, max_jobs, false, ahead, &examined,
			       &exhausted);
	if (rc == DB_OK && exhausted && wants_more(ctx, req, reply, max_jobs, examined))
		rc = fill_scan(ctx, req, host, apps, reply, max_jobs, true, 0, &examined,
			       &exhausted);
	return rc;
}

int sched_send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct sched_reply *reply)
{
	double excess[SCHED_MAX_RSC] = { 0 };
	long max_jobs = ctx->cfg->max_wus_to_send + (long)reply->njobs, left;
	size_t first = reply->njobs;
	int rc = DB_OK;

	set_aside(ctx, req, reply, excess, -1);
	if (satisfied(req, reply))
		goto out;
	left = sched_quota_left(ctx, host, reply->njobs);
	if (left <= 0) {
		sched_quota_exceeded(ctx, host, reply);
		goto out;
	}
	if (max_jobs - (long)reply->njobs > left)
		max_jobs = (long)reply->njobs + left;
	rc = fill(ctx, req, host, apps, reply, max_jobs);
	/* the selected apps had nothing for the host: others, if the volunteer allows them */
	if (rc == DB_OK && !satisfied(req, reply) &&
	    sched_prefs_send_others(reply, reply->njobs - first)) {
		rc = fill(ctx, req, host, apps, reply, max_jobs);
		reply->others_ok = false;
		if (rc == DB_OK && reply->njobs > first)
			sched_reply_message(reply, "low", "No tasks are available for the "
					    "applications you have selected; your preferences "
					    "allow others: sending tasks from other applications");
	}
	if (rc == DB_OK)
		rc = claim_jobs(ctx, host, reply, first);
	if (rc == DB_OK && ctx->pool)
		sched_pool_count(ctx->pool, now(), reply->njobs - first);
out:
	set_aside(ctx, req, reply, excess, +1);
	if (reply->njobs)
		log_sent(req, reply, host);
	return rc;
}
