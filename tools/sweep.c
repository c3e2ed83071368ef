/*
 * sweep: the parameter sweep's master (the sweep design, doc/seeds.md). `sweep run SPEC` does the
 * whole sweep (sweep_run.c); `resume` goes on with one; `status` shows its
 * statistics; `create` and `collect` are its parts for those who start the
 * clients themselves. See doc/sweep.md.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "log.h"
#include "param.h"
#include "sweep_run.h"
#include "sweep_session.h"
#include "sweep_url.h"

static struct sweep_run_opts o;

static const struct param options[] = {
	{ "project", PARAM_STR, offsetof(struct sweep_run_opts, project), NULL, 0, 0, 0, "DIR",
	  "project directory (default: WSEQ_PROJECT_DIR, then . and ..; without one, the "
	  "private project of sweep run)" },
	{ "sandbox", PARAM_STR, offsetof(struct sweep_run_opts, sandbox), NULL, 0, 0, 0, "DIR",
	  "the private project's directory (default: ~/.wseq/sweep)" },
	{ "ssh-config", PARAM_STR, offsetof(struct sweep_run_opts, ssh_config), NULL, 0, 0, 0,
	  "FILE", "run, resume: ssh and scp read FILE (-F) instead of ~/.ssh/config" },
	{ "remote-dir", PARAM_STR, offsetof(struct sweep_run_opts, remote_dir), ".wseq-sweep", 0,
	  0, 0, "DIR", "run, resume: sweep_client's directory on the hosts (relative: to the "
	  "home directory)" },
	{ "client", PARAM_STR, offsetof(struct sweep_run_opts, client), NULL, 0, 0, 0, "FILE",
	  "run, resume: the sweep_client to copy to the hosts (default: the one beside sweep)" },
	{ "progress", PARAM_STR, offsetof(struct sweep_run_opts, progress), "", 0, 0, 0, "MODE",
	  "run, resume: bar, lines or none (default: bar on a terminal, else lines)" },
	{ "keep-server", PARAM_BOOL, offsetof(struct sweep_run_opts, keep_server), "0", 0, 0, 0,
	  NULL, "run, resume: leave the private project running at the end" },
	{ "verbose", PARAM_BOOL, offsetof(struct sweep_run_opts, verbose), "0", 0, 0, 0, NULL,
	  "run, resume: log every step on every host (ssh, scp, client starts and ends)" },
	{ "max-starts", PARAM_INT, offsetof(struct sweep_run_opts, max_starts), "3", PARAM_BOUNDED,
	  1, 1000, "N", "run, resume: starts of a host's client before the host is given up" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sweep [options] run SPEC\n"
		    "       sweep [options] resume SESSION\n"
		    "       sweep [options] status SESSION\n"
		    "       sweep [options] create SPEC\n"
		    "       sweep [options] collect SESSION\n\n"
		    "run: the whole sweep -- a session of one task per line of the spec's\n"
		    "parameter file, sweep_client started by ssh (copied by scp when missing) on\n"
		    "every host of its cluster file, the progress, the results judged and\n"
		    "collected into its Output, then the statistics; without a configured\n"
		    "project it starts a private one on the spec's Server address. resume: go on\n"
		    "with a session after the master was stopped. status: the statistics so far.\n"
		    "create: only store a session and print its ID (start clients yourself,\n"
		    "giving them the project's <cgi_url>sweep as the master's URL).\n"
		    "collect: judge the results that came back and write the Output.\n\n"
		    "exit status: 0 every set collected; 1 an error; 2 bad usage; 4 every task\n"
		    "ended but some sets failed; 5 tasks left and no host to run them; 6 stopped\n"
		    "by a signal (resume goes on).\n\noptions:\n");
	param_print_help(options, fp);
}

/* The project (the private one of `sweep run` when none is configured) and its database. */
static int open_project(struct project_config *cfg, struct db **db)
{
	struct db_params dp;
	char *sandbox = NULL, *path = sweep_project_path(&o, &sandbox);
	int rc = -1;

	if (sandbox && access(path, R_OK) != 0) {
		log_error("no project is configured, and there is no private one in %s "
			  "(--project DIR, or --sandbox DIR as given to sweep run)", sandbox);
		goto out;
	}
	if (config_load(cfg, path, NULL, NULL) < 0)
		goto out;
	db_params_from_config(&dp, cfg);
	if (db_open(db, &dp, 0) != DB_OK) {
		if (sandbox)
			log_error("is the private project in %s running? `sweep resume SESSION` "
				  "starts it, `wseq_sandbox up %s` too", sandbox, sandbox);
		config_free(cfg);
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(sandbox);
	return rc;
}

static int create(struct db *db, const struct project_config *cfg, const char *spec)
{
	struct sbuf err = SBUF_INIT(4096);
	char sid[SWEEP_SID_LEN + 1] = "";
	int64_t batch = 0;
	size_t n = 0;
	int rc = 1;

	if (sweep_session_create(db, cfg, spec, sid, &batch, &n, &err) == 0) {
		log_info("session %.8s...: %zu tasks (batch %lld); sweep_client's URL: %s%s", sid, n,
			 (long long)batch, cfg->cgi_url ? cfg->cgi_url : "<cgi_url>", SWEEP_CGI_NAME);
		printf("%s\n", sid);
		rc = 0;
	} else {
		log_error("%s", sbuf_str(&err));
	}
	sbuf_free(&err);
	return rc;
}

static int collect(struct db *db, const struct project_config *cfg, const char *sid)
{
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_collect_stats st;
	int rc = 1;

	if (sweep_session_collect(db, cfg, sid, true, &st, &err) == 0) {
		printf("%zu valid, %zu invalid; %zu done, %zu failed, %zu pending; output %s\n",
		       st.valid, st.invalid, st.done, st.failed, st.pending, st.output);
		rc = 0;
	} else {
		log_error("%s", sbuf_str(&err));
	}
	free(st.output);
	sbuf_free(&err);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const cmds[] = { "run", "resume", "status", "create", "collect" };
	struct project_config cfg;
	struct db *db = NULL;
	const char *cmd, *arg;
	size_t k;
	int i, rc = 1;

	log_init("sweep", NULL);
	param_set_defaults(options, &o);
	i = param_parse_args(options, &o, argc, argv);
	if (i == -2) {
		usage(stdout);
		param_free(options, &o);
		return 0;
	}
	if (i < 0) {
		param_free(options, &o);
		return 2;
	}
	for (k = 0; argc - i == 2 && k < ARRAY_SIZE(cmds); k++)
		if (!strcmp(argv[i], cmds[k]))
			break;
	if (argc - i != 2 || k == ARRAY_SIZE(cmds) ||
	    (strcmp(o.progress, "") && strcmp(o.progress, "bar") && strcmp(o.progress, "lines") &&
	     strcmp(o.progress, "none"))) {
		usage(stderr);
		param_free(options, &o);
		return 2;
	}
	cmd = argv[i];
	arg = argv[i + 1];
	if (!strcmp(cmd, "run") || !strcmp(cmd, "resume")) {
		rc = sweep_run(&o, !strcmp(cmd, "resume"), arg);
	} else if (open_project(&cfg, &db) == 0) {
		if (!strcmp(cmd, "create")) {
			rc = create(db, &cfg, arg);
		} else if (!strcmp(cmd, "collect")) {
			rc = collect(db, &cfg, arg);
		} else {
			char *dir = xasprintf("%s/sweep/%s", cfg.project_dir, arg);

			rc = strchr(arg, '/') || sweep_print_stats(db, arg, dir, stdout) < 0;
			free(dir);
		}
		db_close(db);
		config_free(&cfg);
	}
	param_free(options, &o);
	return rc;
}
