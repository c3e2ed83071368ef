/*
 * The embedded HTTP server: any serving handler (serve_fn of serve.h --
 * the sweep endpoints', the scheduler's) answers requests in-process, on
 * libmicrohttpd, with no web server. The handler sees the request as a
 * CGI program would (REQUEST_METHOD, QUERY_STRING, PATH_INFO, SCRIPT_NAME,
 * REMOTE_ADDR, CONTENT_LENGTH, CONTENT_TYPE, HTTP_* through serve_env(),
 * the body through serve_read()/serve_body()) and writes a CGI reply to
 * serve_out(), which goes out as a real HTTP response.
 *
 * Threading: libmicrohttpd's one internal polling thread reads requests
 * and writes replies for every connection without blocking, and calls the
 * handler there, one call at a time, once a request's body is all in (kept
 * in memory, past 1 MiB in an unlinked file of spool_dir). A slow client
 * costs a connection slot, never the others' turn. A caller that touches
 * the handler's state from its own thread passes a lock, held around each
 * handler call.
 *
 * Protection, for a master listening on the network (doc/serve-http.md):
 * at most max_conns connections and max_per_ip from one address; a
 * connection silent for timeout seconds is closed; a body longer than
 * max_body is answered 413 before it is read; a request HTTP cannot parse
 * is answered 400 by libmicrohttpd without the handler; every reply the
 * handler makes carries X-Content-Type-Options: nosniff.
 */
#ifndef WSEQ_SERVE_HTTP_H
#define WSEQ_SERVE_HTTP_H

#include "serve.h"

#include <pthread.h>

/* A zero field takes its default. */
struct serve_http_opts {
	const char *addr;               /* listening address, a name or numeric; NULL: 127.0.0.1 */
	unsigned port;                  /* 0: an ephemeral port (serve_http_port()) */
	const char *script_name;        /* the handler's base path, as SCRIPT_NAME; NULL: the root */
	unsigned max_conns;             /* connections at once (64) */
	unsigned max_per_ip;            /* of them from one address (16) */
	unsigned timeout;               /* seconds a connection may stay silent (30) */
	long max_body;                  /* largest request body in bytes (1 GiB) */
	const char *spool_dir;          /* where large bodies wait; NULL: $TMPDIR or /tmp */
	pthread_mutex_t *lock;          /* held around each handler call; may be NULL */
};

#define SERVE_HTTP_MAX_CONNS 64
#define SERVE_HTTP_MAX_PER_IP 16
#define SERVE_HTTP_TIMEOUT 30
#define SERVE_HTTP_MAX_BODY (1L << 30)

struct serve_http;

/*
 * Listen as o says and answer each request with fn(state, request) from
 * now on. NULL with the reason in err (the address does not resolve, the
 * port is taken, ...).
 */
struct serve_http *serve_http_start(const struct serve_http_opts *o, serve_fn *fn, void *state,
				    struct sbuf *err);
/* The port it listens on (the one the kernel chose for port 0). */
unsigned serve_http_port(const struct serve_http *h);
/* Requests answered by the handler so far. */
unsigned long serve_http_served(const struct serve_http *h);
/*
 * Stop: accept nothing more, let the connections open finish for at most
 * drain_ms milliseconds (a request in the handler always finishes and gets
 * its reply), close the rest, free h (NULL is fine).
 */
void serve_http_stop(struct serve_http *h, int drain_ms);

#endif
