/*
 * The embedded HTTP server (serve_http.h): libmicrohttpd reads a request
 * on its polling thread; once the body is in (memory, then an unlinked
 * spool file), the handler runs on that thread behind the serve_req
 * interface of serve_int.h, its CGI reply is read back (serve_http_msg.h)
 * and queued as the HTTP response.
 */
#define _GNU_SOURCE     /* O_TMPFILE, open_memstream */
#include "serve_http.h"
#include "serve_http_msg.h"
#include "serve_int.h"
#include "fileutil.h"
#include "log.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <time.h>

#define SPOOL_AT (1 << 20)              /* a body past this many bytes goes to a file */
#define HEADER_NAME_MAX 128

struct serve_http {
	struct MHD_Daemon *d;
	serve_fn *fn;
	void *state;
	struct serve_http_opts o;       /* script_name and spool_dir: owned copies */
	unsigned port;
	unsigned long served;           /* written by the polling thread */
};

/* One request, from its request line to its end (req_cls). */
struct http_req {
	struct serve_http *srv;
	struct MHD_Connection *conn;
	char *uri;                      /* the target as sent */
	const char *method, *version;
	char *path_info, *query;
	char addr[INET6_ADDRSTRLEN];
	bool begun, refused, has_length;       /* refused: a refusal is queued */
	unsigned refusal;               /* the body is refused: the code to answer at its end */
	size_t dropped;                 /* bytes of a refused body dropped */
	struct sbuf mem;                /* the body, up to SPOOL_AT ... */
	int fd;                         /* ... or all of it here (-1: none) */
	size_t total, rpos;             /* bytes received, bytes the handler has read */
	char clen[24];                  /* CONTENT_LENGTH: total */
	char hname[HEADER_NAME_MAX];    /* HTTP_FOO_BAR looked up as foo-bar */
};

/* ---- the request as the handler sees it ------------------------------------ */

/* The header a CGI variable HTTP_FOO_BAR names (foo-bar), or NULL. */
static const char *http_header(struct http_req *q, const char *name)
{
	size_t i, n = strlen(name + 5);

	if (!n || n >= sizeof(q->hname))
		return NULL;
	for (i = 0; i < n; i++) {
		char c = name[5 + i];

		q->hname[i] = c == '_' ? '-' : (char)tolower((unsigned char)c);
	}
	q->hname[n] = '\0';
	return MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND, q->hname);
}

static const char *http_env(void *arg, const char *name)
{
	struct http_req *q = arg;
	const struct {
		const char *name, *value;
	} vars[] = {
		{ "REQUEST_METHOD", q->method }, { "QUERY_STRING", q->query },
		{ "PATH_INFO", q->path_info }, { "SCRIPT_NAME", q->srv->o.script_name },
		{ "REMOTE_ADDR", q->addr }, { "REQUEST_URI", q->uri },
		{ "SERVER_PROTOCOL", q->version },
		{ "CONTENT_LENGTH", q->has_length ? q->clen : NULL },
		{ "CONTENT_TYPE", MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_CONTENT_TYPE) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vars); i++)
		if (!strcmp(name, vars[i].name))
			return vars[i].value;
	return !strncmp(name, "HTTP_", 5) ? http_header(q, name) : NULL;
}

static long http_read(void *arg, char *buf, size_t n)
{
	struct http_req *q = arg;
	size_t left = q->total - q->rpos;
	ssize_t got;

	if (n > left)
		n = left;
	if (q->fd < 0) {
		memcpy(buf, q->mem.buf + q->rpos, n);
		got = (ssize_t)n;
	} else {
		do
			got = pread(q->fd, buf, n, (off_t)q->rpos);
		while (got < 0 && errno == EINTR);
	}
	if (got > 0)
		q->rpos += (size_t)got;
	return (long)got;
}

static const struct serve_req_ops http_ops = { http_env, http_read };

/* ---- the body --------------------------------------------------------------- */

static int spool_open(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {                   /* a file system without O_TMPFILE */
		char *path = xasprintf("%s/serve-http-XXXXXX", dir);

		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	return fd;
}

/* Keep n more bytes of the body: 0, or -1 when the spool file fails (logged). */
static int body_add(struct http_req *q, const char *data, size_t n)
{
	if (q->fd < 0 && sbuf_add(&q->mem, data, n) == 0) {
		q->total += n;
		return 0;
	}
	if (q->fd < 0) {
		q->fd = spool_open(q->srv->o.spool_dir);
		if (q->fd < 0 || write_all(q->fd, q->mem.buf, q->mem.len) < 0)
			return log_error("[%s] cannot spool a request body in %s: %s", q->addr,
					 q->srv->o.spool_dir, strerror(errno));
		sbuf_release(&q->mem);
	}
	if (write_all(q->fd, data, n) < 0)
		return log_error("[%s] cannot spool a request body: %s", q->addr, strerror(errno));
	q->total += n;
	return 0;
}

/* ---- replies ---------------------------------------------------------------- */

static enum MHD_Result queue(struct MHD_Connection *c, unsigned code, struct MHD_Response *rs)
{
	enum MHD_Result rc;

	if (!rs)
		return MHD_NO;
	rc = MHD_queue_response(c, code, rs);
	MHD_destroy_response(rs);
	return rc;
}

/* The server's own short answer (400, 404, 413, 500), never the handler's. */
static enum MHD_Result reply_text(struct http_req *q, unsigned code, const char *text)
{
	struct MHD_Response *rs = MHD_create_response_from_buffer(strlen(text), (void *)text,
								   MHD_RESPMEM_MUST_COPY);

	if (!rs)
		return MHD_NO;
	MHD_add_response_header(rs, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	MHD_add_response_header(rs, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
	return queue(q->conn, code, rs);
}

static void free_text(void *p)
{
	free(p);
}

/*
 * The response of the handler's CGI reply text[0..len) (malloced; taken):
 * its status in *status, its headers, a Content-Type when it gave none and
 * always nosniff. NULL (logged) when the reply is not CGI.
 */
static struct MHD_Response *cgi_response(struct http_req *q, char *text, size_t len,
					 unsigned *status)
{
	struct serve_http_reply rp;
	struct sbuf why = SBUF_INIT(256);
	struct MHD_Response *rs = NULL;
	size_t i;

	if (serve_http_reply_parse(text, len, &rp, &why) < 0)
		log_error("[%s] %s: the handler's reply is not CGI: %s", q->addr, q->path_info,
			  sbuf_str(&why));
	else
		rs = MHD_create_response_from_buffer_with_free_callback_cls(
			len - rp.body, text + rp.body, free_text, text);
	if (!rs)
		free(text);
	for (i = 0; rs && i < rp.nh; i++)
		if (MHD_add_response_header(rs, rp.h[i].name, rp.h[i].value) == MHD_NO) {
			log_error("[%s] a reply header refused: %s", q->addr, rp.h[i].name);
			MHD_destroy_response(rs);
			rs = NULL;
		}
	if (rs && !rp.has_type)
		MHD_add_response_header(rs, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	if (rs)
		MHD_add_response_header(rs, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
	*status = (unsigned)rp.status;
	serve_http_reply_release(&rp);
	sbuf_release(&why);
	return rs;
}

static enum MHD_Result reply_cgi(struct http_req *q, char *text, size_t len)
{
	unsigned status;
	struct MHD_Response *rs = cgi_response(q, text, len, &status);

	if (!rs)
		return reply_text(q, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
	return queue(q->conn, status, rs);
}

/* The whole request is in: run the handler, send what it wrote. */
static enum MHD_Result answer(struct http_req *q)
{
	struct serve_http *s = q->srv;
	struct serve_req r = { .ops = &http_ops, .arg = q, .persistent = true };
	char *text = NULL;
	size_t len = 0;

	snprintf(q->clen, sizeof(q->clen), "%zu", q->total);
	q->has_length |= q->total > 0;
	r.out = open_memstream(&text, &len);
	if (!r.out) {
		log_error("[%s] cannot open a reply stream: %s", q->addr, strerror(errno));
		return reply_text(q, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
	}
	if (s->o.lock)
		pthread_mutex_lock(s->o.lock);
	s->fn(s->state, &r);
	if (s->o.lock)
		pthread_mutex_unlock(s->o.lock);
	__atomic_add_fetch(&s->served, 1, __ATOMIC_RELAXED);
	if (fclose(r.out) != 0) {
		free(text);
		log_error("[%s] cannot keep the reply: %s", q->addr, strerror(errno));
		return reply_text(q, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
	}
	return reply_cgi(q, text, len);
}

/* ---- libmicrohttpd's callbacks ----------------------------------------------- */

/* The request line is read: a request begins (its req_cls). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct http_req *q = xcalloc(1, sizeof(*q));
	const union MHD_ConnectionInfo *ci;

	q->srv = cls;
	q->conn = c;
	q->uri = xstrdup(uri);
	q->fd = -1;
	sbuf_init(&q->mem, SPOOL_AT);
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci && ci->client_addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)ci->client_addr)->sin6_addr,
			  q->addr, sizeof(q->addr));
	else if (ci && ci->client_addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)ci->client_addr)->sin_addr,
			  q->addr, sizeof(q->addr));
	return q;
}

static void on_done(void *cls, struct MHD_Connection *c, void **req_cls,
		    enum MHD_RequestTerminationCode why)
{
	struct http_req *q = *req_cls;

	(void)cls, (void)c, (void)why;
	if (!q)
		return;
	if (q->fd >= 0)
		close(q->fd);
	sbuf_release(&q->mem);
	free(q->uri);
	free(q->path_info);
	free(q->query);
	free(q);
	*req_cls = NULL;
}

/* The headers are in: where it goes, and whether its body is welcome. */
static enum MHD_Result begin(struct http_req *q, const char *method, const char *version)
{
	struct serve_http *s = q->srv;
	struct sbuf why = SBUF_INIT(256);
	const char *cl = MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	long n = 0;
	int rc;

	q->begun = true;
	q->method = method;
	q->version = version;
	rc = serve_http_target(q->uri, s->o.script_name, &q->path_info, &q->query, &why);
	if (rc) {
		log_warn("[%s] %s: %s", q->addr, rc == 404 ? "not found" : "bad request",
			 sbuf_str(&why));
		sbuf_release(&why);
		q->refused = true;
		return reply_text(q, (unsigned)rc, rc == 404 ? "not found\n" : "bad request\n");
	}
	sbuf_release(&why);
	q->has_length = cl != NULL;
	if (cl && (parse_long(cl, &n) < 0 || n < 0)) {
		log_warn("[%s] %s: a bad Content-Length", q->addr, q->path_info);
		q->refused = true;
		return reply_text(q, MHD_HTTP_BAD_REQUEST, "bad request\n");
	}
	if (n > s->o.max_body) {
		log_warn("[%s] %s: a body of %s bytes refused (at most %ld)", q->addr,
			 q->path_info, cl, s->o.max_body);
		q->refused = true;
		return reply_text(q, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large\n");
	}
	return MHD_YES;
}

/*
 * Some of a body without Content-Length (chunked): kept, or the request
 * refused (too long, no room). libmicrohttpd takes a reply only once the
 * body is in, so a refused body is dropped until its end, then answered --
 * up to SPOOL_AT bytes more; past that the connection is closed unanswered.
 */
static enum MHD_Result body_chunk(struct http_req *q, const char *data, size_t n)
{
	if (q->refusal) {
		q->dropped += n;
		return q->dropped > SPOOL_AT ? MHD_NO : MHD_YES;
	}
	if (q->total + n > (size_t)q->srv->o.max_body) {
		log_warn("[%s] %s: a body past %ld bytes refused", q->addr, q->path_info,
			 q->srv->o.max_body);
		q->refusal = MHD_HTTP_CONTENT_TOO_LARGE;
	} else if (body_add(q, data, n) < 0) {
		q->refusal = MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *n, void **req_cls)
{
	struct http_req *q = *req_cls;
	size_t got = *n;

	(void)cls, (void)c, (void)url;
	if (!q)
		return MHD_NO;
	if (!q->begun)
		return begin(q, method, version);
	*n = 0;
	if (q->refused)
		return MHD_YES;         /* the refusal is queued; the rest is dropped */
	if (got)
		return body_chunk(q, data, got);
	if (q->refusal)
		return reply_text(q, q->refusal, q->refusal == MHD_HTTP_CONTENT_TOO_LARGE ?
				  "request body too large\n" : "no room for the body\n");
	return answer(q);
}

static void on_log(void *cls, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	log_warn("http: %s", msg);
}

/* ---- start and stop ---------------------------------------------------------- */

static int resolve(const char *addr, unsigned port, struct sockaddr_storage *sa, struct sbuf *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	char service[16];
	int rc;

	snprintf(service, sizeof(service), "%u", port);
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(addr, service, &hints, &ai);
	if (rc)
		return sbuf_fail(err, "cannot resolve %s: %s", addr, gai_strerror(rc));
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* The options with their defaults filled in; strings copied. */
static void opts_set(struct serve_http_opts *o, const struct serve_http_opts *in)
{
	const char *tmp = getenv("TMPDIR");

	*o = *in;
	o->addr = NULL;
	o->script_name = xstrdup(in->script_name ? in->script_name : "");
	o->spool_dir = xstrdup(in->spool_dir ? in->spool_dir : tmp && *tmp ? tmp : "/tmp");
	o->max_conns = in->max_conns ? in->max_conns : SERVE_HTTP_MAX_CONNS;
	o->max_per_ip = in->max_per_ip ? in->max_per_ip : SERVE_HTTP_MAX_PER_IP;
	o->timeout = in->timeout ? in->timeout : SERVE_HTTP_TIMEOUT;
	o->max_body = in->max_body > 0 ? in->max_body : SERVE_HTTP_MAX_BODY;
}

static void opts_release(struct serve_http_opts *o)
{
	free((char *)o->script_name);
	free((char *)o->spool_dir);
}

struct serve_http *serve_http_start(const struct serve_http_opts *o, serve_fn *fn, void *state,
				    struct sbuf *err)
{
	struct serve_http *h;
	struct sockaddr_storage sa;
	const union MHD_DaemonInfo *di;
	const char *addr = o->addr ? o->addr : "127.0.0.1";
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC |
			 MHD_USE_ERROR_LOG;

	if (o->script_name && *o->script_name &&
	    (o->script_name[0] != '/' || o->script_name[strlen(o->script_name) - 1] == '/')) {
		sbuf_fail(err, "the script name must start with '/' and not end with it");
		return NULL;
	}
	if (resolve(addr, o->port, &sa, err) < 0)
		return NULL;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = xcalloc(1, sizeof(*h));
	h->fn = fn;
	h->state = state;
	opts_set(&h->o, o);
	h->d = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, h,
				MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT, h->o.max_conns,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, h->o.max_per_ip,
				MHD_OPTION_CONNECTION_TIMEOUT, h->o.timeout,
				MHD_OPTION_STRICT_FOR_CLIENT, 1,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, h,
				MHD_OPTION_END);
	di = h->d ? MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
	if (!di) {
		sbuf_fail(err, "cannot listen on %s port %u: %s", addr, o->port,
			  errno ? strerror(errno) : "refused");
		serve_http_stop(h, 0);
		return NULL;
	}
	h->port = di->port;
	return h;
}

unsigned serve_http_port(const struct serve_http *h)
{
	return h->port;
}

unsigned long serve_http_served(const struct serve_http *h)
{
	return __atomic_load_n(&h->served, __ATOMIC_RELAXED);
}

static unsigned open_connections(struct serve_http *h)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d,
							     MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return di ? di->num_connections : 0;
}

void serve_http_stop(struct serve_http *h, int drain_ms)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int waited = 0;

	if (!h)
		return;
	if (h->d) {
		MHD_socket ls = MHD_quiesce_daemon(h->d);

		if (ls != MHD_INVALID_SOCKET)
			close(ls);
		while (waited < drain_ms && open_connections(h) > 0) {
			nanosleep(&tick, NULL);
			waited += 10;
		}
		MHD_stop_daemon(h->d);
	}
	opts_release(&h->o);
	free(h);
}
