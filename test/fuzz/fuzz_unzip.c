/*
 * zip_unpack() (lib/unzip.c): the zip of outputs a volunteer host uploads,
 * unpacked into a scratch directory emptied after every input. Properties:
 * a refusal leaves nothing behind (no destination, no scratch directory
 * beside it); a success leaves only directories and regular files, within
 * the entry and byte limits.
 */
#include "fuzz.h"
#include "fileutil.h"
#include "unzip.h"

#include <ftw.h>
#include <sys/stat.h>

#define MAX_BYTES 65536
#define MAX_ENTRIES 64

static size_t nfound, nbytes;
static bool odd;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (ftw->level == 0)
		return 0;
	if (flag == FTW_F && S_ISREG(st->st_mode)) {
		nbytes += (size_t)st->st_size;
		if ((st->st_mode & 07777) != 0644)
			odd = true;
	} else if (flag != FTW_D || (st->st_mode & 07777) != 0755) {
		odd = true;
	}
	nfound++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch_dir();
	char *zip = xasprintf("%s/in.zip", dir), *dest = xasprintf("%s/dest", dir);
	struct sbuf err = SBUF_INIT(4096);
	int rc;

	fuzz_setup();
	FUZZ_CHECK(write_file_atomic(zip, data, size, 0644) == 0);
	rc = zip_unpack(zip, dest, MAX_BYTES, MAX_ENTRIES, &err);
	unlink(zip);
	if (rc < 0) {
		FUZZ_CHECK(err.len > 0);
		FUZZ_CHECK(!dir_nonempty(dir));
	} else {
		nfound = nbytes = 0;
		odd = false;
		FUZZ_CHECK(nftw(dest, visit, 16, FTW_PHYS) == 0);
		FUZZ_CHECK(!odd);
		FUZZ_CHECK(nbytes <= MAX_BYTES);
		FUZZ_CHECK(nfound <= MAX_ENTRIES + 1024);      /* parents the names imply */
	}
	fuzz_rm_below(dir);
	sbuf_release(&err);
	free(zip);
	free(dest);
	return 0;
}
