/*
 * The ops pages' counts (db_ops.h): each a GROUP BY over an index range;
 * and who administers the project (ops_admin).
 */
#include "db_ops.h"

#define CNT(member) offsetof(struct db_ops_count, member)

/* A count table: three key expressions (SQL, "0" when unused) and COUNT(*). */
#define COUNT_TABLE(id, from, ea, eb, ec)                                                \
	static const struct db_column id##_cols[] = {                                    \
		{ ea, DB_T_I64, CNT(a), DB_COL_EXPR },                                    \
		{ eb, DB_T_I64, CNT(b), DB_COL_EXPR },                                    \
		{ ec, DB_T_I64, CNT(c), DB_COL_EXPR },                                    \
		{ "COUNT(*)", DB_T_I64, CNT(n), DB_COL_EXPR },                             \
	};                                                                               \
	static const struct db_table id = { from, sizeof(struct db_ops_count), id##_cols, \
					    ARRAY_SIZE(id##_cols), false }

COUNT_TABLE(result_state_t, "result", "server_state", "outcome", "0");
COUNT_TABLE(wu_state_t, "app", "workunit.assimilate_state", "workunit.error_mask<>0",
	    "(workunit.error_mask&16)<>0");
COUNT_TABLE(seq_state_t, "sequence", "state", "0", "0");
COUNT_TABLE(batch_state_t, "batch", "state", "0", "0");
COUNT_TABLE(outcome_t, "result", "outcome", "0", "0");
COUNT_TABLE(error_app_t, "result", "appid", "outcome", "exit_status");
COUNT_TABLE(error_host_t, "result", "hostid", "outcome", "0");
COUNT_TABLE(version_t, "result", "app_version_id", "0", "0");
COUNT_TABLE(invalid_why_t, "result", "appid", "validate_why", "0");
COUNT_TABLE(batch_wu_t, "workunit", "canonical_resultid<>0", "error_mask<>0",
	    "(error_mask&16)<>0");

/*
 * The windows are small in use (days of results) but not in the EXPLAIN
 * test's placeholders: the optimizer is told which index a window reads.
 */
const struct db_query dbq_ops_result_states = {
	"ops_result_states", &result_state_t,
	"FORCE INDEX (ind_res_st) WHERE server_state IN (1, 2, 4) GROUP BY server_state, outcome", ""
};
/* wu_assim begins with appid: reached through the few apps, as the status page does */
const struct db_query dbq_ops_wu_states = {
	"ops_wu_states", &wu_state_t,
	"STRAIGHT_JOIN workunit ON workunit.appid=app.id AND workunit.assimilate_state IN (0, 1, 2) "
	"GROUP BY 1, 2, 3", ""
};
const struct db_query dbq_ops_seq_states = {
	"ops_seq_states", &seq_state_t, "WHERE state IN (0, 1, 2) GROUP BY state", ""
};
const struct db_query dbq_ops_batch_states = {
	"ops_batch_states", &batch_state_t, "GROUP BY state", ""
};
const struct db_query dbq_ops_outcomes_since = {
	"ops_outcomes_since", &outcome_t,
	"FORCE INDEX (res_deadline) WHERE server_state=5 AND report_deadline>? GROUP BY outcome", "i"
};
const struct db_query dbq_ops_errors_by_app = {
	"ops_errors_by_app", &error_app_t,
	"FORCE INDEX (res_deadline) WHERE server_state=5 AND report_deadline>? AND outcome IN (3, 4, 6, 7) "
	"GROUP BY appid, outcome, exit_status ORDER BY COUNT(*) DESC, appid LIMIT ?", "ii"
};
const struct db_query dbq_ops_errors_by_host = {
	"ops_errors_by_host", &error_host_t,
	"FORCE INDEX (res_deadline) WHERE server_state=5 AND report_deadline>? AND outcome IN (3, 4, 6, 7) "
	"GROUP BY hostid, outcome ORDER BY COUNT(*) DESC, hostid LIMIT ?", "ii"
};
const struct db_query dbq_ops_invalid_by_why = {
	"ops_invalid_by_why", &invalid_why_t,
	"FORCE INDEX (res_deadline) WHERE server_state=5 AND report_deadline>? AND "
	"(validate_state=2 OR validate_why=6) GROUP BY appid, validate_why "
	"ORDER BY appid, validate_why LIMIT ?", "ii"
};
const struct db_query dbq_ops_host_counts = {
	"ops_host_counts", &result_state_t, "WHERE hostid=? GROUP BY server_state, outcome", "i"
};
const struct db_query dbq_host_versions_in_progress = {
	"host_versions_in_progress", &version_t,
	"WHERE hostid=? AND server_state=4 GROUP BY app_version_id", "i"
};
const struct db_query dbq_ops_batch_wu_counts = {
	"ops_batch_wu_counts", &batch_wu_t, "WHERE batch=? AND seq_id=0 GROUP BY 1, 2, 3", "i"
};
const struct db_query dbq_ops_batch_result_counts = {
	"ops_batch_result_counts", &result_state_t,
	"WHERE batch=? GROUP BY server_state, outcome", "i"
};

static int counts(struct db *db, const struct db_query *q, const struct db_val *v, size_t n,
		  db_ops_count_fn *fn, void *arg)
{
	return db_query_rows(db, q, v, n, (db_row_fn)fn, arg);
}

int db_ops_result_states(struct db *db, db_ops_count_fn *fn, void *arg)
{
	return counts(db, &dbq_ops_result_states, NULL, 0, fn, arg);
}

int db_ops_wu_states(struct db *db, db_ops_count_fn *fn, void *arg)
{
	return counts(db, &dbq_ops_wu_states, NULL, 0, fn, arg);
}

int db_ops_seq_states(struct db *db, db_ops_count_fn *fn, void *arg)
{
	return counts(db, &dbq_ops_seq_states, NULL, 0, fn, arg);
}

int db_ops_batch_states(struct db *db, db_ops_count_fn *fn, void *arg)
{
	return counts(db, &dbq_ops_batch_states, NULL, 0, fn, arg);
}

int db_ops_outcomes_since(struct db *db, int64_t since, db_ops_count_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(since) };

	return counts(db, &dbq_ops_outcomes_since, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_errors_by_app(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			 void *arg)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(limit) };

	return counts(db, &dbq_ops_errors_by_app, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_errors_by_host(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			  void *arg)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(limit) };

	return counts(db, &dbq_ops_errors_by_host, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_invalid_by_why(struct db *db, int64_t since, int limit, db_ops_count_fn *fn,
			  void *arg)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(limit) };

	return counts(db, &dbq_ops_invalid_by_why, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_host_counts(struct db *db, int64_t hostid, db_ops_count_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return counts(db, &dbq_ops_host_counts, v, ARRAY_SIZE(v), fn, arg);
}

int db_host_versions_in_progress(struct db *db, int64_t hostid, db_ops_count_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return counts(db, &dbq_host_versions_in_progress, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_batch_wu_counts(struct db *db, int64_t batch, db_ops_count_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return counts(db, &dbq_ops_batch_wu_counts, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_batch_result_counts(struct db *db, int64_t batch, db_ops_count_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return counts(db, &dbq_ops_batch_result_counts, v, ARRAY_SIZE(v), fn, arg);
}

/* ---- ops administrators ---- */

const struct db_query dbq_ops_admin_grant = {
	"ops_admin_grant", NULL,
	"INSERT INTO ops_admin (user_id, grant_time) VALUES (?, ?) "
	"ON DUPLICATE KEY UPDATE grant_time=grant_time", "ii"
};
const struct db_query dbq_ops_admin_revoke = {
	"ops_admin_revoke", NULL, "DELETE FROM ops_admin WHERE user_id=?", "i"
};

int db_ops_admin_is(struct db *db, int64_t userid, bool *yes)
{
	struct db_val v[] = { DBV_INT(userid) };
	int64_t id = 0;
	int rc = db_select_i64(db, "SELECT user_id FROM ops_admin WHERE user_id=?", v, 1, &id);

	*yes = rc == DB_OK;
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

int db_ops_admin_grant(struct db *db, int64_t userid, int64_t now)
{
	struct db_val v[] = { DBV_INT(userid), DBV_INT(now) };

	return db_query_exec(db, &dbq_ops_admin_grant, v, ARRAY_SIZE(v), NULL);
}

int db_ops_admin_revoke(struct db *db, int64_t userid)
{
	struct db_val v[] = { DBV_INT(userid) };

	return db_query_exec(db, &dbq_ops_admin_revoke, v, ARRAY_SIZE(v), NULL);
}
