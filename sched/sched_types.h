/*
 * The scheduler RPC as data: what a BOINC client's request says
 * (sched_request.c parses it) and what the reply will say (sched_reply.c
 * writes it). The policy (sched_handle.c and friends) goes from one to the
 * other and is the only part that touches the database.
 */
#ifndef WSEQ_SCHED_TYPES_H
#define WSEQ_SCHED_TYPES_H

#include "common.h"
#include "crypt_rsa.h"
#include "db_records.h"
#include "prefs.h"
#include "sbuf.h"
#include "sched_coproc.h"

#define SCHED_MAX_PLATFORMS 8

/* An output file the client uploaded, as listed in a result report. */
struct sched_file_report {
	char *name;
	double nbytes;
	double max_nbytes;
	char md5_cksum[33];
};

/* One completed result in the request (client result.cpp RESULT::write). */
struct sched_result_report {
	char *name;
	int state;              /* the client's RESULT_* state: 5 = files uploaded */
	int exit_status;
	double final_cpu_time;
	double final_elapsed_time;
	double peak_working_set_size;
	double peak_swap_size;
	double peak_disk_usage;
	int app_version_num;
	char *platform;
	char *plan_class;
	char *stderr_out;
	struct sched_file_report *files;
	size_t nfiles;
};

/* A sticky file the client holds (top-level <file_info> in the request). */
struct sched_sticky_file {
	char *name;
	double nbytes;
	int status;             /* 1 present, 0 absent, < 0 error */
};

/* A job the client has but has not finished (<other_results>). */
struct sched_other_result {
	char *name;
};

struct sched_request {
	char *authenticator;
	char *cross_project_id;         /* the client's choice for this e-mail address, or NULL */
	int64_t hostid;
	int rpc_seqno;
	int core_major, core_minor, core_release;
	char *platforms[SCHED_MAX_PLATFORMS];   /* platform_name, then alt_platforms */
	int nplatforms;
	double work_req_seconds;
	double cpu_req_secs;
	double cpu_req_instances;
	double estimated_delay;
	double duration_correction_factor;
	bool dont_send_work;
	bool has_code_sign_key;
	/*
	 * The figures from <host_info>, <time_stats>, <net_stats>, <disk_usage>;
	 * p_ngpus, p_gpu_fpops and serialnum (upstream's "[BOINC|7.20.5][CUDA|…]")
	 * made from the resources below.
	 */
	struct db_host host;
	char *p_features;       /* the CPU's features, space-separated ("" if not sent) */
	char *vbox_version;     /* <virtualbox_version> ("6.1.38"), or NULL: none reported */
	/* rsc[0] the CPU (p_ncpus, p_fpops, cpu_req_*), then each coprocessor type of <coprocs> */
	struct sched_rsc rsc[SCHED_MAX_RSC];
	int nrsc;
	struct sched_result_report *results;
	size_t nresults;
	struct sched_sticky_file *sticky;
	size_t nsticky;
	struct sched_other_result *other;
	size_t nother;
	bool has_other;         /* <other_results> was sent: the client listed every job it has */
	char *notes;            /* fields corrected or ignored while parsing ("" if none) */
	/* computing prefs: the client's master copy (NULL: none sent) and the times of both */
	char *global_prefs;
	double global_prefs_mod_time, working_prefs_mod_time;
	char *global_prefs_source_email_hash;   /* whose account they came from (NULL: not sent) */
};

struct sched_bav;       /* an app version as it goes to this host (sched_policy.h) */

/* A job to send: the records the reply is written from. */
struct sched_job {
	struct db_result result;
	struct db_workunit wu;
	const struct db_app *app;
	const struct db_app_version *av;
	const char *platform;
	const struct sched_bav *bav;    /* av with how it uses the host (the reply's <app_version>) */
	int rsc;                        /* the resource it runs on (index of the request's rsc) */
	double seconds, instances;      /* the work it is on that resource */
	bool replicate;                 /* adaptive replication: verify it by a replica */
};

struct sched_message {
	char *text;
	const char *priority;   /* "low", "notice", or NULL */
};

/* Who the client works for, as the client and Manager show it (all copies). */
struct sched_reply_account {
	bool known;
	int64_t userid;
	char *user_name;
	double user_total_credit, user_expavg_credit;
	int64_t user_create_time;
	char *cross_project_id;
	char email_hash[33];
	char external_cpid[33];
	char *project_prefs;
	double host_total_credit, host_expavg_credit;
	int64_t host_create_time;
	char *host_venue;
	int64_t teamid;
	char *team_name;                /* NULL: no team */
	char rss_auth[64];              /* the notices feed's auth (account_rss_auth) */
	char *global_prefs;             /* the account's computing prefs to send (NULL: the client's are as new) */
};

/* A workunit whose transition time the RPC moves to t, if that is earlier. */
struct sched_touch {
	int64_t wuid, t;
};

struct sched_reply {
	const char *project_name;
	struct sched_reply_account account;
	int64_t hostid;         /* nonzero: tell the client its (new) host id */
	const char *code_sign_key;      /* non-NULL: send it (the client has none) */
	double request_delay;
	double next_rpc_delay;
	bool project_is_down;
	struct sched_message *messages;
	size_t nmessages;
	char **acks;
	size_t nacks;
	char **aborts;
	size_t naborts;
	char **abort_if_not_started;
	size_t nabort_if_not_started;
	char **delete_files;
	size_t ndelete_files;
	struct sched_job *jobs;
	size_t njobs;
	EVP_PKEY *upload_key;   /* signs the jobs' upload certificates (NULL: none) */
	/* Raw XML appended inside <scheduler_reply> (sticky file_infos, …). */
	struct sbuf extra;
	/*
	 * Not sent: the workunits whose results the RPC recorded or sent, for
	 * the transitioner to look at -- written at its end, in one statement.
	 */
	struct sched_touch *touches;
	size_t ntouches;
	/* Not sent: the app versions the host can use (sched_usable), worked out once */
	struct sched_bav *usable;
	size_t nusable;
	bool usable_known;
	/* Not sent: the seconds and instances of the jobs in the reply, per resource */
	double rsc_secs[SCHED_MAX_RSC], rsc_insts[SCHED_MAX_RSC];
	/* Not sent: more jobs each resource may hold in progress (if rooms_known) */
	long rsc_room[SCHED_MAX_RSC];
	bool rooms_known;
	/* Not sent: the volunteer's project preferences for the host's venue (sched_prefs.c) */
	struct prefs_project prefs;
	bool others_ok;         /* apps not selected may send jobs: none of the selected had one */
};

void sched_request_release(struct sched_request *r);
void sched_reply_init(struct sched_reply *r);
void sched_reply_release(struct sched_reply *r);
void sched_reply_message(struct sched_reply *r, const char *priority, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
void sched_reply_add(char ***list, size_t *n, const char *name);
/* Is the result called name acknowledged already (reported twice in one request)? */
bool sched_reply_acked(const struct sched_reply *r, const char *name);
/* The transitioner is to look at workunit wuid no later than t (at the RPC's end). */
void sched_reply_touch(struct sched_reply *r, int64_t wuid, int64_t t);

/* How far a reply's jobs, aborts, file deletions and raw XML went, to go back to it. */
struct sched_reply_mark {
	size_t njobs, naborts, ndelete_files, extra_len, ntouches;
};
struct sched_reply_mark sched_reply_mark(const struct sched_reply *r);
void sched_reply_back_to(struct sched_reply *r, struct sched_reply_mark m);

/*
 * Parse a request (sched_request.c). Numbers out of range are clamped,
 * strings cut to their column, bytes XML cannot carry replaced -- each
 * noted in r->notes. Only a request that is not XML at all, or lacks the
 * authenticator or platform, fails: -1 with a short reason in err.
 */
int sched_request_parse(const char *buf, size_t len, struct sched_request *r, struct sbuf *err);

/*
 * The request made parseable (sched_clean.c): bytes XML cannot carry become
 * '?', and each <stderr_out>'s CDATA, found by the client's framing, is
 * cleaned and its "]]>"s split. *had_stderr: the request holds app stderr.
 */
char *sched_request_clean(const char *buf, size_t len, bool *had_stderr);

/* Write the reply document (sched_reply.c); -1 if it would exceed out's maximum. */
int sched_reply_write(const struct sched_reply *r, struct sbuf *out);
struct project_config;
/*
 * Append to r->extra the project's links and notices feed for the Manager
 * (<gui_urls>, <rss_feeds>) as upstream's scheduler does: the project's
 * gui_urls.xml, or links to its own pages and news without one, with
 * <master_url/>, <project_name/>, <userid/>, <user_name/>, <teamid/>,
 * <team_name/>, <hostid/> and <rss_auth/> (the feed's auth) filled in, escaped, and <ifteam>..</ifteam> only for a
 * team's member. Only for a known account (r->account); 0, or -1 (logged,
 * nothing added: a file that is not well-formed once filled in is not sent).
 */
int sched_reply_gui_urls(struct sched_reply *r, const struct project_config *cfg, int64_t hostid);

#endif
