/*
 * wseq_sim's engine: hosts that come and go, jobs that run on them, and a
 * strategy that decides what the jobs of a component are. The engine is
 * the same for every strategy -- availability, transfers, computing,
 * deadlines, replicas, the counters -- and a strategy (sim_strategy.h) only
 * says what a component's jobs are and what follows an accepted one.
 */
#ifndef WSEQ_SIM_H
#define WSEQ_SIM_H

#include "common.h"
#include "sim_queue.h"
#include "sim_rng.h"
#include "sim_scenario.h"

struct sim_host {
	struct sim_rng rng;
	double speed;             /* reference-CPU seconds per second */
	double up_bps, down_bps;  /* bytes per second */
	bool wrong, on, gone;
	uint32_t gen;             /* bumped when pending work/RPC events go stale */
	int64_t inst;             /* the instance it runs, or -1 */
	int phase;                /* SIM_PH_* */
	double left;              /* of the phase: bytes or reference-CPU seconds */
	double since;             /* when the phase last started progressing */
};

enum { SIM_PH_DOWN, SIM_PH_CPU, SIM_PH_UP };

struct sim_job {
	int32_t comp, seg;
	double cpu;               /* reference-CPU seconds */
	double down;              /* bytes the host downloads (the input state) */
	double up_state, up_answer;
	double deadline;          /* seconds after sending */
	int ok, inflight;
	int32_t hosts[2 * SIM_MAX_REPLICAS];  /* the hosts it was sent to (the first 16) */
	int nhosts;
	bool done;
};

struct sim_inst {
	int32_t job, host;
	bool live;
};

struct sim_comp {
	double finish;            /* < 0 while unfinished */
};

struct sim_stats {
	double bytes_up, bytes_down;
	double storage, storage_peak;
	double cpu_used, cpu_wasted;   /* reference-CPU seconds */
	long restarts;                 /* instances lost (departure, deadline) and sent again */
	long wrong_detected, wrong_accepted;
	long finished, unfinished;
	double median_days, p90_days;
};

struct sim_strategy;

struct sim {
	const struct sim_scenario *sc;
	const struct sim_strategy *st;
	struct sim_queue q;
	double now, horizon;
	struct sim_host *hosts;
	struct sim_job *jobs;
	size_t njobs, capjobs;
	struct sim_inst *insts;
	size_t ninsts, capinsts;
	struct sim_comp *comps;
	int32_t *ready;           /* ring of job ids wanting an instance */
	size_t rhead, rlen, rcap;
	long ndone;
	struct sim_stats stats;
};

/* Run one strategy over sc. 0, or -1 with why (the strategy is not available). */
int sim_run(const struct sim_scenario *sc, const struct sim_strategy *st, struct sim_stats *out,
	    char *why, size_t whylen);

/* For strategies: add a job (returns its id) and queue it for sending. */
int32_t sim_job_add(struct sim *s, const struct sim_job *j);
/* For strategies: component c is finished now. */
void sim_comp_done(struct sim *s, int32_t c);

#endif
