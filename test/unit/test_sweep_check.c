/*
 * Unit tests for the /complete body check of the sweep endpoints
 * (sweep/endpoints/sweep_check.c): what a client must post for a ticket to end well.
 */
#include "unit.h"
#include "sweep_check.h"

#define TASK "CommandLine=./worker 3\n[Result]\nName=out\nFile=stdout\n" \
	     "[Result]\nName=table\nFile=table.csv\n"

static int check(const char *task, const char *body, struct sbuf *why)
{
	sbuf_reset(why);
	return sweep_check_results(task, body, strlen(body), why);
}

static void test_the_results_the_task_asks_for(void **state)
{
	struct sbuf why = SBUF_INIT(4096);

	(void)state;
	assert_int_equal(check(TASK, "[Result]\nName=table\nLength=2\n--begin content--\nab\n"
			       "--end content--\n[Result]\nName=out\n--begin content--\n"
			       "--end content--\n", &why), 0);
	sbuf_release(&why);
}

static void test_refusals_say_why(void **state)
{
	static const struct {
		const char *body, *why;
	} bad[] = {
		{ "", "an empty results body" },
		{ "hello\n", "complete:1" },
		{ "[Result]\nName=out\nLength=100\n--begin content--\nab\n--end content--\n",
		  "runs past the end" },
		{ "[Result]\nName=out\n--begin content--\nx\n--end content--\n",
		  "no [Result] 'table', which the task asks for" },
		{ "[Result]\nName=out\n--begin content--\nx\n--end content--\n[Result]\nName=table\n"
		  "--begin content--\ny\n--end content--\n[Result]\nName=extra\n--begin content--\n"
		  "z\n--end content--\n", "a [Result] the task does not ask for: extra" },
	};
	struct sbuf why = SBUF_INIT(4096);
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(check(TASK, bad[i].body, &why), 1);
		if (!strstr(sbuf_str(&why), bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, sbuf_str(&why), bad[i].why);
	}
	sbuf_release(&why);
}

static void test_a_task_that_cannot_be_read(void **state)
{
	struct sbuf why = SBUF_INIT(4096);
	const char *body = "[Result]\nName=out\n--begin content--\nx\n--end content--\n";

	(void)state;
	assert_int_equal(check(NULL, body, &why), -1);
	assert_int_equal(check("CommandLine=x\n", body, &why), -1);     /* no [Result] */
	assert_non_null(strstr(sbuf_str(&why), "no [Result] section"));
	/* an empty or malformed body is refused before the task is looked at */
	assert_int_equal(check(NULL, "", &why), 1);
	sbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_results_the_task_asks_for),
		cmocka_unit_test(test_refusals_say_why),
		cmocka_unit_test(test_a_task_that_cannot_be_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
