/* The scheduler's own queries (db_sched.c). */
#ifndef WSEQ_DB_SCHED_H
#define WSEQ_DB_SCHED_H

#include "db_queries.h"

extern const struct db_query dbq_result_report, dbq_result_wu_host, dbq_result_host_count,
	dbq_result_host_jobs_in_progress, dbq_result_resend, dbq_result_lost,
	dbq_work_kinds, dbq_result_assigned, dbq_result_claim_assigned, dbq_host_quota_halve;

/* The fields of a result report, written by db_result_report(). */
struct db_result_report {
	int64_t id, hostid;
	int outcome, client_state, exit_status, app_version_num;
	double cpu_time, elapsed_time;
	double peak_working_set_size, peak_swap_size, peak_disk_usage;
	int64_t received_time;
	const char *stderr_out, *xml_doc_out;
};

/*
 * Record the report of result id by its host: only if it is in progress on
 * that host, or timed out there (a late report is still welcome).
 * DB_NOT_FOUND when neither holds (reported twice, or never sent there).
 */
int db_result_report(struct db *db, const struct db_result_report *r);
/*
 * The reports r[0..n) (n at most DB_SEQ_BATCH; one host's, each result
 * once) in one statement, each as db_result_report() would record it;
 * *matched: how many were recorded.
 */
extern const struct db_query dbq_result_report_many[2];
int db_result_report_many(struct db *db, const struct db_result_report *r, size_t n,
			  int64_t *matched);
/* How many results of workunit wuid were sent to hostid or to userid's hosts (-1: none). */
int db_result_count_wu_host(struct db *db, int64_t wuid, int64_t hostid, int64_t userid,
			    int64_t *n);
/* The ordinary jobs (not segments) in progress on hostid, at most 1000. */
int db_result_enum_host_jobs_in_progress(struct db *db, int64_t hostid,
					 int (*fn)(struct db_result *, void *), void *arg);
/*
 * A lost job sent again: r's sent_time, report_deadline and app version,
 * if r (id, hostid) is still in progress there; else DB_NOT_FOUND.
 */
int db_result_resend(struct db *db, const struct db_result *r);
/* A lost job that cannot be sent again in time: over, no reply, as a timeout. */
int db_result_mark_lost(struct db *db, int64_t id, int64_t hostid);
/* How many results are in progress on hostid. */
int db_result_count_host_in_progress(struct db *db, int64_t hostid, int64_t *n);
/* What the hosts of a user that have no history of their own share (db_user_untried_pool). */
struct db_untried_pool {
	int64_t min_quota;      /* smallest max_results_day of any of the user's hosts; 0: none */
	int64_t sent_today;     /* jobs the other untried hosts got since day_start */
	int64_t in_progress;    /* jobs in progress on the other untried hosts */
};
/* Host hostid's p_fpops (DB_NOT_FOUND: no such host). */
extern const struct db_query dbq_host_fpops;
int db_host_fpops(struct db *db, int64_t hostid, double *fpops);
extern const struct db_query dbq_user_min_quota, dbq_user_untried_today,
	dbq_user_untried_in_progress;
/* The pool of userid's hosts without a history, hostid not counted. */
int db_user_untried_pool(struct db *db, int64_t userid, int64_t hostid, int64_t day_start,
			 struct db_untried_pool *p);
/* A job of hostid timed out: its daily quota per CPU (0: q, the project's) halves, at least 1. */
int db_host_quota_halve(struct db *db, int64_t hostid, long q);
/* The largest assignment id (0: no job was ever assigned). */
/* whether any job was ever assigned, any work sequence ever made (or none left) */
int db_work_kinds(struct db *db, bool *assignments, bool *sequences);
/* At most limit waiting results of jobs assigned to hostid, userid or its team. */
int db_result_enum_assigned(struct db *db, int64_t hostid, int64_t userid, int limit,
			    int (*fn)(struct db_result *, void *), void *arg);
/* Send waiting result r (its sending fields set) if it still waits; else DB_NOT_FOUND. */
int db_result_claim_assigned(struct db *db, const struct db_result *r);
/* A number that changes when apps, platforms or app versions are added or deprecated. */
int db_apps_fingerprint(struct db *db, int64_t *fp);

/*
 * Mark the unsent results ids (at most DB_SEQ_BATCH, read locked by the
 * caller's transaction) sent to hostid/userid at t with app version
 * av_id/av_num and the deadline; *matched: how many were still unsent.
 */
extern const struct db_query dbq_result_claim_many[3], dbq_wu_touch_each[3];
int db_result_claim_many(struct db *db, const int64_t *ids, size_t n, int64_t hostid,
			 int64_t userid, int64_t t, int64_t deadline, int64_t av_id, int av_num,
			 int64_t *matched);
/*
 * Claim the unsent results ids (at most DB_SEQ_BATCH) ahead until the time
 * until (0: give them back): other schedulers pass them over meanwhile
 * while they have other work (db_result_enum_unsent_lock). A result no
 * longer unsent is left alone.
 */
extern const struct db_query dbq_result_lease[3];
int db_result_lease(struct db *db, const int64_t *ids, size_t n, int64_t until);
/* The results named (at most DB_SEQ_BATCH names; each row once, in no order). */
extern const struct db_query dbq_result_by_names[3];
int db_result_enum_names(struct db *db, const char *const *names, size_t n,
			 int (*fn)(struct db_result *, void *), void *arg);
/* The sequence files named, the same way. */
extern const struct db_query dbq_seq_file_by_names[3];
int db_seq_file_enum_names(struct db *db, const char *const *names, size_t n,
			   int (*fn)(struct db_seq_file *, void *), void *arg);
/*
 * The workunits among ids (at most DB_SEQ_BATCH; each row once, in no order)
 * of which neither host hostid nor a host of userid (-1: no user) has a result.
 */
extern const struct db_query dbq_wu_for_host[3];
int db_workunit_enum_for_host(struct db *db, const int64_t *ids, size_t n, int64_t hostid,
			      int64_t userid, int (*fn)(struct db_workunit *, void *), void *arg);
/*
 * Move the transition time of each workunit ids[i] (at most DB_SEQ_BATCH,
 * each once) to times[i] if that is earlier.
 */
int db_workunit_touch_each(struct db *db, const int64_t *ids, const int64_t *times, size_t n);

/* ---- the measured speed of app versions on hosts (db_hav.c) ---- */
extern const struct db_query dbq_hav_host, dbq_hav_report, dbq_hav_outcome;
extern const struct db_table db_host_app_version_table;

/*
 * A host_app_version row: what host_id's jobs of app_version_id showed.
 * flops_avg and elapsed_avg are moving averages (1/n up to n = 10 jobs,
 * then 0.1) of rsc_fpops_est / elapsed_time and of elapsed_time over its
 * n_jobs successful jobs; n_valid, n_invalid and consecutive_valid count
 * the validator's verdicts (an invalid one resets consecutive_valid).
 */
struct db_host_app_version {
	int64_t host_id, app_version_id, n_jobs, n_valid, n_invalid, n_errors, consecutive_valid;
	double error_rate, flops_avg, elapsed_avg, turnaround_avg;
	int64_t last_update;
};

/* Every row of hostid, by app_version_id (the primary key's range). */
int db_hav_enum_host(struct db *db, int64_t hostid,
		     int (*fn)(struct db_host_app_version *, void *), void *arg);
/*
 * One successful job of avid on hostid, workunit wuid, in elapsed seconds
 * (finite, > 0): measured at the workunit's rsc_fpops_est / elapsed FLOPS,
 * the row made or its averages moved, in one statement (safe when two
 * schedulers report for one host at once). *taken false: no sample, the
 * workunit having no estimate or the speed being above max_flops. Inside
 * the caller's transaction.
 */
int db_hav_report(struct db *db, int64_t hostid, int64_t avid, int64_t wuid, double elapsed,
		  double max_flops, bool *taken);
/*
 * How a result of an app version on a host ended, for its reliability
 * (host_app_version): the validator's verdicts, the scheduler's client
 * errors, the transitioner's missed deadlines.
 */
enum hav_outcome {
	HAV_VALID,              /* valid and verified: consecutive_valid one more */
	HAV_VALID_UNVERIFIED,   /* valid, but sent singly by adaptive replication:
				   no trust is earned (upstream's rule) */
	HAV_INVALID,            /* consecutive_valid back to 0 */
	HAV_ERROR,              /* a client error or a missed deadline: back to 0 */
};
/*
 * One outcome of a result of avid on hostid: n_valid, n_invalid or
 * n_errors one more, consecutive_valid as the outcome says, error_rate
 * moved toward 1 (not valid) or 0 (valid) and turnaround_avg toward
 * turnaround (seconds from sending to receipt; a missed deadline gives its
 * delay bound; < 0 or not finite: unknown, left as it is), each weighing
 * 1/min(outcomes, 20); the row made if need be. One statement, inside the
 * caller's transaction (the one that sets the outcome).
 */
int db_hav_outcome(struct db *db, int64_t hostid, int64_t avid, enum hav_outcome o,
		   double turnaround);

/* The estimated FLOPs of a workunit (db_workunit_enum_fpops). */
struct db_wu_fpops {
	int64_t id;
	double rsc_fpops_est;
};
extern const struct db_table db_wu_fpops_table;
extern const struct db_query dbq_wu_fpops[3];
/* The rsc_fpops_est of the workunits ids (at most DB_SEQ_BATCH; each once, in no order). */
int db_workunit_enum_fpops(struct db *db, const int64_t *ids, size_t n,
			   int (*fn)(struct db_wu_fpops *, void *), void *arg);

#endif

/* ---- work sequences (db_sched.c) ---- */
extern const struct db_query dbq_result_activate, dbq_seq_advance, dbq_seq_deassign,
	dbq_seq_state_uploaded, dbq_seq_end, dbq_seq_file_uploaded;

/*
 * Send inactive segment result r->id (its hostid, userid, sent_time,
 * report_deadline, app_version_id and app_version_num).
 */
int db_result_activate(struct db *db, const struct db_result *r);
extern const struct db_query dbq_result_seq_host_failed, dbq_result_group_user;
/*
 * How many segments of group groupid's members other than seq_id were sent
 * to hosts of userid: a user who ran one member never runs another.
 */
int db_result_group_user(struct db *db, int64_t groupid, int64_t seq_id, int64_t userid,
			 int64_t *n);
/* Segments of the sequence the host failed: errors, invalid, or slower than max_time. */
int db_result_seq_host_failed(struct db *db, int64_t seq_id, int64_t hostid, double max_time,
			      int64_t *n);
/* first_unsent_seqno from..to, if the sequence is still on hostid at from. */
int db_sequence_advance(struct db *db, int64_t seq_id, int64_t hostid, int from, int to);
/* Take the sequence from hostid, asking for relocation for reason (0: none). */
int db_sequence_deassign(struct db *db, int64_t seq_id, int64_t hostid, int reason);
/* The state of segment seqno of the live branch is on the server. */
int db_sequence_state_uploaded(struct db *db, int64_t seq_id, int branch, int seqno);
/*
 * The sequence is over (state SEQ_STATE_ENDED or SEQ_STATE_ERROR) if branch
 * is still its live one; a relocation it was waiting for because the host
 * was slow (its last segment came in first) is off. One waiting because a
 * segment failed or was late stays (DB_NOT_FOUND): that segment's output
 * is not there, so the sequence is not done, whatever the caller read.
 */
int db_sequence_end(struct db *db, int64_t seq_id, int branch, int state);
/*
 * The output file name of segment (seq_id, branch, seqno) is on the
 * server -- a file of any other segment is never changed (DB_NOT_FOUND).
 */
int db_seq_file_set_uploaded(struct db *db, int64_t seq_id, int branch, int seqno, const char *name,
			     double nbytes, const char *md5, int64_t t);

extern const struct db_query dbq_seq_flag_relocate, dbq_seq_file_state_uploaded,
	dbq_result_seq_retire, dbq_wu_seq_retire_touch;

/* Ask for the sequence's relocation (reason SEQ_RELOCATE_*) if branch is still live. */
int db_sequence_flag_relocate(struct db *db, int64_t seq_id, int branch, int reason);
/*
 * The uploaded state files of segment seqno, of the newest branch that
 * uploaded any, in their order (at most max; *n of them; freed here first).
 */
int db_seq_file_states(struct db *db, int64_t seq_id, int seqno, struct db_seq_file *out,
		       size_t max, size_t *n);
/*
 * Relocation in batches of up to DB_SEQ_BATCH sequences, one statement
 * each whatever the batch's size (the relocator's speed depends on it).
 */
#define DB_SEQ_BATCH 32
extern const struct db_query dbq_seq_lock_many, dbq_seq_relocated;
/* Lock the heads of sequences ids[0..n), calling fn for each that exists, by id. */
int db_sequence_lock_many(struct db *db, const int64_t *ids, size_t n,
			  int (*fn)(struct db_sequence *, void *), void *arg);
/*
 * The state file rows (uploaded or not, every branch) of the sequences
 * ids[0..n) at the segments seqnos[0..nseqnos) (at most DB_SEQ_SEQNOS: a
 * few per sequence, the restart rule's, seq_policy_restart_seqnos) -- every
 * sequence at every one of them, which the caller sorts out -- by sequence,
 * segment (highest first), branch (newest first) and id.
 */
#define DB_SEQ_SEQNOS (10 * DB_SEQ_BATCH)
/* One sequence at up to this many segments is a short statement of its own. */
#define DB_SEQ_SEQNOS_ONE 10
extern const struct db_query dbq_seq_file_states_many[2];
int db_seq_file_states_many(struct db *db, const int64_t *ids, size_t n, const int *seqnos,
			    size_t nseqnos, int (*fn)(struct db_seq_file *, void *), void *arg);
/*
 * The sequences' results still inactive, unsent or in progress -- at a
 * relocation, what is left of the old branch (dead branches have none, the
 * new one is not made yet): OVER, DIDNT_NEED, in one indexed statement;
 * their workunits' transition_time is now, so the transitioner closes them.
 */
int db_result_retire_live(struct db *db, const int64_t *ids, size_t n);
/*
 * The heads of sequences relocated from their last uploaded state: next
 * branch, no host, first unsent (and at most first unvalidated) segment
 * last_state_seqno + 1, flag cleared, one more relocation.
 */
int db_sequence_relocated(struct db *db, const int64_t *ids, size_t n);
