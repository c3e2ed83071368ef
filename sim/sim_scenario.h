/*
 * A simulator scenario: the hosts, the components (sequences) and the run,
 * read from a line-oriented text file of `key value...` lines (doc/wseq_sim.md
 * lists the keys, their units and defaults). The parser is its own file so it
 * can be unit-tested and fuzzed (test/fuzz/fuzz_sim_scenario.c).
 */
#ifndef WSEQ_SIM_SCENARIO_H
#define WSEQ_SIM_SCENARIO_H

#include "common.h"

enum sim_dist_kind { SIM_DIST_CONST, SIM_DIST_EXP, SIM_DIST_WEIBULL, SIM_DIST_LOGNORMAL,
		     SIM_DIST_UNIFORM, SIM_DIST_NONE };

/* A distribution: const V, exp MEAN, weibull SHAPE SCALE, lognormal MU SIGMA, uniform A B, none. */
struct sim_dist {
	enum sim_dist_kind kind;
	double p1, p2;
};

#define SIM_MAX_REPLICAS 8
#define SIM_MAX_SCRIPT 256
/* GPUs a host, and sequences a CPU or a GPU, at most: a host's slots stay few */
#define SIM_MAX_GPUS 16
#define SIM_MAX_SEQS_PER_RSC 16

/* The app's versions (`app_versions cpu gpu`): which resources can run its jobs. */
#define SIM_VERSION_CPU 1u
#define SIM_VERSION_GPU 2u

/*
 * A scripted host event (`avail H A B`, `leave H T`): with any of them the
 * hosts' availability is the script's, not drawn (doc/wseq_sim.md).
 */
enum sim_script_kind { SIM_SCRIPT_ON, SIM_SCRIPT_OFF, SIM_SCRIPT_LEAVE };
struct sim_script_ev {
	int32_t host;                /* 0-based (1-based in the file) */
	enum sim_script_kind kind;
	double hours;                /* from the start */
};

/*
 * State levels (`state_levels MB:PERIOD,...`, issue 30): a sequence's state
 * is several files, file i of `mb` MB uploaded every `every`-th segment (0:
 * every M-th, state_every); the periods must nest. Up to SIM_MAX_LEVELS, the
 * server's SEQ_MAX_FILES. With none, the state is one file of state_mb MB
 * uploaded every M-th segment, as before levels existed. A growing level
 * (`MB+:PERIOD`, never the first) is an increment over the level before it
 * in the list: its size is sim_level_mb_at's.
 */
#define SIM_MAX_LEVELS 8
struct sim_level {
	double mb;
	long every;
};

struct sim_scenario {
	uint64_t seed;
	long hosts;                  /* H */
	struct sim_dist speed;       /* relative to the reference host */
	struct sim_dist on_hours;    /* availability periods */
	struct sim_dist off_hours;   /* unavailability periods */
	struct sim_dist life_days;   /* time to permanent departure; none: never */
	struct sim_dist upload_mbps; /* Mbit/s */
	struct sim_dist download_mbps;
	double wrong_fraction;       /* of hosts returning wrong results */
	double rpc_hours;            /* an idle host's RPC period while on */
	double gpu_share;            /* of hosts with GPUs (sim_host_has_gpu says which) */
	long gpus_per_host;          /* on a host with GPUs */
	double gpu_flops;            /* the GPU version's speed on one GPU (reference CPU: 1e9) */
	long app_versions;           /* SIM_VERSION_*: the resources the app has versions for */
	/* seq: sequences a host may hold a CPU and a GPU (both 0: one a host; seq_policy_allowance) */
	long max_sequences_per_cpu;
	long max_sequences_per_gpu;

	long sequences;              /* S */
	double length_days;          /* of one component, reference-CPU days */
	double segment_days;         /* of one segment, reference-CPU days */
	double state_mb, answer_mb;
	long answer_every;           /* N */
	long state_every;            /* M */
	double segment_deadline_days;
	double component_deadline_days;
	long high_water;
	long replicas;
	double horizon_days;
	struct sim_level levels[SIM_MAX_LEVELS];
	int nlevels;                 /* 0: one state of state_mb, every M */
	unsigned levels_grow;        /* bit i: level i grows, MB a segment (`MB+`) */

	/* the script, in the order of its lines: an avail line is an ON and an OFF */
	struct sim_script_ev script[SIM_MAX_SCRIPT];
	int nscript;
};

/* The defaults (doc/wseq_sim.md, and the sources of the availability ones). */
void sim_scenario_defaults(struct sim_scenario *sc);
/*
 * Parse text (len bytes, NULs refused) over sc's current values. name is
 * for messages. 0, or -1 with "name:LINE: what" in err.
 */
int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len, const char *name,
		       char *err, size_t errlen);
/*
 * Read the scenario file path ("-": standard input, at most 16 MB) over
 * sc's current values. 0, or -1 with why in err.
 */
int sim_scenario_load(struct sim_scenario *sc, const char *path, char *err, size_t errlen);
/*
 * For a scenario a program filled in rather than read: every number within
 * its key's bounds, and the engine's limits. 0, or -1 with what is wrong
 * ("length_days 2e+05 is out of its bounds, 1e-06 to 100000") in err.
 */
int sim_scenario_check(const struct sim_scenario *sc, char *err, size_t errlen);
/* What the scenario asks beyond the engine's limits (segments), or NULL. */
const char *sim_scenario_limits(const struct sim_scenario *sc);
/*
 * Has host i (0-based) GPUs? The hosts with GPUs are spread evenly, the
 * same ones in every run: i has them when floor((i + 1) * gpu_share) >
 * floor(i * gpu_share), so with gpu_share 0.5 hosts 2, 4, 6... (1-based).
 */
bool sim_host_has_gpu(const struct sim_scenario *sc, long i);
/* Segments in one component: ceil(length / segment), at least 1. */
long sim_scenario_segments(const struct sim_scenario *sc);
/*
 * Parse a `state_levels` value, "MB[+][:PERIOD],..." (a period 0 or left
 * out: the sequence's M; + a growing level, not the first), into sc's
 * levels. 0, or -1 with why in err. Whether the periods nest is
 * sim_scenario_levels_nest's to say.
 */
int sim_levels_parse(struct sim_scenario *sc, const char *text, char *err, size_t errlen);
/*
 * Do sc's state levels nest (seq_policy_levels_nest over their periods)?
 * If not, why (naming the periods) in err. True without levels.
 */
bool sim_scenario_levels_nest(const struct sim_scenario *sc, char *err, size_t errlen);
/* sc's M and state levels into a sequence's view (seq_policy.h): nstate, state_every[]. */
struct seq_view;
void sim_scenario_view_levels(const struct sim_scenario *sc, struct seq_view *v);
/* The period of level i as the server sees it (seq_policy_state_period): its own, or M. */
long sim_level_period(const struct sim_scenario *sc, int i);
/*
 * The size (MB) of level i's version uploaded by segment k (0: the initial
 * version) of a sequence v (its periods and length; sim_scenario_view_levels):
 * its MB; for a growing level, MB times the segments since the latest
 * version of level i - 1 at or before k, from MB to level i - 1's MB.
 */
double sim_level_mb_at(const struct sim_scenario *sc, const struct seq_view *v, int i, int k);
/* The whole state a component carries, MB: the levels' sizes added up, or state_mb. */
double sim_scenario_state_mb(const struct sim_scenario *sc);
/* The mean of a distribution (0 for none). */
double sim_dist_mean(const struct sim_dist *d);
/* Write sc back as scenario text (parses to the same values). */
void sim_scenario_write(const struct sim_scenario *sc, FILE *fp);

#endif
