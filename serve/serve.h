/*
 * Serving HTTP requests the web server hands over, as a FastCGI program
 * (one process answers request after request under mod_fcgid) or as a
 * plain CGI program (one request a process) -- the same binary, told apart
 * by FCGX_IsCGI(). The scheduler, the upload handler, the submit RPCs, the
 * web program and the sweep endpoints all run through serve_main(). The
 * same handlers (serve_fn) also run in-process behind the embedded HTTP
 * server of serve_http.h, with no web server at all.
 *
 * What a process keeps across requests is the program's own state (its
 * handler's first argument) plus a struct serve_project: config.xml and
 * the program's settings, reloaded when the file changes, the log, and the
 * database connection, opened when missing. Everything a request makes is
 * the handler's to free before it returns: nothing of one request is seen
 * by the next.
 */
#ifndef WSEQ_SERVE_H
#define WSEQ_SERVE_H

#include "common.h"
#include "config.h"
#include "db.h"
#include "form.h"
#include "param.h"
#include "sbuf.h"

#include <sys/stat.h>

/* One request: its environment, its body, its reply. */
struct serve_req;

/* A CGI variable of the request (REQUEST_METHOD, QUERY_STRING, ...); NULL when unset. */
const char *serve_env(struct serve_req *r, const char *name);
/* The same with the form_read_body_from()/web_req_init() callback signature (arg: the request). */
const char *serve_env_cb(const char *name, void *r);
/* Read at most n bytes of the body (arg: the request); 0 at its end, < 0 on error. */
long serve_read(void *r, char *buf, size_t n);
/*
 * The whole body as form_read_body() reads it: CONTENT_LENGTH bytes, at most
 * max, NUL-terminated; NULL with *why when missing, too long or cut short.
 */
char *serve_body(struct serve_req *r, long max, size_t *len, struct sbuf *why);
/* The same through a gate (form.h): the rest is read only when the head passes. */
char *serve_body_gated(struct serve_req *r, long max, const struct form_gate *gate, size_t *len,
		       struct sbuf *why);
/* Read and drop at most max bytes of what is left of the body. */
void serve_drain(struct serve_req *r, long max);
/* Where the reply goes, headers first ("Status: ...\r\n", "Content-Type: ...\r\n\r\n"). */
FILE *serve_out(struct serve_req *r);
/*
 * What a reply of bytes a submitter or a host sent (a job file, an output,
 * a zip of them) carries besides its Content-Type (always
 * application/octet-stream or application/zip) and its Content-Disposition
 * (always attachment): no browser sniffs it into a page, and were it shown
 * it could run no script, load nothing and reach no cookie of the project's
 * origin. make_project's Apache configuration sends the same for download/.
 */
#define SERVE_UNTRUSTED_CSP "default-src 'none'; sandbox"
#define SERVE_UNTRUSTED_HEADERS "X-Content-Type-Options: nosniff\r\n" \
	"Content-Security-Policy: " SERVE_UNTRUSTED_CSP "\r\n"
/*
 * Does this process answer many requests (FastCGI, the embedded HTTP
 * server of serve_http.h), or one (plain CGI)?
 */
bool serve_is_fastcgi(const struct serve_req *r);

/*
 * The project as a serving process sees it. Set prog, params, settings and
 * settings_size (params may be NULL); serve_project_get() does the rest.
 */
struct serve_project {
	const char *prog;               /* log name: <log_dir>/<prog>.log */
	const struct param *params;     /* the program's own config.xml settings ... */
	void *settings;                 /* ... read into this */
	size_t settings_size;
	/* what serve_project_get() keeps */
	struct project_config cfg;
	bool loaded;
	struct stat st;                 /* config.xml's, when read */
	unsigned generation;            /* +1 at each (re)load */
	struct db_params dp;            /* points into cfg */
	struct db *db;                  /* NULL until a connect succeeds */
};

/*
 * config.xml and the settings: read at the first call, read again when the
 * file has changed since (a failed reread keeps what was read before, and
 * logs). 0, or -1 when there is no configuration at all.
 */
int serve_project_get(struct serve_project *p);
/*
 * The database connection: the one kept, or a new one (NULL, logged, when
 * the database cannot be reached; the next call tries again). The db layer
 * reconnects by itself when the server went away between statements.
 */
struct db *serve_project_db(struct serve_project *p);
/*
 * After a request whose database work failed: drop the connection, so the
 * next request starts on a fresh one (a statement that failed with a
 * deadlock was seen to make the next one on its connection wait forever).
 */
void serve_project_db_failed(struct serve_project *p);
void serve_project_release(struct serve_project *p);

typedef void serve_fn(void *state, struct serve_req *r);

/*
 * A serving program, as struct tool_spec is a command-line one: its main()
 * is one line, return serve_program(&spec, argc, argv).
 */
struct serve_spec {
	const char *usage;              /* what --help prints */
	serve_fn *fn;                   /* answers one request */
	void *state;                    /* fn's first argument: what the process keeps */
	struct serve_project *proj;     /* in state, prog set (the log name); freed at the end */
	void (*fini)(void *state);      /* frees the rest of state; may be NULL */
};

/*
 * A serving program takes no arguments: --help (or -h) prints usage to
 * stdout (exit 0), anything else prints it to stderr (exit 2). Else the
 * log (proj->prog), serve_main(), then teardown (fini, serve_project_release(),
 * the log). Returns main's exit status. A FastCGI process that reached its
 * request limit is renewed instead: after the teardown it executes its
 * program afresh (argv), keeping its pid and listening socket.
 */
int serve_program(const struct serve_spec *spec, int argc, char **argv);

/*
 * Answer requests with fn: one (plain CGI), or request after request
 * (FastCGI) until the request limit -- WSEQ_FCGI_MAX_REQUESTS (when set)
 * plus up to half again, drawn at random by each process so that processes
 * started together are not renewed together -- SIGTERM or SIGUSR1, between
 * requests, never in one. Returns 0.
 */
int serve_main(serve_fn *fn, void *state);

#endif
