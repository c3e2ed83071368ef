/* Unit tests for wseq_sim's scenario file and --grid (sim/sim_scenario.c, sim/sim_grid.c). */
#include "unit.h"
#include "sim_scenario.h"
#include "sim_grid.h"

static int parse(struct sim_scenario *sc, const char *text, char *err)
{
	sim_scenario_defaults(sc);
	return sim_scenario_parse(sc, text, strlen(text), "sc", err, 256);
}

static void test_keys_and_comments(void **state)
{
	struct sim_scenario sc;
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(&sc, "# a scenario\n\nseed 99\nhosts 10   # H\n"
				    "host_on_hours weibull 0.5 4\nhost_off_hours exp 2\n"
				    "host_life_days none\nsequences 3\nlength_days 10\n"
				    "segment_days 3\r\nstate_mb 5\nreplicas 2\n", err), 0);
	assert_true(sc.seed == 99);
	assert_int_equal(sc.hosts, 10);
	assert_int_equal(sc.on_hours.kind, SIM_DIST_WEIBULL);
	assert_true(sc.on_hours.p1 == 0.5 && sc.on_hours.p2 == 4);
	assert_int_equal(sc.off_hours.kind, SIM_DIST_EXP);
	assert_int_equal(sc.life_days.kind, SIM_DIST_NONE);
	assert_int_equal(sc.sequences, 3);
	assert_int_equal(sim_scenario_segments(&sc), 4);  /* 3 + 3 + 3 + 1 */
	assert_int_equal(sc.replicas, 2);
	assert_true(sc.state_mb == 5);
}

static void test_errors_name_the_line(void **state)
{
	struct sim_scenario sc;
	char err[256];

	(void)state;
	assert_int_equal(parse(&sc, "hosts 1\nhostz 3\n", err), -1);
	assert_string_equal(err, "sc:2: unknown key 'hostz'");
	assert_int_equal(parse(&sc, "hosts 0\n", err), -1);
	assert_non_null(strstr(err, "sc:1: integer out of range"));
	assert_int_equal(parse(&sc, "wrong_fraction 1.5\n", err), -1);
	assert_int_equal(parse(&sc, "length_days nan\n", err), -1);
	assert_int_equal(parse(&sc, "hosts\n", err), -1);
	assert_non_null(strstr(err, "no value"));
	assert_int_equal(parse(&sc, "hosts 1 2\n", err), -1);
	assert_int_equal(parse(&sc, "host_on_hours weibull 0.4\n", err), -1);
	assert_non_null(strstr(err, "bad distribution"));
	assert_int_equal(parse(&sc, "host_on_hours none\n", err), -1);
	assert_int_equal(parse(&sc, "host_speed uniform 3 1\n", err), -1);
	assert_int_equal(parse(&sc, "replicas 9\n", err), -1);
	assert_int_equal(parse(&sc, "seed -1\n", err), -1);
	assert_int_equal(parse(&sc, "segment_days 0.000001\nlength_days 100000\n", err), -1);
	assert_non_null(strstr(err, "segments"));
	assert_int_equal(parse(&sc, "sequences 10000000\nsegment_days 0.1\nlength_days 1000\n", err), -1);
	assert_non_null(strstr(err, "10^9 segments in all"));
	assert_int_equal(sim_scenario_parse(&sc, "hosts 1\0", 8, "sc", err, sizeof(err)), -1);
}

static void test_write_parses_back(void **state)
{
	struct sim_scenario a, b;
	char err[256], *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *fp;

	(void)state;
	assert_int_equal(parse(&a, "host_speed uniform 0.5 2\nhost_life_days none\nseed 18446744073709551615\n",
			       err), 0);
	fp = open_memstream(&buf, &len);
	sim_scenario_write(&a, fp);
	fclose(fp);
	sim_scenario_defaults(&b);
	b.hosts = 7;
	assert_int_equal(sim_scenario_parse(&b, buf, len, "w", err, sizeof(err)), 0);
	fp = open_memstream(&buf2, &len2);
	sim_scenario_write(&b, fp);
	fclose(fp);
	assert_string_equal(buf, buf2);
	assert_true(b.seed == UINT64_MAX && b.hosts == a.hosts && b.speed.p2 == 2);
	free(buf);
	free(buf2);
}

/* avail and leave lines: a script of host events, in the order of the lines */
static void test_script(void **state)
{
	struct sim_scenario a, b;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_int_equal(parse(&a, "hosts 3\navail 2 0.5 4\nleave 3 7 # gone\navail 2 6 8\n", err), 0);
	assert_int_equal(a.nscript, 5);
	assert_int_equal(a.script[0].host, 1);
	assert_int_equal(a.script[0].kind, SIM_SCRIPT_ON);
	assert_true(a.script[0].hours == 0.5 && a.script[1].hours == 4);
	assert_int_equal(a.script[1].kind, SIM_SCRIPT_OFF);
	assert_int_equal(a.script[2].kind, SIM_SCRIPT_LEAVE);
	assert_int_equal(a.script[2].host, 2);
	assert_true(a.script[4].hours == 8);
	fp = open_memstream(&buf, &len);
	sim_scenario_write(&a, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "avail 2 0.5 4\nleave 3 7\navail 2 6 8\n"));
	assert_int_equal(parse(&b, buf, err), 0);
	assert_int_equal(b.nscript, 5);
	assert_memory_equal(a.script, b.script, sizeof(a.script[0]) * 5);
	free(buf);

	assert_int_equal(parse(&a, "hosts 3\navail 2 4 4\n", err), -1);
	assert_string_equal(err, "sc:2: bad hours for 'avail'");
	assert_int_equal(parse(&a, "avail 0 1 2\n", err), -1);
	assert_non_null(strstr(err, "bad host number"));
	assert_int_equal(parse(&a, "avail 1.5 1 2\n", err), -1);
	assert_int_equal(parse(&a, "leave 1 2 3\n", err), -1);
	assert_non_null(strstr(err, "leave HOST AT"));
	assert_int_equal(parse(&a, "avail 1 2\n", err), -1);
	assert_int_equal(parse(&a, "leave 1 -1\n", err), -1);
	assert_int_equal(parse(&a, "hosts 2\nleave 3 1\n", err), -1);
	assert_non_null(strstr(err, "past `hosts`"));
	sim_scenario_defaults(&a);
	while (a.nscript < SIM_MAX_SCRIPT)
		assert_int_equal(sim_scenario_parse(&a, "leave 1 1\n", 10, "sc", err, sizeof(err)), 0);
	assert_int_equal(sim_scenario_parse(&a, "leave 1 1\n", 10, "sc", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too many"));
}

static void test_grid_axes_and_order(void **state)
{
	struct sim_grid w;
	struct sim_scenario sc;
	char err[256] = "";
	size_t i;
	/* M slowest (given first), then the segment, then N */
	static const struct { long m; double seg; long n; } want[] = {
		{ 1, 0.25, 1 }, { 1, 0.25, 3 }, { 1, 1, 1 }, { 1, 1, 3 }, { 1, 1.5, 1 }, { 1, 1.5, 3 },
		{ 8, 0.25, 1 }, { 8, 0.25, 3 }, { 8, 1, 1 }, { 8, 1, 3 }, { 8, 1.5, 1 }, { 8, 1.5, 3 },
	};

	(void)state;
	sim_grid_init(&w);
	assert_int_equal(sim_grid_runs(&w), 1);
	sim_scenario_defaults(&sc);
	assert_int_equal(sim_grid_apply(&w, 0, &sc, err, sizeof(err)), 0);
	assert_int_equal(sc.state_every, 7);
	assert_int_equal(sim_grid_add(&w, "M=1,8", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_add(&w, "segment_days=6h,1d,1.5", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_add(&w, "answer_every=1,3", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_runs(&w), ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		sim_scenario_defaults(&sc);
		assert_int_equal(sim_grid_apply(&w, i, &sc, err, sizeof(err)), 0);
		assert_int_equal(sc.state_every, want[i].m);
		assert_true(sc.segment_days == want[i].seg);
		assert_int_equal(sc.answer_every, want[i].n);
	}
}

static void test_grid_errors(void **state)
{
	static const struct { const char *arg, *msg; } bad[] = {
		{ "M", "expected N=..., M=..., segment=... or L1=..." },
		{ "K=1", "expected N=" },
		{ "m=1", "expected N=" },
		{ "M=", "bad value ''" },
		{ "M=1,", "bad value ''" },
		{ "M=,1", "bad value ''" },
		{ "M=0", "bad value '0'" },
		{ "M=1000001", "bad value" },
		{ "N=2.5", "bad value '2.5'" },
		{ "N=1h", "bad value '1h'" },
		{ "segment=h", "bad value 'h'" },
		{ "segment=0", "bad value '0'" },
		{ "segment=-1d", "bad value" },
		{ "segment=1e6", "bad value" },
		{ "segment=nan", "bad value" },
		{ "segment=1w", "bad value '1w'" },
		{ "segment=123456789012345678901234567890123", "bad value" },
	};
	struct sim_grid w;
	struct sim_scenario sc;
	char err[256], many[1024] = "N=1";
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sim_grid_init(&w);
		err[0] = '\0';
		assert_int_equal(sim_grid_add(&w, bad[i].arg, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].msg))
			fail_msg("%s: %s", bad[i].arg, err);
		assert_int_equal(w.naxes, 0);
	}
	sim_grid_init(&w);
	assert_int_equal(sim_grid_add(&w, "M=2", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_add(&w, "state_every=3", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "M given twice"));
	/* 101 values of one, or more than 10000 runs in all */
	for (i = 2; i <= 101; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%zu", i);
	sim_grid_init(&w);
	assert_int_equal(sim_grid_add(&w, many, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 100 values"));
	many[strlen(many) - 4] = '\0';         /* N=1,...,100 */
	assert_int_equal(sim_grid_add(&w, many, err, sizeof(err)), 0);
	many[0] = 'M';
	assert_int_equal(sim_grid_add(&w, many, err, sizeof(err)), 0);
	assert_int_equal(sim_grid_runs(&w), 10000);
	assert_int_equal(sim_grid_add(&w, "segment=1,2", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 10000 runs"));
	assert_int_equal(w.naxes, 2);
	/* a segment length the scenario's limits refuse is an error when applied */
	sim_grid_init(&w);
	assert_int_equal(sim_grid_add(&w, "segment=1,0.00001", err, sizeof(err)), 0);
	sim_scenario_defaults(&sc);
	assert_int_equal(sim_grid_apply(&w, 0, &sc, err, sizeof(err)), 0);
	assert_int_equal(sim_grid_apply(&w, 1, &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 1000000 segments a component"));
}

/* a scenario a program filled in (create_sequence --advise) is checked against the keys' bounds */
static void test_check_filled_in(void **state)
{
	struct sim_scenario sc;
	char err[256];

	(void)state;
	sim_scenario_defaults(&sc);
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), 0);
	sc.replicas = 9;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -1);
	assert_string_equal(err, "replicas 9 is out of its bounds, 1 to 8");
	sim_scenario_defaults(&sc);
	sc.segment_days = 1e-7;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "segment_days 1e-07 is out of its bounds"));
	sim_scenario_defaults(&sc);
	sc.segment_days = 1e-5;         /* within its bounds, but 3 million segments */
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 1000000 segments a component");
}

/* state_levels: the syntax, nesting (with M) checked at the end, errors at its line */
static void test_state_levels(void **state)
{
	struct sim_scenario sc;
	struct sim_grid w;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_int_equal(parse(&sc, "state_levels 1000:12,20:3\n", err), 0);
	assert_int_equal(sc.nlevels, 2);
	assert_true(sc.levels[0].mb == 1000 && sc.levels[0].every == 12);
	assert_true(sc.levels[1].mb == 20 && sc.levels[1].every == 3);
	assert_true(sim_scenario_state_mb(&sc) == 1020);
	/* no period: M's, checked once M is read */
	assert_int_equal(parse(&sc, "state_levels 1000,20:3\nstate_every 12\n", err), 0);
	assert_int_equal(sim_level_period(&sc, 0), 12);
	assert_int_equal(parse(&sc, "hosts 3\nstate_levels 1000,20:3\nstate_every 4\n", err), -1);
	assert_string_equal(err, "sc:2: state_levels: the periods 4,3 do not nest (each must divide "
				 "every larger one; level 1's does not)");
	assert_int_equal(parse(&sc, "state_levels 1000:12,20:5\n", err), -1);
	assert_non_null(strstr(err, "sc:1: state_levels: the periods 12,5 do not nest"));
	assert_int_equal(parse(&sc, "state_levels 1000:0\n", err), -1);
	assert_non_null(strstr(err, "sc:1: state_levels: bad level '1000:0'"));
	assert_int_equal(parse(&sc, "state_levels 1e8:2\n", err), -1);
	assert_int_equal(parse(&sc, "state_levels 10:2,,1:1\n", err), -1);
	assert_int_equal(parse(&sc, "state_levels 10:2x\n", err), -1);
	assert_int_equal(parse(&sc, "state_levels 1,1,1,1,1,1,1,1,1\n", err), -1);
	assert_non_null(strstr(err, "more than 8 levels"));
	assert_int_equal(parse(&sc, "state_levels 10:2 1:1\n", err), -1);
	/* written back, it reads the same; without levels nothing is written */
	assert_int_equal(parse(&sc, "state_levels 1000:12,20.5,3:3\nstate_every 6\n", err), 0);
	fp = open_memstream(&buf, &len);
	sim_scenario_write(&sc, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "\nstate_levels 1000:12,20.5,3:3\n"));
	assert_int_equal(sim_scenario_parse(&sc, buf, len, "w", err, sizeof(err)), 0);
	assert_int_equal(sc.nlevels, 3);
	free(buf);
	buf = NULL;
	sim_scenario_defaults(&sc);
	fp = open_memstream(&buf, &len);
	sim_scenario_write(&sc, fp);
	fclose(fp);
	assert_null(strstr(buf, "state_levels"));
	free(buf);
	/* a grid over the periods: combinations that do not nest are left out (1) */
	assert_int_equal(parse(&sc, "state_levels 1000:12,20:3\n", err), 0);
	sim_grid_init(&w);
	assert_int_equal(sim_grid_add(&w, "L1=12,16", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_add(&w, "level2=3,4", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_apply(&w, 0, &sc, err, sizeof(err)), 0);     /* 12/3 */
	assert_int_equal(sim_grid_apply(&w, 1, &sc, err, sizeof(err)), 0);     /* 12/4 */
	assert_int_equal(sim_grid_apply(&w, 2, &sc, err, sizeof(err)), 1);     /* 16/3 */
	assert_int_equal(sim_grid_apply(&w, 3, &sc, err, sizeof(err)), 0);     /* 16/4 */
	assert_true(sc.levels[0].every == 16 && sc.levels[1].every == 4);
	assert_int_equal(sim_grid_add(&w, "L3=1", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_apply(&w, 0, &sc, err, sizeof(err)), -1);
	assert_string_equal(err, "--grid L3: the scenario has 2 state levels");
	assert_int_equal(sim_grid_add(&w, "L9=1", err, sizeof(err)), -1);
	/* a program's levels are checked as the parser's */
	sc.levels[1].every = 5;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "do not nest"));
	sc.levels[1].every = -1;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of its bounds"));
}

/* create_sequence --advise adds its own M and segment to the default axes */
static void test_grid_include(void **state)
{
	struct sim_grid w;
	char err[256];

	(void)state;
	sim_grid_init(&w);
	assert_int_equal(sim_grid_add(&w, "M=1,2,4,8,16", err, sizeof(err)), 0);
	assert_int_equal(sim_grid_include(&w, SIM_GRID_M, 7, err, sizeof(err)), 0);
	assert_int_equal(sim_grid_include(&w, SIM_GRID_M, 4, err, sizeof(err)), 0);
	assert_int_equal(sim_grid_include(&w, SIM_GRID_M, 32, err, sizeof(err)), 0);
	assert_int_equal(w.naxes, 1);
	assert_int_equal(w.axis[0].n, 7);
	assert_true(w.axis[0].v[3] == 7 && w.axis[0].v[4] == 8 && w.axis[0].v[6] == 32);
	/* an axis not there yet is made */
	assert_int_equal(sim_grid_include(&w, SIM_GRID_SEGMENT, 1 / 24.0, err, sizeof(err)), 0);
	assert_int_equal(w.naxes, 2);
	assert_int_equal(w.axis[1].param, SIM_GRID_SEGMENT);
	assert_int_equal(sim_grid_runs(&w), 7);
	/* the bounds of the scenario */
	assert_int_equal(sim_grid_include(&w, SIM_GRID_M, 2.5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--grid M: bad value 2.5"));
	assert_int_equal(sim_grid_include(&w, SIM_GRID_SEGMENT, 1e-9, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--grid segment: bad value"));
	assert_int_equal(sim_grid_include(&w, SIM_GRID_N, 0, err, sizeof(err)), -1);
	assert_int_equal(w.naxes, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_comments),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_write_parses_back),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_grid_axes_and_order),
		cmocka_unit_test(test_grid_errors),
		cmocka_unit_test(test_grid_include),
		cmocka_unit_test(test_check_filled_in),
		cmocka_unit_test(test_state_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
