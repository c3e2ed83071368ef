/*
 * The result queries of the scheduler (sending unsent results, a host's
 * work), the transitioner (deadlines) and the file deleter.
 */
#include "db_queries.h"

const struct db_query dbq_result_by_workunit = {
	"result_by_workunit", &db_result_table, "WHERE workunitid=? ORDER BY id", "i"
};
const struct db_query dbq_result_host_in_progress = {
	"result_host_seq_in_progress", &db_result_table,
	"WHERE hostid=? AND server_state=4 AND seq_id<>0 ORDER BY id", "i"
};
const struct db_query dbq_result_timed_out = {
	"result_timed_out", &db_result_table,
	"WHERE server_state=4 AND report_deadline<? ORDER BY report_deadline LIMIT ?", "ii"
};
const struct db_query dbq_result_file_delete = {
	"result_file_delete", &db_result_table, "WHERE file_delete_state=1 LIMIT ?", "i"
};
const struct db_query dbq_result_seq_in_progress = {
	"result_seq_in_progress", &db_result_table,
	"WHERE seq_id=? AND server_state=4 ORDER BY id", "i"
};
/*
 * Unsent results in the order they are sent -- from the first, or after
 * (priority, id) -- locked for the caller's transaction; rows another
 * transaction holds are passed over, not waited for, so schedulers side by
 * side never wait on each other. Those free of a lease (lease_until before
 * t), or those a scheduler process claimed ahead (lease_until from t on).
 * Two statements each, not one with a keyset that matches everything:
 * MariaDB plans a prepared statement at every execution, and the plain one
 * plans in half the time.
 */
#define UNSENT_SQL(lease, after) \
	"WHERE server_state=2 AND lease_until" lease "? " after \
	"ORDER BY priority DESC, id LIMIT ? FOR UPDATE SKIP LOCKED"
#define UNSENT_AFTER "AND (priority<? OR (priority=? AND id>?)) "
const struct db_query dbq_result_unsent_lock[2] = {
	{ "result_unsent_lock", &db_result_table, UNSENT_SQL("<", ""), "ii" },
	{ "result_leased_lock", &db_result_table, UNSENT_SQL(">=", ""), "ii" },
};
const struct db_query dbq_result_unsent_lock_after[2] = {
	{ "result_unsent_lock_after", &db_result_table, UNSENT_SQL("<", UNSENT_AFTER), "iiiii" },
	{ "result_leased_lock_after", &db_result_table, UNSENT_SQL(">=", UNSENT_AFTER), "iiiii" },
};
const struct db_query dbq_result_claim_timed_out = {
	"result_claim_timed_out", NULL,
	"UPDATE result SET server_state=5, outcome=4 "
	"WHERE id=? AND server_state=4 AND report_deadline<?", "ii"
};

int db_result_enum_unsent_lock(struct db *db, bool leased, int64_t t, int64_t after_priority,
				int64_t after_id, int limit,
				int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(after_priority), DBV_INT(after_priority),
			      DBV_INT(after_id), DBV_INT(limit) };
	struct db_val first[] = { DBV_INT(t), DBV_INT(limit) };

	if (after_id == 0)
		return db_result_query(db, &dbq_result_unsent_lock[leased], first, ARRAY_SIZE(first),
				       fn, arg);
	return db_result_query(db, &dbq_result_unsent_lock_after[leased], v, ARRAY_SIZE(v), fn,
			       arg);
}

int db_result_enum_workunit(struct db *db, int64_t wuid,
			    int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_result_query(db, &dbq_result_by_workunit, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_enum_host_seq_in_progress(struct db *db, int64_t hostid,
				    int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_result_query(db, &dbq_result_host_in_progress, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_enum_timed_out(struct db *db, int64_t t, int limit,
			     int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(limit) };

	return db_result_query(db, &dbq_result_timed_out, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_enum_file_delete(struct db *db, int limit,
			       int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(limit) };

	return db_result_query(db, &dbq_result_file_delete, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_enum_seq_in_progress(struct db *db, int64_t seq_id,
				   int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id) };

	return db_result_query(db, &dbq_result_seq_in_progress, v, ARRAY_SIZE(v), fn, arg);
}

/* Zero matched rows means the condition no longer held: someone was first. */
static int one_row(int rc, int64_t matched)
{
	if (rc == DB_OK && matched == 0)
		return DB_NOT_FOUND;
	return rc;
}

int db_result_claim_timed_out(struct db *db, int64_t id, int64_t t)
{
	struct db_val v[] = { DBV_INT(id), DBV_INT(t) };
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_claim_timed_out, v, ARRAY_SIZE(v), &matched);

	return one_row(rc, matched);
}
