/* Unit tests for the client bundle's lookup and ID (sweep/master/sweep_bundle.c). */
#include "unit.h"
#include "fileutil.h"
#include "sweep_bundle.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/test_sweep_bundle.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void put(const char *dir, const char *rel, const char *text, mode_t mode)
{
	char *p = xasprintf("%s/%s", dir, rel);

	assert_int_equal(mkdir_parent(p, 0755), 0);
	assert_int_equal(write_file_atomic(p, text, strlen(text), mode), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* A small bundle in a fresh directory under root (a platform's name, or ""). */
static char *make_bundle(const char *root, const char *platform)
{
	char *d = *platform ? xasprintf("%s/%s", root, platform) : xstrdup(root);

	put(d, "start", "#!/bin/sh\nexec ./sweep_client \"$@\"\n", 0755);
	put(d, "sweep_client", "a client", 0755);
	put(d, "lib/libfoo.so.1", "a library", 0644);
	return d;
}

static void id_of(const char *dir, char id[MD5_HEX_LEN + 1])
{
	assert_int_equal(sweep_bundle_id(dir, id), 0);
	assert_int_equal(strlen(id), MD5_HEX_LEN);
}

static void test_id_is_the_content(void **state)
{
	char *a = tmpdir(), *b = tmpdir(), ida[MD5_HEX_LEN + 1], idb[MD5_HEX_LEN + 1];

	(void)state;
	free(make_bundle(a, ""));
	free(make_bundle(b, ""));
	id_of(a, ida);
	id_of(b, idb);
	assert_string_equal(ida, idb);          /* where it is does not count */
	put(b, "lib/libfoo.so.1", "another library", 0644);
	id_of(b, idb);
	assert_string_not_equal(ida, idb);      /* a file's content does */
	put(b, "lib/libfoo.so.1", "a library", 0755);
	id_of(b, idb);
	assert_string_not_equal(ida, idb);      /* and its mode */
	put(b, "lib/libfoo.so.1", "a library", 0644);
	id_of(b, idb);
	assert_string_equal(ida, idb);
	put(b, "lib/libbar.so.2", "", 0644);
	id_of(b, idb);
	assert_string_not_equal(ida, idb);      /* and every file, even empty */
	assert_int_equal(remove_tree(a), 0);
	assert_int_equal(remove_tree(b), 0);
	free(a);
	free(b);
}

static void test_find(void **state)
{
	char *root = tmpdir(), *bundle, *found;

	(void)state;
	bundle = make_bundle(root, "x86_64-pc-linux-gnu");
	found = sweep_bundle_find(root, "x86_64-pc-linux-gnu");       /* a directory a platform */
	assert_non_null(found);
	assert_string_equal(found, bundle);
	free(found);
	found = sweep_bundle_find(bundle, "x86_64-pc-linux-gnu");     /* the bundle itself */
	assert_non_null(found);
	assert_string_equal(found, bundle);
	free(found);
	assert_null(sweep_bundle_find(root, "aarch64-unknown-linux-gnu"));
	assert_null(sweep_bundle_find("/nonexistent", "x86_64-pc-linux-gnu"));
	assert_int_equal(remove_tree(root), 0);
	free(bundle);
	free(root);
}

static void test_unreadable(void **state)
{
	char id[MD5_HEX_LEN + 1];
	char *d = tmpdir(), *fifo = xasprintf("%s/fifo", d);

	(void)state;
	assert_int_equal(sweep_bundle_id("/nonexistent", id), -1);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(sweep_bundle_id(d, id), -1);   /* neither a file nor a directory */
	assert_int_equal(remove_tree(d), 0);
	free(fifo);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_is_the_content),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
