/* Unit tests for boinc_gahp's line grammar: splitting, escaping, one-token errors. */
#include "unit.h"
#include "boinc_gahp.h"

static int split(const char *text, char ***argv, char **buf)
{
	*buf = xstrdup(text);
	return gahp_split(*buf, argv);
}

static void test_split_plain_and_runs_of_spaces(void **state)
{
	char **v, *b;

	assert_int_equal(split("  BOINC_PING   12 ", &v, &b), 2);
	assert_string_equal(v[0], "BOINC_PING");
	assert_string_equal(v[1], "12");
	assert_null(v[2]);
	free(v);
	free(b);
	assert_int_equal(split("", &v, &b), 0);
	free(v);
	free(b);
}

static void test_split_unescapes(void **state)
{
	char **v, *b;

	assert_int_equal(split("a\\ b c\\\\d \\\\ e\\x \\ ", &v, &b), 5);
	assert_string_equal(v[0], "a b");
	assert_string_equal(v[1], "c\\d");
	assert_string_equal(v[2], "\\");
	assert_string_equal(v[3], "ex");
	assert_string_equal(v[4], " ");
	free(v);
	free(b);
}

static void test_split_refuses_a_lone_final_backslash(void **state)
{
	char **v = NULL, *b;

	assert_int_equal(split("QUIT a\\", &v, &b), -1);
	assert_null(v);
	free(b);
}

static void test_escape_round_trip(void **state)
{
	struct sbuf s = SBUF_INIT(1000);
	const char *orig = "a b\\c\r\nd";
	char **v, *b;

	gahp_escape(&s, orig);
	assert_string_equal(sbuf_str(&s), "a\\ b\\\\c\\\r\\\nd");
	assert_int_equal(split(sbuf_str(&s), &v, &b), 1);
	assert_string_equal(v[0], orig);
	free(v);
	free(b);
	sbuf_release(&s);
}

static void test_error_is_one_token_without_the_authenticator(void **state)
{
	struct sbuf s = SBUF_INIT(1000);
	char **v, *b;

	gahp_error(&s, "sekrit0123456", "bad authenticator sekrit0123456\nsee %s ", "log");
	assert_null(strstr(sbuf_str(&s), "sekrit"));
	assert_int_equal(split(sbuf_str(&s), &v, &b), 1);
	assert_string_equal(v[0], "bad authenticator ************* see log");
	free(v);
	free(b);
	sbuf_release(&s);
}

static void test_reqids_and_counts(void **state)
{
	long n;

	assert_true(gahp_is_reqid("2"));
	assert_true(gahp_is_reqid("0001"));
	assert_false(gahp_is_reqid("0"));
	assert_false(gahp_is_reqid("-3"));
	assert_false(gahp_is_reqid("12a"));
	assert_false(gahp_is_reqid(""));
	assert_false(gahp_is_reqid("1234567890123456789"));
	assert_int_equal(gahp_parse_count("0", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(gahp_parse_count("10000", &n), 0);
	assert_int_equal(n, 10000);
	assert_int_equal(gahp_parse_count("-1", &n), -1);
	assert_int_equal(gahp_parse_count("1e3", &n), -1);
	assert_int_equal(gahp_parse_count("1234567890", &n), -1);
}

static void test_wants_say_why(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	double v;
	long n;

	(void)state;
	assert_int_equal(gahp_want_args(2, 3, false, "X ID BATCH", &why), -1);
	assert_string_equal(sbuf_str(&why), "too few arguments: want X ID BATCH");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_args(5, 3, true, "X ID JOB...", &why), 0);
	assert_int_equal(gahp_want_args(4, 3, false, "X ID BATCH", &why), -1);
	assert_string_equal(sbuf_str(&why), "too many arguments: want X ID BATCH");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_reqid("0", &why), -1);
	assert_string_equal(sbuf_str(&why), "request id '0' is not 1 to 18 digits, not all zero");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_count("NJOBS", "1e3", &n, &why), -1);
	assert_string_equal(sbuf_str(&why), "NJOBS '1e3' is not a count (1 to 9 digits)");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_number("LEASE", "NULL", 10, true, &v, &why), 0);
	assert_true(v == 0);
	assert_int_equal(gahp_want_number("LEASE", "NULL", 10, false, &v, &why), -1);
	assert_string_equal(sbuf_str(&why), "LEASE: 'NULL' is not a number");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_number("LEASE", "inf", 10, false, &v, &why), -1);
	assert_string_equal(sbuf_str(&why), "LEASE: inf is outside [0, 10]");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_number("LEASE", "nan", 10, false, &v, &why), -1);
	assert_string_equal(sbuf_str(&why), "LEASE: 'nan' is not a number");
	sbuf_reset(&why);
	assert_int_equal(gahp_want_number("LEASE", "1e999", 10, false, &v, &why), -1);
	assert_int_equal(gahp_want_number("LEASE", "-1", 10, false, &v, &why), -1);
	assert_int_equal(gahp_want_number("LEASE", "2.5", 10, false, &v, &why), 0);
	assert_true(v == 2.5);
	sbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_plain_and_runs_of_spaces),
		cmocka_unit_test(test_split_unescapes),
		cmocka_unit_test(test_split_refuses_a_lone_final_backslash),
		cmocka_unit_test(test_escape_round_trip),
		cmocka_unit_test(test_error_is_one_token_without_the_authenticator),
		cmocka_unit_test(test_reqids_and_counts),
		cmocka_unit_test(test_wants_say_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
