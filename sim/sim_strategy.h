/*
 * A strategy: how a long component becomes jobs. setup() adds each
 * component's first job(s); accepted() is called when a job has all its
 * good results, and adds what follows or finishes the component. Returning
 * -1 from setup() (with a reason) says the strategy cannot run in this build.
 */
#ifndef WSEQ_SIM_STRATEGY_H
#define WSEQ_SIM_STRATEGY_H

#include "sim.h"

struct sim_strategy {
	const char *name;
	const char *summary;
	int (*setup)(struct sim *s, char *why, size_t whylen);
	void (*accepted)(struct sim *s, int32_t job);
};

extern const struct sim_strategy sim_strategy_giant;
extern const struct sim_strategy sim_strategy_chunk;
extern const struct sim_strategy sim_strategy_seq;

/* By name ("giant", "chunk", "seq"), or NULL. */
const struct sim_strategy *sim_strategy_find(const char *name);

#endif
