/*
 * Each table described once: its columns in schema order, with their types,
 * where they live in the record struct, and their role (id, key, unique,
 * server-kept timestamp). The generic operations of db_rec.c do the rest;
 * the typed wrappers at the end only fix the table and the record type.
 */
#include "db_records.h"
#include "db_queries.h"
#include "db_sched.h"
#include "log.h"
#include "xml_write.h"

#include <stddef.h>

#define COL(T, f, type, flags) { #f, type, offsetof(struct db_##T, f), flags }
#define TABLE(T) { #T, sizeof(struct db_##T), T##_cols, ARRAY_SIZE(T##_cols), false }

static const struct db_column platform_cols[] = {
	COL(platform, id, DB_T_I64, DB_COL_ID),
	COL(platform, create_time, DB_T_I64, 0),
	COL(platform, name, DB_T_STR, DB_COL_UNIQUE),
	COL(platform, user_friendly_name, DB_T_STR, 0),
	COL(platform, deprecated, DB_T_INT, 0),
};
const struct db_table db_platform_table = TABLE(platform);

static const struct db_column app_cols[] = {
	COL(app, id, DB_T_I64, DB_COL_ID),
	COL(app, create_time, DB_T_I64, 0),
	COL(app, name, DB_T_STR, DB_COL_UNIQUE),
	COL(app, min_version, DB_T_INT, 0),
	COL(app, deprecated, DB_T_INT, 0),
	COL(app, user_friendly_name, DB_T_STR, 0),
	COL(app, homogeneous_redundancy, DB_T_INT, 0),
	COL(app, weight, DB_T_DOUBLE, 0),
	COL(app, beta, DB_T_INT, 0),
	COL(app, target_nresults, DB_T_INT, 0),
	COL(app, trust_after, DB_T_INT, 0),
	COL(app, spot_check, DB_T_DOUBLE, 0),
	COL(app, min_avg_pfc, DB_T_DOUBLE, 0),
	COL(app, host_scale_check, DB_T_INT, 0),
	COL(app, homogeneous_app_version, DB_T_INT, 0),
	COL(app, non_cpu_intensive, DB_T_INT, 0),
	COL(app, locality_scheduling, DB_T_INT, 0),
	COL(app, n_size_classes, DB_T_INT, 0),
	COL(app, fraction_done_exact, DB_T_INT, 0),
	COL(app, keywords, DB_T_STR, 0),
	COL(app, is_seq_app, DB_T_INT, 0),
	COL(app, any_executable, DB_T_INT, 0),
};
const struct db_table db_app_table = TABLE(app);

static const struct db_column app_version_cols[] = {
	COL(app_version, id, DB_T_I64, DB_COL_ID),
	COL(app_version, create_time, DB_T_I64, 0),
	COL(app_version, appid, DB_T_I64, 0),
	COL(app_version, version_num, DB_T_INT, 0),
	COL(app_version, platformid, DB_T_I64, 0),
	COL(app_version, xml_doc, DB_T_STR, 0),
	COL(app_version, min_core_version, DB_T_INT, 0),
	COL(app_version, max_core_version, DB_T_INT, 0),
	COL(app_version, deprecated, DB_T_INT, 0),
	COL(app_version, plan_class, DB_T_STR, 0),
	COL(app_version, pfc_n, DB_T_DOUBLE, 0),
	COL(app_version, pfc_avg, DB_T_DOUBLE, 0),
	COL(app_version, pfc_scale, DB_T_DOUBLE, 0),
	COL(app_version, expavg_credit, DB_T_DOUBLE, 0),
	COL(app_version, expavg_time, DB_T_DOUBLE, 0),
	COL(app_version, beta, DB_T_INT, 0),
};
const struct db_table db_app_version_table = TABLE(app_version);

static const struct db_column user_cols[] = {
	COL(user, id, DB_T_I64, DB_COL_ID),
	COL(user, create_time, DB_T_I64, 0),
	COL(user, email_addr, DB_T_STR, DB_COL_UNIQUE),
	COL(user, name, DB_T_STR, 0),
	COL(user, authenticator, DB_T_STR, DB_COL_UNIQUE),
	COL(user, country, DB_T_STR, 0),
	COL(user, postal_code, DB_T_STR, 0),
	COL(user, total_credit, DB_T_DOUBLE, 0),
	COL(user, expavg_credit, DB_T_DOUBLE, 0),
	COL(user, expavg_time, DB_T_DOUBLE, 0),
	COL(user, global_prefs, DB_T_STR, 0),
	COL(user, project_prefs, DB_T_STR, 0),
	COL(user, teamid, DB_T_I64, 0),
	COL(user, venue, DB_T_STR, 0),
	COL(user, url, DB_T_STR, 0),
	COL(user, send_email, DB_T_INT, 0),
	COL(user, show_hosts, DB_T_INT, 0),
	COL(user, posts, DB_T_INT, 0),
	COL(user, seti_id, DB_T_INT, 0),
	COL(user, seti_nresults, DB_T_INT, 0),
	COL(user, seti_last_result_time, DB_T_INT, 0),
	COL(user, seti_total_cpu, DB_T_DOUBLE, 0),
	COL(user, signature, DB_T_STR, 0),
	COL(user, has_profile, DB_T_INT, 0),
	COL(user, cross_project_id, DB_T_STR, 0),
	COL(user, passwd_hash, DB_T_STR, 0),
	COL(user, email_validated, DB_T_INT, 0),
	COL(user, donated, DB_T_INT, 0),
	COL(user, login_token, DB_T_STR, 0),
	COL(user, login_token_time, DB_T_DOUBLE, 0),
	COL(user, previous_email_addr, DB_T_STR, 0),
	COL(user, email_addr_change_time, DB_T_DOUBLE, 0),
};
const struct db_table db_user_table = TABLE(user);

static const struct db_column team_cols[] = {
	COL(team, id, DB_T_I64, DB_COL_ID),
	COL(team, create_time, DB_T_I64, 0),
	COL(team, userid, DB_T_I64, 0),
	COL(team, name, DB_T_STR, 0),
	COL(team, name_lc, DB_T_STR, DB_COL_UNIQUE),
	COL(team, url, DB_T_STR, 0),
	COL(team, type, DB_T_INT, 0),
	COL(team, name_html, DB_T_STR, 0),
	COL(team, description, DB_T_STR, 0),
	COL(team, nusers, DB_T_INT, 0),
	COL(team, country, DB_T_STR, 0),
	COL(team, total_credit, DB_T_DOUBLE, 0),
	COL(team, expavg_credit, DB_T_DOUBLE, 0),
	COL(team, expavg_time, DB_T_DOUBLE, 0),
	COL(team, seti_id, DB_T_INT, 0),
	COL(team, ping_user, DB_T_I64, 0),
	COL(team, ping_time, DB_T_I64, 0),
	COL(team, joinable, DB_T_INT, 0),
};
const struct db_table db_team_table = TABLE(team);

static const struct db_column web_session_cols[] = {
	COL(web_session, id, DB_T_I64, DB_COL_ID),
	COL(web_session, token_hash, DB_T_STR, DB_COL_UNIQUE),
	COL(web_session, userid, DB_T_I64, 0),
	COL(web_session, create_time, DB_T_I64, 0),
	COL(web_session, expire_time, DB_T_I64, 0),
};
const struct db_table db_web_session_table = TABLE(web_session);

static const struct db_column mail_token_cols[] = {
	COL(mail_token, id, DB_T_I64, DB_COL_ID),
	COL(mail_token, token_hash, DB_T_STR, DB_COL_UNIQUE),
	COL(mail_token, userid, DB_T_I64, 0),
	COL(mail_token, kind, DB_T_INT, 0),
	COL(mail_token, create_time, DB_T_I64, 0),
	COL(mail_token, expire_time, DB_T_I64, 0),
	COL(mail_token, used_time, DB_T_I64, 0),
	COL(mail_token, data, DB_T_STR, 0),
};
const struct db_table db_mail_token_table = TABLE(mail_token);

static const struct db_column news_cols[] = {
	COL(news, id, DB_T_I64, DB_COL_ID),
	COL(news, create_time, DB_T_I64, 0),
	COL(news, mod_time, DB_T_I64, 0),
	COL(news, title, DB_T_STR, 0),
	COL(news, text, DB_T_STR, 0),
	COL(news, author, DB_T_STR, 0),
	COL(news, withdrawn, DB_T_INT, 0),
};
const struct db_table db_news_table = TABLE(news);

static const struct db_column assignment_cols[] = {
	COL(assignment, id, DB_T_I64, DB_COL_ID),
	COL(assignment, create_time, DB_T_I64, 0),
	COL(assignment, target_id, DB_T_I64, 0),
	COL(assignment, target_type, DB_T_INT, 0),
	COL(assignment, multi, DB_T_INT, 0),
	COL(assignment, workunitid, DB_T_I64, 0),
	COL(assignment, resultid, DB_T_I64, 0),
};
const struct db_table db_assignment_table = TABLE(assignment);

static const struct db_column host_cols[] = {
	COL(host, id, DB_T_I64, DB_COL_ID),
	COL(host, create_time, DB_T_I64, 0),
	COL(host, userid, DB_T_I64, 0),
	COL(host, rpc_seqno, DB_T_INT, 0),
	COL(host, rpc_time, DB_T_I64, 0),
	COL(host, total_credit, DB_T_DOUBLE, 0),
	COL(host, expavg_credit, DB_T_DOUBLE, 0),
	COL(host, expavg_time, DB_T_DOUBLE, 0),
	COL(host, timezone, DB_T_INT, 0),
	COL(host, domain_name, DB_T_STR, 0),
	COL(host, serialnum, DB_T_STR, 0),
	COL(host, last_ip_addr, DB_T_STR, 0),
	COL(host, nsame_ip_addr, DB_T_INT, 0),
	COL(host, on_frac, DB_T_DOUBLE, 0),
	COL(host, connected_frac, DB_T_DOUBLE, 0),
	COL(host, active_frac, DB_T_DOUBLE, 0),
	COL(host, cpu_efficiency, DB_T_DOUBLE, 0),
	COL(host, duration_correction_factor, DB_T_DOUBLE, 0),
	COL(host, p_ncpus, DB_T_INT, 0),
	COL(host, p_vendor, DB_T_STR, 0),
	COL(host, p_model, DB_T_STR, 0),
	COL(host, p_fpops, DB_T_DOUBLE, 0),
	COL(host, p_iops, DB_T_DOUBLE, 0),
	COL(host, p_membw, DB_T_DOUBLE, 0),
	COL(host, os_name, DB_T_STR, 0),
	COL(host, os_version, DB_T_STR, 0),
	COL(host, m_nbytes, DB_T_DOUBLE, 0),
	COL(host, m_cache, DB_T_DOUBLE, 0),
	COL(host, m_swap, DB_T_DOUBLE, 0),
	COL(host, d_total, DB_T_DOUBLE, 0),
	COL(host, d_free, DB_T_DOUBLE, 0),
	COL(host, d_boinc_used_total, DB_T_DOUBLE, 0),
	COL(host, d_boinc_used_project, DB_T_DOUBLE, 0),
	COL(host, d_boinc_max, DB_T_DOUBLE, 0),
	COL(host, n_bwup, DB_T_DOUBLE, 0),
	COL(host, n_bwdown, DB_T_DOUBLE, 0),
	COL(host, credit_per_cpu_sec, DB_T_DOUBLE, 0),
	COL(host, venue, DB_T_STR, 0),
	COL(host, nresults_today, DB_T_INT, 0),
	COL(host, avg_turnaround, DB_T_DOUBLE, 0),
	COL(host, host_cpid, DB_T_STR, 0),
	COL(host, external_ip_addr, DB_T_STR, 0),
	COL(host, max_results_day, DB_T_INT, 0),
	COL(host, error_rate, DB_T_DOUBLE, 0),
	COL(host, product_name, DB_T_STR, 0),
	COL(host, gpu_active_frac, DB_T_DOUBLE, 0),
	COL(host, p_ngpus, DB_T_INT, 0),
	COL(host, p_gpu_fpops, DB_T_DOUBLE, 0),
	COL(host, misc, DB_T_STR, 0),
};
const struct db_table db_host_table = TABLE(host);

static const struct db_column workunit_cols[] = {
	COL(workunit, id, DB_T_I64, DB_COL_ID),
	COL(workunit, create_time, DB_T_I64, 0),
	COL(workunit, appid, DB_T_I64, 0),
	COL(workunit, name, DB_T_STR, DB_COL_UNIQUE),
	COL(workunit, xml_doc, DB_T_STR, 0),
	COL(workunit, batch, DB_T_I64, 0),
	COL(workunit, rsc_fpops_est, DB_T_DOUBLE, 0),
	COL(workunit, rsc_fpops_bound, DB_T_DOUBLE, 0),
	COL(workunit, rsc_memory_bound, DB_T_DOUBLE, 0),
	COL(workunit, rsc_disk_bound, DB_T_DOUBLE, 0),
	COL(workunit, need_validate, DB_T_INT, 0),
	COL(workunit, canonical_resultid, DB_T_I64, 0),
	COL(workunit, canonical_credit, DB_T_DOUBLE, 0),
	COL(workunit, transition_time, DB_T_I64, 0),
	COL(workunit, delay_bound, DB_T_INT, 0),
	COL(workunit, error_mask, DB_T_INT, 0),
	COL(workunit, file_delete_state, DB_T_INT, 0),
	COL(workunit, assimilate_state, DB_T_INT, 0),
	COL(workunit, hr_class, DB_T_INT, 0),
	COL(workunit, opaque, DB_T_DOUBLE, 0),
	COL(workunit, min_quorum, DB_T_INT, 0),
	COL(workunit, target_nresults, DB_T_INT, 0),
	COL(workunit, max_error_results, DB_T_INT, 0),
	COL(workunit, max_total_results, DB_T_INT, 0),
	COL(workunit, max_success_results, DB_T_INT, 0),
	COL(workunit, result_template_file, DB_T_STR, 0),
	COL(workunit, priority, DB_T_INT, 0),
	COL(workunit, mod_time, DB_T_I64, DB_COL_MODTIME),
	COL(workunit, rsc_bandwidth_bound, DB_T_DOUBLE, 0),
	COL(workunit, fileset_id, DB_T_I64, 0),
	COL(workunit, app_version_id, DB_T_I64, 0),
	COL(workunit, transitioner_flags, DB_T_INT, 0),
	COL(workunit, size_class, DB_T_INT, 0),
	COL(workunit, keywords, DB_T_STR, 0),
	COL(workunit, app_version_num, DB_T_INT, 0),
	COL(workunit, seq_id, DB_T_I64, 0),
	COL(workunit, seqno, DB_T_INT, 0),
	COL(workunit, branch, DB_T_INT, 0),
	COL(workunit, files_indexed, DB_T_INT, 0),
};
const struct db_table db_workunit_table = TABLE(workunit);
const struct db_table db_workunit_joined = {
	"workunit", sizeof(struct db_workunit), workunit_cols, ARRAY_SIZE(workunit_cols), true
};

static const struct db_column result_cols[] = {
	COL(result, id, DB_T_I64, DB_COL_ID),
	COL(result, create_time, DB_T_I64, 0),
	COL(result, workunitid, DB_T_I64, 0),
	COL(result, server_state, DB_T_INT, 0),
	COL(result, outcome, DB_T_INT, 0),
	COL(result, client_state, DB_T_INT, 0),
	COL(result, hostid, DB_T_I64, 0),
	COL(result, userid, DB_T_I64, 0),
	COL(result, report_deadline, DB_T_I64, 0),
	COL(result, sent_time, DB_T_I64, 0),
	COL(result, received_time, DB_T_I64, 0),
	COL(result, name, DB_T_STR, DB_COL_UNIQUE),
	COL(result, cpu_time, DB_T_DOUBLE, 0),
	COL(result, xml_doc_in, DB_T_STR, 0),
	COL(result, xml_doc_out, DB_T_STR, 0),
	COL(result, stderr_out, DB_T_STR, 0),
	COL(result, batch, DB_T_I64, 0),
	COL(result, file_delete_state, DB_T_INT, 0),
	COL(result, validate_state, DB_T_INT, 0),
	COL(result, validate_why, DB_T_INT, 0),
	COL(result, claimed_credit, DB_T_DOUBLE, 0),
	COL(result, granted_credit, DB_T_DOUBLE, 0),
	COL(result, opaque, DB_T_DOUBLE, 0),
	COL(result, random, DB_T_INT, 0),
	COL(result, app_version_num, DB_T_INT, 0),
	COL(result, appid, DB_T_I64, 0),
	COL(result, exit_status, DB_T_INT, 0),
	COL(result, teamid, DB_T_I64, 0),
	COL(result, priority, DB_T_INT, 0),
	COL(result, mod_time, DB_T_I64, DB_COL_MODTIME),
	COL(result, elapsed_time, DB_T_DOUBLE, 0),
	COL(result, flops_estimate, DB_T_DOUBLE, 0),
	COL(result, app_version_id, DB_T_I64, 0),
	COL(result, runtime_outlier, DB_T_INT, 0),
	COL(result, size_class, DB_T_INT, 0),
	COL(result, peak_working_set_size, DB_T_DOUBLE, 0),
	COL(result, peak_swap_size, DB_T_DOUBLE, 0),
	COL(result, peak_disk_usage, DB_T_DOUBLE, 0),
	COL(result, seq_id, DB_T_I64, 0),
	COL(result, lease_until, DB_T_I64, 0),
};
const struct db_table db_result_table = TABLE(result);

static const struct db_column batch_cols[] = {
	COL(batch, id, DB_T_I64, DB_COL_ID),
	COL(batch, user_id, DB_T_I64, 0),
	COL(batch, create_time, DB_T_I64, 0),
	COL(batch, logical_start_time, DB_T_DOUBLE, 0),
	COL(batch, logical_end_time, DB_T_DOUBLE, 0),
	COL(batch, est_completion_time, DB_T_DOUBLE, 0),
	COL(batch, njobs, DB_T_INT, 0),
	COL(batch, fraction_done, DB_T_DOUBLE, 0),
	COL(batch, nerror_jobs, DB_T_INT, 0),
	COL(batch, state, DB_T_INT, 0),
	COL(batch, completion_time, DB_T_DOUBLE, 0),
	COL(batch, credit_estimate, DB_T_DOUBLE, 0),
	COL(batch, credit_canonical, DB_T_DOUBLE, 0),
	COL(batch, credit_total, DB_T_DOUBLE, 0),
	COL(batch, name, DB_T_STR, 0),
	COL(batch, app_id, DB_T_I64, 0),
	COL(batch, project_state, DB_T_INT, 0),
	COL(batch, description, DB_T_STR, 0),
	COL(batch, expire_time, DB_T_DOUBLE, 0),
};
const struct db_table db_batch_table = TABLE(batch);

static const struct db_column job_file_cols[] = {
	COL(job_file, id, DB_T_I64, DB_COL_ID),
	COL(job_file, name, DB_T_STR, DB_COL_UNIQUE),
	COL(job_file, create_time, DB_T_DOUBLE, 0),
	COL(job_file, delete_time, DB_T_DOUBLE, 0),
};
const struct db_table db_job_file_table = TABLE(job_file);

static const struct db_column batch_file_assoc_cols[] = {
	COL(batch_file_assoc, job_file_id, DB_T_I64, DB_COL_KEY),
	COL(batch_file_assoc, batch_id, DB_T_I64, DB_COL_KEY),
};
const struct db_table db_batch_file_assoc_table = TABLE(batch_file_assoc);

static const struct db_column user_submit_cols[] = {
	COL(user_submit, user_id, DB_T_I64, DB_COL_KEY),
	COL(user_submit, quota, DB_T_DOUBLE, 0),
	COL(user_submit, logical_start_time, DB_T_DOUBLE, 0),
	COL(user_submit, submit_all, DB_T_INT, 0),
	COL(user_submit, manage_all, DB_T_INT, 0),
	COL(user_submit, max_jobs_in_progress, DB_T_INT, 0),
	COL(user_submit, any_executable, DB_T_INT, 0),
};
const struct db_table db_user_submit_table = TABLE(user_submit);

static const struct db_column user_submit_app_cols[] = {
	COL(user_submit_app, user_id, DB_T_I64, DB_COL_KEY),
	COL(user_submit_app, app_id, DB_T_I64, DB_COL_KEY),
	COL(user_submit_app, manage, DB_T_INT, 0),
};
const struct db_table db_user_submit_app_table = TABLE(user_submit_app);

static const struct db_column sequence_cols[] = {
	COL(sequence, id, DB_T_I64, DB_COL_ID),
	COL(sequence, create_time, DB_T_I64, 0),
	COL(sequence, name, DB_T_STR, DB_COL_UNIQUE),
	COL(sequence, appid, DB_T_I64, 0),
	COL(sequence, userid, DB_T_I64, 0),
	COL(sequence, batch, DB_T_I64, 0),
	COL(sequence, groupid, DB_T_I64, 0),
	COL(sequence, is_master, DB_T_INT, 0),
	COL(sequence, hostid, DB_T_I64, 0),
	COL(sequence, assign_time, DB_T_I64, 0),
	COL(sequence, max_result_time, DB_T_DOUBLE, 0),
	COL(sequence, first_unvalidated_seqno, DB_T_INT, 0),
	COL(sequence, first_unsent_seqno, DB_T_INT, 0),
	COL(sequence, nsegments, DB_T_INT, 0),
	COL(sequence, target_nsegments, DB_T_INT, 0),
	COL(sequence, answer_every, DB_T_INT, 0),
	COL(sequence, state_upload_every, DB_T_INT, 0),
	COL(sequence, high_water, DB_T_INT, 0),
	COL(sequence, branch, DB_T_INT, 0),
	COL(sequence, last_state_seqno, DB_T_INT, 0),
	COL(sequence, state, DB_T_INT, 0),
	COL(sequence, need_relocate, DB_T_INT, 0),
	COL(sequence, nrelocations, DB_T_INT, 0),
	COL(sequence, error_msg, DB_T_STR, 0),
	COL(sequence, wu_template, DB_T_STR, 0),
	COL(sequence, result_template_file, DB_T_STR, 0),
	COL(sequence, rsc_fpops_est, DB_T_DOUBLE, 0),
	COL(sequence, rsc_fpops_bound, DB_T_DOUBLE, 0),
	COL(sequence, rsc_memory_bound, DB_T_DOUBLE, 0),
	COL(sequence, rsc_disk_bound, DB_T_DOUBLE, 0),
	COL(sequence, delay_bound, DB_T_INT, 0),
	COL(sequence, priority, DB_T_INT, 0),
	COL(sequence, opaque, DB_T_DOUBLE, 0),
	COL(sequence, command_line, DB_T_STR, 0),
	COL(sequence, mod_time, DB_T_I64, DB_COL_MODTIME),
};
const struct db_table db_sequence_table = TABLE(sequence);

static const struct db_column sequence_group_cols[] = {
	COL(sequence_group, id, DB_T_I64, DB_COL_ID),
	COL(sequence_group, create_time, DB_T_I64, 0),
	COL(sequence_group, name, DB_T_STR, DB_COL_UNIQUE),
	COL(sequence_group, master_seqid, DB_T_I64, 0),
	COL(sequence_group, nmembers, DB_T_INT, 0),
	COL(sequence_group, min_quorum, DB_T_INT, 0),
	COL(sequence_group, state, DB_T_INT, 0),
	COL(sequence_group, mod_time, DB_T_I64, DB_COL_MODTIME),
};
const struct db_table db_sequence_group_table = TABLE(sequence_group);

static const struct db_column seq_file_cols[] = {
	COL(seq_file, id, DB_T_I64, DB_COL_ID),
	COL(seq_file, create_time, DB_T_I64, 0),
	COL(seq_file, name, DB_T_STR, DB_COL_UNIQUE),
	COL(seq_file, seq_id, DB_T_I64, 0),
	COL(seq_file, branch, DB_T_INT, 0),
	COL(seq_file, seqno, DB_T_INT, 0),
	COL(seq_file, kind, DB_T_INT, 0),
	COL(seq_file, upload, DB_T_INT, 0),
	COL(seq_file, uploaded, DB_T_INT, 0),
	COL(seq_file, upload_time, DB_T_I64, 0),
	COL(seq_file, nbytes, DB_T_DOUBLE, 0),
	COL(seq_file, md5_cksum, DB_T_STR, 0),
	COL(seq_file, file_delete_state, DB_T_INT, 0),
};
const struct db_table db_seq_file_table = TABLE(seq_file);

static const struct db_column schema_version_cols[] = {
	COL(schema_version, version, DB_T_INT, DB_COL_KEY),
	COL(schema_version, applied_time, DB_T_I64, 0),
	COL(schema_version, description, DB_T_STR, 0),
};
const struct db_table db_schema_version_table = TABLE(schema_version);
const struct db_table *const db_all_tables[] = {
	&db_platform_table, &db_app_table, &db_app_version_table, &db_user_table,
	&db_host_table, &db_team_table, &db_workunit_table, &db_result_table, &db_batch_table,
	&db_job_file_table, &db_batch_file_assoc_table, &db_user_submit_table,
	&db_user_submit_app_table, &db_sequence_table, &db_sequence_group_table,
	&db_seq_file_table, &db_schema_version_table, &db_web_session_table, &db_assignment_table,
	&db_host_app_version_table, &db_mail_token_table, &db_news_table,
};
const size_t db_ntables = ARRAY_SIZE(db_all_tables);

/* ---- typed wrappers ------------------------------------------------------ */

#define DB_RECORD_COMMON_IMPL(T)                                                         \
	int db_##T##_insert(struct db *db, struct db_##T *r)                             \
	{                                                                                \
		return db_rec_insert(db, &db_##T##_table, r);                            \
	}                                                                                \
	int db_##T##_update(struct db *db, const struct db_##T *r)                       \
	{                                                                                \
		return db_rec_update(db, &db_##T##_table, r);                            \
	}                                                                                \
	int db_##T##_lookup(struct db *db, struct db_##T *r)                             \
	{                                                                                \
		return db_rec_lookup(db, &db_##T##_table, r);                            \
	}                                                                                \
	int db_##T##_delete(struct db *db, const struct db_##T *r)                       \
	{                                                                                \
		return db_rec_delete(db, &db_##T##_table, r);                            \
	}                                                                                \
	struct T##_enum_ctx {                                                            \
		int (*fn)(struct db_##T *, void *);                                      \
		void *arg;                                                               \
	};                                                                               \
	static int T##_enum_cb(void *rec, void *arg)                                     \
	{                                                                                \
		struct T##_enum_ctx *c = arg;                                            \
		return c->fn(rec, c->arg);                                               \
	}                                                                                \
	int db_##T##_enum(struct db *db, const char *tail, const struct db_val *vals,     \
			  size_t nvals, int (*fn)(struct db_##T *, void *), void *arg)   \
	{                                                                                \
		struct T##_enum_ctx c = { fn, arg };                                     \
		return db_rec_enum(db, &db_##T##_table, tail, vals, nvals, T##_enum_cb, &c); \
	}                                                                                \
	int db_##T##_count(struct db *db, const char *tail, const struct db_val *vals,    \
			   size_t nvals, int64_t *count)                                 \
	{                                                                                \
		return db_rec_count(db, &db_##T##_table, tail, vals, nvals, count);      \
	}                                                                                \
	int db_##T##_query(struct db *db, const struct db_query *q,                      \
			   const struct db_val *vals, size_t nvals,                      \
			   int (*fn)(struct db_##T *, void *), void *arg)                \
	{                                                                                \
		struct T##_enum_ctx c = { fn, arg };                                     \
		/* the table's own columns (db_workunit_joined's too) */               \
		if (!q->table || q->table->cols != db_##T##_table.cols)                  \
			return log_error("database error: query %s does not return %s rows", \
					 q->name, #T);                                   \
		return db_query_rows(db, q, vals, nvals, T##_enum_cb, &c);               \
	}                                                                                \
	void db_##T##_release(struct db_##T *r)                                             \
	{                                                                                \
		db_rec_release(&db_##T##_table, r);                                         \
	}
#define DB_ID_RECORD_IMPL(T)                                                             \
	DB_RECORD_COMMON_IMPL(T)                                                         \
	int db_##T##_lookup_id(struct db *db, int64_t id, struct db_##T *r)              \
	{                                                                                \
		return db_rec_lookup_id(db, &db_##T##_table, id, r);                     \
	}
#define DB_NAMED_RECORD_IMPL(T)                                                          \
	DB_ID_RECORD_IMPL(T)                                                             \
	int db_##T##_lookup_name(struct db *db, const char *name, struct db_##T *r)      \
	{                                                                                \
		return db_rec_lookup_by(db, &db_##T##_table, "name", name, r);           \
	}

DB_NAMED_RECORD_IMPL(platform)
DB_NAMED_RECORD_IMPL(app)
DB_ID_RECORD_IMPL(app_version)
DB_ID_RECORD_IMPL(user)
DB_ID_RECORD_IMPL(host)
DB_ID_RECORD_IMPL(team)
DB_ID_RECORD_IMPL(web_session)
DB_ID_RECORD_IMPL(mail_token)
DB_ID_RECORD_IMPL(news)
DB_ID_RECORD_IMPL(assignment)
DB_NAMED_RECORD_IMPL(workunit)
DB_NAMED_RECORD_IMPL(result)
DB_ID_RECORD_IMPL(batch)
DB_NAMED_RECORD_IMPL(job_file)
DB_RECORD_COMMON_IMPL(batch_file_assoc)
DB_RECORD_COMMON_IMPL(user_submit)
DB_RECORD_COMMON_IMPL(user_submit_app)
DB_NAMED_RECORD_IMPL(sequence)
DB_NAMED_RECORD_IMPL(sequence_group)
DB_NAMED_RECORD_IMPL(seq_file)

int db_user_lookup_auth(struct db *db, const char *authenticator, struct db_user *r)
{
	return db_rec_lookup_by(db, &db_user_table, "authenticator", authenticator, r);
}

int db_user_lookup_email(struct db *db, const char *email_addr, struct db_user *r)
{
	return db_rec_lookup_by(db, &db_user_table, "email_addr", email_addr, r);
}

const char *wu_error_name(int bit)
{
	switch (bit) {
	case WU_ERROR_COULDNT_SEND_RESULT:
		return "couldnt_send_result";
	case WU_ERROR_TOO_MANY_ERROR_RESULTS:
		return "too_many_error_results";
	case WU_ERROR_TOO_MANY_SUCCESS_RESULTS:
		return "too_many_success_results";
	case WU_ERROR_TOO_MANY_TOTAL_RESULTS:
		return "too_many_total_results";
	case WU_ERROR_CANCELLED:
		return "cancelled";
	case WU_ERROR_NO_CANONICAL_RESULT:
		return "no_canonical_result";
	default:
		return NULL;
	}
}

int db_result_list_take(struct db_result *r, void *arg)
{
	struct db_result_list *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, 0);

	return db_rows_take(r, &rows);
}

void db_result_list_release(struct db_result_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		db_result_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void db_row_xml(struct sbuf *b, const struct db_table *t, const void *row, int indent,
		const char *const *omit)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		const struct db_column *c = &t->cols[i];
		const char *f = (const char *)row + c->offset;
		const char *const *o;

		for (o = omit; o && *o && strcmp(*o, c->name); o++)
			;
		if (o && *o)
			continue;
		switch (c->type) {
		case DB_T_INT:
			xml_elem_i64(b, indent, c->name, *(const int *)(const void *)f);
			break;
		case DB_T_I64:
			xml_elem_i64(b, indent, c->name, *(const int64_t *)(const void *)f);
			break;
		case DB_T_DOUBLE:
			xml_elem_f(b, indent, c->name, *(const double *)(const void *)f);
			break;
		case DB_T_STR:
			xml_elem_str(b, indent, c->name, *(char *const *)(const void *)f);
			break;
		}
	}
}
