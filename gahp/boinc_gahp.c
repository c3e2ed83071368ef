/*
 * boinc_gahp: the BOINC GAHP server. HTCondor's gridmanager starts it, reads
 * the banner and speaks the GAHP protocol over stdin and stdout
 * (doc/boinc_gahp.md). This file is the main thread: options, the optional
 * configuration file, and the command loop, which answers every request line
 * at once -- the synchronous commands itself, the asynchronous ones by
 * queueing them for the workers (boinc_gahp_queue.c).
 */
#include "boinc_gahp.h"
#include "submit_client.h"
#include "field.h"
#include "log.h"
#include "param.h"
#include "tool.h"

#include <signal.h>

/* ident(1) finds this; VERSION and the banner print it */
static const char version_string[] = "$GahpVersion: 1.0.2 Nov 22 2026 wseq\\ " PACKAGE_VERSION
				     "\\ BOINC\\ GAHP $";

static const char commands[] =
	"S ASYNC_MODE_OFF ASYNC_MODE_ON BOINC_ABORT_JOBS BOINC_FETCH_OUTPUT BOINC_PING "
	"BOINC_QUERY_BATCHES BOINC_RETIRE_BATCH BOINC_SELECT_PROJECT BOINC_SET_LEASE "
	"BOINC_SUBMIT COMMANDS QUIT RESPONSE_PREFIX RESULTS VERSION";

struct options {
	char *config;
	char *exec_app;
	long workers;
	long log_level;
	bool version;
};

static const struct param options[] = {
	{ "config", PARAM_STR, offsetof(struct options, config), NULL, 0, 0, 0, "FILE",
	  "project URL (line 1) and authenticator (line 2) to use until BOINC_SELECT_PROJECT "
	  "(default: config.txt in the working directory, if there is one)" },
	{ "exec_app", PARAM_STR, offsetof(struct options, exec_app), "wseq_exec", 0, 0, 0, "APP",
	  "the project's app that runs a job's own executable: a job whose APP is a path "
	  "(HTCondor's executable, a file) goes to it with that file" },
	{ "workers", PARAM_INT, offsetof(struct options, workers), "8", PARAM_BOUNDED, 1, 64, "N",
	  "requests served at the same time" },
	{ "log_level", PARAM_INT, offsetof(struct options, log_level), "2", PARAM_BOUNDED, 1, 3, "N",
	  "stderr detail: 1 errors, 2 also one line per SUBMIT, 3 also each finished request" },
	{ "version", PARAM_BOOL, offsetof(struct options, version), "0", 0, 0, 0, NULL,
	  "print the version and exit" },
	PARAM_TABLE_END
};

/* The project later requests go to: set by the config file or SELECT_PROJECT. */
static char *project_url;
static char *project_auth;

static const char usage[] =
	"usage: boinc_gahp [--config FILE] [--exec_app APP] [--workers N] [--log_level N]\n"
	"\n"
	"The BOINC GAHP server: HTCondor's gridmanager runs it (BOINC_GAHP in the\n"
	"HTCondor configuration) and drives BOINC remote job submission through it\n"
	"over stdin and stdout. Diagnostics go to stderr. See doc/boinc_gahp.md.\n";

static void select_project(const char *url, const char *auth)
{
	size_t n = strlen(url);

	free(project_url);
	if (project_auth) {
		memset(project_auth, 0, strlen(project_auth));
		free(project_auth);
	}
	/* script names are glued onto the URL */
	project_url = n && url[n - 1] == '/' ? xstrdup(url) : xasprintf("%s/", url);
	project_auth = xstrdup(auth);
}

static char *trimmed_line(FILE *fp)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, fp);
	char *s;

	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && strchr(" \t\r\n", line[n - 1]))
		line[--n] = '\0';
	for (s = line; *s == ' ' || *s == '\t'; s++)
		;
	s = xstrdup(s);
	free(line);
	return s;
}

/* 0 (also when the default file is absent), or -1. */
static int read_config(const char *path)
{
	const char *p = path ? path : "config.txt";
	FILE *fp = fopen(p, "r");
	char *url, *auth;
	int ret = -1;

	if (!fp) {
		if (!path && errno == ENOENT) {
			log_debug("no config.txt; waiting for BOINC_SELECT_PROJECT");
			return 0;
		}
		return log_error("cannot read %s: %s", p, strerror(errno));
	}
	url = trimmed_line(fp);
	auth = trimmed_line(fp);
	/*
	 * Blanked out of the log as well. Only here, before the workers start:
	 * the log's secret list is not safe to grow while threads log. Nothing
	 * passes an authenticator to the log anyway, and result lines go
	 * through gahp_error(), which blanks the request's own.
	 */
	if (auth)
		log_add_secret(auth);
	if (!url || !*url || !auth || !*auth || strchr(url, ' ') || strchr(auth, ' '))
		log_error("%s: want the project URL on line 1 and the authenticator on line 2", p);
	else {
		select_project(url, auth);
		ret = 0;
	}
	free(url);
	free(auth);
	fclose(fp);
	return ret;
}

/*
 * The return line for a request that cannot be taken: "E" and one token
 * saying why (control characters made blanks, the authenticator never).
 */
static void PRINTF_LIKE(1, 2) reply_e(const char *fmt, ...)
{
	struct sbuf msg = SBUF_INIT(64 * 1024), line = SBUF_INIT(64 * 1024);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	sbuf_addch(&line, 'E');
	gahp_error(&line, project_auth, "%s", sbuf_str(&msg));
	gahp_print(sbuf_str(&line));
	sbuf_release(&msg);
	sbuf_release(&line);
}

/* Take an asynchronous command; false if it is malformed (answered E). */
static bool accept_async(const struct gahp_cmd *cmd, char *line, int argc, char **argv)
{
	struct sbuf why = SBUF_INIT(4096);
	struct gahp_req *r;
	void *spec = NULL;

	if (cmd->parse(argc, argv, &spec, &why) < 0) {
		reply_e("%s: %s", cmd->name, sbuf_str(&why));
		sbuf_release(&why);
		return false;
	}
	sbuf_release(&why);
	r = xcalloc(1, sizeof(*r));
	r->cmd = cmd;
	r->line = line;
	r->argc = argc;
	r->argv = argv;
	r->spec = spec;
	r->reqid = xstrdup(argv[1]);
	if (project_url) {
		r->url = xstrdup(project_url);
		r->auth = xstrdup(project_auth);
	}
	gahp_submit(r);
	return true;
}

/* A synchronous command with the wrong arguments, or an unknown one: E saying which. */
static void bad_sync(const char *w, int argc)
{
	static const struct {
		const char *name, *use;
	} sync[] = {
		{ "QUIT", "QUIT" }, { "VERSION", "VERSION" }, { "COMMANDS", "COMMANDS" },
		{ "RESULTS", "RESULTS" }, { "ASYNC_MODE_ON", "ASYNC_MODE_ON" },
		{ "ASYNC_MODE_OFF", "ASYNC_MODE_OFF" }, { "RESPONSE_PREFIX", "RESPONSE_PREFIX PREFIX" },
		{ "BOINC_SELECT_PROJECT", "BOINC_SELECT_PROJECT URL AUTHENTICATOR" },
	};
	struct sbuf q = SBUF_INIT(256);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sync); i++) {
		if (strcasecmp(w, sync[i].name) == 0) {
			/* the arguments are never shown: one may be an authenticator */
			reply_e("%s: wrong number of arguments (%d): want %s", sync[i].name,
				argc - 1, sync[i].use);
			return;
		}
	}
	field_quote(&q, w, 32);
	reply_e("unknown command '%s'", sbuf_str(&q));
	sbuf_release(&q);
}

enum loop_end { LOOP_EOF, LOOP_QUIT };

/* One request line; returns 1 for QUIT, 0 otherwise. Takes line. */
static int handle(char *line)
{
	const struct gahp_cmd *cmd;
	char **argv = NULL;
	int argc = gahp_split(line, &argv);
	const char *w;
	int ret = 0;

	if (argc <= 0) {
		reply_e(argc < 0 ? "a request line may not end in a lone backslash"
				 : "an empty request line");
		goto out;
	}
	w = argv[0];
	if (strcasecmp(w, "QUIT") == 0 && argc == 1) {
		ret = 1;
	} else if (strcasecmp(w, "VERSION") == 0 && argc == 1) {
		char v[256];

		snprintf(v, sizeof(v), "S %s", version_string);
		gahp_print(v);
	} else if (strcasecmp(w, "COMMANDS") == 0 && argc == 1) {
		gahp_print(commands);
	} else if (strcasecmp(w, "RESULTS") == 0 && argc == 1) {
		gahp_results();
	} else if (strcasecmp(w, "ASYNC_MODE_ON") == 0 && argc == 1) {
		gahp_set_async(true);
	} else if (strcasecmp(w, "ASYNC_MODE_OFF") == 0 && argc == 1) {
		gahp_set_async(false);
	} else if (strcasecmp(w, "RESPONSE_PREFIX") == 0 && argc == 2) {
		/* the S still carries the old prefix: the new one is for later lines */
		gahp_print("S");
		gahp_set_prefix(argv[1]);
	} else if (strcasecmp(w, "BOINC_SELECT_PROJECT") == 0 && argc == 3) {
		select_project(argv[1], argv[2]);
		gahp_print("S");
	} else if ((cmd = gahp_find_cmd(w)) != NULL) {
		if (accept_async(cmd, line, argc, argv))
			return 0;       /* the request owns line and argv now */
	} else {
		bad_sync(w, argc);
	}
out:
	free(argv);
	free(line);
	return ret;
}

/* Read request lines until QUIT or the end of input. */
static enum loop_end command_loop(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int quit;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		size_t bs = 0;

		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		else
			break;  /* input ended inside a line: not a complete request */
		/* strip a CR line end, but not an escaped CR */
		while (bs + 1 < (size_t)n && line[n - 2 - bs] == '\\')
			bs++;
		if (n > 0 && line[n - 1] == '\r' && bs % 2 == 0)
			line[--n] = '\0';
		if ((size_t)n != strlen(line) || n > GAHP_MAX_LINE) {
			/* a NUL inside the line: no argument can hold it */
			reply_e(n > GAHP_MAX_LINE ? "a request line longer than %ld bytes"
						  : "a NUL byte in a request line (%ld bytes)",
				n > GAHP_MAX_LINE ? GAHP_MAX_LINE : (long)n);
			continue;
		}
		quit = handle(line);
		line = NULL;
		cap = 0;
		if (quit)
			return LOOP_QUIT;
	}
	free(line);
	return LOOP_EOF;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	enum loop_end how;

	if (o->version) {
		printf("boinc_gahp (wseq %s) %s\n", PACKAGE_VERSION, version_string);
		return 0;
	}
	log_set_level((int)o->log_level);
	gahp_exec_app = o->exec_app;
	signal(SIGPIPE, SIG_IGN);
	rpc_set_stop_hook(gahp_quitting);
	if (read_config(o->config) < 0 || rpc_global_init() < 0 || gahp_pool_start((int)o->workers) < 0)
		return -1;
	gahp_print(version_string);
	how = command_loop();
	/*
	 * QUIT or closed stdin: transfers in flight give up (their progress
	 * callbacks see the flag). A worker stuck anyway must not hold up the
	 * gridmanager: then leave without the tidying.
	 */
	if (!gahp_pool_stop(5, how == LOOP_QUIT)) {
		fflush(stdout);
		_exit(0);
	}
	rpc_global_cleanup();
	free(project_url);
	free(project_auth);
	return 0;
}

static struct options opts;

static const struct tool_spec boinc_gahp_spec = {
	.name = "boinc_gahp",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.flags = TOOL_NO_PROJECT_DIR,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&boinc_gahp_spec, argc, argv);
}
