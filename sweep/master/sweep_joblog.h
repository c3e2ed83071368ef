/*
 * `sweep --joblog FILE`: a record of every run of the worker in GNU
 * parallel's joblog format (tab-separated, a header line, a line a run,
 * retries included), written anew from the session -- every few seconds
 * while the sweep runs, and at its end -- so it is whole after a crash and
 * a resume; and reading one back for `--resume-failed` (the sets whose
 * runs all failed, or that never ran, run again). See doc/sweep.md.
 */
#ifndef WSEQ_SWEEP_JOBLOG_H
#define WSEQ_SWEEP_JOBLOG_H

#include "common.h"
#include "sbuf.h"

struct sweep_store;
struct sweep_files;
struct sweep_ticket;

/* parallel's header line, without its newline */
#define SWEEP_JOBLOG_HEADER \
	"Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand"

/* One run of the worker: one handing-out of a task (a ticket) that ended. */
struct sweep_joblog_run {
	size_t seq;             /* the parameter set's row, from 1 */
	const char *host;       /* the host as the cluster file names it */
	int64_t start;          /* when it was handed out (s since the epoch) */
	double runtime;         /* seconds to its answer */
	int exitval;            /* the worker's exit status; < 0: none (below) */
	int signal;             /* the signal that killed the worker, or 0 */
	const char *command;    /* the command line */
};

/* Exitval of a run without an exit status of its own. */
enum {
	SWEEP_JOBLOG_KILLED = -1,       /* killed (a signal, the Timeout) or lost */
	SWEEP_JOBLOG_INVALID = -2,      /* exited 0, but Validate refused its result */
};

/*
 * Exitval and Signal of a failed run from the reason its client gave
 * ("the worker exited with status 3", "... killed by signal 9",
 * "timeout: ..."); anything else: SWEEP_JOBLOG_KILLED and 0.
 */
void sweep_joblog_why(const char *why, int *exitval, int *signal);

/*
 * Exitval and Signal of a ticket that ended (false for one not sent, not
 * judged yet or still out): 0 and 0 for a valid run, SWEEP_JOBLOG_INVALID
 * for an invalid one, SWEEP_JOBLOG_KILLED for one timed out; for a failed
 * one the Exit and Signal its client reported (the head of its results
 * file, a POST /failed's body) when it did, else sweep_joblog_why() of its
 * why= note.
 */
bool sweep_joblog_outcome(const struct sweep_files *files, const struct sweep_ticket *t,
			  int *exitval, int *signal);

/* Append r as one joblog line (tabs and newlines in a field become blanks). */
void sweep_joblog_line(struct sbuf *b, const struct sweep_joblog_run *r);

#define SWEEP_JOBLOG_SEQ_MAX (1L << 24)  /* the highest Seq read back */

/*
 * The sets a joblog shows done: ok[seq - 1] for each seq that has a line
 * with Exitval 0 and Signal 0 (*ok grows to the highest seq, *n; a Seq
 * above SWEEP_JOBLOG_SEQ_MAX is an error). A missing file is an empty log.
 * 0, or -1 with "FILE:LINE: why" in err.
 */
int sweep_joblog_parse(const char *name, const char *text, size_t len, bool **ok, size_t *n,
		       struct sbuf *err);
int sweep_joblog_read(const char *path, bool **ok, size_t *n, struct sbuf *err);

/*
 * --resume-failed: the lines of the joblog at path (not its header) saved
 * in keep, so every later write of the joblog keeps them. A missing
 * joblog keeps nothing. 0, or -1 (logged).
 */
int sweep_joblog_keep(const char *path, const char *keep);

/*
 * Write path anew, atomically: the header, the lines of keep (a file of
 * earlier runs' lines, or NULL) and a line for every run of session sid
 * that ended, in the order they ended. 0, or -1 (logged).
 */
int sweep_joblog_write(struct sweep_store *store, const struct sweep_files *files,
		       const char *sid, const char *keep, const char *path);

#endif
