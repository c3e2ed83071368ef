/*
 * BOINC's update_average: the exponential decay of recent average credit;
 * the cap on one result's credit; the runtime rule's claim.
 */
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

double credit_cap(double credit, double max_credit, double factor, double p_fpops,
		  double elapsed, double wall)
{
	double t = elapsed > 0 ? elapsed : 0, speed = p_fpops > 0 ? p_fpops : 1e9;

	if (!(credit > 0))
		return 0;
	if (max_credit > 0 && credit > max_credit)
		credit = max_credit;
	if (wall > 0 && (t <= 0 || t > wall))
		t = wall;
	if (factor > 0 && credit > factor * speed * t * COBBLESTONE_SCALE)
		credit = factor * speed * t * COBBLESTONE_SCALE;
	return credit;
}

double credit_runtime(double elapsed, double cpu, double wall, double speed,
		      double fpops_bound)
{
	double t = elapsed > 0 ? elapsed : cpu;

	if (!(speed > 0) || !(t > 0))
		return 0;
	if (wall > 0 && t > wall)
		t = wall;
	if (fpops_bound > 0 && t > fpops_bound / speed)
		t = fpops_bound / speed;
	t *= speed * COBBLESTONE_SCALE;
	return isfinite(t) ? t : 0;
}
