/* BOINC's update_average: the exponential decay of recent average credit. */
#include "credit.h"

#include <math.h>

void credit_update_average(double now, double start, double work, double half_life,
			   double *avg, double *avg_time)
{
	if (*avg_time > 0) {
		double d = now - *avg_time, w, f;

		if (d < 0)
			d = 0;
		w = exp(-d * M_LN2 / half_life);
		f = 1 - w;
		*avg *= w;
		/* for a tiny d the rate work/d is unstable: its limit instead */
		if (f > 1e-6)
			*avg += f * work / (d / 86400);
		else
			*avg += M_LN2 * work * 86400 / half_life;
	} else if (work > 0) {
		double dd = (now - start) / 86400;

		/* no history: the rate since the work began (at least a second) */
		*avg = work / (dd > 1.0 / 86400 ? dd : 1.0 / 86400);
	}
	*avg_time = now;
}
