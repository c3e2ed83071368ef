/* The queries of db_purge; see db_purge.h. */
#include "db_purge.h"

const struct db_query dbq_purge_candidates = {
	"purge_candidates", &db_workunit_table,
	"FORCE INDEX (wu_filedel) WHERE file_delete_state=2 AND id>? "
	"AND mod_time<FROM_UNIXTIME(?) ORDER BY id LIMIT ?", "iii"
};
const struct db_query dbq_purge_seq_segments = {
	"purge_seq_segments", &db_workunit_table, "WHERE seq_id=? ORDER BY id", "i"
};
const struct db_query dbq_purge_result_delete = {
	"purge_result_delete", NULL, "DELETE FROM result WHERE workunitid=?", "i"
};
const struct db_query dbq_purge_wu_delete = {
	"purge_wu_delete", NULL, "DELETE FROM workunit WHERE id=? AND file_delete_state=2", "i"
};

int db_purge_enum_candidates(struct db *db, int64_t after, int64_t t, int limit,
			     int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(after), DBV_INT(t), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_purge_candidates, v, ARRAY_SIZE(v), fn, arg);
}

int db_purge_enum_segments(struct db *db, int64_t seq_id,
			   int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id) };

	return db_workunit_query(db, &dbq_purge_seq_segments, v, ARRAY_SIZE(v), fn, arg);
}

int db_purge_delete_wu(struct db *db, int64_t wuid, int64_t *nresults)
{
	struct db_val v[] = { DBV_INT(wuid) };
	int64_t n = 0;
	int rc = db_query_exec(db, &dbq_purge_result_delete, v, ARRAY_SIZE(v), nresults);

	if (rc == DB_OK)
		rc = db_query_exec(db, &dbq_purge_wu_delete, v, ARRAY_SIZE(v), &n);
	return rc == DB_OK && n == 0 ? DB_NOT_FOUND : rc;
}
