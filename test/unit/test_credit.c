/*
 * Unit tests for the recent average credit (lib/credit.c, BOINC's
 * update_average), the cap on a result's credit and the runtime rule.
 */
#include "unit.h"
#include "credit.h"

#include <math.h>

#define DAY 86400.0
#define T0 1.7e9

static void test_idle_week_halves(void **state)
{
	double avg = 100, t = T0;

	credit_update_average(T0 + 7 * DAY, T0 + 7 * DAY, 0, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 50, 1e-9);
	assert_float_equal(t, T0 + 7 * DAY, 0);
	/* and again: a quarter after two weeks, whatever the steps */
	credit_update_average(T0 + 10 * DAY, T0 + 10 * DAY, 0, CREDIT_HALF_LIFE, &avg, &t);
	credit_update_average(T0 + 14 * DAY, T0 + 14 * DAY, 0, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 25, 1e-9);
}

static void test_first_credit(void **state)
{
	double avg = 0, t = 0;

	/* no history: the rate since the work began, per day */
	credit_update_average(T0, T0 - 2 * DAY, 30, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 15, 1e-9);
	assert_float_equal(t, T0, 0);
	/* work that began now counts as a second's worth, not a division by zero */
	avg = t = 0;
	credit_update_average(T0, T0, 2, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 2 * DAY, 1e-6);
	assert_true(isfinite(avg));
	/* no work and no history: nothing, but the time is set */
	avg = t = 0;
	credit_update_average(T0, T0, 0, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 0, 0);
	assert_float_equal(t, T0, 0);
}

static void test_tiny_intervals(void **state)
{
	double limit = M_LN2 * 10 * DAY / CREDIT_HALF_LIFE;
	double a0 = 5, t0 = T0, a1 = 5, t1 = T0, a2 = 5, t2 = T0, a3 = 5, t3 = T0;

	/* the same instant: the limit of the rate, finite */
	credit_update_average(T0, T0, 10, CREDIT_HALF_LIFE, &a0, &t0);
	assert_true(isfinite(a0));
	assert_float_equal(a0, 5 + limit, 1e-12);
	/* a millisecond later: the same limit, the average hardly decayed */
	credit_update_average(T0 + 1e-3, T0, 10, CREDIT_HALF_LIFE, &a1, &t1);
	assert_float_equal(a1, 5 + limit, 1e-6);
	/* either side of where the formula switches (1 - w = 1e-6, about 0.87 s) they agree */
	credit_update_average(T0 + 0.8, T0, 10, CREDIT_HALF_LIFE, &a2, &t2);
	credit_update_average(T0 + 0.95, T0, 10, CREDIT_HALF_LIFE, &a3, &t3);
	assert_float_equal(a2, a3, 1e-5 * a2);
	assert_float_equal(a2, 5 + limit, 1e-5 * a2);
	/* a clock that went back counts as no time */
	a1 = 5, t1 = T0;
	credit_update_average(T0 - 100, T0 - 100, 10, CREDIT_HALF_LIFE, &a1, &t1);
	assert_float_equal(a1, 5 + limit, 1e-12);
	assert_float_equal(t1, T0 - 100, 0);
}

static void test_steady_work_converges_to_its_rate(void **state)
{
	double avg = 0, t = 0;
	int day;

	/* 40 credits every day for 20 half-lives: the average is 40 a day */
	for (day = 1; day <= 140; day++)
		credit_update_average(T0 + day * DAY, T0 + (day - 1) * DAY, 40, CREDIT_HALF_LIFE,
				      &avg, &t);
	assert_float_equal(avg, 40, 1e-4);
	/* and a week of nothing halves it */
	credit_update_average(T0 + 147 * DAY, T0 + 147 * DAY, 0, CREDIT_HALF_LIFE, &avg, &t);
	assert_float_equal(avg, 20, 1e-4);
}

/* A GFLOPS-second is 200/86400 credits: ten of them, times the factor 10. */
#define GF_SEC (200.0 / 86400)

static void test_cap_by_project_and_speed(void **state)
{
	/* a 1e30-FLOP job on a 1 GFLOPS host for 10 s: 10 x 10 GFLOPS-seconds */
	assert_float_equal(credit_cap(1e30 * GF_SEC / 1e9, 1e5, 10, 1e9, 10, 3600),
			   100 * GF_SEC, 1e-9);
	/* a claimed 1e18 FLOPS: the project's cap */
	assert_float_equal(credit_cap(1e21, 1e5, 10, 1e18, 10, 3600), 1e5, 0);
	/* within both bounds: as claimed */
	assert_float_equal(credit_cap(0.1, 1e5, 10, 1e9, 10, 3600), 0.1, 0);
	/* an elapsed time longer than the server saw counts as the server's */
	assert_float_equal(credit_cap(1e9, 0, 1, 1e9, 1e9, 60), 60 * GF_SEC, 1e-9);
	/* no elapsed time: the server's; no benchmark: 1 GFLOPS */
	assert_float_equal(credit_cap(1e9, 0, 1, 0, 0, 60), 60 * GF_SEC, 1e-9);
	/* no time at all: nothing could have been computed */
	assert_float_equal(credit_cap(5, 0, 1, 1e9, 0, 0), 0, 0);
	/* 0 turns a bound off; nothing claimed is nothing */
	assert_float_equal(credit_cap(1e21, 0, 0, 1e9, 10, 60), 1e21, 0);
	assert_float_equal(credit_cap(-3, 1e5, 10, 1e9, 10, 60), 0, 0);
}

/* The runtime rule: a CPU and a GPU doing one job claim alike; absurd times capped. */
static void test_runtime_rule(void **state)
{
	double est = 1e13, cpu, gpu;

	/* a 1 GFLOPS CPU takes 1e4 s, a 100 GFLOPS GPU 100 s: one claim */
	cpu = credit_runtime(1e4, 9e3, 0, 1e9, 10 * est);
	gpu = credit_runtime(100, 5, 0, 1e11, 10 * est);
	assert_float_equal(cpu, est * COBBLESTONE_SCALE, 1e-9);
	assert_float_equal(gpu, cpu, 1e-9);
	/* no elapsed time: the CPU time */
	assert_float_equal(credit_runtime(0, 1e4, 0, 1e9, 0), cpu, 1e-9);
	/* an absurd elapsed time: at most the job's FLOPs bound, and the wall time */
	assert_float_equal(credit_runtime(1e12, 0, 0, 1e9, 10 * est), 10 * cpu, 1e-9);
	assert_float_equal(credit_runtime(1e12, 0, 2e4, 1e9, 10 * est), 2 * cpu, 1e-9);
	/* no speed or no time: no claim */
	assert_float_equal(credit_runtime(1e4, 0, 0, 0, est), 0, 0);
	assert_float_equal(credit_runtime(-1, -1, 0, 1e9, est), 0, 0);
	/* an infinite time with no bound claims nothing rather than infinity */
	assert_float_equal(credit_runtime(INFINITY, 0, 0, 1e9, 0), 0, 0);
	assert_float_equal(credit_runtime(NAN, NAN, 0, 1e9, est), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_week_halves),
		cmocka_unit_test(test_first_credit),
		cmocka_unit_test(test_tiny_intervals),
		cmocka_unit_test(test_steady_work_converges_to_its_rate),
		cmocka_unit_test(test_cap_by_project_and_speed),
		cmocka_unit_test(test_runtime_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
