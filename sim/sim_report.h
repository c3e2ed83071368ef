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
	struct sim_stats stats;
};

/* The row's N, M and segment length from sc. */
void sim_row_params(struct sim_row *r, const struct sim_scenario *sc);
/* sweep: a sweep's rows, with N, M and the segment length in columns of their own. */
void sim_report_table(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n,
		      bool sweep);
void sim_report_csv(FILE *fp, const struct sim_row *rows, size_t n);

#endif
