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
	sbuf_free(&s);
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
	sbuf_free(&s);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_plain_and_runs_of_spaces),
		cmocka_unit_test(test_split_unescapes),
		cmocka_unit_test(test_split_refuses_a_lone_final_backslash),
		cmocka_unit_test(test_escape_round_trip),
		cmocka_unit_test(test_error_is_one_token_without_the_authenticator),
		cmocka_unit_test(test_reqids_and_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
