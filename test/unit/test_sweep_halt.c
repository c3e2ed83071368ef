/* Unit tests for --halt's rule (sweep/master/sweep_halt.c): parsing and when it is reached. */
#include "test_sweep_util.h"
#include "sweep_halt.h"

static void expect(const char *s, int when, long fail, bool pct)
{
	struct sweep_halt h;
	struct sbuf err = SBUF_INIT(1024);

	if (sweep_halt_parse(s, &h, &err) < 0)
		fail_msg("'%s': %s", s, sbuf_str(&err));
	assert_int_equal(h.when, when);
	if (when != SWEEP_HALT_NEVER) {
		assert_int_equal(h.fail, fail);
		assert_int_equal(h.pct, pct);
	}
	sbuf_release(&err);
}

static void expect_bad(const char *s)
{
	struct sweep_halt h;
	struct sbuf err = SBUF_INIT(1024);
	char want[256];

	snprintf(want, sizeof(want), "--halt is now|soon,fail=N or now|soon,fail=P%% (1 to 100), "
		 "or never (got '%s')", s);
	assert_int_equal(sweep_halt_parse(s, &h, &err), -1);
	assert_err(&err, want);
	assert_int_equal(h.when, SWEEP_HALT_NEVER);
	sbuf_release(&err);
}

static void test_parse(void **state)
{
	(void)state;
	expect("soon,fail=3", SWEEP_HALT_SOON, 3, false);
	expect("now,fail=1", SWEEP_HALT_NOW, 1, false);
	expect("now,fail=30%", SWEEP_HALT_NOW, 30, true);
	expect("soon,fail=100%", SWEEP_HALT_SOON, 100, true);
	expect("never", SWEEP_HALT_NEVER, 0, false);
	expect("0", SWEEP_HALT_NEVER, 0, false);
	expect("1", SWEEP_HALT_SOON, 1, false);
	expect("2", SWEEP_HALT_NOW, 1, false);
	expect_bad("later,fail=3");
	expect_bad("soon");
	expect_bad("soon,");
	expect_bad("soon,fail=");
	expect_bad("soon,fail=0");
	expect_bad("soon,fail=-1");
	expect_bad("now,fail=101%");
	expect_bad("now,fail=%");
	expect_bad("now,success=1");
	expect_bad("3");
}

static void test_reached(void **state)
{
	struct sweep_halt h = { SWEEP_HALT_SOON, 3, false };

	(void)state;
	assert_false(sweep_halt_reached(&h, 2, 100));
	assert_true(sweep_halt_reached(&h, 3, 100));
	h.pct = true;
	h.fail = 10;
	assert_false(sweep_halt_reached(&h, 9, 100));
	assert_true(sweep_halt_reached(&h, 10, 100));
	assert_true(sweep_halt_reached(&h, 1, 5));
	h.when = SWEEP_HALT_NEVER;
	assert_false(sweep_halt_reached(&h, 100, 100));
	h.when = SWEEP_HALT_NOW;
	assert_false(sweep_halt_reached(&h, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_reached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
