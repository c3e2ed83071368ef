/*
 * The ops pages' lists (db_ops.h): results with their hosts' names, hosts,
 * batches, sequences and a sequence's segments, each bounded.
 */
#include "db_ops.h"

#define RES(member) offsetof(struct db_ops_result, member)
#define SEG(member) offsetof(struct db_ops_segment, member)

static const struct db_column result_cols[] = {
	{ "result.id", DB_T_I64, RES(id), DB_COL_EXPR },
	{ "result.name", DB_T_STR, RES(name), DB_COL_EXPR },
	{ "result.workunitid", DB_T_I64, RES(workunitid), DB_COL_EXPR },
	{ "result.hostid", DB_T_I64, RES(hostid), DB_COL_EXPR },
	{ "result.appid", DB_T_I64, RES(appid), DB_COL_EXPR },
	{ "result.server_state", DB_T_INT, RES(server_state), DB_COL_EXPR },
	{ "result.outcome", DB_T_INT, RES(outcome), DB_COL_EXPR },
	{ "result.validate_state", DB_T_INT, RES(validate_state), DB_COL_EXPR },
	{ "result.validate_why", DB_T_INT, RES(validate_why), DB_COL_EXPR },
	{ "result.exit_status", DB_T_INT, RES(exit_status), DB_COL_EXPR },
	{ "result.sent_time", DB_T_I64, RES(sent_time), DB_COL_EXPR },
	{ "result.received_time", DB_T_I64, RES(received_time), DB_COL_EXPR },
	{ "result.report_deadline", DB_T_I64, RES(report_deadline), DB_COL_EXPR },
	{ "result.elapsed_time", DB_T_DOUBLE, RES(elapsed_time), DB_COL_EXPR },
	{ "LEFT(result.stderr_out, 400)", DB_T_STR, RES(stderr_head), DB_COL_EXPR },
	{ "COALESCE(h.domain_name, '')", DB_T_STR, RES(host_name), DB_COL_EXPR },
};
const struct db_table db_ops_result_table = {
	"result", sizeof(struct db_ops_result), result_cols, ARRAY_SIZE(result_cols), false
};

#define RESULT_FROM "LEFT JOIN host h ON h.id=result.hostid "
const struct db_query dbq_ops_recent_errors = {
	"ops_recent_errors", &db_ops_result_table,
	"FORCE INDEX (res_deadline) " RESULT_FROM "WHERE result.server_state=5 AND result.report_deadline>? "
	"AND result.outcome IN (3, 4, 6, 7) ORDER BY result.report_deadline DESC LIMIT ?", "ii"
};
const struct db_query dbq_ops_invalid_results = {
	"ops_invalid_results", &db_ops_result_table,
	"FORCE INDEX (res_deadline) " RESULT_FROM "WHERE result.server_state=5 "
	"AND result.report_deadline>? AND result.appid=? AND result.validate_why=? "
	"AND (result.validate_state=2 OR result.validate_why=6) "
	"ORDER BY result.report_deadline DESC LIMIT ?", "iiii"
};
const struct db_query dbq_ops_host_results = {
	"ops_host_results", &db_ops_result_table,
	RESULT_FROM "WHERE result.hostid=? ORDER BY result.id DESC LIMIT ?", "ii"
};
const struct db_query dbq_ops_wu_results = {
	"ops_wu_results", &db_ops_result_table,
	RESULT_FROM "WHERE result.workunitid=? ORDER BY result.id LIMIT ?", "ii"
};

/* A segment and one of its results: columns of the three tables, null when no result. */
static const struct db_column segment_cols[] = {
	{ "workunit.id", DB_T_I64, SEG(wuid), DB_COL_EXPR },
	{ "workunit.name", DB_T_STR, SEG(wu_name), DB_COL_EXPR },
	{ "workunit.branch", DB_T_INT, SEG(branch), DB_COL_EXPR },
	{ "workunit.seqno", DB_T_INT, SEG(seqno), DB_COL_EXPR },
	{ "workunit.create_time", DB_T_I64, SEG(create_time), DB_COL_EXPR },
	{ "workunit.error_mask", DB_T_INT, SEG(error_mask), DB_COL_EXPR },
	{ "workunit.canonical_resultid", DB_T_I64, SEG(canonical_resultid), DB_COL_EXPR },
	{ "COALESCE(r.id, 0)", DB_T_I64, SEG(r.id), DB_COL_EXPR },
	{ "COALESCE(r.name, '')", DB_T_STR, SEG(r.name), DB_COL_EXPR },
	{ "COALESCE(r.hostid, 0)", DB_T_I64, SEG(r.hostid), DB_COL_EXPR },
	{ "COALESCE(r.server_state, 0)", DB_T_INT, SEG(r.server_state), DB_COL_EXPR },
	{ "COALESCE(r.outcome, 0)", DB_T_INT, SEG(r.outcome), DB_COL_EXPR },
	{ "COALESCE(r.validate_state, 0)", DB_T_INT, SEG(r.validate_state), DB_COL_EXPR },
	{ "COALESCE(r.exit_status, 0)", DB_T_INT, SEG(r.exit_status), DB_COL_EXPR },
	{ "COALESCE(r.sent_time, 0)", DB_T_I64, SEG(r.sent_time), DB_COL_EXPR },
	{ "COALESCE(r.received_time, 0)", DB_T_I64, SEG(r.received_time), DB_COL_EXPR },
	{ "COALESCE(r.report_deadline, 0)", DB_T_I64, SEG(r.report_deadline), DB_COL_EXPR },
	{ "COALESCE(r.elapsed_time, 0)", DB_T_DOUBLE, SEG(r.elapsed_time), DB_COL_EXPR },
	{ "COALESCE(h.domain_name, '')", DB_T_STR, SEG(r.host_name), DB_COL_EXPR },
};
const struct db_table db_ops_segment_table = {
	"workunit", sizeof(struct db_ops_segment), segment_cols, ARRAY_SIZE(segment_cols), false
};
const struct db_query dbq_ops_seq_segments = {
	"ops_seq_segments", &db_ops_segment_table,
	"LEFT JOIN result r ON r.workunitid=workunit.id LEFT JOIN host h ON h.id=r.hostid "
	"WHERE workunit.seq_id=? ORDER BY workunit.branch, workunit.seqno, workunit.id, r.id "
	"LIMIT ?", "ii"
};

const struct db_query dbq_ops_hosts_recent = {
	"ops_hosts_recent", &db_host_table,
	"WHERE rpc_time>=? ORDER BY rpc_time DESC, id LIMIT ? OFFSET ?", "iii"
};
const struct db_query dbq_ops_host_sequences = {
	"ops_host_sequences", &db_sequence_table, "WHERE hostid=? ORDER BY id DESC LIMIT ?", "ii"
};
const struct db_query dbq_ops_batches = {
	"ops_batches", &db_batch_table, "WHERE id<=? ORDER BY id DESC LIMIT ?", "ii"
};
const struct db_query dbq_ops_batch_jobs = {
	"ops_batch_jobs", &db_job_status_table, "WHERE batch=? AND seq_id=0 ORDER BY id LIMIT ?",
	"ii"
};
const struct db_query dbq_ops_batch_lease = {
	"ops_batch_lease", NULL,
	"SELECT FLOOR(COALESCE(MAX(job_file.delete_time), 0)) FROM batch_file_assoc "
	"JOIN job_file ON job_file.id=batch_file_assoc.job_file_id "
	"WHERE batch_file_assoc.batch_id=?", "i"
};
const struct db_query dbq_ops_sequences = {
	"ops_sequences", &db_sequence_table, "WHERE id<=? ORDER BY id DESC LIMIT ?", "ii"
};
const struct db_query dbq_ops_sequences_state = {
	"ops_sequences_state", &db_sequence_table,
	"WHERE state=? AND id<=? ORDER BY id DESC LIMIT ?", "iii"
};
const struct db_query dbq_ops_seq_files = {
	"ops_seq_files", &db_seq_file_table,
	"WHERE seq_id=? ORDER BY branch, seqno, id LIMIT ?", "ii"
};
const struct db_query dbq_ops_versions = {
	"ops_versions", &db_app_version_table, "ORDER BY appid, platformid, version_num, id", ""
};
const struct db_query dbq_ops_platforms = {
	"ops_platforms", &db_platform_table, "ORDER BY id", ""
};

void db_ops_result_release(struct db_ops_result *r)
{
	free(r->name);
	free(r->stderr_head);
	free(r->host_name);
	r->name = r->stderr_head = r->host_name = NULL;
}

static int results(struct db *db, const struct db_query *q, int64_t key, int limit,
		   db_ops_result_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(key), DBV_INT(limit) };

	return db_query_rows(db, q, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_ops_recent_errors(struct db *db, int64_t since, int limit, db_ops_result_fn *fn,
			 void *arg)
{
	return results(db, &dbq_ops_recent_errors, since, limit, fn, arg);
}

int db_ops_invalid_results(struct db *db, int64_t since, int64_t appid, int why, int limit,
			   db_ops_result_fn *fn, void *arg)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(appid), DBV_INT(why), DBV_INT(limit) };

	return db_query_rows(db, &dbq_ops_invalid_results, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_ops_host_results(struct db *db, int64_t hostid, int limit, db_ops_result_fn *fn,
			void *arg)
{
	return results(db, &dbq_ops_host_results, hostid, limit, fn, arg);
}

int db_ops_wu_results(struct db *db, int64_t wuid, int limit, db_ops_result_fn *fn, void *arg)
{
	return results(db, &dbq_ops_wu_results, wuid, limit, fn, arg);
}

int db_ops_seq_segments(struct db *db, int64_t seq_id, int limit, db_ops_segment_fn *fn,
			void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(limit) };

	return db_query_rows(db, &dbq_ops_seq_segments, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_ops_hosts_recent(struct db *db, int64_t since, long offset, int limit,
			int (*fn)(struct db_host *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(limit), DBV_INT(offset) };

	return db_host_query(db, &dbq_ops_hosts_recent, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_host_sequences(struct db *db, int64_t hostid, int limit,
			  int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid), DBV_INT(limit) };

	return db_sequence_query(db, &dbq_ops_host_sequences, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_batches(struct db *db, int64_t before, int limit,
		   int (*fn)(struct db_batch *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(before), DBV_INT(limit) };

	return db_batch_query(db, &dbq_ops_batches, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_batch_jobs(struct db *db, int64_t batch, int limit,
		      int (*fn)(struct db_job_status *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch), DBV_INT(limit) };

	return db_query_rows(db, &dbq_ops_batch_jobs, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_ops_batch_lease(struct db *db, int64_t batch, int64_t *t)
{
	struct db_val v[] = { DBV_INT(batch) };
	int rc;

	*t = 0;
	rc = db_select_i64(db, dbq_ops_batch_lease.sql, v, ARRAY_SIZE(v), t);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

int db_ops_sequences(struct db *db, int state, int64_t before, int limit,
		     int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val all[] = { DBV_INT(before), DBV_INT(limit) },
		      one[] = { DBV_INT(state), DBV_INT(before), DBV_INT(limit) };

	if (state < 0)
		return db_sequence_query(db, &dbq_ops_sequences, all, ARRAY_SIZE(all), fn, arg);
	return db_sequence_query(db, &dbq_ops_sequences_state, one, ARRAY_SIZE(one), fn, arg);
}

int db_ops_seq_files(struct db *db, int64_t seq_id, int limit,
		     int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(limit) };

	return db_seq_file_query(db, &dbq_ops_seq_files, v, ARRAY_SIZE(v), fn, arg);
}

int db_ops_versions(struct db *db, int (*fn)(struct db_app_version *, void *), void *arg)
{
	return db_app_version_query(db, &dbq_ops_versions, NULL, 0, fn, arg);
}

int db_ops_platforms(struct db *db, int (*fn)(struct db_platform *, void *), void *arg)
{
	return db_platform_query(db, &dbq_ops_platforms, NULL, 0, fn, arg);
}
