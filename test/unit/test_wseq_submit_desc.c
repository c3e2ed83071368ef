/* Unit tests for wseq_submit's submit description and job list reader. */
#include "unit.h"
#include "wseq_submit_desc.h"

/* item files come from here, by name */
static const char *items_name, *items_text;

static int fake_read(const char *path, struct sbuf *out, void *arg)
{
	(void)arg;
	if (!items_name || strcmp(path, items_name) != 0) {
		errno = ENOENT;
		return -1;
	}
	return sbuf_addstr(out, items_text);
}

static int parse(const char *text, struct submit_desc *d, struct sbuf *err)
{
	struct desc_opts o = { "job.sub", 7, 0, fake_read, NULL };

	sbuf_reset(err);
	return desc_parse(&o, text, strlen(text), d, err);
}

/* The error of a description that must fail. */
static const char *fails(const char *text, struct sbuf *err)
{
	struct submit_desc d;

	assert_int_equal(parse(text, &d, err), -1);
	assert_int_equal(d.njobs, 0);
	return sbuf_str(err);
}

static void test_queue_n_with_process_and_cluster(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct submit_desc d;

	(void)state;
	assert_int_equal(parse("# comment\n"
			       "executable = wseq_sample\n"
			       "arguments = --steps $(Process) -c $(Cluster)\n"
			       "transfer_input_files = in.$(ProcId), common.dat\n"
			       "output = out.$(Cluster).$(Process)\n"
			       "error = err.$(Process)\n"
			       "log = job.log\n"
			       "queue 3\n", &d, &err), 0);
	assert_string_equal(d.app, "wseq_sample");
	assert_int_equal(d.njobs, 3);
	assert_int_equal(d.jobs[2].proc, 2);
	assert_int_equal(d.jobs[2].nargs, 4);
	assert_string_equal(d.jobs[2].args[1], "2");
	assert_string_equal(d.jobs[2].args[3], "7");
	assert_int_equal(d.jobs[1].ninputs, 2);
	assert_string_equal(d.jobs[1].inputs[0], "in.1");
	assert_string_equal(d.jobs[1].inputs[1], "common.dat");
	assert_int_equal(d.jobs[1].inputs_line, 4);
	assert_string_equal(d.jobs[2].output, "out.7.2");
	assert_string_equal(d.jobs[0].error, "err.0");
	assert_string_equal(d.jobs[0].log, "job.log");
	assert_false(d.jobs[0].outputs_given);
	assert_false(d.sequence);
	desc_release(&d);
	sbuf_release(&err);
}

static void test_queue_from_file_and_in_list(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct submit_desc d;

	(void)state;
	items_name = "items.txt";
	items_text = "# steps and file\n5, a.txt\n\n  7 b c.txt \n";
	assert_int_equal(parse("+WseqApp = \"wseq_sample\"\nexecutable = /bin/anything\n"
			       "arguments = --steps $(steps)\ntransfer_input_files = $(file)\n"
			       "queue steps, file from items.txt\n"
			       "arguments = -x $(Item) $(Step)\ntransfer_input_files = z\n"
			       "queue 2 in (p, q)\n", &d, &err), 0);
	assert_string_equal(d.app, "wseq_sample");
	assert_int_equal(d.njobs, 6);
	assert_string_equal(d.jobs[0].args[1], "5");
	assert_string_equal(d.jobs[0].inputs[0], "a.txt");
	assert_string_equal(d.jobs[1].args[1], "7");
	assert_string_equal(d.jobs[1].inputs[0], "b c.txt");
	assert_int_equal(d.jobs[2].proc, 2);
	assert_string_equal(d.jobs[2].args[1], "p");
	assert_string_equal(d.jobs[2].args[2], "0");
	assert_string_equal(d.jobs[3].args[2], "1");
	assert_string_equal(d.jobs[5].args[1], "q");
	desc_release(&d);
	sbuf_release(&err);
}

static void test_continuation_attrs_and_remaps(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct submit_desc d;

	(void)state;
	assert_int_equal(parse("executable = app\r\n"
			       "arguments = a \\\n   b\n"
			       "transfer_output_files = out, answer\n"
			       "transfer_output_remaps = \"out = r/out.$(Process); answer=ans\"\n"
			       "+WseqSequence = true\n+WseqProject = \"http://h/p\"\n"
			       "+WseqAuthenticatorFile = \"/k/auth\"\n+WseqBatch = \"b1\"\n"
			       "+rsc_fpops_est = \"1e12\"\n+SomethingElse = 3\n"
			       "initialdir = run$(Process)\nqueue\n", &d, &err), 0);
	assert_int_equal(d.jobs[0].nargs, 2);
	assert_string_equal(d.jobs[0].args[1], "b");
	assert_true(d.jobs[0].outputs_given);
	assert_int_equal(d.jobs[0].noutputs, 2);
	assert_int_equal(d.jobs[0].nremaps, 2);
	assert_string_equal(d.jobs[0].remap_to[0], "r/out.0");
	assert_string_equal(d.jobs[0].remap_from[1], "answer");
	assert_string_equal(d.jobs[0].iwd, "run0");
	assert_true(d.sequence);
	assert_string_equal(d.project, "http://h/p");
	assert_string_equal(d.auth_file, "/k/auth");
	assert_string_equal(d.batch, "b1");
	assert_true(d.params.fpops_est == 1e12);
	desc_release(&d);
	/* the boinc grid type's own words work too */
	assert_int_equal(parse("universe = grid\ngrid_resource = boinc http://x/y/\n"
			       "boinc_authenticator_file = a.txt\nexecutable = app\nqueue\n", &d, &err), 0);
	assert_string_equal(d.project, "http://x/y/");
	assert_string_equal(d.auth_file, "a.txt");
	desc_release(&d);
	sbuf_release(&err);
}

static void test_argument_syntaxes(void **state)
{
	struct sbuf why = SBUF_INIT(4096);
	char **v;
	size_t n, i;

	(void)state;
	assert_int_equal(desc_split_args("\"a 'b c' d\"\"e 'it''s'\"", &v, &n, &why), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b c");
	assert_string_equal(v[2], "d\"e");
	assert_string_equal(v[3], "it's");
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	assert_int_equal(desc_split_args("  old  \\\"x\\\" ", &v, &n, &why), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1], "\"x\"");
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	assert_int_equal(desc_split_args("\"a 'b\"", &v, &n, &why), -1);
	sbuf_release(&why);
}

static void test_errors_name_the_line(void **state)
{
	struct sbuf err = SBUF_INIT(4096);

	(void)state;
	assert_string_equal(fails("executable = a\n\nfrobnicate = 1\nqueue\n", &err),
			    "job.sub:3: unknown command 'frobnicate'");
	assert_string_equal(fails("arguments = x\nqueue 2\n", &err),
			    "job.sub:2: no executable: give the app's name as executable, or +WseqApp");
	assert_string_equal(fails("executable = a\nqueue 0\n", &err),
			    "job.sub:2: queue: bad count '0' (want 1 to 1000000)");
	assert_string_equal(fails("executable = a\nqueue 1x\n", &err),
			    "job.sub:2: queue: bad count '1x' (want 1 to 1000000)");
	assert_string_equal(fails("executable = a\nqueue -3\n", &err),
			    "job.sub:2: queue: bad count '-3' (want 1 to 1000000)");
	assert_string_equal(fails("executable = a\nqueue x from nofile\n", &err),
			    "job.sub:2: cannot read nofile: No such file or directory");
	assert_string_equal(fails("executable = a\narguments = $(nope)\nqueue\n", &err),
			    "job.sub:2: unknown macro $(nope) (known: $(Process), $(ProcId), $(Cluster), "
			    "$(ClusterId), $(Step), $(Row), $(ItemIndex) and the variables of queue)");
	assert_string_equal(fails("executable = a\n", &err),
			    "job.sub:1: no queue statement: nothing to submit");
	assert_string_equal(fails("executable a\nqueue\n", &err),
			    "job.sub:1: want 'COMMAND = VALUE' or 'queue ...', not 'executable a'");
	assert_string_equal(fails("executable = a\nqueue\nexecutable = b\nqueue\n", &err),
			    "job.sub:4: one app a batch: these jobs would run b, the jobs before a");
	assert_string_equal(fails("executable = a\n+WseqSequence = maybe\nqueue\n", &err),
			    "job.sub:2: +WseqSequence: want true or false");
	assert_string_equal(fails("executable = a\nqueue x y\n", &err),
			    "job.sub:2: queue: want 'queue', 'queue N', 'queue [N] [VARS] from FILE' or "
			    "'queue [N] [VARS] in (ITEMS)'");
	/* a continued line is numbered by its first line */
	assert_string_equal(fails("executable = a\narguments = \\\n x\\\n$(bad)\nqueue\n", &err),
			    "job.sub:2: unknown macro $(bad) (known: $(Process), $(ProcId), $(Cluster), "
			    "$(ClusterId), $(Step), $(Row), $(ItemIndex) and the variables of queue)");
	sbuf_release(&err);
}

static void test_job_limit(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct desc_opts o = { "j", 1, 5, NULL, NULL };
	struct submit_desc d;
	const char *t = "executable = a\nqueue 3\nqueue 3\n";

	(void)state;
	assert_int_equal(desc_parse(&o, t, strlen(t), &d, &err), -1);
	assert_string_equal(sbuf_str(&err), "j:3: more than 5 jobs");
	sbuf_release(&err);
}

static void test_job_list(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct desc_opts o = { "list", 1, 0, NULL, NULL };
	struct submit_desc d;
	const char *t = "# two jobs\n--steps 2 'a b' < in0.txt\n\n-x \"<\" \\< < f1 f2\n";

	(void)state;
	assert_int_equal(desc_parse_job_list(&o, t, strlen(t), "app", true, &d, &err), 0);
	assert_int_equal(d.njobs, 2);
	assert_true(d.sequence);
	assert_string_equal(d.app, "app");
	assert_int_equal(d.jobs[0].nargs, 3);
	assert_string_equal(d.jobs[0].args[2], "a b");
	assert_int_equal(d.jobs[0].ninputs, 1);
	assert_int_equal(d.jobs[0].inputs_line, 2);
	assert_int_equal(d.jobs[1].nargs, 3);
	assert_string_equal(d.jobs[1].args[1], "<");
	assert_string_equal(d.jobs[1].args[2], "<");
	assert_int_equal(d.jobs[1].ninputs, 2);
	assert_string_equal(d.jobs[1].inputs[1], "f2");
	assert_true(d.jobs[1].suffix_proc);
	assert_string_equal(d.jobs[1].error, "stderr.1");
	desc_release(&d);
	t = "ok\n'unterminated\n";
	assert_int_equal(desc_parse_job_list(&o, t, strlen(t), "app", false, &d, &err), -1);
	assert_string_equal(sbuf_str(&err), "list:2: an unterminated '");
	sbuf_reset(&err);
	assert_int_equal(desc_parse_job_list(&o, "\n#\n", 3, "app", false, &d, &err), -1);
	assert_string_equal(sbuf_str(&err), "list:2: no jobs in the list");
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_n_with_process_and_cluster),
		cmocka_unit_test(test_queue_from_file_and_in_list),
		cmocka_unit_test(test_continuation_attrs_and_remaps),
		cmocka_unit_test(test_argument_syntaxes),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_job_limit),
		cmocka_unit_test(test_job_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
