/*
 * Unit tests for the parts of sweep_client that need no master: the ticket
 * of a garbled task, the command-line split, the worker check, the master's
 * base URL.
 */
#include "unit.h"
#include "sweep_client.h"
#include "sweep_url.h"
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
	sweep_argv_release(&av);
	sbuf_release(&err);
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

static void expect_url(const char *url, const char *want)
{
	struct sbuf err = SBUF_INIT(1024);
	char *got = NULL;

	if (want) {
		assert_int_equal(sweep_check_base_url(url, &got, &err), 0);
		assert_string_equal(got, want);
	} else {
		assert_int_equal(sweep_check_base_url(url, &got, &err), -1);
		assert_null(got);
		assert_true(err.len > 0);
	}
	free(got);
	sbuf_release(&err);
}

static void expect_built(const char *host, const char *port, const char *path, const char *want)
{
	char *got = sweep_base_url(host, port, path);

	assert_string_equal(got, want);
	free(got);
}

static void test_base_url(void **state)
{
	char *p;

	(void)state;
	/* a project's endpoints, and the sweep design's root form */
	expect_url("http://master.example.org:8080/proj_cgi/sweep", "http://master.example.org:8080/proj_cgi/sweep");
	expect_url("http://h/proj_cgi/sweep/", "http://h/proj_cgi/sweep");
	expect_url("https://h:443/a/b", "https://h:443/a/b");
	expect_url("http://127.0.0.1:8080/", "http://127.0.0.1:8080");
	expect_url("http://127.0.0.1:8080", "http://127.0.0.1:8080");
	expect_url("http://[::1]:8080/x", "http://[::1]:8080/x");
	expect_url("http://[fe80::1]", "http://[fe80::1]");
	/* refused */
	expect_url("ftp://h/x", NULL);
	expect_url("h:8080/x", NULL);
	expect_url("http://", NULL);
	expect_url("http:///x", NULL);
	expect_url("http://:80/x", NULL);
	expect_url("http://h:0/x", NULL);
	expect_url("http://h:65536/x", NULL);
	expect_url("http://h:8x/x", NULL);
	expect_url("http://h:/x", NULL);
	expect_url("http://user@h/x", NULL);
	expect_url("http://h/x?sessionID=1", NULL);
	expect_url("http://h/x#y", NULL);
	expect_url("http://h/a b", NULL);
	expect_url("http://h/a\nb", NULL);
	expect_url("http://[::1/x", NULL);
	expect_url("http://[::1]x/", NULL);
	/* what the master hands out */
	expect_built("h", "80", NULL, "http://h:80");
	expect_built("h", "80", "", "http://h:80");
	expect_built("10.0.0.1", "8080", "/p_cgi/sweep/", "http://10.0.0.1:8080/p_cgi/sweep");
	expect_built("::1", "8080", "/p_cgi/sweep", "http://[::1]:8080/p_cgi/sweep");
	expect_built("[::1]", "8080", "/x", "http://[::1]:8080/x");
	p = sweep_endpoint_path("http://127.0.0.1:8080/base/proj_cgi/");
	assert_string_equal(p, "/base/proj_cgi/sweep");
	free(p);
	p = sweep_endpoint_path("http://h");
	assert_string_equal(p, "/sweep");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_salvage),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_worker_ok),
		cmocka_unit_test(test_base_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
