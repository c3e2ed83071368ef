/*
 * The queries of the back-end daemons (transitioner, validator,
 * assimilator, file_deleter), and the transaction runner they share.
 *
 * Enumerations take --mod N I (rows with id % N == I) inside the SQL, so an
 * instance's LIMIT is never filled with another instance's rows, and an
 * "after" id so a pass can walk past rows it could not finish.
 *
 * Per-workunit changes are made under row locks: a daemon begins a
 * transaction, locks the workunit (db_workunit_lock) and its results
 * (db_result_enum_workunit_lock), decides, writes only the columns it owns
 * (db_workunit_update_state, db_result_update_state) and commits. The
 * scheduler's report and send updates take the same row locks, so nobody's
 * change is lost and a daemon always decides on the latest state.
 */
#ifndef WSEQ_DB_DAEMONS_H
#define WSEQ_DB_DAEMONS_H

#include "db_queries.h"

extern const struct db_query dbq_app_all, dbq_wu_transition_mod, dbq_wu_need_validate_mod,
	dbq_wu_assimilate_mod, dbq_wu_file_delete_mod, dbq_result_file_delete_mod,
	dbq_wu_lock, dbq_result_by_workunit_lock, dbq_wu_update_state,
	dbq_result_update_state, dbq_result_set_validate_why, dbq_result_set_file_delete,
	dbq_wu_unindexed, dbq_wu_any_unindexed, dbq_wu_set_indexed, dbq_wu_file_add,
	dbq_wu_file_others,
	dbq_wu_file_drop, dbq_job_file_expired_after, dbq_job_file_lock, dbq_bfa_live,
	dbq_app_version_file, dbq_bfa_drop_file, dbq_wu_set_transition;

/*
 * Run fn(db, arg) in a transaction. fn returns DB_OK (commit), DB_NOT_FOUND
 * (nothing to do or a failure it logged: roll back), DB_RETRY or DB_ERROR.
 * A lost connection, a deadlock or a lock wait timeout reruns the whole
 * transaction (up to 5 times), so fn must decide from what it reads inside
 * it. Returns DB_OK, DB_NOT_FOUND or DB_ERROR (logged).
 */
int db_txn_run(struct db *db, int (*fn)(struct db *db, void *arg), void *arg);

/* Every app, by id (the validator and assimilator without --app). */
int db_app_enum_all(struct db *db, int (*fn)(struct db_app *, void *), void *arg);
/* The id of the app called name; DB_NOT_FOUND is logged as "no app named NAME". */
int db_app_id(struct db *db, const char *name, int64_t *id);
/* The ids of every app (an allocated array, free() it). */
int db_app_ids(struct db *db, int64_t **ids, size_t *n);

/* transition_time <= t, this instance's, earliest first. */
int db_workunit_enum_transition_mod(struct db *db, int64_t t, long mod_n, long mod_i,
				    int limit, int (*fn)(struct db_workunit *, void *),
				    void *arg);
/* need_validate=1 / assimilate_state READY / file_delete_state READY with id > after, by id. */
int db_workunit_enum_need_validate_mod(struct db *db, int64_t appid, long mod_n, long mod_i,
				       int64_t after, int limit,
				       int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_assimilate_mod(struct db *db, int64_t appid, long mod_n, long mod_i,
				    int64_t after, int limit,
				    int (*fn)(struct db_workunit *, void *), void *arg);
int db_workunit_enum_file_delete_mod(struct db *db, long mod_n, long mod_i, int64_t after,
				     int limit, int (*fn)(struct db_workunit *, void *),
				     void *arg);
int db_result_enum_file_delete_mod(struct db *db, long mod_n, long mod_i, int64_t after,
				   int limit, int (*fn)(struct db_result *, void *), void *arg);

/* Inside a transaction: read and lock; DB_NOT_FOUND if there is no such workunit. */
int db_workunit_lock(struct db *db, int64_t id, struct db_workunit *wu);
int db_result_enum_workunit_lock(struct db *db, int64_t wuid,
				 int (*fn)(struct db_result *, void *), void *arg);

/*
 * Write the daemons' columns of a workunit: need_validate,
 * canonical_resultid, canonical_credit, error_mask, assimilate_state,
 * file_delete_state, target_nresults, transition_time.
 */
int db_workunit_update_state(struct db *db, const struct db_workunit *wu);
/* Only transition_time (outside the per-workunit transaction). */
int db_workunit_set_transition(struct db *db, int64_t wuid, int64_t t);
/* ... of a result: server_state, outcome, validate_state, validate_why, file_delete_state,
 * granted_credit. */
int db_result_update_state(struct db *db, const struct db_result *r);
/* Only validate_why: a verdict that is not one yet (VALIDATE_WHY_CHECK_RETRY). */
int db_result_set_validate_why(struct db *db, int64_t id, int why);
/* A result's file_delete_state (the file deleter's DONE or ERROR); DB_NOT_FOUND if it is gone. */
int db_result_set_file_delete(struct db *db, int64_t id, int state);

/*
 * The input file index (table wu_file): which live workunits use which
 * physical input file, so the file deleter can tell cheaply whether a file
 * is still needed. A workunit is indexed once (files_indexed=1).
 */
int db_workunit_enum_unindexed(struct db *db, int limit,
			       int (*fn)(struct db_workunit *, void *), void *arg);
/* DB_OK if some workunit is not indexed yet, DB_NOT_FOUND if none. */
int db_workunit_any_unindexed(struct db *db);
int db_workunit_set_indexed(struct db *db, int64_t wuid);
int db_wu_file_add(struct db *db, const char *name, int64_t wuid);
/* How many other workunits use name; locks the name's index entries. */
int db_wu_file_count_others(struct db *db, const char *name, int64_t wuid, int64_t *n);
int db_wu_file_drop(struct db *db, int64_t wuid);

/* Remote-submission job files: lease (delete_time) before t, id > after, by id. */
int db_job_file_enum_expired_after(struct db *db, double t, int64_t after, int limit,
				   int (*fn)(struct db_job_file *, void *), void *arg);
int db_job_file_lock(struct db *db, int64_t id, struct db_job_file *jf);
/*
 * Associations of the job file with batches neither ABORTED nor RETIRED,
 * nor left in INIT past their expire_time at t.
 */
int db_job_file_count_live_batches(struct db *db, int64_t job_file_id, double t, int64_t *n);
/* How many app versions name the file among their files. */
int db_app_version_count_file(struct db *db, const char *name, int64_t *n);
int db_batch_file_assoc_drop_file(struct db *db, int64_t job_file_id);

/*
 * Work sequences in the validator. The newest workunit of segment seqno
 * (the live branch's, or the branch the live one grew from), locked.
 */
extern const struct db_query dbq_wu_segment_newest, dbq_seq_lock, dbq_seq_set_unvalidated,
	dbq_seq_invalid, dbq_seq_group_fail, dbq_group_fail;
int db_workunit_lock_segment(struct db *db, int64_t seq_id, int seqno, struct db_workunit *wu);
int db_sequence_lock(struct db *db, int64_t id, struct db_sequence *s);
/* Move first_unvalidated_seqno past the segments that have a canonical result. */
int db_sequence_advance_validated(struct db *db, int64_t seq_id);
/*
 * A segment of the sequence was wrong: take it from its host and ask for
 * relocation (reason) from restart point last (the caller's: the latest
 * before first_unvalidated_seqno, the segments known good, by
 * seq_restart_latest), or an earlier last_state_seqno. No-op if already
 * flagged.
 */
int db_sequence_flag_invalid(struct db *db, int64_t seq_id, int branch, int reason, int last);
/*
 * No consensus in the group: the group and every member -- active or ended:
 * its result is unconfirmed -- end in error (why).
 */
int db_sequence_group_fail(struct db *db, int64_t groupid, const char *why);

#endif
