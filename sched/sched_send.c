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

struct list_arg {
	void **items;
	size_t *n;
	size_t size;
};

static int take(void *rec, void *arg)
{
	struct list_arg *l = arg;

	*l->items = xrealloc(*l->items, (*l->n + 1) * l->size);
	memcpy((char *)*l->items + *l->n * l->size, rec, l->size);
	memset(rec, 0, l->size);        /* the strings are ours now */
	(*l->n)++;
	return 0;
}

static int take_app(struct db_app *r, void *a) { return take(r, a); }
static int take_platform(struct db_platform *r, void *a) { return take(r, a); }
static int take_version(struct db_app_version *r, void *a) { return take(r, a); }

/*
 * The fingerprint is asked for at most once a second (a process answering
 * hundreds of requests a second asks for it once); a copy older than a
 * minute is read again even when the fingerprint is the same (hand edits).
 */
#define APPS_CHECK_INTERVAL 1.0
#define APPS_MAX_AGE 60.0

int sched_apps_get(struct db *db, struct sched_apps *a)
{
	struct list_arg la = { (void **)&a->apps, &a->napps, sizeof(struct db_app) };
	struct list_arg lp = { (void **)&a->platforms, &a->nplatforms, sizeof(struct db_platform) };
	struct list_arg lv = { (void **)&a->versions, &a->nversions, sizeof(struct db_app_version) };
	double t = dnow();
	int64_t fp = 0, maxasg = 0;
	int rc;

	if (a->loaded && t - a->checked_at < APPS_CHECK_INTERVAL && t >= a->checked_at)
		return DB_OK;
	rc = db_apps_fingerprint(db, &fp);
	if (rc == DB_OK)
		rc = db_assignment_max_id(db, &maxasg);
	if (rc != DB_OK)
		return rc;
	a->checked_at = t;
	a->have_assignments = maxasg > 0;
	if (a->loaded && fp == a->fingerprint && t - a->loaded_at < APPS_MAX_AGE)
		return DB_OK;
	if (a->loaded)
		log_info("apps or app versions changed: read again");
	sched_apps_free(a);
	rc = db_app_enum(db, "WHERE deprecated=0", NULL, 0, take_app, &la);
	if (rc == DB_OK)
		rc = db_platform_enum(db, "WHERE deprecated=0", NULL, 0, take_platform, &lp);
	if (rc == DB_OK)
		rc = db_app_version_enum(db, "WHERE deprecated=0", NULL, 0, take_version, &lv);
	if (rc != DB_OK) {
		sched_apps_free(a);
		return rc;
	}
	a->loaded = true;
	a->loaded_at = a->checked_at = t;
	a->fingerprint = fp;
	a->have_assignments = maxasg > 0;     /* sched_apps_free() cleared it */
	return DB_OK;
}

void sched_apps_free(struct sched_apps *a)
{
	size_t i;

	for (i = 0; i < a->napps; i++)
		db_app_free(&a->apps[i]);
	for (i = 0; i < a->nplatforms; i++)
		db_platform_free(&a->platforms[i]);
	for (i = 0; i < a->nversions; i++)
		db_app_version_free(&a->versions[i]);
	free(a->apps);
	free(a->platforms);
	free(a->versions);
	memset(a, 0, sizeof(*a));
}

const struct db_app *sched_app_by_id(const struct sched_apps *a, int64_t appid)
{
	size_t i;

	for (i = 0; i < a->napps; i++)
		if (a->apps[i].id == appid)
			return &a->apps[i];
	return NULL;
}

static const char *platform_name(const struct sched_apps *a, int64_t id)
{
	size_t i;

	for (i = 0; i < a->nplatforms; i++)
		if (a->platforms[i].id == id)
			return a->platforms[i].name;
	return NULL;
}

const struct db_app_version *sched_best_version(const struct sched_apps *a, int64_t appid,
						 int version_num, const struct sched_request *req,
						 const char **platform)
{
	const struct db_app_version *best = NULL;
	int best_rank = 0, k;
	size_t i;

	for (i = 0; i < a->nversions; i++) {
		const struct db_app_version *v = &a->versions[i];
		const char *p;

		if (v->appid != appid || (p = platform_name(a, v->platformid)) == NULL ||
		    (version_num && v->version_num != version_num))
			continue;
		for (k = 0; k < req->nplatforms; k++)
			if (!strcmp(req->platforms[k], p))
				break;
		if (k == req->nplatforms)
			continue;
		/* The primary platform before alternatives, then the newest version. */
		if (!best || k < best_rank || (k == best_rank && v->version_num > best->version_num)) {
			best = v;
			best_rank = k;
			*platform = p;
		}
	}
	return best;
}

bool sched_wu_in_reply(const struct sched_reply *reply, int64_t wuid)
{
	size_t i;

	for (i = 0; i < reply->njobs; i++)
		if (reply->jobs[i].wu.id == wuid)
			return true;
	return false;
}

int sched_job_append(const struct db_host *host, const struct db_app *app,
		     const struct db_app_version *av, const char *platform, struct db_result *r,
		     struct db_workunit *wu, struct sched_reply *reply, double *seconds, bool touch)
{
	struct sched_job job = { 0 };
	double flops = host->p_fpops > 0 ? host->p_fpops : 1e9;

	if (touch)
		sched_reply_touch(reply, wu->id, r->report_deadline);
	job.app = app;
	job.av = av;
	job.platform = platform;
	job.result = *r;
	job.wu = *wu;
	memset(r, 0, sizeof(*r));
	memset(wu, 0, sizeof(*wu));
	*seconds += job.wu.rsc_fpops_est / flops;
	reply->jobs = xrealloc(reply->jobs, (reply->njobs + 1) * sizeof(*reply->jobs));
	reply->jobs[reply->njobs++] = job;
	return DB_OK;
}

void sched_result_assign(const struct db_host *host, const struct db_app_version *av,
			 const struct db_workunit *wu, struct db_result *r)
{
	r->hostid = host->id;
	r->userid = host->userid;
	r->sent_time = now();
	r->report_deadline = r->sent_time + (int64_t)wu->delay_bound;
	r->app_version_id = av->id;
	r->app_version_num = av->version_num;
}

bool sched_host_fits(const struct db_host *host, double memory, double disk)
{
	return memory <= host->m_nbytes && disk <= host->d_free;
}

int64_t sched_quorum_user(const struct sched_ctx *ctx, const struct db_host *host)
{
	return ctx->set->one_result_per_user ? host->userid : -1;
}

/* The workunits of a batch of candidates neither the host nor (usually) its user has a result of. */
struct cand_wus {
	struct db_workunit *v;
	size_t n;
};

static int take_wu(struct db_workunit *r, void *a) { return take(r, a); }

static int cand_wus_read(const struct sched_ctx *ctx, const struct db_host *host,
			 const struct sched_apps *apps, const struct db_result_list *c,
			 struct cand_wus *w)
{
	struct list_arg l = { (void **)&w->v, &w->n, sizeof(struct db_workunit) };
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

static void cand_wus_free(struct cand_wus *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		db_workunit_free(&w->v[i]);
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
		    struct db_result *r, struct db_workunit *wu, struct sched_reply *reply,
		    double *seconds)
{
	const struct db_app *app = sched_app_by_id(apps, r->appid);
	const struct db_app_version *av = NULL;
	const char *platform = NULL;
	int rc;

	if (app)
		av = sched_best_version(apps, r->appid, 0, req, &platform);
	if (!av || !wu || sched_wu_in_reply(reply, r->workunitid))
		return DB_NOT_FOUND;
	/* a job pinned to one version of its app (remote submission) gets only that one */
	if (wu->app_version_num &&
	    !(av = sched_best_version(apps, r->appid, wu->app_version_num, req, &platform)))
		return DB_NOT_FOUND;
	if (wu->error_mask || wu->canonical_resultid ||
	    !sched_host_fits(host, wu->rsc_memory_bound, wu->rsc_disk_bound))
		return DB_NOT_FOUND;
	if ((rc = sched_exec_check(ctx, app, wu)) != DB_OK)
		return rc;
	sched_result_assign(host, av, wu, r);
	return sched_job_append(host, app, av, platform, r, wu, reply, seconds, false);
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
		if (rc == DB_OK && matched != (int64_t)n)
			rc = log_error("host %" PRId64 ": %" PRId64 " of %zu results read locked "
				       "were no longer unsent", host->id, matched, n);
		for (k = 0; rc == DB_OK && k < n; k++) {
			reply->jobs[idx[k]].result.sent_time = t;
			reply->jobs[idx[k]].result.report_deadline = deadline;
			sched_reply_touch(reply, wus[k], deadline);
		}
	}
	free(claimed);
	return rc;
}

int sched_send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct sched_reply *reply, double seq_seconds, size_t nseq_jobs)
{
	struct db_result_list c = { NULL, 0 };
	struct cand_wus w = { NULL, 0 };
	double want = req->work_req_seconds > req->cpu_req_secs ? req->work_req_seconds : req->cpu_req_secs;
	/* Segments count for at most their share, so ordinary work is never crowded out. */
	double seconds = seq_seconds < ctx->set->sequence_share * want ? seq_seconds
								  : ctx->set->sequence_share * want;
	long max_jobs = ctx->cfg->max_wus_to_send + (long)nseq_jobs, batch, examined = 0, left;
	int64_t after_priority = INT64_MAX, after_id = 0;
	size_t i, first = reply->njobs;
	int rc = DB_OK;

	if ((want <= 0 && req->cpu_req_instances <= 0) || (reply->njobs > 0 && seconds >= want))
		return DB_OK;
	left = sched_quota_left(ctx, host, reply->njobs);
	if (left <= 0) {
		sched_quota_exceeded(ctx, host, reply);
		return DB_OK;
	}
	if (max_jobs - (long)reply->njobs > left)
		max_jobs = (long)reply->njobs + left;
	rc = sched_in_progress_room(ctx, host, &left);
	if (rc != DB_OK || left <= 0)
		return rc;
	if (max_jobs > left)
		max_jobs = left;
	/*
	 * Candidates in batches, locked (SKIP LOCKED: what a scheduler beside
	 * this one holds is passed over), 6 first (a request most often wants
	 * one job or a few; each row read is locked and carries its XML), twice
	 * as many each time after, up to sched_candidates in all.
	 */
	batch = max_jobs < 6 ? max_jobs + 1 : 6;
	while (rc == DB_OK && examined < ctx->set->candidates &&
	       (long)reply->njobs < max_jobs && !(reply->njobs > 0 && seconds >= want)) {
		if (batch > ctx->set->candidates - examined)
			batch = ctx->set->candidates - examined;
		rc = db_result_enum_unsent_lock(ctx->db, after_priority, after_id, (int)batch,
						db_result_list_take, &c);
		if (c.n > 0) {  /* before consider() takes the rows over */
			after_priority = c.v[c.n - 1].priority;
			after_id = c.v[c.n - 1].id;
		}
		if (rc == DB_OK)
			rc = cand_wus_read(ctx, host, apps, &c, &w);
		for (i = 0; rc == DB_OK && i < c.n; i++) {
			int r;

			if ((long)reply->njobs >= max_jobs || (reply->njobs > 0 && seconds >= want))
				break;
			r = consider(ctx, req, host, apps, &c.v[i], cand_wu(&w, c.v[i].workunitid),
				     reply, &seconds);
			if (r == DB_ERROR || r == DB_RETRY)
				rc = r;
		}
		examined += (long)c.n;
		for (i = 0; i < c.n; i++)
			db_result_free(&c.v[i]);
		cand_wus_free(&w);
		if ((long)c.n < batch)
			break;          /* no more unsent results */
		c.n = 0;
		batch *= 2;
	}
	free(c.v);
	if (rc == DB_OK)
		rc = claim_jobs(ctx, host, reply, first);
	if (reply->njobs)
		log_info("host %" PRId64 ": sent %zu jobs (%.0f s of work for %.0f s asked)", host->id,
			 reply->njobs, seconds, want);
	return rc;
}
