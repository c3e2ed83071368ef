/* Unit tests for wseq_wrapper's job file and command-line splitting (apps/wrapper_job.c). */
#include "unit.h"
#include "log.h"
#include "../../apps/wrapper_job.h"
#include "../../apps/wrapper_slot.h"
#include "../../apps/app_seqno.h"
#include "../../apps/wrapper_levels.h"
#include "fileutil.h"

static int parse(struct wjob *j, const char *xml, struct sbuf *err)
{
	sbuf_reset(err);
	return wjob_parse(j, xml, strlen(xml), "job.xml", err);
}

static void test_upstream_job(void **state)
{
	static const char xml[] =
		"<job_desc>\n"
		"  <task>\n"
		"    <application>worker</application>\n"
		"    <command_line>40 'two words' \"x y\"</command_line>\n"
		"    <stdin_filename>in</stdin_filename>\n"
		"    <stdout_filename>out</stdout_filename>\n"
		"    <stderr_filename>err</stderr_filename>\n"
		"    <setenv>A=1</setenv><setenv>B=x=y</setenv>\n"
		"    <weight>3</weight>\n"
		"    <checkpoint_filename>ck</checkpoint_filename>\n"
		"    <fraction_done_filename>fd</fraction_done_filename>\n"
		"    <append_cmdline_args/>\n"
		"    <multi_process/>\n"
		"  </task>\n"
		"  <task><application>second</application><time_limit>60</time_limit></task>\n"
		"  <task><application>helper</application><daemon/></task>\n"
		"  <zip_output><filename>res_*</filename><filename>*.dat</filename></zip_output>\n"
		"  <state_file><name>model.state</name><in>state_in</in><out>state_out</out></state_file>\n"
		"</job_desc>\n";
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;
	char **argv = NULL;
	size_t argc = 0;

	assert_int_equal(parse(&j, xml, &err), 0);
	assert_int_equal(j.ntasks, 2);
	assert_int_equal(j.ndaemons, 1);
	assert_string_equal(j.tasks[0].application, "worker");
	assert_string_equal(j.tasks[0].stdin_name, "in");
	assert_string_equal(j.tasks[0].stdout_name, "out");
	assert_string_equal(j.tasks[0].stderr_name, "err");
	assert_string_equal(j.tasks[0].checkpoint_name, "ck");
	assert_string_equal(j.tasks[0].fraction_done_name, "fd");
	assert_int_equal(j.tasks[0].nenv, 2);
	assert_string_equal(j.tasks[0].env[1], "B=x=y");
	assert_true(j.tasks[0].weight == 3);
	assert_true(j.tasks[0].append_cmdline_args);
	assert_true(j.tasks[1].weight == 1);
	assert_true(j.tasks[1].time_limit == 60);
	assert_false(j.tasks[1].append_cmdline_args);
	assert_string_equal(j.daemons[0].application, "helper");
	assert_true(j.zip_output);
	assert_string_equal(j.zip_name, WJOB_DEFAULT_ZIP);
	assert_int_equal(j.nzip_patterns, 2);
	assert_int_equal(j.nstates, 1);
	assert_string_equal(j.states[0].in, "state_in");
	wjob_split(j.tasks[0].command_line, &argv, &argc);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "40");
	assert_string_equal(argv[1], "two words");
	assert_string_equal(argv[2], "x y");
	assert_null(argv[3]);
	wjob_argv_free(argv);
	wjob_release(&j);
	sbuf_release(&err);
}

static void test_split(void **state)
{
	char **argv = NULL;
	size_t argc = 0;

	wjob_split("  a\tb''c \"\" 'it\"s' ", &argv, &argc);
	assert_int_equal(argc, 4);
	assert_string_equal(argv[0], "a");
	assert_string_equal(argv[1], "bc");
	assert_string_equal(argv[2], "");
	assert_string_equal(argv[3], "it\"s");
	wjob_split("more", &argv, &argc);
	assert_int_equal(argc, 5);
	assert_string_equal(argv[4], "more");
	wjob_argv_free(argv);
	argv = NULL;
	argc = 0;
	wjob_split("   ", &argv, &argc);
	assert_int_equal(argc, 0);
	assert_null(argv[0]);
	wjob_argv_free(argv);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *xml, *why;
	} bad[] = {
		{ "<job>", "" },
		{ "<jobs/>", "expected <job_desc>" },
		{ "<job_desc/>", "no <task>" },
		{ "<job_desc><task><command_line>x</command_line></task></job_desc>", "without <application>" },
		{ "<job_desc><task><application>a</application><bogus/></task></job_desc>", "unknown element <bogus>" },
		{ "<job_desc><task><application>a</application><exec_dir>d</exec_dir></task></job_desc>", "not supported" },
		{ "<job_desc><task><application>a</application></task><unzip_input/></job_desc>", "not supported" },
		{ "<job_desc><task><application>a</application><weight>-1</weight></task></job_desc>", "<weight>" },
		{ "<job_desc><task><application>a</application><weight>nan</weight></task></job_desc>", "<weight>" },
		{ "<job_desc><task><application>a</application><daemon>maybe</daemon></task></job_desc>", "<daemon>" },
		{ "<job_desc><task><application>a</application><setenv>NOEQUALS</setenv></task></job_desc>", "NAME=VALUE" },
		{ "<job_desc><task><application>a</application><application>b</application></task></job_desc>", "given twice" },
		{ "<job_desc><task><application>a</application></task><zip_output/></job_desc>", "without <filename>" },
		{ "<job_desc><task><application>a</application></task><zip_output><zipfilename>../x</zipfilename><filename>*</filename></zip_output></job_desc>", "not a plain file name" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name></state_file></job_desc>", "without <in> or <out>" },
		{ "<job_desc><task><application>a</application></task><state_file><name>a/b</name><in>i</in></state_file></job_desc>", "not a plain file name" },
		{ "<job_desc><task><application>a</application></task>"
		  "<state_file><name>s</name><in>i</in></state_file><state_file><name>s</name><out>o</out></state_file></job_desc>", "given twice" },
		{ "<job_desc><task><application>a</application><daemon/></task></job_desc>", "no <task>" },
		{ "<job_desc><task><application>a</application></task>\n<state_file><name>s</name><in>i</in>\n"
		  "<upload_every>0</upload_every></state_file></job_desc>", "job.xml:3: <upload_every>: expected a whole number from 1 to 1000000, not '0'" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<upload_every>2.5</upload_every></state_file></job_desc>", "not '2.5'" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<upload_every>1000001</upload_every></state_file></job_desc>", "not '1000001'" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<upload_every>-3</upload_every></state_file></job_desc>", "not '-3'" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<upload_every>2</upload_every><upload_every>2</upload_every></state_file></job_desc>", "<upload_every> given twice" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<level>a b</level></state_file></job_desc>", "<level>: 'a b' is not a name" },
		{ "<job_desc><task><application>a</application></task><state_file><name>s</name><in>i</in>"
		  "<level></level></state_file></job_desc>", "is not a name" },
		{ "<job_desc><task><application>a</application></task>\n"
		  "<state_file><name>s</name><in>i</in><level>full</level><upload_every>6</upload_every></state_file>\n"
		  "<state_file><name>t</name><in>j</in><level>delta</level><upload_every>2</upload_every></state_file>\n"
		  "<state_file><name>u</name><in>k</in><level>full</level><upload_every>3</upload_every></state_file>\n"
		  "</job_desc>", "job.xml:4: level full: <upload_every> 3 here, 6 at line 2" },
	};
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse(&j, bad[i].xml, &err) != -1)
			fail_msg("accepted: %s", bad[i].xml);
		if (!strstr(sbuf_str(&err), bad[i].why) || !strstr(sbuf_str(&err), "job.xml:"))
			fail_msg("'%s': expected '%s' in '%s'", bad[i].xml, bad[i].why, sbuf_str(&err));
		assert_int_equal(j.ntasks, 0);
	}
	sbuf_release(&err);
}

/* State levels: a level's period given once serves every state file of the level. */
static void test_state_levels(void **state)
{
	const char *xml =
		"<job_desc><task><application>a</application></task>\n"
		"<state_file><name>full.dat</name><in>full_in</in><out>full_out</out><level>full</level></state_file>\n"
		"<state_file><name>delta.dat</name><in>delta_in</in><out>delta_out</out>"
		"<upload_every>2</upload_every></state_file>\n"
		"<state_file><name>more.dat</name><in>more_in</in><level>full</level><upload_every>6</upload_every></state_file>\n"
		"<state_file><name>plain.dat</name><in>plain_in</in></state_file>\n"
		"</job_desc>\n";
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;

	(void)state;
	assert_int_equal(parse(&j, xml, &err), 0);
	assert_int_equal(j.nstates, 4);
	assert_string_equal(j.states[0].level, "full");
	assert_int_equal(j.states[0].upload_every, 6);
	assert_int_equal(j.states[0].line, 2);
	assert_null(j.states[1].level);
	assert_int_equal(j.states[1].upload_every, 2);
	assert_int_equal(j.states[2].upload_every, 6);
	assert_null(j.states[3].level);
	assert_int_equal(j.states[3].upload_every, 0);
	wjob_release(&j);
	sbuf_release(&err);
}

/* The segment a state input came from, by its physical name. */
static void test_state_seqno(void **state)
{
	(void)state;
	assert_int_equal(app_state_seqno("L_b0_s0_state"), 0);
	assert_int_equal(app_state_seqno("../../projects/x/L_b1_s8_state1"), 8);
	assert_int_equal(app_state_seqno("my_state_b2_s12_state"), 12);
	assert_int_equal(app_state_seqno("a_b0_s123456789_state7"), 123456789);
	assert_int_equal(app_state_seqno("a_b0_s1234567890_state"), -1);
	assert_int_equal(app_state_seqno("full_in"), -1);
	assert_int_equal(app_state_seqno("L_b0_s8_answer"), -1);
	assert_int_equal(app_state_seqno("L_b0_s_state"), -1);
	assert_int_equal(app_state_seqno("L_b0_s8_state1x"), -1);
	assert_int_equal(app_state_seqno("s8_state"), -1);
	assert_int_equal(app_state_seqno("L_b0_s8_state/x"), -1);
	assert_int_equal(app_state_seqno(""), -1);
}

/* A relocated segment's inputs: full of segment 6, delta of segment 8. */
static const char *fake_resolve(const char *logical, char *buf, size_t len)
{
	snprintf(buf, len, "%s", !strcmp(logical, "full_in") ? "../../projects/p/L_b0_s6_state" :
				 !strcmp(logical, "delta_in") ? "../../projects/p/L_b0_s8_state1" : logical);
	return buf;
}

static bool has(char **env, size_t n, const char *entry)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(env[i], entry))
			return true;
	return false;
}

/* The WSEQ_* variables: the segment after the newest input, each input's source, the upload points. */
static void test_levels_env(void **state)
{
	const char *xml =
		"<job_desc><task><application>a</application></task>\n"
		"<state_file><name>full.dat</name><in>full_in</in><out>full_out</out><level>full</level>"
		"<upload_every>6</upload_every></state_file>\n"
		"<state_file><name>delta.dat</name><in>delta_in</in><out>delta_out</out>"
		"<upload_every>3</upload_every></state_file>\n"
		"<state_file><name>log</name><in>log_in</in></state_file>\n"
		"</job_desc>\n";
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;
	char **env = NULL;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(parse(&j, xml, &err), 0);
	assert_int_equal(wlevels_env(&j, fake_resolve, &env, &n), 9);
	assert_true(has(env, n, "WSEQ_NSTATES=3"));
	assert_true(has(env, n, "WSEQ_SEGMENT=9"));
	assert_true(has(env, n, "WSEQ_STATE0_NAME=full.dat"));
	assert_true(has(env, n, "WSEQ_STATE0_FROM=6"));
	assert_true(has(env, n, "WSEQ_STATE0_LEVEL=full"));
	assert_true(has(env, n, "WSEQ_STATE0_UPLOAD=0"));
	assert_true(has(env, n, "WSEQ_STATE1_FROM=8"));
	assert_true(has(env, n, "WSEQ_STATE1_UPLOAD=1"));
	assert_true(has(env, n, "WSEQ_STATE2_NAME=log"));
	assert_int_equal(n, 10);        /* no LEVEL for 1; no FROM, LEVEL or UPLOAD for 2 */
	for (i = 0; i < n; i++)
		free(env[i]);
	free(env);
	wjob_release(&j);
	sbuf_release(&err);
}

static void test_zip_name(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct wjob j;

	assert_int_equal(parse(&j, "<job_desc><task><application>a</application></task>"
			     "<zip_output><zipfilename>mine.zip</zipfilename><filename>*</filename>"
			     "</zip_output></job_desc>", &err), 0);
	assert_string_equal(j.zip_name, "mine.zip");
	wjob_release(&j);
	assert_int_equal(parse(&j, "<job_desc><task><application>a</application></task></job_desc>",
			       &err), 0);
	assert_false(j.zip_output);
	assert_null(j.zip_name);
	wjob_release(&j);
	sbuf_release(&err);
}

/* The job file make_project --exec_app installs: the job's own program, everything back in the zip. */
static void test_exec_app_job(void **state)
{
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/apps/templates/wseq_exec_job.xml", src ? src : ".");
	struct sbuf text = SBUF_INIT(1 << 20), err = SBUF_INIT(4096);
	struct wjob j;

	(void)state;
	assert_int_equal(read_file(path, 1 << 20, &text), 0);
	assert_int_equal(wjob_parse(&j, text.buf, text.len, path, &err), 0);
	assert_int_equal(j.ntasks, 1);
	assert_string_equal(j.tasks[0].application, "wseq_exec");
	assert_true(j.tasks[0].input_application);
	assert_true(j.tasks[0].append_cmdline_args);
	assert_string_equal(j.tasks[0].stdout_name, "_condor_stdout");
	assert_null(j.tasks[0].stderr_name);
	assert_true(j.zip_output);
	assert_string_equal(j.zip_name, "wseq_outputs.zip");
	assert_int_equal(j.nzip_patterns, 1);
	assert_string_equal(j.zip_patterns[0], "*");
	wjob_release(&j);
	sbuf_release(&text);
	sbuf_release(&err);
	free(path);
}


static void slot_write(const char *top, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", top, rel);

	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

/* A slot as the client makes it: projects/P holds the files, slots/0 the links and init_data.xml. */
static char *slot_setup(const char *app_files)
{
	char tmpl[] = "/tmp/wslotXXXXXX", *top = xstrdup(mkdtemp(tmpl)), *p;

	p = xasprintf("%s/projects/P", top);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/slots/0", top);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("<app_init_data>\n<project_dir>%s/projects/P</project_dir>\n%s</app_init_data>\n",
		      top, app_files);
	slot_write(top, "slots/0/init_data.xml", p);
	free(p);
	slot_write(top, "projects/P/job_1.xml", "<job_desc/>\n");
	slot_write(top, "projects/P/worker_1", "#!/bin/sh\n");
	slot_write(top, "projects/P/in_md5", "<job_desc>mine</job_desc>\n");
	slot_write(top, "slots/0/job.xml", "<soft_link>../../projects/P/job_1.xml</soft_link>\n");
	slot_write(top, "slots/0/in", "<soft_link>../../projects/P/in_md5</soft_link>\n");
	slot_write(top, "slots/0/worker", "#!/bin/sh\n");          /* copied (<copy_file/>) */
	slot_write(top, "slots/0/other", "#!/bin/sh\nrm -rf ~\n"); /* copied, not the app's bytes */
	return top;
}

static void test_slot_app_files(void **state)
{
	char *top = slot_setup("<app_file>wseq_wrapper_1</app_file>\n<app_file>job_1.xml</app_file>\n"
			       "<app_file>worker_1</app_file>\n"), *init, *p;
	struct sbuf err = SBUF_INIT(4096);
	struct wslot s;

	(void)state;
	init = xasprintf("%s/slots/0/init_data.xml", top);
	assert_int_equal(wslot_load(&s, init, &err), 0);
	assert_int_equal(s.napp_files, 3);
	p = xasprintf("%s/slots/0", top);
	assert_int_equal(chdir(p), 0);
	free(p);
	assert_true(wslot_is_app_file(&s, "job.xml", "../../projects/P/job_1.xml"));
	assert_true(wslot_is_app_file(&s, "worker", "worker"));
	/* a workunit's input: in the project directory, but not listed */
	assert_false(wslot_is_app_file(&s, "in", "../../projects/P/in_md5"));
	/* a link that climbs out, and a copy with other bytes */
	assert_false(wslot_is_app_file(&s, "x", "../../projects/P/../P/../../slots/0/in"));
	assert_false(wslot_is_app_file(&s, "other", "other"));
	assert_false(wslot_is_app_file(&s, "missing", "missing"));
	wslot_release(&s);
	/* a client that lists no app files: nothing is the app version's */
	assert_int_equal(remove_tree(top), 0);
	free(top);
	top = slot_setup("");
	free(init);
	init = xasprintf("%s/slots/0/init_data.xml", top);
	assert_int_equal(wslot_load(&s, init, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "no app version files"));
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(remove_tree(top), 0);
	free(init);
	free(top);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_job),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_state_levels),
		cmocka_unit_test(test_state_seqno),
		cmocka_unit_test(test_levels_env),
		cmocka_unit_test(test_zip_name),
		cmocka_unit_test(test_exec_app_job),
		cmocka_unit_test(test_slot_app_files),
	};

	log_init("test_wrapper_job", NULL);
	log_set_level(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
