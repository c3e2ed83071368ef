/*
 * wseq_wrapper's job file (apps/wrapper_job.c): job.xml as a project ships
 * it with an app version or as a workunit input file, and the command-line
 * splitting of its tasks. Properties: a parsed job has tasks, each with an
 * application and a sane weight; its zip has a name and patterns; every
 * command line splits into words that, quoted and split again, come back
 * the same; state files of one level have one period, from 0 (none) to
 * 1e6; a state file's name the server could have given (app_seqno.c) has a
 * seqno only if it ends in _s<seqno>_state[<i>].
 */
#include "fuzz.h"
#include "sbuf.h"
#include "../../apps/wrapper_job.h"
#include "../../apps/app_seqno.h"

static void check_split(const char *line)
{
	char **argv = NULL, **again = NULL;
	size_t argc = 0, n = 0, i;
	struct sbuf q = SBUF_INIT((size_t)1 << 30);

	wjob_split(line, &argv, &argc);
	for (i = 0; i < argc; i++) {
		char quote = strchr(argv[i], '"') ? '\'' : '"';

		FUZZ_CHECK(argv[i] != NULL);
		if (strchr(argv[i], '"') && strchr(argv[i], '\''))
			goto out;       /* no way to quote both without escapes: upstream's too */
		sbuf_addf(&q, "%c%s%c ", quote, argv[i], quote);
	}
	FUZZ_CHECK(argv[argc] == NULL);
	wjob_split(sbuf_str(&q), &again, &n);
	FUZZ_CHECK(n == argc);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(!strcmp(argv[i], again[i]));
out:
	wjob_argv_free(argv);
	wjob_argv_free(again);
	sbuf_release(&q);
}

static void check_levels(const struct wjob *j)
{
	size_t i, k;

	for (i = 0; i < j->nstates; i++) {
		FUZZ_CHECK(j->states[i].upload_every >= 0 && j->states[i].upload_every <= 1000000);
		FUZZ_CHECK(!j->states[i].level || (*j->states[i].level && !strchr(j->states[i].level, '=')));
		for (k = 0; k < i && j->states[i].level; k++)
			FUZZ_CHECK(!j->states[k].level || strcmp(j->states[k].level, j->states[i].level) ||
				   j->states[k].upload_every == j->states[i].upload_every);
	}
}

static void check_seqno(const char *s)
{
	long n = app_state_seqno(s);
	const char *st = strstr(s, "_state");

	FUZZ_CHECK(n >= -1);
	if (n >= 0)
		FUZZ_CHECK(st != NULL && strstr(s, "_s") != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;
	char *s;
	size_t i;

	fuzz_setup();
	if (wjob_parse(&j, (const char *)data, size, "job.xml", &err) == 0) {
		FUZZ_CHECK(j.ntasks > 0);
		for (i = 0; i < j.ntasks; i++) {
			FUZZ_CHECK(j.tasks[i].application && *j.tasks[i].application);
			FUZZ_CHECK(j.tasks[i].weight >= 0 && j.tasks[i].weight <= 1e12);
			FUZZ_CHECK(!j.tasks[i].daemon);
			if (j.tasks[i].command_line)
				check_split(j.tasks[i].command_line);
		}
		FUZZ_CHECK(!j.zip_output || (j.zip_name && j.nzip_patterns > 0));
		for (i = 0; i < j.nstates; i++)
			FUZZ_CHECK(j.states[i].name && !strchr(j.states[i].name, '/'));
		check_levels(&j);
		wjob_release(&j);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	s = fuzz_cstr(data, size);
	check_split(s);
	check_seqno(s);
	free(s);
	sbuf_release(&err);
	return 0;
}
