/*
 * Every element a <config> section may hold, by whom it is read: the
 * settings some wseq program reads, and upstream BOINC's that wseq does not
 * implement. config_load() records each element that is not a wseq setting,
 * so every daemon (at start), the web programs (when they read config.xml)
 * and `wseq_config --check` name it as a warning: an option copied from an
 * upstream project is never ignored in silence.
 *
 * A program's parameter table is the truth about what it reads; the list
 * below must hold each of its names, and config_names_check() (called by the
 * daemon skeleton and the web programs' loop at start) refuses to run a
 * program whose table has a name missing here, so the list cannot drift.
 */
#include "config.h"
#include "log.h"

/* Read by some wseq program (in alphabetical order, for the reader). */
static const char *const wseq_names[] = {
	"app",                          /* validator, assimilator: the app they handle */
	"app_dir",
	"archive_dir",                  /* db_purge */
	"batch",                        /* daemons: rows per pass */
	"cgi_url",
	"check_arg",                    /* validator */
	"check_cmd",                    /* validator */
	"check_plugin",                 /* validator */
	"cmd_timeout",                  /* validator */
	"compare_cmd",                  /* validator */
	"credit",                       /* validator */
	"credit_rule",                  /* validator */
	"credit_speed_factor",          /* validator */
	"daily_dir",                    /* db_purge */
	"daily_result_quota",
	"db_host",
	"db_name",
	"db_passwd",
	"db_port",
	"db_socket",
	"db_user",
	"disable_account_creation",
	"disable_account_creation_rpc",
	"download_dir",
	"download_url",
	"gpu_multiplier",
	"gzip",                         /* db_purge */
	"home_page_text",
	"ignore_upload_certificates",
	"invite_code",
	"key_dir",
	"log_dir",
	"login_failures_max",
	"long_name",
	"mail_from",
	"mail_server",
	"mail_token_hours",
	"master_url",
	"max_sequences_per_cpu",
	"max_sequences_per_gpu",
	"max_granted_credit",           /* validator */
	"max_ncpus",
	"max_sequences_per_host",
	"max_sequences_per_user",
	"max_wu_per_file",              /* db_purge */
	"max_wus_in_progress",
	"max_wus_in_progress_gpu",
	"max_wus_to_send",
	"min_age_days",                 /* db_purge */
	"min_passwd_length",
	"next_rpc_delay",
	"one_result_per_user_per_wu",
	"pid_dir",
	"resend_lost_results",
	"sched_candidates",
	"sched_claim_ahead",
	"sched_claim_ahead_lease",
	"sched_claim_ahead_min",
	"sched_down_delay",
	"sched_error_delay",
	"sched_max_request_bytes",
	"script",                       /* assimilator */
	"sequence_share",
	"stop_daemons",
	"uldl_dir_fanout",
	"upload_dir",
	"upload_url",
	"web_user",
	"wus_per_txn",                  /* db_purge */
};

/*
 * Upstream BOINC's options (its scheduler's config parser and its PHP
 * pages') that no wseq program reads. A name wseq implements is
 * in wseq_names, not here.
 */
static const char *const upstream_names[] = {
	"account_creation_rpc_require_consent", "account_manager", "ban_cpu", "ban_os",
	"batch_accel", "cache_md5_info", "credit_by_app", "debug_assignment",
	"debug_client_files", "debug_credit", "debug_edf_sim_detail", "debug_edf_sim_workload",
	"debug_fcgi", "debug_handle_results", "debug_keyword", "debug_locality",
	"debug_locality_lite", "debug_prefs", "debug_quota", "debug_req_reply_dir",
	"debug_request_details", "debug_request_headers", "debug_resend", "debug_send",
	"debug_send_job", "debug_send_scan", "debug_user_messages", "debug_vda",
	"debug_version_select", "default_disk_min_free_gb", "delete_delay_hours",
	"disable_team_creation", "distinct_beta_apps", "dont_generate_upload_certificates",
	"dont_search_host_for_user", "dont_send_jobs", "dont_store_success_stderr",
	"dont_suppress_pending", "enable_assignment", "enable_assignment_multi",
	"enable_delete_account", "enable_login_mustagree_termsofuse", "enable_privacy_by_default",
	"enable_vda", "estimate_flops_from_hav_pfc", "feeder_query_size", "file_deletion_strategy",
	"fuh_debug_level", "fuh_set_completed_permission", "fuh_set_initial_permission",
	"grace_period_hours", "homogeneous_redundancy", "hr_allocate_slots",
	"hr_class_static", "httpd_user", "ignore_delay_bound", "job_size_matching",
	"keyword_sched", "locality_scheduler_fraction", "locality_scheduling",
	"locality_scheduling_send_timeout", "locality_scheduling_sorted_order",
	"locality_scheduling_sticky_file", "locality_scheduling_wait_period",
	"locality_scheduling_workunit_file", "maintenance_delay", "max_download_urls_per_file",
	"max_results_accepted",
	"min_core_client_upgrade_deadline", "min_core_client_version",
	"min_core_client_version_announced", "min_sendwork_interval", "moderators_allowed_to_ban",
	"moderators_vote_to_ban", "msg_to_host", "no_amd_k6", "no_forum_rating",
	"no_web_account_creation", "non_cpu_intensive", "nowork_skip",
	"one_result_per_host_per_wu", "prefer_primary_platform",
	"profile_screening", "project_dir", "reliable_max_avg_turnaround", "reliable_max_error_rate",
	"reliable_on_priority", "reliable_priority_on_over", "reliable_priority_on_over_except_error",
	"reliable_reduced_delay_bound", "replace_download_url_by_timezone", "replica_db_host",
	"replica_db_name", "replica_db_passwd", "replica_db_user", "report_grace_period",
	"report_max", "request_time_stats_log", "rte_no_stats",
	"sched_debug_level", "sched_lockfile_dir", "sched_old", "scheduler_log_buffer",
	"send_result_abort", "shmem_key", "shmem_work_items", "show_results", "size_classes",
	"strict_memory_bound", "symstore", "user_country", "user_filter", "user_url",
	"vda_host_timeout", "verify_files_on_app_start", "version_select_random_factor",
	"workload_sim",
};

static int cmp_name(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The lists sorted once, so a name added out of order is still found. */
static const char **sorted_copy(const char *const *list, size_t n)
{
	const char **c = xcalloc(n, sizeof(*c));

	memcpy(c, list, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_names);
	return c;
}

static bool in(const char *name, const char *const *list, size_t n)
{
	static const char **wseq, **upstream;
	const char **s;

	if (!wseq) {
		wseq = sorted_copy(wseq_names, ARRAY_SIZE(wseq_names));
		upstream = sorted_copy(upstream_names, ARRAY_SIZE(upstream_names));
	}
	s = list == wseq_names ? wseq : upstream;
	return bsearch(name, s, n, sizeof(*s), cmp_name) != NULL;
}

enum config_name_kind config_name_kind(const char *name)
{
	if (in(name, wseq_names, ARRAY_SIZE(wseq_names)))
		return CONFIG_NAME_WSEQ;
	if (in(name, upstream_names, ARRAY_SIZE(upstream_names)))
		return CONFIG_NAME_UPSTREAM;
	return CONFIG_NAME_UNKNOWN;
}

bool config_names_valid(void)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(upstream_names); i++)
		if (in(upstream_names[i], wseq_names, ARRAY_SIZE(wseq_names)))
			return log_error("lib/config_names.c: '%s' listed twice", upstream_names[i]), false;
	for (i = 0; i < ARRAY_SIZE(wseq_names); i++)
		for (j = i + 1; j < ARRAY_SIZE(wseq_names); j++)
			if (!strcmp(wseq_names[i], wseq_names[j]))
				return log_error("lib/config_names.c: '%s' listed twice", wseq_names[i]), false;
	return true;
}

int config_names_check(const struct param *t)
{
	int rc = 0;

	for (; t && t->name; t++)
		if (!(t->flags & PARAM_NOCONFIG) && config_name_kind(t->name) != CONFIG_NAME_WSEQ)
			rc = log_error("internal: setting <%s> is read from config.xml but not listed in "
				       "lib/config_names.c", t->name);
	return rc;
}

void config_warn_ignored(const struct project_config *c, FILE *fp)
{
	size_t i;

	for (i = 0; i < c->nignored; i++) {
		const struct config_ignored *g = &c->ignored[i];
		const char *why = g->upstream ? "an upstream BOINC option wseq does not implement"
					      : "not a wseq or BOINC option (misspelt?)";

		if (fp)
			fprintf(fp, "warning: %s:%ld: <%s> is %s; ignored\n", c->path, g->line, g->name,
				why);
		else
			log_warn("%s:%ld: <%s> is %s; ignored", c->path, g->line, g->name, why);
	}
}
