/*
 * Adaptive replication's rule (doc/adaptive-replication.md): whether a job
 * made single goes alone, as a spot check or verified, and the draws the
 * scheduler decides spot checks by -- the kernel's random bytes for a job,
 * a hash of (sequence, branch, segment) for a sequence's segment, so that
 * no column need remember it. No database here: sched_send.c and
 * sched_seq.c act on the decision.
 */
#include "sched_policy.h"
#include "wtime.h"

#include <sys/random.h>

enum sched_ar sched_ar_decide(const struct db_app *app, const struct sched_bav *bav,
			      const struct db_workunit *wu, double u)
{
	if (!app || app->target_nresults <= 1 || wu->target_nresults != 1 || wu->min_quorum != 1)
		return SCHED_AR_OFF;
	if (bav->consecutive_valid < app->trust_after)
		return SCHED_AR_UNTRUSTED;
	return u < app->spot_check ? SCHED_AR_SPOT : SCHED_AR_SINGLE;
}

const char *sched_ar_name(enum sched_ar d)
{
	static const char *const names[] = { "off", "trusted, sent singly",
					     "trusted, spot-checked", "not trusted yet" };

	return names[d];
}

double sched_ar_draw(void)
{
	uint64_t x = 0;

	if (getrandom(&x, sizeof(x), 0) != (ssize_t)sizeof(x))
		x = (uint64_t)(dnow() * 1e6) * 0x9e3779b97f4a7c15ULL;
	return (double)(x >> 11) / 9007199254740992.0;  /* 53 bits over 2^53 */
}

double sched_ar_segment_draw(int64_t seq_id, int branch, int k)
{
	uint64_t x[3] = { (uint64_t)seq_id, (uint64_t)branch, (uint64_t)k };
	uint64_t h = 1469598103934665603ULL;     /* FNV-1a */
	const unsigned char *p = (const unsigned char *)x;
	size_t i;

	for (i = 0; i < sizeof(x); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	h ^= h >> 29;
	return (double)(h >> 11) / 9007199254740992.0;
}
