/*
 * host_app_version: the measured speed and validity of each app version on
 * each host (upstream's table of that name, simplified). The scheduler adds
 * a host's successful jobs as it records their reports (db_hav_report), the
 * validator its verdicts (db_hav_validated), and the scheduler's choice of
 * version reads a host's rows (db_hav_enum_host). Each change is one
 * upsert, so two schedulers or a scheduler and the validator touching one
 * row at once serialize on its lock and lose nothing.
 */
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

#include <math.h>
#include <stddef.h>

#define HAV_COL(f, type, flags) \
	{ #f, type, offsetof(struct db_host_app_version, f), flags }

static const struct db_column hav_cols[] = {
	HAV_COL(host_id, DB_T_I64, DB_COL_KEY),
	HAV_COL(app_version_id, DB_T_I64, DB_COL_KEY),
	HAV_COL(n_jobs, DB_T_I64, 0),
	HAV_COL(n_valid, DB_T_I64, 0),
	HAV_COL(n_invalid, DB_T_I64, 0),
	HAV_COL(n_errors, DB_T_I64, 0),
	HAV_COL(consecutive_valid, DB_T_I64, 0),
	HAV_COL(error_rate, DB_T_DOUBLE, 0),
	HAV_COL(flops_avg, DB_T_DOUBLE, 0),
	HAV_COL(elapsed_avg, DB_T_DOUBLE, 0),
	HAV_COL(turnaround_avg, DB_T_DOUBLE, 0),
	HAV_COL(last_update, DB_T_I64, 0),
};
const struct db_table db_host_app_version_table = {
	"host_app_version", sizeof(struct db_host_app_version), hav_cols, ARRAY_SIZE(hav_cols),
	false
};

const struct db_query dbq_hav_host = {
	"hav_host", &db_host_app_version_table, "WHERE host_id=? ORDER BY app_version_id", "i"
};
/*
 * The averages move before n_jobs does (MariaDB assigns left to right, each
 * seeing the ones before): the new job weighs 1/(n_jobs + 1), at least 0.1.
 */
#define HAV_MOVE(c) c "=" c "+(VALUES(" c ")-" c ")/LEAST(n_jobs+1, 10)"
/*
 * A job's speed, its workunit's estimate over its elapsed time, read and
 * written in one statement: nothing when the workunit has no estimate or
 * the speed is above the bound (the estimate above the bound times the
 * elapsed time: no division in SQL can overflow).
 */
const struct db_query dbq_hav_report = {
	"hav_report", NULL,
	"INSERT INTO host_app_version (host_id, app_version_id, n_jobs, flops_avg, elapsed_avg, "
	"last_update) SELECT ?, ?, 1, rsc_fpops_est/?, ?, ? FROM workunit WHERE id=? AND "
	"rsc_fpops_est>0 AND rsc_fpops_est<=? ON DUPLICATE KEY UPDATE "
	HAV_MOVE("flops_avg") ", " HAV_MOVE("elapsed_avg") ", n_jobs=n_jobs+1, "
	"last_update=VALUES(last_update)", "iiddiid"
};
/*
 * The averages move before the counts do (as above), each outcome weighing
 * 1/min(outcomes so far + 1, 20) (the first outcome sets them; a turnaround
 * < 0 is unknown and leaves its average); the last parameter says what
 * becomes of consecutive_valid (1 one more, 0 as it is, -1 back to 0).
 */
#define HAV_OUTCOMES "LEAST(n_valid+n_invalid+n_errors+1, 20)"
const struct db_query dbq_hav_outcome = {
	"hav_outcome", NULL,
	"INSERT INTO host_app_version (host_id, app_version_id, n_valid, n_invalid, n_errors, "
	"consecutive_valid, error_rate, turnaround_avg, last_update) "
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
	"error_rate=error_rate+(VALUES(error_rate)-error_rate)/" HAV_OUTCOMES ", "
	"turnaround_avg=IF(?>=0, turnaround_avg+(?-turnaround_avg)/" HAV_OUTCOMES ", "
	"turnaround_avg), "
	"n_valid=n_valid+VALUES(n_valid), n_invalid=n_invalid+VALUES(n_invalid), "
	"n_errors=n_errors+VALUES(n_errors), "
	"consecutive_valid=CASE ? WHEN 1 THEN consecutive_valid+1 WHEN 0 THEN consecutive_valid "
	"ELSE 0 END, last_update=VALUES(last_update)", "iiiiiiddiddi"
};

int db_hav_enum_host(struct db *db, int64_t hostid,
		     int (*fn)(struct db_host_app_version *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_query_rows(db, &dbq_hav_host, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_hav_report(struct db *db, int64_t hostid, int64_t avid, int64_t wuid, double elapsed,
		  double max_flops, bool *taken)
{
	struct db_val v[] = {
		DBV_INT(hostid), DBV_INT(avid), DBV_DBL(elapsed), DBV_DBL(elapsed), DBV_INT(now()),
		DBV_INT(wuid), DBV_DBL(max_flops * elapsed),
	};
	int64_t n = 0;
	int rc;

	*taken = false;
	if (!(elapsed > 0) || !isfinite(max_flops * elapsed) || !(max_flops > 0))
		return log_error("database error: host %" PRId64 " app version %" PRId64
				 ": %g s is no elapsed time", hostid, avid, elapsed);
	rc = db_query_exec(db, &dbq_hav_report, v, ARRAY_SIZE(v), &n);
	*taken = rc == DB_OK && n > 0;
	return rc;
}

int db_hav_outcome(struct db *db, int64_t hostid, int64_t avid, enum hav_outcome o,
		   double turnaround)
{
	bool valid = o == HAV_VALID || o == HAV_VALID_UNVERIFIED;
	int cons = o == HAV_VALID ? 1 : o == HAV_VALID_UNVERIFIED ? 0 : -1;
	double t = isfinite(turnaround) && turnaround >= 0 ? turnaround : -1.0;
	struct db_val v[] = {
		DBV_INT(hostid), DBV_INT(avid), DBV_INT(valid), DBV_INT(o == HAV_INVALID),
		DBV_INT(o == HAV_ERROR), DBV_INT(cons > 0), DBV_DBL(valid ? 0.0 : 1.0),
		DBV_DBL(t > 0 ? t : 0.0), DBV_INT(now()), DBV_DBL(t), DBV_DBL(t), DBV_INT(cons),
	};

	return db_query_exec(db, &dbq_hav_outcome, v, ARRAY_SIZE(v), NULL);
}
