/* The scheduler's own queries (db_sched.c). */
#ifndef WSEQ_DB_SCHED_H
#define WSEQ_DB_SCHED_H

#include "db_queries.h"

extern const struct db_query dbq_result_report, dbq_result_wu_host, dbq_result_host_count;

/* The fields of a result report, written by db_result_report(). */
struct db_result_report {
	int64_t id, hostid;
	int outcome, client_state, exit_status, app_version_num;
	double cpu_time, elapsed_time;
	double peak_working_set_size, peak_swap_size, peak_disk_usage;
	int64_t received_time;
	const char *stderr_out, *xml_doc_out;
};

/*
 * Record the report of result id by its host: only if it is in progress on
 * that host, or timed out there (a late report is still welcome).
 * DB_NOT_FOUND when neither holds (reported twice, or never sent there).
 */
int db_result_report(struct db *db, const struct db_result_report *r);
/* How many results of workunit wuid were sent to hostid. */
int db_result_count_wu_host(struct db *db, int64_t wuid, int64_t hostid, int64_t *n);
/* How many results are in progress on hostid. */
int db_result_count_host_in_progress(struct db *db, int64_t hostid, int64_t *n);

#endif
