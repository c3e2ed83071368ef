/*
 * Parameter sweep sessions: what `sweep` makes from a worker spec and its
 * parameter table, in a sweep store (sweep/store/sweep_store.h: the
 * embedded one or a project's) and the session's files (sweep_files.h),
 * and what the endpoints serve from. See the server-side section of
 * doc/sweep-protocol.md.
 */
#ifndef WSEQ_SWEEP_SESSION_H
#define WSEQ_SWEEP_SESSION_H

#include "common.h"
#include "sbuf.h"

struct sweep_files;
struct sweep_params;
struct sweep_store;
struct sweep_spec;

#define SWEEP_SID_LEN 32        /* hex digits of a session ID (128 random bits) */

/*
 * The project store of the config.xml at path (sweep_store_open_project()),
 * waiting up to wait seconds for its database (a private project just
 * started). NULL with the reason logged.
 */
struct sweep_store *sweep_project_store(const char *path, double wait);

/*
 * Read the spec at spec_path and its parameter file, then write the
 * session's files (files' SID/: config, worker_name, workers/PLATFORM) and
 * store the session in one transaction: one task per parameter set (its
 * task body; the spec's Timeout, MaxAssign and MaxTotal; its row, from 1)
 * with its first tickets, the spec's real path as the session's spec. sid
 * (SWEEP_SID_LEN + 1 bytes, "" on entry) gets the session ID, *session its
 * id in the store. 0, or -1 with the reason in err (nothing left behind).
 */
int sweep_session_create(struct sweep_store *st, const struct sweep_files *files,
			 const char *spec_path, char sid[SWEEP_SID_LEN + 1], int64_t *session,
			 size_t *ntasks, struct sbuf *err);

/*
 * Session sid: its id in the store (session may be NULL), its spec as the
 * store names it, and its parameter table (p may be NULL). 0, or -1 with
 * the reason in err ("no sweep session SID" when there is none).
 */
int sweep_session_load(struct sweep_store *st, const char *sid, int64_t *session,
		       struct sweep_spec *s, struct sweep_params *p, struct sbuf *err);

struct sweep_collect_stats {
	size_t valid, invalid;          /* results judged by this call */
	size_t done, failed, pending;   /* the session's tasks now (with write_output only) */
	char *output;                   /* the output file written (free it) */
};

/*
 * Let the store do its own transitioner's work (sweep_store_tick(): tickets
 * timed out, new ones made), then judge every result of the session not
 * judged yet -- read from files' results -- with the spec's
 * Validate command, run in a fresh directory holding each result as a file
 * named like it (the first one on stdin too): exit 0 makes it the task's
 * canonical result, else it is invalid and the task is handed out again --
 * then write the spec's Output anew from every valid result in table order
 * (plain, or blocks under "### name=value ..."), so collecting twice never
 * collects a set twice -- unless write_output is false (judging only, as
 * `sweep run` does while the sweep goes on). The verdicts of a call are
 * recorded in one transaction. 0, or -1 with the reason in err.
 */
int sweep_session_collect(struct sweep_store *store, const struct sweep_files *files,
			  const char *sid, bool write_output, struct sweep_collect_stats *st,
			  struct sbuf *err);

/* What one host did in a session (from the host= its client sent). */
struct sweep_host_stat {
	char *host;
	size_t done;            /* valid results */
	size_t failed;          /* reported failed (worker error, timeout) */
	size_t invalid;         /* came back, judged invalid */
	size_t lost;            /* never came back before the task's Timeout */
	double seconds;         /* from handing out to the answer, over its answered tickets */
};

/* A parameter set that failed, and why (each ticket's end, "; "-separated). */
struct sweep_failed_set {
	size_t row;             /* in the parameter file, from 1 */
	char *why;
};

struct sweep_stats {
	size_t total, done, failed, running, waiting;   /* tasks */
	bool ready;             /* a ticket of a task neither done nor failed waits to be handed out */
	struct sweep_host_stat *hosts;
	size_t nhosts;
	struct sweep_failed_set *failed_sets;
	size_t nfailed_sets;
};

/*
 * The state of session sid's tasks; with detail, also what each host did
 * and why each failed set failed (a row a task and a ticket), without it
 * only the counts (sweep_store_counts(): `sweep run`'s look once a second).
 * 0, or -1 with the reason in err ("no sweep session SID" when it does not
 * exist).
 */
int sweep_session_stats(struct sweep_store *store, const char *sid, bool detail,
			struct sweep_stats *st, struct sbuf *err);
void sweep_stats_release(struct sweep_stats *st);

#endif
