/* Scheduler policy parts shared between sched_handle.c and sched_send.c. */
#ifndef WSEQ_SCHED_POLICY_H
#define WSEQ_SCHED_POLICY_H

#include "scheduler.h"
#include "sched_types.h"

/* The apps and app versions the host can run, loaded once per request. */
struct sched_apps {
	struct db_app *apps;
	size_t napps;
	struct db_platform *platforms;
	size_t nplatforms;
	struct db_app_version *versions;
	size_t nversions;
	/* a copy kept across requests (FastCGI): when it was read and checked, and its fingerprint */
	bool loaded;
	double loaded_at, checked_at;
	int64_t fingerprint;
	bool have_assignments;  /* some job was ever assigned (create_work --target_*) */
};

/*
 * The apps, platforms and app versions not deprecated: a copy kept in a,
 * read again when the database's differ (db_apps_fingerprint, asked at most
 * once a second) or the copy is a minute old. Jobs put into a reply point into it: not called again
 * while the reply is in use.
 */
int sched_apps_get(struct db *db, struct sched_apps *a);
void sched_apps_free(struct sched_apps *a);
const struct db_app *sched_app_by_id(const struct sched_apps *a, int64_t appid);
/*
 * The newest app version of appid for the host's platforms (the first
 * platform listed wins ties) -- only version version_num if it is not 0 (a
 * job pinned to one version); *platform gets its platform name.
 */
const struct db_app_version *sched_best_version(const struct sched_apps *a, int64_t appid,
						 int version_num, const struct sched_request *req,
						 const char **platform);

/*
 * Add ordinary jobs to the reply until the request's seconds of work are
 * covered (sched_send.c). The reply already carries nseq_jobs sequence
 * segments worth seq_seconds; they count for at most sequence_share of the
 * request, and not against max_wus_to_send.
 */
int sched_send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct sched_reply *reply, double seq_seconds, size_t nseq_jobs);
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
			struct sched_reply *reply, double *seconds);

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
		      struct sched_reply *reply, double *seconds);

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
 * *room: how many more jobs the host may hold in progress (LONG_MAX without
 * max_wus_in_progress); an untried host counts its user's other untried
 * hosts' jobs as its own.
 */
int sched_in_progress_room(const struct sched_ctx *ctx, const struct db_host *host, long *room);
/* A reported result: an error halves the host's quota, a success doubles it back. */
void sched_quota_report(const struct sched_ctx *ctx, const char *lbl, struct db_host *host,
			bool success);

/* Fill r's sending fields (host, times, deadline, app version). */
void sched_result_assign(const struct db_host *host, const struct db_app_version *av,
			 const struct db_workunit *wu, struct db_result *r);
/*
 * Add a result and its workunit to the reply (taking their strings) and,
 * if touch, have the workunit's transition time moved to the deadline at
 * the RPC's end (else the caller does, when it knows the deadline).
 */
int sched_job_append(const struct db_host *host, const struct db_app *app,
		     const struct db_app_version *av, const char *platform, struct db_result *r,
		     struct db_workunit *wu, struct sched_reply *reply, double *seconds, bool touch);

/*
 * Work sequences (sched_seq.c): check the host's sequences against the
 * sticky files it lists (abort and delete what it should no longer hold),
 * top up its segments to the high-water mark, assign it sequences up to its
 * allowance (max_sequences_per_host or _per_cpu); *seconds gets the work sent.
 */
int sched_seq_work(const struct sched_ctx *ctx, const struct sched_request *req,
		   const struct db_host *host, const struct sched_apps *apps,
		   struct sched_reply *reply, double *seconds);
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
