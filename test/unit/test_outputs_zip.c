/*
 * Unit tests for the placing of a host's zip of outputs on the submitter's
 * machine (gahp/outputs_zip.c): the path rules (outputs_rel_problem()), and
 * unpacked_place() against a job directory that holds the submitter's own
 * files -- never replaced, never reached through a link or a hidden name,
 * all or nothing -- unless the submitter named the destination.
 */
#include "unit.h"
#include "fileutil.h"
#include "log.h"
#include "outputs_zip.h"

#include <dirent.h>
#include <sys/stat.h>
#include <zip.h>

static char *scratch, *job;

static void put(const char *rel, const char *data)
{
	char *p = xasprintf("%s/%s", job, rel);

	assert_int_equal(mkdir_parent(p, 0755), 0);
	assert_int_equal(write_file_atomic(p, data, strlen(data), 0644), 0);
	free(p);
}

/* The content of job/rel, or "" when missing (static). */
static const char *got(const char *rel)
{
	static struct sbuf b = SBUF_INIT(4096);
	char *p = xasprintf("%s/%s", job, rel);

	sbuf_reset(&b);
	if (read_file(p, 4096, &b) < 0)
		sbuf_reset(&b);
	free(p);
	return sbuf_str(&b);
}

static bool exists(const char *rel)
{
	char *p = xasprintf("%s/%s", job, rel);
	struct stat st;
	bool yes = lstat(p, &st) == 0;

	free(p);
	return yes;
}

/* A staged and unpacked zip of the entries (name, data pairs, NULL-ended). */
static void stage(struct unpacked *u, const char *const *ents)
{
	static const struct zip_limits lim = { 1 << 20, 100, 1 << 20, 0 };
	struct sbuf err = SBUF_INIT(4096);
	char *zip;
	zip_t *za;
	int zerr;

	assert_int_equal(outputs_zip_stage(job, u, &err), 0);
	zip = outputs_zip_path(u);
	za = zip_open(zip, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	assert_non_null(za);
	for (; *ents; ents += 2) {
		zip_source_t *src = zip_source_buffer(za, ents[1], strlen(ents[1]), 0);

		assert_true(zip_file_add(za, ents[0], src, 0) >= 0);
	}
	assert_int_equal(zip_close(za), 0);
	if (outputs_zip_unpack(u, &lim, NULL, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	free(zip);
	sbuf_release(&err);
}

/* Place every entry at its own name, unnamed: 0 / -1, the message in err. */
static int place_all(const char *const *ents, struct sbuf *err)
{
	struct unpacked u;
	size_t i;
	int rc;

	stage(&u, ents);
	for (i = 0; i < u.n; i++)
		unpacked_want(&u, i, u.names[i], false);
	rc = unpacked_place(&u, job, err);
	unpacked_release(&u);
	return rc;
}

static void expect_refused(const char *const *ents, const char *why)
{
	struct sbuf err = SBUF_INIT(4096);

	assert_int_equal(place_all(ents, &err), -1);
	if (!strstr(sbuf_str(&err), why))
		fail_msg("expected '%s' in '%s'", why, sbuf_str(&err));
	sbuf_release(&err);
}

static void test_rel_rules(void **state)
{
	static const char *const ok[] = { "out.txt", "sub/deep/x.dat", "a.b.c", "x." };
	static const struct {
		const char *rel, *why;
	} bad[] = {
		{ ".ssh/authorized_keys", "starting with '.'" },
		{ "sub/.hidden", "starting with '.'" },
		{ ".wseq_submit/b", "starting with '.'" },
		{ "../x", "'..' component" },
		{ "/etc/passwd", "absolute" },
		{ "a//b", "empty component" },
		{ "dir/", "a directory" },
		{ "", "empty name" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		assert_null(outputs_rel_problem(ok[i]));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = outputs_rel_problem(bad[i].rel);

		assert_non_null(why);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: expected '%s' in '%s'", bad[i].rel, bad[i].why, why);
	}
}

static void test_new_files_placed(void **state)
{
	static const char *const ents[] = { "res.txt", "result", "sub/deep/x.dat", "x", NULL };
	struct sbuf err = SBUF_INIT(4096);
	struct stat st;
	char *p;

	assert_int_equal(place_all(ents, &err), 0);
	assert_string_equal(got("res.txt"), "result");
	assert_string_equal(got("sub/deep/x.dat"), "x");
	p = xasprintf("%s/sub/deep", job);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(p);
	/* again, the same bytes: there already, fine */
	assert_int_equal(place_all(ents, &err), 0);
	sbuf_release(&err);
}

static void test_never_replaces(void **state)
{
	static const char *const ents[] = { "new.txt", "new", "job.sub", "executable = /bin/evil",
					    NULL };

	put("job.sub", "executable = mine");
	expect_refused(ents, "would replace");
	assert_string_equal(got("job.sub"), "executable = mine");
	assert_false(exists("new.txt"));        /* all or nothing */
}

static void test_never_hidden(void **state)
{
	static const char *const ents[] = { "a.txt", "a", ".ssh/authorized_keys", "ssh-ed25519 evil",
					    NULL };

	expect_refused(ents, "starting with '.'");
	assert_false(exists(".ssh"));
	assert_false(exists("a.txt"));
}

static void test_never_through_a_link(void **state)
{
	static const char *const ents[] = { "first/a", "a", "out/planted", "evil", NULL };
	static const char *const last[] = { "link", "evil", NULL };
	char *outside = xasprintf("%s/outside", scratch), *link = xasprintf("%s/out", job);

	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(symlink(outside, link), 0);
	expect_refused(ents, "a link or a file, not a directory");
	assert_false(dir_nonempty(outside));
	assert_false(exists("first"));          /* its directory taken back too */
	/* a link as the last component is a name that exists */
	free(link);
	link = xasprintf("%s/link", job);
	assert_int_equal(symlink(outside, link), 0);
	expect_refused(last, "would replace");
	assert_false(dir_nonempty(outside));
	free(outside);
	free(link);
}

/* The tool's own places: a reserved directory and all below it, a reserved name. */
static void test_never_reserved(void **state)
{
	static const char *const in_dir[] = { "ok.txt", "ok", "state/abc/batch", "project =evil", NULL };
	static const char *const dir_itself[] = { "state", "x", NULL };
	static const char *const name[] = { "config.txt", "http://evil/\nkey", NULL };
	struct sbuf err = SBUF_INIT(4096);
	struct unpacked u;
	char *dir = xasprintf("%s/state/abc", job), *conf = xasprintf("%s/config.txt", job);
	size_t i;

	put("state/abc/dir", "/home/me/run");
	for (i = 0; i < 3; i++) {
		const char *const *ents = i == 0 ? in_dir : i == 1 ? name : dir_itself;

		stage(&u, ents);
		unpacked_reserve(&u, dir, true);
		unpacked_reserve(&u, conf, false);
		for (size_t k = 0; k < u.n; k++)
			unpacked_want(&u, k, u.names[k], false);
		assert_int_equal(unpacked_place(&u, job, &err), -1);
		unpacked_release(&u);
		if (!strstr(sbuf_str(&err), i == 0 ? "is kept for the tool's own files" :
				i == 1 ? "a file the tool keeps for itself" : "would replace"))
			fail_msg("%zu: %s", i, sbuf_str(&err));
		sbuf_reset(&err);
	}
	assert_false(exists("state/abc/batch"));
	assert_false(exists("config.txt"));
	assert_false(exists("ok.txt"));
	free(dir);
	free(conf);
	sbuf_release(&err);
}

/* The submitter named the destination: it is made and replaced as they said. */
static void test_named_replaces(void **state)
{
	static const char *const ents[] = { ".config", "new", "free", "x", NULL };
	struct sbuf err = SBUF_INIT(4096);
	struct unpacked u;
	char *dest = xasprintf("%s/.config", job);

	put(".config", "old");
	stage(&u, ents);
	unpacked_want(&u, (size_t)unpacked_find(&u, ".config"), dest, true);
	assert_int_equal(unpacked_place(&u, job, &err), 0);
	assert_int_equal(u.nplaced, 1);         /* "free" was not wanted */
	unpacked_release(&u);
	assert_string_equal(got(".config"), "new");
	assert_false(exists("free"));
	free(dest);
	sbuf_release(&err);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/test_outputs_zip.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	scratch = xstrdup(tmpl);
	job = xasprintf("%s/job", scratch);
	return 0;
}

static int teardown(void **state)
{
	remove_tree(scratch);
	free(scratch);
	free(job);
	return 0;
}

static int each_setup(void **state)
{
	remove_tree(scratch);
	assert_int_equal(mkdir(scratch, 0755), 0);
	return mkdir(job, 0755);
}

/* The staging directory is gone after each test: only what was placed remains. */
static int each_teardown(void **state)
{
	DIR *d = opendir(job);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (!strncmp(e->d_name, ".wseq-outputs-", 14))
			fail_msg("%s/%s left behind", job, e->d_name);
	closedir(d);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rel_rules),
		cmocka_unit_test_setup_teardown(test_new_files_placed, each_setup, each_teardown),
		cmocka_unit_test_setup_teardown(test_never_replaces, each_setup, each_teardown),
		cmocka_unit_test_setup_teardown(test_never_hidden, each_setup, each_teardown),
		cmocka_unit_test_setup_teardown(test_never_through_a_link, each_setup, each_teardown),
		cmocka_unit_test_setup_teardown(test_never_reserved, each_setup, each_teardown),
		cmocka_unit_test_setup_teardown(test_named_replaces, each_setup, each_teardown),
	};

	log_init("test_outputs_zip", NULL);
	log_set_level(0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
