/*
 * The measured speed of a host's app versions, from its reports
 * (sched_hav.c): the successful jobs an RPC recorded are gathered, and at
 * the end of the reports each becomes a host_app_version sample
 * (db_hav_report), read from its workunit's estimate and written in one
 * statement a job.
 */
#ifndef WSEQ_SCHED_HAV_H
#define WSEQ_SCHED_HAV_H

#include "scheduler.h"
#include "db_sched.h"

/* Fastest speed taken as a measurement; above it the elapsed time is nonsense. */
#define SCHED_HAV_MAX_FLOPS 1e18
/* Longest elapsed time taken as a measurement (about 30 years). */
#define SCHED_HAV_MAX_ELAPSED 1e9

struct sched_hav_job {
	const char *name;       /* the result's, for the log (the caller's string) */
	int64_t wuid, avid;
	double elapsed;         /* a success: its elapsed time */
	bool error;             /* a client error ... */
	double turnaround;      /* ... received this long after it was sent (< 0: unknown) */
};

struct sched_hav {
	struct sched_hav_job *v;
	size_t n;
};

/*
 * A successful report of res in elapsed seconds, recorded: a sample if it
 * ran an app version (app_version_id > 0) for a while (0 < elapsed <=
 * SCHED_HAV_MAX_ELAPSED).
 */
void sched_hav_add(struct sched_hav *h, const struct db_result *res, double elapsed);
/*
 * A client error of res, received turnaround seconds after it was sent:
 * one error for its app version's reliability (db_hav_outcome), which
 * ends the host's run of valid results of it.
 */
void sched_hav_error(struct sched_hav *h, const struct db_result *res, double turnaround);
/*
 * The samples and errors of h, for hostid, into host_app_version in the
 * RPC's transaction; a speed above SCHED_HAV_MAX_FLOPS is logged and left
 * out.
 */
int sched_hav_record(const struct sched_ctx *ctx, const char *lbl, int64_t hostid,
		     const struct sched_hav *h);
void sched_hav_release(struct sched_hav *h);

#endif
