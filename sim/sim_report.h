/* wseq_sim's outputs: the table for people and the CSV for scripts. */
#ifndef WSEQ_SIM_REPORT_H
#define WSEQ_SIM_REPORT_H

#include "sim.h"

struct sim_row {
	const char *strategy;
	const char *unavailable;  /* why, or NULL when stats holds a run */
	struct sim_stats stats;
};

void sim_report_table(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n);
void sim_report_csv(FILE *fp, const struct sim_row *rows, size_t n);

#endif
