/* Unit tests for parameter tables and config.xml reading. */
#include "unit.h"
#include "config.h"
#include "log.h"
#include "sbuf.h"

#include <sys/stat.h>

static char dir[64];
static char logpath[96];

static int setup(void **state)
{
	wstrlcpy(dir, "/tmp/wseq-config-XXXXXX", sizeof(dir));
	assert_non_null(mkdtemp(dir));
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	log_init("unit", logpath);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	log_close();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static char *write_config(const char *text)
{
	char *path = xasprintf("%s/config.xml", dir);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
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
	return sbuf_detach(&b, NULL);
}

struct prog_settings {
	long sleep_s;
	double ratio;
	char *mode;
	bool fast;
};

static const struct param prog_params[] = {
	{ "sleep", PARAM_INT, offsetof(struct prog_settings, sleep_s), "5", PARAM_BOUNDED, 1, 3600, "S", "sleep" },
	{ "ratio", PARAM_DOUBLE, offsetof(struct prog_settings, ratio), "0.5", 0, 0, 0, "R", "ratio" },
	{ "mode", PARAM_STR, offsetof(struct prog_settings, mode), "plain", 0, 0, 0, "M", "mode" },
	{ "fast", PARAM_BOOL, offsetof(struct prog_settings, fast), "0", 0, 0, 0, NULL, "go fast" },
	PARAM_TABLE_END
};

static void test_good_config(void **state)
{
	char *path = write_config(
		"<?xml version=\"1.0\"?>\n"
		"<boinc>\n"
		"  <config>\n"
		"    <master_url>http://127.0.0.1:8080/test</master_url>\n"
		"    <db_name>test</db_name>\n"
		"    <db_user>wseq</db_user>\n"
		"    <db_passwd>s3cr3t-passw0rd</db_passwd>\n"
		"    <db_port>3307</db_port>\n"
		"    <uldl_dir_fanout>16</uldl_dir_fanout>\n"
		"    <upload_dir>up</upload_dir>\n"
		"    <key_dir>/etc/wseq/keys</key_dir>\n"
		"    <sleep>30</sleep>\n"
		"    <fast/>\n"
		"    <someone_elses_option>x</someone_elses_option>\n"
		"  </config>\n"
		"  <daemons>\n"
		"    <daemon><cmd>transitioner -d 3</cmd></daemon>\n"
		"    <daemon><cmd>validator --app x</cmd><output>v.log</output><disabled>1</disabled></daemon>\n"
		"  </daemons>\n"
		"  <tasks>\n"
		"    <task><cmd>db_dump</cmd><period>1 day</period></task>\n"
		"  </tasks>\n"
		"</boinc>\n");
	struct project_config c;
	struct prog_settings s = { 0 };
	char *expect;

	assert_int_equal(config_load(&c, path, prog_params, &s), 0);
	assert_string_equal(c.master_url, "http://127.0.0.1:8080/test/");
	assert_string_equal(c.db_name, "test");
	assert_string_equal(c.db_host, "localhost");
	assert_int_equal(c.db_port, 3307);
	assert_int_equal(c.uldl_dir_fanout, 16);
	expect = xasprintf("%s/up", c.project_dir);
	assert_string_equal(c.upload_dir, expect);
	free(expect);
	assert_string_equal(c.key_dir, "/etc/wseq/keys");
	expect = xasprintf("%s/download", c.project_dir);
	assert_string_equal(c.download_dir, expect);
	free(expect);
	assert_string_equal(c.download_url, "http://127.0.0.1:8080/test/download");
	assert_int_equal(s.sleep_s, 30);
	assert_true(s.ratio == 0.5);
	assert_string_equal(s.mode, "plain");
	assert_true(s.fast);
	assert_int_equal(c.ndaemons, 2);
	assert_string_equal(c.daemons[0].cmd, "transitioner -d 3");
	assert_false(c.daemons[0].disabled);
	assert_string_equal(c.daemons[1].output, "v.log");
	assert_true(c.daemons[1].disabled);
	assert_int_equal(c.ntasks, 1);
	assert_int_equal(c.tasks[0].period, 86400);
	/* the program's own settings are not "ignored"; an unknown element is */
	assert_int_equal(c.nignored, 1);
	assert_string_equal(c.ignored[0].name, "someone_elses_option");
	assert_int_equal(c.ignored[0].line, 14);
	assert_false(c.ignored[0].upstream);
	/* the password is registered as a secret: it never reaches the log */
	log_info("connecting with %s", c.db_passwd);
	expect = take_log();
	assert_null(strstr(expect, "s3cr3t-passw0rd"));
	free(expect);
	config_release(&c);
	param_free(prog_params, &s);
	free(path);
}

static void test_malformed_names_file_and_line(void **state)
{
	char *path = write_config("<boinc>\n<config>\n<db_name>x</db_name>\n<master_url>http://a.b/</oops>\n</config>\n</boinc>\n");
	struct project_config c;
	char *log;

	assert_int_equal(config_load(&c, path, NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "config.xml:4:"));
	free(log);
	config_release(&c);
	free(path);
}

static void test_missing_required_is_named(void **state)
{
	char *path = write_config("<boinc>\n<config>\n<master_url>http://a.b/</master_url>\n</config>\n</boinc>\n");
	struct project_config c;
	char *log;

	assert_int_equal(config_load(&c, path, NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "required option db_name is missing"));
	assert_non_null(strstr(log, "config.xml"));
	free(log);
	config_release(&c);
	free(path);
}

static void test_bad_values_are_named_with_line(void **state)
{
	char *path = write_config("<boinc>\n<config>\n<master_url>http://a.b/</master_url>\n"
				  "<db_name>x</db_name>\n<uldl_dir_fanout>many</uldl_dir_fanout>\n"
				  "<sleep>99999</sleep>\n</config>\n"
				  "<daemons><daemon><output>x</output></daemon></daemons>\n</boinc>\n");
	struct project_config c;
	struct prog_settings s = { 0 };
	char *log;

	assert_int_equal(config_load(&c, path, prog_params, &s), -1);
	log = take_log();
	assert_non_null(strstr(log, "config.xml:5: uldl_dir_fanout needs a whole number (got 'many')"));
	assert_non_null(strstr(log, "config.xml:6: sleep must be between 1 and 3600"));
	assert_non_null(strstr(log, "config.xml:8: <daemon> without <cmd>"));
	free(log);
	config_release(&c);
	param_free(prog_params, &s);
	free(path);
}

static void test_wrong_root_and_missing_file(void **state)
{
	char *path = write_config("<config><db_name>x</db_name></config>\n");
	struct project_config c;
	char *log;

	assert_int_equal(config_load(&c, path, NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "the root element must be <boinc>"));
	free(log);
	config_release(&c);
	assert_int_equal(config_load(&c, "/nonexistent/config.xml", NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "/nonexistent/config.xml"));
	free(log);
	config_release(&c);
	free(path);
}

static void test_bad_master_url(void **state)
{
	char *path = write_config("<boinc><config><db_name>x</db_name><master_url>ftp://x/</master_url></config></boinc>");
	struct project_config c;
	char *log;

	assert_int_equal(config_load(&c, path, NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "master_url must start with http://"));
	free(log);
	config_release(&c);
	free(path);
}

/* An empty directory element would leave the path relative to wherever a
 * daemon runs (found by fuzz_config): it is an error naming the element. */
static void test_empty_dir_is_named(void **state)
{
	char *path = write_config("<boinc><config><master_url>http://x/</master_url><db_name>x</db_name>"
				  "<upload_dir></upload_dir></config></boinc>");
	struct project_config c;
	char *log;

	assert_int_equal(config_load(&c, path, NULL, NULL), -1);
	log = take_log();
	assert_non_null(strstr(log, "<upload_dir> is empty"));
	free(log);
	config_release(&c);
	free(path);
}

static void test_periods(void **state)
{
	assert_int_equal(config_parse_period("5"), 300);       /* minutes, as upstream */
	assert_int_equal(config_parse_period("3600 s"), 3600);
	assert_int_equal(config_parse_period("1 month"), 2592000);
	assert_int_equal(config_parse_period("1 hour"), 3600);
	assert_int_equal(config_parse_period("30 min"), 1800);
	assert_int_equal(config_parse_period("2 days"), 172800);
	assert_int_equal(config_parse_period("1 fortnight"), -1);
	assert_int_equal(config_parse_period(""), -1);
	assert_int_equal(config_parse_period("-5"), -1);
}

static void test_parse_args(void **state)
{
	struct prog_settings s = { 0 };
	char *argv1[] = { "prog", "--sleep", "7", "--mode=fancy", "--fast", "--ratio", "2.5", "file", "--sleep", "9", NULL };
	char *argv2[] = { "prog", "--nope", NULL };
	char *argv3[] = { "prog", "--sleep", NULL };
	char *argv4[] = { "prog", "--sleep", "0", NULL };
	char *argv5[] = { "prog", "-h", NULL };
	char *log;

	param_set_defaults(prog_params, &s);
	assert_int_equal(param_parse_args(prog_params, &s, 10, argv1), 7);
	assert_int_equal(s.sleep_s, 7);
	assert_string_equal(s.mode, "fancy");
	assert_true(s.fast);
	assert_true(s.ratio == 2.5);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv2), -1);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv3), -1);
	assert_int_equal(param_parse_args(prog_params, &s, 3, argv4), -1);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv5), -2);
	log = take_log();
	assert_non_null(strstr(log, "unknown option --nope"));
	assert_non_null(strstr(log, "option --sleep needs a value"));
	assert_non_null(strstr(log, "--sleep: sleep must be between 1 and 3600 (got 0)"));
	free(log);
	param_free(prog_params, &s);
}

/* Upstream's single-dash spelling: names of the table only; "-" and "-x" stay arguments. */
static void test_parse_args_single_dash(void **state)
{
	struct prog_settings s = { 0 };
	char *argv1[] = { "prog", "-sleep", "7", "-mode=fancy", "-fast", "file", NULL };
	char *argv2[] = { "prog", "-", NULL };
	char *argv3[] = { "prog", "-x", NULL };
	char *argv4[] = { "prog", "-nope", NULL };

	param_set_defaults(prog_params, &s);
	assert_int_equal(param_parse_args(prog_params, &s, 6, argv1), 5);
	assert_int_equal(s.sleep_s, 7);
	assert_string_equal(s.mode, "fancy");
	assert_true(s.fast);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv2), 1);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv3), 1);
	assert_int_equal(param_parse_args(prog_params, &s, 2, argv4), 1);
	param_free(prog_params, &s);
}

/* A dash in an option's name is read as an underscore: --max-starts is --max_starts. */
static void test_parse_args_dash_is_underscore(void **state)
{
	static const struct param t[] = {
		{ "max_starts", PARAM_INT, offsetof(struct prog_settings, sleep_s), "1", 0, 0, 0, "N", "" },
		{ "keep_server", PARAM_BOOL, offsetof(struct prog_settings, fast), "0", 0, 0, 0, NULL, "" },
		PARAM_TABLE_END
	};
	struct prog_settings s = { 0 };
	char *argv1[] = { "prog", "--max-starts", "4", "--keep-server", "x", NULL };
	char *argv2[] = { "prog", "--max_starts=6", "-max-starts", "7", NULL };

	(void)state;
	param_set_defaults(t, &s);
	assert_int_equal(param_parse_args(t, &s, 5, argv1), 4);
	assert_int_equal(s.sleep_s, 4);
	assert_true(s.fast);
	assert_int_equal(param_parse_args(t, &s, 4, argv2), 4);
	assert_int_equal(s.sleep_s, 7);
	assert_ptr_equal(param_find_option(t, "max-starts=9"), &t[0]);
	assert_ptr_equal(param_find_option(t, "keep_server"), &t[1]);
	assert_null(param_find_option(t, "max-start"));
	assert_null(param_find_option(NULL, "max_starts"));
}

/* param_split_args()'s own(): takes "-x N" (one value) and fails on "-bad". */
static int split_own(void *arg, int argc, char **argv, int *i)
{
	int *took = arg;

	if (!strcmp(argv[*i], "-bad"))
		return -1;
	if (strcmp(argv[*i], "-x") || *i + 1 >= argc)
		return 0;
	++*i;
	++*took;
	return 1;
}

static void assert_argv(char **v, int n, const char *const *want)
{
	int k;

	for (k = 0; k < n; k++)
		assert_string_equal(v[k], want[k]);
	assert_null(v[n]);
}

/*
 * A skeleton's split: own() first, then each word (and its value) to the
 * first table naming it, else to the last vector with "--" and all after.
 */
static void test_split_args(void **state)
{
	static const struct param first[] = {
		{ "sleep", PARAM_INT, 0, NULL, 0, 0, 0, "N", "" },
		{ "fast", PARAM_BOOL, 0, NULL, 0, 0, 0, NULL, "" },
		PARAM_TABLE_END
	};
	static const char *const want0[] = { "p", "--sleep", "3", "-fast", "--sleep=4" };
	static const char *const want1[] = { "p", "--mode", "m", "arg", "--other", "--", "-x", "1" };
	char *argv1[] = { "p", "--sleep", "3", "--mode", "m", "-x", "9", "arg", "-fast",
			  "--other", "--sleep=4", "--", "-x", "1", NULL };
	char *argv2[] = { "p", "a", "--help", "b", NULL };
	char *argv3[] = { "p", "-bad", NULL };
	char *v0[16], *v1[16];
	struct param_argv out[] = { { .t = first, .v = v0 }, { .t = prog_params, .v = v1 } };
	int took = 0;

	(void)state;
	assert_int_equal(param_split_args(14, argv1, out, 2, split_own, &took), 0);
	assert_int_equal(took, 1);
	assert_int_equal(out[0].n, 5);
	assert_argv(v0, 5, want0);
	assert_int_equal(out[1].n, 8);
	assert_argv(v1, 8, want1);
	/* options anywhere: the arguments a vector of their own, unknown options with the options */
	{
		char *argv4[] = { "p", "f1", "--sleep", "2", "--nope", "f2", "-x", "--", "--fast", NULL };
		static const char *const want2[] = { "p", "--sleep", "2", "--nope" };
		static const char *const want3[] = { "p", "f1", "f2", "-x", "--", "--fast" };
		struct param_argv any[] = { { .t = first, .v = v0, .unknown = true }, { .v = v1 } };

		assert_int_equal(param_split_args(9, argv4, any, 2, NULL, NULL), 0);
		assert_int_equal(any[0].n, 4);
		assert_argv(v0, 4, want2);
		assert_int_equal(any[1].n, 6);
		assert_argv(v1, 6, want3);
		assert_int_equal(any[1].after_dashdash, 5);
		/* drop_dashdash: the "--" left out, where the words after it begin said */
		any[1].drop_dashdash = true;
		assert_int_equal(param_split_args(9, argv4, any, 2, NULL, NULL), 0);
		assert_int_equal(any[1].n, 5);
		assert_string_equal(v1[4], "--fast");
		assert_int_equal(any[1].after_dashdash, 4);
		/* none: after_dashdash is n */
		assert_int_equal(param_split_args(7, argv4, any, 2, NULL, NULL), 0);
		assert_int_equal(any[1].after_dashdash, any[1].n);
	}
	assert_int_equal(param_split_args(4, argv2, out, 2, NULL, NULL), 1);
	assert_int_equal(param_split_args(2, argv3, out, 2, split_own, &took), -1);
}

/* A PARAM_IN_ARGS option stays among the arguments, in its place, with its values. */
static void test_split_in_args(void **state)
{
	static const struct param t[] = {
		{ "sleep", PARAM_INT, 0, NULL, 0, 0, 0, "N", "" },
		{ "remote", PARAM_STR, 0, NULL, PARAM_IN_ARGS, 0, 0, "URL  NBYTES MD5", "" },
		PARAM_TABLE_END
	};
	char *argv[] = { "p", "f1", "--remote", "u", "9", "m", "--sleep", "2", "f2",
			 "-remote", "u2", NULL };
	static const char *const want0[] = { "p", "--sleep", "2" };
	static const char *const want1[] = { "p", "f1", "--remote", "u", "9", "m", "f2",
					     "-remote", "u2" };
	char *v0[16], *v1[16];
	struct param_argv out[] = { { .t = t, .v = v0, .unknown = true }, { .v = v1 } };

	(void)state;
	assert_int_equal(param_nvalues(&t[1]), 3);
	assert_int_equal(param_nvalues(&t[0]), 1);
	assert_int_equal(param_split_args(11, argv, out, 2, NULL, NULL), 0);
	assert_int_equal(out[0].n, 3);
	assert_argv(v0, 3, want0);
	/* the last one runs out of values: what there is stays, for the caller to refuse */
	assert_int_equal(out[1].n, 9);
	assert_argv(v1, 9, want1);
}

static void test_config_names(void **state)
{
	static const struct param unlisted[] = {
		{ "sleep", PARAM_INT, 0, NULL, 0, 0, 0, NULL, NULL },
		PARAM_TABLE_END
	};
	char *log;

	assert_true(config_names_valid());
	assert_int_equal(config_name_kind("max_wus_to_send"), CONFIG_NAME_WSEQ);
	assert_int_equal(config_name_kind("shmem_key"), CONFIG_NAME_UPSTREAM);
	assert_int_equal(config_name_kind("max_wus_to_sned"), CONFIG_NAME_UNKNOWN);
	/* every setting wseq reads from config.xml is listed */
	assert_int_equal(config_names_check(project_params), 0);
	assert_int_equal(config_names_check(unlisted), -1);
	log = take_log();
	assert_non_null(strstr(log, "<sleep> is read from config.xml but not listed"));
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_config),
		cmocka_unit_test(test_malformed_names_file_and_line),
		cmocka_unit_test(test_missing_required_is_named),
		cmocka_unit_test(test_bad_values_are_named_with_line),
		cmocka_unit_test(test_wrong_root_and_missing_file),
		cmocka_unit_test(test_bad_master_url),
		cmocka_unit_test(test_empty_dir_is_named),
		cmocka_unit_test(test_periods),
		cmocka_unit_test(test_parse_args),
		cmocka_unit_test(test_parse_args_single_dash),
		cmocka_unit_test(test_parse_args_dash_is_underscore),
		cmocka_unit_test(test_split_args),
		cmocka_unit_test(test_split_in_args),
		cmocka_unit_test(test_config_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
