/* Unit tests for wseq_sim's engine parts: the event queue and the PRNG (sim/). */
#include "unit.h"
#include "sim_queue.h"
#include "sim_rng.h"

#include <math.h>

static void test_queue_orders_by_time_then_insertion(void **state)
{
	struct sim_queue q;
	struct sim_event ev;
	struct sim_rng r;
	double last = -1;
	int i, n = 0;

	(void)state;
	sim_queue_init(&q);
	sim_queue_push(&q, 5, 1, 0, 0, 0);
	sim_queue_push(&q, 1, 2, 0, 0, 0);
	sim_queue_push(&q, 5, 3, 0, 0, 0);
	sim_queue_push(&q, 5, 4, 0, 0, 0);
	sim_queue_push(&q, 0, 5, 0, 0, 0);
	assert_true(sim_queue_pop(&q, &ev) && ev.type == 5);
	assert_true(sim_queue_pop(&q, &ev) && ev.type == 2);
	/* ties come out in the order they went in */
	assert_true(sim_queue_pop(&q, &ev) && ev.type == 1);
	assert_true(sim_queue_pop(&q, &ev) && ev.type == 3);
	assert_true(sim_queue_pop(&q, &ev) && ev.type == 4);
	assert_false(sim_queue_pop(&q, &ev));

	/* many random times, many ties: sorted by (t, seq) */
	sim_rng_seed(&r, 7, 0);
	for (i = 0; i < 20000; i++)
		sim_queue_push(&q, floor(sim_rng_uniform(&r) * 100), 0, i, 0, i);
	{
		int64_t lastb = -1;

		while (sim_queue_pop(&q, &ev)) {
			assert_true(ev.t >= last);
			if (ev.t == last)
				assert_true(ev.b > lastb);
			last = ev.t;
			lastb = ev.b;
			n++;
		}
	}
	assert_int_equal(n, 20000);
	sim_queue_release(&q);
}

static void test_rng_same_seed_same_stream(void **state)
{
	struct sim_rng a, b, c;
	int i, differ = 0;

	(void)state;
	sim_rng_seed(&a, 42, 3);
	sim_rng_seed(&b, 42, 3);
	sim_rng_seed(&c, 42, 4);
	for (i = 0; i < 1000; i++) {
		uint64_t x = sim_rng_next(&a);

		assert_true(x == sim_rng_next(&b));
		differ += x != sim_rng_next(&c);
	}
	assert_true(differ > 990);
}

#define N 400000

static double mean_of(double (*f)(struct sim_rng *, double, double), double p1, double p2)
{
	struct sim_rng r;
	double sum = 0;
	int i;

	sim_rng_seed(&r, 12345, 1);
	for (i = 0; i < N; i++)
		sum += f(&r, p1, p2);
	return sum / N;
}

static double draw_exp(struct sim_rng *r, double mean, double unused)
{
	(void)unused;
	return sim_rng_exp(r, mean);
}

static void near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("mean %g, expected %g within %g%%", got, want, rel * 100);
}

static void test_rng_means(void **state)
{
	struct sim_rng r;
	double lo = 1, hi = 0, u;
	int i;

	(void)state;
	near(mean_of(sim_rng_uniform_ab, 2, 6), 4, 0.01);
	near(mean_of(draw_exp, 3, 0), 3, 0.01);
	near(mean_of(sim_rng_weibull, 0.4, 3), 3 * tgamma(1 + 1 / 0.4), 0.05);
	near(mean_of(sim_rng_weibull, 2, 5), 5 * tgamma(1.5), 0.01);
	near(mean_of(sim_rng_lognormal, 0, 0.5), exp(0.125), 0.01);
	near(mean_of(sim_rng_lognormal, 1, 1), exp(1.5), 0.03);
	sim_rng_seed(&r, 1, 0);
	for (i = 0; i < N; i++) {
		u = sim_rng_uniform(&r);
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	assert_true(lo > 0 && lo < 1e-4 && hi < 1 && hi > 1 - 1e-4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_orders_by_time_then_insertion),
		cmocka_unit_test(test_rng_same_seed_same_stream),
		cmocka_unit_test(test_rng_means),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
