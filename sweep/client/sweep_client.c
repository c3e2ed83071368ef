/*
 * sweep_client SESSION COMMAND MD5 URL (or HOST PORT, the sweep design's form): the
 * client of a parameter sweep (the sweep design, doc/seeds.md), started by the sweep master on
 * every host. It fetches
 * the configuration, makes sure it has the worker with the MD5 it was
 * given (fetching it for its platform when not), then runs task after task
 * until the master has none left, and tidies up as the configuration says.
 * See sweep_client.h for the parts and doc/sweep_client.md for the reference.
 */
#include "sweep_client.h"
#include "sweep_url.h"
#include "sweep_util.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "param.h"
#include "sig.h"
#include "tool.h"
#include "wtime.h"

#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define SESSION_MAX 256
#define STALE_COPY_AGE (24 * 3600)     /* seconds after which a half-made copy is left over */


struct options {
	char *dir;
	char *log;
	char *platform;
	char *host;
	long jobs;
	long nice;
	long max_silence;
	bool keep_tasks;
	bool verbose;
	bool version;
};

static const struct param options[] = {
	{ "dir", PARAM_STR, offsetof(struct options, dir), ".", 0, 0, 0, "DIR",
	  "work directory: a relative COMMAND and the task directories are here; made if missing" },
	{ "log", PARAM_STR, offsetof(struct options, log), "-", 0, 0, 0, "FILE",
	  "append the log to FILE instead of stderr" },
	{ "platform", PARAM_STR, offsetof(struct options, platform), SWEEP_PLATFORM, 0, 0, 0, "NAME",
	  "BOINC platform name asked for in GET /worker" },
	{ "host", PARAM_STR, offsetof(struct options, host), "", 0, 0, 0, "LABEL",
	  "who this client is in the master's statistics (default: this machine's name)" },
	{ "jobs", PARAM_INT, offsetof(struct options, jobs), "1", PARAM_BOUNDED, 0, 1024, "N",
	  "run N tasks at once (N copies of the task loop); 0: one per CPU" },
	{ "nice", PARAM_INT, offsetof(struct options, nice), "0", PARAM_BOUNDED, 0, 19, "N",
	  "add N to the niceness of the workers (and of this client), as nice -n N and GNU parallel's --nice do" },
	{ "max_silence", PARAM_INT, offsetof(struct options, max_silence), "300", PARAM_BOUNDED,
	  1, 604800, "SECS", "give up when the master has not answered for SECS seconds" },
	{ "keep_tasks", PARAM_BOOL, offsetof(struct options, keep_tasks), "0", 0, 0, 0, NULL,
	  "keep each task's directory (inputs, output files, stdout, stderr) for debugging" },
	{ "verbose", PARAM_BOOL, offsetof(struct options, verbose), "0", 0, 0, 0, NULL,
	  "log every request and worker start" },
	{ "version", PARAM_BOOL, offsetof(struct options, version), "0", 0, 0, 0, NULL,
	  "print the version and exit" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: sweep_client [OPTIONS] SESSION COMMAND MD5 URL\n"
	"       sweep_client [OPTIONS] SESSION COMMAND MD5 HOST PORT\n\n"
	"The client of a parameter sweep, started on each host by the sweep master.\n"
	"It registers with the master under SESSION (\"-\": read it from the first\n"
	"line of stdin, to keep it off the process list) at the sweep endpoints'\n"
	"base URL, a project's http://HOST:PORT/NAME_cgi/sweep (the requests are\n"
	"URL/config, URL/task ...); HOST PORT, the sweep design's form, is the server's\n"
	"root, http://HOST:PORT (/config, /task ...). It makes\n"
	"sure the worker COMMAND has the given MD5 (fetching it for its platform\n"
	"when missing or different), then fetches tasks, runs the worker on each\n"
	"and posts the results until the master has no task left.\n\n"
	"exit status: 0 no task left, 1 usage or local error or stopped, 2 session\n"
	"or worker name refused (403), 3 no worker for this platform (415), 4 the\n"
	"master's worker does not have MD5, 5 the master was silent too long.\n";

static void on_stop(int sig)
{
	(void)sig;
	sc_stop = 1;
}

static void signals_init(void)
{
	SIG_SET(on_stop, 0, SIGTERM, SIGINT);   /* no SA_RESTART: waits end early */
	/* the ssh session that started the client may end; the client stays */
	SIG_SET(SIG_IGN, 0, SIGPIPE, SIGHUP);
#ifdef __linux__
	/* orphans of the worker come back to the client, which reaps them */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
}

/* The session ID: printable, no blanks; "-" reads it from stdin. */
static int get_session(char *arg, char out[SESSION_MAX + 1])
{
	size_t n, i;

	if (!strcmp(arg, "-")) {
		if (!fgets(out, SESSION_MAX + 1, stdin))
			return log_error("no session ID on stdin");
		out[strcspn(out, "\r\n")] = '\0';
	} else {
		if (strlen(arg) > SESSION_MAX)
			return log_error("the session ID is longer than %d characters", SESSION_MAX);
		wstrlcpy(out, arg, SESSION_MAX + 1);
		/* shorten the time it shows in the process list */
		memset(arg, 'x', strlen(arg));
	}
	n = strlen(out);
	if (!n)
		return log_error("empty session ID");
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)out[i]))
			return log_error("the session ID has a blank or control character");
	log_add_secret(out);
	return 0;
}

static int check_md5(const char *arg, char out[MD5_HEX_LEN + 1])
{
	size_t i;

	if (strlen(arg) != MD5_HEX_LEN)
		return log_error("MD5 must be %d hex digits, not '%s'", MD5_HEX_LEN, arg);
	for (i = 0; i < MD5_HEX_LEN; i++) {
		if (!isxdigit((unsigned char)arg[i]))
			return log_error("MD5 must be %d hex digits, not '%s'", MD5_HEX_LEN, arg);
		out[i] = (char)tolower((unsigned char)arg[i]);
	}
	out[MD5_HEX_LEN] = '\0';
	return 0;
}

/*
 * The master's base URL: the URL argument, or http://HOST:PORT (the
 * server's root) from the sweep design's two. NULL when it is not usable.
 */
static char *master_url(char **args, int nargs)
{
	struct sbuf err = SBUF_INIT(1024);
	char *url = NULL;
	long p;

	if (nargs == 1) {
		if (sweep_check_base_url(args[0], &url, &err) < 0)
			log_error("%s", sbuf_str(&err));
	} else if (!*args[0] || strpbrk(args[0], "/@?#% \t\r\n")) {
		log_error("bad server host '%s'", args[0]);
	} else if (parse_long(args[1], &p) < 0 || p < 1 || p > 65535) {
		log_error("bad server port '%s'", args[1]);
	} else {
		url = sweep_base_url(args[0], args[1], NULL);
	}
	sbuf_release(&err);
	return url;
}

/*
 * Where this program is, for DeleteClient: NULL if not known. argv0 first:
 * started through a loader (a bundle's start), the executable is the loader.
 */
static char *self_path(const char *argv0)
{
	char buf[PATH_MAX], *p = strchr(argv0, '/') ? realpath(argv0, NULL) : NULL;
	ssize_t n;

	if (p)
		return p;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		return xstrdup(buf);
	}
	return NULL;
}

/*
 * The bundle this client runs from (sweep_bundle.sh; its start says so), or
 * NULL: a bundle is deleted whole, so that no host keeps half of one.
 */
static char *bundle_dir(const char *self)
{
	struct sbuf b = SBUF_INIT(4096);
	const char *slash = strrchr(self, '/');
	char *dir, *start;
	bool ours;

	if (!slash || slash == self)
		return NULL;
	dir = xstrndup(self, (size_t)(slash - self));
	start = xasprintf("%s/start", dir);
	ours = read_file(start, 4000, &b) == 0 && strstr(sbuf_str(&b), "made by sweep_bundle.sh");
	free(start);
	sbuf_release(&b);
	if (!ours) {
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * Copies of a bundle that a master left half made beside this one -- it was
 * killed while copying, or lost the race to rename its copy on a host with
 * no rm (.sweep_client-ID.tmp-X, doc/sweep.md) -- removed once a day old.
 */
static void remove_stale_copies(const char *bundle)
{
	char *parent = xstrndup(bundle, (size_t)(strrchr(bundle, '/') - bundle));
	DIR *d = opendir(parent);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		struct stat st;
		char *path;

		if (strncmp(e->d_name, ".sweep_client-", 14) || !strstr(e->d_name, ".tmp-"))
			continue;
		path = xasprintf("%s/%s", parent, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_mtime < time(NULL) - STALE_COPY_AGE && remove_tree(path) == 0)
			log_info("removed %s, a copy of a client left half made", path);
		free(path);
	}
	if (d)
		closedir(d);
	free(parent);
}

/* DeleteClient: the bundle renamed away (gone at once for a master that looks), then removed. */
static void delete_self(const char *self)
{
	char *dir = bundle_dir(self), *gone;

	if (!dir) {
		if (unlink(self) < 0 && errno != ENOENT)
			log_warn("cannot delete the client %s: %s", self, strerror(errno));
		else
			log_info("deleted the client %s", self);
		return;
	}
	gone = xasprintf("%s.deleted-%ld", dir, (long)getpid());
	if (rename(dir, gone) < 0 || remove_tree(gone) < 0)
		log_warn("cannot delete the client's bundle %s: %s", dir, strerror(errno));
	else
		log_info("deleted the client's bundle %s", dir);
	free(gone);
	free(dir);
}

struct client {
	struct options o;
	struct sc_http http;
	struct sc_ctx ctx;
	struct sweep_config conf;
	bool have_conf;
	bool fetched;           /* the worker was fetched by this run */
	char md5[MD5_HEX_LEN + 1];
	char *worker;           /* absolute path */
	const char *name;       /* the worker's name: the last part of COMMAND */
	char *self;
	unsigned long done, failed, dropped;
	double bad_since;       /* first unusable task body in a row */
	bool is_job;            /* a forked copy of the task loop (--jobs): the parent tidies up */
};

static int req_exit(enum sc_req r)
{
	return r == SC_REQ_SILENT ? SC_EXIT_SILENT : SC_EXIT_ERROR;
}

/* An answer that came but cannot be used; true while there is time to ask again. */
static bool bad_answer(struct client *cl)
{
	if (cl->bad_since == 0)
		cl->bad_since = dnow();
	if (dnow() - cl->bad_since >= (double)cl->o.max_silence) {
		log_error("no usable answer from the master for %ld s: giving up", cl->o.max_silence);
		return false;
	}
	return sc_http_backoff(&cl->http);
}

static int get_config(struct client *cl)
{
	static const long accept[] = { 200, 403, 0 };
	struct sc_reply r;
	struct sbuf err = SBUF_INIT(1024);
	int rc = -1;
	enum sc_req q;

	sc_reply_init(&r);
	for (;;) {
		q = sc_request(&cl->http, "/config", NULL, NULL, accept, &r);
		if (q != SC_REQ_OK) {
			rc = req_exit(q);
			break;
		}
		if (r.status == 403) {
			log_error("the master refused the session (403 Forbidden on /config)");
			rc = SC_EXIT_FORBIDDEN;
			break;
		}
		sbuf_reset(&err);
		if (sweep_config_decode(r.body.buf ? r.body.buf : "", r.body.len, SWEEP_MSG_MAX,
					&cl->conf, &err) == 0) {
			cl->have_conf = true;
			cl->bad_since = 0;
			log_info("configuration: DeleteWorker=%s DeleteClient=%s Ping=%ld",
				 cl->conf.delete_worker ? "Yes" : "No",
				 cl->conf.delete_client ? "Yes" : "No", cl->conf.ping);
			rc = 0;
			break;
		}
		log_warn("bad configuration from the master: %s", sbuf_str(&err));
		if (!bad_answer(cl)) {
			rc = sc_stop ? SC_EXIT_ERROR : SC_EXIT_SILENT;
			break;
		}
	}
	sc_reply_release(&r);
	sbuf_release(&err);
	return rc;
}

/* Make sure the worker file has the MD5 asked for; fetch it if not. 0 or an exit status. */
static int ensure_worker(struct client *cl)
{
	static const long accept[] = { 200, 403, 415, 0 };
	struct sc_reply r;
	char *extra, *n, *p;
	char hex[MD5_HEX_LEN + 1];
	int rc;
	enum sc_req q;

	if (sc_worker_ok(cl->worker, cl->md5)) {
		if (access(cl->worker, X_OK) < 0 && chmod(cl->worker, 0755) < 0) {
			log_error("cannot make %s executable: %s", cl->worker, strerror(errno));
			return SC_EXIT_ERROR;
		}
		return 0;
	}
	log_info("fetching the worker '%s' for %s", cl->name, cl->o.platform);
	n = curl_easy_escape(cl->http.curl, cl->name, 0);
	p = curl_easy_escape(cl->http.curl, cl->o.platform, 0);
	extra = xasprintf("&name=%s&platform=%s", n ? n : "", p ? p : "");
	curl_free(n);
	curl_free(p);
	sc_reply_init(&r);
	q = sc_request(&cl->http, "/worker", extra, NULL, accept, &r);
	free(extra);
	if (q != SC_REQ_OK) {
		rc = req_exit(q);
	} else if (r.status == 403) {
		log_error("the master refused the session or the worker name '%s' (403 Forbidden)",
			  cl->name);
		rc = SC_EXIT_FORBIDDEN;
	} else if (r.status == 415) {
		log_error("the master has no worker '%s' for platform %s (415 Unsupported Media Type)",
			  cl->name, cl->o.platform);
		rc = SC_EXIT_PLATFORM;
	} else if (md5_buf(r.body.buf ? r.body.buf : "", r.body.len, hex) < 0) {
		rc = SC_EXIT_ERROR;
	} else if (strcmp(hex, cl->md5) != 0) {
		log_error("the worker the master sent has md5 %s, not %s: not using it", hex, cl->md5);
		rc = SC_EXIT_MD5;
	} else if (mkdir_parent(cl->worker, 0755) < 0 ||
		   write_file_atomic(cl->worker, r.body.buf ? r.body.buf : "", r.body.len, 0755) < 0 ||
		   !sc_worker_ok(cl->worker, cl->md5)) {
		log_error("cannot install the worker as %s", cl->worker);
		rc = SC_EXIT_ERROR;
	} else {
		log_info("worker installed as %s (%zu bytes)", cl->worker, r.body.len);
		cl->fetched = true;
		rc = 0;
	}
	sc_reply_release(&r);
	return rc;
}

/* A task body that does not decode: report it failed if it names a ticket. 0 or an exit status. */
static int bad_task(struct client *cl, const struct sc_reply *r, const char *why)
{
	char *ticket = sc_salvage_ticket(r->body.buf ? r->body.buf : "", r->body.len);
	enum sc_task_end end;

	if (!ticket) {
		log_warn("unusable task from the master, without a ticket: %s", why);
		if (!bad_answer(cl))
			return sc_stop ? SC_EXIT_ERROR : SC_EXIT_SILENT;
		return 0;
	}
	cl->failed++;
	end = sc_task_report_failed(&cl->ctx, ticket, why);
	free(ticket);
	return end == SC_TASK_FORBIDDEN ? SC_EXIT_FORBIDDEN
	       : end == SC_TASK_SILENT  ? SC_EXIT_SILENT
	       : end == SC_TASK_STOPPED ? SC_EXIT_ERROR
					: 0;
}

static int task_loop(struct client *cl)
{
	static const long accept[] = { 200, 403, 503, 0 };
	struct sc_reply r;
	struct sbuf err = SBUF_INIT(1024);
	int rc = -1;

	sc_reply_init(&r);
	while (rc < 0) {
		struct sweep_task t;
		enum sc_req q = sc_request(&cl->http, "/task", NULL, NULL, accept, &r);
		enum sc_task_end end;

		if (q != SC_REQ_OK) {
			rc = req_exit(q);
			break;
		}
		if (r.status == 503) {
			log_info("no task left: %lu done, %lu failed, %lu dropped", cl->done, cl->failed,
				 cl->dropped);
			rc = SC_EXIT_DONE;
			break;
		}
		if (r.status == 403) {
			log_error("the master refused the session (403 Forbidden on /task)");
			rc = SC_EXIT_FORBIDDEN;
			break;
		}
		sbuf_reset(&err);
		memset(&t, 0, sizeof(t));
		if (sweep_task_decode(r.body.buf ? r.body.buf : "", r.body.len, SWEEP_MSG_MAX, &t,
				      &err) < 0) {
			int x = bad_task(cl, &r, sbuf_str(&err));

			if (x)
				rc = x;
			continue;
		}
		cl->bad_since = 0;
		/* checked before every task: the file may have changed under the client */
		if ((rc = ensure_worker(cl)) != 0) {
			sweep_task_release(&t);
			break;
		}
		rc = -1;
		end = sc_task_run(&cl->ctx, &t);
		sweep_task_release(&t);
		switch (end) {
		case SC_TASK_DONE:
			cl->done++;
			break;
		case SC_TASK_FAILED:
			cl->failed++;
			break;
		case SC_TASK_DROPPED:
			cl->dropped++;
			break;
		case SC_TASK_FORBIDDEN:
			rc = SC_EXIT_FORBIDDEN;
			break;
		case SC_TASK_SILENT:
			rc = SC_EXIT_SILENT;
			break;
		case SC_TASK_STOPPED:
			rc = SC_EXIT_ERROR;
			break;
		}
	}
	sc_reply_release(&r);
	sbuf_release(&err);
	return rc;
}

/*
 * The task loop, --jobs times at once: copies forked once the configuration
 * and the worker are there, each with a connection of its own; the first
 * status that is not 0 is the client's. A stop signal reaches the copies
 * through the parent (and, on Linux, when the parent dies).
 */
static int run_jobs(struct client *cl)
{
	long n = cl->o.jobs ? cl->o.jobs : sysconf(_SC_NPROCESSORS_ONLN), i, k = 0;
	pid_t *kids;
	int rc, status;

	if (n < 1)
		n = 1;
	kids = xcalloc((size_t)n, sizeof(*kids));
	for (i = 1; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			free(kids);
			cl->is_job = true;
#ifdef __linux__
			prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
			prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
			if (sc_http_fork(&cl->http) < 0)
				return SC_EXIT_ERROR;
			return task_loop(cl);
		}
		if (pid < 0) {
			log_warn("cannot start more than %ld jobs: %s", k + 1, strerror(errno));
			break;
		}
		kids[k++] = pid;
	}
	if (k)
		log_info("%ld jobs at once", k + 1);
	rc = task_loop(cl);
	for (i = 0; i < k; i++) {
		if (sc_stop)
			kill(kids[i], SIGTERM);
		while (waitpid(kids[i], &status, 0) < 0) {
			if (errno != EINTR)
				break;
			if (sc_stop)
				kill(kids[i], SIGTERM);
		}
		if (rc == 0 && WIFEXITED(status))
			rc = WEXITSTATUS(status);
	}
	free(kids);
	return rc;
}

/* What the configuration says to do at the end, whatever the end. */
static void tidy_up(struct client *cl)
{
	if (!cl->have_conf)
		return;
	if (cl->conf.delete_worker && cl->fetched) {
		if (unlink(cl->worker) < 0 && errno != ENOENT)
			log_warn("cannot delete the worker %s: %s", cl->worker, strerror(errno));
		else
			log_info("deleted the worker %s", cl->worker);
	}
	if (cl->conf.delete_client) {
		if (!cl->self)
			log_warn("cannot delete the client: its path is not known");
		else
			delete_self(cl->self);
	}
}

/* The worker's path and name, the work directory, this host's label. */
static int setup_dirs(struct client *cl, const char *cmd)
{
	char cwd[PATH_MAX];
	const char *slash;

	if (!*cmd || cmd[strlen(cmd) - 1] == '/')
		return log_error("bad worker command '%s'", cmd);
	slash = strrchr(cmd, '/');
	cl->name = slash ? slash + 1 : cmd;
	if (!*cl->o.platform || strpbrk(cl->o.platform, " \t\r\n&?#"))
		return log_error("bad platform name '%s'", cl->o.platform);
	if (mkdir_p(cl->o.dir, 0700) < 0)
		return -1;
	if (chdir(cl->o.dir) < 0)
		return log_error("cannot enter %s: %s", cl->o.dir, strerror(errno));
	if (!getcwd(cwd, sizeof(cwd)))
		return log_error("cannot find the work directory: %s", strerror(errno));
	cl->worker = cmd[0] == '/' ? xstrdup(cmd) : xasprintf("%s/%s", cwd, cmd);
	free(cl->o.dir);
	cl->o.dir = xstrdup(cwd);
	if (!*cl->o.host) {
		char hn[256] = "";

		gethostname(hn, sizeof(hn) - 1);
		free(cl->o.host);
		cl->o.host = xstrdup(*hn ? hn : "unknown");
	}
	return 0;
}

static int setup(struct client *cl, char **argv, int argc, char *session)
{
	char *url;
	int rc;

	if (get_session(argv[0], session) < 0 || check_md5(argv[2], cl->md5) < 0)
		return -1;
	url = master_url(argv + 3, argc - 3);
	if (!url)
		return -1;
	rc = setup_dirs(cl, argv[1]);
	if (rc == 0)
		rc = sc_http_init(&cl->http, url, session, cl->o.host, cl->o.max_silence);
	free(url);
	if (rc < 0)
		return -1;
	cl->ctx.http = &cl->http;
	cl->ctx.dir = cl->o.dir;
	cl->ctx.worker = cl->worker;
	cl->ctx.worker_md5 = cl->md5;
	cl->ctx.keep = cl->o.keep_tasks;
	return 0;
}

static struct client cl;
static char session[SESSION_MAX + 1];

/* --version needs no arguments; else SESSION COMMAND MD5 URL or ... HOST PORT. */
static int check_args(struct tool_ctx *ctx)
{
	if (cl.o.version || (ctx->argc >= 4 && ctx->argc <= 5))
		return 0;
	return tool_usage_error("need 4 or 5 arguments: SESSION COMMAND MD5 URL, or "
				"SESSION COMMAND MD5 HOST PORT");
}

static int client_run(struct tool_ctx *ctx)
{
	char *bundle;
	int rc;

	if (cl.o.version) {
		printf("sweep_client (wseq %s) platform %s\n", PACKAGE_VERSION, SWEEP_PLATFORM);
		return 0;
	}
	if (cl.o.verbose)
		log_set_level(LOG_LVL_DEBUG);
#ifdef __linux__
	/* started by a bundle's loader, still "sweep_client" to ps and pkill */
	prctl(PR_SET_NAME, "sweep_client", 0, 0, 0);
#endif
	cl.self = self_path(ctx->all_argv[0]);
	if (log_init("sweep_client", cl.o.log) < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0 ||
	    setup(&cl, ctx->argv, ctx->argc, session) < 0)
		return SC_EXIT_ERROR;
	signals_init();
	errno = 0;
	if (cl.o.nice && nice((int)cl.o.nice) == -1 && errno)
		log_warn("cannot add %ld to the niceness: %s", cl.o.nice, strerror(errno));
	bundle = cl.self ? bundle_dir(cl.self) : NULL;
	if (bundle)
		remove_stale_copies(bundle);
	free(bundle);
	log_info("sweep_client %s: master %s, worker %s (md5 %s), platform %s, work directory %s",
		 PACKAGE_VERSION, cl.http.base, cl.worker, cl.md5, cl.o.platform, cl.o.dir);
	rc = get_config(&cl);
	if (rc == 0) {
		cl.ctx.ping = cl.conf.ping;
		cl.ctx.send_output = cl.conf.send_output;
		rc = ensure_worker(&cl);
	}
	if (rc == 0)
		rc = run_jobs(&cl);
	if (sc_stop)
		log_info("stopped by a signal");
	if (!cl.is_job)
		tidy_up(&cl);
	return rc;
}

static void client_fini(struct tool_ctx *ctx)
{
	(void)ctx;
	sc_http_release(&cl.http);
	curl_global_cleanup();
	memset(session, 0, sizeof(session));
	free(cl.worker);
	free(cl.self);
}

static const struct tool_spec sweep_client_spec = {
	.name = "sweep_client",
	.usage = usage,
	.params = options,
	.settings = &cl.o,
	.flags = TOOL_NO_PROJECT_DIR,
	.max_args = -1,
	.check = check_args,
	.run = client_run,
	.fini = client_fini,
	/* the master reads 2 as 403 (enum sc_exit): a usage error stays 1 */
	.usage_status = SC_EXIT_ERROR,
};

int main(int argc, char **argv)
{
	return tool_main(&sweep_client_spec, argc, argv);
}
