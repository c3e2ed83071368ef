/*
 * The work-sequence queries: a host's sequences, unassigned ones for the
 * scheduler, the relocator's queue, groups, and the segment files.
 */
#include "db_queries.h"

const struct db_query dbq_seq_for_host = {
	"seq_for_host", &db_sequence_table, "WHERE hostid=? AND state=0 ORDER BY id", "i"
};
const struct db_query dbq_seq_for_user = {
	"seq_for_user", &db_sequence_table,
	"WHERE hostid IN (SELECT id FROM host WHERE userid=?) AND state=0 ORDER BY id", "i"
};
/*
 * Locked for the caller's transaction, those another scheduler holds
 * passed over: hosts asking at once are offered different sequences, and
 * none waits for another's.
 */
const struct db_query dbq_seq_unassigned = {
	"seq_unassigned", &db_sequence_table,
	"WHERE state=0 AND hostid=0 AND need_relocate=0 ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED", "i"
};
const struct db_query dbq_seq_relocate = {
	"seq_relocate", &db_sequence_table,
	"WHERE need_relocate>0 AND MOD(id, ?)=? ORDER BY need_relocate LIMIT ?", "iii"
};
const struct db_query dbq_seq_group_members = {
	"seq_group_members", &db_sequence_table, "WHERE groupid=? ORDER BY id", "i"
};
const struct db_query dbq_seq_assign = {
	"seq_assign", NULL,
	"UPDATE sequence SET hostid=?, assign_time=?, first_unsent_seqno=? "
	"WHERE id=? AND hostid=0 AND state=0", "iiii"
};
const struct db_query dbq_seq_file_segment = {
	"seq_file_segment", &db_seq_file_table,
	"WHERE seq_id=? AND branch=? AND seqno=? ORDER BY id", "iii"
};
const struct db_query dbq_seq_file_delete = {
	"seq_file_delete", &db_seq_file_table, "WHERE file_delete_state=1 LIMIT ?", "i"
};

int db_sequence_enum_host(struct db *db, int64_t hostid,
			  int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_sequence_query(db, &dbq_seq_for_host, v, ARRAY_SIZE(v), fn, arg);
}

int db_sequence_enum_user(struct db *db, int64_t userid,
			  int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(userid) };

	return db_sequence_query(db, &dbq_seq_for_user, v, ARRAY_SIZE(v), fn, arg);
}

int db_sequence_enum_unassigned(struct db *db, int limit,
				int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(limit) };

	return db_sequence_query(db, &dbq_seq_unassigned, v, ARRAY_SIZE(v), fn, arg);
}

int db_sequence_enum_relocate(struct db *db, long mod_n, long mod_i, int limit,
			      int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };

	return db_sequence_query(db, &dbq_seq_relocate, v, ARRAY_SIZE(v), fn, arg);
}

int db_sequence_enum_group(struct db *db, int64_t groupid,
			   int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(groupid) };

	return db_sequence_query(db, &dbq_seq_group_members, v, ARRAY_SIZE(v), fn, arg);
}

int db_sequence_assign(struct db *db, int64_t seq_id, int64_t hostid, int64_t t,
		       int first_unsent_seqno)
{
	struct db_val v[] = { DBV_INT(hostid), DBV_INT(t), DBV_INT(first_unsent_seqno),
			      DBV_INT(seq_id) };
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_seq_assign, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_seq_file_enum_segment(struct db *db, int64_t seq_id, int branch, int seqno,
			     int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(branch), DBV_INT(seqno) };

	return db_seq_file_query(db, &dbq_seq_file_segment, v, ARRAY_SIZE(v), fn, arg);
}

int db_seq_file_enum_delete(struct db *db, int limit,
			    int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(limit) };

	return db_seq_file_query(db, &dbq_seq_file_delete, v, ARRAY_SIZE(v), fn, arg);
}
