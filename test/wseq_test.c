/*
 * wseq_test: the one test tool the shell tests and benchmarks call (git's
 * test-tool), never installed. `wseq_test PART ARGS...` runs one part from
 * the table below; each part lives in test/wseq_test_PART.c and says there
 * what its commands do. test/README.md lists where each part is used.
 *
 * test/test_daemon is not a part: it is a daemon on the daemon skeleton that
 * bin/start runs by its program name from a project's config.xml, and the
 * skeleton names its pid and log files after the program.
 */
#include "common.h"
#include "log.h"
#include "wseq_test.h"

struct wseq_test_part {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct wseq_test_part parts[] = {
	{ "daemons", wseq_test_daemons,
	  "wu NAME [options] | path upload|download NAME | send RESULT | report RESULT" },
	{ "db", wseq_test_db, "create SCHEMA_SQL | version | fill N | explain | serve" },
	{ "sweep", wseq_test_sweep, "conformance TRANSITIONER" },
	{ "unzip", wseq_test_unzip, "ZIP DEST [MAX_BYTES [MAX_ENTRIES]]" },
	{ "work", wseq_test_work, "create_result WU_NAME [N] | certify" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: wseq_test PART ARGS...\n", f);
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		fprintf(f, "  wseq_test %-8s %s\n", parts[i].name, parts[i].usage);
}

int main(int argc, char **argv)
{
	size_t i;
	int rc;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	for (i = 0; argc >= 2 && i < ARRAY_SIZE(parts); i++) {
		if (strcmp(argv[1], parts[i].name))
			continue;
		log_init("wseq_test", NULL);
		rc = parts[i].fn(argc - 1, argv + 1);
		log_close();
		return rc;
	}
	usage(stderr);
	return 2;
}
