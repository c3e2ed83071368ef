/*
 * A strategy: how a long component becomes jobs. setup() adds each
 * component's first job(s); accepted() is called when a job has all its
 * good results, and adds what follows or finishes the component. Returning
 * -1 from setup() (with a reason) says the strategy cannot run in this build.
 *
 * A strategy that sends its jobs to hosts of its choosing (seq: a sequence
 * stays on its host) has rpc(), called at every scheduler RPC of a host that
 * is on, before the shared queue, and lost(), called when the server gives
 * up on one of its results instead of sending the job again. Both are NULL
 * for giant and chunk. The counters are the engine's, so the strategies'
 * rows compare like with like.
 */
#ifndef WSEQ_SIM_STRATEGY_H
#define WSEQ_SIM_STRATEGY_H

#include "sim.h"

/* Which scenario values change a strategy's run (a grid runs it again only for those). */
#define SIM_USES_N 1u           /* answer_every */
#define SIM_USES_M 2u           /* state_every */
#define SIM_USES_SEGMENT 4u     /* segment_days */

struct sim_strategy {
	const char *name;
	const char *summary;
	unsigned uses;                  /* SIM_USES_* */
	int (*setup)(struct sim *s, char *why, size_t whylen);
	void (*accepted)(struct sim *s, int32_t job);
	void (*rpc)(struct sim *s, int32_t host);
	void (*lost)(struct sim *s, int64_t inst, enum sim_loss why);
	void (*cleanup)(struct sim *s);  /* frees s->priv; called after any setup() */
};

extern const struct sim_strategy sim_strategy_giant;
extern const struct sim_strategy sim_strategy_chunk;
extern const struct sim_strategy sim_strategy_seq;

/* By name ("giant", "chunk", "seq"), or NULL. */
const struct sim_strategy *sim_strategy_find(const char *name);

#endif
