/*
 * Unit tests for the streaming zip writer: what it writes is read back by
 * a reader written here from the format (end record, central directory,
 * local headers, raw inflate), entry names are checked, and the zip64 end
 * records appear when the entries pass 65,535.
 */
#include "unit.h"
#include "zipstream.h"
#include "log.h"

#include <fcntl.h>
#include <zlib.h>

struct mem {
	unsigned char *p;
	size_t len, cap;
	size_t fail_after;      /* 0: never */
};

static int mem_write(void *arg, const void *buf, size_t n)
{
	struct mem *m = arg;

	if (m->fail_after && m->len + n > m->fail_after)
		return -1;
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->p = xrealloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, buf, n);
	m->len += n;
	return 0;
}

static uint32_t get16(const unsigned char *p) { return p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const unsigned char *p) { return get16(p) | get16(p + 2) << 16; }
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

/* Entry i of the archive: its name and inflated content (allocated), checked against its CRC. */
static void read_entry(const struct mem *m, size_t i, char **name, unsigned char **data,
		       size_t *len)
{
	const unsigned char *end = m->p + m->len - 22, *c, *l;
	uint64_t cd = get32(end + 16), usize, csize;
	z_stream s;
	size_t k;

	assert_int_equal(get32(end), 0x06054b50);
	c = m->p + cd;
	for (k = 0; k < i; k++)
		c += 46 + get16(c + 28) + get16(c + 30) + get16(c + 32);
	assert_int_equal(get32(c), 0x02014b50);
	assert_int_equal(get16(c + 10), 8);
	usize = get32(c + 24);
	csize = get32(c + 20);
	*name = xstrndup((const char *)c + 46, get16(c + 28));
	l = m->p + get32(c + 42);
	assert_int_equal(get32(l), 0x04034b50);
	assert_int_equal(get16(l + 6) & 8, 8);
	assert_int_equal(get16(l + 26), get16(c + 28));
	assert_memory_equal(l + 30, *name, get16(l + 26));
	*data = xmalloc(usize + 1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(inflateInit2(&s, -MAX_WBITS), Z_OK);
	s.next_in = (unsigned char *)l + 30 + get16(l + 26) + get16(l + 28);
	s.avail_in = (uInt)csize;
	s.next_out = *data;
	s.avail_out = (uInt)usize + 1;
	assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
	assert_int_equal(s.total_out, usize);
	assert_int_equal(s.total_in, csize);
	inflateEnd(&s);
	*len = usize;
	assert_int_equal(crc32(0, *data, (uInt)usize), get32(c + 16));
	/* the data descriptor after the data says the same */
	assert_int_equal(get32(s.next_in), 0x08074b50);
	assert_int_equal(get32(s.next_in + 4), get32(c + 16));
	assert_int_equal(get32(s.next_in + 8), csize);
	assert_int_equal(get32(s.next_in + 12), usize);
}

static void test_round_trip(void **state)
{
	struct mem m = { 0 };
	struct zip_writer *z = zip_writer_new(mem_write, &m);
	char path[] = "/tmp/test_zip_XXXXXX", *name;
	unsigned char big[200000], *data;
	size_t len, i;
	int fd = mkstemp(path);

	(void)state;
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + i / 1000);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(zip_add_buf(z, "a.txt", "hello\n", 6, 1700000000), 0);
	assert_int_equal(zip_add_fd(z, "dir/big.bin", fd, 1700000000), 0);
	assert_int_equal(zip_add_buf(z, "empty", "", 0, 0), 0);
	assert_int_equal(zip_finish(z), 0);
	zip_writer_free(z);
	close(fd);
	unlink(path);
	assert_int_equal(get16(m.p + m.len - 22 + 10), 3);

	read_entry(&m, 0, &name, &data, &len);
	assert_string_equal(name, "a.txt");
	assert_int_equal(len, 6);
	assert_memory_equal(data, "hello\n", 6);
	free(name);
	free(data);
	read_entry(&m, 1, &name, &data, &len);
	assert_string_equal(name, "dir/big.bin");
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(data, big, sizeof(big));
	free(name);
	free(data);
	read_entry(&m, 2, &name, &data, &len);
	assert_string_equal(name, "empty");
	assert_int_equal(len, 0);
	free(name);
	free(data);
	free(m.p);
}

static void test_names(void **state)
{
	static const char *const good[] = { "a", "r_0__out", "batch_1/j1_0/out.txt", "x..y", ".hidden" };
	static const char *const bad[] = { "", "/abs", "a/../b", "..", "a//b", "a/", "./a", "c:x",
					   "a\\b", "new\nline", "tab\t" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(zip_name_ok(good[i]));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(zip_name_ok(bad[i]));
	assert_false(zip_name_ok(NULL));
}

static void test_bad_name_or_write_stops(void **state)
{
	struct mem m = { .fail_after = 100 };
	struct zip_writer *z = zip_writer_new(mem_write, &m);
	char big[300];

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(zip_add_buf(z, "../evil", "x", 1, 0), -1);
	assert_int_equal(m.len, 0);
	assert_int_equal(zip_add_buf(z, "ok", big, sizeof(big), 0), 0);  /* deflated small */
	assert_int_equal(zip_add_buf(z, "ok2", big, sizeof(big), 0), -1);
	assert_int_equal(zip_finish(z), -1);
	zip_writer_free(z);
	free(m.p);
}

static void test_zip64_many_entries(void **state)
{
	struct mem m = { 0 };
	struct zip_writer *z = zip_writer_new(mem_write, &m);
	const unsigned char *end, *loc, *e64;
	char name[32];
	size_t i, n = 65540;

	(void)state;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		assert_int_equal(zip_add_buf(z, name, name, strlen(name), 0), 0);
	}
	assert_int_equal(zip_finish(z), 0);
	zip_writer_free(z);
	end = m.p + m.len - 22;
	assert_int_equal(get32(end), 0x06054b50);
	assert_int_equal(get16(end + 10), 0xffff);
	loc = end - 20;
	assert_int_equal(get32(loc), 0x07064b50);
	e64 = m.p + get64(loc + 8);
	assert_int_equal(get32(e64), 0x06064b50);
	assert_int_equal(get64(e64 + 32), n);
	assert_int_equal(get32(m.p + get64(e64 + 48)), 0x02014b50);
	free(m.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_name_or_write_stops),
		cmocka_unit_test(test_zip64_many_entries),
	};

	log_init("test_zip", NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
