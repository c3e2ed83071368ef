/*
 * The validator's comparison plug-ins. The validator gathers each
 * successful result's output files from the upload hierarchy (checking
 * that every one is there and matches the checksum the client reported);
 * a plug-in only says whether two such results are equivalent.
 *
 *   bitwise      every output file byte-identical (same md5 and size), by position
 *   compare_cmd  CMD A_FILES... -- B_FILES...: exit 0 equivalent, 1 different,
 *                anything else: cannot tell now (the workunit is tried again later)
 *
 * and whether one result's output is believable at all, before any
 * comparison (a plug-in's optional check; doc/validator-plugins.md):
 *
 *   check_cmd    CMD FILES...: exit 0 valid, 1 invalid, anything else, a signal
 *                or the timeout: cannot tell now (the result waits)
 *   sample       validate_sample.c: sizes, numbers, no NaN, a range
 *
 * A project links its own plug-in by defining validate_project (below) in
 * a file built with the validator's sources (daemons/validator_sample is
 * built so with the sample).
 */
#ifndef WSEQ_VALIDATE_H
#define WSEQ_VALIDATE_H

#include "common.h"
#include "md5.h"

struct db_result;

struct vfile {
	char *name;             /* physical name */
	char *open_name;        /* the app's name for it, or NULL */
	char *path;             /* in the upload hierarchy */
	char md5[MD5_HEX_LEN + 1];      /* of the file on the server */
	long long nbytes;
};

struct vresult {
	const struct db_result *r;
	struct vfile *files;    /* in the result's file_ref order */
	size_t nfiles;
};

enum { VALIDATE_DIFFERENT = 0, VALIDATE_EQUIVALENT = 1, VALIDATE_CANNOT_TELL = -1 };

/* A check's verdict on one result. */
enum { VALIDATE_CHECK_INVALID = 0, VALIDATE_CHECK_VALID = 1, VALIDATE_CHECK_RETRY = -1 };

struct validate_plugin {
	const char *name;
	/* VALIDATE_EQUIVALENT, VALIDATE_DIFFERENT or VALIDATE_CANNOT_TELL (logged);
	 * NULL: bitwise */
	int (*compare)(const struct vresult *a, const struct vresult *b, const char *arg,
		       const char *project_dir);
	/* optional: VALIDATE_CHECK_VALID, _INVALID or _RETRY (log why) for one result
	 * whose files are all present and intact; arg is --check_arg (--check_cmd's CMD) */
	int (*check)(const struct vresult *r, const char *arg, const char *project_dir);
};

extern const struct validate_plugin validate_bitwise, validate_cmd, validate_check_cmd,
	validate_sample;

/* A project's own plug-in, when linked in (weak: the stock validator has none). */
extern const struct validate_plugin validate_project __attribute__((weak));

/* Seconds a plug-in command may run (--cmd_timeout); past it, it cannot tell. */
extern double validate_cmd_timeout;

#endif
