/*
 * Cancelling work: one mechanism for every door -- the submit RPCs
 * (abort_jobs, retire_batch), the ops pages' actions and the cancel_jobs
 * tool.
 *
 *  - an ordinary workunit: its unsent results are not needed (OVER,
 *    DIDNT_NEED), it gets WU_ERROR_CANCELLED and is due for the
 *    transitioner now, which finishes it (upstream's cancel_jobs); results
 *    in progress run to their end;
 *  - a sequence: it ends in error with a reason, and its live results --
 *    unsent and in progress -- are retired, so its host is told to abort
 *    them and delete its sticky state at its next scheduler request;
 *  - a segment of a sequence cannot be cancelled alone: cancelling it
 *    cancels its sequence;
 *  - a batch: its active sequences and its unfinished ordinary jobs, and
 *    every workunit of it due for the transitioner (to release its files).
 *
 * Work already finished, failed or cancelled is left as it is, so a cancel
 * run twice changes nothing the second time. The *_in functions work
 * inside the caller's transaction (abort_jobs cancels several jobs in
 * one); the others are one transaction each, rerun after a deadlock, so a
 * crash leaves all of it or none.
 */
#ifndef WSEQ_CANCEL_H
#define WSEQ_CANCEL_H

#include "common.h"

struct db;

/* What a cancellation changed (added to by each call). */
struct cancel_count {
	int64_t workunits;      /* ordinary workunits cancelled */
	int64_t sequences;      /* sequences ended in error */
	int64_t results;        /* unsent results no longer to be sent */
	int64_t aborted;        /* segments in progress their host is told to abort */
	int64_t already;        /* jobs found finished, failed or cancelled before */
};

enum cancel_rc {
	CANCEL_OK = 0,          /* cancelled now */
	CANCEL_ALREADY = 1,     /* nothing left to cancel */
	CANCEL_NOT_FOUND = 2,   /* no such workunit, sequence or batch */
	CANCEL_ERROR = -1,      /* the database failed (logged) */
};

/* The longest reason kept (sequence.error_msg holds 254 characters). */
#define CANCEL_WHY_MAX 200

/*
 * Inside a transaction: return a db_rc (DB_OK; DB_NOT_FOUND if there is no
 * such row; DB_RETRY, DB_ERROR). why is a sequence's error_msg ("cancelled
 * by admin"), cut to CANCEL_WHY_MAX bytes; t the time of the cancel.
 */
int cancel_workunit_in(struct db *db, int64_t wuid, const char *why, int64_t t,
		       struct cancel_count *n);
int cancel_sequence_in(struct db *db, int64_t seq_id, const char *why, int64_t t,
		       struct cancel_count *n);
/* The batch's jobs; its state is the caller's (retire_batch sets RETIRED). */
int cancel_batch_in(struct db *db, int64_t batch, const char *why, int64_t t,
		    struct cancel_count *n);

/* One transaction each; a cancelled batch becomes ABORTED (a retired one stays so). */
enum cancel_rc cancel_workunit(struct db *db, int64_t wuid, const char *why,
			       struct cancel_count *n);
enum cancel_rc cancel_sequence(struct db *db, int64_t seq_id, const char *why,
			       struct cancel_count *n);
enum cancel_rc cancel_batch(struct db *db, int64_t batch, const char *why,
			    struct cancel_count *n);

#endif
