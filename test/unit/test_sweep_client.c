/*
 * Unit tests for the parts of sweep_client that need no master: the ticket
 * of a garbled task, the command-line split, the worker check.
 */
#include "unit.h"
#include "sweep_client.h"
#include "md5.h"

#include <sys/stat.h>

static void expect_ticket(const char *body, const char *want)
{
	char *got = sc_salvage_ticket(body, strlen(body));

	if (want) {
		assert_non_null(got);
		assert_string_equal(got, want);
	} else {
		assert_null(got);
	}
	free(got);
}

static void test_salvage(void **state)
{
	(void)state;
	expect_ticket("Ticket=48213\nTimeout=x\n[Input]\nFile=../a\n", "48213");
	expect_ticket("\n  Ticket = abc9Z \r\nCommandLine=./w\n", "abc9Z");
	expect_ticket("Timeout=5\nTicket=77\n", "77");
	/* no ticket, or only one inside a section or content */
	expect_ticket("garbage\n", NULL);
	expect_ticket("", NULL);
	expect_ticket("Timeout=5\n[Input]\nTicket=1\n", NULL);
	expect_ticket("[Result]\n--begin content--\nTicket=5\n--end content--\n", NULL);
	/* not a ticket the client would put in a URL */
	expect_ticket("Ticket=12&x=1\n", NULL);
	expect_ticket("Ticket=a b\n", NULL);
	expect_ticket("Ticket=\n", NULL);
	expect_ticket("Ticket=11111111111111111111111111111111111111111111111111111111111111111\n",
		      NULL);
	expect_ticket("Tickets=5\nXTicket=6\n", NULL);
}

static void expect_split(const char *cmd, int n, const char *const *want)
{
	struct sweep_argv av = { NULL, 0 };
	struct sbuf err = SBUF_INIT(1024);
	int i;

	if (n < 0) {
		assert_int_equal(sc_split_command(cmd, &av, &err), -1);
		assert_true(err.len > 0);
	} else {
		assert_int_equal(sc_split_command(cmd, &av, &err), 0);
		assert_int_equal((int)av.n, n);
		for (i = 0; i < n; i++)
			assert_string_equal(av.v[i], want[i]);
		assert_null(av.v[n]);
	}
	sweep_argv_free(&av);
	sbuf_free(&err);
}

static void test_split(void **state)
{
	static const char *const a[] = { "./worker", "-a", "0.3", "--label", " padded " };
	static const char *const b[] = { "./w", "$alpha", "cost$5", "it's" };
	static const char *const c[] = { "./w", "", "x y" };

	(void)state;
	expect_split("./worker -a 0.3 --label ' padded '", 5, a);
	expect_split("./w '$alpha' cost$$5 'it'\\''s'", 4, b);
	expect_split("./w '' x\\ y", 3, c);
	/* the master sends no placeholders: one left over is an error */
	expect_split("./w $alpha", -1, NULL);
	expect_split("./w 'unclosed", -1, NULL);
	expect_split("   ", -1, NULL);
}

static void test_worker_ok(void **state)
{
	char dir[] = "/tmp/test_sweep_client.XXXXXX";
	static const char one[] = "#!/bin/sh\necho one\n";
	char md5[MD5_HEX_LEN + 1], *path;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/worker", dir);
	assert_false(sc_worker_ok(path, "0123456789abcdef0123456789abcdef"));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(one, f);
	fclose(f);
	assert_int_equal(md5_buf(one, strlen(one), md5), 0);
	assert_true(sc_worker_ok(path, md5));
	assert_true(sc_worker_ok(path, md5));   /* from the cache */
	assert_false(sc_worker_ok(path, "0123456789abcdef0123456789abcdef"));
	/* same size, other content: the changed times make it hash again */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho two\n", f);
	fclose(f);
	assert_false(sc_worker_ok(path, md5));
	unlink(path);
	assert_false(sc_worker_ok(path, md5));
	/* a directory is not a worker */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_false(sc_worker_ok(path, md5));
	rmdir(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_salvage),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_worker_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
