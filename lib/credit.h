/*
 * Recent average credit (RAC), as BOINC computes it: credit per day,
 * decaying exponentially with a half-life of one week, for users, hosts
 * and teams alike; the bounds on what one result may earn; and the
 * runtime rule's claim (doc/credit.md).
 */
#ifndef WSEQ_CREDIT_H
#define WSEQ_CREDIT_H

#include "common.h"

#define CREDIT_HALF_LIFE (7 * 86400.0)
/* BOINC's cobblestone: 200 credits a day of a 1 GFLOPS machine. */
#define COBBLESTONE_SCALE (200.0 / 86400e9)

/*
 * Add work credit earned since start (the result's sent time) to the
 * average *avg last updated at *avg_time (0: never), as of now; *avg_time
 * becomes now. work 0 only decays the average.
 */
void credit_update_average(double now, double start, double work, double half_life,
			   double *avg, double *avg_time);

/*
 * What a valid result may be granted: credit, at most max_credit (the
 * project's cap; 0: none), and at most factor times the cobblestones a host
 * of p_fpops FLOPS (<= 0: 1e9) earns in the result's time -- its elapsed
 * time, bounded by wall, the seconds from sending to receipt the server
 * measured (<= 0: unknown). A submitter's rsc_fpops_est or a host's claim
 * so never credits more than the host could have computed.
 */
double credit_cap(double credit, double max_credit, double factor, double p_fpops,
		  double elapsed, double wall);

/* Jobs a host's app version must have run before its measured speed counts. */
#define CREDIT_MIN_SAMPLES 2

/*
 * The runtime rule's claim of one result (doc/credit.md): its time --
 * elapsed, else CPU time; at most wall (<= 0: unknown) -- times speed, the
 * host's measured FLOPS for the result's app version (host_app_version's
 * flops_avg), in cobblestones. The time is capped at fpops_bound / speed
 * (fpops_bound <= 0: no cap), the longest the client lets the job run at
 * that speed, so a claim is never more than the job's FLOPs bound. 0 if
 * speed or the time is not positive, or the claim not finite.
 */
double credit_runtime(double elapsed, double cpu, double wall, double speed,
		      double fpops_bound);

#endif
