/*
 * wseq_submit: submit, follow and fetch a batch of jobs on a wseq (or any
 * BOINC) project from an HTCondor submit description or a job list, without
 * HTCondor. wseq_submit.c holds main() and the options, wseq_submit_desc.c
 * reads descriptions, wseq_submit_state.c the state file a submit leaves in
 * the user's state directory, and the subcommands live in wseq_submit_cmd.c (submit),
 * wseq_submit_watch.c (status, wait, abort, retire) and wseq_submit_fetch.c.
 * They talk to the project through submit_client.c and submit_send.c, as
 * boinc_gahp does. Exit status: 0 done, 1 failed (a job, the server, the
 * network), 2 a usage or description error (nothing was sent).
 */
#ifndef WSEQ_SUBMIT_H
#define WSEQ_SUBMIT_H

#include "common.h"
#include "sbuf.h"

#define WS_EXIT_OK 0
#define WS_EXIT_FAIL 1
#define WS_EXIT_USAGE 2

/* Where versions before 2026-11-28 kept the state, in the working directory (not read any more). */
#define WS_OLD_STATE_DIR ".wseq_submit"

struct ws_options {
	char *project;
	char *auth_file;
	char *batch;
	char *app;
	bool job_list;
	bool sequence;
	bool jobs;
	double lease_days;
	double poll;
	double timeout;
	bool help;
};

/* One job as the state file keeps it: what fetch needs. */
struct ws_job {
	long proc;
	char *name;
	char *iwd;              /* absolute */
	char *output, *error, *log;     /* as written in the description, or NULL */
	bool suffix_proc;
	char **outputs;
	size_t noutputs;
	bool outputs_given;
	char **remap_from, **remap_to;
	size_t nremaps;
};

struct ws_state {
	char *project;          /* URL ending in / */
	char *auth_file;        /* absolute */
	char *batch;
	long batch_id;
	char *app;
	bool sequence;
	char *dir;              /* where submit ran */
	double lease;           /* seconds */
	struct ws_job *jobs;
	size_t njobs;
};

/* wseq_submit_state.c */
/*
 * The directory of every working directory's state: WSEQ_SUBMIT_STATE_DIR,
 * else $XDG_STATE_HOME/wseq_submit, else ~/.local/state/wseq_submit
 * (allocated; NULL without a home).
 */
char *ws_state_root(void);
/*
 * The state directory of the working directory (made 0700, checked as
 * ws_state_private() does), allocated; NULL when it cannot be had (told on
 * stderr).
 */
char *ws_state_dir(void);
/* The state file of batch in ws_state_dir(), or NULL (told). */
char *ws_state_path(const char *batch);
/*
 * 0 if path (a directory when dir, else a plain file, not a link) is the
 * user's and not writable by group or others; -1 told on stderr when not,
 * -1 with errno when it cannot be looked at.
 */
int ws_state_private(const char *path, bool dir);
int ws_state_write(const struct ws_state *s, const char *path, struct sbuf *err);
int ws_state_read(const char *path, struct ws_state *s, struct sbuf *err);
void ws_state_release(struct ws_state *s);
/* Is name usable as a batch name and a file name (letters, digits, _ . - + #, no leading .)? */
bool ws_name_ok(const char *name);

/* wseq_submit.c: the project and the authenticator to use */
struct ws_conn {
	char *url;              /* ending in / */
	char *auth_file;
	char *auth;
};
/*
 * Choose the project and authenticator file: the options first, then what
 * the description or state file gives (either NULL), then WSEQ_PROJECT_URL
 * and WSEQ_AUTH_FILE, then ~/.wseq_submit. 0, or -1 (told on stderr).
 */
int ws_connect(const struct ws_options *o, const char *project, const char *auth_file,
	       struct ws_conn *c);
void ws_conn_release(struct ws_conn *c);
/* Print "wseq_submit: ..." on stderr; a refused authenticator gets a hint. Returns -1. */
int ws_fail(const struct ws_conn *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* A Condor-like event line appended to a job's log file (best effort). */
void ws_log_event(const char *dir, const struct ws_job *j, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* dir/path, or path when absolute (allocated). */
char *ws_path(const char *dir, const char *path);

/* The subcommands: each returns the exit status. */
int ws_submit(const struct ws_options *o, const char *file);
int ws_status(const struct ws_options *o, const char *batch);
int ws_wait(const struct ws_options *o, const char *batch);
int ws_fetch(const struct ws_options *o, const char *batch);
int ws_abort(const struct ws_options *o, const char *batch);
int ws_retire(const struct ws_options *o, const char *batch);

/* wseq_submit_watch.c: a batch's state file, or the bare batch for status/abort/retire */
int ws_open_batch(const struct ws_options *o, const char *batch, bool need_state,
		  struct ws_state *s, struct ws_conn *c);

#endif
