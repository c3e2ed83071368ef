/*
 * The rule of what a job's text may choose on a host (lib/exec_rule.c):
 * the first byte picks a command line (even) or a workunit's xml_doc (odd).
 * Properties: a command line the rule lets through splits, as wseq_wrapper
 * splits a task's words, into no word holding --job_file; a refused
 * workunit always says why, an accepted one never does.
 */
#include "fuzz.h"
#include "exec_rule.h"
#include "sbuf.h"
#include "../../apps/wrapper_job.h"

static void cmdline(const char *data, size_t len)
{
	char **argv = NULL, *s = fuzz_cstr((const uint8_t *)data, len);
	size_t argc = 0, i;

	if (exec_rule_cmdline(s) == NULL) {
		wjob_split(s, &argv, &argc);
		for (i = 0; i < argc; i++)
			FUZZ_CHECK(strstr(argv[i], "--job_file") == NULL);
		wjob_argv_free(argv);
	}
	free(s);
}

static void wu_doc(const char *data, size_t len)
{
	struct sbuf why = SBUF_INIT(4096);
	char *s = fuzz_cstr((const uint8_t *)data, len);
	int any;

	for (any = 0; any < 2; any++) {
		sbuf_reset(&why);
		if (exec_rule_wu_doc(s, any, &why) == 0)
			FUZZ_CHECK(why.len == 0);
		else
			FUZZ_CHECK(why.len > 0);
	}
	sbuf_release(&why);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, cmdline, wu_doc);
	return 0;
}
