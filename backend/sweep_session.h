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

#define SWEEP_SID_LEN 32        /* hex digits of a session ID (128 random bits) */

/*
 * Read the spec at spec_path and its parameter file, then, in one
 * transaction: the app "sweep" if missing, a batch "sweep:SID" IN_PROGRESS,
 * one workunit per parameter set (its task body; the spec's Timeout,
 * MaxAssign and MaxTotal as delay_bound, target_nresults and
 * max_total_results; opaque = its row, from 1); and the session's files in
 * sweep/SID/. sid (SWEEP_SID_LEN + 1 bytes, "" on entry) gets the session
 * ID. 0, or -1 with the reason in err (nothing left behind).
 */
int sweep_session_create(struct db *db, const struct project_config *cfg, const char *spec_path,
			 char sid[SWEEP_SID_LEN + 1], int64_t *batch_id, size_t *ntasks,
			 struct sbuf *err);

struct sweep_collect_stats {
	size_t valid, invalid;          /* results judged by this call */
	size_t done, failed, pending;   /* the session's tasks now */
	char *output;                   /* the output file written (free it) */
};

/*
 * Judge every result of the session not judged yet -- with the spec's
 * Validate command, run in a fresh directory holding each result as a file
 * named like it (the first one on stdin too): exit 0 makes it the task's
 * canonical result, else it is invalid and the task is handed out again --
 * then write the spec's Output anew from every valid result in table order
 * (plain, or blocks under "### name=value ..."), so collecting twice never
 * collects a set twice. 0, or -1 with the reason in err.
 */
int sweep_session_collect(struct db *db, const struct project_config *cfg, const char *sid,
			  struct sweep_collect_stats *st, struct sbuf *err);

#endif
