/*
 * `sweep run SPEC` and `sweep resume SESSION` (see sweep_run.h, doc/sweep.md).
 *
 * The master is one process with a loop. By default it keeps the sweep in
 * its state directory (sweep_state.c) and answers the clients itself: the
 * endpoints' handler (sweep_endpoints.h) behind its embedded HTTP server
 * (serve_http.h), whose threads take turns with the loop on one lock -- the
 * loop holds it but while it naps. In a project (--project_dir, --sandbox)
 * the project's Apache answers instead. Each host of the cluster file has
 * a small state machine of ssh and sftp steps (sweep_hosts.c). Around them
 * the loop judges the results that came back, draws the progress and ends
 * when every task ended (or no host is left to run the rest). Everything it
 * knows of the tasks is in the database, so a master killed at any moment
 * loses nothing: `sweep resume` starts the clients again and carries on.
 * The figures at the end are sweep_stats.c's.
 */
#include "sweep_run_int.h"
#include "sweep_bundle.h"
#include "config.h"
#include "serve_http.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sbuf.h"
#include "sig.h"
#include "sweep_cluster.h"
#include "sweep_endpoints.h"
#include "sweep_joblog.h"
#include "sweep_results.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_spec.h"
#include "sweep_store.h"
#include "sweep_url.h"
#include "sweep_util.h"
#include "wtime.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define TICK_MS 200             /* the loop's period */
#define JUDGE_EVERY 1.0         /* seconds between looks at the database */
#define LINES_EVERY 10.0        /* seconds between progress lines (not a terminal) */
#define END_WAIT 15.0           /* seconds the clients get to hear "no task left" */
#define STOP_WAIT 10.0          /* seconds the clients get to stop when told to */
#define JOBLOG_EVERY 5.0        /* seconds between writes of --joblog while the sweep runs */
#define PROJECT_PORT 8080       /* a private project's port when the spec's Server names none */
#define DRAIN_MS 2000           /* the embedded server's last requests, at the end */

static volatile sig_atomic_t stop_sig;
static sigset_t child_set;      /* SIGCHLD: blocked but while the loop naps */

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig;              /* it only ends nap() early */
}

/*
 * Wait ms milliseconds, or less when a child ends (its step moves on at
 * once) or a signal comes. The embedded server's handlers have the lock
 * meanwhile.
 */
static void nap(struct run *r, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	sigset_t during;

	pthread_sigmask(SIG_BLOCK, NULL, &during);
	sigdelset(&during, SIGCHLD);
	pthread_mutex_unlock(&r->lock);
	ppoll(NULL, 0, &ts, &during);
	pthread_mutex_lock(&r->lock);
}

/* In a child before exec: the signal mask as the master was given it. */
void sweep_child_signals(void)
{
	sigprocmask(SIG_UNBLOCK, &child_set, NULL);
}

/* ---- helpers ---------------------------------------------------------------------- */

/* A program installed beside this one (or, run from the build tree, staged in its
 * stage/bin/), else on PATH. */
static char *find_tool(const char *name)
{
	char self[PATH_MAX], *slash, *p;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			p = xasprintf("%s/%s", self, name);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
#ifdef WSEQ_STAGE_BINDIR
	p = xasprintf("%s/%s", WSEQ_STAGE_BINDIR, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
#endif
	return xstrdup(name);   /* execvp searches PATH */
}

/* Append s single-quoted for a POSIX shell. */
void sweep_sh_quote(struct sbuf *b, const char *s)
{
	sbuf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_addstr(b, "'\\''");
		else
			sbuf_addch(b, *s);
	}
	sbuf_addch(b, '\'');
}

/*
 * Run argv, wait for it; its exit status, or -1. Its output goes to the
 * file out (appended), or to our stderr when out is NULL -- never to our
 * stdout, which carries the statistics only.
 */
static int run_wait(char *const argv[], const char *out)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		int o = out ? open(out, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;

		sweep_child_signals();
		dup2(fd, 0);
		dup2(o >= 0 ? o : fd, 1);
		dup2(o >= 0 ? o : fd, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "sweep: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- the project ------------------------------------------------------------------- */

char *sweep_project_path(const struct sweep_run_opts *o, char **sandbox)
{
	*sandbox = NULL;
	if (!o->sandbox)
		return o->project ? xasprintf("%s/config.xml", o->project) : NULL;
	*sandbox = xstrdup(o->sandbox);
	return xasprintf("%s/project/config.xml", *sandbox);
}

/* The port a project's web server listens on for the sweep: the spec's, else PROJECT_PORT. */
static int project_port(const struct run *r)
{
	return r->spec.server_port ? r->spec.server_port : PROJECT_PORT;
}

/*
 * The private project: its directory, started (or created) listening on the
 * spec's Server. A marker file says sweep started it, so the run that ends
 * the sweep -- this one or a resume after a crash -- stops it again; one the
 * user started stays up.
 */
static int sandbox_up(struct run *r, bool with_address)
{
	const struct sweep_run_opts *o = r->o;
	char *tool = find_tool("wseq_sandbox"), *port = NULL, *marker, *log;
	char *argv[12];
	size_t n = 0;
	int rc;

	if (mkdir_p(r->sandbox, 0755) < 0) {
		free(tool);
		return -1;
	}
	marker = xasprintf("%s/started-by-sweep", r->sandbox);
	argv[0] = tool;
	argv[1] = "status";
	argv[2] = r->sandbox;
	argv[3] = NULL;
	if (run_wait(argv, "/dev/null") != 0)
		write_file_atomic(marker, "", 0, 0644);
	r->started_sandbox = access(marker, F_OK) == 0;
	free(marker);
	argv[n++] = tool;
	argv[n++] = "up";
	argv[n++] = r->sandbox;
	argv[n++] = "--name";
	argv[n++] = "sweep";
	if (with_address) {
		const char *a = r->spec.server_host && *r->spec.server_host ? r->spec.server_host
			: "0.0.0.0";

		port = xasprintf("%d", project_port(r));
		argv[n++] = "--http-port";
		argv[n++] = port;
		argv[n++] = "--http-address";
		argv[n++] = (char *)a;
	}
	argv[n] = NULL;
	log_info("starting the private project in %s", r->sandbox);
	log = xasprintf("%s/sweep-sandbox.log", r->sandbox);
	rc = run_wait(argv, o->verbose ? NULL : log);
	if (rc != 0) {
		struct sbuf b = SBUF_INIT(1 << 20);

		read_file(log, 1 << 20, &b);
		if (!o->verbose && b.len)
			fprintf(stderr, "%s", sbuf_str(&b));
		log_error("the private project in %s did not start (wseq_sandbox up: exit %d)",
			  r->sandbox, rc);
		sbuf_release(&b);
	}
	free(log);
	free(port);
	free(tool);
	return rc ? -1 : 0;
}

static void sandbox_down(struct run *r)
{
	char *tool = find_tool("wseq_sandbox"), *marker = xasprintf("%s/started-by-sweep", r->sandbox);
	char *log = xasprintf("%s/sweep-sandbox.log", r->sandbox);
	char *argv[] = { tool, "down", r->sandbox, NULL };

	log_info("stopping the private project in %s", r->sandbox);
	if (run_wait(argv, r->o->verbose ? NULL : log) == 0)
		unlink(marker);
	free(marker);
	free(log);
	free(tool);
}

/* The embedded store of the state directory. */
static int state_open(struct run *r)
{
	r->state = sweep_state_dir(r->o);
	r->store = sweep_state_open(r->state, &r->files);
	return r->store ? 0 : -1;
}

/* Where the sweep lives: the state directory, or the project named. */
static int home_open(struct run *r, bool create)
{
	char *path;

	if (!sweep_in_project(r->o))
		return state_open(r);
	path = sweep_project_path(r->o, &r->sandbox);

	if (r->sandbox && sandbox_up(r, create) < 0) {
		free(path);
		return -1;
	}
	if (config_load(&r->cfg, path, NULL, NULL) < 0) {
		free(path);
		return -1;
	}
	r->have_cfg = true;
	sweep_files_project(&r->files, &r->cfg);
	r->store = sweep_project_store(path, 30);
	free(path);
	return r->store ? 0 : log_error("cannot open the project database");
}

/* ---- progress ------------------------------------------------------------------------ */

static void fmt_secs(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void show_progress(struct run *r, const struct sweep_stats *st, bool last)
{
	static double last_line;
	size_t ended = st->done + st->failed;
	double el = dnow() - r->t0;
	char eta[32] = "?", elapsed[32];

	if (!r->progress)
		return;
	if (ended > r->done0 && st->total > ended)
		fmt_secs(eta, sizeof(eta), el / (double)(ended - r->done0) * (double)(st->total - ended));
	else if (st->total == ended)
		snprintf(eta, sizeof(eta), "0:00");
	fmt_secs(elapsed, sizeof(elapsed), el);
	if (r->progress == 2) {
		char bar[41];
		size_t w = sizeof(bar) - 1, k = st->total ? ended * w / st->total : w, i;

		for (i = 0; i < w; i++)
			bar[i] = i < k ? '#' : '.';
		bar[w] = 0;
		fprintf(stderr, "\r[%s] %zu/%zu done, %zu failed, %zu running, %zu hosts busy, "
			"%s left \033[K%s", bar, st->done, st->total, st->failed, st->running,
			sweep_hosts_busy(r), eta, last ? "\n" : "");
	} else if (last || dnow() - last_line >= LINES_EVERY) {
		fprintf(stderr, "sweep: %s elapsed: %zu/%zu done, %zu failed, %zu running, "
			"%zu waiting; %s left\n", elapsed, st->done, st->total, st->failed,
			st->running, st->waiting, eta);
		last_line = dnow();
	}
	fflush(stderr);
}

/* ---- the run ----------------------------------------------------------------------- */

static int setup_hosts(struct run *r)
{
	struct sweep_cluster c = { NULL, 0 };
	struct sbuf err = SBUF_INIT(4096);
	char *path;
	size_t i;
	int rc;

	if (!r->spec.cluster)
		return log_error("%s: no Cluster= file: there are no hosts to run on", r->spec.name);
	path = r->spec.cluster[0] == '/' ? xstrdup(r->spec.cluster)
		: xasprintf("%s/%s", r->spec.dir, r->spec.cluster);
	rc = sweep_cluster_read(path, &c, &err);
	free(path);
	if (rc < 0) {
		log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	sbuf_release(&err);
	if (!c.n) {
		sweep_cluster_release(&c);
		return log_error("%s: the cluster file lists no host", r->spec.name);
	}
	r->hosts = xcalloc(c.n, sizeof(*r->hosts));
	r->nhosts = c.n;
	for (i = 0; i < c.n; i++) {
		struct sbuf l = SBUF_INIT(1024);

		r->hosts[i].h = c.hosts[i];
		sweep_host_format(&c.hosts[i], &l);
		r->hosts[i].label = sbuf_detach(&l, NULL);
	}
	free(c.hosts);          /* the strings now belong to r->hosts */
	return 0;
}

static void on_report(void *arg, int64_t session, bool success);

/* The embedded server's handler: the sweep endpoints over the run's store. */
static void serve_endpoints(void *state, struct serve_req *io)
{
	sweep_endpoints_serve(state, io);
}

/*
 * The embedded HTTP server on the spec's Server address (port 0: one the
 * kernel picks), answering the endpoints at its root as the sweep design
 * has them. Its threads take no signal: the loop's thread has them all.
 */
static int server_start(struct run *r)
{
	struct serve_http_opts so = { 0 };
	struct sbuf err = SBUF_INIT(1024);
	sigset_t all, old;

	so.addr = r->spec.server_host;
	so.port = (unsigned)r->spec.server_port;
	so.spool_dir = r->spool = xasprintf("%s/spool", r->state);
	so.lock = &r->lock;
	r->ep.store = r->store;
	r->ep.files = &r->files;
	r->ep.reported = on_report;
	r->ep.reported_arg = r;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r->http = serve_http_start(&so, serve_endpoints, &r->ep, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r->http)
		log_error("cannot listen on %s:%d: %s", so.addr, r->spec.server_port, sbuf_str(&err));
	else
		log_info("listening on %s:%u", so.addr, serve_http_port(r->http));
	sbuf_release(&err);
	return r->http ? 0 : -1;
}

/*
 * The URL the clients are given: the spec's ServerName (else its Server
 * address, else this machine's name) and port, then the embedded server's
 * root (the sweep design's form), or in a project its own path to its
 * sweep endpoints, <cgi_url>sweep.
 */
static int setup_url(struct run *r)
{
	const char *host = r->spec.server_name;
	char hn[256] = "", *port, *path;

	if (r->have_cfg && !r->cfg.cgi_url)
		return log_error("%s/config.xml has no <cgi_url>: the sweep endpoints are at <cgi_url>%s",
				 r->cfg.project_dir, SWEEP_CGI_NAME);
	if (!host && r->spec.server_host && *r->spec.server_host &&
	    strcmp(r->spec.server_host, "0.0.0.0") && strcmp(r->spec.server_host, "::"))
		host = r->spec.server_host;
	if (!host) {
		gethostname(hn, sizeof(hn) - 1);
		host = *hn ? hn : "localhost";
	}
	port = r->http ? xasprintf("%u", serve_http_port(r->http)) : xasprintf("%d", project_port(r));
	path = r->http ? NULL : sweep_endpoint_path(r->cfg.cgi_url);
	r->url = sweep_base_url(host, port, path);
	log_info("the clients connect to %s", r->url);
	free(port);
	free(path);
	return 0;
}

static int setup_worker(struct run *r)
{
	const struct sweep_spec_worker *w = sweep_spec_worker_for(&r->spec, SWEEP_PLATFORM);
	char *path;
	int rc;

	if (!w)
		return log_error("%s: no [Worker] for %s, the platform of the sweep_client this "
				 "master deploys", r->spec.name, SWEEP_PLATFORM);
	path = w->file[0] == '/' ? xstrdup(w->file) : xasprintf("%s/%s", r->spec.dir, w->file);
	rc = md5_file(path, r->md5, NULL);
	free(path);
	if (rc < 0)
		return -1;
	r->client = sweep_bundle_find(r->o->client, SWEEP_PLATFORM);
	if (!r->client || sweep_bundle_id(r->client, r->client_md5) < 0)
		return -1;
	return setup_url(r);
}

/* The spec of an existing session: the batch names it. */
static int session_spec(struct run *r)
{
	struct sbuf err = SBUF_INIT(4096);
	int rc = sweep_session_load(r->store, r->sid, NULL, &r->spec, NULL, &err);

	if (rc < 0)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return rc;
}

static int judge(struct run *r, bool output, struct sweep_stats *st)
{
	struct sweep_collect_stats cs;
	struct sbuf err = SBUF_INIT(4096);
	int rc = sweep_session_collect(r->store, &r->files, r->sid, output, &cs, &err);

	if (rc == 0)
		rc = sweep_session_stats(r->store, r->sid, false, st, &err);
	if (rc < 0)
		log_error("%s", sbuf_str(&err));
	else if (output)
		log_info("output written to %s", cs.output);
	free(cs.output);
	sbuf_release(&err);
	return rc;
}

/*
 * Remove what masters that are gone (killed with -9) left in tmp:
 * directories wseq-sweep-PID.* of ours whose PID no longer runs.
 */
static void ctl_sweep_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;
		struct stat st;
		long pid;

		if (sscanf(e->d_name, "wseq-sweep-%ld.", &pid) != 1 || pid <= 0 ||
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		path = xasprintf("%s/%s", tmp, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			remove_tree(path);
		free(path);
	}
	closedir(d);
}

/*
 * A directory for the hosts' ssh control sockets, in TMPDIR or else /tmp: a
 * socket's path is short (107 bytes), and ssh adds 58 to the directory's
 * (the 40-digit %C and a temporary suffix). Without one every step logs in anew.
 */
static void ctl_open(struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (!tmp || !*tmp || strlen(tmp) + sizeof("/wseq-sweep-4194304.XXXXXX") > 49)
		tmp = "/tmp";
	ctl_sweep_stale(tmp);
	dir = xasprintf("%s/wseq-sweep-%ld.XXXXXX", tmp, (long)getpid());
	if (!mkdtemp(dir)) {
		log_warn("no directory for shared ssh connections in %s: each step logs in anew", tmp);
		free(dir);
		return;
	}
	r->ctl_dir = dir;
}

/* Close the hosts' shared connections and remove their directory. */
static void ctl_close(struct run *r)
{
	size_t i;

	if (!r->ctl_dir)
		return;
	for (i = 0; i < r->nhosts; i++) {
		char *argv[32];
		size_t n = 0, k;

		sweep_ssh_base(r, &r->hosts[i], false, "exit", argv, &n);
		argv[n] = NULL;
		run_wait(argv, "/dev/null");
		for (k = 0; k < n; k++)
			free(argv[k]);
	}
	remove_tree(r->ctl_dir);
	free(r->ctl_dir);
	r->ctl_dir = NULL;
}

/*
 * The end of the run: unless stopped (at_once), the running clients hear
 * "no task left" at their next request and get a moment for it; a host
 * still logging in is not waited for. Then each client left is told to stop
 * and given a bounded time -- none outlives the master, so a resume at once
 * never runs two on a host -- and what is still left is killed.
 */
static void stop_clients(struct run *r, bool at_once)
{
	double until = dnow() + END_WAIT;

	while (!at_once && sweep_hosts_clients(r) && dnow() < until) {
		nap(r, TICK_MS);
		sweep_hosts_reap(r);
	}
	until = dnow() + STOP_WAIT;
	while (sweep_hosts_stop(r) && dnow() < until) {
		nap(r, TICK_MS);
		sweep_hosts_reap(r);
	}
	sweep_hosts_kill(r);
	until = dnow() + 5;
	while (sweep_hosts_busy(r) && dnow() < until) {
		nap(r, TICK_MS);
		sweep_hosts_reap(r);
	}
}

/* --joblog: the session's runs, after the lines --resume-failed kept; and --results DIR. */
static int joblog_write(struct run *r)
{
	char *keep = xasprintf("%s/joblog-keep", r->sdir);
	int rc = r->o->joblog ? sweep_joblog_write(r->store, &r->files, r->sid, keep, r->o->joblog)
		: 0;

	if (r->o->results && sweep_results_write(r->store, &r->files, r->sid, r->o->results) < 0)
		rc = -1;

	free(keep);
	r->joblog_at = dnow();
	return rc;
}

/*
 * --halt: once its failures are reached, the session's halt file tells the
 * endpoints (no task handed out; with now, /ping drops the running ones).
 * True when the run is to end: at once for now, for soon when no task runs.
 */
static bool halt(struct run *r, const struct sweep_stats *st)
{
	const struct sweep_halt *h = &r->o->halt;

	if (!r->halted && sweep_halt_reached(h, st->failed, st->total)) {
		char *path = xasprintf("%s/halt", r->sdir);
		const char *when = h->when == SWEEP_HALT_NOW ? "now\n" : "soon\n";

		if (write_file_atomic(path, when, strlen(when), 0644) == 0) {
			fprintf(stderr, "%ssweep: %zu sets failed: halting %s (--halt %s); "
				"`sweep resume` goes on\n", r->progress == 2 ? "\n" : "", st->failed,
				h->when == SWEEP_HALT_NOW ? "now" : "soon", r->o->halt_arg);
			r->halted = true;
		}
		free(path);
	}
	return r->halted && (h->when == SWEEP_HALT_NOW || !st->running || !sweep_hosts_busy(r));
}

/*
 * The embedded server recorded the end of a run (its handler holds the
 * lock): the loop looks at once. A failure is counted now -- the store's
 * tick fails the set when it has no handout left -- so --halt holds
 * before the client that failed asks for another task.
 */
static void on_report(void *arg, int64_t session, bool success)
{
	struct run *r = arg;
	struct sweep_stats st = { 0 };
	struct sbuf err = SBUF_INIT(1024);

	r->judge_now = true;
	if (success || r->o->halt.when == SWEEP_HALT_NEVER || r->halted)
		return;
	if (sweep_store_tick(r->store, session, (int64_t)time(NULL), NULL) == SWEEP_STORE_OK &&
	    sweep_session_stats(r->store, r->sid, false, &st, &err) == 0)
		halt(r, &st);
	sweep_stats_release(&st);
	sbuf_release(&err);
}

/* A resume goes on after a --halt: the endpoints hand out tasks again. */
static void unhalt(const struct run *r)
{
	char *path = xasprintf("%s/halt", r->sdir);

	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", path, strerror(errno));
	free(path);
}

static int loop(struct run *r)
{
	struct sweep_stats st = { 0 };
	double last_judge = 0;
	bool first = true;
	size_t i;
	bool any;

	/* the clients start once tickets wait (the transitioner makes them) */
	for (;;) {
		sweep_hosts_reap(r);
		if (stop_sig) {
			log_warn("stopped by signal %d; `sweep resume SESSION` carries on", (int)stop_sig);
			sweep_stats_release(&st);
			return SWEEP_EXIT_STOPPED;
		}
		if (r->judge_now || dnow() - last_judge >= JUDGE_EVERY) {
			r->judge_now = false;
			sweep_stats_release(&st);
			if (judge(r, false, &st) < 0) {
				sweep_stats_release(&st);
				return SWEEP_EXIT_ERROR;
			}
			last_judge = dnow();
			if (first)
				r->done0 = st.done + st.failed;
			first = false;
			show_progress(r, &st, false);
			if ((r->o->joblog || r->o->results) && dnow() - r->joblog_at >= JOBLOG_EVERY)
				joblog_write(r);        /* as runs end, for tail -f; whole at the end */
			if (st.done + st.failed == st.total)
				break;
			if (halt(r, &st)) {
				show_progress(r, &st, true);
				sweep_stats_release(&st);
				return SWEEP_EXIT_HALTED;
			}
			/* an idle host is started again while others work */
			any = sweep_hosts_restart(r, st.ready);
			if (!sweep_hosts_busy(r) && !any) {
				show_progress(r, &st, true);
				log_error("%zu tasks are left and no host can run them; see the "
					  "statistics, then `sweep resume`", st.total - st.done - st.failed);
				sweep_stats_release(&st);
				return SWEEP_EXIT_STALLED;
			}
		}
		nap(r, TICK_MS);
	}
	show_progress(r, &st, true);
	i = st.failed;
	sweep_stats_release(&st);
	return i ? SWEEP_EXIT_FAILED : SWEEP_EXIT_DONE;
}

static void run_signals(void)
{
	SIG_SET(on_stop, 0, SIGINT, SIGTERM);
	SIG_SET(on_child, 0, SIGCHLD);
	sigemptyset(&child_set);
	sigaddset(&child_set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &child_set, NULL);
	SIG_SET(SIG_IGN, 0, SIGPIPE);
}

/* wseq_sandbox finds make_project and the rest where sweep is */
static void path_add_self(void)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0 && (self[n] = 0, slash = strrchr(self, '/'))) {
		*slash = 0;
		path = xasprintf("%s:%s", self, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
		setenv("PATH", path, 1);
		free(path);
	}
}

/* --progress: 2 a bar, 1 lines, 0 none; "auto" a bar on a terminal. */
static int progress_mode(const char *progress)
{
	if (!strcmp(progress, "bar"))
		return 2;
	if (!strcmp(progress, "lines"))
		return 1;
	if (!strcmp(progress, "none"))
		return 0;
	return isatty(2) ? 2 : 1;
}

/* Read the spec file (new session) or check the session ID (resume). */
static int read_arg(struct run *r, bool resume, const char *arg)
{
	struct sbuf err = SBUF_INIT(4096);
	int rc = 0;

	if (!resume) {
		/* the Source files too: an unreadable one stops the run before anything starts */
		if (sweep_spec_read(arg, &r->spec, &err) < 0 ||
		    sweep_spec_load_sources(&r->spec, &err) < 0)
			rc = log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		return rc;
	}
	if (strlen(arg) != SWEEP_SID_LEN || strspn(arg, "0123456789abcdef") != SWEEP_SID_LEN)
		return log_error("'%s' is not a session ID (32 hex digits)", arg);
	memcpy(r->sid, arg, SWEEP_SID_LEN + 1);
	return 0;
}

/* What a new session takes of the options: --retries, and --resume-failed's sets. */
static int create_opts(const struct run *r, struct sweep_create_opts *co, bool **skip)
{
	struct sbuf err = SBUF_INIT(4096);
	int rc = 0;

	*skip = NULL;
	co->max_total = r->o->retries;
	if (r->o->resume_failed &&
	    sweep_joblog_read(r->o->joblog, skip, &co->nskip, &err) < 0)
		rc = log_error("%s", sbuf_str(&err));
	co->skip = *skip;
	sbuf_release(&err);
	return rc;
}

/* Open the project, set up hosts and worker, and create or find the session. */
static int session_begin(struct run *r, bool resume, const char *arg)
{
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_create_opts co = { 0 };
	bool *skip = NULL;
	int64_t batch = 0;
	size_t n = 0;
	int rc;

	if (home_open(r, !resume) < 0)
		return -1;
	if (resume && session_spec(r) < 0)
		return -1;
	if (!r->have_cfg && server_start(r) < 0)
		return -1;
	if (setup_hosts(r) < 0 || setup_worker(r) < 0)
		return -1;
	if (resume) {
		fprintf(stderr, "sweep: resuming session %s on %zu hosts\n", r->sid, r->nhosts);
		return 0;
	}
	if (create_opts(r, &co, &skip) < 0)
		return -1;
	rc = sweep_session_create(r->store, &r->files, arg, &co, r->sid, &batch, &n, &err);
	free(skip);
	if (rc < 0) {
		log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	sbuf_release(&err);
	/* the only place the whole ID is shown: resume needs it */
	fprintf(stderr, "sweep: session %s: %zu tasks on %zu hosts\n", r->sid, n, r->nhosts);
	return 0;
}

/* A new session of --resume-failed keeps the joblog's lines (for its resumes too). */
static int joblog_start(const struct run *r, bool resume)
{
	char *keep;
	int rc;

	if (resume || !r->o->resume_failed)
		return 0;
	keep = xasprintf("%s/joblog-keep", r->sdir);
	rc = sweep_joblog_keep(r->o->joblog, keep);
	free(keep);
	return rc;
}

/* After the loop ended with rc: judge, stop the clients, print the statistics. */
static int session_end(struct run *r, int rc)
{
	if (rc != SWEEP_EXIT_ERROR) {
		struct sweep_stats st = { 0 };

		if (judge(r, true, &st) < 0)
			rc = SWEEP_EXIT_ERROR;
		sweep_stats_release(&st);
	}
	stop_clients(r, rc == SWEEP_EXIT_STOPPED);
	ctl_close(r);
	sweep_hosts_save(r);
	if ((r->o->joblog || r->o->results) && joblog_write(r) < 0)
		rc = SWEEP_EXIT_ERROR;
	if (rc != SWEEP_EXIT_ERROR && sweep_print_stats(r->store, r->sid, r->sdir, stdout) < 0)
		rc = SWEEP_EXIT_ERROR;
	fflush(stdout);
	return rc;
}

static void run_release(struct run *r)
{
	size_t i;

	serve_http_stop(r->http, DRAIN_MS);     /* the loop's thread no longer holds the lock */
	sweep_store_close(r->store);
	sweep_files_release(&r->files);
	if (r->sandbox && r->started_sandbox && !r->o->keep_server)
		sandbox_down(r);
	for (i = 0; i < r->nhosts; i++) {
		free(r->hosts[i].h.user);
		free(r->hosts[i].h.host);
		free(r->hosts[i].label);
		free(r->hosts[i].why);
		free(r->hosts[i].copy_tmp);
		free(r->hosts[i].copy_said);
		free(r->hosts[i].start_said);
	}
	free(r->hosts);
	if (r->have_cfg)
		config_release(&r->cfg);
	sweep_spec_release(&r->spec);
	free(r->sdir);
	free(r->url);
	free(r->client);
	free(r->sandbox);
	free(r->state);
	free(r->spool);
}

int sweep_run(const struct sweep_run_opts *o, bool resume, const char *arg)
{
	struct run r = { .o = o, .lock = PTHREAD_MUTEX_INITIALIZER };
	int rc = SWEEP_EXIT_ERROR;

	pthread_mutex_lock(&r.lock);
	run_signals();
	if (!o->verbose)
		log_set_level(LOG_LVL_ERROR);
	path_add_self();
	r.progress = progress_mode(o->progress);
	if (read_arg(&r, resume, arg) == 0 && session_begin(&r, resume, arg) == 0) {
		r.sdir = sweep_files_session(&r.files, r.sid);
		if (resume) {
			sweep_hosts_load(&r);
			unhalt(&r);
		}
		if (joblog_start(&r, resume) < 0) {
			pthread_mutex_unlock(&r.lock);
			run_release(&r);
			return SWEEP_EXIT_ERROR;
		}
		sweep_hosts_save(&r);
		ctl_open(&r);
		r.t0 = dnow();
		rc = session_end(&r, loop(&r));
	}
	pthread_mutex_unlock(&r.lock);
	run_release(&r);
	return rc;
}
