/*
 * The file deleter's statements on superseded state versions of work
 * sequences (backend/seq_keep.h says which those are): find the sequences
 * that have some, read their versions under the heads' locks, mark the
 * superseded ones gone (uploaded=0, file_delete_state READY) in that
 * transaction, and after the files are unlinked mark them DONE. Each takes a
 * batch of up to DB_SEQ_BATCH sequences or rows, whatever their number.
 */
#ifndef WSEQ_DB_SEQ_KEEP_H
#define WSEQ_DB_SEQ_KEEP_H

#include "db.h"
#include "db_records.h"

extern const struct db_query dbq_seq_keep_candidates, dbq_seq_keep_versions,
	dbq_seq_keep_members, dbq_seq_keep_mark, dbq_seq_keep_done;

/*
 * Active or ended sequences with id > after and id % mod_n == mod_i, by id,
 * at most limit, that have more uploaded state versions of assimilated
 * segments after their initial states and up to K (their group's) than
 * state files: some version is superseded.
 */
int db_seq_keep_candidates(struct db *db, long mod_n, long mod_i, int64_t after, int limit,
			   int (*fn)(struct db_sequence *, void *), void *arg);
/*
 * The uploaded state versions of sequences ids[0..n) (n <= DB_SEQ_BATCH)
 * that are initial states or of assimilated segments, in the relocator's
 * order: by sequence, seqno descending, branch descending. The caller holds
 * the heads' locks.
 */
int db_seq_keep_versions(struct db *db, const int64_t *ids, size_t n,
			 int (*fn)(struct db_seq_file *, void *), void *arg);
/* The members of the groups groupids[0..n) (n <= DB_SEQ_BATCH), by id. */
int db_seq_keep_members(struct db *db, const int64_t *groupids, size_t n,
			int (*fn)(struct db_sequence *, void *), void *arg);
/* The state versions ids[0..n) (n <= DB_SEQ_BATCH) are no longer on the server: READY. */
int db_seq_keep_mark(struct db *db, const int64_t *ids, size_t n);
/* READY versions ids[0..n) whose files are gone (DONE) or stay (ERROR). */
int db_seq_keep_done(struct db *db, const int64_t *ids, size_t n, int file_delete_state);

#endif
