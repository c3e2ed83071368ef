/*
 * Named queries: one function per query the scheduler, daemons and tools
 * make, each on a static SQL text with typed placeholders. Every query is
 * also listed in db_queries[] so a test can EXPLAIN it against the schema
 * and prove it uses an index.
 *
 * To add one: define a const struct db_query next to its function in
 * db/db_<area>.c, declare both here, and list the query in db_query.c.
 */
#ifndef WSEQ_DB_QUERIES_H
#define WSEQ_DB_QUERIES_H

#include "db_records.h"

struct db_query {
	const char *name;               /* for logs and the EXPLAIN report */
	/*
	 * With table set, the query returns records of that table and sql is
	 * what follows "SELECT <its columns> FROM <table>"; else sql is a whole
	 * statement returning no rows (UPDATE, DELETE, INSERT).
	 */
	const struct db_table *table;
	const char *sql;
	const char *params;             /* placeholder types: 'i' integer, 'd' double, 's' string */
};

extern const struct db_query *const db_queries[];
extern const size_t db_nqueries;

/* Run a row-less query; *affected (may be NULL) gets the rows it matched. */
int db_query_exec(struct db *db, const struct db_query *q, const struct db_val *vals,
		  size_t nvals, int64_t *affected);
/* Run a record query, calling fn for each row as db_rec_enum does. */
int db_query_rows(struct db *db, const struct db_query *q, const struct db_val *vals,
		  size_t nvals, db_row_fn fn, void *arg);
/* The full SQL text of q (allocated). */
char *db_query_sql(const struct db_query *q);
/*
 * EXPLAIN q with placeholder values 1, 1.0 and "x"; fn gets each plan row's
 * table, access type ("ref", "range", "ALL", ...), key and Extra (NULL when
 * empty).
 */
int db_query_explain(struct db *db, const struct db_query *q,
		     int (*fn)(const char *table, const char *type, const char *key,
			       const char *extra, void *arg), void *arg);

/* ---- result (db_result.c) ---- */
extern const struct db_query dbq_result_by_workunit,
	dbq_result_host_in_progress, dbq_result_timed_out, dbq_result_file_delete,
	dbq_result_seq_in_progress, dbq_result_claim_timed_out,
	dbq_result_unsent_lock[2], dbq_result_unsent_lock_after[2];

/*
 * In a transaction: at most limit unsent results in the order they are
 * sent, after (after_priority, after_id) (after_id 0: from the first),
 * locked FOR UPDATE; those other transactions hold are skipped (SKIP LOCKED).
 * Those no scheduler process holds claimed ahead at t (leased false: their
 * lease_until is before t), or only those one does (leased true).
 */
int db_result_enum_unsent_lock(struct db *db, bool leased, int64_t t, int64_t after_priority,
				int64_t after_id, int limit,
				int (*fn)(struct db_result *, void *), void *arg);
int db_result_enum_workunit(struct db *db, int64_t wuid,
			    int (*fn)(struct db_result *, void *), void *arg);
/* The host's sequence segments in progress (its ordinary jobs are not read). */
int db_result_enum_host_seq_in_progress(struct db *db, int64_t hostid,
				    int (*fn)(struct db_result *, void *), void *arg);
/* In progress with report_deadline before t, earliest first. */
int db_result_enum_timed_out(struct db *db, int64_t t, int limit,
			     int (*fn)(struct db_result *, void *), void *arg);
int db_result_enum_file_delete(struct db *db, int limit,
			       int (*fn)(struct db_result *, void *), void *arg);
int db_result_enum_seq_in_progress(struct db *db, int64_t seq_id,
				   int (*fn)(struct db_result *, void *), void *arg);
/*
 * Mark in-progress result id OVER / NO_REPLY if its deadline is before t;
 * DB_NOT_FOUND if it was reported (or already handled) meanwhile.
 */
int db_result_claim_timed_out(struct db *db, int64_t id, int64_t t);

/* ---- workunit (db_workunit.c) ---- */
extern const struct db_query dbq_wu_transition, dbq_wu_need_validate, dbq_wu_assimilate,
	dbq_wu_file_delete, dbq_wu_batch, dbq_wu_batch_modified, dbq_wu_seq_segments,
	dbq_wu_touch_transition, dbq_wu_replicate;

/* transition_time before t, earliest first. */
int db_workunit_enum_transition(struct db *db, int64_t t, int limit,
				int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_need_validate(struct db *db, int64_t appid, int limit,
				   int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_assimilate(struct db *db, int64_t appid, int limit,
				int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_file_delete(struct db *db, int limit,
				 int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_batch(struct db *db, int64_t batch,
			   int (*fn)(struct db_workunit *, void *), void *arg);
/* Workunits of a batch changed after unix time t (query_batch2's min_mod_time). */
int db_workunit_enum_batch_modified(struct db *db, int64_t batch, double t,
				    int (*fn)(struct db_workunit *, void *), void *arg);
/* Segments seqno >= from of branch of a sequence, in order. */
int db_workunit_enum_segments(struct db *db, int64_t seq_id, int branch, int from,
			      int (*fn)(struct db_workunit *, void *), void *arg);
/* Ask the transitioner to look at wuid no later than t. */
int db_workunit_touch_transition(struct db *db, int64_t wuid, int64_t t);
/*
 * Adaptive replication: a workunit sent singly (target_nresults 1) is to
 * be verified by n results: target_nresults and min_quorum n, room for
 * them (max_success_results n, max_total_results n + 1 at least), its
 * transition time moved to t if earlier so the transitioner makes the
 * replica. A workunit no longer single is left alone. In the caller's
 * transaction.
 */
int db_workunit_replicate(struct db *db, int64_t wuid, int n, int64_t t);

/* ---- sequence, sequence_group, seq_file (db_sequence.c) ---- */
extern const struct db_query dbq_seq_for_user;
extern const struct db_query dbq_seq_for_host, dbq_seq_unassigned, dbq_seq_relocate,
	dbq_seq_group_members, dbq_seq_assign, dbq_seq_file_segment, dbq_seq_file_delete;

/* The active sequences assigned to hostid. */
int db_sequence_enum_host(struct db *db, int64_t hostid,
			  int (*fn)(struct db_sequence *, void *), void *arg);
/* The active sequences assigned to any host of userid. */
int db_sequence_enum_user(struct db *db, int64_t userid,
			  int (*fn)(struct db_sequence *, void *), void *arg);
/* In a transaction: unassigned active sequences, oldest first, locked (SKIP LOCKED). */
int db_sequence_enum_unassigned(struct db *db, int limit,
				int (*fn)(struct db_sequence *, void *), void *arg);
/* Sequences flagged for relocation, those with id % mod_n == mod_i (--mod). */
int db_sequence_enum_relocate(struct db *db, long mod_n, long mod_i, int limit,
			      int (*fn)(struct db_sequence *, void *), void *arg);
int db_sequence_enum_group(struct db *db, int64_t groupid,
			   int (*fn)(struct db_sequence *, void *), void *arg);
/* Assign an unassigned active sequence; DB_NOT_FOUND if someone else got it. */
int db_sequence_assign(struct db *db, int64_t seq_id, int64_t hostid, int64_t t,
		       int first_unsent_seqno);
int db_seq_file_enum_segment(struct db *db, int64_t seq_id, int branch, int seqno,
			     int (*fn)(struct db_seq_file *, void *), void *arg);
int db_seq_file_enum_delete(struct db *db, int limit,
			    int (*fn)(struct db_seq_file *, void *), void *arg);

/* ---- host, remote submission (db_submit.c) ---- */
extern const struct db_query dbq_host_by_cpid, dbq_host_by_user, dbq_batch_by_name,
	dbq_batch_by_user, dbq_batch_expired, dbq_job_file_expired, dbq_bfa_by_batch,
	dbq_bfa_by_file, dbq_bfa_add, dbq_user_submit_app_by_user;

/* The user's host with this host_cpid (the newest if several). */
int db_host_lookup_cpid(struct db *db, int64_t userid, const char *host_cpid,
			struct db_host *h);
int db_host_enum_user(struct db *db, int64_t userid,
		      int (*fn)(struct db_host *, void *), void *arg);
/* Batch names are not unique upstream: the first (lowest id) wins. */
int db_batch_lookup_name(struct db *db, const char *name, struct db_batch *b);
int db_batch_enum_user(struct db *db, int64_t user_id,
		       int (*fn)(struct db_batch *, void *), void *arg);
/* Batches in progress whose expire_time (nonzero) is before t. */
int db_batch_enum_expired(struct db *db, double t,
			  int (*fn)(struct db_batch *, void *), void *arg);
int db_job_file_enum_expired(struct db *db, double t, int limit,
			     int (*fn)(struct db_job_file *, void *), void *arg);
int db_batch_file_assoc_enum_batch(struct db *db, int64_t batch_id,
				   int (*fn)(struct db_batch_file_assoc *, void *), void *arg);
int db_batch_file_assoc_enum_file(struct db *db, int64_t job_file_id,
				  int (*fn)(struct db_batch_file_assoc *, void *), void *arg);
/* Associate a file with a batch; an existing association is not an error. */
int db_batch_file_assoc_add(struct db *db, int64_t job_file_id, int64_t batch_id);
int db_user_submit_app_enum_user(struct db *db, int64_t user_id,
				 int (*fn)(struct db_user_submit_app *, void *), void *arg);

/* ---- the submit RPCs (db_submit.c) ---- */
/* A job of a batch as query_batch2 reports it. */
struct db_job_status {
	int64_t id;
	char *name;
	int64_t canonical_resultid;
	int error_mask;
	int64_t seq_id;
	int nsent;              /* results sent (sent_time > 0) */
};
extern const struct db_table db_job_status_table;
extern const struct db_query dbq_job_status_batch, dbq_job_file_lease_batch, dbq_result_chosen,
	dbq_batch_by_name_lock, dbq_batch_njobs, dbq_bfa_drop_batch, dbq_bfa_count_file, dbq_bfa_count_user;
/* The batches the job file is tied to, and how many of them are the user's. */
int db_job_file_owners(struct db *db, int64_t job_file_id, int64_t user_id, int64_t *batches,
		       int64_t *mine);
/* db_batch_lookup_name, the row locked (and the name's gap, so no other makes it meanwhile). */
int db_batch_lookup_name_lock(struct db *db, const char *name, struct db_batch *b);
/* How many jobs (workunits and sequences) the batch has. */
int db_batch_count_jobs(struct db *db, int64_t batch, int64_t *n);
/* Drop every association of the batch with job files. */
int db_batch_file_assoc_drop_batch(struct db *db, int64_t batch);
/* The jobs of batch changed in or after the second of t (0: all), by id. */
int db_job_status_enum_batch(struct db *db, int64_t batch, double t,
			     int (*fn)(struct db_job_status *, void *), void *arg);
void db_job_status_release(struct db_job_status *s);
/* The batch's job files kept at least until t. */
int db_job_file_lease_batch(struct db *db, int64_t batch, double t);
extern const struct db_query dbq_seq_batch, dbq_wu_segment_live;
/* The sequences of batch changed in or after the second of t (0: all), by id. */
int db_sequence_enum_batch(struct db *db, int64_t batch, double t,
			   int (*fn)(struct db_sequence *, void *), void *arg);
/* Segment seqno of the sequence's branch (its newest workunit). */
int db_workunit_lookup_segment(struct db *db, int64_t seq_id, int branch, int seqno,
			       struct db_workunit *wu);
/* The result a finished or failed job reports: success first, else client or validate error. */
int db_result_chosen(struct db *db, int64_t wuid, struct db_result *r);
/* A count and a sum over rows (read only). */
struct db_sum {
	int64_t n;
	double sum;
};
extern const struct db_query dbq_host_capacity, dbq_host_median_speed, dbq_batch_cpu_time;
/*
 * The hosts with a track record (some credit) whose last scheduler RPC was
 * after unix time since: how many, and their FLOPS as that many times the
 * median host's p_fpops x CPUs (robust: one host's claim moves it little).
 */
int db_host_capacity(struct db *db, int64_t since, struct db_sum *s);
/* The batch's results: how many, their CPU seconds. */
int db_batch_cpu_time(struct db *db, int64_t batch, struct db_sum *s);

/* ---- the parameter sweep (db_sweep.c) ---- */
/*
 * The app of every sweep session. Its results are judged by the sweep master
 * (its spec's Validate command), never by the validator daemon.
 */
#define SWEEP_APP_NAME "sweep"
extern const struct db_query dbq_sweep_unsent, dbq_sweep_send, dbq_sweep_ticket, dbq_sweep_report,
	dbq_sweep_tasks, dbq_sweep_ended, dbq_sweep_returned, dbq_sweep_count_tasks,
	dbq_sweep_count_running, dbq_sweep_waiting,
	dbq_sweep_result_judged, dbq_sweep_wu_valid, dbq_sweep_wu_invalid;

/* A task of a session as `sweep status` sees it (read only). */
struct db_sweep_task {
	int64_t id;
	double opaque;          /* its row in the parameter file, from 1 */
	int64_t canonical_resultid;
	int error_mask;
	char *canonical;        /* its canonical result's name; NULL or "" none */
	int nrunning;           /* its tickets out now */
	int nunsent;            /* its tickets waiting to be handed out */
};
extern const struct db_table db_sweep_task_table;
/* Every task of the session batch, by id. */
int db_sweep_tasks(struct db *db, int64_t batch, int (*fn)(struct db_sweep_task *, void *),
		   void *arg);
/* A session's tasks counted (db_sweep_counts()). */
struct db_sweep_counts {
	int64_t total, done, failed;
	int64_t running;        /* tasks neither done nor failed with a ticket out */
	int64_t waiting_ticket; /* a ticket of such a task waiting to be handed out; 0 none */
};
int db_sweep_counts(struct db *db, int64_t batch, struct db_sweep_counts *c);
/* A ticket (result) with what the sweep store tells of its task (read only). */
struct db_sweep_ticket {
	int64_t id, workunitid;
	double opaque;          /* its task's row */
	char *name;
	int server_state, outcome, validate_state;
	int64_t sent_time, report_deadline, received_time;
	double elapsed_time;
	char *stderr_out;       /* its note: "host=LABEL\n", "why=REASON\n" */
	int64_t canonical_resultid;     /* its task's */
	int error_mask;                 /* its task's */
};
extern const struct db_table db_sweep_ticket_table;
/* Every ticket of the session batch that ended, by id. */
int db_sweep_ended(struct db *db, int64_t batch, int (*fn)(struct db_sweep_ticket *, void *),
		   void *arg);
/* An unsent ticket and what /task tells of its task (db_rec_release() with the table). */
struct db_sweep_claim {
	int64_t id;             /* the result */
	int64_t workunitid;
	char *wu_name;
	double opaque;          /* the task's row */
	int delay_bound;        /* the task's timeout, seconds; 0 none */
	char *xml_doc;          /* the task body after Ticket and Timeout */
};
extern const struct db_table db_sweep_claim_table;
/*
 * The session's next unsent result with its task (through res_batch_state),
 * both locked -- skipping those other transactions hold -- in a transaction.
 */
int db_sweep_next(struct db *db, int64_t batch, struct db_sweep_claim *c);
/*
 * Hand it out as ticket (its new name) at t, due at deadline, when its task
 * becomes due for the transitioner too; note (the "host=LABEL\n" line of
 * the client that took it) becomes its stderr_out.
 */
int db_sweep_send(struct db *db, const struct db_sweep_claim *c, const char *ticket, int64_t t,
		  int64_t deadline, const char *note);
/* The result called ticket in the session's batch (db_rec_release() with the table). */
int db_sweep_ticket(struct db *db, int64_t batch, const char *ticket, struct db_sweep_ticket *t);
/*
 * Record the end of ticket (a result id) -- success: its results came, else
 * it failed -- if it is still in progress (*taken), in one statement: on
 * success its task is due for the master's judging, on failure for the
 * transitioner (to hand it out again). note ("why=REASON\n" of a failure,
 * or "") is appended to its stderr_out; its elapsed_time is t - sent_time.
 */
int db_sweep_report(struct db *db, int64_t ticket, bool success, int64_t t, const char *note,
		    bool *taken);
/* The answered tickets of the session batch not judged yet, by id. */
int db_sweep_returned(struct db *db, int64_t batch, int (*fn)(struct db_sweep_ticket *, void *),
		      void *arg);
/*
 * The master's verdict on an answered ticket (a result id) not judged
 * before: valid, it becomes its task's canonical result (the task is done)
 * unless the task has one already; invalid, the task is due for the
 * transitioner at t to be handed out again. Inside the caller's transaction.
 */
int db_sweep_judge(struct db *db, int64_t ticket, bool valid, int64_t t);

#endif
