/* Unit tests for the fan-out hierarchy: BOINC's hash rule and name confinement. */
#include "unit.h"
#include "dirhier.h"
#include "log.h"

#include <fcntl.h>
#include <sys/stat.h>

/*
 * Expected subdirectories, derived independently of this code from BOINC's
 * filename_hash (sched/sched_util_basic.cpp: strtol(md5(name).substr(1, 7),
 * 0, 16) % fanout, printed "%x") with the shell:
 *
 *   h=$(printf %s "$name" | md5sum | cut -c1-32)
 *   x=$((16#$(printf %s "$h" | cut -c2-8)))
 *   printf '%x %x %x %x\n' $((x%1024)) $((x%256)) $((x%1000)) $((x%7))
 *
 * The names were picked so that most digests start with a non-zero digit
 * ("wu_123_0" → ae30..., "hello world.txt" → f369...): reading digits 0..6
 * or 0..7 instead of 1..7 gives different answers.
 */
static const struct {
	const char *name;
	const char *h1024, *h256, *h1000, *h7;
} hashes[] = {
	{ "input.dat", "3e7", "e7", "24f", "4" },             /* b33603e7... */
	{ "wu_123_0", "393", "93", "10b", "4" },              /* ae306793... */
	{ "2028b947e6920.dat", "314", "14", "fc", "5" },      /* 8dd7ef14... */
	{ "result_0_1", "7a", "7a", "222", "5" },             /* a15b487a... */
	{ "a", "1b9", "b9", "b1", "1" },                      /* 0cc175b9... */
	{ "hello world.txt", "206", "6", "2f6", "1" },        /* f3693606... */
};

static void test_hash_matches_boinc(void **state)
{
	char h[16];

	for (size_t i = 0; i < ARRAY_SIZE(hashes); i++) {
		assert_int_equal(dirhier_hash(hashes[i].name, 1024, h), 0);
		assert_string_equal(h, hashes[i].h1024);
		assert_int_equal(dirhier_hash(hashes[i].name, 256, h), 0);
		assert_string_equal(h, hashes[i].h256);
		assert_int_equal(dirhier_hash(hashes[i].name, 1000, h), 0);
		assert_string_equal(h, hashes[i].h1000);
		assert_int_equal(dirhier_hash(hashes[i].name, 7, h), 0);
		assert_string_equal(h, hashes[i].h7);
		assert_int_equal(dirhier_hash(hashes[i].name, 1, h), 0);
		assert_string_equal(h, "0");
	}
}

static void test_hash_refuses_bad_fanout(void **state)
{
	char h[16];

	assert_int_equal(dirhier_hash("x", 0, h), -1);
	assert_int_equal(dirhier_hash("x", -5, h), -1);
	assert_int_equal(dirhier_hash("x", DIRHIER_FANOUT_MAX + 1, h), -1);
}

static void test_name_rules(void **state)
{
	char longname[DIRHIER_NAME_MAX + 2];
	char name256[257];
	static const char *const bad[] = {
		"", ".", "..", "../x", "a/b", "/etc/passwd", "a\\b", "x/../y", "a..b",
		".htaccess", "-rf", "a\nb", "tab\there", "bell\a", "del\x7f",
	};
	static const char *const good[] = {
		"input.dat", "wu_123_0", "2028b947e6920.dat", "a", "a.b.c",
		"name with spaces", "x-1_2~3+4", "caf\xc3\xa9.txt", "a.", "x-",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (dirhier_name_ok(bad[i]))
			fail_msg("name '%s' accepted", bad[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		if (!dirhier_name_ok(good[i]))
			fail_msg("name '%s' refused", good[i]);
	}
	memset(longname, 'n', sizeof(longname));
	longname[DIRHIER_NAME_MAX] = '\0';
	assert_true(dirhier_name_ok(longname));
	longname[DIRHIER_NAME_MAX] = 'n';
	longname[DIRHIER_NAME_MAX + 1] = '\0';
	assert_false(dirhier_name_ok(longname));
	memset(name256, 'n', 256);
	name256[256] = '\0';
	assert_false(dirhier_name_ok(name256));
}

static char tmpdir[] = "/tmp/test_dirhier.XXXXXX";

static int make_tmpdir(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	free(cmd);
	return r == 0 ? 0 : -1;
}

static void test_path_creates_the_subdir(void **state)
{
	struct sbuf p = SBUF_INIT(PATH_MAX);
	char *root = xasprintf("%s/download/", tmpdir);   /* trailing slash dropped */
	char *want = xasprintf("%s/download/393/wu_123_0", tmpdir);
	char *dir = xasprintf("%s/download/393", tmpdir);
	struct stat st;

	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(dirhier_path("wu_123_0", root, 1024, false, &p), 0);
	assert_string_equal(sbuf_str(&p), want);
	assert_int_equal(stat(dir, &st), -1);
	sbuf_reset(&p);
	assert_int_equal(dirhier_path("wu_123_0", root, 1024, true, &p), 0);
	assert_string_equal(sbuf_str(&p), want);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* Again: the directory exists already, which is fine. */
	sbuf_reset(&p);
	assert_int_equal(dirhier_path("wu_123_0", root, 1024, true, &p), 0);
	/* fanout 0: no hierarchy, as BOINC's dir_hier_path. */
	sbuf_reset(&p);
	assert_int_equal(dirhier_path("wu_123_0", "/r", 0, false, &p), 0);
	assert_string_equal(sbuf_str(&p), "/r/wu_123_0");
	/* Names that would leave the hierarchy are refused, the buffer untouched. */
	sbuf_reset(&p);
	assert_int_equal(dirhier_path("../x", root, 1024, true, &p), -1);
	assert_int_equal(dirhier_path("a/b", root, 1024, false, &p), -1);
	assert_int_equal(p.len, 0);
	/* A path that does not fit the buffer leaves it as it was. */
	{
		struct sbuf small = SBUF_INIT(10);

		assert_int_equal(dirhier_path("wu_123_0", "/root", 1024, false, &small), -1);
		assert_int_equal(small.len, 0);
		sbuf_release(&small);
	}
	sbuf_release(&p);
	free(root);
	free(want);
	free(dir);
}

static void test_url(void **state)
{
	struct sbuf u = SBUF_INIT(1024);

	assert_int_equal(dirhier_url("input.dat", "http://h.example/proj/download/", 1024, &u), 0);
	assert_string_equal(sbuf_str(&u), "http://h.example/proj/download/3e7/input.dat");
	sbuf_reset(&u);
	assert_int_equal(dirhier_url("hello world.txt", "http://h/dl", 256, &u), 0);
	assert_string_equal(sbuf_str(&u), "http://h/dl/6/hello%20world.txt");
	sbuf_reset(&u);
	assert_int_equal(dirhier_url("a+b#c?d%e", "http://h/dl", 0, &u), 0);
	assert_string_equal(sbuf_str(&u), "http://h/dl/a%2Bb%23c%3Fd%25e");
	sbuf_reset(&u);
	assert_int_equal(dirhier_url("..", "http://h/dl", 1024, &u), -1);
	assert_int_equal(u.len, 0);
	sbuf_release(&u);
}

static void test_make_dirs(void **state)
{
	char *root = xasprintf("%s/upload", tmpdir);
	char *sub = NULL, *blocker;
	struct stat st;
	mode_t old = umask(022);

	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(dirhier_make_dirs(root, 20, 0770), 0);
	for (int i = 0; i < 20; i++) {
		free(sub);
		sub = xasprintf("%s/%x", root, i);
		assert_int_equal(stat(sub, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		/* The exact mode despite the umask 022. */
		assert_int_equal(st.st_mode & 07777, 0770);
	}
	free(sub);
	sub = xasprintf("%s/14", root);           /* 20 = 0x14: one past the last */
	assert_int_equal(stat(sub, &st), -1);
	assert_int_equal(dirhier_make_dirs(root, 20, 0770), 0);
	/* A file where a subdirectory should be is an error. */
	blocker = xasprintf("%s/14", root);
	assert_int_equal(close(open(blocker, O_CREAT | O_WRONLY, 0644)), 0);
	assert_int_equal(dirhier_make_dirs(root, 21, 0770), -1);
	assert_int_equal(dirhier_make_dirs(root, 0, 0770), 0);
	assert_int_equal(dirhier_make_dirs(root, -1, 0770), -1);
	umask(old);
	free(blocker);
	free(sub);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_matches_boinc),
		cmocka_unit_test(test_hash_refuses_bad_fanout),
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_path_creates_the_subdir),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_make_dirs),
	};

	log_init("test_dirhier", NULL);
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
