/*
 * The parameter sweep's HTTP endpoints as a handler (doc/sweep-protocol.md):
 * sweep_endpoints_serve() answers one request -- /config, /ping, /worker,
 * /task, /complete, /failed -- from a sweep store (sweep/store/sweep_store.h)
 * and a session-files directory (sweep_files.h: the master's "halt" file
 * there stops /task and, with "now", makes /ping answer 205), and nothing
 * else: no database of its own, no configuration file, no global state. The
 * project's cgi-bin/sweep (sweep_cgi.c) calls it with the project store; the
 * master's embedded HTTP server can call it in-process with its own.
 *
 * The request (struct serve_req, serve/serve.h) gives the protocol's path
 * as PATH_INFO ("/task"), or, without one, as the last part of SCRIPT_NAME;
 * the query as QUERY_STRING; the client's address as REMOTE_ADDR (logged).
 * The reply goes to serve_out() as a CGI reply ("Status: ..." first).
 */
#ifndef WSEQ_SWEEP_ENDPOINTS_H
#define WSEQ_SWEEP_ENDPOINTS_H

#include "common.h"
#include "serve.h"
#include "sweep_files.h"
#include "sweep_store.h"

#define SWEEP_SESSION_ID_MAX 64
#define SWEEP_SESSIONS_KEPT 16          /* sessions a handler remembers */

/* A session found lately, and when (a running task's requests need no lookup of it). */
struct sweep_known_session {
	char sid[SWEEP_SESSION_ID_MAX + 1];
	int64_t session;
	double seen;                    /* dnow(); 0: unused */
};

/* What the handler answers from, and what it keeps from one request to the next. */
struct sweep_endpoints {
	struct sweep_store *store;      /* NULL: every request gets 503 */
	const struct sweep_files *files;
	struct sweep_known_session known[SWEEP_SESSIONS_KEPT];  /* zeroed at first */
	/*
	 * Called, when not NULL, once /complete or /failed recorded the end of
	 * a run of session (success: /complete), before the reply goes out:
	 * an in-process master acts on it before the client asks again.
	 */
	void (*reported)(void *arg, int64_t session, bool success);
	void *reported_arg;
};

/*
 * Answer one request; everything it made is freed when it returns. Calls on
 * one struct take turns (its remembered sessions are not locked): a server
 * answering on several threads gives each its own struct over the shared
 * store, or serializes the calls.
 */
void sweep_endpoints_serve(struct sweep_endpoints *ep, struct serve_req *io);
/* A text/plain reply of status (the CGI front's own refusals). */
void sweep_endpoints_reply_text(struct serve_req *io, int status, const char *msg);

#endif
