/*
 * Strategy (c): work sequences -- the hook. A sequence stays on one host,
 * segments up to the high-water mark in flight, the state uploaded every M
 * segments, and relocation to the last uploaded state when a segment misses
 * its deadline. Those decisions are the server's policy, and the simulator
 * must make them with the server's own functions (backend/seq_policy.h,
 * being extracted from sched/sched_seq.c and daemons/relocator.c), not a
 * copy. Until that is linked here this strategy reports that it is not
 * available, and wseq_sim says so instead of printing numbers.
 *
 * What connecting it takes (the next step):
 * - from seq_policy.h: at an RPC of host h, which segments of which
 *   sequence to send (assignment of an unassigned sequence, first_unsent up
 *   to high_water in flight); for segment k, whether it uploads its state
 *   (k % M == 0 or last) and its answer (k % N == 0 or last); at a missed
 *   deadline, the segment to restart from (the last uploaded state) and the
 *   new branch.
 * - from the engine (sim.h), two optional callbacks in struct sim_strategy,
 *   NULL for giant and chunk: rpc(s, host) called at an idle host's RPC
 *   before the shared job queue (the sequence's host affinity), and
 *   lost(s, job) called when the server gives up on a result instead of
 *   requeueing it (relocation); and a per-host list of instances so a host
 *   holds up to high_water segments, the next one's input being the sticky
 *   state of the one before (no download).
 * - setup() returns 0 and adds nothing until rpc() assigns; accepted()
 *   advances first_unvalidated and finishes the component at its last
 *   segment. The counters (bytes, storage, waste, restarts) stay the
 *   engine's, so the three rows compare like with like.
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
