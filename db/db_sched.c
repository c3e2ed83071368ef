/* The scheduler's queries: recording reports and the checks before sending. */
#include "db_sched.h"

const struct db_query dbq_result_report = {
	"result_report", NULL,
	"UPDATE result SET server_state=5, outcome=?, client_state=?, exit_status=?, cpu_time=?, "
	"elapsed_time=?, received_time=?, stderr_out=?, xml_doc_out=?, app_version_num=?, "
	"peak_working_set_size=?, peak_swap_size=?, peak_disk_usage=?, validate_state=0 "
	"WHERE id=? AND hostid=? AND (server_state=4 OR (server_state=5 AND outcome=4))",
	"iiiddissidddii"
};
const struct db_query dbq_result_wu_host = {
	"result_wu_host", NULL,
	"SELECT COUNT(*) FROM result WHERE workunitid=? AND hostid=?", "ii"
};
const struct db_query dbq_result_host_count = {
	"result_host_count", NULL,
	"SELECT COUNT(*) FROM result WHERE hostid=? AND server_state=4", "i"
};

int db_result_report(struct db *db, const struct db_result_report *r)
{
	struct db_val v[] = {
		DBV_INT(r->outcome), DBV_INT(r->client_state), DBV_INT(r->exit_status),
		DBV_DBL(r->cpu_time), DBV_DBL(r->elapsed_time), DBV_INT(r->received_time),
		DBV_STR(r->stderr_out), DBV_STR(r->xml_doc_out), DBV_INT(r->app_version_num),
		DBV_DBL(r->peak_working_set_size), DBV_DBL(r->peak_swap_size),
		DBV_DBL(r->peak_disk_usage), DBV_INT(r->id), DBV_INT(r->hostid),
	};
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_report, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_result_count_wu_host(struct db *db, int64_t wuid, int64_t hostid, int64_t *n)
{
	struct db_val v[] = { DBV_INT(wuid), DBV_INT(hostid) };

	return db_select_i64(db, dbq_result_wu_host.sql, v, ARRAY_SIZE(v), n);
}

int db_result_count_host_in_progress(struct db *db, int64_t hostid, int64_t *n)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_select_i64(db, dbq_result_host_count.sql, v, ARRAY_SIZE(v), n);
}
