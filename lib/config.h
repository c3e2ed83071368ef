/*
 * The project's config.xml, in BOINC's format:
 *
 *   <boinc>
 *     <config> <db_name>..</db_name> <master_url>..</master_url> ... </config>
 *     <daemons> <daemon><cmd>transitioner -d 2</cmd></daemon> ... </daemons>
 *     <tasks> <task><cmd>..</cmd><period>1 hour</period></task> ... </tasks>
 *   </boinc>
 *
 * The <config> section is read through parameter tables (param.h): the
 * project table below, which every program shares, plus the program's own.
 * Errors name the file and line.
 */
#ifndef WSEQ_CONFIG_H
#define WSEQ_CONFIG_H

#include "common.h"
#include "param.h"

struct config_daemon {
	char *cmd;              /* program and arguments, run from the project's bin/ */
	char *output;           /* log file name in log dir (default: <program>.log) */
	char *pid_file;         /* pid file name in pid dir (default: <program>.pid) */
	bool disabled;
};

struct config_task {
	char *cmd;
	char *output;
	long period;            /* seconds; "1 hour", "30 min", "2 days" accepted */
	bool disabled;
};

/* An element of <config> no wseq program reads (config_names.c). */
struct config_ignored {
	char *name;
	long line;
	bool upstream;          /* one of upstream BOINC's options */
};

struct project_config {
	/* <config> fields shared by all programs (project_params) */
	char *long_name;
	char *master_url;       /* with trailing slash */
	char *db_name;
	char *db_user;
	char *db_passwd;
	char *db_host;
	long db_port;
	char *db_socket;
	char *upload_dir;
	char *download_dir;
	char *key_dir;
	char *log_dir;
	char *pid_dir;
	char *app_dir;
	char *upload_url;       /* the file_upload_handler URL */
	char *download_url;     /* the URL of download_dir */
	char *cgi_url;          /* the URL of cgi-bin/, with trailing slash */
	long uldl_dir_fanout;
	char *web_user;         /* the user CGI programs run as (file ownership) */
	long max_wus_to_send;
	bool disable_account_creation;
	bool stop_daemons;      /* like the stop_daemons file: daemons exit */
	bool ignore_upload_certificates;        /* tests only: uploads need no certificate */

	/* derived */
	char *project_dir;      /* absolute directory holding config.xml */
	char *path;             /* absolute path of config.xml */
	struct config_daemon *daemons;
	size_t ndaemons;
	struct config_task *tasks;
	size_t ntasks;
	struct config_ignored *ignored;
	size_t nignored;
};

extern const struct param project_params[];

/*
 * Find config.xml: $WSEQ_PROJECT_DIR/config.xml, else ./config.xml, else
 * ../config.xml (a CGI program runs in cgi-bin/). Returns an allocated path
 * or NULL (logged).
 */
char *config_locate(void);

/*
 * Read path (NULL: config_locate()) into c, and the <config> elements named
 * in prog_params (may be NULL) into prog_settings. Relative directories are
 * made absolute against the project directory. Unknown elements are left for
 * other programs. Required project settings are checked here; a program's
 * own required settings may also come from its command line, so the program
 * checks them (param_check_required) once both are read.
 * Returns 0, or -1 with the errors logged as "FILE:LINE: ...".
 */
int config_load(struct project_config *c, const char *path,
		const struct param *prog_params, void *prog_settings);
/*
 * The same from text in memory; path (absolute) names the file in errors and
 * gives the project directory. For tests and the fuzzer (test/fuzz/).
 */
int config_parse(struct project_config *c, const char *path, const char *text, size_t len,
		 const struct param *prog_params, void *prog_settings);
void config_release(struct project_config *c);

/*
 * Parse a BOINC-style period in seconds: "1 hour", "30 min", "2 days",
 * "90 s", "1 month" (30 days); a bare number is minutes, as upstream's
 * bin/start reads it ("5" is 300). -1 if bad.
 */
long config_parse_period(const char *s);

/* Who reads a <config> element: some wseq program, upstream BOINC only, no one. */
enum config_name_kind { CONFIG_NAME_WSEQ, CONFIG_NAME_UPSTREAM, CONFIG_NAME_UNKNOWN };
enum config_name_kind config_name_kind(const char *name);
/*
 * -1 (logged) if a name of t that is read from config.xml is missing from
 * the list of wseq's settings: a program checks its own tables at start.
 */
int config_names_check(const struct param *t);
/* No name listed twice (the unit test's check). */
bool config_names_valid(void);
/*
 * Warn about each element of <config> no wseq program reads, naming file,
 * line and whether it is upstream BOINC's: as "warning: ..." lines on fp,
 * or to the log when fp is NULL.
 */
void config_warn_ignored(const struct project_config *c, FILE *fp);

#endif
