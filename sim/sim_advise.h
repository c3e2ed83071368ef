/*
 * wseq_sim advise: of a grid's runs of the seq strategy, the N, M (or the
 * state levels' periods) and segment length that upload the fewest bytes while wasting CPU within X %
 * of the least any run wasted and finishing (median) within Y % of the
 * soonest, among the runs that finished the most components. A pure choice
 * over the rows, so it is tested on rows made by hand.
 */
#ifndef WSEQ_SIM_ADVISE_H
#define WSEQ_SIM_ADVISE_H

#include "sim_report.h"
#include "sim_grid.h"

/* The axes swept when not given: M, and the segment length */
#define SIM_ADVISE_M "M=1,2,4,8,16"
#define SIM_ADVISE_SEGMENT "segment=6h,12h,1d,2d"
/* With state levels, each level's period instead of M (combinations that do not nest left out) */
#define SIM_ADVISE_PERIODS "1,2,4,8,16"

struct sim_advice {
	long pick;                      /* the row advised, or -1: none */
	long most_finished;             /* components finished by the runs that finished most */
	double best_waste, waste_limit; /* reference-CPU seconds */
	double best_median, median_limit;  /* days */
	size_t neligible;
};

/*
 * Choose among rows[0..n) (runs that could not run are passed over);
 * eligible[i] (if not NULL) says which were within both limits. Ties go to
 * less waste, then the sooner median, then the earlier row.
 */
void sim_advise(const struct sim_row *rows, size_t n, double waste_within_pct,
		double finish_within_pct, struct sim_advice *a, bool *eligible);
/*
 * The candidates, the limits, the advice and, if ref is not NULL, the
 * chunked run at the advised N and segment for comparison.
 */
void sim_advise_report(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
		       size_t n, const bool *eligible, const struct sim_advice *a,
		       double waste_within_pct, double finish_within_pct,
		       const struct sim_row *ref);

/*
 * All of wseq_sim advise over sc: the seq strategy over the grid w (its
 * M and segment axes made SIM_ADVISE_M and SIM_ADVISE_SEGMENT when it has
 * none; with state levels, each level's axis SIM_ADVISE_PERIODS and the
 * level's own period instead of M's; the runs whose periods do not nest
 * left out), the choice, the chunk strategy at the advised N and segment length
 * for comparison, and the report on fp. *rows gets the runs (free() it),
 * *nrows their number (the runs made) and *a the choice. 0, or -1 (logged: a grid beyond
 * the scenario's limits).
 */
int sim_advise_run(const struct sim_scenario *sc, struct sim_grid *w, double waste_within_pct,
		   double finish_within_pct, FILE *fp, struct sim_row **rows, size_t *nrows,
		   struct sim_advice *a);

#endif
