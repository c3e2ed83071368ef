/*
 * The zip-to-directory step on the submitter's machine (gahp/outputs_zip.c):
 * a host's wseq_outputs.zip staged in a job's directory, unpacked within a
 * job's and a batch's bounds, every entry wanted at its own name (as
 * `wseq_submit fetch` and the gahp's FETCH_OUTPUT ALL want them), placed.
 * The job directory holds the submitter's files first: job.sub, a hidden
 * .wseq_submit/state, and a link "out" to a directory outside; config.txt
 * is reserved (the gahp's own). Properties: those are never changed,
 * config.txt never made, nothing appears outside; a refusal has a
 * message and leaves the job directory as it was; a success adds only
 * regular files and directories, none hidden, within the bounds; the
 * staging directory never stays.
 */
#include "fuzz.h"
#include "fileutil.h"
#include "outputs_zip.h"

#include <ftw.h>
#include <sys/stat.h>

#define MAX_BYTES 65536
#define MAX_ENTRIES 64

static size_t nfound, nbytes;
static bool odd;

/* What the job directory holds besides the submitter's three names. */
static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + ftw->base;

	if (ftw->level == 0)
		return 0;
	if (ftw->level == 1 && (!strcmp(rel, "job.sub") || !strcmp(rel, ".wseq_submit") ||
				!strcmp(rel, "out")))
		return 0;
	if (strstr(path, "/.wseq_submit/"))
		return 0;
	if (rel[0] == '.' || (flag != FTW_F && flag != FTW_D) ||
	    (flag == FTW_F && !S_ISREG(st->st_mode)))
		odd = true;
	if (flag == FTW_F)
		nbytes += (size_t)st->st_size;
	nfound++;
	return 0;
}

static void job_dir_make(const char *job, const char *outside)
{
	char *p = xasprintf("%s/.wseq_submit", job);

	FUZZ_CHECK(mkdir(job, 0755) == 0 && mkdir(outside, 0755) == 0 && mkdir(p, 0700) == 0);
	free(p);
	p = xasprintf("%s/.wseq_submit/state", job);
	FUZZ_CHECK(write_file_atomic(p, "project =https://mine/", 22, 0600) == 0);
	free(p);
	p = xasprintf("%s/job.sub", job);
	FUZZ_CHECK(write_file_atomic(p, "executable = mine\n", 18, 0644) == 0);
	free(p);
	p = xasprintf("%s/out", job);
	FUZZ_CHECK(symlink(outside, p) == 0);
	free(p);
}

static void job_dir_check(const char *job, const char *outside)
{
	struct sbuf b = SBUF_INIT(4096);
	char *p = xasprintf("%s/job.sub", job);

	FUZZ_CHECK(read_file(p, 4096, &b) == 0 && !strcmp(sbuf_str(&b), "executable = mine\n"));
	free(p);
	sbuf_reset(&b);
	p = xasprintf("%s/.wseq_submit/state", job);
	FUZZ_CHECK(read_file(p, 4096, &b) == 0 && !strcmp(sbuf_str(&b), "project =https://mine/"));
	free(p);
	FUZZ_CHECK(!dir_nonempty(outside));
	sbuf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch_dir();
	char *job = xasprintf("%s/job", dir), *outside = xasprintf("%s/outside", dir), *zip, *conf;
	struct zip_limits lim = { MAX_BYTES, MAX_ENTRIES, MAX_BYTES / 2, 50 };
	struct zip_budget batch = { MAX_BYTES, MAX_ENTRIES, 1000, 2 };
	struct sbuf err = SBUF_INIT(4096);
	struct unpacked u;
	size_t i;
	int rc;

	fuzz_setup();
	job_dir_make(job, outside);
	FUZZ_CHECK(outputs_zip_stage(job, &u, &err) == 0);
	conf = xasprintf("%s/config.txt", job);
	unpacked_reserve(&u, conf, false);
	zip = outputs_zip_path(&u);
	FUZZ_CHECK(write_file_atomic(zip, data, size, 0644) == 0);
	rc = outputs_zip_unpack(&u, &lim, &batch, &err);
	if (rc == 0) {
		for (i = 0; i < u.n; i++)
			unpacked_want(&u, i, u.names[i], false);
		rc = unpacked_place(&u, job, &err);
	}
	unpacked_release(&u);
	job_dir_check(job, outside);
	FUZZ_CHECK(access(conf, F_OK) < 0);
	nfound = nbytes = 0;
	odd = false;
	FUZZ_CHECK(nftw(job, visit, 16, FTW_PHYS) == 0);
	FUZZ_CHECK(!odd);
	if (rc < 0) {
		FUZZ_CHECK(err.len > 0);
		FUZZ_CHECK(nfound == 0);
	} else {
		FUZZ_CHECK(nbytes <= MAX_BYTES - 1000);
		FUZZ_CHECK(batch.bytes == 1000 + nbytes);      /* the batch charged what came */
	}
	fuzz_rm_below(dir);
	sbuf_release(&err);
	free(zip);
	free(conf);
	free(job);
	free(outside);
	return 0;
}
