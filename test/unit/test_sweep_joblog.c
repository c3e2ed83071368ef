/*
 * Unit tests for the joblog of `sweep --joblog` (sweep/master/sweep_joblog.c):
 * a line in GNU parallel's format, the exit status from a client's reason,
 * and reading a joblog back for --resume-failed, with the doc's example.
 */
#include "test_sweep_util.h"
#include "sweep_joblog.h"
#include "fileutil.h"
#include "sweep_files.h"
#include "sweep_store.h"

static void test_line(void **state)
{
	struct sbuf b = SBUF_INIT(4096);
	struct sweep_joblog_run r = { 7, "alice@node1:2222", 1795916929, 1.25, 3, 0,
				      "./worker -a 1 --label 'two\twords'" };

	(void)state;
	sweep_joblog_line(&b, &r);
	assert_string_equal(sbuf_str(&b), "7\talice@node1:2222\t1795916929.000\t1.250\t0\t0\t3\t0\t"
			    "./worker -a 1 --label 'two words'\n");
	sbuf_reset(&b);
	r.host = NULL;
	r.command = "a\nb";
	r.exitval = SWEEP_JOBLOG_KILLED;
	r.signal = 9;
	sweep_joblog_line(&b, &r);
	assert_string_equal(sbuf_str(&b), "7\t:\t1795916929.000\t1.250\t0\t0\t-1\t9\ta b\n");
	sbuf_release(&b);
}

static void expect_why(const char *why, int exitval, int sig)
{
	int e, s;

	sweep_joblog_why(why, &e, &s);
	if (e != exitval || s != sig)
		fail_msg("'%s': exitval %d signal %d, want %d %d", why ? why : "(null)", e, s,
			 exitval, sig);
}

static void test_why(void **state)
{
	(void)state;
	expect_why("the worker exited with status 3", 3, 0);
	expect_why("the worker exited with status 127 (could it start?)", 127, 0);
	expect_why("the worker was killed by signal 11", -1, 11);
	expect_why("timeout: still running after 5 s, killed", -1, 9);
	expect_why("no result file 'table.csv'", -1, 0);
	expect_why(NULL, -1, 0);
}

/* A failed ticket's Exitval and Signal: what its client reported, else the guess from why=. */
static void expect_outcome(const struct sweep_files *f, const char *body, const char *note,
			   int exitval, int sig)
{
	struct sweep_ticket t = { .row = 1, .name = "abc123", .state = SWEEP_TICKET_FAILED,
				  .sent_time = 100, .received_time = 101, .note = (char *)note };
	struct sbuf path = SBUF_INIT(4096);
	int ev = 99, sg = 99;

	assert_int_equal(sweep_files_result(f, t.name, true, &path), 0);
	unlink(sbuf_str(&path));
	if (body)
		assert_int_equal(write_file_atomic(sbuf_str(&path), body, strlen(body), 0644), 0);
	assert_true(sweep_joblog_outcome(f, &t, &ev, &sg));
	if (ev != exitval || sg != sig)
		fail_msg("%s / %s: Exitval %d Signal %d, not %d %d", body ? body : "(none)", note, ev,
			 sg, exitval, sig);
	sbuf_release(&path);
}

static void test_outcome(void **state)
{
	char dir[] = "/tmp/test_sweep_joblog.XXXXXX";
	struct sweep_files f = { NULL, NULL, 0 };
	struct sweep_ticket sent = { .state = SWEEP_TICKET_VALID };
	int ev, sg;

	(void)state;
	assert_non_null(mkdtemp(dir));
	f.results = dir;
	expect_outcome(&f, "Exit=7\n[Stderr]\nLength=1\n--begin content--\nx\n--end content--\n",
		       "why=no result file 'x'\n", 7, 0);
	expect_outcome(&f, "Signal=11\n", "why=the worker exited with status 3\n", -1, 11);
	/* no report, a report without Exit or Signal, a malformed one: the guess */
	expect_outcome(&f, NULL, "why=the worker exited with status 3\n", 3, 0);
	expect_outcome(&f, "[Stdout]\nLength=0\n--begin content--\n\n--end content--\n",
		       "why=the worker exited with status 4\n", 4, 0);
	expect_outcome(&f, "Exit=300\n", "why=the worker was killed by signal 9\n", -1, 9);
	/* a ticket never sent is no run */
	assert_false(sweep_joblog_outcome(&f, &sent, &ev, &sg));
	remove_tree(dir);
}

static void test_parse(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	const char *text =
		SWEEP_JOBLOG_HEADER "\n"
		"1\th\t1.000\t0.5\t0\t0\t0\t0\t./w 1\n"
		"3\th\t1.000\t0.5\t0\t0\t2\t0\t./w 3\r\n"
		"\n"
		"4\t:\t1.000\t0.5\t0\t0\t0\t15\t./w\t4 with a tab\n"
		"3\th\t2.000\t0.5\t0\t0\t0\t0\t./w 3\n"
		"5\th\t2.000\t0.5\t0\t0\t-2\t0\t./w 5";
	bool *ok;
	size_t n;

	(void)state;
	assert_int_equal(sweep_joblog_parse("log", text, strlen(text), &ok, &n, &err), 0);
	assert_int_equal(n, 3);         /* the highest good seq */
	assert_true(ok[0]);
	assert_false(ok[1]);            /* never ran */
	assert_true(ok[2]);             /* failed once, then done */
	free(ok);
	assert_int_equal(sweep_joblog_parse("log", "", 0, &ok, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(ok);
	sbuf_release(&err);
}

static void expect_error(const char *text, const char *want)
{
	struct sbuf err = SBUF_INIT(4096);
	bool *ok;
	size_t n;

	if (sweep_joblog_parse("log", text, strlen(text), &ok, &n, &err) != -1)
		fail_msg("parsed, but should fail with %s:\n%s", want, text);
	assert_err(&err, want);
	assert_null(ok);
	assert_int_equal(n, 0);
	sbuf_release(&err);
}

static void test_errors(void **state)
{
	static const char why[] = ": not a joblog line (Seq, Host, Starttime, JobRuntime, Send, "
				  "Receive, Exitval, Signal, Command, tab-separated)";
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "log:2%s", why);
	expect_error(SWEEP_JOBLOG_HEADER "\n1\th\t1\t0\t0\t0\t0\t0\n", want);
	expect_error(SWEEP_JOBLOG_HEADER "\nx\th\t1\t0\t0\t0\t0\t0\tc\n", want);
	expect_error(SWEEP_JOBLOG_HEADER "\n0\th\t1\t0\t0\t0\t0\t0\tc\n", want);
	expect_error(SWEEP_JOBLOG_HEADER "\n1\th\t1\t0\t0\t0\t-\t0\tc\n", want);
	expect_error(SWEEP_JOBLOG_HEADER "\n9999999999\th\t1\t0\t0\t0\t0\t0\tc\n", want);
	expect_error(SWEEP_JOBLOG_HEADER "\n16777217\th\t1\t0\t0\t0\t0\t0\tc\n", want);
	snprintf(want, sizeof(want), "log:1%s", why);
	expect_error("Seq Host\n", want);
}

/* The ```joblog blocks of doc/sweep.md read back. */
static void test_doc_examples(void **state)
{
	struct sbuf err = SBUF_INIT(4096);
	struct doc_block *b;
	size_t n = doc_blocks("doc/sweep.md", "joblog", &b), i, k;
	bool *ok;

	(void)state;
	assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		if (sweep_joblog_parse("doc", b[i].text, strlen(b[i].text), &ok, &k, &err) < 0)
			fail_msg("doc/sweep.md:%d: %s", b[i].line, sbuf_str(&err));
		free(ok);
	}
	doc_blocks_free(b, n);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_why),
		cmocka_unit_test(test_outcome),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_doc_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
