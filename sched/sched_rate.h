/*
 * A count a second: how many of something a process did in the current
 * second and the one before, so a rate is known without a clock of its own
 * (claiming ahead counts the jobs sent, sched_apps_get the requests).
 */
#ifndef SCHED_RATE_H
#define SCHED_RATE_H

#include <stdint.h>

struct sched_rate {
	long now, before;       /* counted this second, and the one before */
	int64_t second;
};

static inline void sched_rate_count(struct sched_rate *r, int64_t t, long n)
{
	if (t != r->second) {
		r->before = t == r->second + 1 ? r->now : 0;
		r->now = 0;
		r->second = t;
	}
	r->now += n;
}

/* The rate at second t: the larger of this second's count and the last full second's. */
static inline long sched_rate_at(const struct sched_rate *r, int64_t t)
{
	if (t == r->second)
		return r->now > r->before ? r->now : r->before;
	return t == r->second + 1 ? r->now : 0;
}

#endif
