/*
 * wseq_submit's main(): the subcommand, its options (one table each, which
 * drives parsing and --help), and where the project URL and the
 * authenticator come from. See wseq_submit.h and doc/wseq_submit.md.
 */
#include "wseq_submit.h"
#include "submit_client.h"
#include "outputs_zip.h"
#include "fileutil.h"
#include "log.h"
#include "param.h"
#include "tool.h"

#include <pwd.h>

#define O(f) offsetof(struct ws_options, f)

#define OPT_PROJECT { "project", PARAM_STR, O(project), NULL, 0, 0, 0, "URL", \
	"the project's URL (default: the description's, else WSEQ_PROJECT_URL, else ~/.wseq_submit)" }
#define OPT_AUTH { "auth_file", PARAM_STR, O(auth_file), NULL, 0, 0, 0, "FILE", \
	"a file holding the account's authenticator (default: as for --project; WSEQ_AUTH_FILE)" }

static const struct param submit_opts[] = {
	OPT_PROJECT, OPT_AUTH,
	{ "batch", PARAM_STR, O(batch), NULL, 0, 0, 0, "NAME",
	  "the batch's name (default: +WseqBatch, else USER-APP-TIME)" },
	{ "job_list", PARAM_BOOL, O(job_list), "0", 0, 0, 0, NULL,
	  "FILE is a job list (one job a line: ARG... [< INPUT...]), not a submit description" },
	{ "app", PARAM_STR, O(app), NULL, 0, 0, 0, "APP", "the app of a job list's jobs" },
	{ "sequence", PARAM_BOOL, O(sequence), "0", 0, 0, 0, NULL,
	  "a job list's app is a sequence app: each job becomes a work sequence" },
	{ "lease", PARAM_DOUBLE, O(lease_days), "14", PARAM_BOUNDED, 0.01, 3650, "DAYS",
	  "how long the project keeps the batch and its files (wait renews it)" },
	PARAM_TABLE_END
};

static const struct param status_opts[] = {
	OPT_PROJECT, OPT_AUTH,
	{ "jobs", PARAM_BOOL, O(jobs), "0", 0, 0, 0, NULL, "one line per job too: PROC STATUS NAME" },
	PARAM_TABLE_END
};

static const struct param wait_opts[] = {
	OPT_PROJECT, OPT_AUTH,
	{ "poll", PARAM_DOUBLE, O(poll), "30", PARAM_BOUNDED, 0.2, 86400, "SECONDS",
	  "time between two looks at the batch" },
	{ "timeout", PARAM_DOUBLE, O(timeout), "0", PARAM_BOUNDED, 0, 1e9, "SECONDS",
	  "give up (exit status 1) after this long; 0: never" },
	PARAM_TABLE_END
};

static const struct param plain_opts[] = {
	OPT_PROJECT, OPT_AUTH,
	PARAM_TABLE_END
};

/* What each command runs and says in its --help, in the order of commands[] below. */
static const struct ws_detail {
	int (*run)(const struct ws_options *o, const char *arg);
	const char *help;
	const char *(*more)(void);      /* more help after the description, or NULL */
} details[] = {
	{ ws_submit,
	  "Submit the jobs of FILE, an HTCondor submit description (or a job list, with\n"
	  "--job_list), as one batch. Prints the batch's name on stdout and keeps what later\n"
	  "commands need in the state directory (WSEQ_SUBMIT_STATE_DIR, else\n"
	  "$XDG_STATE_HOME/wseq_submit, else ~/.local/state/wseq_submit; one subdirectory\n"
	  "per working directory, mode 0700). A description error stops with FILE:LINE:\n"
	  "and exit status 2 before anything reaches the project.", NULL },
	{ ws_status, "Print how many of the batch's jobs are UNSENT, IN_PROGRESS, DONE and ERROR.",
	  NULL },
	{ ws_wait,
	  "Wait until every job of the batch is done or failed, showing the progress (a bar\n"
	  "on a terminal, a line per change otherwise). Exit status 0 only if every job\n"
	  "succeeded, 1 otherwise.", NULL },
	{ ws_fetch,
	  "Fetch the outputs of the batch's finished jobs into the files the description\n"
	  "names (output, error, transfer_output_files; each written whole or not at all).\n"
	  "The entries of a job's wseq_outputs.zip that the description does not name go\n"
	  "only to new files in the job's directory (none starting with '.', none through a\n"
	  "link, none replacing a file); a zip that breaks a rule or a bound is refused\n"
	  "whole, nothing of it kept. Exit status 0 only if every job succeeded and all its\n"
	  "files arrived.", outputs_zip_env_help },
	{ ws_abort, "Abort the batch's jobs that have not finished (a sequence job's sequence ends).",
	  NULL },
	{ ws_retire, "Retire the batch: the project forgets it and deletes its files. Fetch first.",
	  NULL },
};

static int ws_cmd(struct tool_ctx *ctx);

static const struct tool_cmd commands[] = {
	{ "submit", ws_cmd, "submit [OPTIONS] FILE", 1, 1, submit_opts },
	{ "status", ws_cmd, "status [OPTIONS] BATCH", 1, 1, status_opts },
	{ "wait", ws_cmd, "wait [OPTIONS] BATCH", 1, 1, wait_opts },
	{ "fetch", ws_cmd, "fetch [OPTIONS] BATCH", 1, 1, plain_opts },
	{ "abort", ws_cmd, "abort [OPTIONS] BATCH", 1, 1, plain_opts },
	{ "retire", ws_cmd, "retire [OPTIONS] BATCH", 1, 1, plain_opts },
	{ NULL, NULL, NULL, 0, 0, NULL }
};

_Static_assert(ARRAY_SIZE(details) + 1 == ARRAY_SIZE(commands), "a detail for each command");

static const struct ws_detail *detail_of(const struct tool_ctx *ctx)
{
	return &details[ctx->cmd - commands];
}

/* A command's --help: its description after the options. */
static void cmd_help(const struct tool_ctx *ctx, FILE *fp)
{
	const struct ws_detail *d = ctx->cmd ? detail_of(ctx) : NULL;

	if (d)
		fprintf(fp, "\n%s\n%s%s", d->help, d->more ? "\n" : "", d->more ? d->more() : "");
}

char *ws_path(const char *dir, const char *path)
{
	if (path[0] == '/' || !dir || !*dir)
		return xstrdup(path);
	return xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", path);
}

static const struct ws_conn *fail_conn;

int ws_fail(const struct ws_conn *c, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT(64 * 1024);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (!c)
		c = fail_conn;
	/* the server's words for a wrong or unknown authenticator */
	if (c && c->auth_file && (strstr(sbuf_str(&b), "bad authenticator") ||
				  strstr(sbuf_str(&b), "no authenticator")))
		sbuf_addf(&b, " (the project does not know the authenticator in %s: check the file, "
			  "and that it belongs to %s)", c->auth_file, c->url);
	fprintf(stderr, "wseq_submit: %s\n", sbuf_str(&b));
	sbuf_release(&b);
	return -1;
}

void ws_log_event(const char *dir, const struct ws_job *j, const char *fmt, ...)
{
	char when[64];
	time_t t = time(NULL);
	struct tm tm;
	char *path;
	FILE *fp;
	va_list ap;

	if (!j->log)
		return;
	path = ws_path(dir, j->log);
	fp = fopen(path, "a");
	free(path);
	if (!fp)
		return;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(fp, "%s job %ld (%s): ", when, j->proc, j->name);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
	fclose(fp);
}

/* "project URL" / "auth_file PATH" lines of ~/.wseq_submit */
static char *home_setting(const char *key)
{
	const char *home = getenv("HOME");
	struct sbuf text = SBUF_INIT(1024 * 1024);
	char *path, *line, *next, *found = NULL;

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return NULL;
	path = xasprintf("%s/.wseq_submit", home);
	if (access(path, F_OK) != 0 || read_file(path, text.max, &text) < 0) {
		free(path);
		sbuf_release(&text);
		return NULL;
	}
	free(path);
	for (line = text.buf; line && *line && !found; line = next) {
		size_t n = strlen(key);

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, key, n) == 0 && (line[n] == ' ' || line[n] == '\t')) {
			char *v = line + n, *e;

			while (*v == ' ' || *v == '\t')
				v++;
			e = v + strlen(v);
			while (e > v && strchr(" \t\r", e[-1]))
				*--e = '\0';
			if (*v)
				found = xstrdup(v);
		}
	}
	sbuf_release(&text);
	return found;
}

static char *choose(const char *opt, const char *given, const char *env, const char *key)
{
	const char *e = getenv(env);

	if (opt && *opt)
		return xstrdup(opt);
	if (given && *given)
		return xstrdup(given);
	if (e && *e)
		return xstrdup(e);
	return home_setting(key);
}

int ws_connect(const struct ws_options *o, const char *project, const char *auth_file,
	       struct ws_conn *c)
{
	struct sbuf text = SBUF_INIT(64 * 1024);
	char *url, *a, *e;

	memset(c, 0, sizeof(*c));
	url = choose(o->project, project, "WSEQ_PROJECT_URL", "project");
	if (!url) {
		fprintf(stderr, "wseq_submit: no project URL: give --project URL, +WseqProject in the "
			"description, WSEQ_PROJECT_URL or a 'project URL' line in ~/.wseq_submit\n");
		return -1;
	}
	c->url = url[0] && url[strlen(url) - 1] == '/' ? url : xasprintf("%s/", url);
	if (c->url != url)
		free(url);
	c->auth_file = choose(o->auth_file, auth_file, "WSEQ_AUTH_FILE", "auth_file");
	if (!c->auth_file) {
		fprintf(stderr, "wseq_submit: no authenticator file: give --auth_file FILE, "
			"+WseqAuthenticatorFile in the description, WSEQ_AUTH_FILE or an 'auth_file "
			"FILE' line in ~/.wseq_submit\n");
		ws_conn_release(c);
		return -1;
	}
	if (read_file(c->auth_file, text.max, &text) < 0) {
		fprintf(stderr, "wseq_submit: cannot read the authenticator file %s\n", c->auth_file);
		sbuf_release(&text);
		ws_conn_release(c);
		return -1;
	}
	/* the file's first word, as HTCondor's boinc_authenticator_file */
	a = text.buf ? text.buf : (char *)"";
	a += strspn(a, " \t\r\n");
	e = a + strcspn(a, " \t\r\n");
	*e = '\0';
	if (!*a) {
		fprintf(stderr, "wseq_submit: the authenticator file %s is empty\n", c->auth_file);
		sbuf_release(&text);
		ws_conn_release(c);
		return -1;
	}
	c->auth = xstrdup(a);
	log_add_secret(c->auth);
	memset(text.buf, 0, text.len);
	sbuf_release(&text);
	fail_conn = c;
	return 0;
}

void ws_conn_release(struct ws_conn *c)
{
	if (fail_conn == c)
		fail_conn = NULL;
	free(c->url);
	free(c->auth_file);
	if (c->auth) {
		memset(c->auth, 0, strlen(c->auth));
		free(c->auth);
	}
	memset(c, 0, sizeof(*c));
}

static struct ws_options opts;

static int ws_cmd(struct tool_ctx *ctx)
{
	int rc;

	log_set_level(LOG_LVL_ERROR);
	if (rpc_global_init() < 0)
		return WS_EXIT_FAIL;
	rpc_set_user_agent("wseq_submit " PACKAGE_VERSION);
	rc = detail_of(ctx)->run(&opts, ctx->argv[0]);
	rpc_global_cleanup();
	return rc;
}

static const struct tool_spec wseq_submit_spec = {
	.name = "wseq_submit",
	.usage = "usage: wseq_submit SUBCOMMAND [OPTIONS] ARG\n\n"
		 "Run a batch of jobs on a wseq (BOINC) project from an HTCondor submit\n"
		 "description, without HTCondor's boinc grid type. Subcommands:\n\n",
	.epilog = "\n'wseq_submit SUBCOMMAND --help' tells more. Exit status: 0 success, 1 a job\n"
		  "or the project failed, 2 a usage or description error. See doc/wseq_submit.md.\n",
	.settings = &opts,
	.flags = TOOL_NO_PROJECT_DIR | TOOL_OPTIONS_ANYWHERE,
	.cmds = commands,
	.help = cmd_help,
};

int main(int argc, char **argv)
{
	return tool_main(&wseq_submit_spec, argc, argv);
}
