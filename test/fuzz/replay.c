/*
 * main() of a fuzz target in the normal build: run LLVMFuzzerTestOneInput
 * over every file named, and every file in every directory named (sorted,
 * so a failure is reproducible), and say how many ran. `make check`
 * replays the corpora this way (test/t/t0090-fuzz-corpus.sh); a sanitizer
 * report or a failed property aborts the program.
 */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	if (getenv("WSEQ_FUZZ_VERBOSE"))
		fprintf(stderr, "running %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	long runs = 0;
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		struct dirent **names;
		struct stat st;
		int n, k;

		if (argv[i][0] == '-')
			continue;       /* libFuzzer's flags, for scripts that pass them to both */
		if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			runs++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			bad = -1;
			continue;
		}
		for (k = 0; k < n; k++) {
			char *p = xasprintf("%s/%s", argv[i], names[k]->d_name);

			if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
				bad |= run_file(p);
				runs++;
			}
			free(p);
			free(names[k]);
		}
		free(names);
	}
	printf("%s: %ld inputs run\n", argv[0], runs);
	return bad ? 1 : 0;
}
