/*
 * The queries of cancelling work (db_cancel.c), used only through
 * backend/cancel.h: upstream's meaning -- a cancelled workunit has
 * error_mask bit 16 (WU_ERROR_CANCELLED) and its unsent results are OVER,
 * DIDNT_NEED, its transition_time now so the transitioner finishes it --
 * and the selections of the cancel_jobs tool.
 */
#ifndef WSEQ_DB_CANCEL_H
#define WSEQ_DB_CANCEL_H

#include "db_queries.h"

extern const struct db_query dbq_wu_cancel, dbq_wu_cancel_batch, dbq_result_cancel_wu,
	dbq_result_cancel_batch, dbq_wu_touch_batch, dbq_seq_cancel, dbq_batch_lock,
	dbq_batch_set_state, dbq_seq_batch_active, dbq_cancel_pick_range, dbq_cancel_pick_name;

/* Inside a transaction: the workunit's unsent and inactive results OVER, DIDNT_NEED. */
int db_result_cancel_unsent(struct db *db, int64_t wuid, int64_t *n);
/* The workunit cancelled at t if it is unfinished (no canonical result, no error); *n 0 or 1. */
int db_workunit_cancel(struct db *db, int64_t wuid, int64_t t, int64_t *n);
/*
 * The batch's ordinary jobs: unsent results not needed, unfinished
 * workunits cancelled (*nresults, *nwus: how many), and every workunit of
 * the batch due for the transitioner at t (it releases the files it kept).
 */
int db_batch_cancel_jobs(struct db *db, int64_t batch, int64_t t, int64_t *nresults,
			 int64_t *nwus);
/* An active sequence ended in error with why (its results are the caller's); *n 0 or 1. */
int db_sequence_cancel(struct db *db, int64_t seq_id, const char *why, int64_t *n);
/* The batch row, locked; DB_NOT_FOUND if none. */
int db_batch_lock(struct db *db, int64_t id, struct db_batch *b);
int db_batch_set_state(struct db *db, int64_t id, int state);
/* The ids of the batch's active sequences (an allocated array). */
int db_sequence_ids_batch_active(struct db *db, int64_t batch, int64_t **ids, size_t *n);

/* A workunit as the cancel_jobs tool picks it. */
struct db_cancel_pick {
	int64_t id;
	char *name;
	int64_t seq_id;
};
extern const struct db_table db_cancel_pick_table;
/* Workunits with min <= id <= max and id > after, by id, at most limit. */
int db_cancel_pick_range(struct db *db, int64_t min, int64_t max, int64_t after, int limit,
			 int (*fn)(struct db_cancel_pick *, void *), void *arg);
/* Workunits whose name is LIKE pattern and sorts after after ("" first), by name. */
int db_cancel_pick_name(struct db *db, const char *pattern, const char *after, int limit,
			int (*fn)(struct db_cancel_pick *, void *), void *arg);

#endif
