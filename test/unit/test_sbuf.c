/*
 * Unit tests for lib's small helpers: the bounded string buffer, the XML
 * writers, array growth, signal setup, the log redaction and atomic file
 * writes.
 */
#include "unit.h"
#include "sbuf.h"
#include "log.h"
#include "wtime.h"
#include "xml_write.h"
#include "sig.h"
#include "fileutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_add_within_limit(void **state)
{
	struct sbuf b = SBUF_INIT(10);

	assert_int_equal(sbuf_addstr(&b, "hello"), 0);
	assert_int_equal(sbuf_addf(&b, "%d", 1234), 0);
	assert_string_equal(sbuf_str(&b), "hello1234");
	assert_int_equal(b.len, 9);
	sbuf_release(&b);
}

static void test_refuses_past_max_and_keeps_contents(void **state)
{
	struct sbuf b = SBUF_INIT(8);

	assert_int_equal(sbuf_addstr(&b, "12345678"), 0);
	assert_int_equal(sbuf_addch(&b, 'x'), -1);
	assert_int_equal(sbuf_addf(&b, "%s", "y"), -1);
	assert_string_equal(sbuf_str(&b), "12345678");
	sbuf_reset(&b);
	assert_int_equal(sbuf_addstr(&b, "123456789"), -1);
	assert_string_equal(sbuf_str(&b), "");
	sbuf_release(&b);
}

static void test_binary_and_detach(void **state)
{
	struct sbuf b = SBUF_INIT(100);
	size_t len;
	char *p;

	assert_int_equal(sbuf_add(&b, "a\0b", 3), 0);
	p = sbuf_detach(&b, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "a\0b", 3);
	assert_null(b.buf);
	free(p);
}

static void test_xml_escape_all_or_nothing(void **state)
{
	struct sbuf b = SBUF_INIT(12);

	assert_int_equal(xml_add_text(&b, "<a&'\">"), -1);
	assert_string_equal(sbuf_str(&b), "");
	assert_int_equal(xml_add_text(&b, "a<b"), 0);
	assert_string_equal(sbuf_str(&b), "a&lt;b");
	sbuf_release(&b);
}

/* The one escaping rule: five entities; what XML cannot carry becomes '?'. */
static void test_xml_text_one_rule(void **state)
{
	struct sbuf b = SBUF_INIT(256);

	assert_int_equal(xml_add_text(&b, "a&b<c>d\"e'f"), 0);
	assert_string_equal(sbuf_str(&b), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	sbuf_reset(&b);
	/* tab, LF and CR stay; other controls, DEL and bytes that are not UTF-8 do not */
	assert_int_equal(xml_add_text(&b, "x\ty\nz\r\x01\x7f\xff\xc3(\xef\xbf\xbe"), 0);
	assert_string_equal(sbuf_str(&b), "x\ty\nz\r????" "(???");
	sbuf_reset(&b);
	assert_int_equal(xml_add_text(&b, "caf\xc3\xa9 \xe2\x82\xac"), 0);
	assert_string_equal(sbuf_str(&b), "caf\xc3\xa9 \xe2\x82\xac");
	sbuf_reset(&b);
	assert_int_equal(xml_add_text(&b, NULL), 0);
	assert_string_equal(sbuf_str(&b), "");
	sbuf_release(&b);
}

static void test_xml_elements(void **state)
{
	struct sbuf b = SBUF_INIT(512);

	xml_elem_str(&b, 4, "name", "<x>");
	xml_elem_str(&b, 0, "empty", NULL);
	xml_elem_i64(&b, 1, "id", INT64_MIN);
	xml_elem_f(&b, 2, "credit", 1.5);
	xml_elem_fmt(&b, 0, "g", "%.17g", 0.1);
	assert_string_equal(sbuf_str(&b), "    <name>&lt;x&gt;</name>\n<empty></empty>\n"
			    " <id>-9223372036854775808</id>\n  <credit>1.500000</credit>\n"
			    "<g>0.10000000000000001</g>\n");
	sbuf_reset(&b);
	xml_elem_cdata(&b, 1, "out", "a]]>b<\x02");
	assert_string_equal(sbuf_str(&b), " <out><![CDATA[a]]]]><![CDATA[>b<?]]></out>\n");
	sbuf_release(&b);
}

static void test_xml_element_past_max_fails(void **state)
{
	struct sbuf b = SBUF_INIT(16);

	assert_int_equal(xml_elem_str(&b, 0, "name", "0123456789"), -1);
	assert_true(b.len <= 16);
	sbuf_release(&b);
}

/* ARRAY_GROW doubles at each power of two: a thousand pushes, eleven reallocations. */
static void test_array_grow_amortized(void **state)
{
	int64_t *v = NULL;
	size_t n, grows = 0;

	for (n = 0; n < 1000; n++) {
		grows += array_grow_bytes(n, sizeof(*v)) != 0;
		ARRAY_GROW(v, n);
		v[n] = (int64_t)n;      /* ASan checks the room is there */
	}
	assert_int_equal(grows, 11);
	assert_int_equal(v[999], 999);
	assert_int_equal(array_grow_bytes(4, 8), 64);
	assert_int_equal(array_grow_bytes(5, 8), 0);
	free(v);
}

/* A size past SIZE_MAX is refused, never wrapped around to a small block. */
static void test_array_grow_overflow(void **state)
{
	size_t top = (size_t)1 << (sizeof(size_t) * 8 - 1);

	assert_int_equal(array_grow_bytes(top, 1), SIZE_MAX);
	assert_int_equal(array_grow_bytes(top / 2, 2), SIZE_MAX);
	assert_int_equal(array_grow_bytes((size_t)1 << 20, (size_t)1 << 44), SIZE_MAX);
	assert_int_equal(array_grow_bytes(top / 4, 1), top / 2);
}

static volatile sig_atomic_t got_usr2;

static void on_usr2(int sig)
{
	got_usr2 = sig;
}

/* sig_set catches and hands back the old actions; sig_restore puts them back. */
static void test_sig_set_and_restore(void **state)
{
	static const int sigs[] = { SIGUSR2 };
	struct sigaction old[1], now;

	assert_int_equal(sig_set(sigs, 1, on_usr2, 0, old), 0);
	raise(SIGUSR2);
	assert_int_equal(got_usr2, SIGUSR2);
	sig_save(sigs, 1, &now);
	assert_true(now.sa_handler == on_usr2);
	assert_false(now.sa_flags & SA_RESTART);
	sig_restore(sigs, 1, old);
	sig_save(sigs, 1, &now);
	assert_true(now.sa_handler == old[0].sa_handler);
	assert_int_equal(SIG_SET(SIG_IGN, 0, SIGUSR2, SIGPIPE), 0);
	raise(SIGUSR2);         /* ignored: the test goes on */
	sig_restore(sigs, 1, old);
}

static void test_log_never_writes_a_secret(void **state)
{
	char path[] = "/tmp/wseq-log-XXXXXX";
	int fd = mkstemp(path);
	char buf[4096];
	ssize_t n;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_init("unit", path), 0);
	log_add_secret("0123456789abcdef");
	log_info("user auth=%s ok", "0123456789abcdef");
	assert_int_equal(log_error("twice %s %s", "0123456789abcdef", "0123456789abcdef"), -1);
	log_close();
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_null(strstr(buf, "0123456789abcdef"));
	assert_non_null(strstr(buf, "auth=[secret] ok"));
	assert_non_null(strstr(buf, "error: twice [secret] [secret]"));
}

static void test_log_level_filters(void **state)
{
	char path[] = "/tmp/wseq-log-XXXXXX";
	int fd = mkstemp(path);
	char buf[4096];
	ssize_t n;

	close(fd);
	log_init("unit", path);
	log_set_level(LOG_LVL_ERROR);
	log_info("hidden-info");
	log_debug("hidden-debug");
	log_warn("shown-warning");
	log_set_level(LOG_LVL_INFO);
	log_close();
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	assert_null(strstr(buf, "hidden"));
	assert_non_null(strstr(buf, "warning: shown-warning"));
}

static void test_clock_shift(void **state)
{
	time_t t0;

	wtime_reset();
	t0 = now();
	wtime_shift(86400);
	assert_true(now() - t0 >= 86400 && now() - t0 <= 86402);
	wtime_reset();
	setenv("WSEQ_TIME_OFFSET", "-3600", 1);
	assert_true(t0 - now() >= 3598 && t0 - now() <= 3600);
	unsetenv("WSEQ_TIME_OFFSET");
	wtime_reset();
}

static void test_parse_numbers(void **state)
{
	long l;
	double d;

	assert_int_equal(parse_long("42", &l), 0);
	assert_int_equal(l, 42);
	assert_int_equal(parse_long("42x", &l), -1);
	assert_int_equal(parse_long("", &l), -1);
	assert_int_equal(parse_long("99999999999999999999", &l), -1);
	assert_int_equal(parse_double("1e12", &d), 0);
	assert_true(d == 1e12);
	assert_int_equal(parse_double("nan", &d), -1);
	/* not finite: a config value, a template or a GAHP line never means it */
	assert_int_equal(parse_double("inf", &d), -1);
	assert_int_equal(parse_double("-Infinity", &d), -1);
	assert_int_equal(parse_double("1e999", &d), -1);
}

/*
 * write_file_atomic_at: the file in its directory with its mode, replaced
 * whole; a link planted where its temporary file goes, or at its own name,
 * is never written through.
 */
static void test_write_file_atomic_at(void **state)
{
	char dir[] = "/tmp/wseq_unit_atomicXXXXXX", buf[64];
	struct stat st;
	int dfd, fd;
	ssize_t n;
	char *victim, *tmpname;

	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	victim = xasprintf("%s/victim", dir);
	assert_int_equal(write_file_atomic(victim, "keep", 4, 0600), 0);
	assert_int_equal(write_file_atomic_at(dfd, "out", "first", 5, 0644), 0);
	assert_int_equal(write_file_atomic_at(dfd, "out", "second", 6, 0640), 0);
	assert_int_equal(fstatat(dfd, "out", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	fd = openat(dfd, "out", O_RDONLY);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, 6);
	assert_memory_equal(buf, "second", 6);
	/* links at the temporary name and at the name: replaced, the victim untouched */
	tmpname = xasprintf("link.tmp.%d", (int)getpid());
	assert_int_equal(symlinkat(victim, dfd, tmpname), 0);
	assert_int_equal(symlinkat(victim, dfd, "link"), 0);
	assert_int_equal(write_file_atomic_at(dfd, "link", "new", 3, 0644), 0);
	assert_int_equal(fstatat(dfd, "link", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(fstatat(dfd, tmpname, &st, AT_SYMLINK_NOFOLLOW), -1);
	/* a directory that is gone: an error, errno kept */
	assert_int_equal(write_file_atomic_at(dfd, "no/such", "x", 1, 0644), -1);
	assert_int_equal(errno, ENOENT);
	unlinkat(dfd, "out", 0);
	unlinkat(dfd, "link", 0);
	unlink(victim);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);
	free(tmpname);
	free(victim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_within_limit),
		cmocka_unit_test(test_refuses_past_max_and_keeps_contents),
		cmocka_unit_test(test_binary_and_detach),
		cmocka_unit_test(test_xml_escape_all_or_nothing),
		cmocka_unit_test(test_xml_text_one_rule),
		cmocka_unit_test(test_xml_elements),
		cmocka_unit_test(test_xml_element_past_max_fails),
		cmocka_unit_test(test_array_grow_amortized),
		cmocka_unit_test(test_array_grow_overflow),
		cmocka_unit_test(test_sig_set_and_restore),
		cmocka_unit_test(test_log_never_writes_a_secret),
		cmocka_unit_test(test_log_level_filters),
		cmocka_unit_test(test_clock_shift),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_write_file_atomic_at),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
