/*
 * What db_purge (daemons/db_purge.c) reads and deletes: finished workunits
 * old enough to purge, the segments of a sequence, and the deletion of a
 * workunit with its results inside the caller's transaction.
 */
#ifndef WSEQ_DB_PURGE_H
#define WSEQ_DB_PURGE_H

#include "db_queries.h"

extern const struct db_query dbq_purge_candidates, dbq_purge_seq_segments,
	dbq_purge_result_delete, dbq_purge_wu_delete;

/*
 * Workunits whose files are deleted (file_delete_state DONE) and which
 * changed last before unix time t, with id > after, by id (through the
 * wu_filedel index).
 */
int db_purge_enum_candidates(struct db *db, int64_t after, int64_t t, int limit,
			     int (*fn)(struct db_workunit *, void *), void *arg);
/* Every segment of the sequence, on every branch, by id (wu_seq). */
int db_purge_enum_segments(struct db *db, int64_t seq_id,
			   int (*fn)(struct db_workunit *, void *), void *arg);
/*
 * Delete the workunit (only while its files are deleted) and all its
 * results; DB_NOT_FOUND if the workunit is not there (or no longer
 * finished). In the caller's transaction, under its row locks.
 */
int db_purge_delete_wu(struct db *db, int64_t wuid, int64_t *nresults);

#endif
