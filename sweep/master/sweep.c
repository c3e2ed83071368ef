/*
 * sweep: the parameter sweep's master (the sweep design, doc/seeds.md). `sweep run SPEC` does the
 * whole sweep (sweep_run.c); `resume` goes on with one; `status` shows its
 * statistics; `create` and `collect` are its parts for those who start the
 * clients themselves. The sessions live in the user's state directory, or
 * in a wseq project when one is named (sweep_state.c). See doc/sweep.md.
 */
#include "common.h"
#include "config.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "sweep_run.h"
#include "sweep_session.h"
#include "sweep_files.h"
#include "sweep_store.h"
#include "sweep_url.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

static struct sweep_run_opts o;

static const struct param options[] = {
	{ "state", PARAM_STR, offsetof(struct sweep_run_opts, state), NULL, 0, 0, 0, "DIR",
	  "where the sessions live without a project: DIR/sessions.db and each session's "
	  "files (default: ~/.wseq/sweep-state)" },
	{ "sandbox", PARAM_STR, offsetof(struct sweep_run_opts, sandbox), NULL, 0, 0, 0, "DIR",
	  "keep the sweep in a private wseq project in DIR instead (MariaDB and Apache, "
	  "started and stopped by sweep run)" },
	{ "ssh_config", PARAM_STR, offsetof(struct sweep_run_opts, ssh_config), NULL, 0, 0, 0,
	  "FILE", "run, resume: ssh and sftp read FILE (-F) instead of ~/.ssh/config" },
	{ "remote_dir", PARAM_STR, offsetof(struct sweep_run_opts, remote_dir), ".wseq-sweep", 0,
	  0, 0, "DIR", "run, resume: sweep_client's directory on the hosts (relative: to the "
	  "home directory)" },
	{ "client", PARAM_STR, offsetof(struct sweep_run_opts, client), NULL, 0, 0, 0, "DIR",
	  "run, resume: the client bundle to copy to the hosts, or a directory of one a platform "
	  "(default: the installed ones, libexec/wseq/sweep-client)" },
	{ "progress", PARAM_STR, offsetof(struct sweep_run_opts, progress), "", 0, 0, 0, "MODE",
	  "run, resume: bar, lines or none (default: bar on a terminal, else lines)" },
	{ "keep_server", PARAM_BOOL, offsetof(struct sweep_run_opts, keep_server), "0", 0, 0, 0,
	  NULL, "run, resume: with --sandbox, leave the private project running at the end" },
	{ "verbose", PARAM_BOOL, offsetof(struct sweep_run_opts, verbose), "0", 0, 0, 0, NULL,
	  "run, resume: log every step on every host (ssh, sftp, client starts and ends)" },
	{ "max_starts", PARAM_INT, offsetof(struct sweep_run_opts, max_starts), "3", PARAM_BOUNDED,
	  1, 1000, "N", "run, resume: starts of a host's client before the host is given up" },
	{ "joblog", PARAM_STR, offsetof(struct sweep_run_opts, joblog), NULL, 0, 0, 0, "FILE",
	  "run, resume: write every run of the worker to FILE in GNU parallel's joblog format" },
	{ "results", PARAM_STR, offsetof(struct sweep_run_opts, results), NULL, 0, 0, 0, "DIR",
	  "run, resume: DIR/SEQ/stdout, stderr and exitval of every set's last run (SEQ as {#}; "
	  "GNU parallel's --results DIR/)" },
	{ "resume_failed", PARAM_BOOL, offsetof(struct sweep_run_opts, resume_failed), "0", 0, 0,
	  0, NULL, "run: with --joblog FILE, only the sets FILE shows not done (failed or never "
	  "run), and FILE keeps its lines" },
	{ "retries", PARAM_INT, offsetof(struct sweep_run_opts, retries), "0", PARAM_BOUNDED, 0,
	  100000, "N", "run, create: hand a task out at most N times in all (the spec's MaxTotal; "
	  "0: the spec's)" },
	{ "dry_run", PARAM_BOOL, offsetof(struct sweep_run_opts, dry_run), "0", 0, 0, 0, NULL,
	  "run: print the command line of every set (with --resume-failed: of every set that "
	  "would run), run nothing" },
	{ "nice", PARAM_INT, offsetof(struct sweep_run_opts, nice), "0", PARAM_BOUNDED, 0, 19, "N",
	  "run, resume: the workers run under nice -n N on the hosts (sweep_client --nice)" },
	{ "halt", PARAM_STR, offsetof(struct sweep_run_opts, halt_arg), "never", 0, 0, 0, "WHEN",
	  "run, resume: soon,fail=N (hand out no more tasks once N sets failed, let the running "
	  "ones finish), now,fail=N (drop them too), fail=P% of all sets" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: sweep [options] COMMAND ARG\n"
	"\n"
	"commands:\n";

static const char epilog[] =
	"\nThe sessions live in the state directory (--state), and sweep run answers its\n"
	"clients itself, on the spec's Server address: nothing else is started, root is\n"
	"never needed. With --project_dir DIR (or $WSEQ_PROJECT_DIR) they live in that\n"
	"wseq project and its web server answers; with --sandbox DIR in a private project\n"
	"sweep run starts there. create, status and collect go where run went.\n"
	"\n"
	"exit status: 0 every set collected; 1 an error; 2 bad usage; 3 stopped by\n"
	"--halt (resume goes on); 4 every task ended but some sets failed; 5 tasks\n"
	"left and no host to run them; 6 stopped by a signal (resume goes on).\n";

/* The project (--project_dir, $WSEQ_PROJECT_DIR, or --sandbox's private one) and its database. */
static int open_project(struct project_config *cfg, struct sweep_store **store)
{
	char *sandbox = NULL, *path = sweep_project_path(&o, &sandbox);
	int rc = -1;

	if (sandbox && access(path, R_OK) != 0) {
		log_error("no project is configured, and there is no private one in %s "
			  "(--project_dir DIR, or --sandbox DIR as given to sweep run)", sandbox);
		goto out;
	}
	if (config_load(cfg, path, NULL, NULL) < 0)
		goto out;
	if (!(*store = sweep_project_store(path, 0))) {
		if (sandbox)
			log_error("is the private project in %s running? `sweep resume SESSION` "
				  "starts it, `wseq_sandbox up %s` too", sandbox, sandbox);
		config_release(cfg);
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(sandbox);
	return rc;
}

static int create(struct sweep_store *store, const struct sweep_files *files,
		  const struct project_config *cfg, const char *spec)
{
	struct sbuf err = SBUF_INIT(4096);
	char sid[SWEEP_SID_LEN + 1] = "";
	struct sweep_create_opts co = { NULL, 0, o.retries };
	int64_t batch = 0;
	size_t n = 0;
	int rc = 1;

	if (sweep_session_create(store, files, spec, &co, sid, &batch, &n, &err) == 0) {
		if (cfg)
			log_info("session %.8s...: %zu tasks (batch %lld); sweep_client's URL: %s%s",
				 sid, n, (long long)batch, cfg->cgi_url ? cfg->cgi_url : "<cgi_url>",
				 SWEEP_CGI_NAME);
		else
			log_info("session %.8s...: %zu tasks; `sweep resume` serves it", sid, n);
		printf("%s\n", sid);
		rc = 0;
	} else {
		log_error("%s", sbuf_str(&err));
	}
	sbuf_release(&err);
	return rc;
}

static int collect(struct sweep_store *store, const struct sweep_files *files, const char *sid)
{
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_collect_stats st;
	int rc = 1;

	if (sweep_session_collect(store, files, sid, true, &st, &err) == 0) {
		printf("%zu valid, %zu invalid; %zu done, %zu failed, %zu pending; output %s\n",
		       st.valid, st.invalid, st.done, st.failed, st.pending, st.output);
		rc = 0;
	} else {
		log_error("%s", sbuf_str(&err));
	}
	free(st.output);
	sbuf_release(&err);
	return rc;
}

static int status(struct sweep_store *store, const struct sweep_files *files, const char *sid)
{
	char *dir = sweep_files_session(files, sid);
	int rc = strchr(sid, '/') || sweep_print_stats(store, sid, dir, stdout) < 0;

	free(dir);
	return rc;
}

/* create, collect, status: where run keeps the sessions (the state directory, or a project). */
static int on_project(struct tool_ctx *ctx)
{
	struct project_config cfg;
	struct sweep_store *store = NULL;
	struct sweep_files files;
	const char *cmd = ctx->cmd->name;
	bool project = sweep_in_project(&o);
	int rc;

	if (project) {
		if (open_project(&cfg, &store) < 0)
			return 1;
		sweep_files_project(&files, &cfg);
	} else {
		char *dir = sweep_state_dir(&o);

		store = sweep_state_open(dir, &files);
		free(dir);
		if (!store)
			return 1;
	}
	rc = !strcmp(cmd, "create") ? create(store, &files, project ? &cfg : NULL, ctx->argv[0])
	   : !strcmp(cmd, "collect") ? collect(store, &files, ctx->argv[0])
	   : status(store, &files, ctx->argv[0]);
	sweep_store_close(store);
	sweep_files_release(&files);
	if (project)
		config_release(&cfg);
	return rc;
}

static int cmd_run(struct tool_ctx *ctx)
{
	if (o.dry_run)
		return !strcmp(ctx->cmd->name, "resume") ?
			tool_usage_error("--dry-run is for run SPEC") : sweep_dry_run(&o, ctx->argv[0]);
	return sweep_run(&o, !strcmp(ctx->cmd->name, "resume"), ctx->argv[0]);
}

static const struct tool_cmd commands[] = {
	{ "run", cmd_run,
	  "run SPEC          the whole sweep -- a session of one task per line of the spec's\n"
	  "                    parameter file, sweep_client started by ssh (copied by sftp when\n"
	  "                    missing) on every host of its cluster file, the progress, the\n"
	  "                    results judged and collected into its Output, then the statistics", 1, 1, NULL },
	{ "resume", cmd_run,
	  "resume SESSION    go on with a session after the master was stopped", 1, 1, NULL },
	{ "status", on_project, "status SESSION    the statistics so far", 1, 1, NULL },
	{ "create", on_project,
	  "create SPEC       only store a session and print its ID (`sweep resume` serves it;\n"
	  "                    in a project, start clients yourself, giving them the\n"
	  "                    project's <cgi_url>sweep as the master's URL)", 1, 1, NULL },
	{ "collect", on_project,
	  "collect SESSION   judge the results that came back and write the Output", 1, 1, NULL },
	{ NULL, NULL, NULL, 0, 0, NULL }
};

static int check_halt(void)
{
	struct sbuf err = SBUF_INIT(1024);
	int rc = sweep_halt_parse(o.halt_arg, &o.halt, &err);

	if (rc < 0)
		tool_usage_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return rc;
}

static int check_options(struct tool_ctx *ctx)
{
	static const char *const modes[] = { "", "bar", "lines", "none" };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(modes) && strcmp(o.progress, modes[k]); k++)
		;
	if (k == ARRAY_SIZE(modes))
		return tool_usage_error("--progress is bar, lines or none (got '%s')", o.progress);
	if (check_halt() < 0)
		return TOOL_USAGE;
	if (o.resume_failed && !o.joblog)
		return tool_usage_error("--resume-failed needs --joblog FILE (the runs to go by)");
	if (ctx->project_dir)
		o.project = xstrdup(ctx->project_dir);
	return 0;
}

static void fini(struct tool_ctx *ctx)
{
	(void)ctx;
	free(o.project);
	o.project = NULL;
}

static const struct tool_spec sweep_spec = {
	.name = "sweep",
	.usage = usage,
	.epilog = epilog,
	.project_dir_help = "keep the sweep in this wseq project (default: $WSEQ_PROJECT_DIR;\n"
			    "                               without one, in the state directory)",
	.params = options,
	.settings = &o,
	.cmds = commands,
	.check = check_options,
	.fini = fini,
};

int main(int argc, char **argv)
{
#ifdef __linux__
	/* started by the sweep kit's loader, still "sweep" to ps and pkill */
	prctl(PR_SET_NAME, "sweep", 0, 0, 0);
#endif
	return tool_main(&sweep_spec, argc, argv);
}
