/*
 * serve_http_echo: a serving handler behind the embedded HTTP server
 * (serve/serve_http.h), for t6160-serve-http.sh. It routes by PATH_INFO
 * as the sweep endpoints do:
 *
 *   /env     the CGI variables the handler saw, one NAME=value a line
 *   /echo    the request body (serve_body), as it arrived
 *   /slow    prints "slow request begins", answers after ?ms=N milliseconds
 *   /count   how many requests the handler was called for, this one included
 *   /html    an HTML page, its own X-Content-Type-Options "none" (the server's wins)
 *   /broken  a reply that is not CGI (no blank line): the server's 500
 *   else     404 "no such request", the handler's own
 *
 * With --sweep DIR the handler is the sweep's real one instead
 * (sweep/endpoints/sweep_endpoints.h) on the embedded store DIR/store.sqlite,
 * the session files in DIR/sessions, the results in DIR/results; --session
 * SID --tasks N makes session SID with N tasks ("CommandLine=worker I", the
 * result "out" from stdout) unless it exists. At the stop it prints
 * "returned ROW TICKET" for each ticket whose results came.
 *
 * It prints "listening on ADDR PORT" when ready (and writes the port to
 * --port_file), "first request answered N ms after start" after its first
 * reply, and serves until SIGTERM or SIGINT, then stops (draining) and
 * prints "stopped after N requests". SIGUSR1 takes the server's handler
 * lock from the main thread ("lock held"), the next gives it back ("lock
 * free"): no handler runs meanwhile.
 */
#define _GNU_SOURCE
#include "common.h"
#include "fileutil.h"
#include "log.h"
#include "serve.h"
#include "serve_http.h"
#include "sweep_endpoints.h"
#include "sweep_files.h"
#include "sweep_store.h"
#include "tool.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>

struct echo_settings {
	char *addr;
	long port;
	char *script_name;
	char *port_file;
	long max_conns, max_per_ip, timeout, max_body;
	char *sweep, *session;
	long tasks;
};

static struct echo_settings settings;

static const struct param params[] = {
	{ "addr", PARAM_STR, offsetof(struct echo_settings, addr), "127.0.0.1", 0, 0, 0, "ADDR",
	  "the address to listen on" },
	{ "port", PARAM_INT, offsetof(struct echo_settings, port), "0", PARAM_BOUNDED, 0, 65535,
	  "N", "the port (0: one the kernel picks, printed)" },
	{ "script_name", PARAM_STR, offsetof(struct echo_settings, script_name), NULL, 0, 0, 0,
	  "PATH", "the handler's base path (SCRIPT_NAME); default the root" },
	{ "port_file", PARAM_STR, offsetof(struct echo_settings, port_file), NULL, 0, 0, 0,
	  "FILE", "write the port here once listening" },
	{ "max_conns", PARAM_INT, offsetof(struct echo_settings, max_conns), "0", PARAM_BOUNDED,
	  0, 10000, "N", "connections at once (0: the server's default)" },
	{ "max_per_ip", PARAM_INT, offsetof(struct echo_settings, max_per_ip), "0",
	  PARAM_BOUNDED, 0, 10000, "N", "connections from one address (0: the default)" },
	{ "timeout", PARAM_INT, offsetof(struct echo_settings, timeout), "0", PARAM_BOUNDED, 0,
	  3600, "S", "seconds a connection may stay silent (0: the default)" },
	{ "max_body", PARAM_INT, offsetof(struct echo_settings, max_body), "0", PARAM_BOUNDED, 0,
	  1e12, "BYTES", "largest request body (0: the default)" },
	{ "sweep", PARAM_STR, offsetof(struct echo_settings, sweep), NULL, 0, 0, 0, "DIR",
	  "serve the sweep endpoints on the embedded store in DIR instead" },
	{ "session", PARAM_STR, offsetof(struct echo_settings, session), NULL, 0, 0, 0, "SID",
	  "with --sweep: the session to make (unless it exists)" },
	{ "tasks", PARAM_INT, offsetof(struct echo_settings, tasks), "3", PARAM_BOUNDED, 1, 10000,
	  "N", "with --session: its tasks" },
	PARAM_TABLE_END
};

static double started;
static unsigned long answered;         /* by the handler, on the server's thread */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void reply(struct serve_req *r, const char *status, const char *type, const char *body,
		  size_t len)
{
	FILE *out = serve_out(r);

	fprintf(out, "Status: %s\r\nContent-Type: %s\r\n\r\n", status, type);
	fwrite(body, 1, len, out);
}

static void do_env(struct serve_req *r)
{
	static const char *const names[] = {
		"REQUEST_METHOD", "QUERY_STRING", "PATH_INFO", "SCRIPT_NAME", "REMOTE_ADDR",
		"CONTENT_LENGTH", "CONTENT_TYPE", "HTTP_USER_AGENT", "HTTP_X_TEST_HEADER",
	};
	struct sbuf b = SBUF_INIT(65536);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const char *v = serve_env(r, names[i]);

		sbuf_addf(&b, "%s=%s\n", names[i], v ? v : "(unset)");
	}
	reply(r, "200 OK", "text/plain", sbuf_str(&b), b.len);
	sbuf_release(&b);
}

static void do_echo(struct serve_req *r)
{
	struct sbuf why = SBUF_INIT(1024);
	size_t len = 0;
	char *body = serve_body(r, 1L << 30, &len, &why);

	if (body)
		reply(r, "200 OK", "application/octet-stream", body, len);
	else
		reply(r, "400 Bad Request", "text/plain", sbuf_str(&why), why.len);
	free(body);
	sbuf_release(&why);
}

static void do_slow(struct serve_req *r)
{
	const char *q = serve_env(r, "QUERY_STRING");
	long ms = 0;
	struct timespec ts;

	printf("slow request begins\n");
	if (q && !strncmp(q, "ms=", 3) && parse_long(q + 3, &ms) == 0 && ms > 0 && ms < 60000) {
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
	reply(r, "200 OK", "text/plain", "slept\n", 6);
}

static void serve(void *state, struct serve_req *r)
{
	const char *p = serve_env(r, "PATH_INFO");
	static const char page[] = "<html><body><script>alert(1)</script></body></html>\n";

	(void)state;
	p = p ? p : "";
	answered++;
	if (!strcmp(p, "/env"))
		do_env(r);
	else if (!strcmp(p, "/echo"))
		do_echo(r);
	else if (!strcmp(p, "/slow"))
		do_slow(r);
	else if (!strcmp(p, "/count"))
		fprintf(serve_out(r), "Status: 200 OK\r\n\r\n%lu\n", answered);
	else if (!strcmp(p, "/html"))
		fprintf(serve_out(r), "Content-Type: text/html\r\nX-Content-Type-Options: none\r\n"
			"\r\n%s", page);
	else if (!strcmp(p, "/broken"))
		fputs("Status: 200 OK\r\nno blank line follows", serve_out(r));
	else
		reply(r, "404 Not Found", "text/plain", "no such request\n", 16);
	if (answered == 1) {
		printf("first request answered %.1f ms after start\n", now_ms() - started);
	}
}

/* ---- --sweep: the real endpoints ------------------------------------------- */

struct sweep_state {
	struct sweep_store *store;
	struct sweep_files files;
	struct sweep_endpoints ep;
	int64_t session;
};

static void serve_sweep(void *state, struct serve_req *r)
{
	struct sweep_state *sw = state;

	answered++;
	sweep_endpoints_serve(&sw->ep, r);
}

/* Session sid with n tasks, unless it is there. */
static int sweep_session(struct sweep_state *sw, const char *sid, size_t n)
{
	struct sweep_task_new *t;
	char **bodies;
	size_t i;
	int rc;

	if (sweep_store_session(sw->store, sid, &sw->session, NULL) == SWEEP_STORE_OK)
		return 0;
	t = xcalloc(n, sizeof(*t));
	bodies = xcalloc(n, sizeof(*bodies));
	for (i = 0; i < n; i++) {
		bodies[i] = xasprintf("CommandLine=worker %zu\n[Result]\nName=out\nFile=stdout\n",
				      i + 1);
		t[i] = (struct sweep_task_new){ i + 1, bodies[i], 30, 1, 3 };
	}
	rc = sweep_store_create(sw->store, sid, "serve_http_echo", t, n);
	for (i = 0; i < n; i++)
		free(bodies[i]);
	free(bodies);
	free(t);
	if (rc == SWEEP_STORE_OK)
		rc = sweep_store_session(sw->store, sid, &sw->session, NULL);
	return rc == SWEEP_STORE_OK ? 0 : log_error("cannot make session %s", sid);
}

static int sweep_open(struct sweep_state *sw, const struct echo_settings *s)
{
	struct sbuf err = SBUF_INIT(1024);
	char *path = xasprintf("%s/store.sqlite", s->sweep);

	sw->files.sessions = xasprintf("%s/sessions", s->sweep);
	sw->files.results = xasprintf("%s/results", s->sweep);
	sw->store = sweep_store_open_sqlite(path, &err);
	free(path);
	if (!sw->store)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	sw->ep.store = sw->store;
	sw->ep.files = &sw->files;
	if (!sw->store)
		return -1;
	return s->session ? sweep_session(sw, s->session, (size_t)s->tasks) : 0;
}

static int print_returned(const struct sweep_ticket *t, void *arg)
{
	(void)arg;
	printf("returned %zu %s\n", t->row, t->name);
	return 0;
}

static void sweep_close(struct sweep_state *sw)
{
	if (sw->store && sw->session)
		sweep_store_returned(sw->store, sw->session, print_returned, NULL);
	sweep_store_close(sw->store);
	sweep_files_release(&sw->files);
}

static int write_port(const char *path, unsigned port)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = f && fprintf(f, "%u\n", port) > 0 && fclose(f) == 0 && rename(tmp, path) == 0;

	free(tmp);
	return rc ? 0 : log_error("cannot write %s: %s", path, strerror(errno));
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Wait for SIGTERM or SIGINT, blocked in every thread from the start.
 * Each SIGUSR1 meanwhile takes the lock the server holds around a handler
 * call, or gives it back, as a program's own thread would around its work.
 */
static int wait_stop(const sigset_t *stops)
{
	bool held = false;
	int sig = 0;

	while (sigwait(stops, &sig) == 0 && sig == SIGUSR1) {
		if (held)
			pthread_mutex_unlock(&lock);
		else
			pthread_mutex_lock(&lock);
		held = !held;
		printf("lock %s\n", held ? "held" : "free");
	}
	if (held)
		pthread_mutex_unlock(&lock);
	return sig;
}

static int run(struct tool_ctx *ctx)
{
	struct echo_settings *s = ctx->settings;
	struct serve_http_opts o = {
		.addr = s->addr, .port = (unsigned)s->port, .script_name = s->script_name,
		.max_conns = (unsigned)s->max_conns, .max_per_ip = (unsigned)s->max_per_ip,
		.timeout = (unsigned)s->timeout, .max_body = s->max_body, .lock = &lock,
	};
	struct sbuf err = SBUF_INIT(1024);
	struct serve_http *h;
	struct sweep_state sw = { 0 };
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &stops, NULL);      /* before the server's thread */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s->sweep && sweep_open(&sw, s) < 0) {
		sweep_close(&sw);
		return -1;
	}
	h = serve_http_start(&o, s->sweep ? serve_sweep : serve, &sw, &err);
	if (!h) {
		log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		sweep_close(&sw);
		return -1;
	}
	sbuf_release(&err);
	printf("listening on %s %u\n", s->addr, serve_http_port(h));
	if (s->port_file && write_port(s->port_file, serve_http_port(h)) < 0) {
		serve_http_stop(h, 0);
		sweep_close(&sw);
		return -1;
	}
	log_info("stopping on signal %d", wait_stop(&stops));
	printf("stopping after %lu requests\n", serve_http_served(h));
	serve_http_stop(h, 10000);
	printf("stopped after %lu requests\n", answered);
	sweep_close(&sw);
	return 0;
}

static const struct tool_spec spec = {
	.name = "serve_http_echo",
	.usage = "usage: serve_http_echo [options]\n"
		 "A test handler (/env, /echo, /slow, /html, /broken) served by the embedded\n"
		 "HTTP server until SIGTERM or SIGINT. For t6160-serve-http.sh.\n",
	.params = params,
	.settings = &settings,
	.flags = TOOL_NO_PROJECT_DIR,
	.run = run,
};

int main(int argc, char **argv)
{
	started = now_ms();
	return tool_main(&spec, argc, argv);
}
