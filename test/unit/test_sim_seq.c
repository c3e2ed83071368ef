/*
 * Unit tests for wseq_sim's work-sequence strategy (sim/strategy_seq.c):
 * the degenerate cases against the other strategies (no churn, everyone
 * leaving, M = 1), a host vanishing (relocation from the last uploaded
 * state, the CPU since it wasted), outvoted segments, the policy's own
 * refusals, the same output from the same seed, and the advisor's choice.
 */
#include "sim_fixture.h"
#include "sim_advise.h"

#include <math.h>

static const char no_churn[] = SIM_NO_CHURN;

static void test_no_churn_sequences_upload_one_mth(void **state)
{
	static const long ms[] = { 4, 5, 12, 13 };
	struct sim_scenario sc;
	struct sim_stats g, k, q;
	double state_b = 50e6;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		char text[64];
		long nseg, nstates;

		snprintf(text, sizeof(text), "state_mb 50\nanswer_mb 0\nstate_every %ld\n", ms[i]);
		scenario(&sc, no_churn, text);
		nseg = sim_scenario_segments(&sc);
		assert_int_equal(nseg, 12);
		run(&sc, &sim_strategy_giant, &g);
		run(&sc, &sim_strategy_chunk, &k);
		run(&sc, &sim_strategy_seq, &q);
		assert_int_equal(g.finished, sc.sequences);
		assert_int_equal(k.finished, sc.sequences);
		assert_int_equal(q.finished, sc.sequences);
		assert_int_equal(q.unfinished, 0);
		assert_true(q.cpu_wasted == 0 && q.restarts == 0 && q.relocations == 0);
		assert_true(q.cpu_used == sc.sequences * 12 * DAY);
		/* chunked: the state every segment; a sequence: every Mth and the last */
		nstates = (nseg + ms[i] - 1) / ms[i];
		assert_true(k.bytes_up == sc.sequences * nseg * state_b);
		assert_true(q.bytes_up == sc.sequences * nstates * state_b);
		if (nseg % ms[i] == 0)
			assert_true(q.bytes_up * ms[i] == k.bytes_up);
		/* one host a sequence: the initial state is its only download */
		assert_true(q.bytes_down == sc.sequences * state_b);
		/* a state is deleted when the next is there: the initial ones, one more at a time */
		assert_true(q.storage_peak >= sc.sequences * state_b);
		assert_true(q.storage_peak <= (sc.sequences + 1) * state_b);
		assert_true(q.median_days >= 12 && q.p90_days >= q.median_days && q.p90_days < 13);
	}
}

static void test_no_churn_answers_every_n(void **state)
{
	struct sim_scenario sc;
	struct sim_stats q;

	(void)state;
	/* 12 segments, N 5: answers of 5, 10 and the last; M 4: states of 4, 8, 12 */
	scenario(&sc, no_churn, "state_mb 50\nanswer_mb 2\nanswer_every 5\nstate_every 4\n");
	run(&sc, &sim_strategy_seq, &q);
	assert_int_equal(q.finished, sc.sequences);
	assert_true(q.bytes_up == sc.sequences * (3 * 50e6 + 3 * 2e6));
}

static void test_m1_sequences_upload_what_chunks_do(void **state)
{
	static const char *const cases[] = { "state_every 1\nanswer_every 1\n",
					      "state_every 1\nanswer_every 3\nlength_days 10.5\n" };
	struct sim_scenario sc;
	struct sim_stats k, q;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		scenario(&sc, no_churn, cases[i]);
		run(&sc, &sim_strategy_chunk, &k);
		run(&sc, &sim_strategy_seq, &q);
		assert_int_equal(k.finished, sc.sequences);
		assert_int_equal(q.finished, sc.sequences);
		assert_true(q.bytes_up == k.bytes_up);
		assert_true(q.cpu_used == k.cpu_used);
		/* but a sequence downloads its state once, a chunk every segment */
		assert_true(q.bytes_down * sim_scenario_segments(&sc) == k.bytes_down);
	}
}

static void test_everyone_leaves_nothing_finishes(void **state)
{
	struct sim_scenario sc;
	struct sim_row row;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.strategy = "seq";
	scenario(&sc, "host_life_days uniform 0 0.01\nhorizon_days 30\n", "");
	sim_row_params(&row, &sc);
	run(&sc, &sim_strategy_seq, &row.stats);
	assert_int_equal(row.stats.finished, 0);
	assert_int_equal(row.stats.unfinished, sc.sequences);
	/* each sequence missed a deadline once; no host was left to take it again */
	assert_int_equal(row.stats.relocations, sc.sequences);
	assert_true(isnan(row.stats.median_days));
	fp = open_memstream(&buf, &len);
	sim_report_table(fp, &sc, &row, 1, false);
	sim_report_csv(fp, &row, 1);
	fclose(fp);
	assert_non_null(strstr(buf, "seq: no component finished within the horizon (30 days)"));
	assert_non_null(strstr(buf, "\nseq,1,0,10,,,"));
	free(buf);
}

static void leave_host0(struct sim *s, void *arg)
{
	sim_host_leave_at(s, 0, *(const double *)arg);
}

/*
 * One sequence of 10 one-day segments, M 4, two in flight, deadline 3 days
 * (a segment waits a day on the host before it starts). Host 0 asks first
 * and takes it, and vanishes at 6.5 days: segments 1-6 are reported (the
 * state of 4 on the server), 7 (sent at 5 days) is half done, 8 waits. At
 * 7's deadline (8 days) the sequence is relocated: a new branch from
 * segment 5 reading the state of 4 -- 5 and 6 computed again, wasted with
 * half of 7 -- and another host finishes it, uploading the states of 8 and
 * 10 (the last).
 */
static void test_vanished_host_restarts_from_last_state(void **state)
{
	struct sim_scenario sc;
	struct sim_stats q;
	char why[256];
	double leave = 6.5 * DAY, state_b = 10e6;

	(void)state;
	scenario(&sc, no_churn, "sequences 1\nhosts 5\nlength_days 10\nstate_mb 10\nanswer_mb 0\n"
				"state_every 4\nhigh_water 2\nsegment_deadline_days 3\n");
	assert_int_equal(sim_run_hooked(&sc, &sim_strategy_seq, leave_host0, &leave, &q, why,
					sizeof(why)), 0);
	assert_int_equal(q.finished, 1);
	assert_int_equal(q.relocations, 1);
	assert_int_equal(q.restarts, 1);
	/* the states of 4, 8, 10; downloads: the initial state, and the state of 4 */
	assert_true(q.bytes_up == 3 * state_b);
	assert_true(q.bytes_down == 2 * state_b);
	/* 1-6 and then 5-10 reported */
	assert_true(q.cpu_used == 12 * DAY);
	/* segments 5 and 6 (after the last state), and the half of 7 the host took with it */
	assert_true(fabs(q.cpu_wasted - 2.5 * DAY) < 1);
	/* relocated at 8 days, picked up at the next hourly RPC, 6 days to go */
	assert_true(q.median_days > 14 && q.median_days < 14 + 1 / 24.0 + 1e-3);

	/* without the departure: no loss at all */
	assert_int_equal(sim_run(&sc, &sim_strategy_seq, &q, why, sizeof(why)), 0);
	assert_true(q.relocations == 0 && q.cpu_wasted == 0 && q.bytes_up == 3 * state_b);
}

/* with M 1 a relocation restarts after the last reported segment: only half of 7 is lost */
static void test_vanished_host_m1_loses_only_the_segment_in_progress(void **state)
{
	struct sim_scenario sc;
	struct sim_stats q;
	char why[256];
	double leave = 6.5 * DAY;

	(void)state;
	scenario(&sc, no_churn, "sequences 1\nhosts 5\nlength_days 10\nstate_mb 10\nanswer_mb 0\n"
				"state_every 1\nhigh_water 2\nsegment_deadline_days 3\n");
	assert_int_equal(sim_run_hooked(&sc, &sim_strategy_seq, leave_host0, &leave, &q, why,
					sizeof(why)), 0);
	assert_int_equal(q.finished, 1);
	assert_int_equal(q.relocations, 1);
	assert_true(q.cpu_used == 10 * DAY);
	assert_true(fabs(q.cpu_wasted - 0.5 * DAY) < 1);
	assert_true(q.bytes_up == 10 * 10e6);
	assert_true(q.median_days > 12 && q.median_days < 12 + 1 / 24.0 + 1e-3);
}

static void test_outvoted_segments_relocate(void **state)
{
	struct sim_scenario sc;
	struct sim_stats q;

	(void)state;
	scenario(&sc, no_churn, "wrong_fraction 0.3\nreplicas 2\nanswer_mb 0\nstate_every 3\n");
	run(&sc, &sim_strategy_seq, &q);
	assert_int_equal(q.finished, sc.sequences);
	assert_true(q.wrong_detected > 0);
	assert_int_equal(q.wrong_accepted, 0);
	/* an outvoted segment moves its sequence (the validator), never a deadline here */
	assert_int_equal(q.relocations, q.wrong_detected);
	assert_int_equal(q.restarts, 0);
	assert_true(q.cpu_wasted >= q.wrong_detected * DAY);
	/* two members a component, each all its segments at least */
	assert_true(q.cpu_used >= 2 * sc.sequences * 12 * DAY);
}

static void test_hosts_too_slow_take_no_sequence(void **state)
{
	struct sim_scenario sc;
	struct sim_stats k, q;

	(void)state;
	/* a segment takes 5 days on these hosts, over max_result_time (half the 7-day deadline) */
	scenario(&sc, no_churn, "host_speed const 0.2\nlength_days 3\nhorizon_days 60\n");
	run(&sc, &sim_strategy_seq, &q);
	assert_int_equal(q.finished, 0);
	assert_true(q.bytes_down == 0 && q.cpu_used == 0);
	run(&sc, &sim_strategy_chunk, &k);
	assert_int_equal(k.finished, sc.sequences);
}

/* the three strategies' table and CSV, as one string */
/*
 * Scripted hosts: host 1 takes the sequence and leaves holding segments 4
 * and 5; host 2, idle, polling every 6 h, takes it at its first poll after
 * segment 4's deadline and restarts after segment 3's uploaded state. The
 * decision log says so, in the format t8010 compares with the server's.
 */
static void test_script_decision_log(void **state)
{
	struct sim_scenario sc;
	struct sim_stats out;
	char why[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	scenario(&sc, no_churn, "hosts 2\nsequences 1\nlength_days 6\nsegment_days 1\n"
		 "state_every 3\nsegment_deadline_days 10\nrpc_hours 6\n"
		 "avail 1 0 1000\nleave 1 80\navail 2 1 1000\n");
	fp = open_memstream(&buf, &len);
	assert_int_equal(sim_run_logged(&sc, &sim_strategy_seq, fp, &out, NULL, why, sizeof(why)), 0);
	fclose(fp);
	assert_int_equal(out.finished, 1);
	assert_int_equal(out.relocations, 1);
	/* segment 4 was sent at 48 h (segment 2 reported), its deadline 10 days on */
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 3 host 1 done state 100000000 answer 1000000\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 4 host 1 sent at 2880\n"));
	assert_non_null(strstr(buf, "seq 1 branch 0 seg 4 host 1 late\n"
				    "seq 1 branch 0 seg 5 host 1 retired\n"
				    "seq 1 relocated branch 1 from 4\n"));
	/* host 2 polls at 1 h + 6 h k: the first poll after 288 h is at 289 h */
	assert_non_null(strstr(buf, "seq 1 branch 1 seg 4 host 2 sent at 17340\n"));
	assert_non_null(strstr(buf, "seq 1 ended\n"));
	free(buf);
}

static void test_same_seed_same_output(void **state)
{
	struct sim_scenario sc;
	char *a, *b, *c;

	(void)state;
	scenario(&sc, "seed 5\nhosts 300\nwrong_fraction 0.1\nreplicas 2\n", "");
	a = output(&sc);
	b = output(&sc);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\nseq,1,"));
	sc.seed = 6;
	c = output(&sc);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
}

static struct sim_row row(long m, double seg, long finished, double up_gb, double waste_d,
			  double median)
{
	struct sim_row r = { 0 };

	r.strategy = "seq";
	r.answer_every = 1;
	r.state_every = m;
	r.segment_days = seg;
	r.stats.finished = finished;
	r.stats.bytes_up = up_gb * 1e9;
	r.stats.cpu_wasted = waste_d * DAY;
	r.stats.median_days = median;
	return r;
}

static void test_advise_fewest_bytes_within_limits(void **state)
{
	struct sim_row rows[] = {
		row(1, 1, 20, 40, 10, 30),      /* the least waste */
		row(2, 1, 20, 20, 10.9, 32.9),  /* within both: advised */
		row(4, 1, 20, 12, 11.5, 31),    /* wastes more than 10 % over the least */
		row(8, 1, 20, 8, 10.5, 33.5),   /* finishes more than 10 % after the soonest */
		row(16, 1, 19, 4, 1, 20),       /* did not finish them all */
		row(2, 2, 20, 20, 10.8, 33),    /* as many bytes as the advised, less waste: wins */
	};
	bool ok[ARRAY_SIZE(rows)];
	struct sim_advice a;
	struct sim_scenario sc;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	sim_advise(rows, ARRAY_SIZE(rows), 10, 10, &a, ok);
	assert_int_equal(a.most_finished, 20);
	assert_true(a.best_waste == 10 * DAY && a.best_median == 30);
	assert_true(ok[0] && ok[1] && !ok[2] && !ok[3] && !ok[4] && ok[5]);
	assert_int_equal(a.neligible, 3);
	assert_int_equal(a.pick, 5);
	/* wider limits let the fewer bytes in */
	sim_advise(rows, ARRAY_SIZE(rows), 20, 20, &a, ok);
	assert_int_equal(a.pick, 3);

	sim_scenario_defaults(&sc);
	fp = open_memstream(&buf, &len);
	sim_advise(rows, ARRAY_SIZE(rows), 10, 10, &a, ok);
	sim_advise_report(fp, &sc, rows, ARRAY_SIZE(rows), ok, &a, 10, 10, NULL);
	fclose(fp);
	assert_non_null(strstr(buf, "advice: N 1, M 2, segment 2 days: uploads 20.000 GB, wastes 10.80"));
	assert_non_null(strstr(buf, "the least CPU wasted 10.00 days (limit +10 %: 11.00)"));
	free(buf);
}

static void test_advise_none(void **state)
{
	struct sim_row rows[] = { row(1, 1, 0, 0, 5, NAN), row(2, 1, 0, 0, 6, NAN) };
	struct sim_row apart[] = { row(1, 1, 5, 10, 1, 50), row(2, 1, 5, 5, 50, 10) };
	struct sim_advice a;

	(void)state;
	sim_advise(rows, ARRAY_SIZE(rows), 10, 10, &a, NULL);
	assert_int_equal(a.pick, -1);
	assert_int_equal(a.most_finished, 0);
	/* the least waste and the soonest finish in different runs, each far off in the other */
	sim_advise(apart, ARRAY_SIZE(apart), 10, 10, &a, NULL);
	assert_int_equal(a.pick, -1);
	assert_int_equal(a.neligible, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_churn_sequences_upload_one_mth),
		cmocka_unit_test(test_no_churn_answers_every_n),
		cmocka_unit_test(test_m1_sequences_upload_what_chunks_do),
		cmocka_unit_test(test_everyone_leaves_nothing_finishes),
		cmocka_unit_test(test_vanished_host_restarts_from_last_state),
		cmocka_unit_test(test_vanished_host_m1_loses_only_the_segment_in_progress),
		cmocka_unit_test(test_outvoted_segments_relocate),
		cmocka_unit_test(test_hosts_too_slow_take_no_sequence),
		cmocka_unit_test(test_script_decision_log),
		cmocka_unit_test(test_same_seed_same_output),
		cmocka_unit_test(test_advise_fewest_bytes_within_limits),
		cmocka_unit_test(test_advise_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
