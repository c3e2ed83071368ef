/*
 * The validator's comparison plug-ins. The validator gathers each
 * successful result's output files from the upload hierarchy (checking
 * that every one is there and matches the checksum the client reported);
 * a plug-in only says whether two such results are equivalent.
 *
 *   bitwise      every output file byte-identical (same md5 and size), by position
 *   compare_cmd  CMD A_FILES... -- B_FILES...: exit 0 equivalent, 1 different,
 *                anything else: cannot tell now (the workunit is tried again later)
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

struct validate_plugin {
	const char *name;
	/* VALIDATE_EQUIVALENT, VALIDATE_DIFFERENT or VALIDATE_CANNOT_TELL (logged) */
	int (*compare)(const struct vresult *a, const struct vresult *b, const char *arg,
		       const char *project_dir);
};

extern const struct validate_plugin validate_bitwise, validate_cmd;

#endif
