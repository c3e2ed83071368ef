/*
 * What wseq_wrapper tells its tasks about a work sequence's state levels
 * (doc/wseq_wrapper.md, "State levels"): the WSEQ_* environment variables,
 * from the job file's <state_file>s and the physical names their inputs
 * resolve to. Apart from the wrapper so that unit tests can call it with
 * a resolver of their own.
 */
#ifndef WSEQ_WRAPPER_LEVELS_H
#define WSEQ_WRAPPER_LEVELS_H

#include "wrapper_job.h"

/* boinc_resolve_filename's job: the physical name (path) behind a logical one, in buf. */
typedef const char *(*wlevels_resolve_fn)(const char *logical, char *buf, size_t len);

/*
 * The variables, NAME=VALUE, appended to *env (*n of them; free each and
 * the array): WSEQ_NSTATES, WSEQ_SEGMENT (the newest state input's seqno
 * + 1) and for state file i WSEQ_STATE<i>_NAME, _FROM (its input's
 * segment), _LEVEL and _UPLOAD (1 if its level's period divides the
 * segment, by seq_policy_state_mask) -- each as far as known. Returns the
 * segment (0: not known).
 */
long wlevels_env(const struct wjob *j, wlevels_resolve_fn resolve, char ***env, size_t *n);

#endif
