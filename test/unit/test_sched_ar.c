/*
 * Unit tests for adaptive replication's rule (sched/sched_ar.c): who is
 * trusted, when a job goes alone, and the draws spot checks are decided
 * by -- the segments' hash at the configured rate over 10,000 segments,
 * within 4 sigma of the binomial, and the same every time.
 */
#include "unit.h"
#include "sched_policy.h"

static struct db_app app_of(int target, int trust_after, double spot)
{
	struct db_app a = { 0 };

	a.target_nresults = target;
	a.trust_after = trust_after;
	a.spot_check = spot;
	return a;
}

static void test_decide(void **state)
{
	struct db_app on = app_of(2, 3, 0.1), off = app_of(1, 3, 0.1);
	struct db_workunit single = { 0 }, replicated = { 0 };
	struct sched_bav bav = { 0 };

	(void)state;
	single.target_nresults = single.min_quorum = 1;
	replicated.target_nresults = replicated.min_quorum = 2;
	bav.consecutive_valid = 2;
	assert_int_equal(sched_ar_decide(&on, &bav, &single, 0.5), SCHED_AR_UNTRUSTED);
	assert_int_equal(sched_ar_decide(&off, &bav, &single, 0.5), SCHED_AR_OFF);
	assert_int_equal(sched_ar_decide(NULL, &bav, &single, 0.5), SCHED_AR_OFF);
	assert_int_equal(sched_ar_decide(&on, &bav, &replicated, 0.5), SCHED_AR_OFF);
	bav.consecutive_valid = 3;      /* trust_after reached: trusted */
	assert_int_equal(sched_ar_decide(&on, &bav, &single, 0.5), SCHED_AR_SINGLE);
	assert_int_equal(sched_ar_decide(&on, &bav, &single, 0.05), SCHED_AR_SPOT);
	assert_string_equal(sched_ar_name(SCHED_AR_SPOT), "trusted, spot-checked");
	assert_string_equal(sched_ar_name(SCHED_AR_UNTRUSTED), "not trusted yet");
}

static void test_draws_in_range(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		double u = sched_ar_draw();

		assert_true(u >= 0 && u < 1);
	}
}

/* 100 sequences of 100 segments at 0.1: mean 1000, sigma sqrt(10000 * 0.1 * 0.9) = 30 */
static void test_segment_rate(void **state)
{
	int64_t seq;
	int k, n = 0;

	(void)state;
	for (seq = 1; seq <= 100; seq++)
		for (k = 1; k <= 100; k++) {
			double u = sched_ar_segment_draw(seq, 0, k);

			assert_true(u >= 0 && u < 1);
			n += u < 0.1;
		}
	assert_in_range(n, 1000 - 120, 1000 + 120);
	/* the same segment, the same draw; another branch, another draw */
	assert_true(sched_ar_segment_draw(7, 0, 3) == sched_ar_segment_draw(7, 0, 3));
	assert_true(sched_ar_segment_draw(7, 0, 3) != sched_ar_segment_draw(7, 1, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_draws_in_range),
		cmocka_unit_test(test_segment_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
