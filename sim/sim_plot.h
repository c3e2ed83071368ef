/*
 * wseq_sim --plot DIR: the runs and each component's time to finish as CSV,
 * a gnuplot script a picture reading them, and gnuplot run over the
 * scripts when it is installed. The scripts are plain text an admin may
 * edit and draw again: cd DIR && gnuplot tradeoff.gp finish.gp.
 */
#ifndef WSEQ_SIM_PLOT_H
#define WSEQ_SIM_PLOT_H

#include "sim_report.h"

/*
 * Write DIR/runs.csv (sim_report_csv), DIR/finish.csv
 * (sim_report_finish_csv), DIR/tradeoff.gp (bytes uploaded against CPU
 * wasted, a point a run, the seq runs labelled by M and coloured by
 * segment length) and DIR/finish.gp (the fraction of the components
 * finished against time, a curve a run), making DIR if it is missing.
 * 0, or -1 (logged).
 */
int sim_plot_write(const char *dir, const struct sim_scenario *sc, const struct sim_row *rows,
		   size_t n);
/*
 * Run gnuplot from PATH in DIR over the two scripts: DIR/tradeoff.png and
 * DIR/finish.png. 0 when drawn; 1 when gnuplot is not on PATH (nothing
 * said: the caller tells the user); -1 when it failed (logged).
 */
int sim_plot_draw(const char *dir);

#endif
