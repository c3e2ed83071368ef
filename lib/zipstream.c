/*
 * The streaming zip writer (zip.h), after PKWARE's APPNOTE 6.3: general
 * purpose flag bit 3 (sizes in a data descriptor after the data), bit 11
 * for names that are not ASCII, method 8 (deflate), zip64 extra fields
 * and end records only where a number does not fit 32 (or 16) bits.
 */
#include "zipstream.h"
#include "log.h"

#include <sys/stat.h>
#include <zlib.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_DESCRIPTOR 0x08074b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u

#define FLAG_DESCRIPTOR (1u << 3)
#define FLAG_UTF8 (1u << 11)
#define METHOD_DEFLATE 8
#define VERSION_20 20           /* deflate */
#define VERSION_45 45           /* zip64 */
#define MADE_BY_UNIX (3u << 8)
#define U32_MAX 0xffffffffu
#define U16_MAX 0xffffu
/*
 * An entry whose content may pass 4 GiB (deflated or not) gets zip64 sizes
 * from its local header on: decided before its data, so with room for
 * deflate's worst-case growth (a few bytes per 16 KiB).
 */
#define BIG_ENTRY 0xf0000000u
#define CHUNK 65536

struct zip_entry {
	char *name;
	uint32_t crc, dostime;
	uint64_t csize, usize, offset;
	uint16_t flags;
	bool big;
};

struct zip_writer {
	zip_write_fn write;
	void *arg;
	uint64_t offset;                /* bytes written so far */
	struct zip_entry *e;
	size_t n, cap;
	bool failed;
	unsigned char in[CHUNK], out[CHUNK];
};

/* A record being built: little-endian fields into a small buffer. */
struct rec {
	unsigned char b[128];
	size_t len;
};

static void put16(struct rec *r, uint32_t v)
{
	r->b[r->len++] = v & 0xff;
	r->b[r->len++] = (v >> 8) & 0xff;
}

static void put32(struct rec *r, uint32_t v)
{
	put16(r, v & 0xffff);
	put16(r, v >> 16);
}

static void put64(struct rec *r, uint64_t v)
{
	put32(r, (uint32_t)(v & U32_MAX));
	put32(r, (uint32_t)(v >> 32));
}

static int emit(struct zip_writer *z, const void *buf, size_t n)
{
	if (z->failed)
		return -1;
	if (n && z->write(z->arg, buf, n) < 0) {
		z->failed = true;
		return -1;
	}
	z->offset += n;
	return 0;
}

bool zip_name_ok(const char *name)
{
	const char *p = name, *c;
	size_t len = name ? strlen(name) : 0;

	if (!len || len > ZIP_NAME_MAX)
		return false;
	for (c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '\\' || *c == ':')
			return false;
	for (;;) {
		size_t k = strcspn(p, "/");

		if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[k])
			return true;
		p += k + 1;
	}
}

/* MS-DOS date and time, local time as zip tools do; 1980-01-01 for anything earlier. */
static uint32_t dos_time(time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || tm.tm_year < 80)
		return (1u << 21) | (1u << 16);
	return (uint32_t)(tm.tm_year - 80) << 25 | (uint32_t)(tm.tm_mon + 1) << 21 |
	       (uint32_t)tm.tm_mday << 16 | (uint32_t)tm.tm_hour << 11 |
	       (uint32_t)tm.tm_min << 5 | (uint32_t)tm.tm_sec / 2;
}

struct zip_writer *zip_writer_new(zip_write_fn write, void *arg)
{
	struct zip_writer *z = xcalloc(1, sizeof(*z));

	z->write = write;
	z->arg = arg;
	return z;
}

void zip_writer_free(struct zip_writer *z)
{
	size_t i;

	if (!z)
		return;
	for (i = 0; i < z->n; i++)
		free(z->e[i].name);
	free(z->e);
	free(z);
}

static struct zip_entry *entry_start(struct zip_writer *z, const char *name, time_t mtime,
				     uint64_t size_hint)
{
	struct zip_entry *e;
	struct rec r = { .len = 0 };
	size_t nlen = strlen(name), i;

	if (z->n == z->cap) {
		z->cap = z->cap ? 2 * z->cap : 16;
		z->e = xrealloc(z->e, z->cap * sizeof(*z->e));
	}
	e = &z->e[z->n];
	memset(e, 0, sizeof(*e));
	e->offset = z->offset;
	e->dostime = dos_time(mtime);
	e->big = size_hint >= BIG_ENTRY;
	e->flags = FLAG_DESCRIPTOR;
	for (i = 0; i < nlen; i++)
		if ((unsigned char)name[i] >= 0x80)
			e->flags |= FLAG_UTF8;
	put32(&r, SIG_LOCAL);
	put16(&r, e->big ? VERSION_45 : VERSION_20);
	put16(&r, e->flags);
	put16(&r, METHOD_DEFLATE);
	put32(&r, e->dostime);
	put32(&r, 0);                                   /* CRC-32: in the descriptor */
	put32(&r, e->big ? U32_MAX : 0);
	put32(&r, e->big ? U32_MAX : 0);
	put16(&r, (uint32_t)nlen);
	put16(&r, e->big ? 20 : 0);
	if (emit(z, r.b, r.len) || emit(z, name, nlen))
		return NULL;
	if (e->big) {
		r.len = 0;
		put16(&r, 0x0001);                      /* zip64 extended information */
		put16(&r, 16);
		put64(&r, 0);
		put64(&r, 0);
		if (emit(z, r.b, r.len))
			return NULL;
	}
	e->name = xstrdup(name);
	z->n++;
	return e;
}

/* Deflate n bytes of z->in (finish: the last of them) and write what comes out. */
static int deflate_some(struct zip_writer *z, struct zip_entry *e, z_stream *s, size_t n,
			bool finish)
{
	int zr;

	e->crc = (uint32_t)crc32(e->crc, z->in, (uInt)n);
	e->usize += n;
	s->next_in = z->in;
	s->avail_in = (uInt)n;
	do {
		size_t have;

		s->next_out = z->out;
		s->avail_out = CHUNK;
		zr = deflate(s, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			return log_error("zip: deflate failed");
		have = CHUNK - s->avail_out;
		e->csize += have;
		if (emit(z, z->out, have))
			return -1;
	} while (s->avail_out == 0 || (finish && zr != Z_STREAM_END));
	return 0;
}

static int entry_end(struct zip_writer *z, struct zip_entry *e)
{
	struct rec r = { .len = 0 };

	if (!e->big && (e->csize >= U32_MAX || e->usize >= U32_MAX))
		return log_error("zip: %s grew past 4 GiB while written", e->name);
	put32(&r, SIG_DESCRIPTOR);
	put32(&r, e->crc);
	if (e->big) {
		put64(&r, e->csize);
		put64(&r, e->usize);
	} else {
		put32(&r, (uint32_t)e->csize);
		put32(&r, (uint32_t)e->usize);
	}
	return emit(z, r.b, r.len);
}

/* Add an entry whose content comes from fd (fd >= 0) or buf. */
static int add(struct zip_writer *z, const char *name, int fd, const void *buf, size_t len,
	       time_t mtime, uint64_t size_hint)
{
	struct zip_entry *e;
	z_stream s;
	int rc = 0;

	if (!zip_name_ok(name))
		return log_error("zip: refusing the entry name %.100s", name ? name : "(null)");
	if (z->failed || !(e = entry_start(z, name, mtime, size_hint)))
		return -1;
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return log_error("zip: deflateInit2 failed");
	if (fd < 0) {
		const unsigned char *p = buf;

		do {
			size_t n = len > CHUNK ? CHUNK : len;

			memcpy(z->in, p, n);
			p += n;
			len -= n;
			rc = deflate_some(z, e, &s, n, len == 0);
		} while (!rc && len);
	} else {
		for (;;) {
			ssize_t n = read(fd, z->in, CHUNK);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = log_error("zip: reading %s: %s", name, strerror(errno));
				break;
			}
			if ((rc = deflate_some(z, e, &s, (size_t)n, n == 0)) || n == 0)
				break;
		}
	}
	deflateEnd(&s);
	if (!rc)
		rc = entry_end(z, e);
	if (rc)
		z->failed = true;
	return rc;
}

int zip_add_fd(struct zip_writer *z, const char *name, int fd, time_t mtime)
{
	struct stat st;
	/* a pipe's size is not known ahead: ready for a big one */
	uint64_t hint = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
								   : UINT64_MAX;

	return add(z, name, fd, NULL, 0, mtime, hint);
}

int zip_add_buf(struct zip_writer *z, const char *name, const void *buf, size_t len,
		time_t mtime)
{
	return add(z, name, -1, buf, len, mtime, len);
}

static int central_entry(struct zip_writer *z, const struct zip_entry *e)
{
	struct rec r = { .len = 0 }, x = { .len = 0 };
	bool big_u = e->usize >= U32_MAX, big_c = e->csize >= U32_MAX, big_o = e->offset >= U32_MAX;
	size_t nlen = strlen(e->name);

	if (big_u)
		put64(&x, e->usize);
	if (big_c)
		put64(&x, e->csize);
	if (big_o)
		put64(&x, e->offset);
	put32(&r, SIG_CENTRAL);
	put16(&r, MADE_BY_UNIX | VERSION_45);
	put16(&r, e->big || x.len ? VERSION_45 : VERSION_20);
	put16(&r, e->flags);
	put16(&r, METHOD_DEFLATE);
	put32(&r, e->dostime);
	put32(&r, e->crc);
	put32(&r, big_c ? U32_MAX : (uint32_t)e->csize);
	put32(&r, big_u ? U32_MAX : (uint32_t)e->usize);
	put16(&r, (uint32_t)nlen);
	put16(&r, x.len ? (uint32_t)x.len + 4 : 0);
	put16(&r, 0);                                   /* comment */
	put16(&r, 0);                                   /* disk */
	put16(&r, 0);                                   /* internal attributes */
	put32(&r, (0100644u << 16));                    /* external: a plain file, rw-r--r-- */
	put32(&r, big_o ? U32_MAX : (uint32_t)e->offset);
	if (emit(z, r.b, r.len) || emit(z, e->name, nlen))
		return -1;
	if (x.len) {
		r.len = 0;
		put16(&r, 0x0001);
		put16(&r, (uint32_t)x.len);
		if (emit(z, r.b, r.len) || emit(z, x.b, x.len))
			return -1;
	}
	return 0;
}

int zip_finish(struct zip_writer *z)
{
	uint64_t cd_start = z->offset, cd_size, end64;
	struct rec r = { .len = 0 };
	bool big;
	size_t i;

	if (z->failed)
		return -1;
	for (i = 0; i < z->n; i++)
		if (central_entry(z, &z->e[i]))
			return -1;
	cd_size = z->offset - cd_start;
	big = z->n >= U16_MAX || cd_size >= U32_MAX || cd_start >= U32_MAX;
	if (big) {
		end64 = z->offset;
		put32(&r, SIG_END64);
		put64(&r, 44);                          /* the record's size after this field */
		put16(&r, MADE_BY_UNIX | VERSION_45);
		put16(&r, VERSION_45);
		put32(&r, 0);
		put32(&r, 0);
		put64(&r, z->n);
		put64(&r, z->n);
		put64(&r, cd_size);
		put64(&r, cd_start);
		put32(&r, SIG_LOCATOR64);
		put32(&r, 0);
		put64(&r, end64);
		put32(&r, 1);
		if (emit(z, r.b, r.len))
			return -1;
		r.len = 0;
	}
	put32(&r, SIG_END);
	put16(&r, 0);
	put16(&r, 0);
	put16(&r, big ? U16_MAX : (uint32_t)z->n);
	put16(&r, big ? U16_MAX : (uint32_t)z->n);
	put32(&r, big ? U32_MAX : (uint32_t)cd_size);
	put32(&r, big ? U32_MAX : (uint32_t)cd_start);
	put16(&r, 0);                                   /* comment */
	return emit(z, r.b, r.len);
}
