/* The file deleter's statements on superseded state versions; see db_seq_keep.h. */
#include "db_seq_keep.h"
#include "db_internal.h"
#include "db_queries.h"
#include "db_sched.h"

/* K of backend/seq_keep.h, in SQL: the sequence's, or its group's. */
#define KEEP_K_OF(t) "LEAST(" t ".last_state_seqno, " t ".first_unvalidated_seqno - 1)"
#define KEEP_K \
	"LEAST(" KEEP_K_OF("`sequence`") ", IF(`sequence`.groupid=0, " KEEP_K_OF("`sequence`") \
	", (SELECT MIN(" KEEP_K_OF("m") ") FROM sequence m WHERE m.groupid=`sequence`.groupid)))"
/* A version may go once its segment is assimilated (the assimilator copies it). */
#define ASSIMILATED(f) \
	"EXISTS (SELECT 1 FROM workunit w WHERE w.seq_id=" f ".seq_id AND w.branch=" f ".branch " \
	"AND w.seqno=" f ".seqno AND w.assimilate_state=2)"

/*
 * The state file of a version is what its name ends with after "_state"
 * ("" for the first, "1", "2", ... for the others: seq_state_name, read
 * back by seq_state_index).
 */
const struct db_query dbq_seq_keep_candidates = {
	"seq_keep_candidates", &db_sequence_table,
	"WHERE state IN (0, 1) AND MOD(id, ?)=? AND id>? AND (SELECT COUNT(*) - "
	"COUNT(DISTINCT SUBSTRING_INDEX(f.name, '_state', -1)) FROM seq_file f "
	"WHERE f.seq_id=`sequence`.id AND f.kind=1 AND f.uploaded=1 AND f.seqno>0 "
	"AND f.seqno<=" KEEP_K " AND " ASSIMILATED("f") ") > 0 ORDER BY id LIMIT ?", "iiii"
};
/* Versions of segments not assimilated yet are left out: kept, and superseding none. */
const struct db_query dbq_seq_keep_versions = {
	"seq_keep_versions", &db_seq_file_table,
	"WHERE seq_id IN (" Q32 ") AND kind=1 AND uploaded=1 AND (seqno=0 OR "
	ASSIMILATED("seq_file") ") ORDER BY seq_id, seqno DESC, branch DESC, id", I32
};
const struct db_query dbq_seq_keep_members = {
	"seq_keep_members", &db_sequence_table, "WHERE groupid IN (" Q32 ") ORDER BY id", I32
};
const struct db_query dbq_seq_keep_mark = {
	"seq_keep_mark", NULL,
	"UPDATE seq_file SET uploaded=0, file_delete_state=1 WHERE id IN (" Q32 ") AND kind=1", I32
};
const struct db_query dbq_seq_keep_done = {
	"seq_keep_done", NULL,
	"UPDATE seq_file SET file_delete_state=? WHERE id IN (" Q32 ") AND file_delete_state=1",
	"i" I32
};

int db_seq_keep_candidates(struct db *db, long mod_n, long mod_i, int64_t after, int limit,
			   int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(mod_n > 0 ? mod_n : 1), DBV_INT(mod_n > 0 ? mod_i : 0),
			      DBV_INT(after), DBV_INT(limit) };

	return db_sequence_query(db, &dbq_seq_keep_candidates, v, ARRAY_SIZE(v), fn, arg);
}

int db_seq_keep_versions(struct db *db, const int64_t *ids, size_t n,
			 int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];

	if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	return db_seq_file_query(db, &dbq_seq_keep_versions, v, ARRAY_SIZE(v), fn, arg);
}

int db_seq_keep_members(struct db *db, const int64_t *groupids, size_t n,
			int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];

	if (db_batch_vals(v, groupids, n) < 0)
		return DB_ERROR;
	return db_sequence_query(db, &dbq_seq_keep_members, v, ARRAY_SIZE(v), fn, arg);
}

int db_seq_keep_mark(struct db *db, const int64_t *ids, size_t n)
{
	struct db_val v[DB_SEQ_BATCH];

	if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	return db_query_exec(db, &dbq_seq_keep_mark, v, ARRAY_SIZE(v), NULL);
}

int db_seq_keep_done(struct db *db, const int64_t *ids, size_t n, int file_delete_state)
{
	struct db_val v[DB_SEQ_BATCH + 1];

	v[0] = DBV_INT(file_delete_state);
	if (db_batch_vals(v + 1, ids, n) < 0)
		return DB_ERROR;
	return db_query_exec(db, &dbq_seq_keep_done, v, ARRAY_SIZE(v), NULL);
}
