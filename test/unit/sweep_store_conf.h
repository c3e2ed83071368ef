/*
 * The sweep store conformance suite: every operation and rule of
 * sweep/store/sweep_store.h checked once, against any store. The embedded
 * store runs it in test/unit/test_sweep_store.c, the project store in
 * t6105-sweep-store.sh.
 *
 * Contract. Each case gets a store from fresh(arg) -- empty, or at least
 * without a session whose sid the suite uses (it makes its own, random) --
 * and closes it with sweep_store_close() when done. The clock is the suite's:
 * every t passed to the store is t0 plus a few hundred seconds at most; it
 * never sleeps. A store whose transitioner runs elsewhere (the project's
 * daemon) gives transition(): the suite calls it after each
 * sweep_store_tick() with the same t, and it must leave the store as the
 * transitioner would at t (it returns 0, or -1 to fail the case).
 *
 * Output: one line per case, "PREFIX ok N - what" or "PREFIX not ok N -
 * what", each failed check below it as "PREFIX #   file:line: check". A
 * TAP test passes prefix "" and prints "1..sweep_store_conformance_cases()"
 * first; a test that speaks TAP itself (cmocka) passes "# ".
 */
#ifndef WSEQ_SWEEP_STORE_CONF_H
#define WSEQ_SWEEP_STORE_CONF_H

#include "sweep_store.h"

struct sweep_store_conf {
	struct sweep_store *(*fresh)(void *arg);        /* NULL fails the case */
	int (*transition)(void *arg, struct sweep_store *st, int64_t t);  /* may be NULL */
	void *arg;
	int64_t t0;             /* the suite's clock starts here; 0: 1,700,000,000 */
	FILE *out;              /* NULL: stdout */
	const char *prefix;     /* NULL: "" */
};

/* Run every case: the number of failed cases (0: the store conforms). */
int sweep_store_conformance(const struct sweep_store_conf *conf);
/* How many cases sweep_store_conformance() runs (a TAP plan). */
int sweep_store_conformance_cases(void);

#endif
