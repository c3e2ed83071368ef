/* Unit tests for bounded values from untrusted text (lib/field.c). */
#include "unit.h"
#include "field.h"

#include <math.h>

static void test_double_in_range(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	double d = -1;

	assert_int_equal(field_double("x", " 2.5e3\n", 0, 1e4, 0, &d, &why), FIELD_OK);
	assert_true(d == 2500);
	assert_int_equal(why.len, 0);
	sbuf_release(&why);
}

static void test_double_not_finite_or_junk(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	double d = 7;

	assert_int_equal(field_double("p_fpops", "nan", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_BAD);
	assert_true(d == 7);
	assert_non_null(strstr(sbuf_str(&why), "p_fpops: 'nan' is not a number"));
	sbuf_reset(&why);
	assert_int_equal(field_double("p_fpops", "inf", 0, 1e15, 0, &d, &why), FIELD_BAD);
	assert_non_null(strstr(sbuf_str(&why), "p_fpops: inf is outside"));
	sbuf_reset(&why);
	assert_int_equal(field_double("p_fpops", "-inf", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_FIXED);
	assert_true(d == 0);
	assert_int_equal(field_double("p_fpops", "1e999", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_FIXED);
	assert_true(d == 1e15);
	assert_int_equal(field_double("p_fpops", "0x10", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_BAD);
	assert_int_equal(field_double("p_fpops", "12abc", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_BAD);
	assert_int_equal(field_double("p_fpops", "", 0, 1e15, FIELD_CLAMP, &d, &why), FIELD_BAD);
	assert_int_equal(field_double("p_fpops", NULL, 0, 1e15, FIELD_CLAMP, &d, NULL), FIELD_BAD);
	sbuf_release(&why);
}

static void test_int_never_casts_out_of_range(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	int i = 0;
	int64_t l = 0;

	assert_int_equal(field_int("exit_status", "1e300", INT_MIN, INT_MAX, FIELD_CLAMP, &i, &why),
			 FIELD_FIXED);
	assert_int_equal(i, INT_MAX);
	assert_int_equal(field_int("exit_status", "-1e300", INT_MIN, INT_MAX, FIELD_CLAMP, &i, &why),
			 FIELD_FIXED);
	assert_int_equal(i, INT_MIN);
	assert_int_equal(field_int("exit_status", "99999999999", INT_MIN, INT_MAX, 0, &i, &why), FIELD_BAD);
	assert_int_equal(i, INT_MIN);
	assert_int_equal(field_int64("hostid", "9223372036854775807", 0, INT64_MAX, 0, &l, &why), FIELD_OK);
	assert_true(l == INT64_MAX);
	assert_int_equal(field_int64("hostid", "9.3e18", 0, INT64_MAX, FIELD_CLAMP, &l, &why), FIELD_FIXED);
	assert_true(l == INT64_MAX);
	assert_int_equal(field_int64("hostid", "1e3", 0, INT64_MAX, 0, &l, &why), FIELD_OK);
	assert_true(l == 1000);
	assert_int_equal(field_int("state", "2.5", 0, 10, FIELD_CLAMP, &i, &why), FIELD_FIXED);
	assert_int_equal(i, 2);
	assert_int_equal(field_int("state", "3.5", 0, 10, 0, &i, &why), FIELD_BAD);
	assert_int_equal(i, 2);
	assert_true(field_clamp_i64(1e300, 0, 10) == 10);
	assert_true(field_clamp_i64(-1e300, 0, 10) == 0);
	assert_true(field_clamp_i64(NAN, -5, 10) == -5);
	assert_true(field_clamp_i64(9.3e18, INT64_MIN, INT64_MAX) == INT64_MAX);
	sbuf_release(&why);
}

static void test_str_cut_on_character_boundary(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	char *s = NULL;

	/* "aé" then "ü": three characters, five bytes; a two-character limit keeps "aé" */
	assert_int_equal(field_str("domain_name", "a\xc3\xa9\xc3\xbc", 2, FIELD_CUT, &s, &why), FIELD_FIXED);
	assert_string_equal(s, "a\xc3\xa9");
	assert_non_null(strstr(sbuf_str(&why), "domain_name: longer than 2 characters; cut"));
	free(s);
	s = NULL;
	assert_int_equal(field_str("name", "abc", 2, 0, &s, &why), FIELD_BAD);
	assert_null(s);
	assert_int_equal(field_str("name", "ab", 2, 0, &s, NULL), FIELD_OK);
	assert_string_equal(s, "ab");
	free(s);
	sbuf_release(&why);
}

static void test_str_bad_bytes(void **state)
{
	struct sbuf why = SBUF_INIT(1024);
	char *s = NULL;

	/* an overlong '/', a surrogate, U+FFFE, a lone continuation byte, a control character */
	static const char *const bad[] = { "\xc0\xaf", "\xed\xa0\x80", "\xef\xbf\xbe", "\x80", "a\x01" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(field_str("os_name", bad[i], 100, 0, &s, &why), FIELD_BAD);
		assert_false(field_text_ok(bad[i], strlen(bad[i]), true));
	}
	assert_int_equal(field_str("os_name", "x\xc0\xafy\n", 100, FIELD_CLEAN, &s, &why), FIELD_FIXED);
	assert_string_equal(s, "x??y?");
	free(s);
	assert_int_equal(field_str("stderr", "x\ty\n", 100, FIELD_MULTILINE, &s, &why), FIELD_OK);
	assert_string_equal(s, "x\ty\n");
	free(s);
	assert_true(field_text_ok("\xf0\x9f\x98\x80 ok", 7, false));
	sbuf_release(&why);
}

static void test_quote(void **state)
{
	struct sbuf q = SBUF_INIT(1024);

	field_quote(&q, "a\nb\\c", 10);
	assert_string_equal(sbuf_str(&q), "a\\x0ab\\x5cc");
	sbuf_reset(&q);
	field_quote(&q, "abcdef", 3);
	assert_string_equal(sbuf_str(&q), "abc...");
	/* found by fuzz_upload: raw 0xff in a quoted name made the upload reply not XML */
	sbuf_reset(&q);
	field_quote(&q, "r\xff\xc3\xa9\xed\xa0\x80x", 20);
	assert_string_equal(sbuf_str(&q), "r\\xff\xc3\xa9\\xed\\xa0\\x80x");
	assert_true(field_text_ok(sbuf_str(&q), q.len, false));
	sbuf_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double_in_range),
		cmocka_unit_test(test_double_not_finite_or_junk),
		cmocka_unit_test(test_int_never_casts_out_of_range),
		cmocka_unit_test(test_str_cut_on_character_boundary),
		cmocka_unit_test(test_str_bad_bytes),
		cmocka_unit_test(test_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
