/*
 * sweep_client: the program the sweep master starts on every host of a
 * parameter sweep (the sweep design, doc/seeds.md). It fetches the configuration and the worker
 * from the master over HTTP, then pulls tasks, runs the worker on each and
 * posts the results, until the master has no task left. Three parts:
 * sweep_client.c (command line, the main loop, the end), sweep_client_http.c
 * (requests with retries and the silence bound) and sweep_client_task.c
 * (one task: inputs, the worker under a timeout and pings, results).
 * doc/sweep_client.md is the reference; doc/sweep-protocol.md the protocol.
 */
#ifndef WSEQ_SWEEP_CLIENT_H
#define WSEQ_SWEEP_CLIENT_H

#include "common.h"
#include "sbuf.h"
#include "sweep_expand.h"
#include "sweep_msg.h"

#include <signal.h>

/* Exit statuses; doc/sweep_client.md lists them. */
enum sc_exit {
	SC_EXIT_DONE = 0,       /* the master has no task left */
	SC_EXIT_ERROR = 1,      /* usage or local error, or stopped by a signal */
	SC_EXIT_FORBIDDEN = 2,  /* 403: wrong session (or worker name) */
	SC_EXIT_PLATFORM = 3,   /* 415: no worker for this platform */
	SC_EXIT_MD5 = 4,        /* the master's worker does not have the expected MD5 */
	SC_EXIT_SILENT = 5,     /* no answer from the master for --max-silence seconds */
};

/* The connection to the master. */
struct sc_http {
	void *curl;             /* CURL *, reused so connections stay open */
	char *base;             /* "http://host:port" or "http://host:port/p_cgi/sweep", no final '/' */
	char *session_q;        /* the session ID, URL-escaped; never logged */
	char *label_q;          /* "&host=LABEL", URL-escaped: who this client is, for statistics */
	long max_silence;       /* seconds without an answer before giving up */
	double failing_since;   /* dnow() of the first failure since the last answer; 0 if none */
	int backoff;            /* seconds of the next wait */
};

struct sc_reply {
	long status;            /* HTTP status; 0 when nothing came back */
	struct sbuf body;
};

/* How a request came out. */
enum sc_req {
	SC_REQ_OK,              /* one of the statuses asked for came back */
	SC_REQ_SILENT,          /* nothing usable for max_silence seconds */
	SC_REQ_STOPPED,         /* a signal asked the client to stop */
};

/* base: the master's base URL (sweep_url.h), checked; the paths follow it */
int sc_http_init(struct sc_http *h, const char *base, const char *session, const char *label,
		 long max_silence);
void sc_http_release(struct sc_http *h);
/* In a forked copy: a connection of its own (the parent's stays the parent's). */
int sc_http_fork(struct sc_http *h);
/*
 * One request, repeated with back-off until one of the accepted statuses
 * (a 0-terminated list) comes back. path is "/task", extra is appended to
 * the query ("&ticket=..."), post (may be NULL) is the POST body.
 */
enum sc_req sc_request(struct sc_http *h, const char *path, const char *extra,
		       const struct sbuf *post, const long *accept, struct sc_reply *r);
/*
 * One attempt only (pings): 0 when an answer came (r->status), -1 if not.
 * timeout bounds the whole transfer (seconds; 0 for none).
 */
int sc_request_once(struct sc_http *h, const char *path, const char *extra,
		    const struct sbuf *post, long timeout, struct sc_reply *r);
/* An answer came and was usable: the master is not silent. */
void sc_http_heard(struct sc_http *h);
/* No usable answer: the silence starts now, if it has not already. */
void sc_http_missed(struct sc_http *h);
/* Has the master been silent for too long? */
bool sc_http_silent(const struct sc_http *h);
/*
 * Wait the back-off time (or less, to end at the silence bound); false
 * when stopped by a signal.
 */
bool sc_http_backoff(struct sc_http *h);
void sc_reply_init(struct sc_reply *r);
void sc_reply_release(struct sc_reply *r);

/* Set by SIGTERM and SIGINT: finish nothing, tidy up and leave. */
extern volatile sig_atomic_t sc_stop;
/* Sleep up to secs seconds; returns early (false) when sc_stop is set. */
bool sc_sleep(double secs);

/* What the task runner needs from main. */
struct sc_ctx {
	struct sc_http *http;
	const char *dir;        /* the work directory (absolute) */
	const char *worker;     /* the verified worker (absolute) */
	const char *worker_md5;
	long ping;              /* seconds between pings; 0 for none */
	bool keep;              /* keep task directories */
	bool send_output;       /* the configuration's SendOutput: Exit and the streams go along */
	unsigned long ntask;    /* tasks run, for directory names */
};

enum sc_task_end {
	SC_TASK_DONE,           /* results posted */
	SC_TASK_FAILED,         /* failure reported */
	SC_TASK_DROPPED,        /* the master said 205: nothing reported */
	SC_TASK_FORBIDDEN,      /* 403 while working on it */
	SC_TASK_SILENT,         /* the master went silent */
	SC_TASK_STOPPED,        /* a signal */
};

/* Run one decoded task to its end (results posted or failure reported). */
enum sc_task_end sc_task_run(struct sc_ctx *c, const struct sweep_task *t);
/* Report the ticket failed (why goes to the log). */
enum sc_task_end sc_task_report_failed(struct sc_ctx *c, const char *ticket, const char *why);
/* The same, with the worker's exit status and streams as POST /failed's body (NULL: GET). */
enum sc_task_end sc_task_report_output(struct sc_ctx *c, const char *ticket, const char *why,
				       const struct sweep_complete *out);
/*
 * The ticket of a task body the decoder refused, if a Ticket line before
 * the first section is still readable and well formed (free()); else NULL.
 */
char *sc_salvage_ticket(const char *buf, size_t len);
/* Split a task's CommandLine into arguments, as doc/sweep-formats.md says. */
int sc_split_command(const char *cmd, struct sweep_argv *av, struct sbuf *err);
/* Is the worker file still the one verified (rehashed only when its stat changed)? */
bool sc_worker_ok(const char *path, const char *md5);

#endif
