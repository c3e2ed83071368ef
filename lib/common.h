/*
 * The one header every wseq source file includes first: system headers,
 * attribute shorthands, allocation wrappers, and (last) the banned list.
 */
#ifndef WSEQ_COMMON_H
#define WSEQ_COMMON_H

#include "autoconf.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#define UNUSED __attribute__((unused))

/* Allocation that never returns NULL: out of memory ends the program. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/*
 * Make room for arr[n] in an array of n elements that only ARRAY_GROW
 * allocates (it starts NULL with n 0): the capacity is the power of two at
 * or above n, doubled when n reaches it, so n pushes copy O(n) elements.
 * A size past SIZE_MAX ends the program as exhaustion does.
 */
#define ARRAY_GROW(arr, n) ((arr) = array_grow((arr), (size_t)(n), sizeof(*(arr))))
void *array_grow(void *arr, size_t n, size_t size);
/*
 * The bytes array_grow reallocates to before arr[n] is written: 0 when the
 * capacity already holds it, SIZE_MAX when the size would overflow.
 */
size_t array_grow_bytes(size_t n, size_t size);

/* Copy at most size-1 bytes and always terminate; returns strlen(src). */
size_t wstrlcpy(char *dst, const char *src, size_t size);

/*
 * Parse a whole string as a number; 0 on success, -1 if malformed or out of
 * range (a double must be finite: nan, inf and 1e999 are refused). For a
 * value from outside with a name, bounds and a message, see field.h.
 */
int parse_long(const char *s, long *out);
int parse_double(const char *s, double *out);

#include "banned.h"

#endif
