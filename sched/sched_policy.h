/* Scheduler policy parts shared between sched_handle.c and sched_send.c. */
#ifndef WSEQ_SCHED_POLICY_H
#define WSEQ_SCHED_POLICY_H

#include "scheduler.h"
#include "sched_types.h"
#include "plan_class.h"
#include "sched_rate.h"

struct plan_classes;

/* The apps, app versions and plan classes, kept across requests. */
struct sched_apps {
	struct db_app *apps;
	size_t napps;
	struct db_platform *platforms;
	size_t nplatforms;
	struct db_app_version *versions;
	size_t nversions;
	struct plan_classes *pcs;       /* the project's plan_class_spec.xml (NULL: not read yet) */
	/* a copy kept across requests (FastCGI): when it was read and checked, and its fingerprint */
	bool loaded;
	double loaded_at, checked_at;
	int64_t fingerprint;
	bool have_assignments;  /* some job was ever assigned (create_work --target_*) */
	bool have_sequences;    /* some work sequence was made (and not purged) */
	struct sched_rate requests;     /* requests answered a second */
};

/*
 * The apps, platforms and app versions not deprecated, and the plan classes
 * of project_dir/plan_class_spec.xml: a copy kept in a, read again when the
 * database's differ (db_apps_fingerprint, asked at most once a second), the
 * copy is a minute old, or the file changed. Jobs put into a reply point
 * into it: not called again while the reply is in use (sched_version.c).
 */
int sched_apps_get(struct db *db, const char *project_dir, struct sched_apps *a);
void sched_apps_release(struct sched_apps *a);
const struct db_app *sched_app_by_id(const struct sched_apps *a, int64_t appid);

/*
 * Results claimed ahead (sched_lease.c). A request borrows rows from the
 * pool (sched_pool_lend: up to max more, appended to c; returns the slot of
 * the first) and settles them (sched_pool_settle: those it sent, their rows
 * taken over, leave; the others go back); sched_pool_lease() leases up to max
 * of the rows of c the request did not send (read locked by its
 * transaction) until the time until and takes them into the pool;
 * sched_pool_end() after the request's commit or rollback (a rollback drops
 * the leases it made; results near their lease's end are dropped too).
 * sched_pool_forget() drops everything (a result in hand was sent by
 * another meanwhile). sched_pool_count() tells the jobs sent, so that
 * sched_pool_ahead() says how many to claim ahead.
 */
typedef int sched_lease_fn(struct db *db, const int64_t *ids, size_t n, int64_t until);
struct sched_pool *sched_pool_new_leasing(sched_lease_fn *lease);      /* with a lease statement of its own */
size_t sched_pool_lend(struct sched_pool *p, int64_t t, size_t max, struct db_result_list *c);
void sched_pool_settle(struct sched_pool *p, struct db_result_list *c, size_t first);
int sched_pool_lease(struct sched_pool *p, struct db *db, struct db_result_list *c, size_t max,
		     int64_t until);
void sched_pool_end(struct sched_pool *p, bool committed, int64_t t);
void sched_pool_forget(struct sched_pool *p);
void sched_pool_count(struct sched_pool *p, int64_t t, size_t sent);
size_t sched_pool_ahead(const struct sched_pool *p, const struct sched_settings *set, int64_t t);
size_t sched_pool_size(const struct sched_pool *p);
bool sched_pool_used(const struct sched_pool *p);
bool sched_pool_has(const struct sched_pool *p, int64_t id);

/* An app version as it would go to this host: its record, platform and usage. */
struct sched_bav {
	const struct db_app_version *av;
	const char *platform;
	int platform_rank;      /* where the host lists the platform (0: its own) */
	bool latest;            /* the newest of its app, platform and plan class */
	bool measured;          /* u.projected_flops is the host's measured speed */
	int64_t consecutive_valid;      /* the host's run of verified valid results of av */
	struct host_usage u;
	const struct plan_class *pc;    /* its plan class (NULL: none) */
	const char *rsc_type;   /* its resource's name: "CPU", "NVIDIA", ... (req->rsc[u.rsc].type) */
	bool off;               /* the volunteer's prefs turn its resource off, or beta work */
	bool unselected;        /* its app is not among those the volunteer selected */
};

/*
 * The versions the host can use (its platforms, the versions' client
 * limits and plan classes, the measured speeds of host_app_version), into
 * reply->usable once per RPC.
 */
int sched_usable(const struct sched_ctx *ctx, const struct sched_request *req,
		 const struct db_host *host, const struct sched_apps *a, struct sched_reply *reply);
#define SCHED_RSC_ANY (-1)      /* sched_choose(): of any resource */
#define SCHED_RSC_WANTED (-2)   /* of a resource the request still wants work for */
/*
 * The best usable version of appid for a job of wu (NULL: any job of the
 * app): the newest of each platform and plan class (or exactly
 * wu->app_version_num if set: a job pinned to one version) whose plan
 * class takes the workunit (min/max_wu_id, min/max_batch), on resource rsc
 * (an index of req->rsc, or SCHED_RSC_*), expected fastest.
 */
const struct sched_bav *sched_choose(const struct sched_request *req,
				     const struct sched_reply *reply, int64_t appid,
				     const struct db_workunit *wu, int rsc);
/* The usable version with this id, or NULL. */
const struct sched_bav *sched_usable_by_id(const struct sched_reply *reply, int64_t avid);
/* The speed of appid's best version on the host (0: none usable). */
double sched_app_flops(const struct sched_request *req, const struct sched_reply *reply,
		       int64_t appid);
/* Does the request still want work for resource rsc (seconds or idle instances)? */
bool sched_rsc_wants(const struct sched_request *req, const struct sched_reply *reply, int rsc);
bool sched_any_rsc_wants(const struct sched_request *req, const struct sched_reply *reply);

/*
 * Add ordinary jobs to the reply until each resource's seconds and idle
 * instances the request asks for are covered (sched_send.c). The jobs the
 * reply already carries (resent, assigned, sequence segments) count for at
 * most sequence_share of each resource's request, and not against
 * max_wus_to_send.
 */
int sched_send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct sched_reply *reply);
/*
 * Has the host the memory and free disk a job declares (rsc_memory_bound,
 * rsc_disk_bound)? A host that reports none has none.
 */
bool sched_host_fits(const struct db_host *host, double memory, double disk);
/*
 * The account whose hosts must hold no other result of a workunit the host
 * gets: its user, or -1 with one_result_per_user_per_wu off.
 */
int64_t sched_quorum_user(const struct sched_ctx *ctx, const struct db_host *host);
/* Has the reply a job of workunit wuid already? */
bool sched_wu_in_reply(const struct sched_reply *reply, int64_t wuid);

/* ---- what a job may choose on a host (sched_exec_check.c) ---- */

/*
 * May wu of app go to a host by the rule of lib/exec_rule.h? DB_OK: yes;
 * DB_NOT_FOUND: no -- the workunit is cancelled in the RPC's transaction,
 * the reason logged; else a database error.
 */
int sched_exec_check(const struct sched_ctx *ctx, const struct db_app *app,
		     const struct db_workunit *wu);

/* ---- assigned jobs (sched_assign.c) ---- */

/*
 * Jobs assigned to this host, its user or the user's team (create_work
 * --target_*), whose results wait INACTIVE: sent here, before the
 * ordinary jobs, and to no other host.
 */
int sched_send_assigned(const struct sched_ctx *ctx, const struct sched_request *req,
			const struct db_host *host, const struct sched_apps *apps,
			struct sched_reply *reply);

/* ---- lost jobs (sched_resend.c) ---- */

/* Does the client hold job name (in <other_results>) or report it in this request? */
bool sched_client_has(const struct sched_request *req, const char *name);
/*
 * resend_lost_results: the host's ordinary jobs in progress that its client
 * no longer has are sent again (fresh deadline) or, if too late, marked
 * over with no reply. Only when the client listed its jobs and asks for work.
 */
int sched_resend_lost(const struct sched_ctx *ctx, const struct sched_request *req,
		      const struct db_host *host, const struct sched_apps *apps,
		      struct sched_reply *reply);

/* ---- the volunteer's project preferences (sched_prefs.c) ---- */

/*
 * The user's project_prefs for the host's venue (else the default block)
 * into reply->prefs, once per RPC: the user row is read already. Stored
 * prefs that do not parse count as none (logged).
 */
void sched_prefs_read(const struct db_user *user, const struct db_host *host,
		      struct sched_reply *reply);
/* Set b->off and b->unselected by reply->prefs (b->u.rsc is the request's resource index). */
void sched_prefs_mark(const struct sched_request *req, const struct sched_apps *a,
		      const struct sched_reply *reply, struct sched_bav *b);
/* May b go to the host now (not off; selected, or others allowed by now)? */
bool sched_prefs_allow(const struct sched_reply *reply, const struct sched_bav *b);
/*
 * Upstream's "if none of my apps is available, send others": true (and
 * reply->others_ok set, the volunteer told) when the prefs allow it, select
 * some apps, and the pass over them sent no job.
 */
bool sched_prefs_send_others(struct sched_reply *reply, size_t sent);

/*
 * Computing prefs, upstream's way (handle_request.cpp handle_global_prefs):
 * the client's master copy is stored when newer than the account's and
 * from the same account (its source e-mail hash), not by a weak
 * authenticator's holder -- one UPDATE, only then; the account's are sent
 * (reply->account.global_prefs) when newer than both the client's master
 * and working copies.
 */
int sched_global_prefs(const struct sched_ctx *ctx, const struct sched_request *req,
		       struct db_user *user, bool weak, struct sched_reply *reply);

/* ---- daily result quota (sched_quota.c) ---- */

/* The UTC day of time t: the quota's count starts again when it changes. */
int64_t sched_day(int64_t t);
/*
 * Jobs the host may get a day (LONG_MAX without a quota); 0 if its user's
 * other hosts cannot be read.
 */
long sched_quota_limit(const struct sched_ctx *ctx, const struct db_host *host);
/* Jobs it may still get today, sent_now of this reply counted; LONG_MAX without a quota. */
long sched_quota_left(const struct sched_ctx *ctx, const struct db_host *host, size_t sent_now);
/* Tell the client the limit is reached, and to come back tomorrow if it got nothing. */
void sched_quota_exceeded(const struct sched_ctx *ctx, const struct db_host *host,
			  struct sched_reply *reply);
/* The host's CPUs as its limits count them: p_ncpus, at least 1, at most max_ncpus. */
int sched_host_ncpus(const struct sched_ctx *ctx, const struct db_host *host);
/* Has the host no history of its own (it never reported a result)? */
bool sched_host_untried(const struct db_host *host);
/*
 * How many more jobs the host may hold in progress on each resource, into
 * reply->rsc_room (max_wus_in_progress per CPU, max_wus_in_progress_gpu per
 * device; rooms_known false without either). An untried host counts its
 * user's other untried hosts' jobs as its own CPU jobs.
 */
int sched_in_progress_room(const struct sched_ctx *ctx, const struct sched_request *req,
			   const struct db_host *host, struct sched_reply *reply);
/* The host's GPUs and other coprocessors, at most max_ncpus. */
int sched_host_ngpus(const struct sched_ctx *ctx, const struct db_host *host);
/* A reported result: an error halves the host's quota, a success doubles it back. */
void sched_quota_report(const struct sched_ctx *ctx, const char *lbl, struct db_host *host,
			bool success);

/* Fill r's sending fields (host, times, deadline, app version). */
void sched_result_assign(const struct db_host *host, const struct sched_bav *bav,
			 const struct db_workunit *wu, struct db_result *r);
/*
 * Adaptive replication (upstream's, README "Believable results"): an app
 * with target_nresults > 1 sends a job made single (target_nresults 1)
 * alone to a host trusted for the version -- consecutive_valid at least
 * app.trust_after -- except a spot check (u < app.spot_check, u uniform
 * in [0, 1)); to an untrusted host, or as a spot check, it is verified
 * (sched_ar.c).
 */
enum sched_ar {
	SCHED_AR_OFF,           /* not the app's way, or the job is replicated already */
	SCHED_AR_SINGLE,        /* trusted: sent alone */
	SCHED_AR_SPOT,          /* trusted, but spot-checked */
	SCHED_AR_UNTRUSTED,     /* not trusted yet: verified */
};
enum sched_ar sched_ar_decide(const struct db_app *app, const struct sched_bav *bav,
			      const struct db_workunit *wu, double u);
const char *sched_ar_name(enum sched_ar d);
/* A uniform draw in [0, 1) from the kernel's random bytes. */
double sched_ar_draw(void);
/* A draw in [0, 1) fixed by (seq_id, branch, k): segment k's spot-check draw. */
double sched_ar_segment_draw(int64_t seq_id, int branch, int k);

/*
 * Add a result and its workunit to the reply (taking their strings), its
 * seconds and instances counted on its version's resource, and, if touch,
 * have the workunit's transition time moved to the deadline at the RPC's
 * end (else the caller does, when it knows the deadline).
 */
int sched_job_append(const struct db_app *app, const struct sched_bav *bav, struct db_result *r,
		     struct db_workunit *wu, struct sched_reply *reply, bool touch);

/*
 * Work sequences (sched_seq.c): check the host's sequences against the
 * sticky files it lists (abort and delete what it should no longer hold),
 * top up its segments to the high-water mark, assign it sequences up to its
 * allowance (max_sequences_per_host or _per_cpu).
 */
int sched_seq_work(const struct sched_ctx *ctx, const struct sched_request *req,
		   const struct db_host *host, const struct sched_apps *apps,
		   struct sched_reply *reply);
/* The files of a report that are the result's own uploaded outputs. */
struct sched_outputs {
	const struct sched_file_report **f;
	size_t n;
};

/*
 * A segment's result was reported: record its own uploaded outputs (those
 * really on the server) and the sequence's progress.
 */
int sched_seq_reported(const struct sched_ctx *ctx, const struct db_result *res,
		       const struct sched_result_report *rr, const struct sched_outputs *own,
		       bool ok);

/* Copy the figures a request reports (host_info etc.) onto a host record (sched_request.c). */
void sched_host_copy_figures(struct db_host *dst, const struct db_host *src);

#endif
