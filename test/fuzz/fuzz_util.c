/* Helpers of the fuzz targets; see fuzz.h. */
#include "fuzz.h"
#include "log.h"

#include <dirent.h>
#include <sys/stat.h>

static char *scratch;

void fuzz_setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	if (getenv("WSEQ_FUZZ_LOG")) {
		log_init("fuzz", NULL);
		log_set_level(LOG_LVL_DEBUG);
	} else {
		log_init("fuzz", "/dev/null");
	}
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fuzz_two_ways(const uint8_t *data, size_t size, void (*even)(const char *, size_t),
		   void (*odd)(const char *, size_t))
{
	if (size < 1)
		return;
	(data[0] & 1 ? odd : even)((const char *)data + 1, size - 1);
}

void fuzz_rm_below(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			fuzz_rm_below(p);
			rmdir(p);
		} else {
			unlink(p);
		}
		free(p);
	}
	closedir(d);
}

static void scratch_remove(void)
{
	if (!scratch)
		return;
	fuzz_rm_below(scratch);
	rmdir(scratch);
	free(scratch);
	scratch = NULL;
}

const char *fuzz_scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (scratch)
		return scratch;
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	scratch = xasprintf("%s/wseq-fuzz.XXXXXX", tmp);
	if (!mkdtemp(scratch)) {
		fprintf(stderr, "fuzz: cannot make a scratch directory in %s: %s\n", tmp,
			strerror(errno));
		abort();
	}
	atexit(scratch_remove);
	return scratch;
}

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: property failed: %s\n", file, line, what);
	abort();
}
