/* wseq_sim's outputs: the table for people and the CSV for scripts. */
#ifndef WSEQ_SIM_REPORT_H
#define WSEQ_SIM_REPORT_H

#include "sim.h"

struct sim_row {
	const char *strategy;
	const char *unavailable;  /* why, or NULL when stats holds a run */
	long answer_every;        /* N, M and the segment length of the run */
	long state_every;
	double segment_days;
	int nlevels;              /* the scenario's state levels (0: none) */
	long periods[SIM_MAX_LEVELS];  /* each level's period in the run (sim_level_period) */
	struct sim_stats stats;
	bool repeat;              /* the same run as an earlier row (nothing it uses changed) */
	const double *finish;     /* each component's days to finish (-1: never), or NULL */
};

/* The row's N, M, segment length and state levels' periods from sc. */
void sim_row_params(struct sim_row *r, const struct sim_scenario *sc);
/* grid: a grid's rows, with N, M and the segment length in columns of their own. */
/*
 * The scenario's GPUs in a line ("GPUs: 30 hosts with 1 of 1e+10 FLOPS ...")
 * under a table's heading; nothing for a CPU-only scenario.
 */
void sim_report_gpus(FILE *fp, const struct sim_scenario *sc);
/* "; state levels 1000 MB every 12, 20 MB every 3" (sizes only if grid); nothing without levels */
void sim_report_levels(FILE *fp, const struct sim_scenario *sc, bool grid);
/* The row's periods, "12/3" (empty without levels), into buf. */
const char *sim_row_periods(const struct sim_row *r, char *buf, size_t len);
void sim_report_table(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n,
		      bool grid);
void sim_report_csv(FILE *fp, const struct sim_row *rows, size_t n);
/*
 * Each component's time to finish, a line a component of each row that has
 * them (finish) and is not a repeat: the run (its row's number in the CSV
 * above, from 1), its strategy, N, M and segment length, the component
 * (from 1), the days to finish and the fraction of the components finished
 * by then. A run's lines go by time to finish, those never finished last
 * (their days and fraction empty), so its first `finished` lines draw its
 * distribution.
 */
void sim_report_finish_csv(FILE *fp, const struct sim_row *rows, size_t n, long components);

#endif
