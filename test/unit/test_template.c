/* Unit tests for input and output templates (backend/template.c). */
#include "unit.h"
#include "log.h"
#include "sbuf.h"
#include "template.h"

static char dir[64];
static char logpath[96];

static int setup(void **state)
{
	(void)state;
	wstrlcpy(dir, "/tmp/wseq-template-XXXXXX", sizeof(dir));
	assert_non_null(mkdtemp(dir));
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	log_init("unit", logpath);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	log_close();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The log so far, then truncated, so each test sees only its own errors. */
static char *take_log(void)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	FILE *fp = fopen(logpath, "r");
	char line[1024];

	while (fp && fgets(line, sizeof(line), fp))
		sbuf_addstr(&b, line);
	if (fp)
		fclose(fp);
	fp = fopen(logpath, "w");
	if (fp)
		fclose(fp);
	return b.buf ? sbuf_detach(&b, NULL) : xstrdup("");
}

static void assert_log_has(const char *what)
{
	char *log = take_log();

	if (!strstr(log, what))
		fail_msg("log lacks \"%s\":\n%s", what, log);
	free(log);
}

static const char two_in[] =
	"<input_template>\n"
	"  <file_info>\n"
	"    <number>0</number>\n"
	"  </file_info>\n"
	"  <file_info>\n"
	"    <number>1</number>\n"
	"    <sticky/>\n"
	"    <no_delete/>\n"
	"  </file_info>\n"
	"  <workunit>\n"
	"    <file_ref>\n"
	"      <file_number>0</file_number>\n"
	"      <open_name>in</open_name>\n"
	"    </file_ref>\n"
	"    <file_ref>\n"
	"      <file_number>1</file_number>\n"
	"      <open_name>params</open_name>\n"
	"      <copy_file/>\n"
	"    </file_ref>\n"
	"    <command_line>-n 5</command_line>\n"
	"    <rsc_fpops_est>1e10</rsc_fpops_est>\n"
	"    <rsc_fpops_bound>1e11</rsc_fpops_bound>\n"
	"    <delay_bound>3600</delay_bound>\n"
	"    <min_quorum>1</min_quorum>\n"
	"    <target_nresults>1</target_nresults>\n"
	"    <priority>7</priority>\n"
	"  </workunit>\n"
	"</input_template>\n";

static const struct template_infile two_files[] = {
	{ "data_1", "http://h/download/3a/data_1", "0123456789abcdef0123456789abcdef", 42 },
	{ "p&q", "http://h/download/1f/p%26q", "fedcba9876543210fedcba9876543210", 7 },
};

static void test_input_two_files(void **state)
{
	struct input_template t;
	struct sbuf doc = SBUF_INIT(1 << 20);
	const char *s, *wu;

	(void)state;
	assert_int_equal(input_template_parse(two_in, strlen(two_in), "two_in", &t), 0);
	assert_int_equal(t.nfiles, 2);
	assert_int_equal(input_template_process(&t, two_files, 2, NULL, &doc), 0);
	s = sbuf_str(&doc);
	/* file_infos first, in number order, with url, md5 and size */
	assert_non_null(strstr(s, "<file_info>\n<name>data_1</name>\n"
				  "<url>http://h/download/3a/data_1</url>\n"
				  "<md5_cksum>0123456789abcdef0123456789abcdef</md5_cksum>\n"
				  "<nbytes>42</nbytes>\n</file_info>\n"));
	assert_non_null(strstr(s, "<name>p&amp;q</name>"));
	assert_non_null(strstr(s, "<nbytes>7</nbytes>\n<sticky/>\n<no_delete/>\n</file_info>"));
	wu = strstr(s, "<workunit>\n");
	assert_non_null(wu);
	assert_true(strstr(s, "</file_info>") < wu);
	assert_non_null(strstr(wu, "<file_ref>\n<file_name>data_1</file_name>\n"
				   "<open_name>in</open_name>\n</file_ref>"));
	assert_non_null(strstr(wu, "<file_name>p&amp;q</file_name>\n<open_name>params</open_name>\n"
				   "<copy_file/>\n</file_ref>"));
	assert_non_null(strstr(wu, "<command_line>-n 5</command_line>"));
	/* job parameters are columns, not client XML */
	assert_null(strstr(s, "rsc_fpops"));
	assert_null(strstr(s, "priority"));
	assert_null(strstr(s, "<number>"));
	assert_true(strlen(s) > 10 && strcmp(s + strlen(s) - 12, "</workunit>\n") == 0);

	/* the job parameters are read */
	assert_true(t.params.rsc_fpops_est == 1e10);
	assert_true(t.params.rsc_fpops_bound == 1e11);
	assert_int_equal(t.params.delay_bound, 3600);
	assert_int_equal(t.params.min_quorum, 1);
	assert_int_equal(t.params.target_nresults, 1);
	assert_int_equal(t.params.priority, 7);
	assert_true(t.params.rsc_memory_bound < 0);     /* not given */
	assert_int_equal(t.params.max_error_results, -1);

	/* a command line given to process replaces the template's */
	sbuf_reset(&doc);
	assert_int_equal(input_template_process(&t, two_files, 2, "--x \"a<b\"", &doc), 0);
	assert_non_null(strstr(sbuf_str(&doc), "<command_line>--x \"a&lt;b\"</command_line>"));
	assert_null(strstr(sbuf_str(&doc), "-n 5"));

	/* wrong number of files */
	sbuf_reset(&doc);
	assert_int_equal(input_template_process(&t, two_files, 1, NULL, &doc), -1);
	assert_log_has("needs 2 input files, got 1");
	assert_int_equal(doc.len, 0);
	sbuf_release(&doc);
	input_template_release(&t);
}

static void test_input_defaults_merge(void **state)
{
	struct job_params p, over;

	(void)state;
	job_params_boinc_defaults(&p);
	assert_true(p.rsc_fpops_est == 3600e9);
	assert_int_equal(p.delay_bound, 7 * 86400);
	job_params_unset(&over);
	over.target_nresults = 8;
	over.priority = -3;
	job_params_override(&p, &over);
	assert_int_equal(p.min_quorum, 2);
	assert_int_equal(p.priority, -3);
	assert_int_equal(job_params_finish(&p), 0);
	/* max_success and max_total raised to target_nresults, as BOINC does */
	assert_int_equal(p.max_success_results, 8);
	assert_int_equal(p.max_total_results, 10);
	p.min_quorum = 0;
	assert_int_equal(job_params_finish(&p), -1);
	free(take_log());
}

static void test_input_bare_list(void **state)
{
	/* BOINC templates without the wrapper, and file_refs without numbers */
	static const char bare[] =
		"<?xml version=\"1.0\"?>\n"
		"<file_info><number>0</number></file_info>\n"
		"<workunit><file_ref><open_name>in</open_name></file_ref></workunit>\n";
	struct input_template t;
	struct sbuf doc = SBUF_INIT(1 << 20);

	(void)state;
	assert_int_equal(input_template_parse(bare, strlen(bare), "bare", &t), 0);
	assert_int_equal(input_template_process(&t, two_files, 1, NULL, &doc), 0);
	assert_non_null(strstr(sbuf_str(&doc), "<file_name>data_1</file_name>\n<open_name>in</open_name>"));
	assert_null(strstr(sbuf_str(&doc), "<command_line>"));
	sbuf_release(&doc);
	input_template_release(&t);
}

static void expect_input_error(const char *text, const char *msg)
{
	struct input_template t;

	assert_int_equal(input_template_parse(text, strlen(text), "bad_in", &t), -1);
	assert_null(t.files);
	assert_log_has(msg);
}

static void test_input_errors(void **state)
{
	(void)state;
	/* malformed XML: file and line */
	expect_input_error("<input_template>\n<file_info>\n<number>0</number>\n</file_inf>\n"
			   "</input_template>\n", "bad_in:4:");
	/* file_ref to a number that has no file_info */
	expect_input_error("<input_template>\n<file_info><number>0</number></file_info>\n"
			   "<workunit>\n<file_ref>\n<file_number>1</file_number>\n"
			   "<open_name>x</open_name></file_ref></workunit></input_template>",
			   "bad_in:4: file_ref to file number 1, which has no file_info");
	/* duplicate number */
	expect_input_error("<input_template>\n<file_info><number>0</number></file_info>\n"
			   "<file_info><number>0</number></file_info>\n"
			   "<workunit/></input_template>",
			   "bad_in:3: duplicate file_info number 0 (also on line 2)");
	/* bad value */
	expect_input_error("<input_template>\n<workunit>\n<min_quorum>two</min_quorum>\n"
			   "</workunit></input_template>", "bad_in:3: bad <min_quorum> value \"two\"");
	/* no workunit */
	expect_input_error("<input_template>\n<file_info/>\n</input_template>",
			   "input template has no <workunit>");
	/* no open name */
	expect_input_error("<input_template><file_info/>\n<workunit>\n<file_ref>"
			   "<file_number>0</file_number></file_ref></workunit></input_template>",
			   "bad_in:3: file_ref has no <open_name>");
	/* found by fuzz_template: the refused open name leaked (LeakSanitizer) */
	expect_input_error("<input_template><file_info/>\n<workunit>\n<file_ref>"
			   "<open_name>a/b</open_name></file_ref></workunit></input_template>",
			   "bad_in:3: bad <open_name> \"a/b\"");
}

static void test_input_load_missing(void **state)
{
	struct input_template t;
	char *path = xasprintf("%s/nonexistent_in", dir);

	(void)state;
	assert_int_equal(input_template_load(path, &t), -1);
	assert_log_has("nonexistent_in");
	free(path);
}

static const char out_tpl[] =
	"<output_template>\n"
	"  <file_info>\n"
	"    <name><OUTFILE_0/></name>\n"
	"    <generated_locally/>\n"
	"    <upload_when_present/>\n"
	"    <max_nbytes>5000000</max_nbytes>\n"
	"    <url><UPLOAD_URL/></url>\n"
	"  </file_info>\n"
	"  <file_info>\n"
	"    <name><OUTFILE_1/>.state</name>\n"
	"    <generated_locally/>\n"
	"    <max_nbytes>1e9</max_nbytes>\n"
	"    <sticky/>\n"
	"  </file_info>\n"
	"  <result>\n"
	"    <file_ref>\n"
	"      <file_name><OUTFILE_0/></file_name>\n"
	"      <open_name>out</open_name>\n"
	"    </file_ref>\n"
	"    <file_ref>\n"
	"      <file_name><OUTFILE_1/>.state</file_name>\n"
	"      <open_name>state</open_name>\n"
	"      <optional/>\n"
	"    </file_ref>\n"
	"  </result>\n"
	"</output_template>\n";

static void test_result_template(void **state)
{
	struct result_template t;
	struct sbuf doc = SBUF_INIT(1 << 20);
	const char *up = "http://127.0.0.1:8080/p_cgi/file_upload_handler";
	const char *s;

	(void)state;
	assert_int_equal(result_template_parse(out_tpl, strlen(out_tpl), "out", &t), 0);
	assert_int_equal(t.noutfiles, 2);
	assert_int_equal(result_template_process(&t, "wu7_0", up, &doc), 0);
	s = sbuf_str(&doc);
	assert_non_null(strstr(s, "<file_info>\n<name>wu7_0_0</name>\n<generated_locally/>\n"
				  "<upload_when_present/>\n<max_nbytes>5000000</max_nbytes>\n"
				  "<url>http://127.0.0.1:8080/p_cgi/file_upload_handler</url>\n"
				  "</file_info>\n"));
	assert_non_null(strstr(s, "<name>wu7_0_1.state</name>"));
	assert_non_null(strstr(s, "<max_nbytes>1e9</max_nbytes>\n<sticky/>\n"));
	assert_non_null(strstr(s, "<result>\n<file_ref>\n<file_name>wu7_0_0</file_name>\n"
				  "<open_name>out</open_name>\n</file_ref>\n"));
	assert_non_null(strstr(s, "<file_name>wu7_0_1.state</file_name>\n<open_name>state</open_name>\n"
				  "<optional/>\n</file_ref>\n</result>\n"));
	assert_null(strstr(s, "OUTFILE"));
	assert_null(strstr(s, "UPLOAD_URL"));
	assert_null(strstr(s, "output_template"));

	/* another result gets other names from the same parsed template */
	sbuf_reset(&doc);
	assert_int_equal(result_template_process(&t, "wu7_1", up, &doc), 0);
	assert_non_null(strstr(sbuf_str(&doc), "<name>wu7_1_0</name>"));

	/* an upload URL the client would take for a download URL is refused */
	sbuf_reset(&doc);
	assert_int_equal(result_template_process(&t, "wu7_2", "http://h/upload", &doc), -1);
	assert_log_has("file_upload_handler");
	assert_int_equal(doc.len, 0);
	sbuf_release(&doc);
	result_template_release(&t);
}

static void expect_result_error(const char *text, const char *msg)
{
	struct result_template t;

	assert_int_equal(result_template_parse(text, strlen(text), "bad_out", &t), -1);
	assert_null(t.segs);
	assert_log_has(msg);
}

static void test_result_errors(void **state)
{
	(void)state;
	/* no max_nbytes: the client would fail every output */
	expect_result_error("<output_template>\n<file_info>\n<name><OUTFILE_0/></name>\n"
			    "<url><UPLOAD_URL/></url>\n</file_info>\n<result/></output_template>",
			    "bad_out:2: output file_info needs <max_nbytes> above 0");
	expect_result_error("<output_template>\n<file_info><name><OUTFILE_0/></name>"
			    "<max_nbytes>0</max_nbytes></file_info><result/></output_template>",
			    "needs <max_nbytes> above 0");
	/* a fixed name would collide between results */
	expect_result_error("<output_template>\n<file_info>\n<name>out.txt</name>"
			    "<max_nbytes>10</max_nbytes></file_info><result/></output_template>",
			    "bad_out:3: output file name \"out.txt\" has no <OUTFILE_i/>");
	/* text before <OUTFILE_i/>: the upload handler could not find the result */
	expect_result_error("<output_template>\n<file_info>\n<name>out_<OUTFILE_0/></name>"
			    "<max_nbytes>10</max_nbytes></file_info><result/></output_template>",
			    "bad_out:3: output file name must start with <OUTFILE_i/>");
	/* a non-upload URL */
	expect_result_error("<output_template>\n<file_info><name><OUTFILE_0/></name>"
			    "<max_nbytes>10</max_nbytes>\n<url>http://h/x</url></file_info>"
			    "<result/></output_template>", "bad_out:3: output <url>");
	/* a file_ref to an unknown file */
	expect_result_error("<output_template>\n<file_info><name><OUTFILE_0/></name>"
			    "<max_nbytes>10</max_nbytes></file_info>\n<result>\n<file_ref>\n"
			    "<file_name><OUTFILE_1/></file_name><open_name>o</open_name>"
			    "</file_ref></result></output_template>",
			    "bad_out:5: result file_ref to a file with no <file_info>");
	/* unknown placeholder, malformed XML */
	expect_result_error("<output_template>\n<file_info><name><OUTFILE_0/></name>"
			    "<max_nbytes>10</max_nbytes>\n<x><WU_NAME/></x></file_info>\n"
			    "<result/></output_template>", "bad_out:3: unknown placeholder <WU_NAME/>");
	expect_result_error("<output_template>\n<result>\n</output_template>\n", "bad_out:4: Premature end");
	expect_result_error("<output_template>\n<file_info/>\n</output_template>\n",
			    "bad_out:2: output file_info has no <name>");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_two_files),
		cmocka_unit_test(test_input_defaults_merge),
		cmocka_unit_test(test_input_bare_list),
		cmocka_unit_test(test_input_errors),
		cmocka_unit_test(test_input_load_missing),
		cmocka_unit_test(test_result_template),
		cmocka_unit_test(test_result_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
