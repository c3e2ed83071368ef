/*
 * serve_main(): the CGI / FastCGI request loop, and what a serving process
 * keeps of the project between requests. See serve.h.
 */
#define _GNU_SOURCE     /* fopencookie */
#include "serve_int.h"
#include "fileutil.h"
#include "form.h"
#include "log.h"
#include "sig.h"
#include "wtime.h"

#include <fcgiapp.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>

/* ---- the request, behind its backend (serve_int.h) -------------------------- */

static const char *cgi_env(void *arg, const char *name)
{
	(void)arg;
	return getenv(name);
}

static long cgi_read(void *arg, char *buf, size_t n)
{
	ssize_t got;

	(void)arg;
	do
		got = read(STDIN_FILENO, buf, n);
	while (got < 0 && errno == EINTR);
	return (long)got;
}

static const struct serve_req_ops cgi_ops = { cgi_env, cgi_read };

static const char *fcgi_env(void *arg, const char *name)
{
	FCGX_Request *fr = arg;

	return FCGX_GetParam(name, fr->envp);
}

static long fcgi_read(void *arg, char *buf, size_t n)
{
	FCGX_Request *fr = arg;

	return FCGX_GetStr(buf, (int)n, fr->in);
}

static const struct serve_req_ops fcgi_ops = { fcgi_env, fcgi_read };

const char *serve_env(struct serve_req *r, const char *name)
{
	return r->ops->env(r->arg, name);
}

const char *serve_env_cb(const char *name, void *r)
{
	return serve_env(r, name);
}

bool serve_is_fastcgi(const struct serve_req *r)
{
	return r->persistent;
}

long serve_read(void *arg, char *buf, size_t n)
{
	struct serve_req *r = arg;

	if (n > (1 << 20))
		n = 1 << 20;
	return r->ops->read(r->arg, buf, n);
}

char *serve_body(struct serve_req *r, long max, size_t *len, struct sbuf *why)
{
	return form_read_body_from(serve_env(r, "CONTENT_LENGTH"), max, serve_read, r, len, why);
}

char *serve_body_gated(struct serve_req *r, long max, const struct form_gate *gate, size_t *len,
		       struct sbuf *why)
{
	return form_read_body_gated(serve_env(r, "CONTENT_LENGTH"), max, gate, serve_read, r, len,
				    why);
}

void serve_drain(struct serve_req *r, long max)
{
	char buf[65536];
	long total = 0, n;

	while (total < max && (n = serve_read(r, buf, sizeof(buf))) > 0)
		total += n;
}

FILE *serve_out(struct serve_req *r)
{
	return r->out;
}

/* ---- the project ------------------------------------------------------------ */

static int project_load(struct serve_project *p)
{
	struct project_config cfg;
	void *set = p->settings_size ? xcalloc(1, p->settings_size) : NULL;
	char *logpath;

	memset(&cfg, 0, sizeof(cfg));
	if (config_load(&cfg, p->loaded ? p->cfg.path : NULL, p->params, set) < 0) {
		config_release(&cfg);
		if (p->params)
			param_free(p->params, set);
		free(set);
		if (p->loaded)
			log_error("%s: cannot be read again; going on with what was read before",
				  p->cfg.path);
		return p->loaded ? 0 : -1;
	}
	if (p->loaded) {
		log_info("%s changed: read again", p->cfg.path);
		config_release(&p->cfg);
		if (p->params)
			param_free(p->params, p->settings);
		/* the database may have moved: connect afresh */
		db_close(p->db);
		p->db = NULL;
	}
	p->cfg = cfg;
	if (set) {
		memcpy(p->settings, set, p->settings_size);
		free(set);
	}
	p->loaded = true;
	p->generation++;
	db_params_from_config(&p->dp, &p->cfg);
	logpath = xasprintf("%s/%s.log", p->cfg.log_dir, p->prog);
	log_init(p->prog, logpath);
	free(logpath);
	/* once per process and reread: a plain CGI process a request would repeat them endlessly */
	if (!FCGX_IsCGI())
		config_warn_ignored(&p->cfg, NULL);
	return 0;
}

int serve_project_get(struct serve_project *p)
{
	if (!p->loaded) {
		char *path;

		if (config_names_check(p->params) < 0)
			return -1;
		path = config_locate();
		if (!path)
			return -1;
		file_changed(path, &p->st);
		free(path);
		return project_load(p);
	}
	if (file_changed(p->cfg.path, &p->st) && p->st.st_ino != 0)
		return project_load(p);
	return 0;
}

struct db *serve_project_db(struct serve_project *p)
{
	if (!p->db && db_open(&p->db, &p->dp, 0) != DB_OK)
		p->db = NULL;
	return p->db;
}

void serve_project_db_failed(struct serve_project *p)
{
	db_close(p->db);
	p->db = NULL;
}

void serve_project_release(struct serve_project *p)
{
	db_close(p->db);
	p->db = NULL;
	if (p->loaded) {
		config_release(&p->cfg);
		if (p->params)
			param_free(p->params, p->settings);
	}
	p->loaded = false;
}

/* ---- the loop --------------------------------------------------------------- */

/* The reply stream of a FastCGI request, as a FILE (for fprintf and fwrite). */
static ssize_t fcgi_write(void *cookie, const char *buf, size_t n)
{
	FCGX_Stream *out = cookie;
	size_t done = 0;

	while (done < n) {
		int k = n - done > INT_MAX ? INT_MAX : (int)(n - done);

		if (FCGX_PutStr(buf + done, k, out) != k)
			return done ? (ssize_t)done : -1;     /* the web server has gone */
		done += (size_t)k;
	}
	return (ssize_t)n;
}

/*
 * The shiftable clock (wtime.h) as the web server configures it for this
 * request -- SetEnv WSEQ_TIME_OFFSET_FILE, which a CGI program finds in its
 * environment and a FastCGI one among the request's variables (a client
 * cannot set them: its headers arrive as HTTP_*) -- read afresh, so a
 * changed offset file is seen at the next request, as by a new CGI process.
 */
static void clock_of(FCGX_Request *fr)
{
	static const char *const vars[] = { "WSEQ_TIME_OFFSET", "WSEQ_TIME_OFFSET_FILE" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = FCGX_GetParam(vars[i], fr->envp);

		if (v)
			setenv(vars[i], v, 1);
	}
	wtime_reset();
}

static volatile sig_atomic_t stop_signal;
static bool renew_due;          /* the request limit reached: serve_program renews the process */
static sigset_t mask_at_start;  /* the signal mask the process was started with */

static void on_stop(int sig)
{
	stop_signal = sig;
	FCGX_ShutdownPending();
}

/*
 * If Apache is killed (kill -9, a crash), nobody will connect to this
 * process or stop it again: the kernel tells it with SIGALRM when its
 * parent, mod_fcgid's process manager, is gone, and it ends instead of
 * living on as an orphan. Not a timer: a signal that comes while libfcgi
 * accepts a connection makes it drop that connection (its poll() for the
 * request's first bytes fails with EINTR), and mod_fcgid then answers the
 * request with HTTP 500 -- about once in 100,000 requests under load when
 * an interval timer checked for the parent every 5 s.
 */
static void stop_with_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGALRM) != 0)
		log_warn("cannot ask to be told when the web server is gone: %s", strerror(errno));
	else if (getppid() != parent || parent == 1)
		on_stop(SIGALRM);       /* gone already */
}

/*
 * This process's request limit: WSEQ_FCGI_MAX_REQUESTS (0 or unset: none)
 * plus up to half as much again, drawn afresh by every process and at every
 * renewal, so that processes started together do not all renew at once.
 */
static long request_limit(void)
{
	const char *env = getenv("WSEQ_FCGI_MAX_REQUESTS");
	struct timespec ts;
	uint64_t x;
	long max = 0;

	if (!env || parse_long(env, &max) < 0 || max <= 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* splitmix64 of the pid and the clock: no need for more */
	x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20);
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return max + (long)(x % (uint64_t)(max / 2 + 1));
}

/*
 * Request after request until the limit or a stop signal. The signals are
 * blocked while a request runs, so one arrives only while the process
 * waits in accept(), which it ends (no SA_RESTART), and no request is cut
 * short. At the limit the process is renewed (serve_renew), not ended.
 */
static void serve_fastcgi(serve_fn *fn, void *state)
{
	static const cookie_io_functions_t io = { .write = fcgi_write };
	FCGX_Request fr;
	sigset_t stops;
	long max = request_limit(), served = 0;

	SIG_SET(on_stop, 0, SIGTERM, SIGUSR1, SIGALRM);
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGUSR1);
	sigaddset(&stops, SIGALRM);
	sigprocmask(SIG_BLOCK, &stops, &mask_at_start);
	stop_with_parent();
	if (FCGX_InitRequest(&fr, 0, 0) != 0) {
		log_error("cannot set up a FastCGI request");
		return;
	}
	while (!stop_signal && (max <= 0 || served < max)) {
		struct serve_req r = { .ops = &fcgi_ops, .arg = &fr, .persistent = true };
		int rc;

		sigprocmask(SIG_UNBLOCK, &stops, NULL);
		rc = FCGX_Accept_r(&fr);
		sigprocmask(SIG_BLOCK, &stops, NULL);
		if (rc < 0)
			break;
		clock_of(&fr);
		r.out = fopencookie(fr.out, "w", io);
		if (r.out) {
			fn(state, &r);
			fclose(r.out);
		} else {
			log_error("cannot open the reply stream: %s", strerror(errno));
		}
		FCGX_Finish_r(&fr);
		served++;
	}
	renew_due = !stop_signal && max > 0 && served >= max;
	if (renew_due)
		log_info("fastcgi process renews itself after %ld requests", served);
	else
		log_debug("fastcgi process ends after %ld requests%s", served,
			  stop_signal == SIGALRM ? " (the web server is gone)" : stop_signal ? " (signal)" : "");
}

/*
 * Renewal at the request limit: the process executes its program afresh,
 * keeping its pid and its listening socket (fd 0, which mod_fcgid gave
 * it), so for mod_fcgid it is the same process: no exit to notice, no
 * replacement to start, and a request that comes meanwhile waits in the
 * socket's queue for the new image's first accept(), a few ms. (A process
 * that exits at its limit leaves mod_fcgid short of it until the next
 * scan; mod_fcgid makes a request that finds every process busy wait a
 * second, and when all processes reached the limit together its spawn
 * score held their replacements back for seconds.) Called after the
 * teardown: the database connection, the log and every other descriptor
 * closed. Returns only if exec fails (the process then ends).
 */
static void serve_renew(char **argv)
{
	const char *self = argv[0] && argv[0][0] == '/' ? argv[0] : "/proc/self/exe";

	sigprocmask(SIG_SETMASK, &mask_at_start, NULL);
	fflush(NULL);
#ifdef CLOSE_RANGE_CLOEXEC
	/* whatever a library left open does not outlive the image (fd 0 is the socket) */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
	execv(self, argv);
	fprintf(stderr, "%s: cannot renew the FastCGI process: %s\n", self, strerror(errno));
}

/* The exit status for arguments given, or -1 (none: serve). */
static int serve_args(int argc, char **argv, const char *usage)
{
	bool help;

	if (argc <= 1)
		return -1;
	help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
	fputs(usage, help ? stdout : stderr);
	return help ? 0 : 2;
}

int serve_main(serve_fn *fn, void *state)
{
	static const int lib_signals[] = { SIGPIPE, SIGTERM, SIGUSR1 };
	struct sigaction saved[ARRAY_SIZE(lib_signals)];

	/* libfcgi sets handlers for these in FCGX_Init; a CGI keeps the ones it was given */
	sig_save(lib_signals, ARRAY_SIZE(lib_signals), saved);
	if (FCGX_IsCGI()) {
		struct serve_req r = { .ops = &cgi_ops, .out = stdout };

		sig_restore(lib_signals, ARRAY_SIZE(lib_signals), saved);
		fn(state, &r);
		fflush(stdout);
	} else {
		serve_fastcgi(fn, state);
	}
	return 0;
}

int serve_program(const struct serve_spec *spec, int argc, char **argv)
{
	int rc = serve_args(argc, argv, spec->usage);

	if (rc >= 0)
		return rc;
	log_init(spec->proj->prog, NULL);
	serve_main(spec->fn, spec->state);
	if (spec->fini)
		spec->fini(spec->state);
	serve_project_release(spec->proj);
	log_close();
	if (renew_due)
		serve_renew(argv);
	return 0;
}
