/*
 * Unit tests for wseq_sim's runs (sim/): determinism, the no-churn and
 * everyone-leaves cases, replicas, and the strategies by name (the
 * sequence strategy has its own, test_sim_seq.c).
 */
#include "unit.h"
#include "sim_report.h"
#include "sim_strategy.h"

#include <math.h>

static void scenario(struct sim_scenario *sc, const char *text)
{
	char err[256];

	sim_scenario_defaults(sc);
	sc->hosts = 300;
	sc->sequences = 20;
	sc->length_days = 10;
	sc->segment_days = 1;
	sc->horizon_days = 200;
	if (sim_scenario_parse(sc, text, strlen(text), "test", err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

/* Same seed, same output: test_sim_seq.c, with all three strategies. */

static void test_no_churn_both_finish(void **state)
{
	struct sim_scenario sc;
	struct sim_stats g, k;
	char why[256];
	double state_b = 50e6;
	long segs;

	(void)state;
	scenario(&sc, "host_on_hours const 100000\nhost_off_hours const 1\nhost_life_days none\n"
		      "wrong_fraction 0\nstate_mb 50\nanswer_mb 0\nlength_days 9.5\n");
	segs = sim_scenario_segments(&sc);
	assert_int_equal(segs, 10);
	assert_int_equal(sim_run(&sc, &sim_strategy_giant, &g, why, sizeof(why)), 0);
	assert_int_equal(sim_run(&sc, &sim_strategy_chunk, &k, why, sizeof(why)), 0);
	assert_int_equal(g.finished, sc.sequences);
	assert_int_equal(k.finished, sc.sequences);
	assert_int_equal(g.unfinished + k.unfinished, 0);
	assert_true(g.restarts == 0 && k.restarts == 0);
	assert_true(g.cpu_wasted == 0 && k.cpu_wasted == 0);
	/* chunked: every segment uploads and downloads the state once */
	assert_true(k.bytes_up == sc.sequences * segs * state_b);
	assert_true(k.bytes_down == sc.sequences * segs * state_b);
	assert_true(g.bytes_up == sc.sequences * state_b);
	assert_true(g.bytes_down == sc.sequences * state_b);
	assert_true(g.cpu_used == sc.sequences * 9.5 * 86400);
	assert_true(k.cpu_used > sc.sequences * 9.5 * 86400 - 1 && k.cpu_used < sc.sequences * 9.5 * 86400 + 1);
	/* storage: the initial states, and one new state while a segment is checked */
	assert_true(g.storage_peak >= sc.sequences * state_b && g.storage_peak <= 2 * sc.sequences * state_b);
	assert_true(k.storage_peak >= sc.sequences * state_b && k.storage_peak <= 2 * sc.sequences * state_b);
	assert_true(g.median_days > 0 && g.p90_days >= g.median_days);
}

static void test_everyone_leaves_nothing_finishes(void **state)
{
	struct sim_scenario sc;
	struct sim_row rows[1];
	char why[256], *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0].strategy = "chunk";
	scenario(&sc, "host_life_days const 0.01\nhorizon_days 30\n");
	assert_int_equal(sim_run(&sc, &sim_strategy_giant, &rows[0].stats, why, sizeof(why)), 0);
	assert_int_equal(rows[0].stats.finished, 0);
	assert_int_equal(sim_run(&sc, &sim_strategy_chunk, &rows[0].stats, why, sizeof(why)), 0);
	assert_int_equal(rows[0].stats.finished, 0);
	assert_int_equal(rows[0].stats.unfinished, sc.sequences);
	fp = open_memstream(&buf, &len);
	sim_report_table(fp, &sc, rows, 1, false);
	fclose(fp);
	assert_non_null(strstr(buf, "chunk: no component finished within the horizon (30 days)"));
	free(buf);
}

static void test_replicas_catch_wrong_results(void **state)
{
	struct sim_scenario sc;
	struct sim_stats g, k;
	char why[256];

	(void)state;
	scenario(&sc, "host_on_hours const 100000\nhost_off_hours const 1\nhost_life_days none\n"
		      "host_speed const 1\nwrong_fraction 0.3\nreplicas 2\nanswer_mb 0\n");
	assert_int_equal(sim_run(&sc, &sim_strategy_giant, &g, why, sizeof(why)), 0);
	assert_int_equal(sim_run(&sc, &sim_strategy_chunk, &k, why, sizeof(why)), 0);
	assert_int_equal(g.finished, sc.sequences);
	assert_int_equal(k.finished, sc.sequences);
	assert_true(g.wrong_detected > 0 && k.wrong_detected > 0);
	assert_true(g.wrong_accepted == 0 && k.wrong_accepted == 0);
	/* every wrong result is a whole job thrown away, and nothing else is */
	assert_true(g.cpu_wasted == g.wrong_detected * 10 * 86400.0);
	assert_true(k.cpu_wasted == k.wrong_detected * 86400.0);
	assert_true(k.bytes_up == (2 * sc.sequences * 10 + k.wrong_detected) * 100e6);
	assert_true(g.restarts == 0 && k.restarts == 0);
}

/* each component's time to finish agrees with the figures, and its CSV lists them in order */
static void test_finish_times(void **state)
{
	struct sim_scenario sc;
	struct sim_row rows[2];
	double f[20], *sorted;
	char why[256], *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	long i, done = 0, lines = 0;
	double last = 0;
	FILE *fp;

	(void)state;
	memset(rows, 0, sizeof(rows));
	scenario(&sc, "seed 3\nhorizon_days 60\n");
	assert_int_equal(sc.sequences, 20);
	assert_int_equal(sim_run_finish(&sc, &sim_strategy_giant, &rows[0].stats, f, why, sizeof(why)),
			 0);
	sorted = xcalloc(20, sizeof(*sorted));
	for (i = 0; i < 20; i++) {
		assert_true(f[i] == -1 || (f[i] > 0 && f[i] <= 60));
		if (f[i] >= 0)
			sorted[done++] = f[i];
	}
	/* some finish within 60 days, some not: both kinds of line below */
	assert_int_equal(done, rows[0].stats.finished);
	assert_true(done > 0 && done < 20);
	for (i = 0; i < done; i++)      /* the median is one of them, at the nearest rank */
		if (sorted[i] == rows[0].stats.median_days)
			break;
	assert_true(i < done);
	rows[0].strategy = "giant";
	sim_row_params(&rows[0], &sc);
	rows[0].finish = f;
	rows[1] = rows[0];
	rows[1].repeat = true;          /* a repeat is not written again */
	fp = open_memstream(&buf, &len);
	sim_report_finish_csv(fp, rows, 2, 20);
	fclose(fp);
	line = strtok_r(buf, "\n", &save);
	assert_string_equal(line, "run,strategy,answer_every,state_every,segment_days,component,"
				  "finish_days,finished_fraction");
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		double days, frac;
		int comp;

		lines++;
		assert_int_equal(strncmp(line, "1,giant,1,7,1,", 14), 0);
		if (lines <= done) {
			assert_int_equal(sscanf(line + 14, "%d,%lf,%lf", &comp, &days, &frac), 3);
			assert_true(days >= last);
			assert_true(fabs(days - f[comp - 1]) < 1e-5);
			assert_true(fabs(frac - lines / 20.0) < 1e-9);
			last = days;
		} else {
			assert_int_equal(sscanf(line + 14, "%d", &comp), 1);
			assert_true(f[comp - 1] == -1);
			assert_string_equal(strchr(line + 14, ','), ",,");
		}
	}
	assert_int_equal(lines, 20);
	free(sorted);
	free(buf);
}

static void test_strategies_by_name(void **state)
{
	(void)state;
	assert_ptr_equal(sim_strategy_find("giant"), &sim_strategy_giant);
	assert_ptr_equal(sim_strategy_find("chunk"), &sim_strategy_chunk);
	assert_ptr_equal(sim_strategy_find("seq"), &sim_strategy_seq);
	assert_null(sim_strategy_find("sequences"));
	/* only the sequence strategy sends to hosts of its choosing */
	assert_null(sim_strategy_giant.rpc);
	assert_null(sim_strategy_chunk.lost);
	assert_non_null(sim_strategy_seq.rpc);
	assert_non_null(sim_strategy_seq.lost);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_churn_both_finish),
		cmocka_unit_test(test_everyone_leaves_nothing_finishes),
		cmocka_unit_test(test_replicas_catch_wrong_results),
		cmocka_unit_test(test_finish_times),
		cmocka_unit_test(test_strategies_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
