/*
 * What the request backends of serve/ share and nobody outside sees: a
 * request is a small interface -- where its CGI variables come from and
 * where its body is read -- with three backends: plain CGI (the
 * environment and stdin), FastCGI (libfcgi's request, serve.c) and the
 * embedded HTTP server (libmicrohttpd, serve_http.c). serve.h's helpers
 * (serve_env, serve_read, serve_body, ...) go through it, so a handler
 * runs the same behind each.
 */
#ifndef WSEQ_SERVE_INT_H
#define WSEQ_SERVE_INT_H

#include "serve.h"

struct serve_req_ops {
	/* A CGI variable of the request; NULL when unset. */
	const char *(*env)(void *arg, const char *name);
	/* At most n bytes of the body: 0 at its end, < 0 on error. */
	long (*read)(void *arg, char *buf, size_t n);
};

struct serve_req {
	const struct serve_req_ops *ops;
	void *arg;              /* the backend's request */
	FILE *out;              /* the reply: CGI headers, a blank line, the body */
	bool persistent;        /* the process answers many requests (FastCGI, HTTP) */
};

#endif
