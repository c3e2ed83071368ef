/* Unit tests for the sweep cluster file (sweep/proto/sweep_cluster.c). */
#include "test_sweep_util.h"
#include "sweep_cluster.h"

static int parse(const char *text, struct sweep_cluster *c, struct sbuf *err)
{
	sbuf_reset(err);
	return sweep_cluster_parse("hosts", text, strlen(text), c, err);
}

static void expect_error(const char *text, const char *want)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096);

	if (parse(text, &c, &err) != -1)
		fail_msg("parsed, but should fail with %s:\n%s", want, text);
	assert_err(&err, want);
	assert_null(c.hosts);
	assert_int_equal(c.n, 0);
	sbuf_release(&err);
}

static void check_host(const struct sweep_host *h, const char *user, const char *host, int port,
		       int line)
{
	if (user)
		assert_string_equal(h->user, user);
	else
		assert_null(h->user);
	assert_string_equal(h->host, host);
	assert_int_equal(h->port, port);
	assert_int_equal(h->line, line);
}

static void test_all_forms(void **state)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096);
	const char *text =
		"# the machines of the lab\n"
		"node1\n"
		"\n"
		"alice@node2.example.org   # alice's account\n"
		"node3:2222\r\n"
		"  bob@node4:2200  \n"
		"192.168.1.20\n"
		"carol@10.0.0.7:22\n"
		"[::1]:2022\n"
		"dave@[fe80::1%eth0]\n"
		"2001:db8::5\n"
		"\t# indented comment\n"
		"last_host";

	(void)state;
	assert_int_equal(parse(text, &c, &err), 0);
	assert_int_equal(c.n, 10);
	check_host(&c.hosts[0], NULL, "node1", 22, 2);
	check_host(&c.hosts[1], "alice", "node2.example.org", 22, 4);
	check_host(&c.hosts[2], NULL, "node3", 2222, 5);
	check_host(&c.hosts[3], "bob", "node4", 2200, 6);
	check_host(&c.hosts[4], NULL, "192.168.1.20", 22, 7);
	check_host(&c.hosts[5], "carol", "10.0.0.7", 22, 8);
	check_host(&c.hosts[6], NULL, "::1", 2022, 9);
	check_host(&c.hosts[7], "dave", "fe80::1%eth0", 22, 10);
	check_host(&c.hosts[8], NULL, "2001:db8::5", 22, 11);
	check_host(&c.hosts[9], NULL, "last_host", 22, 13);
	sweep_cluster_release(&c);
	sbuf_release(&err);
}

/* GNU parallel's N/host: the host's job count, the host itself as without it. */
static void test_jobs(void **state)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096);
	const char *text = "4/node1\n0/alice@node2:2222\n1/[::1]:2022\nnode3\n1024/2001:db8::5\n";

	(void)state;
	assert_int_equal(parse(text, &c, &err), 0);
	assert_int_equal(c.n, 5);
	check_host(&c.hosts[0], NULL, "node1", 22, 1);
	check_host(&c.hosts[1], "alice", "node2", 2222, 2);
	check_host(&c.hosts[2], NULL, "::1", 2022, 3);
	check_host(&c.hosts[4], NULL, "2001:db8::5", 22, 5);
	assert_int_equal(c.hosts[0].jobs, 4);
	assert_int_equal(c.hosts[1].jobs, 0);
	assert_int_equal(c.hosts[2].jobs, 1);
	assert_int_equal(c.hosts[3].jobs, -1);
	assert_int_equal(c.hosts[4].jobs, 1024);
	sweep_cluster_release(&c);
	expect_error("x/node1\n", "hosts:1: bad job count 'x' (N/host: 0 to 1024)");
	expect_error("/node1\n", "hosts:1: bad job count '' (N/host: 0 to 1024)");
	expect_error("1025/node1\n", "hosts:1: bad job count '1025' (N/host: 0 to 1024)");
	expect_error("-1/node1\n", "hosts:1: bad job count '-1' (N/host: 0 to 1024)");
	expect_error("2/2/node1\n", "hosts:1: bad host name '2/node1'");
	expect_error("2/\n", "hosts:1: no host name in ''");
	expect_error("2/a\n3/A\n", "hosts:2: duplicate host 'A' (also on line 1)");
	sbuf_release(&err);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("a\nb\nc:x\n", "hosts:3: bad port 'x'");
	expect_error("a:0\n", "hosts:1: bad port '0'");
	expect_error("a:65536\n", "hosts:1: bad port '65536'");
	expect_error("a:\n", "hosts:1: bad port ''");
	expect_error("a:+22\n", "hosts:1: bad port '+22'");
	expect_error("[::1]:y\n", "hosts:1: bad port 'y'");
	expect_error("a\n# c\nb\na\n", "hosts:4: duplicate host 'a' (also on line 1)");
	expect_error("x\nNode:22\nnode\n", "hosts:3: duplicate host 'node' (also on line 2)");
	expect_error("u@a\nv@a\n", "hosts:2: duplicate host 'a' (also on line 1)");
	expect_error("-oProxyCommand=x\n", "hosts:1: bad host name '-oProxyCommand=x'");
	expect_error("a b\n", "hosts:1: one host a line, not 'a b'");
	expect_error("-x@a\n", "hosts:1: bad user name '-x'");
	expect_error("@a\n", "hosts:1: bad user name ''");
	expect_error("u@v@a\n", "hosts:1: more than one '@' in 'u@v@a'");
	expect_error("999.1.1.1\n", "hosts:1: bad IPv4 address '999.1.1.1'");
	expect_error("[1::2::3]\n", "hosts:1: bad IPv6 address '1::2::3'");
	expect_error("[::1\n", "hosts:1: no ']' after '[' in '[::1'");
	expect_error("[::1]x\n", "hosts:1: text after ']' in '[::1]x'");
	expect_error("host:22:33\n",
		     "hosts:1: bad IPv6 address 'host:22:33' (write [address]:port to give a port)");
	expect_error("u@:22\n", "hosts:1: no host name in 'u@:22'");
	expect_error("a..b\n", "hosts:1: bad host name 'a..b'");
	expect_error("", "hosts: no hosts");
	expect_error("# nothing\n\n  \n", "hosts: no hosts");
}

static void test_nul_byte(void **state)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096);

	(void)state;
	assert_int_equal(sweep_cluster_parse("hosts", "a\nb\0c\n", 6, &c, &err), -1);
	assert_err(&err, "hosts:2: NUL byte in the line");
	sbuf_release(&err);
}

static void test_format(void **state)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(4096);
	const char *text = "a\nu@b:2222\n[::1]:23\nw@[fe80::2]\nx:22\n";
	size_t i;

	(void)state;
	assert_int_equal(parse(text, &c, &err), 0);
	for (i = 0; i < c.n; i++) {
		assert_int_equal(sweep_host_format(&c.hosts[i], &out), 0);
		sbuf_addch(&out, '\n');
	}
	assert_string_equal(sbuf_str(&out), "a\nu@b:2222\n[::1]:23\nw@fe80::2\nx\n");
	sweep_cluster_release(&c);
	/* The formatted list reads back the same. */
	assert_int_equal(parse(sbuf_str(&out), &c, &err), 0);
	assert_int_equal(c.n, 5);
	check_host(&c.hosts[2], NULL, "::1", 23, 3);
	check_host(&c.hosts[3], "w", "fe80::2", 22, 4);
	sweep_cluster_release(&c);
	sbuf_release(&err);
	sbuf_release(&out);
}

static void test_doc_examples(void **state)
{
	struct doc_block *b;
	size_t n = doc_blocks("doc/sweep-formats.md", "hosts", &b), i;
	struct sbuf err = SBUF_INIT(4096);

	(void)state;
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		struct sweep_cluster c;

		if (parse(b[i].text, &c, &err) < 0)
			fail_msg("doc/sweep-formats.md:%d: %s", b[i].line, sbuf_str(&err));
		assert_true(c.n > 0);
		sweep_cluster_release(&c);
	}
	doc_blocks_free(b, n);
	sbuf_release(&err);
}

static void test_read_file(void **state)
{
	struct sweep_cluster c;
	struct sbuf err = SBUF_INIT(4096);
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/test/data/sweep/hosts", src ? src : "..");

	(void)state;
	assert_int_equal(sweep_cluster_read(path, &c, &err), 0);
	assert_true(c.n >= 3);
	sweep_cluster_release(&c);
	assert_int_equal(sweep_cluster_read("/nonexistent/hosts", &c, &err), -1);
	assert_err(&err, "/nonexistent/hosts: cannot open: No such file or directory");
	free(path);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_forms),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_doc_examples),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
