/* Unit tests for the sample per-result check (daemons/validate_sample.c). */
#include "unit.h"
#include "validate.h"
#include "validate_sample.h"

#include <unistd.h>

static char path[] = "/tmp/test_validate_sample.XXXXXX";

/* The sample's verdict on a file holding text, with --check_arg arg. */
static int verdict(const char *text, size_t len, const char *arg, char *why, size_t whylen)
{
	struct sample_limits lim;
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sample_limits_parse(arg, &lim), 0);
	why[0] = 0;
	return sample_check_file(path, &lim, why, whylen);
}

#define V(text, arg) verdict(text, strlen(text), arg, why, sizeof(why))

static void test_numbers(void **state)
{
	char why[160];

	(void)state;
	assert_int_equal(V("1 2.5 -3e2\n4\t5", NULL), VALIDATE_CHECK_VALID);
	assert_int_equal(V("", NULL), VALIDATE_CHECK_VALID);
	assert_int_equal(V("1 nan 3", NULL), VALIDATE_CHECK_INVALID);
	assert_string_equal(why, "\"nan\" is not a finite number");
	assert_int_equal(V("NaN", NULL), VALIDATE_CHECK_INVALID);
	assert_int_equal(V("1 inf", NULL), VALIDATE_CHECK_INVALID);
	assert_int_equal(V("-Infinity", NULL), VALIDATE_CHECK_INVALID);
	assert_int_equal(V("1e999", NULL), VALIDATE_CHECK_INVALID);
	assert_int_equal(V("12abc", NULL), VALIDATE_CHECK_INVALID);
	assert_int_equal(verdict("1\0002", 3, NULL, why, sizeof(why)), VALIDATE_CHECK_INVALID);
}

static void test_size_and_range(void **state)
{
	char why[160], big[200];

	(void)state;
	assert_int_equal(V("1 2 3", "size=5"), VALIDATE_CHECK_VALID);
	assert_int_equal(V("1 2 3 4", "size=5"), VALIDATE_CHECK_INVALID);
	assert_string_equal(why, "7 bytes, not 5");
	assert_int_equal(V("0 5 2.5", "min=0 max=5"), VALIDATE_CHECK_VALID);
	assert_int_equal(V("1 5.01", "min=0 max=5"), VALIDATE_CHECK_INVALID);
	assert_string_equal(why, "5.01 is outside [0, 5]");
	assert_int_equal(V("-0.1", "min=0"), VALIDATE_CHECK_INVALID);
	/* bytes: the size only */
	assert_int_equal(V("not numbers", "size=11 bytes"), VALIDATE_CHECK_VALID);
	/* an endless word is refused, not read whole */
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(V(big, NULL), VALIDATE_CHECK_INVALID);
	assert_string_equal(why, "a word longer than 63 bytes");
}

static void test_bad_args_and_unreadable(void **state)
{
	struct sample_limits lim;
	char why[160];

	(void)state;
	assert_int_equal(sample_limits_parse("size=x", &lim), -1);
	assert_int_equal(sample_limits_parse("size=-1", &lim), -1);
	assert_int_equal(sample_limits_parse("size=1.5", &lim), -1);
	assert_int_equal(sample_limits_parse("max=nan", &lim), -1);
	assert_int_equal(sample_limits_parse("colour=red", &lim), -1);
	assert_int_equal(sample_limits_parse("  size=3   max=2 ", &lim), 0);
	assert_true(lim.size == 3 && lim.max == 2 && lim.numbers);
	assert_int_equal(sample_limits_parse(NULL, &lim), 0);
	assert_true(lim.size == -1 && lim.numbers);
	assert_int_equal(sample_check_file("/nonexistent/x", &lim, why, sizeof(why)),
			 VALIDATE_CHECK_RETRY);
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_size_and_range),
		cmocka_unit_test(test_bad_args_and_unreadable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
