/*
 * Strategy (c): work sequences -- the hook. A sequence stays on one host,
 * segments up to the high-water mark in flight, the state uploaded every M
 * segments, and relocation to the last uploaded state when a segment misses
 * its deadline. Those decisions are the server's policy, and the simulator
 * must make them with the server's own functions (backend/seq_policy.h,
 * being extracted from sched/sched_seq.c and daemons/relocator.c), not a
 * copy. Until that is linked here this strategy reports that it is not
 * available, and wseq_sim says so instead of printing numbers.
 */
#include "sim_strategy.h"

static int seq_setup(struct sim *s, char *why, size_t whylen)
{
	(void)s;
	snprintf(why, whylen, "not available in this build (needs the server's sequence policy, "
			      "backend/seq_policy.h)");
	return -1;
}

static void seq_accepted(struct sim *s, int32_t job)
{
	(void)s;
	(void)job;
}

const struct sim_strategy sim_strategy_seq = {
	"seq", "work sequences (the server's policy)", seq_setup, seq_accepted,
};
