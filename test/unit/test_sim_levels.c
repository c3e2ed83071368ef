/*
 * Unit tests for wseq_sim's state levels (issue 30): the bytes each level
 * uploads without churn, a lost host restarting at the finest level with
 * each level's latest version, the same seed giving the same output, a
 * single level giving what the scenario without levels gives, and a growing
 * level (MB+) uploading MB a segment since the level before it.
 */
#include "sim_fixture.h"

#include <math.h>

static const char no_churn[] = SIM_NO_CHURN "answer_mb 0\n";

/* segments 1..nseg whose number p divides, and the last: counted here, not by the policy */
static long uploads(long nseg, long p)
{
	long k, n = 0;

	for (k = 1; k <= nseg; k++)
		n += k % p == 0 || k == nseg;
	return n;
}

static void test_no_churn_bytes_are_uploads_times_sizes(void **state)
{
	static const struct {
		const char *text;
		long periods[3];
	} cases[] = {
		{ "state_levels 50:6,5:2\n", { 6, 2 } },
		{ "state_levels 50:6,5:2\nlength_days 13\n", { 6, 2 } },
		{ "state_levels 50,5:2\nstate_every 4\n", { 4, 2 } },   /* no period: M */
		{ "state_levels 100:12,10:4,1:2\n", { 12, 4, 2 } },
		{ "state_levels 5:2,50:6\n", { 2, 6 } },                /* the finest first */
	};
	struct sim_scenario sc;
	struct sim_stats q;
	size_t c;
	int i;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		double total = 0;
		long nseg;

		scenario(&sc, no_churn, cases[c].text);
		nseg = sim_scenario_segments(&sc);
		run(&sc, &sim_strategy_seq, &q);
		assert_int_equal(q.finished, sc.sequences);
		assert_true(q.cpu_wasted == 0 && q.relocations == 0);
		for (i = 0; i < sc.nlevels; i++) {
			double want = (double)sc.sequences * (double)uploads(nseg, cases[c].periods[i]) *
				      sc.levels[i].mb * 1e6;

			assert_int_equal(sim_level_period(&sc, i), cases[c].periods[i]);
			assert_true(q.bytes_up_level[i] == want);
			total += want;
		}
		assert_true(q.bytes_up == total);
		/* every level downloaded once, by the host that takes the sequence */
		assert_true(q.bytes_down == sc.sequences * sim_scenario_state_mb(&sc) * 1e6);
	}
}

/*
 * test/data/sim/levels-lost.txt's case: full every 12, increment every 3,
 * the host gone at 17.5 days with 18 half done. The restart point is 15
 * (the finest level's latest), so the new branch starts at 16 reading the
 * increment of 15 and the full state of 12: 16, 17 and half of 18 wasted.
 */
static void test_lost_host_restarts_at_the_finest_level(void **state)
{
	static const char script[] =
		"hosts 2\nsequences 1\nlength_days 24\nhigh_water 2\nsegment_deadline_days 3\n"
		"avail 1 0 100000\nleave 1 420\navail 2 1 100000\n";
	struct sim_scenario sc;
	struct sim_stats q, one;
	char why[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	scenario(&sc, no_churn, script);
	assert_int_equal(sim_levels_parse(&sc, "10:12,1:3", why, sizeof(why)), 0);
	fp = open_memstream(&buf, &len);
	assert_int_equal(sim_run_logged(&sc, &sim_strategy_seq, fp, &q, NULL, why, sizeof(why)), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 12 host 1 done state 11000000 answer 0\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 15 host 1 done state 1000000 answer 0\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 17 host 1 done state 0 answer 0\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 18 host 1 late\n"
				    "seq 1 branch 0 seg 19 host 1 retired\n"
				    "seq 1 relocated branch 1 from 16 states 12,15\n"));
	assert_non_null(strstr(buf, "seq 1 branch 1 seg 16 host 2 sent at "));
	assert_int_equal(q.relocations, 1);
	assert_true(q.cpu_used == 26 * DAY);
	assert_true(fabs(q.cpu_wasted - 2.5 * DAY) < 1);
	/* full: 12 and 24; increment: 3, 6, 9, 12, 15, then 18, 21, 24 on the new branch */
	assert_true(q.bytes_up_level[0] == 2 * 10e6 && q.bytes_up_level[1] == 8 * 1e6);
	/* both levels downloaded twice: at the start and by the new host */
	assert_true(q.bytes_down == 2 * 11e6);
	free(buf);

	/* one level of the full state every 12th: the restart goes back to 13 */
	sc.nlevels = 0;
	sc.state_mb = 10;
	sc.state_every = 12;
	assert_int_equal(sim_run(&sc, &sim_strategy_seq, &one, why, sizeof(why)), 0);
	assert_true(fabs(one.cpu_wasted - 5.5 * DAY) < 1);
	assert_true(one.bytes_up == 2 * 10e6);
}

/*
 * A growing level, no churn: its bytes are the sizes summed here by hand
 * (MB x segments since the coarser level's latest version, from MB to the
 * coarser level's MB), and what stays stored at the end is each level's
 * last version (the last segment uploads every level, the increment at MB).
 */
static void test_growing_level_bytes_by_hand(void **state)
{
	static const struct {
		const char *text;
		double mb[3];           /* each level's bytes a sequence, MB */
		double last;            /* stored at the end, a sequence, MB */
	} cases[] = {
		/* full at 12, 24; increment 60, 120, 180 at 3, 6, 9, 20 at 12 (with the full) */
		{ "state_levels 1000:12,20+:3\nlength_days 24\n",
		  { 2 * 1000, 2 * (60 + 120 + 180 + 20) }, 1000 + 20 },
		/* the same fixed: 8 increments of 20 */
		{ "state_levels 1000:12,20:3\nlength_days 24\n", { 2 * 1000, 8 * 20 }, 1000 + 20 },
		/* at most the coarser level's 100 MB: 60, 100 (not 120), 100 (not 180), 20 */
		{ "state_levels 100:12,20+:3\nlength_days 24\n",
		  { 2 * 100, 2 * (60 + 100 + 100 + 20) }, 100 + 20 },
		/* 13 segments: the last (13) uploads both, the increment at 20 */
		{ "state_levels 1000:12,20+:3\nlength_days 13\n",
		  { 2 * 1000, 60 + 120 + 180 + 20 + 20 }, 1000 + 20 },
		/* three levels, each growing over the one before: 600 at 6, 100 at 12; 10, 20, 5 */
		{ "state_levels 1000:12,100+:6,5+:2\nlength_days 12\n",
		  { 1000, 600 + 100, 2 * (10 + 20 + 5) }, 1000 + 100 + 5 },
	};
	struct sim_scenario sc;
	struct sim_stats q;
	size_t c;
	int i;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		double total = 0;

		scenario(&sc, no_churn, cases[c].text);
		run(&sc, &sim_strategy_seq, &q);
		assert_int_equal(q.finished, sc.sequences);
		assert_true(q.cpu_wasted == 0 && q.relocations == 0);
		for (i = 0; i < sc.nlevels; i++) {
			assert_true(q.bytes_up_level[i] == sc.sequences * cases[c].mb[i] * 1e6);
			total += sc.sequences * cases[c].mb[i] * 1e6;
		}
		assert_true(q.bytes_up == total);
		assert_true(fabs(q.storage - sc.sequences * cases[c].last * 1e6) < 1);
	}
}

/*
 * The lost host of test_lost_host_restarts_at_the_finest_level with a
 * growing increment (10:12,1+:3): the restart rule is the same, the new
 * host downloads the full state of 12 and the increment of 15 (3 MB).
 */
static void test_growing_level_restart(void **state)
{
	static const char script[] =
		"hosts 2\nsequences 1\nlength_days 24\nhigh_water 2\nsegment_deadline_days 3\n"
		"avail 1 0 100000\nleave 1 420\navail 2 1 100000\nstate_levels 10:12,1+:3\n";
	struct sim_scenario sc;
	struct sim_stats q;
	char why[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	scenario(&sc, no_churn, script);
	fp = open_memstream(&buf, &len);
	assert_int_equal(sim_run_logged(&sc, &sim_strategy_seq, fp, &q, NULL, why, sizeof(why)), 0);
	fclose(fp);
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 9 host 1 done state 9000000 answer 0\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 12 host 1 done state 11000000 answer 0\n"));
	assert_non_null(strstr(buf, "seq 1 relocated branch 1 from 16 states 12,15\n"));
	assert_true(fabs(q.cpu_wasted - 2.5 * DAY) < 1);
	/* increments 3, 6, 9, 1 (with the full), 3; then 6, 9, 1 on the new branch */
	assert_true(q.bytes_up_level[0] == 2 * 10e6);
	assert_true(q.bytes_up_level[1] == (3 + 6 + 9 + 1 + 3 + 6 + 9 + 1) * 1e6);
	/* the initial states at the start (11 MB), then the full of 12 and the increment of 15 */
	assert_true(q.bytes_down == (11 + 10 + 3) * 1e6);
	free(buf);
}

/* MB+: its syntax, the first level refused, written back as read */
static void test_growing_level_parse(void **state)
{
	static const char *const bad[] = { "20++:3", "+:3", "20+x:3", "20+:", "2+0:3" };
	struct sim_scenario sc;
	char err[256], line[64];
	size_t i;

	(void)state;
	scenario(&sc, "state_levels 1000:12,20+:3,1+\nstate_every 3\n", "");
	assert_int_equal(sc.levels_grow, 6u);
	assert_true(sc.levels[1].mb == 20 && sc.levels[1].every == 3 && sc.levels[2].mb == 1);
	sim_scenario_defaults(&sc);
	assert_int_equal(sim_scenario_parse(&sc, "hosts 3\nstate_levels 20+:3,1000:12\n", 30, "sc",
					    err, sizeof(err)), -1);
	assert_string_equal(err, "sc:2: state_levels: the first level cannot grow (+): a growing "
			    "level is an increment over the level before it");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(line, sizeof(line), "hosts 3\nstate_levels 1000:12,%s\n", bad[i]);
		sim_scenario_defaults(&sc);
		assert_int_equal(sim_scenario_parse(&sc, line, strlen(line), "sc", err, sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "sc:2: state_levels: bad level '"));
		assert_non_null(strstr(err, bad[i]));
	}
}

static void test_same_seed_same_output(void **state)
{
	struct sim_scenario sc;
	char *a, *b, *c;

	(void)state;
	scenario(&sc, "seed 5\nhosts 300\nlength_days 30\nstate_levels 100:12,5:3\n", "");
	a = output(&sc);
	b = output(&sc);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, ",periods,bytes_up_L1,bytes_up_L2\n"));
	assert_non_null(strstr(a, "state levels 100 MB every 12, 5 MB every 3"));
	sc.seed = 6;
	c = output(&sc);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
}

static void same_stats(const struct sim_stats *x, const struct sim_stats *y)
{
	assert_true(x->bytes_up == y->bytes_up && x->bytes_down == y->bytes_down);
	assert_true(x->storage_peak == y->storage_peak);
	assert_true(x->cpu_used == y->cpu_used && x->cpu_wasted == y->cpu_wasted);
	assert_int_equal(x->restarts, y->restarts);
	assert_int_equal(x->relocations, y->relocations);
	assert_int_equal(x->finished, y->finished);
	assert_true(x->median_days == y->median_days && x->p90_days == y->p90_days);
}

/* one level is the state without levels, under churn, for every strategy */
static void test_one_level_is_no_levels(void **state)
{
	static const char *const one[] = { "state_levels 50:4\n", "state_levels 50\n" };
	const struct sim_strategy *st[] = { &sim_strategy_giant, &sim_strategy_chunk,
					    &sim_strategy_seq };
	struct sim_scenario sc;
	struct sim_stats x, y;
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(one); i++)
		for (k = 0; k < ARRAY_SIZE(st); k++) {
			scenario(&sc, "seed 3\nhosts 300\nlength_days 30\nstate_mb 50\nstate_every 4\n",
				 "");
			run(&sc, st[k], &x);
			scenario(&sc, "seed 3\nhosts 300\nlength_days 30\nstate_mb 7\nstate_every 4\n",
				 one[i]);
			run(&sc, st[k], &y);
			same_stats(&x, &y);
			assert_true(y.bytes_up_level[0] > 0 && y.bytes_up_level[0] <= y.bytes_up);
			/* there is churn: the sequences are relocated */
			if (st[k] == &sim_strategy_seq)
				assert_true(x.relocations > 0);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_churn_bytes_are_uploads_times_sizes),
		cmocka_unit_test(test_lost_host_restarts_at_the_finest_level),
		cmocka_unit_test(test_same_seed_same_output),
		cmocka_unit_test(test_one_level_is_no_levels),
		cmocka_unit_test(test_growing_level_bytes_by_hand),
		cmocka_unit_test(test_growing_level_restart),
		cmocka_unit_test(test_growing_level_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
