/*
 * Recent average credit (RAC), as BOINC computes it: credit per day,
 * decaying exponentially with a half-life of one week, for users, hosts
 * and teams alike.
 */
#ifndef WSEQ_CREDIT_H
#define WSEQ_CREDIT_H

#include "common.h"

#define CREDIT_HALF_LIFE (7 * 86400.0)

/*
 * Add work credit earned since start (the result's sent time) to the
 * average *avg last updated at *avg_time (0: never), as of now; *avg_time
 * becomes now. work 0 only decays the average.
 */
void credit_update_average(double now, double start, double work, double half_life,
			   double *avg, double *avg_time);

#endif
