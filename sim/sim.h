/*
 * wseq_sim's engine: hosts that come and go, jobs that run on them, and a
 * strategy that decides what the jobs of a component are. The engine is
 * the same for every strategy -- availability, transfers, computing,
 * deadlines, replicas, the counters -- and a strategy (sim_strategy.h) only
 * says what a component's jobs are, which host gets them and what follows
 * an accepted or a lost one.
 */
#ifndef WSEQ_SIM_H
#define WSEQ_SIM_H

#include "common.h"
#include "sim_queue.h"
#include "sim_rng.h"
#include "sim_scenario.h"

/*
 * What a host computes on: lane 0 its CPU, lanes 1.. its GPUs, each running
 * its own list of instances in order, all while the host is on. A lane is
 * usable when the app has a version for its resource (app_versions).
 */
struct sim_lane {
	double speed;             /* reference-CPU seconds per second */
	bool usable;
	int64_t inst;             /* the instance it runs (the head of its list), or -1 */
	int64_t tail;             /* the last instance of its list (sent, waiting its turn) */
	int phase;                /* SIM_PH_*, of inst */
	double left;              /* of the phase: bytes or reference-CPU seconds */
	double since;             /* when the phase last started progressing */
};

/* The reference host's FLOPS: a speed of 1, and a GPU's speed is gpu_flops / this. */
#define SIM_REF_FLOPS 1e9

struct sim_host {
	struct sim_rng rng;
	double speed;             /* of its CPU: reference-CPU seconds per second */
	double up_bps, down_bps;  /* bytes per second */
	bool wrong, on, gone;
	uint32_t gen;             /* bumped when pending work/RPC events go stale */
	struct sim_lane *lane;    /* [0] the CPU, [1 .. nlanes) its GPUs */
	int nlanes;
	double rpc_at;            /* when its pending scheduler RPC is due (INFINITY: none) */
};

enum { SIM_PH_DOWN, SIM_PH_CPU, SIM_PH_UP };

struct sim_job {
	int32_t comp, seg;
	int32_t seq, branch;      /* the strategy's own (seq: the member sequence and its branch) */
	double cpu;               /* reference-CPU seconds */
	double down;              /* bytes the host downloads (the input state) */
	double up_state, up_answer;
	double up_level[SIM_MAX_LEVELS];  /* with state levels: bytes of each (up_state their sum) */
	double frees;             /* bytes deleted from the server when the job is accepted */
	double deadline;          /* seconds after sending */
	int need;                 /* good results that accept it */
	int ok, inflight;
	int32_t hosts[2 * SIM_MAX_REPLICAS];  /* the hosts it was sent to (the first 16) */
	int nhosts;
	bool done;
};

/* A result: a job sent to a host. A host runs its list of them in order. */
struct sim_inst {
	int32_t job, host;
	int32_t lane;             /* of its host */
	int64_t next;             /* the next on its host's list, or -1 */
	double deadline;          /* its report deadline (when sent + the job's deadline) */
	bool live;                /* the server still waits for it */
	bool onhost;              /* on its host's list */
};

struct sim_comp {
	double finish;            /* < 0 while unfinished */
};

struct sim_stats {
	double bytes_up, bytes_down;
	double bytes_up_level[SIM_MAX_LEVELS];  /* of bytes_up, each state level's (with levels) */
	double storage, storage_peak;
	double cpu_used, cpu_wasted;   /* reference-CPU seconds */
	long restarts;                 /* results the server gave up on at their deadline */
	long relocations;              /* sequences moved to another host (seq) */
	long wrong_detected, wrong_accepted;
	long finished, unfinished;
	double median_days, p90_days;
};

/* Why the server gives up on a result (sim_strategy.lost). */
enum sim_loss {
	SIM_LOSS_LATE,            /* not reported by its deadline */
	SIM_LOSS_INVALID,         /* reported, and outvoted by the other replicas */
};

struct sim_strategy;

struct sim {
	const struct sim_scenario *sc;
	const struct sim_strategy *st;
	void *priv;               /* the strategy's own state */
	struct sim_queue q;
	double now, horizon;
	struct sim_host *hosts;
	struct sim_lane *lanes;   /* every host's, one array */
	struct sim_job *jobs;
	size_t njobs, capjobs;
	struct sim_inst *insts;
	size_t ninsts, capinsts;
	struct sim_comp *comps;
	int32_t *ready;           /* ring of job ids wanting an instance */
	size_t rhead, rlen, rcap;
	long ndone;
	struct sim_stats stats;
	FILE *dlog;               /* the decision log (NULL: none), written by the strategy */
};

/* Run one strategy over sc. 0, or -1 with why (the strategy is not available). */
int sim_run(const struct sim_scenario *sc, const struct sim_strategy *st, struct sim_stats *out,
	    char *why, size_t whylen);
/*
 * The same, and before the run starts call hook(s, arg) (NULL: none): a test
 * can make a host leave at a chosen time (sim_host_leave_at).
 */
int sim_run_hooked(const struct sim_scenario *sc, const struct sim_strategy *st,
		   void (*hook)(struct sim *s, void *arg), void *arg, struct sim_stats *out,
		   char *why, size_t whylen);

/*
 * sim_run, and each component's time to finish into finish[0 .. sequences):
 * days from the start, -1 for one not finished within the horizon.
 */
int sim_run_finish(const struct sim_scenario *sc, const struct sim_strategy *st,
		   struct sim_stats *out, double *finish, char *why, size_t whylen);

/*
 * sim_run_finish, and the strategy writes its decisions to log (seq: a line
 * a segment sent, done, late or retired, a relocation and an end; see
 * doc/wseq_sim.md, "Checked against the server").
 */
int sim_run_logged(const struct sim_scenario *sc, const struct sim_strategy *st, FILE *log,
		   struct sim_stats *out, double *finish, char *why, size_t whylen);

/* For strategies: add a job (returns its id) and queue it for `replicas` results. */
int32_t sim_job_add(struct sim *s, const struct sim_job *j);
/*
 * sim_run, and each component's time to finish into finish[0 .. sequences):
 * days from the start, -1 for one not finished within the horizon.
 */
int sim_run_finish(const struct sim_scenario *sc, const struct sim_strategy *st,
		   struct sim_stats *out, double *finish, char *why, size_t whylen);

/* For strategies: add a job that wants one result and that the strategy sends itself. */
int32_t sim_job_new(struct sim *s, const struct sim_job *j);
/*
 * For strategies: send job to lane `lane` of host hi now, after what the
 * lane holds; the instance's id.
 */
int64_t sim_send(struct sim *s, int32_t hi, int lane, int32_t job);
/*
 * For strategies: the server gives up on instance i (a relocation retires
 * it); its host drops it, and what it computed of it is wasted.
 */
void sim_abort(struct sim *s, int64_t i);
/*
 * For strategies: a component's work moves to another host (a relocation),
 * and cpu reference-CPU seconds of it, accepted already, are thrown away.
 */
void sim_relocated(struct sim *s, double cpu);
/* For strategies: j reads and uploads the whole state, every level at its MB. */
void sim_job_whole_state(struct sim_job *j, const struct sim_scenario *sc);
/* For strategies: bytes stored on the server (negative: deleted). */
void sim_storage_add(struct sim *s, double bytes);
/* For strategies: component c is finished now. */
void sim_comp_done(struct sim *s, int32_t c);
/* For tests: host hi leaves for good at time t (seconds). */
void sim_host_leave_at(struct sim *s, int32_t hi, double t);

#endif
