/*
 * boinc_gahp: the GAHP server HTCondor's gridmanager drives to run jobs on a
 * BOINC project. The main thread reads request lines and answers return
 * lines at once (boinc_gahp.c); asynchronous requests go to a bounded pool of
 * workers (boinc_gahp_queue.c) that talk to the project's remote job
 * submission RPCs (submit_client.c) and leave a result line for RESULTS.
 * The commands themselves live in boinc_gahp_cmd.c, boinc_gahp_submit.c and
 * boinc_gahp_fetch.c.
 */
#ifndef WSEQ_BOINC_GAHP_H
#define WSEQ_BOINC_GAHP_H

#include "common.h"
#include "sbuf.h"
#include "xml.h"

/* The longest request line read, and the longest result line built. */
#define GAHP_MAX_LINE (1024L * 1024 * 1024)

struct gahp_req;

/* An asynchronous command: parse in the main thread, run in a worker. */
struct gahp_cmd {
	const char *name;
	/*
	 * 0 if argv (argv[0] is the command word) is well formed, else -1 with
	 * the reason in why (answer "E <command>: <why>").
	 */
	int (*parse)(int argc, char **argv, void **spec, struct sbuf *why);
	/* Append the result tokens after the request id (" NULL ..." or " <error>"). */
	void (*run)(struct gahp_req *r, struct sbuf *res);
	void (*free_spec)(void *spec);
};

struct gahp_req {
	char *reqid;                /* as the client sent it */
	const struct gahp_cmd *cmd;
	char *line;                 /* the request line; argv points into it */
	int argc;
	char **argv;
	void *spec;                 /* what cmd->parse made of argv */
	char *url;                  /* project and authenticator captured on acceptance */
	char *auth;
	char *result;               /* the result line (no prefix) once done */
	bool done;
	struct gahp_req *next;      /* issue order */
	struct gahp_req *qnext;     /* work queue */
};

/* boinc_gahp_proto.c: the line grammar */

/*
 * Split a request line in place into arguments: unescaped spaces separate,
 * "\x" stands for x. Returns argc (argv allocated, pointing into line), or
 * -1 for a line ending in a lone backslash.
 */
int gahp_split(char *line, char ***argv);
/* Append s with space, backslash, CR and LF escaped by a backslash. */
void gahp_escape(struct sbuf *b, const char *s);
/* Append " " and s escaped as one token. */
void gahp_token(struct sbuf *b, const char *s);
/*
 * Append " " and an error message as one token: control characters become
 * spaces, and the authenticator auth (if any) is blanked out.
 */
void gahp_error(struct sbuf *b, const char *auth, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Is s a request id (1 to 18 digits, not all zero)? */
bool gahp_is_reqid(const char *s);
/* A count: 1 to 9 digits. */
int gahp_parse_count(const char *s, long *n);

/*
 * The checks every parse function makes, each 0 or -1 with why filled:
 * the number of arguments (want argc == n, or >= n with at_least; use is
 * the command's grammar), a request id in argv[1], a count called what,
 * and a number called what in [0, max] ("NULL" too when null_ok, as 0).
 */
int gahp_want_args(int argc, int n, bool at_least, const char *use, struct sbuf *why);
int gahp_want_reqid(const char *s, struct sbuf *why);
int gahp_want_count(const char *what, const char *s, long *n, struct sbuf *why);
int gahp_want_number(const char *what, const char *s, double max, bool null_ok, double *v,
		     struct sbuf *why);

/* The latest time a request may give (MIN_MOD_TIME, a lease): year 5138, as the server. */
#define GAHP_TIME_MAX 1e11

/* boinc_gahp_queue.c: output, the result queue and the workers */

/* Print one line (the response prefix is added) atomically; -1 if stdout failed. */
int gahp_print(const char *line);
void gahp_set_prefix(const char *prefix);
int gahp_pool_start(int nworkers);
/* Queue an accepted request (ownership passes) and print its "S" return line. */
void gahp_submit(struct gahp_req *r);
/* The RESULTS command. */
void gahp_results(void);
/* ASYNC_MODE_ON / OFF, printing the "S" return line. */
void gahp_set_async(bool on);
/*
 * Stop (after printing QUIT's "S" if say_s): true if every worker ended
 * within timeout seconds, and then everything is freed.
 */
bool gahp_pool_stop(double timeout, bool say_s);
/* Set once QUIT or end of input was seen; long operations give up. */
bool gahp_quitting(void);
/* --exec_app: where a job whose APP is a path (its own executable) goes. */
extern const char *gahp_exec_app;
void gahp_req_free(struct gahp_req *r);

/* The asynchronous commands (boinc_gahp_cmd.c). */
const struct gahp_cmd *gahp_find_cmd(const char *word);
int gahp_submit_parse(int argc, char **argv, void **spec, struct sbuf *why);
void gahp_submit_run(struct gahp_req *r, struct sbuf *res);
void gahp_submit_free(void *spec);
int gahp_fetch_parse(int argc, char **argv, void **spec, struct sbuf *why);
void gahp_fetch_run(struct gahp_req *r, struct sbuf *res);
void gahp_fetch_free(void *spec);

/* Parts of the commands' replies, apart for the fuzzer (test/fuzz/fuzz_gahp_reply.c). */
/* Append " COUNT (JOB STATUS)..." for each <batch_size> of a query_batch2 reply and its jobs. */
int gahp_query_reply(xmlNode *root, long nbatches, struct sbuf *out, struct sbuf *err);
/* The server sends stderr entity-escaped inside CDATA: undo the escaping in place. */
void gahp_unescape_entities(char *s);

#endif
