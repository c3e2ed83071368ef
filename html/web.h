/*
 * The web programs' common ground: a request (method, page, parameters,
 * cookies), a reply (status, headers, body), and the context a handler
 * runs in (configuration, database, clock). A handler is a function from
 * request to reply; the CGI front end (web_cgi.c) only reads the request
 * from the environment and writes the reply, so the same handlers can sit
 * behind FastCGI, in tests and in benchmarks.
 */
#ifndef WSEQ_WEB_H
#define WSEQ_WEB_H

#include "common.h"
#include "account.h"
#include "form.h"
#include "sbuf.h"

struct db;
struct project_config;

/* Largest request body read (a POSTed form); longer ones are refused whole. */
#define WEB_MAX_BODY (2L << 20)
/* The web server refuses bodies above this (make_project's LimitRequestBody for it). */
#define WEB_MAX_DRAIN (64L << 20)

struct web_req {
	const char *method;             /* "GET", "POST", ... */
	const char *page;               /* the last element of the path: "create_account.php" */
	const char *path;               /* the whole path (SCRIPT_NAME): "/wseq/create_account.php" */
	const char *query_string;       /* as sent, "" for none */
	const char *remote_addr;
	const char *cookie;             /* the Cookie header, or NULL */
	bool https;
	struct form query;              /* the query string's parameters */
	struct form body;               /* a POSTed form's (urlencoded or multipart) */
	char *body_buf;                 /* the body the parts point into */
	bool bad;                       /* the query or body could not be read */
	char bad_why[256];
};

struct web_reply {
	int status;                     /* HTTP status, 200 by default */
	const char *content_type;
	struct sbuf headers;            /* extra header lines, each ending "\r\n" */
	struct sbuf body;
};

struct web_ctx {
	const struct project_config *cfg;
	const struct account_settings *acct;
	struct db *db;                  /* NULL: the database cannot be reached */
};

/*
 * Build a request from CGI-style variables read through getvar (getenv for
 * CGI) and a body of len bytes (taken over, NULL for none). Never fails:
 * a malformed query or body sets bad.
 */
void web_req_init(struct web_req *r, const char *(*getvar)(const char *name, void *arg),
		  void *arg, char *body, size_t len);
void web_req_release(struct web_req *r);
/* A parameter: the query's first, else the body's; NULL when absent or holding a NUL. */
const char *web_param(const struct web_req *r, const char *name);
/* The value of cookie name, allocated, or NULL. */
char *web_cookie(const struct web_req *r, const char *name);

void web_reply_init(struct web_reply *o);
void web_reply_release(struct web_reply *o);
/* Write status line, headers and body CGI-style to f. */
int web_reply_write(const struct web_reply *o, FILE *f);
/*
 * The headers of every HTML page, the volunteers' and the ops pages': a
 * Content-Security-Policy that runs no script and loads only the site's
 * own styles and images, frames nowhere (frame-ancestors, X-Frame-Options)
 * and sends no Referer. (nosniff goes with every reply.)
 */
void web_page_headers(struct web_reply *o);

/* Append s escaped for HTML text or a quoted attribute value (& < > " '). */
void web_html(struct sbuf *b, const char *s);
/* Append s %-encoded as PHP's urlencode does (space as '+'). */
void web_urlencode(struct sbuf *b, const char *s);

/* A web program's answer to one request. */
typedef void web_handler(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);
/* A web program: its main() is return web_serve_main(&program, argc, argv). */
struct web_program {
	const char *prog;               /* its log name */
	const char *usage;              /* what --help prints */
	web_handler *fn;
	const char *offline_reply;      /* written whole when config.xml cannot be read */
};
/*
 * Serve requests with p->fn until the process manager says stop
 * (serve_program() in serve/serve.h: FastCGI or CGI), with config.xml and the
 * account settings. Returns main's exit status.
 */
int web_serve_main(const struct web_program *p, int argc, char **argv);

/* Every page and RPC the program serves: 0 handled, -1 no such page. */
int web_handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);

/* The account RPCs (user/rpc.c): 0 handled, -1 not an RPC. */
int user_rpc(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);

#endif
