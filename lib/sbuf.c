/* Bounded string buffer; see sbuf.h. */
#include "sbuf.h"

void sbuf_init(struct sbuf *b, size_t max)
{
	b->buf = NULL;
	b->len = b->alloc = 0;
	b->max = max;
}

void sbuf_release(struct sbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->alloc = 0;
}

void sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

void sbuf_truncate(struct sbuf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->buf[len] = '\0';
	}
}

static int sbuf_grow(struct sbuf *b, size_t n)
{
	size_t need;

	if (n > b->max - b->len)
		return -1;
	need = b->len + n + 1;
	if (need > b->alloc) {
		size_t a = b->alloc ? b->alloc : 64;
		while (a < need)
			a = a > SIZE_MAX / 2 ? need : a * 2;
		if (a > b->max + 1)
			a = b->max + 1;
		b->buf = xrealloc(b->buf, a);
		b->alloc = a;
	}
	return 0;
}

int sbuf_add(struct sbuf *b, const void *data, size_t n)
{
	if (sbuf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

int sbuf_addstr(struct sbuf *b, const char *s)
{
	return sbuf_add(b, s, strlen(s));
}

int sbuf_addch(struct sbuf *b, char c)
{
	return sbuf_add(b, &c, 1);
}

int sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || sbuf_grow(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sbuf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

const char *sbuf_str(const struct sbuf *b)
{
	return b->buf ? b->buf : "";
}

char *sbuf_detach(struct sbuf *b, size_t *len)
{
	char *p = b->buf ? b->buf : xstrdup("");

	if (len)
		*len = b->len;
	b->buf = NULL;
	b->len = b->alloc = 0;
	return p;
}

int sbuf_fail(struct sbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	sbuf_reset(err);
	va_start(ap, fmt);
	sbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}
