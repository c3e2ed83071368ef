/*
 * Unit tests for wseq_sim's state levels (issue 30): the bytes each level
 * uploads without churn, a lost host restarting at the finest level with
 * each level's latest version, the same seed giving the same output, and a
 * single level giving what the scenario without levels gives.
 */
#include "unit.h"
#include "sim_report.h"
#include "sim_strategy.h"

#include <math.h>

#define DAY 86400.0

/* hosts always on, never leaving, never wrong, every speed 1, transfers all but instant */
static const char no_churn[] =
	"host_on_hours const 1000000\nhost_off_hours const 0.001\nhost_life_days none\n"
	"host_speed const 1\nhost_upload_mbps const 1000000\nhost_download_mbps const 1000000\n"
	"wrong_fraction 0\nanswer_mb 0\n";

static void scenario(struct sim_scenario *sc, const char *a, const char *b)
{
	char err[256];

	sim_scenario_defaults(sc);
	sc->hosts = 200;
	sc->sequences = 10;
	sc->length_days = 12;
	sc->segment_days = 1;
	sc->horizon_days = 200;
	if (sim_scenario_parse(sc, a, strlen(a), "test", err, sizeof(err)) != 0 ||
	    sim_scenario_parse(sc, b, strlen(b), "test", err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static void run(const struct sim_scenario *sc, const struct sim_strategy *st, struct sim_stats *out)
{
	char why[256] = "";

	assert_int_equal(sim_run(sc, st, out, why, sizeof(why)), 0);
}

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

/* the three strategies' table and CSV, as one string */
static char *output(const struct sim_scenario *sc)
{
	const struct sim_strategy *st[] = { &sim_strategy_giant, &sim_strategy_chunk,
					    &sim_strategy_seq };
	struct sim_row rows[3];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 3; i++) {
		rows[i].strategy = st[i]->name;
		sim_row_params(&rows[i], sc);
		run(sc, st[i], &rows[i].stats);
	}
	fp = open_memstream(&buf, &len);
	sim_report_table(fp, sc, rows, 3, false);
	sim_report_csv(fp, rows, 3);
	fclose(fp);
	return buf;
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
