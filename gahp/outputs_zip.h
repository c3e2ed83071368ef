/*
 * A job's outputs whose names were not known in advance: wseq_wrapper packs
 * them into one output file, wseq_outputs.zip (an any_executable app's only
 * output; any wrapper app may have one). boinc_gahp and wseq_submit treat
 * its entries as outputs in their own right: the zip is fetched, unpacked
 * with suspicion (it comes from a volunteer's host: lib/unzip.c) into a
 * scratch directory beside where the outputs go, and each entry wanted is
 * moved to its destination; the rest goes with the scratch directory.
 */
#ifndef WSEQ_OUTPUTS_ZIP_H
#define WSEQ_OUTPUTS_ZIP_H

#include "common.h"
#include "sbuf.h"
#include "submit_client.h"

#define OUTPUTS_ZIP "wseq_outputs.zip"
/* Bounds on what one job's zip may unpack to. */
#define OUTPUTS_ZIP_MAX_BYTES (8ULL << 30)   /* a zip bomb stops here */
#define OUTPUTS_ZIP_MAX_ENTRIES 100000

/* The place of wseq_outputs.zip among a template's outputs, or -1. */
long outputs_zip_index(const struct rpc_templates *t);

struct unpacked {
	char *dir;              /* the scratch directory */
	char **names;           /* entries: files, relative paths, sorted */
	size_t n;
	bool *taken;
};

/*
 * Fetch output file_num of job (the zip) and unpack it into a new scratch
 * directory in near (which must exist): 0 and *u, or -1 with the reason in
 * err (nothing left behind).
 */
int outputs_zip_fetch(const char *url, const char *auth, const char *job, int file_num,
		      const char *near, struct unpacked *u, struct sbuf *err);
/* The index of entry name, or -1. */
long unpacked_find(const struct unpacked *u, const char *name);
/* Move entry i to dest (replacing a file there, making its directories): 0 / -1 (err). */
int unpacked_take(struct unpacked *u, size_t i, const char *dest, struct sbuf *err);
/* Remove the scratch directory and what was not taken. */
void unpacked_free(struct unpacked *u);

#endif
