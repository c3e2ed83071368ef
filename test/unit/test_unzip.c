/*
 * Unit tests for zip_unpack() (lib/unzip.c): zips a volunteer host might
 * forge, built here with libzip (and patched byte by byte where libzip
 * will not write the forgery), each refused with nothing left behind --
 * bombs by ratio, one entry's size, and a batch's budget across zips too; a
 * good one unpacked exactly; and the wrapper's own zip of outputs
 * (apps/wrapper_out.c) coming back through it.
 */
#include "unit.h"
#include "fileutil.h"
#include "log.h"
#include "unzip.h"
#include "../../apps/wrapper_out.h"

#include <dirent.h>
#include <sys/stat.h>
#include <zip.h>

static char *scratch;

struct ent {
	const char *name;
	const char *data;       /* NULL: a directory entry */
	mode_t type;            /* 0: leave the attributes alone */
};

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", scratch, name);
}

static char *make_zip(const char *zname, const struct ent *e, size_t n)
{
	char *path = path_of(zname);
	zip_t *za;
	int zerr;
	size_t i;

	za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	assert_non_null(za);
	for (i = 0; i < n; i++) {
		zip_int64_t idx;

		if (!e[i].data) {
			idx = zip_dir_add(za, e[i].name, 0);
		} else {
			zip_source_t *src = zip_source_buffer(za, e[i].data, strlen(e[i].data), 0);

			idx = zip_file_add(za, e[i].name, src, ZIP_FL_ENC_RAW);
		}
		assert_true(idx >= 0);
		if (e[i].type)
			zip_file_set_external_attributes(za, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX,
							 (zip_uint32_t)(e[i].type | 0777) << 16);
	}
	assert_int_equal(zip_close(za), 0);
	return path;
}

/* Replace every occurrence of from by to (same length) in the file's bytes. */
static void patch(const char *path, const char *from, const char *to, size_t len)
{
	struct sbuf b = SBUF_INIT(1 << 24);
	size_t i, hits = 0;

	assert_int_equal(read_file(path, 1 << 24, &b), 0);
	for (i = 0; i + len <= b.len; i++)
		if (!memcmp(b.buf + i, from, len)) {
			memcpy(b.buf + i, to, len);
			hits++;
		}
	assert_true(hits >= 2);         /* the local header and the central directory */
	assert_int_equal(write_file_atomic(path, b.buf, b.len, 0644), 0);
	sbuf_release(&b);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Refused with a message containing why; neither dest nor a scratch dir beside it remain. */
static void expect_refusal(const char *zip, const char *why, size_t max_bytes, size_t max_entries)
{
	char *dest = path_of("dest");
	struct sbuf err = SBUF_INIT(4096);

	assert_int_equal(zip_unpack(zip, dest, max_bytes, max_entries, &err), -1);
	if (!strstr(sbuf_str(&err), why))
		fail_msg("expected '%s' in '%s'", why, sbuf_str(&err));
	assert_int_equal(access(dest, F_OK), -1);
	assert_int_equal(count_entries(scratch), 1);    /* only the zip */
	sbuf_release(&err);
	free(dest);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/test_unzip.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	scratch = xstrdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	remove_tree(scratch);
	free(scratch);
	return 0;
}

static int each_setup(void **state)
{
	remove_tree(scratch);
	return mkdir(scratch, 0755);
}

static void test_good_zip(void **state)
{
	static const struct ent e[] = {
		{ "top.txt", "top\n", 0 },
		{ "dir/", NULL, 0 },
		{ "dir/sub/deep.dat", "deep content", 0 },
		{ "empty", "", S_IFREG },
	};
	char *zip = make_zip("good.zip", e, ARRAY_SIZE(e)), *dest = path_of("dest"), *p;
	struct sbuf err = SBUF_INIT(4096), b = SBUF_INIT(4096);
	struct stat st;

	assert_int_equal(zip_unpack(zip, dest, 1000, 10, &err), 0);
	p = xasprintf("%s/dir/sub/deep.dat", dest);
	assert_int_equal(read_file(p, 4096, &b), 0);
	assert_string_equal(sbuf_str(&b), "deep content");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	free(p);
	p = xasprintf("%s/dir/sub", dest);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	free(p);
	sbuf_reset(&b);
	p = xasprintf("%s/top.txt", dest);
	assert_int_equal(read_file(p, 4096, &b), 0);
	assert_string_equal(sbuf_str(&b), "top\n");
	free(p);
	assert_int_equal(count_entries(dest), 3);
	assert_int_equal(count_entries(scratch), 2);    /* the zip and dest: no scratch dir */
	sbuf_release(&b);
	sbuf_release(&err);
	free(zip);
	free(dest);
}

static void test_refuses_bad_names(void **state)
{
	static const struct {
		const char *name, *why;
	} bad[] = {
		{ "/etc/passwd", "absolute name" },
		{ "../escape", "'..' component" },
		{ "a/../../escape", "'..' component" },
		{ "a\\b", "backslash" },
		{ "a/./b", "'.' component" },
		{ "a//b", "empty component" },
		{ "bell\a", "control character" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ent e[] = { { "fine.txt", "fine", 0 }, { bad[i].name, "evil", 0 } };
		char *zip = make_zip("bad.zip", e, ARRAY_SIZE(e));

		expect_refusal(zip, bad[i].why, 1000, 10);
		unlink(zip);
		free(zip);
	}
}

static void test_refuses_nul_in_name(void **state)
{
	static const struct ent e[] = { { "fine.txt", "fine", 0 }, { "nulQname", "evil", 0 } };
	char *zip = make_zip("nul.zip", e, ARRAY_SIZE(e));

	patch(zip, "nulQname", "nul\0name", 8);
	expect_refusal(zip, "NUL", 1000, 10);
	free(zip);
}

static void test_refuses_symlink(void **state)
{
	static const struct ent e[] = { { "link", "/etc/passwd", S_IFLNK } };
	char *zip = make_zip("link.zip", e, ARRAY_SIZE(e));

	expect_refusal(zip, "symbolic link", 1000, 10);
	free(zip);
}

static void test_refuses_duplicates(void **state)
{
	static const struct ent e[] = { { "same.txt", "one", 0 }, { "samX.txt", "two", 0 } };
	static const struct ent d[] = { { "x/", NULL, 0 }, { "y", "file", 0 } };
	char *zip = make_zip("dup.zip", e, ARRAY_SIZE(e));

	patch(zip, "samX.txt", "same.txt", 8);
	expect_refusal(zip, "occurs twice", 1000, 10);
	unlink(zip);
	free(zip);
	/* a directory and a file of one name */
	zip = make_zip("dup.zip", d, ARRAY_SIZE(d));
	patch(zip, "x/", "y/", 2);
	expect_refusal(zip, "occurs twice", 1000, 10);
	free(zip);
}

static void test_refuses_too_many_entries(void **state)
{
	static const struct ent e[] = { { "a", "1", 0 }, { "b", "2", 0 }, { "c", "3", 0 } };
	char *zip = make_zip("many.zip", e, ARRAY_SIZE(e));

	expect_refusal(zip, "more than the 2 allowed", 1000, 2);
	free(zip);
}

static void test_refuses_too_many_bytes(void **state)
{
	/* compresses to little; the second file passes the budget after the first is written */
	char *big = xcalloc(1, 200001);
	struct ent e[] = { { "small", "0123456789", 0 }, { "bomb", big, 0 } };
	char *zip;

	memset(big, 'z', 200000);
	zip = make_zip("bomb.zip", e, ARRAY_SIZE(e));
	expect_refusal(zip, "more than 100000 bytes", 100000, 10);
	free(zip);
	free(big);
}

/* Refused by zip_unpack_limited() with why in the message; nothing left, shared unchanged. */
static void expect_limited_refusal(const char *zip, const struct zip_limits *lim,
				   struct zip_budget *shared, const char *why)
{
	char *dest = path_of("dest");
	struct sbuf err = SBUF_INIT(4096);
	struct zip_budget before = shared ? *shared : (struct zip_budget){ 0, 0, 0, 0 };

	assert_int_equal(zip_unpack_limited(zip, dest, lim, shared, &err), -1);
	if (!strstr(sbuf_str(&err), why))
		fail_msg("expected '%s' in '%s'", why, sbuf_str(&err));
	assert_int_equal(access(dest, F_OK), -1);
	assert_int_equal(count_entries(scratch), 1);
	if (shared)
		assert_memory_equal(shared, &before, sizeof(before));
	sbuf_release(&err);
	free(dest);
}

/* Past 1 MiB, no more than max_ratio bytes per byte of zip: a bomb stops while it inflates. */
static void test_refuses_compression_ratio(void **state)
{
	size_t n = 3u << 20;
	char *big = xcalloc(1, n + 1);
	struct ent e[] = { { "zeros", big, 0 } };
	struct zip_limits lim = { .max_ratio = 100 };
	char *zip;

	memset(big, '0', n);
	zip = make_zip("ratio.zip", e, ARRAY_SIZE(e));
	expect_limited_refusal(zip, &lim, NULL, "compression ratio past the bound");
	lim.max_ratio = 10000;
	lim.max_entry_bytes = n - 1;
	expect_limited_refusal(zip, &lim, NULL, "one entry");
	free(zip);
	free(big);
}

/* What several zips share: charged only for a zip unpacked whole, refused past it. */
static void test_shared_budget(void **state)
{
	static const struct ent e[] = { { "a", "12345", 0 }, { "b", "67890", 0 } };
	static const struct zip_limits lim = { .max_bytes = 1000, .max_entries = 10 };
	struct zip_budget batch = { .max_bytes = 1000, .max_entries = 5 };
	char *zip = make_zip("job.zip", e, ARRAY_SIZE(e)), *dest = path_of("dest");
	struct sbuf err = SBUF_INIT(4096);

	assert_int_equal(zip_unpack_limited(zip, dest, &lim, &batch, &err), 0);
	assert_int_equal(batch.entries, 2);
	assert_int_equal(batch.bytes, 10);
	remove_tree(dest);
	assert_int_equal(zip_unpack_limited(zip, dest, &lim, &batch, &err), 0);
	remove_tree(dest);
	expect_limited_refusal(zip, &lim, &batch, "more than the 5 they may have together");
	batch.max_entries = 100;
	batch.max_bytes = 25;
	expect_limited_refusal(zip, &lim, &batch, "in the batch's zips together");
	assert_int_equal(batch.bytes, 20);
	sbuf_release(&err);
	free(zip);
	free(dest);
}

static void test_refuses_garbage(void **state)
{
	char *zip = path_of("garbage.zip");

	assert_int_equal(write_file_atomic(zip, "PK\3\4 not really", 16, 0644), 0);
	expect_refusal(zip, "not a readable zip", 1000, 10);
	free(zip);
}

static void test_never_replaces_a_file(void **state)
{
	static const struct ent e[] = { { "new.txt", "new", 0 }, { "old.txt", "evil", 0 } };
	char *zip = make_zip("over.zip", e, ARRAY_SIZE(e)), *dest = path_of("dest"), *p;
	struct sbuf err = SBUF_INIT(4096), b = SBUF_INIT(4096);

	assert_int_equal(mkdir(dest, 0755), 0);
	p = xasprintf("%s/old.txt", dest);
	assert_int_equal(write_file_atomic(p, "old", 3, 0644), 0);
	assert_int_equal(zip_unpack(zip, dest, 1000, 10, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "is there already"));
	assert_int_equal(read_file(p, 4096, &b), 0);
	assert_string_equal(sbuf_str(&b), "old");
	assert_int_equal(count_entries(dest), 1);       /* new.txt taken back */
	assert_int_equal(count_entries(scratch), 2);
	free(p);
	sbuf_release(&b);
	sbuf_release(&err);
	free(zip);
	free(dest);
}

static void write_in(const char *dir, const char *rel, const char *data)
{
	char *p = xasprintf("%s/%s", dir, rel);

	assert_int_equal(write_file_atomic(p, data, strlen(data), 0644), 0);
	free(p);
}

/* The wrapper's zip of outputs: new files matching a pattern, not the client's, no symlinks. */
static void test_wrapper_zip_round_trip(void **state)
{
	char *slot = path_of("slot"), *zip = path_of("out.zip"), *dest = path_of("dest"), *p;
	char *patterns[] = { "res_*", "*.dat" };
	struct wout_names before, back;
	struct sbuf err = SBUF_INIT(4096), b = SBUF_INIT(4096);
	size_t n;

	assert_int_equal(mkdir(slot, 0755), 0);
	write_in(slot, "res_client", "the client's");
	assert_int_equal(wout_list(slot, &before, &err), 0);
	p = xasprintf("%s/listing", scratch);
	assert_int_equal(wout_save(p, &before, &err), 0);
	assert_int_equal(wout_load(p, &back, &err), 0);
	unlink(p);
	free(p);
	assert_int_equal(back.n, 1);
	assert_true(wout_has(&back, "res_client"));
	write_in(slot, "res_a81x", "result a");
	write_in(slot, "data_7.dat", "data 7");
	write_in(slot, "other.txt", "not packed");
	p = xasprintf("%s/res_dir", slot);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	write_in(slot, "res_dir/inner.txt", "inner");
	p = xasprintf("%s/res_link", slot);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	free(p);
	assert_int_equal(wout_zip(slot, zip, patterns, 2, &back, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(zip_unpack(zip, dest, 10000, 10, &err), 0);
	assert_int_equal(count_entries(dest), 3);
	p = xasprintf("%s/res_dir/inner.txt", dest);
	assert_int_equal(read_file(p, 4096, &b), 0);
	assert_string_equal(sbuf_str(&b), "inner");
	free(p);
	/* nothing to pack: still a zip, an empty one */
	remove_tree(dest);
	unlink(zip);
	patterns[0] = "nothing*";
	patterns[1] = "none*";
	assert_int_equal(wout_zip(slot, zip, patterns, 2, &back, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(zip_unpack(zip, dest, 10000, 10, &err), 0);
	assert_int_equal(count_entries(dest), 0);
	wout_release(&before);
	wout_release(&back);
	sbuf_release(&b);
	sbuf_release(&err);
	free(slot);
	free(zip);
	free(dest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_good_zip, each_setup),
		cmocka_unit_test_setup(test_refuses_bad_names, each_setup),
		cmocka_unit_test_setup(test_refuses_nul_in_name, each_setup),
		cmocka_unit_test_setup(test_refuses_symlink, each_setup),
		cmocka_unit_test_setup(test_refuses_duplicates, each_setup),
		cmocka_unit_test_setup(test_refuses_too_many_entries, each_setup),
		cmocka_unit_test_setup(test_refuses_too_many_bytes, each_setup),
		cmocka_unit_test_setup(test_refuses_garbage, each_setup),
		cmocka_unit_test_setup(test_refuses_compression_ratio, each_setup),
		cmocka_unit_test_setup(test_shared_budget, each_setup),
		cmocka_unit_test_setup(test_never_replaces_a_file, each_setup),
		cmocka_unit_test_setup(test_wrapper_zip_round_trip, each_setup),
	};

	log_init("test_unzip", NULL);
	log_set_level(0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
