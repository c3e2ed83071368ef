/*
 * wseq_wrapper's outputs whose names are not known in advance: the slot's
 * listing before the first task (what the client put there), and the zip
 * of every new file matching the job file's <zip_output> patterns. No BOINC
 * runtime here, so the unit tests pack zips with it and unpack them with
 * lib/unzip.c.
 */
#ifndef WSEQ_WRAPPER_OUT_H
#define WSEQ_WRAPPER_OUT_H

#include "common.h"
#include "sbuf.h"

struct wout_names {
	char **v;               /* sorted */
	size_t n;
};

/* The names directly in dir (not . and ..), sorted. 0 / -1 (err). */
int wout_list(const char *dir, struct wout_names *out, struct sbuf *err);
/* Keep a listing in a file (one name a line) and read it back. 0 / -1 (err). */
int wout_save(const char *path, const struct wout_names *names, struct sbuf *err);
int wout_load(const char *path, struct wout_names *out, struct sbuf *err);
bool wout_has(const struct wout_names *names, const char *name);
void wout_add(struct wout_names *names, const char *name);
void wout_release(struct wout_names *names);

/*
 * Pack into zip_path every regular file below dir that is not under a name
 * of skip (names directly in dir) and whose path relative to dir, or the
 * relative path of a directory it is in, matches one of patterns
 * (fnmatch, no flags). Entry names are those relative paths; symbolic
 * links are never followed. A zip with no entries is still written.
 * *nfiles (if not NULL) gets the number packed. 0 / -1 (err).
 */
int wout_zip(const char *dir, const char *zip_path, char *const *patterns, size_t npatterns,
	     const struct wout_names *skip, size_t *nfiles, struct sbuf *err);

#endif
