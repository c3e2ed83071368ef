/*
 * A job's outputs whose names were not known in advance: wseq_wrapper packs
 * them into one output file, wseq_outputs.zip (an any_executable app's only
 * output; any wrapper app may have one). boinc_gahp and wseq_submit treat
 * its entries as outputs in their own right. The zip comes from a
 * volunteer's host, so on the submitter's machine it is a stranger's data:
 *
 *  - it is fetched into a private staging directory (0700) inside the
 *    job's directory and unpacked there (lib/unzip.c), every bound -- per
 *    job and per batch, bytes, entries, one entry's bytes, the compression
 *    ratio -- checked as the bytes are decompressed;
 *  - each entry wanted goes to the destination the caller gives it. An
 *    entry the submitter did not name explicitly (transfer_output_remaps, a
 *    spec's DST, an output name in the description) goes only to a NEW path
 *    under the job's directory: no component starting with '.', no symbolic
 *    link on the way, no file replaced (one with the same bytes counts as
 *    already there, so a fetch may be repeated), nothing in a place the
 *    caller reserved (the tool's own files: unpacked_reserve());
 *  - every entry is checked before any is moved, and a refusal takes back
 *    what was moved: a refused zip leaves nothing behind.
 */
#ifndef WSEQ_OUTPUTS_ZIP_H
#define WSEQ_OUTPUTS_ZIP_H

#include "common.h"
#include "sbuf.h"
#include "submit_client.h"
#include "unzip.h"

#define OUTPUTS_ZIP "wseq_outputs.zip"

/* The place of wseq_outputs.zip among a template's outputs, or -1. */
long outputs_zip_index(const struct rpc_templates *t);

/*
 * The bounds on what zips of outputs may unpack to: one job's (job) and a
 * batch's together (batch, its use zeroed). The defaults, each changed by
 * an environment variable (outputs_zip_env_help() lists them): 0, or -1
 * with the reason in err.
 */
int outputs_zip_limits(struct zip_limits *job, struct zip_budget *batch, struct sbuf *err);
/* The environment variables outputs_zip_limits() reads, for --help. */
const char *outputs_zip_env_help(void);

/*
 * Why rel may not be where a host's entry lands unless the submitter named
 * it: NULL if it may (a relative path of plain components, none starting
 * with '.'), else the reason.
 */
const char *outputs_rel_problem(const char *rel);

/* A place no unnamed entry may go: a directory (base NULL) or one name in it. */
struct unpacked_reserved {
	dev_t dev;
	ino_t ino;
	char *base;
};

struct unpacked {
	char *dir;              /* the private staging directory */
	char **names;           /* entries: files, relative paths, sorted */
	size_t n;
	char **dest;            /* per entry: where it goes (unpacked_want), or NULL */
	bool *named;            /* per entry: the submitter named dest */
	size_t nplaced;         /* entries now at their destination (or there already) */
	struct unpacked_reserved *reserved;
	size_t nreserved;
};

/* A new staging directory in job_dir (which must exist): 0, or -1 (err). */
int outputs_zip_stage(const char *job_dir, struct unpacked *u, struct sbuf *err);
/* Where the zip goes in the staging directory (allocated). */
char *outputs_zip_path(const struct unpacked *u);
/* Fetch output file_num of job (the zip) into the staging directory: 0 / -1 (err). */
int outputs_zip_download(const char *url, const char *auth, const char *job, int file_num,
			 struct unpacked *u, struct sbuf *err);
/*
 * Unpack the zip in the staging directory within job's bounds and what is
 * left of batch's (may be NULL; charged only when the zip passes): 0 and
 * u->names, or -1 with the reason in err.
 */
int outputs_zip_unpack(struct unpacked *u, const struct zip_limits *job, struct zip_budget *batch,
		       struct sbuf *err);
/*
 * Keep unnamed entries out of path: the directory and all below it when
 * whole, else the one name (which may not exist yet; its directory must,
 * or there is nothing to keep them out of).
 */
void unpacked_reserve(struct unpacked *u, const char *path, bool whole);
/* The index of entry name, or -1. */
long unpacked_find(const struct unpacked *u, const char *name);
/*
 * Entry i is wanted at dest: when named, a path the submitter gave (made
 * and replaced as it says); otherwise a path relative to the job's
 * directory, held to the rules above.
 */
void unpacked_want(struct unpacked *u, size_t i, const char *dest, bool named);
/*
 * Move every wanted entry to its destination under job_dir: all of them,
 * or -1 with the reason in err and none left behind.
 */
int unpacked_place(struct unpacked *u, const char *job_dir, struct sbuf *err);
/* Remove the staging directory and what was not taken. */
void unpacked_release(struct unpacked *u);

#endif
