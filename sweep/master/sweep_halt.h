/*
 * `sweep --halt WHEN,fail=N|P%` (GNU parallel's --halt): stop the sweep
 * once N parameter sets (or P % of them) have failed -- "soon": no task is
 * handed out any more and the running ones finish; "now": the running ones
 * are dropped too. See doc/sweep.md.
 */
#ifndef WSEQ_SWEEP_HALT_H
#define WSEQ_SWEEP_HALT_H

#include "common.h"
#include "sbuf.h"

enum { SWEEP_HALT_NEVER, SWEEP_HALT_SOON, SWEEP_HALT_NOW };

struct sweep_halt {
	int when;               /* SWEEP_HALT_* */
	long fail;              /* failed sets, or a percentage of all sets */
	bool pct;
};

/*
 * Parse "soon,fail=3", "now,fail=10%", "never", or parallel's old numbers
 * (0 never, 1 soon,fail=1, 2 now,fail=1). 0, or -1 with the reason in err.
 */
int sweep_halt_parse(const char *s, struct sweep_halt *h, struct sbuf *err);

/* Have failed of total sets reached the rule? */
bool sweep_halt_reached(const struct sweep_halt *h, size_t failed, size_t total);

#endif
