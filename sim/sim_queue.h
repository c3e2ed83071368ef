/*
 * The event queue: a binary min-heap keyed by (time, sequence number). The
 * sequence number is the order of insertion, so events at the same virtual
 * time come out in the order they were scheduled and a seed always gives
 * the same run.
 */
#ifndef WSEQ_SIM_QUEUE_H
#define WSEQ_SIM_QUEUE_H

#include "common.h"

struct sim_event {
	double t;
	uint64_t seq;
	int type;
	int32_t a;      /* usually a host */
	uint32_t gen;   /* the host's generation when scheduled: stale events are dropped */
	int64_t b;      /* usually an instance */
};

struct sim_queue {
	struct sim_event *v;
	size_t n, cap;
	uint64_t next_seq;
};

void sim_queue_init(struct sim_queue *q);
void sim_queue_release(struct sim_queue *q);
void sim_queue_push(struct sim_queue *q, double t, int type, int32_t a, uint32_t gen, int64_t b);
/* The earliest event into *ev: true, or false when the queue is empty. */
bool sim_queue_pop(struct sim_queue *q, struct sim_event *ev);

#endif
