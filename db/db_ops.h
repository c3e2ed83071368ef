/*
 * What the ops pages read (db_ops.c, db_ops_list.c). Every query reads an
 * index range -- counts by state from the state keys, "recent" results by
 * their report deadline (sent within the window, or due in it), hosts by
 * their last RPC, a sequence's segments by (seq_id, branch, seqno) -- so a
 * page costs what it shows, not the size of the tables; lists are bounded.
 */
#ifndef WSEQ_DB_OPS_H
#define WSEQ_DB_OPS_H

#include "db_queries.h"

/* A count of rows by up to three keys (which ones: each function says). */
struct db_ops_count {
	int64_t a, b, c;
	int64_t n;
};
typedef int db_ops_count_fn(struct db_ops_count *, void *);

extern const struct db_query dbq_ops_result_states, dbq_ops_wu_states, dbq_ops_seq_states,
	dbq_ops_batch_states, dbq_ops_outcomes_since, dbq_ops_errors_by_app, dbq_ops_errors_by_host,
	dbq_ops_host_counts, dbq_host_versions_in_progress, dbq_ops_batch_wu_counts,
	dbq_ops_batch_result_counts, dbq_ops_invalid_by_why;

/* Results not over (inactive, unsent, in progress) by (server_state, 0). */
int db_ops_result_states(struct db *db, db_ops_count_fn *fn, void *arg);
/* Workunits by (assimilate_state, failed: error_mask != 0, cancelled: bit 16). */
int db_ops_wu_states(struct db *db, db_ops_count_fn *fn, void *arg);
/* Sequences by state; batches by state. */
int db_ops_seq_states(struct db *db, db_ops_count_fn *fn, void *arg);
int db_ops_batch_states(struct db *db, db_ops_count_fn *fn, void *arg);
/* Results over whose deadline is after since, by outcome. */
int db_ops_outcomes_since(struct db *db, int64_t since, db_ops_count_fn *fn, void *arg);
/* The same results in error, by (appid, outcome, exit_status), most first, at most limit. */
int db_ops_errors_by_app(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			 void *arg);
/* ... by (hostid, outcome), most first. */
int db_ops_errors_by_host(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			  void *arg);
/*
 * The same results judged invalid, or waiting because their check could
 * not tell, by (appid, validate_why): a fixed order, at most limit.
 */
int db_ops_invalid_by_why(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			  void *arg);
/* A host's results by (server_state, outcome). */
int db_ops_host_counts(struct db *db, int64_t hostid, db_ops_count_fn *fn, void *arg);
/* A host's jobs in progress by app version (a: app_version_id) -- the scheduler's limits per resource. */
int db_host_versions_in_progress(struct db *db, int64_t hostid, db_ops_count_fn *fn, void *arg);
/* A batch's ordinary workunits by (done: canonical result, failed, cancelled). */
int db_ops_batch_wu_counts(struct db *db, int64_t batch, db_ops_count_fn *fn, void *arg);
/* A batch's results by (server_state, outcome). */
int db_ops_batch_result_counts(struct db *db, int64_t batch, db_ops_count_fn *fn, void *arg);

/* ---- lists (db_ops_list.c) ---- */

/* A result with its host's name: the ops pages' lists of results. */
struct db_ops_result {
	int64_t id;
	char *name;
	int64_t workunitid;
	int64_t hostid;
	int64_t appid;
	int server_state, outcome, validate_state, validate_why, exit_status;
	int64_t sent_time, received_time, report_deadline;
	double elapsed_time;
	char *stderr_head;      /* the first bytes of stderr_out */
	char *host_name;        /* "" for none */
};
typedef int db_ops_result_fn(struct db_ops_result *, void *);
void db_ops_result_release(struct db_ops_result *r);

/* A segment of a sequence with one of its results (none: result id 0) and that one's host. */
struct db_ops_segment {
	int64_t wuid;
	char *wu_name;
	int branch, seqno;
	int64_t create_time;
	int error_mask;
	int64_t canonical_resultid;
	struct db_ops_result r;
};
typedef int db_ops_segment_fn(struct db_ops_segment *, void *);

extern const struct db_table db_ops_result_table, db_ops_segment_table;
extern const struct db_query dbq_ops_recent_errors, dbq_ops_invalid_results, dbq_ops_host_results,
	dbq_ops_wu_results,
	dbq_ops_hosts_recent, dbq_ops_host_sequences, dbq_ops_batches, dbq_ops_batch_jobs,
	dbq_ops_batch_lease, dbq_ops_sequences, dbq_ops_sequences_state, dbq_ops_seq_segments,
	dbq_ops_seq_files, dbq_ops_versions, dbq_ops_platforms;

/* Results in error over whose deadline is after since, latest deadline first. */
int db_ops_recent_errors(struct db *db, int64_t since, int limit, db_ops_result_fn *fn,
			 void *arg);
/* Those of db_ops_invalid_by_why of one app and validate_why, latest deadline first. */
int db_ops_invalid_results(struct db *db, int64_t since, int64_t appid, int why, int limit,
			   db_ops_result_fn *fn, void *arg);
/* A host's results, newest first; a workunit's, by id. */
int db_ops_host_results(struct db *db, int64_t hostid, int limit, db_ops_result_fn *fn,
			void *arg);
int db_ops_wu_results(struct db *db, int64_t wuid, int limit, db_ops_result_fn *fn,
		      void *arg);
/* Hosts whose last RPC was at or after since, latest first. */
int db_ops_hosts_recent(struct db *db, int64_t since, long offset, int limit,
			int (*fn)(struct db_host *, void *), void *arg);
/* Sequences ever assigned to the host (and still so), newest first. */
int db_ops_host_sequences(struct db *db, int64_t hostid, int limit,
			  int (*fn)(struct db_sequence *, void *), void *arg);
/* Batches with id <= before, newest first. */
int db_ops_batches(struct db *db, int64_t before, int limit,
		   int (*fn)(struct db_batch *, void *), void *arg);
/* A batch's ordinary jobs, by id. */
int db_ops_batch_jobs(struct db *db, int64_t batch, int limit,
		      int (*fn)(struct db_job_status *, void *), void *arg);
/* The latest time the batch's job files are kept until (0: none). */
int db_ops_batch_lease(struct db *db, int64_t batch, int64_t *t);
/* Sequences with id <= before (state < 0: any state), newest first. */
int db_ops_sequences(struct db *db, int state, int64_t before, int limit,
		     int (*fn)(struct db_sequence *, void *), void *arg);
/* A sequence's segments on every branch, by branch and seqno, with their results. */
int db_ops_seq_segments(struct db *db, int64_t seq_id, int limit, db_ops_segment_fn *fn,
			void *arg);
/* A sequence's output files, by branch and seqno. */
int db_ops_seq_files(struct db *db, int64_t seq_id, int limit,
		     int (*fn)(struct db_seq_file *, void *), void *arg);
/* Every app version, by app, platform and version; every platform. */
int db_ops_versions(struct db *db, int (*fn)(struct db_app_version *, void *), void *arg);
int db_ops_platforms(struct db *db, int (*fn)(struct db_platform *, void *), void *arg);

/*
 * The project's administrators -- who may use the ops pages -- are the
 * users in ops_admin (account grant --ops), a right of its own: submit
 * rights (user_submit) never make an admin.
 */
extern const struct db_query dbq_ops_admin_grant, dbq_ops_admin_revoke;
int db_ops_admin_is(struct db *db, int64_t userid, bool *yes);
int db_ops_admin_grant(struct db *db, int64_t userid, int64_t now);
int db_ops_admin_revoke(struct db *db, int64_t userid);

#endif
