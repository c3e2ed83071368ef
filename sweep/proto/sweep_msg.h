/*
 * Bodies of the sweep HTTP protocol (the sweep design, doc/seeds.md): the task a client fetches
 * (GET /task), the results it posts (POST /complete) and the client
 * configuration (GET /config), and the body a client told SendOutput=Yes
 * posts to /failed (a results body whose results may be missing). Encoders and decoders for all, shared
 * by the sweep CGI programs and sweep_client.
 *
 * Content blocks are binary safe. The sweep design frames a file between a
 * "--begin content--" line and a "--end content--" line, which breaks when
 * the file itself holds that text. The encoder therefore writes a
 * "Length=N" line before "--begin content--" (a reader that does not know
 * the key skips it) and the decoder, given a Length, takes exactly N bytes
 * and then expects "\n--end content--\n"; without a Length (an old writer)
 * it scans for the first "\n--end content--" line. doc/sweep-protocol.md is
 * the reference.
 */
#ifndef WSEQ_SWEEP_MSG_H
#define WSEQ_SWEEP_MSG_H

#include "common.h"
#include "sbuf.h"

#define SWEEP_MSG_MAX (256u << 20)      /* a sensible bound for decoders */
/* The largest /complete body: the endpoint's limit (FcgidMaxRequestLen), the master's too. */
#define SWEEP_COMPLETE_MAX (1u << 30)
#define SWEEP_TICKET_MAX 64             /* characters of a ticket */

/* An input file of a task: File=NAME or File=stdin, and its content. */
struct sweep_msg_input {
	char *file;
	char *data;             /* len bytes, NUL-terminated for convenience */
	size_t len;
};

/* A result a task asks for: Name=, and File=NAME or File=stdout. */
struct sweep_msg_result {
	char *name;
	char *file;
};

/* The body of a successful GET /task. */
struct sweep_task {
	char *ticket;           /* letters and digits */
	long timeout;           /* seconds; 0 for none */
	char *command_line;
	struct sweep_msg_input *inputs;
	size_t ninputs;
	struct sweep_msg_result *results;
	size_t nresults;
};

/* A result as posted: Name= and its content. */
struct sweep_msg_output {
	char *name;
	char *data;             /* len bytes, NUL-terminated */
	size_t len;
};

/*
 * A stream of the worker, [Stdout] or [Stderr] (sent when the configuration
 * says SendOutput=Yes): at most SWEEP_OUTPUT_MAX bytes of it -- the first
 * ones of stdout, the last ones of stderr -- and its whole size; size > len
 * marks a cut.
 */
#define SWEEP_OUTPUT_MAX (1u << 20)
struct sweep_msg_stream {
	bool present;
	char *data;             /* len bytes, NUL-terminated; NULL when not present */
	size_t len;
	size_t size;            /* the stream's whole size (Size=; len when absent) */
};

/*
 * The body of POST /complete, and of POST /failed (the same body; its
 * [Result] sections may be missing). Exit= and Signal= are top-level keys
 * before the sections; an old client sends neither.
 */
struct sweep_complete {
	struct sweep_msg_output *results;
	size_t nresults;
	bool have_exit;         /* Exit= was there */
	int exit_status;        /* Exit=: 0..255 */
	int signal;             /* Signal=: 1..127; 0 when absent */
	struct sweep_msg_stream out, err;       /* [Stdout], [Stderr] */
};

/* The body of a successful GET /config. */
struct sweep_config {
	bool delete_worker;
	bool delete_client;
	long ping;              /* seconds between pings; 0 for none */
	bool send_output;       /* SendOutput=Yes: /complete and /failed bring Exit and the streams */
};

/* Building messages: the strings and data are copied. */
void sweep_task_add_input(struct sweep_task *t, const char *file, const void *data, size_t len);
void sweep_task_add_result(struct sweep_task *t, const char *name, const char *file);
void sweep_complete_add(struct sweep_complete *c, const char *name, const void *data, size_t len);
/* Set a stream: len bytes of data kept of a stream of size bytes (size >= len). */
void sweep_complete_stream(struct sweep_msg_stream *s, const void *data, size_t len, size_t size);

/*
 * Encoders append to out, whose maximum bounds the message; -1 with the
 * reason in err (logged if NULL) when a field cannot be written (a newline
 * in a name, an unsafe file name) or the message would pass the maximum.
 */
int sweep_task_encode(const struct sweep_task *t, struct sbuf *out, struct sbuf *err);
int sweep_complete_encode(const struct sweep_complete *c, struct sbuf *out, struct sbuf *err);
/* The body of POST /failed: as /complete's, with no [Result] needed. */
int sweep_failed_encode(const struct sweep_complete *c, struct sbuf *out, struct sbuf *err);
int sweep_config_encode(const struct sweep_config *c, struct sbuf *out, struct sbuf *err);

/*
 * Decoders take the whole body (len bytes; NULs allowed) and refuse bodies
 * longer than max. 0, or -1 with an error naming the line ("task:7:
 * duplicate Ticket") appended to err; the output is then empty. Unknown
 * keys are skipped (that is how old readers pass over Length); unknown
 * sections are errors. File names must be relative and free of "..".
 */
int sweep_task_decode(const char *buf, size_t len, size_t max, struct sweep_task *t,
		      struct sbuf *err);
int sweep_complete_decode(const char *buf, size_t len, size_t max, struct sweep_complete *c,
			  struct sbuf *err);
int sweep_failed_decode(const char *buf, size_t len, size_t max, struct sweep_complete *c,
			struct sbuf *err);
int sweep_config_decode(const char *buf, size_t len, size_t max, struct sweep_config *c,
			struct sbuf *err);

/*
 * Only the top-level keys (Exit, Signal) of a /complete or /failed body:
 * buf may be its first bytes; reading stops at the first section or the
 * last whole line. 0, or -1 when those lines are malformed.
 */
int sweep_complete_head(const char *buf, size_t len, struct sweep_complete *c, struct sbuf *err);

void sweep_task_release(struct sweep_task *t);
void sweep_complete_release(struct sweep_complete *c);

/* The result called name in c, or NULL. */
const struct sweep_msg_output *sweep_complete_find(const struct sweep_complete *c, const char *name);

#endif
