/* Unit tests for the rule of what a job's text may choose on a host (lib/exec_rule.c). */
#include "unit.h"
#include "exec_rule.h"
#include "log.h"

static void test_cmdline(void **state)
{
	(void)state;
	assert_null(exec_rule_cmdline(NULL));
	assert_null(exec_rule_cmdline(""));
	assert_null(exec_rule_cmdline("-n 3 --steps 40 'a b' job_file.dat"));
	assert_non_null(exec_rule_cmdline("--job_file in"));
	assert_non_null(exec_rule_cmdline("x --job_file=in"));
	/* however the client or the wrapper would group or escape the words */
	assert_non_null(exec_rule_cmdline("\"--job_file\" in"));
	assert_non_null(exec_rule_cmdline("--job'_'file in"));
	assert_non_null(exec_rule_cmdline("--job\\_file in"));
	assert_non_null(exec_rule_cmdline("a\"\"--job_file\"\" in"));
}

static void test_open_names(void **state)
{
	(void)state;
	assert_null(exec_rule_open_name("in", false));
	assert_null(exec_rule_open_name("state_in", false));
	assert_non_null(exec_rule_open_name("job.xml", false));
	assert_non_null(exec_rule_open_name("", false));
	assert_non_null(exec_rule_open_name("..", false));
	assert_non_null(exec_rule_open_name(".", false));
	assert_non_null(exec_rule_open_name("/etc/passwd", false));
	assert_non_null(exec_rule_open_name("../x", false));
	/* a submitter's own names: also the client's and the wrapper's are out */
	assert_null(exec_rule_open_name("params", true));
	assert_null(exec_rule_open_name(EXEC_OPEN_NAME, true));
	assert_non_null(exec_rule_open_name("job.xml", true));
	assert_non_null(exec_rule_open_name("init_data.xml", true));
	assert_non_null(exec_rule_open_name("wrapper_checkpoint.txt", true));
	assert_non_null(exec_rule_open_name(".hidden", true));
	assert_non_null(exec_rule_open_name("-rf", true));
}

static int doc(const char *xml, bool any_exec, const char *want)
{
	struct sbuf why = SBUF_INIT(4096);
	int rc = exec_rule_wu_doc(xml, any_exec, &why);

	if (want)
		assert_non_null(strstr(sbuf_str(&why), want));
	sbuf_release(&why);
	return rc;
}

static void test_wu_doc(void **state)
{
	static const char ok[] =
		"<file_info><name>abc.dat</name><url>http://x/abc.dat</url></file_info>\n"
		"<workunit>\n<file_ref><file_name>abc.dat</file_name><open_name>in</open_name>"
		"</file_ref>\n<command_line>-n 3</command_line>\n</workunit>\n";

	(void)state;
	assert_int_equal(doc(ok, false, NULL), 0);
	assert_int_equal(doc("<workunit><command_line>--job_file in</command_line></workunit>",
			     false, "its command line names the wrapper's option --job_file"), -1);
	/* entities are what the client reads */
	assert_int_equal(doc("<workunit><command_line>&#45;-job_file in</command_line></workunit>",
			     false, "--job_file"), -1);
	assert_int_equal(doc("<workunit><file_ref><file_name>a</file_name><open_name>job.xml"
			     "</open_name></file_ref></workunit>", false, "input file open name "
			     "'job.xml' is the wrapper's job file"), -1);
	/* no open name: the client opens the file by its own name */
	assert_int_equal(doc("<workunit><file_ref><file_name>job.xml</file_name></file_ref>"
			     "</workunit>", false, "'job.xml'"), -1);
	assert_int_equal(doc("<file_info><name>p</name><executable/></file_info><workunit/>", false,
			     "input file 'p' is marked executable"), -1);
	assert_int_equal(doc("<workunit><command_line>x</command_line>", false,
			     "does not parse"), -1);
	/* an any_executable app's job of a submitter with the right */
	assert_int_equal(doc("<file_info><name>p</name><executable/></file_info><workunit>"
			     "<file_ref><file_name>p</file_name><open_name>wseq_exec</open_name>"
			     "<copy_file/></file_ref><command_line>--job_file x</command_line>"
			     "</workunit>", true, NULL), 0);
	assert_int_equal(doc("<workunit><file_ref><file_name>p</file_name><open_name>job.xml"
			     "</open_name></file_ref></workunit>", true, "job.xml"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_open_names),
		cmocka_unit_test(test_wu_doc),
	};

	log_init("test_exec_rule", NULL);
	log_set_level(0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
