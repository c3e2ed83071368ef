/*
 * Unit tests for the files of a sequence app read from bytes
 * (backend/seq_layout.c): sequence templates, their state levels, and
 * sequence app plans.
 */
#include "unit.h"
#include "log.h"
#include "sequence.h"

static void test_layout(void **state)
{
	static const char text[] =
		"<sequence_template>\n"
		"  <state><open_name_in>state_in</open_name_in><open_name_out>state_out</open_name_out>\n"
		"    <max_nbytes>4e9</max_nbytes></state>\n"
		"  <state><open_name_in>aux_in</open_name_in><open_name_out>aux_out</open_name_out></state>\n"
		"  <answer><open_name>answer</open_name></answer>\n"
		"</sequence_template>\n";
	struct seq_layout l;

	(void)state;
	assert_int_equal(seq_layout_parse(text, strlen(text), "layout", &l), 0);
	assert_int_equal(l.nstate, 2);
	assert_int_equal(l.nanswer, 1);
	assert_true(l.state[0].max_nbytes == 4e9);
	assert_true(l.state[1].max_nbytes == 0);        /* the sequence's rsc_disk_bound */
	assert_true(l.answer[0].max_nbytes == 1e7);
	assert_string_equal(l.state[1].open_out, "aux_out");
	seq_layout_release(&l);
}

/* Found by fuzz_seq_template: <max_nbytes>nan</max_nbytes> (and inf) was taken. */
static void test_layout_bad_sizes(void **state)
{
	static const char *const bad[] = { "nan", "inf", "-inf", "-1", "0", "0.5", "1e300", "abc", "" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("<sequence_template><state><open_name_in>a</open_name_in>"
				       "<open_name_out>b</open_name_out><max_nbytes>%s</max_nbytes></state>"
				       "</sequence_template>", bad[i]);
		char *answer = xasprintf("<sequence_template><state><open_name_in>a</open_name_in>"
					 "<open_name_out>b</open_name_out></state><answer>"
					 "<open_name>c</open_name><max_nbytes>%s</max_nbytes></answer>"
					 "</sequence_template>", bad[i]);
		struct seq_layout l;

		assert_int_equal(seq_layout_parse(text, strlen(text), "bad", &l), -1);
		assert_int_equal(seq_layout_parse(answer, strlen(answer), "bad", &l), -1);
		free(text);
		free(answer);
	}
}

#define ST(lv) "<state><open_name_in>i</open_name_in><open_name_out>o</open_name_out>" lv "</state>\n"
#define LEVEL(n, k) "<level><name>" n "</name><upload_every>" k "</upload_every></level>\n"

/* Levels: a state's period from its level, its own <upload_every>, or M (0). */
static void test_levels(void **state)
{
	static const char text[] =
		"<sequence_template>\n"
		ST("<level>full</level>")
		LEVEL("full", "12") LEVEL("delta", "3")
		ST("<level>delta</level>")
		ST("<upload_every>6</upload_every>")
		ST("")
		"</sequence_template>\n";
	struct seq_layout l;

	(void)state;
	assert_int_equal(seq_layout_parse(text, strlen(text), "levels", &l), 0);
	assert_int_equal(l.nstate, 4);
	assert_int_equal(l.state[0].upload_every, 12);
	assert_string_equal(l.state[0].level, "full");
	assert_int_equal(l.state[1].upload_every, 3);
	assert_int_equal(l.state[2].upload_every, 6);
	assert_null(l.state[2].level);
	assert_int_equal(l.state[3].upload_every, 0);
	/* M for the last state: 3 and 6 nest with 12, 5 and 4 do not */
	assert_int_equal(seq_layout_check_every(&l, 3, "s"), 0);
	assert_int_equal(seq_layout_check_every(&l, 12, "s"), 0);
	assert_int_equal(seq_layout_check_every(&l, 5, "s"), -1);
	assert_int_equal(seq_layout_check_every(&l, 4, "s"), -1);
	seq_layout_release(&l);
}

/* An old template (no levels) with any M. */
static void test_levels_none(void **state)
{
	static const char text[] = "<sequence_template>" ST("") ST("") "</sequence_template>";
	struct seq_layout l;

	(void)state;
	assert_int_equal(seq_layout_parse(text, strlen(text), "old", &l), 0);
	assert_int_equal(l.state[0].upload_every, 0);
	assert_int_equal(seq_layout_check_every(&l, 7, "s"), 0);
	seq_layout_release(&l);
}

/* Parse text, expecting a refusal whose logged message holds want. */
static void refused(const char *text, const char *want)
{
	char path[] = "/tmp/test_seq_layout.XXXXXX", buf[4096];
	struct seq_layout l;
	int fd = mkstemp(path);
	ssize_t n;

	assert_true(fd >= 0);
	log_init("test_seq_layout", path);
	assert_int_equal(seq_layout_parse(text, strlen(text), "tpl", &l), -1);
	log_init("test_seq_layout", "/dev/null");
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = 0;
	if (!strstr(buf, want))
		fail_msg("wanted \"%s\" in: %s", want, buf);
	close(fd);
	unlink(path);
}

/* Every template error of issue 30, each with its line. */
static void test_levels_refused(void **state)
{
	(void)state;
	refused("<sequence_template>\n" LEVEL("full", "12") LEVEL("delta", "5")
		ST("<level>full</level>") ST("<level>delta</level>") "</sequence_template>",
		"tpl:5: state periods do not nest: level \"full\" (every 12, line 2) and "
		"level \"delta\" (every 5, line 3)");
	refused("<sequence_template>\n" ST("<upload_every>4</upload_every>")
		ST("<upload_every>6</upload_every>") "</sequence_template>",
		"tpl:3: state periods do not nest: the state at line 2 (every 4) and the state at line 3 (every 6)");
	refused("<sequence_template>\n" LEVEL("full", "12") LEVEL("delta", "3")
		ST("<level>full</level>") "</sequence_template>",
		"tpl:3: level \"delta\" is a level with no state");
	refused("<sequence_template>\n" ST("<level>full</level>") "</sequence_template>",
		"tpl:2: a <state> names level \"full\", which no <level> declares");
	refused("<sequence_template>\n" LEVEL("full", "12")
		ST("<level>full</level><upload_every>3</upload_every>") "</sequence_template>",
		"tpl:3: a <state> has a <level> or an <upload_every>, not both");
	refused("<sequence_template>\n" LEVEL("full", "12") LEVEL("full", "6")
		ST("<level>full</level>") "</sequence_template>",
		"tpl:3: level \"full\" is declared twice (first at line 2)");
	refused("<sequence_template>\n" LEVEL("", "12") ST("") "</sequence_template>",
		"tpl:2: a <level> needs a <name>");
	refused("<sequence_template>\n<level><name>x</name></level>" ST("") "</sequence_template>",
		"tpl:2: a <level> needs a <name>");
}

/* Periods: whole numbers 1 to 1e6, in a <level> or a <state>. */
static void test_levels_bad_periods(void **state)
{
	static const char *const bad[] = { "0", "-3", "2.5", "1e7", "1000001", "nan", "abc", "" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *lv = xasprintf("<sequence_template>\n<level><name>f</name><upload_every>%s"
				     "</upload_every></level>" ST("<level>f</level>")
				     "</sequence_template>", bad[i]);
		char *st = xasprintf("<sequence_template>\n" ST("<upload_every>%s</upload_every>")
				     "</sequence_template>", bad[i]);

		refused(lv, "tpl:2: a <level> needs");
		refused(st, "tpl:2: a <state>'s <upload_every> is a whole number");
		free(lv);
		free(st);
	}
}

/* A state file's index from its name: seq_state_name's suffix, read back. */
static void test_state_index(void **state)
{
	static const char *const bad[] = { "S_b0_s1_answer", "S_b0_s1_state01", "S_b0_s1_statex",
					   "S_b0_s1_state8", "S_b0_s1_state99999999999", "", "x" };
	size_t i;

	(void)state;
	for (i = 0; i < SEQ_MAX_FILES; i++) {
		char *name = seq_state_name("my_state_seq", 3, 17, i);

		assert_int_equal(seq_state_index(name), (int)i);
		free(name);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(seq_state_index(bad[i]), -1);
	assert_int_equal(seq_state_index(NULL), -1);
}

static void test_plan(void **state)
{
	static const char good[] = "<sequence_app><segments>30</segments><high_water>3</high_water>"
				   "<open_ended/></sequence_app>";
	static const char exp[] = "<sequence_app><segments>1e1</segments>"
				  "<max_result_time>1.5</max_result_time></sequence_app>";
	static const char *const bad[] = {
		"<sequence_app><segments>nan</segments></sequence_app>",
		"<sequence_app><segments>30</segments><max_result_time>inf</max_result_time></sequence_app>",
		"<sequence_app><answer_every>2</answer_every></sequence_app>",
		/* counts are whole: a fraction was cast down (delay_bound .2 became 0 s) */
		"<sequence_app><segments>30</segments><delay_bound>.2</delay_bound></sequence_app>",
		"<sequence_app><segments>2.5</segments></sequence_app>",
		"<sequence_app><segments>30</segments><high_water>1e3</high_water></sequence_app>",
		"<not_a_plan/>",
	};
	struct sbuf err = SBUF_INIT(1024);
	struct seq_spec spec;
	size_t i;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(seq_app_plan_parse(good, strlen(good), "plan", &spec, &err), 1);
	assert_int_equal(spec.segments, 30);
	assert_int_equal(spec.high_water, 3);
	assert_int_equal(spec.delay_bound, 2 * 86400);
	assert_true(spec.open_ended);
	/* an integer may be written 1e1; a time may have a fraction */
	assert_int_equal(seq_app_plan_parse(exp, strlen(exp), "plan", &spec, &err), 1);
	assert_int_equal(spec.segments, 10);
	assert_int_equal(spec.delay_bound, 3);
	free((char *)spec.seq_template);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sbuf_reset(&err);
		assert_int_equal(seq_app_plan_parse(bad[i], strlen(bad[i]), "plan", &spec, &err), -1);
		assert_true(err.len > 0);
	}
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_layout_bad_sizes),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_levels_none),
		cmocka_unit_test(test_levels_refused),
		cmocka_unit_test(test_levels_bad_periods),
		cmocka_unit_test(test_state_index),
		cmocka_unit_test(test_plan),
	};

	log_init("test_seq_layout", "/dev/null");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
