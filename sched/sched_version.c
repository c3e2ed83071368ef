/*
 * Which app version a job goes out as, upstream BOINC's way
 * (sched/sched_version.cpp): of an app's versions for the host's platforms,
 * the newest of each platform and plan class, whose plan class the host
 * satisfies, the one expected to run fastest on it -- by its plan class's
 * projection until the host has returned jobs of it, then by the speed
 * measured (host_app_version), lowered by each invalid result. A request
 * asks for seconds of work per resource (the CPU, each coprocessor type):
 * a job is only given a version of a resource that still wants work.
 *
 * The apps, versions and plan classes are kept across requests; the
 * versions the host can use are worked out once per RPC (sched_usable).
 */
#include "sched_policy.h"
#include "plan_class.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

#include <sys/stat.h>

/* Jobs of a version a host must have returned before its measured speed is believed. */
#define HAV_MIN_SAMPLES 2

/* ---- the apps, platforms, versions and plan classes kept across requests ---- */

DB_ROWS_TAKER(take_app, struct db_app)
DB_ROWS_TAKER(take_platform, struct db_platform)
DB_ROWS_TAKER(take_version, struct db_app_version)

/*
 * The fingerprint is asked for at most once a second (a process answering
 * hundreds of requests a second asks for it once); a copy older than a
 * minute is read again even when the fingerprint is the same (hand edits).
 */
#define APPS_CHECK_INTERVAL 1.0
#define APPS_MAX_AGE 60.0
/*
 * Whether any job was ever assigned, any sequence made (db_work_kinds): a
 * project with neither reads nothing for them. Asked at every request, but
 * with the fingerprint, once a second, by a process answering this many
 * requests a second or more: there the first assigned job or sequence
 * waits at most a second; where one client calls at a time, not at all.
 */
#define APPS_BUSY 32

static int64_t file_mtime(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_mtime * 1000000000 + st.st_mtim.tv_nsec : 0;
}

/* plan_class_spec.xml, read again when it changed; a broken file keeps no classes (logged). */
static void plan_classes_get(const char *project_dir, struct sched_apps *a)
{
	char *path = xasprintf("%s/plan_class_spec.xml", project_dir ? project_dir : ".");
	int64_t mt = file_mtime(path);
	struct sbuf err = SBUF_INIT(4096);

	if (a->pcs && a->pcs->path && !strcmp(a->pcs->path, path) && a->pcs->mtime == mt) {
		free(path);
		return;
	}
	if (!a->pcs)
		a->pcs = xcalloc(1, sizeof(*a->pcs));
	plan_classes_release(a->pcs);
	if (plan_classes_read(path, a->pcs, NULL, &err) < 0) {
		log_error("%s: %s; no plan class is defined, so versions with one go nowhere",
			  path, sbuf_str(&err));
		plan_classes_release(a->pcs);
	} else if (a->loaded) {
		log_info("%s: %zu plan classes read", path, a->pcs->n);
	}
	free(a->pcs->path);
	a->pcs->path = path;
	a->pcs->mtime = mt;
	sbuf_release(&err);
}

/* The apps, platforms and versions read from the database: freed, a is no longer loaded. */
static void lists_release(struct sched_apps *a)
{
	size_t i;

	for (i = 0; i < a->napps; i++)
		db_app_release(&a->apps[i]);
	for (i = 0; i < a->nplatforms; i++)
		db_platform_release(&a->platforms[i]);
	for (i = 0; i < a->nversions; i++)
		db_app_version_release(&a->versions[i]);
	free(a->apps);
	free(a->platforms);
	free(a->versions);
	a->apps = NULL;
	a->platforms = NULL;
	a->versions = NULL;
	a->napps = a->nplatforms = a->nversions = 0;
	a->loaded = false;
}

/* db_work_kinds() into a; a failed query leaves the flags as they were. */
static int kinds_get(struct db *db, struct sched_apps *a)
{
	bool asg, seqs;
	int rc = db_work_kinds(db, &asg, &seqs);

	if (rc == DB_OK) {
		a->have_assignments = asg;
		a->have_sequences = seqs;
	}
	return rc;
}

int sched_apps_get(struct db *db, const char *project_dir, struct sched_apps *a)
{
	struct db_rows la = DB_ROWS(a->apps, a->napps, 0);
	struct db_rows lp = DB_ROWS(a->platforms, a->nplatforms, 0);
	struct db_rows lv = DB_ROWS(a->versions, a->nversions, 0);
	double t = dnow();
	int64_t fp = 0;
	int rc;

	sched_rate_count(&a->requests, (int64_t)t, 1);
	if (a->loaded && t - a->checked_at < APPS_CHECK_INTERVAL && t >= a->checked_at) {
		if (sched_rate_at(&a->requests, (int64_t)t) >= APPS_BUSY)
			return DB_OK;
		return kinds_get(db, a);
	}
	rc = db_apps_fingerprint(db, &fp);
	if (rc == DB_OK)
		rc = kinds_get(db, a);
	if (rc != DB_OK)
		return rc;
	a->checked_at = t;
	plan_classes_get(project_dir, a);
	if (a->loaded && fp == a->fingerprint && t - a->loaded_at < APPS_MAX_AGE)
		return DB_OK;
	if (a->loaded)
		log_info("apps or app versions changed: read again");
	lists_release(a);       /* the plan classes, flags and rate are kept */
	rc = db_app_enum(db, "WHERE deprecated=0", NULL, 0, take_app, &la);
	if (rc == DB_OK)
		rc = db_platform_enum(db, "WHERE deprecated=0", NULL, 0, take_platform, &lp);
	if (rc == DB_OK)
		rc = db_app_version_enum(db, "WHERE deprecated=0", NULL, 0, take_version, &lv);
	if (rc != DB_OK) {
		lists_release(a);
		return rc;
	}
	a->loaded = true;
	a->loaded_at = a->checked_at = t;
	a->fingerprint = fp;
	return DB_OK;
}

void sched_apps_release(struct sched_apps *a)
{
	lists_release(a);
	if (a->pcs) {
		plan_classes_release(a->pcs);
		free(a->pcs->path);
		free(a->pcs);
	}
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

/* ---- the versions this host can use, once per RPC ---- */

static const char *platform_name(const struct sched_apps *a, int64_t id)
{
	size_t i;

	for (i = 0; i < a->nplatforms; i++)
		if (a->platforms[i].id == id)
			return a->platforms[i].name;
	return NULL;
}

/* Where the host lists platform p (0 its own), or -1. */
static int platform_rank(const struct sched_request *req, const char *p)
{
	int k;

	for (k = 0; p && k < req->nplatforms; k++)
		if (!strcmp(req->platforms[k], p))
			return k;
	return -1;
}

/* Is there a newer version of v's app, platform and plan class? */
static bool superseded(const struct sched_apps *a, const struct db_app_version *v)
{
	size_t i;

	for (i = 0; i < a->nversions; i++) {
		const struct db_app_version *o = &a->versions[i];

		if (o->appid == v->appid && o->platformid == v->platformid &&
		    o->version_num > v->version_num &&
		    !strcmp(o->plan_class ? o->plan_class : "", v->plan_class ? v->plan_class : ""))
			return true;
	}
	return false;
}

/* The client's version as app_version.min/max_core_version count it (7.20.5 = 72005). */
static int client_version(const struct sched_request *req)
{
	return req->core_major * 10000 + req->core_minor * 100 + req->core_release;
}

struct havs {
	struct db_host_app_version *v;
	size_t n;
};

static int take_hav(struct db_host_app_version *r, void *arg)
{
	struct havs *h = arg;
	struct db_rows rows = DB_ROWS(h->v, h->n, 0);

	return db_rows_take(r, &rows);
}

/*
 * A version's standing on the host: the measured speed once it returned
 * HAV_MIN_SAMPLES jobs, else the projection; each invalid result weighs
 * against it ((valid + 1) / (valid + invalid + 1)). Its run of valid
 * results too, for adaptive replication's trust.
 */
static void standing(struct sched_bav *b, const struct havs *h)
{
	size_t i;

	b->consecutive_valid = 0;
	for (i = 0; i < h->n; i++) {
		const struct db_host_app_version *r = &h->v[i];

		if (r->app_version_id != b->av->id)
			continue;
		b->consecutive_valid = r->consecutive_valid;
		if (r->n_jobs >= HAV_MIN_SAMPLES && r->flops_avg > 0) {
			b->u.projected_flops = r->flops_avg;
			b->measured = true;
		}
		if (r->n_invalid > 0)
			b->u.projected_flops *= (double)(r->n_valid + 1) /
						(double)(r->n_valid + r->n_invalid + 1);
		return;
	}
}

/* How version v would run on the host (false: it cannot, *why says why); *pcp its class. */
static bool usage_of(const struct sched_apps *a, const struct sched_request *req,
		     const struct db_app_version *v, struct host_usage *u,
		     const struct plan_class **pcp, char *why, size_t n)
{
	const struct plan_class *pc;
	int cv = client_version(req);

	*pcp = NULL;
	if ((v->min_core_version && cv < v->min_core_version) ||
	    (v->max_core_version && cv > v->max_core_version)) {
		snprintf(why, n, "client version %d outside [%d, %d]", cv, v->min_core_version,
			 v->max_core_version);
		return false;
	}
	if (!v->plan_class || !*v->plan_class) {
		host_usage_cpu(req, u);
		return true;
	}
	pc = *pcp = a->pcs ? plan_class_find(a->pcs, v->plan_class) : NULL;
	if (!pc) {
		snprintf(why, n, "plan class %s is not in plan_class_spec.xml", v->plan_class);
		return false;
	}
	return plan_class_check(pc, req, u, why, n);
}

int sched_usable(const struct sched_ctx *ctx, const struct sched_request *request,
		 const struct db_host *host, const struct sched_apps *a, struct sched_reply *reply)
{
	/* the host's CPUs as every limit counts them: at most max_ncpus */
	struct sched_request capped = *request, *req = &capped;
	struct havs h = { NULL, 0 };
	size_t i;
	int rc = DB_OK;

	capped.host.p_ncpus = sched_host_ncpus(ctx, &request->host);

	if (reply->usable_known)
		return DB_OK;
	if (host->id > 0 && ctx->db)
		rc = db_hav_enum_host(ctx->db, host->id, take_hav, &h);
	if (rc != DB_OK) {
		free(h.v);
		return rc;
	}
	free(reply->usable);
	reply->usable = xcalloc(a->nversions + 1, sizeof(*reply->usable));
	reply->nusable = 0;
	for (i = 0; i < a->nversions; i++) {
		const struct db_app_version *v = &a->versions[i];
		struct sched_bav *b = &reply->usable[reply->nusable];
		const char *p = platform_name(a, v->platformid);
		int rank = platform_rank(req, p);
		char why[256] = "";

		if (rank < 0 || !sched_app_by_id(a, v->appid))
			continue;
		if (!usage_of(a, req, v, &b->u, &b->pc, why, sizeof(why))) {
			log_debug("host %" PRId64 ": version %d%s%s of app %" PRId64 " not usable: %s",
				  host->id, v->version_num, *v->plan_class ? " " : "", v->plan_class,
				  v->appid, why);
			continue;
		}
		b->av = v;
		b->platform = p;
		b->platform_rank = rank;
		b->latest = !superseded(a, v);
		b->rsc_type = request->rsc[b->u.rsc].type;
		standing(b, &h);
		sched_prefs_mark(request, a, reply, b);
		reply->nusable++;
	}
	reply->usable_known = true;
	free(h.v);
	return sched_in_progress_room(ctx, request, host, reply);
}

bool sched_rsc_wants(const struct sched_request *req, const struct sched_reply *reply, int rsc)
{
	if (rsc < 0 || rsc >= req->nrsc || (reply->rooms_known && reply->rsc_room[rsc] <= 0))
		return false;
	return reply->rsc_secs[rsc] < req->rsc[rsc].req_secs ||
	       reply->rsc_insts[rsc] < req->rsc[rsc].req_instances;
}

bool sched_any_rsc_wants(const struct sched_request *req, const struct sched_reply *reply)
{
	int i;

	for (i = 0; i < req->nrsc; i++)
		if (sched_rsc_wants(req, reply, i))
			return true;
	return false;
}

/* Is b better for the host than best? Faster; then its own platform; then newer. */
static bool better(const struct sched_bav *b, const struct sched_bav *best)
{
	if (!best)
		return true;
	if (b->u.projected_flops != best->u.projected_flops)
		return b->u.projected_flops > best->u.projected_flops;
	if (b->platform_rank != best->platform_rank)
		return b->platform_rank < best->platform_rank;
	return b->av->version_num > best->av->version_num;
}

const struct sched_bav *sched_choose(const struct sched_request *req,
				     const struct sched_reply *reply, int64_t appid,
				     const struct db_workunit *wu, int rsc)
{
	const struct sched_bav *best = NULL;
	int version_num = wu ? wu->app_version_num : 0;
	size_t i;

	for (i = 0; i < reply->nusable; i++) {
		const struct sched_bav *b = &reply->usable[i];

		if (b->av->appid != appid || !sched_prefs_allow(reply, b))
			continue;
		/* a job pinned to one version gets only that one; else only the newest of each class */
		if (version_num ? b->av->version_num != version_num : !b->latest)
			continue;
		if (rsc == SCHED_RSC_WANTED ? !sched_rsc_wants(req, reply, b->u.rsc)
					    : rsc >= 0 && b->u.rsc != rsc)
			continue;
		if (wu && b->pc && !plan_class_wu_ok(b->pc, wu->id, wu->batch))
			continue;
		if (better(b, best))
			best = b;
	}
	return best;
}

const struct sched_bav *sched_usable_by_id(const struct sched_reply *reply, int64_t avid)
{
	size_t i;

	for (i = 0; i < reply->nusable; i++)
		if (reply->usable[i].av->id == avid)
			return &reply->usable[i];
	return NULL;
}

double sched_app_flops(const struct sched_request *req, const struct sched_reply *reply,
		       int64_t appid)
{
	const struct sched_bav *b = sched_choose(req, reply, appid, NULL, SCHED_RSC_ANY);

	return b ? b->u.projected_flops : 0;
}
