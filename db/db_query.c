/*
 * Running named queries, and the registry of all of them so the EXPLAIN
 * test sees every query the programs can make.
 */
#include "db_internal.h"
#include "db_queries.h"
#include "db_daemons.h"
#include "db_work.h"
#include "db_sched.h"
#include "db_account.h"
#include "db_web.h"
#include "db_mail.h"
#include "db_news.h"
#include "db_stats.h"
#include "db_status.h"
#include "db_purge.h"
#include "db_cancel.h"
#include "db_ops.h"
#include "db_seq_keep.h"
#include "log.h"

const struct db_query *const db_queries[] = {
	&dbq_result_by_workunit, &dbq_result_host_in_progress,
	&dbq_result_timed_out, &dbq_result_file_delete, &dbq_result_seq_in_progress,
	&dbq_result_claim_timed_out, &dbq_result_unsent_lock[0], &dbq_result_unsent_lock[1],
	&dbq_result_unsent_lock_after[0], &dbq_result_unsent_lock_after[1], &dbq_result_claim_many[0],
	&dbq_result_claim_many[1], &dbq_result_claim_many[2], &dbq_result_lease[0], &dbq_result_lease[1], &dbq_result_lease[2], &dbq_wu_touch_each[0],
	&dbq_wu_touch_each[1], &dbq_wu_touch_each[2], &dbq_result_by_names[0],
	&dbq_seq_file_by_names[0], &dbq_seq_file_by_names[1], &dbq_seq_file_by_names[2],
	&dbq_result_by_names[1], &dbq_result_by_names[2], &dbq_wu_for_host[0],
	&dbq_wu_for_host[1], &dbq_wu_for_host[2], &dbq_wu_fpops[0], &dbq_wu_fpops[1], &dbq_wu_fpops[2],
	&dbq_hav_host, &dbq_hav_report, &dbq_hav_outcome,
	&dbq_wu_transition, &dbq_wu_need_validate, &dbq_wu_assimilate, &dbq_wu_file_delete,
	&dbq_wu_batch, &dbq_wu_batch_modified, &dbq_wu_seq_segments, &dbq_wu_touch_transition, &dbq_wu_replicate,
	&dbq_seq_for_host, &dbq_seq_unassigned, &dbq_seq_relocate, &dbq_seq_group_members,
	&dbq_seq_assign, &dbq_seq_file_segment, &dbq_seq_file_delete,
	&dbq_host_by_cpid, &dbq_host_by_user, &dbq_batch_by_name, &dbq_batch_by_user,
	&dbq_batch_expired, &dbq_job_file_expired, &dbq_bfa_by_batch, &dbq_bfa_by_file,
	&dbq_bfa_add, &dbq_user_submit_app_by_user,
	&dbq_result_count_wu, &dbq_wu_id_by_name, &dbq_app_version_by_key,
	&dbq_result_report, &dbq_result_report_many[0], &dbq_result_report_many[1],
	&dbq_result_wu_host, &dbq_result_host_count, &dbq_user_min_quota, &dbq_host_fpops,
	&dbq_user_untried_today, &dbq_user_untried_in_progress, &dbq_seq_for_user,
	&dbq_result_host_jobs_in_progress, &dbq_result_resend, &dbq_result_lost,
	&dbq_work_kinds, &dbq_result_assigned, &dbq_result_claim_assigned, &dbq_host_quota_halve,
	&dbq_result_activate, &dbq_seq_advance, &dbq_seq_deassign, &dbq_seq_state_uploaded,
	&dbq_seq_end, &dbq_seq_file_uploaded,
	&dbq_seq_flag_relocate, &dbq_seq_file_state_uploaded, &dbq_result_seq_retire, &dbq_wu_seq_retire_touch,
	&dbq_app_all, &dbq_wu_transition_mod, &dbq_wu_need_validate_mod, &dbq_wu_assimilate_mod,
	&dbq_wu_file_delete_mod, &dbq_result_file_delete_mod, &dbq_wu_lock,
	&dbq_result_by_workunit_lock, &dbq_wu_update_state, &dbq_result_update_state,
	&dbq_result_set_validate_why, &dbq_result_set_file_delete, &dbq_wu_unindexed,
	&dbq_wu_any_unindexed,
	&dbq_wu_set_indexed, &dbq_wu_file_add, &dbq_wu_file_others, &dbq_wu_file_drop,
	&dbq_job_file_expired_after, &dbq_job_file_lock, &dbq_bfa_live, &dbq_app_version_file,
	&dbq_bfa_drop_file,
	&dbq_wu_set_transition, &dbq_wu_segment_newest, &dbq_seq_lock, &dbq_seq_set_unvalidated,
	&dbq_seq_invalid, &dbq_seq_group_fail, &dbq_group_fail,
	&dbq_result_seq_host_failed, &dbq_result_group_user, &dbq_seq_lock_many,
	&dbq_seq_file_states_many[0], &dbq_seq_file_states_many[1], &dbq_seq_relocated, &dbq_job_status_batch, &dbq_job_file_lease_batch,
	&dbq_host_capacity, &dbq_host_median_speed, &dbq_batch_cpu_time,
	&dbq_result_chosen, &dbq_batch_by_name_lock, &dbq_batch_njobs, &dbq_bfa_drop_batch,
	&dbq_bfa_count_file, &dbq_bfa_count_user, &dbq_sweep_unsent, &dbq_sweep_send, &dbq_sweep_ticket,
	&dbq_sweep_returned, &dbq_sweep_result_judged, &dbq_sweep_wu_valid, &dbq_sweep_wu_invalid,
	&dbq_sweep_report, &dbq_sweep_tasks, &dbq_sweep_count_tasks, &dbq_sweep_count_running,
	&dbq_sweep_waiting, &dbq_sweep_ended,
	&dbq_seq_batch, &dbq_wu_segment_live,
	&dbq_wu_cancel, &dbq_wu_cancel_batch, &dbq_result_cancel_wu, &dbq_result_cancel_batch,
	&dbq_wu_touch_batch, &dbq_seq_cancel, &dbq_batch_lock, &dbq_batch_set_state,
	&dbq_seq_batch_active, &dbq_cancel_pick_range, &dbq_cancel_pick_name,
	&dbq_ops_result_states, &dbq_ops_wu_states, &dbq_ops_seq_states, &dbq_ops_batch_states,
	&dbq_ops_outcomes_since, &dbq_ops_errors_by_app, &dbq_ops_errors_by_host,
	&dbq_ops_host_counts, &dbq_host_versions_in_progress, &dbq_ops_batch_wu_counts, &dbq_ops_batch_result_counts,
	&dbq_ops_recent_errors, &dbq_ops_invalid_results, &dbq_ops_invalid_by_why,
	&dbq_ops_host_results, &dbq_ops_wu_results, &dbq_ops_hosts_recent,
	&dbq_ops_host_sequences, &dbq_ops_batches, &dbq_ops_batch_jobs, &dbq_ops_batch_lease,
	&dbq_ops_sequences, &dbq_ops_sequences_state, &dbq_ops_seq_segments, &dbq_ops_seq_files,
	&dbq_ops_versions, &dbq_ops_platforms,
	&dbq_seq_keep_candidates, &dbq_seq_keep_versions, &dbq_seq_keep_members, &dbq_seq_keep_mark,
	&dbq_seq_keep_done,
	&dbq_credit_lock[0], &dbq_credit_lock[1], &dbq_credit_lock[2],
	&dbq_credit_add[0], &dbq_credit_add[1], &dbq_credit_add[2],
	&dbq_credit_stale[0], &dbq_credit_stale[1], &dbq_credit_stale[2],
	&dbq_credit_decay[0], &dbq_credit_decay[1], &dbq_credit_decay[2],
	&dbq_user_team, &dbq_team_nusers, &dbq_user_lock, &dbq_host_lock, &dbq_user_set_passwd,
	&dbq_user_set_cpid, &dbq_user_set_global_prefs, &dbq_submit_app_revoke, &dbq_submit_revoke, &dbq_auth_attempt,
	&dbq_auth_attempt_undo, &dbq_credit_by_app, &dbq_credit_claimed,
	&dbq_web_user_results, &dbq_web_host_results, &dbq_web_team_members, &dbq_web_teams_by_rac,
	&dbq_web_team_search, &dbq_web_session_expired, &dbq_auth_throttle_old,
	&dbq_web_session_user,
	&dbq_mail_token_use, &dbq_mail_token_user, &dbq_mail_token_expired, &dbq_user_set_email,
	&dbq_user_erase, &dbq_host_erase, &dbq_user_send_email, &dbq_user_mailing,
	&dbq_news_recent, &dbq_news_list,
	&dbq_ops_admin_grant, &dbq_ops_admin_revoke,
	&dbq_stats_users, &dbq_stats_hosts, &dbq_stats_teams,
	&dbq_status_unsent, &dbq_status_in_progress, &dbq_status_result_file_delete,
	&dbq_status_wu_validate, &dbq_status_wu_assimilate, &dbq_status_wu_file_delete,
	&dbq_status_transition, &dbq_status_users_recent, &dbq_status_users_credit,
	&dbq_status_users_new, &dbq_status_hosts_recent, &dbq_status_hosts_credit,
	&dbq_status_hosts_new, &dbq_status_sequences, &dbq_status_rac, &dbq_status_apps,
	&dbq_status_versions,
	&dbq_status_in_progress_by_version,
	&dbq_purge_candidates, &dbq_purge_seq_segments, &dbq_purge_result_delete,
	&dbq_purge_wu_delete,
};
const size_t db_nqueries = ARRAY_SIZE(db_queries);

static int check_params(const struct db_query *q, size_t nvals)
{
	if (strlen(q->params) != nvals)
		return log_error("database error: query %s takes %zu values, %zu given",
				 q->name, strlen(q->params), nvals);
	return 0;
}

char *db_query_sql(const struct db_query *q)
{
	struct sbuf b = SBUF_INIT(65536);

	if (q->table) {
		sbuf_addstr(&b, "SELECT ");
		db_select_cols(q->table, &b);
		sbuf_addf(&b, " FROM `%s` %s", q->table->name, q->sql);
	} else {
		sbuf_addstr(&b, q->sql);
	}
	return sbuf_detach(&b, NULL);
}

int db_query_exec(struct db *db, const struct db_query *q, const struct db_val *vals,
		  size_t nvals, int64_t *affected)
{
	if (check_params(q, nvals) < 0)
		return DB_ERROR;
	if (q->table)
		return log_error("database error: query %s returns rows", q->name);
	return db_exec(db, q->sql, vals, nvals, affected);
}

int db_query_rows(struct db *db, const struct db_query *q, const struct db_val *vals,
		  size_t nvals, db_row_fn fn, void *arg)
{
	if (check_params(q, nvals) < 0)
		return DB_ERROR;
	if (!q->table)
		return log_error("database error: query %s returns no rows", q->name);
	return db_rec_enum(db, q->table, q->sql, vals, nvals, fn, arg);
}

#define EXPLAIN_COLS 16
#define EXPLAIN_COL_MAX 1024

int db_query_explain(struct db *db, const struct db_query *q,
		     int (*fn)(const char *table, const char *type, const char *key,
			       const char *extra, void *arg), void *arg)
{
	size_t n = strlen(q->params), i;
	struct db_val *vals = xcalloc(n + 1, sizeof(*vals));
	char *body = db_query_sql(q), *sql = xasprintf("EXPLAIN %s", body);
	char (*buf)[EXPLAIN_COL_MAX] = xcalloc(EXPLAIN_COLS, EXPLAIN_COL_MAX);
	MYSQL_BIND b[EXPLAIN_COLS];
	unsigned long len[EXPLAIN_COLS];
	my_bool is_null[EXPLAIN_COLS];
	int col_table = -1, col_type = -1, col_key = -1, col_extra = -1;
	struct db_stmt *s = NULL;
	MYSQL_RES *meta = NULL;
	unsigned nf;
	int rc;

	for (i = 0; i < n; i++) {
		switch (q->params[i]) {
		case 'i': vals[i] = DBV_INT(1); break;
		case 'd': vals[i] = DBV_DBL(1.0); break;
		default: vals[i] = DBV_STR("x"); break;
		}
	}
	rc = db_stmt_get(db, sql, &s);
	if (rc == DB_OK)
		rc = db_stmt_execute(db, &s, sql, vals, n);
	if (rc != DB_OK)
		goto out;
	if (mysql_stmt_store_result(s->stmt) || !(meta = mysql_stmt_result_metadata(s->stmt))) {
		rc = db_fail_(db, s->stmt, sql);
		db_stmt_evict(db, s);
		goto out;
	}
	nf = mysql_num_fields(meta);
	if (nf > EXPLAIN_COLS) {
		rc = log_error("database error: EXPLAIN returned %u columns", nf);
		goto out;
	}
	memset(b, 0, sizeof(b));
	for (i = 0; i < nf; i++) {
		const char *name = mysql_fetch_field_direct(meta, (unsigned)i)->name;

		if (strcasecmp(name, "table") == 0)
			col_table = (int)i;
		else if (strcasecmp(name, "type") == 0)
			col_type = (int)i;
		else if (strcasecmp(name, "key") == 0)
			col_key = (int)i;
		else if (strcasecmp(name, "extra") == 0)
			col_extra = (int)i;
		b[i].buffer_type = MYSQL_TYPE_STRING;
		b[i].buffer = buf[i];
		b[i].buffer_length = EXPLAIN_COL_MAX - 1;
		b[i].length = &len[i];
		b[i].is_null = &is_null[i];
	}
	if (col_table < 0 || col_type < 0 || mysql_stmt_bind_result(s->stmt, b)) {
		rc = log_error("database error: unexpected EXPLAIN output for %s", q->name);
		goto out;
	}
	for (;;) {
		int r = mysql_stmt_fetch(s->stmt);
		const char *f[4];
		int cols[4] = { col_table, col_type, col_key, col_extra };

		if (r == MYSQL_NO_DATA)
			break;
		if (r == 1) {
			rc = db_fail_(db, s->stmt, sql);
			break;
		}
		for (i = 0; i < 4; i++) {
			int c = cols[i];

			if (c < 0 || is_null[c]) {
				f[i] = NULL;
				continue;
			}
			buf[c][len[c] < EXPLAIN_COL_MAX ? len[c] : EXPLAIN_COL_MAX - 1] = '\0';
			f[i] = buf[c];
		}
		if (fn(f[0], f[1], f[2], f[3], arg) != 0)
			break;
	}
out:
	if (meta)
		mysql_free_result(meta);
	db_stmt_release(db, s);
	free(buf);
	free(sql);
	free(body);
	free(vals);
	return rc;
}

int db_batch_vals(struct db_val *v, const int64_t *ids, size_t n)
{
	size_t i;

	if (n < 1 || n > DB_SEQ_BATCH)
		return log_error("database error: a batch of %zu sequences", n);
	for (i = 0; i < DB_SEQ_BATCH; i++)
		v[i] = DBV_INT(ids[i < n ? i : 0]);
	return 0;
}
