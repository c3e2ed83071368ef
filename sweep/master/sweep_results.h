/*
 * `sweep --results DIR` (GNU parallel's --results DIR/): for every parameter
 * set that ran, DIR/SEQ/stdout, DIR/SEQ/stderr and DIR/SEQ/exitval of its
 * last run (the valid one of a set that is done), SEQ its 1-based number
 * ({#}). See doc/sweep.md.
 */
#ifndef WSEQ_SWEEP_RESULTS_H
#define WSEQ_SWEEP_RESULTS_H

#include "common.h"

struct sweep_store;
struct sweep_files;

/*
 * Write DIR's files of session sid anew where a set's last run changed
 * since the last call (DIR/SEQ/.run names the run written). Each file is
 * written atomically, 0644, and never through a symlink planted in DIR.
 * 0, or -1 (logged) when a set's files could not be written.
 */
int sweep_results_write(struct sweep_store *store, const struct sweep_files *files,
			const char *sid, const char *dir);

#endif
