/* Allocation wrappers and small string helpers shared by every program. */
#include "common.h"

#include <float.h>

static NORETURN void oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

size_t array_grow_bytes(size_t n, size_t size)
{
	size_t cap = n ? n * 2 : 1;

	if (n & (n - 1))
		return 0;
	if (n > SIZE_MAX / 2 || cap > SIZE_MAX / (size ? size : 1) - 1)
		return SIZE_MAX;
	return cap * size;
}

void *array_grow(void *arr, size_t n, size_t size)
{
	size_t bytes = array_grow_bytes(n, size);

	if (bytes == SIZE_MAX)
		oom(bytes);
	return bytes ? xrealloc(arr, bytes) : arr;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom(n + 1);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return p;
}

size_t wstrlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

int parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	/* nan and inf are refused: nothing we read means them, and casts of them are undefined */
	if (errno || *end || v != v || v > DBL_MAX || v < -DBL_MAX)
		return -1;
	*out = v;
	return 0;
}
