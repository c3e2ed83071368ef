/*
 * The workunit queries of the transitioner, validator, assimilator, file
 * deleter, the remote-submission RPCs and the work-sequence code.
 */
#include "db_queries.h"

const struct db_query dbq_wu_transition = {
	"wu_transition", &db_workunit_table,
	"WHERE transition_time<? ORDER BY transition_time LIMIT ?", "ii"
};
const struct db_query dbq_wu_need_validate = {
	"wu_need_validate", &db_workunit_table,
	"WHERE appid=? AND need_validate=1 LIMIT ?", "ii"
};
const struct db_query dbq_wu_assimilate = {
	"wu_assimilate", &db_workunit_table,
	"WHERE appid=? AND assimilate_state=1 LIMIT ?", "ii"
};
const struct db_query dbq_wu_file_delete = {
	"wu_file_delete", &db_workunit_table, "WHERE file_delete_state=1 LIMIT ?", "i"
};
const struct db_query dbq_wu_batch = {
	"wu_batch", &db_workunit_table, "FORCE INDEX (wu_batch) WHERE batch=? ORDER BY id", "i"
};
const struct db_query dbq_wu_batch_modified = {
	"wu_batch_modified", &db_workunit_table,
	"WHERE batch=? AND mod_time>FROM_UNIXTIME(?) ORDER BY id", "id"
};
const struct db_query dbq_wu_seq_segments = {
	"wu_seq_segments", &db_workunit_table,
	"WHERE seq_id=? AND branch=? AND seqno>=? ORDER BY seqno", "iii"
};
const struct db_query dbq_wu_touch_transition = {
	"wu_touch_transition", NULL,
	"UPDATE workunit SET transition_time=LEAST(transition_time, ?) WHERE id=?", "ii"
};
const struct db_query dbq_wu_replicate = {
	"wu_replicate", NULL,
	"UPDATE workunit SET target_nresults=?, min_quorum=?, "
	"max_success_results=GREATEST(max_success_results, ?), "
	"max_total_results=GREATEST(max_total_results, ?), "
	"transition_time=LEAST(transition_time, ?) WHERE id=? AND target_nresults=1", "iiiiii"
};

int db_workunit_enum_transition(struct db *db, int64_t t, int limit,
				int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_transition, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_need_validate(struct db *db, int64_t appid, int limit,
				   int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(appid), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_need_validate, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_assimilate(struct db *db, int64_t appid, int limit,
				int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(appid), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_assimilate, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_file_delete(struct db *db, int limit,
				 int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_file_delete, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_batch(struct db *db, int64_t batch,
			   int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return db_workunit_query(db, &dbq_wu_batch, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_batch_modified(struct db *db, int64_t batch, double t,
				    int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch), DBV_DBL(t) };

	return db_workunit_query(db, &dbq_wu_batch_modified, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_segments(struct db *db, int64_t seq_id, int branch, int from,
			      int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(branch), DBV_INT(from) };

	return db_workunit_query(db, &dbq_wu_seq_segments, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_touch_transition(struct db *db, int64_t wuid, int64_t t)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(wuid) };
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_wu_touch_transition, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_workunit_replicate(struct db *db, int64_t wuid, int n, int64_t t)
{
	struct db_val v[] = { DBV_INT(n), DBV_INT(n), DBV_INT(n), DBV_INT(n + 1), DBV_INT(t),
			      DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_replicate, v, ARRAY_SIZE(v), NULL);
}
