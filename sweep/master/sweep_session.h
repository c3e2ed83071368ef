/*
 * Parameter sweep sessions on the server: what `sweep` makes from a worker
 * spec and its parameter table, and what cgi-bin/sweep serves from. See the
 * server-side section of doc/sweep-protocol.md.
 */
#ifndef WSEQ_SWEEP_SESSION_H
#define WSEQ_SWEEP_SESSION_H

#include "common.h"
#include "sbuf.h"

struct db;
struct project_config;
struct sweep_params;
struct sweep_spec;

#define SWEEP_SID_LEN 32        /* hex digits of a session ID (128 random bits) */

/*
 * What a new session may change of its spec: the sets left out (skip[row]
 * for rows below nskip, from 0: --resume-failed's sets that ran well
 * already) and MaxTotal (--retries; 0: the spec's, else at least MaxAssign).
 */
struct sweep_create_opts {
	const bool *skip;
	size_t nskip;
	long max_total;
};

/*
 * Read the spec at spec_path and its parameter file, then, in one
 * transaction: the app "sweep" if missing, a batch "sweep:SID" IN_PROGRESS,
 * one workunit per parameter set (its task body; the spec's Timeout,
 * MaxAssign and MaxTotal as delay_bound, target_nresults and
 * max_total_results; opaque = its row, from 1) with its first tickets
 * (target_nresults unsent results); and the session's files in sweep/SID/. sid (SWEEP_SID_LEN + 1 bytes, "" on entry) gets the session
 * ID. co may be NULL. 0, or -1 with the reason in err (nothing left behind).
 */
int sweep_session_create(struct db *db, const struct project_config *cfg, const char *spec_path,
			 const struct sweep_create_opts *co, char sid[SWEEP_SID_LEN + 1],
			 int64_t *batch_id, size_t *ntasks, struct sbuf *err);

/* The spec's parameter file, read (relative to the spec's directory). 0, or -1 (err). */
int sweep_session_params(const struct sweep_spec *s, struct sweep_params *p, struct sbuf *err);

/*
 * Session sid: its batch id (batch may be NULL), its spec as the batch
 * names it, and its parameter table (p may be NULL). 0, or -1 with the
 * reason in err ("no sweep session SID" when there is none).
 */
int sweep_session_load(struct db *db, const char *sid, int64_t *batch, struct sweep_spec *s,
		       struct sweep_params *p, struct sbuf *err);

struct sweep_collect_stats {
	size_t valid, invalid;          /* results judged by this call */
	size_t done, failed, pending;   /* the session's tasks now (with write_output only) */
	char *output;                   /* the output file written (free it) */
};

/*
 * Judge every result of the session not judged yet -- with the spec's
 * Validate command, run in a fresh directory holding each result as a file
 * named like it (the first one on stdin too): exit 0 makes it the task's
 * canonical result, else it is invalid and the task is handed out again --
 * then write the spec's Output anew from every valid result in table order
 * (plain, or blocks under "### name=value ..."), so collecting twice never
 * collects a set twice -- unless write_output is false (judging only, as
 * `sweep run` does while the sweep goes on). The verdicts of a call are
 * recorded in one transaction. 0, or -1 with the reason in err.
 */
int sweep_session_collect(struct db *db, const struct project_config *cfg, const char *sid,
			  bool write_output, struct sweep_collect_stats *st, struct sbuf *err);

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
 * only the counts (two aggregate queries: `sweep run`'s look once a second).
 * 0, or -1 with the reason in err
 * (DB_NOT_FOUND-like "no sweep session" when it does not exist).
 */
int sweep_session_stats(struct db *db, const char *sid, bool detail, struct sweep_stats *st,
			struct sbuf *err);
void sweep_stats_release(struct sweep_stats *st);

#endif
