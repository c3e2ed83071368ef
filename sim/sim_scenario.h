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
/* Segments in one component: ceil(length / segment), at least 1. */
long sim_scenario_segments(const struct sim_scenario *sc);
/* The mean of a distribution (0 for none). */
double sim_dist_mean(const struct sim_dist *d);
/* Write sc back as scenario text (parses to the same values). */
void sim_scenario_write(const struct sim_scenario *sc, FILE *fp);

#endif
