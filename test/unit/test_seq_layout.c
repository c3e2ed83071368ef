/*
 * Unit tests for the files of a sequence app read from bytes
 * (backend/sequence.c): sequence templates and sequence app plans.
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
		cmocka_unit_test(test_plan),
	};

	log_init("test_seq_layout", "/dev/null");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
