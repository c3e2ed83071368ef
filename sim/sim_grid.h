/*
 * wseq_sim --grid: runs over every combination of values of N
 * (answer_every), M (state_every), the segment length and the period of
 * each state level (L1, L2, ...), each given as NAME=V1,V2,... on the
 * command line (doc/wseq_sim.md). The parser is its
 * own file so it can be unit-tested and fuzzed (test/fuzz/fuzz_sim_grid.c).
 */
#ifndef WSEQ_SIM_GRID_H
#define WSEQ_SIM_GRID_H

#include "sim_scenario.h"

#define SIM_GRID_MAX_VALUES 100
#define SIM_GRID_MAX_RUNS 10000

/* SIM_GRID_L1 + i: the period of state level i+1 */
enum sim_grid_param { SIM_GRID_N, SIM_GRID_M, SIM_GRID_SEGMENT, SIM_GRID_L1,
		      SIM_GRID_NPARAMS = SIM_GRID_L1 + SIM_MAX_LEVELS };

struct sim_grid_axis {
	enum sim_grid_param param;
	size_t n;
	double v[SIM_GRID_MAX_VALUES];  /* N, M and periods: whole numbers; segment: days */
};

struct sim_grid {
	struct sim_grid_axis axis[SIM_GRID_NPARAMS];  /* in the order given */
	size_t naxes;
};

void sim_grid_init(struct sim_grid *w);
/*
 * Add one axis from "NAME=V1,V2,...": NAME is N (or answer_every), M (or
 * state_every), segment (or segment_days), L1 .. L8 (or level1 ..: the
 * period of that state level); a segment length is a number of
 * days, or of hours with the suffix h (6h), days with d (1.5d). 0, or -1
 * with why in err (a parameter twice, a bad value, too many runs).
 */
int sim_grid_add(struct sim_grid *w, const char *arg, char *err, size_t errlen);
/*
 * Add the value v to the axis of p, making the axis if there is none, in
 * order (before the first larger value: an ascending axis stays
 * ascending) unless it is there already. 0, or -1 with why in err (out of
 * the scenario's bounds, too many values or runs).
 */
int sim_grid_include(struct sim_grid *w, enum sim_grid_param p, double v, char *err,
		      size_t errlen);
/* The number of runs: the product of the axes' lengths (1 with none). */
size_t sim_grid_runs(const struct sim_grid *w);
/*
 * Set sc's values for run i (0 .. runs-1; the first axis given varies
 * slowest). 0; 1 if the state levels' periods do not nest (a run to leave
 * out: the server refuses such a template); or -1 with why in err (the
 * scenario's limits on segments, a level the scenario does not have).
 */
int sim_grid_apply(const struct sim_grid *w, size_t i, struct sim_scenario *sc, char *err,
		    size_t errlen);

#endif
