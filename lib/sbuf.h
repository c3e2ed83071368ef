/*
 * A growable string buffer with a mandatory maximum size (curl's dynbuf).
 * Anything that holds bytes from outside -- requests, uploads, XML from
 * strangers -- goes through one of these so no input can exhaust memory.
 * The contents are always NUL-terminated.
 */
#ifndef WSEQ_SBUF_H
#define WSEQ_SBUF_H

#include "common.h"

struct sbuf {
	char *buf;      /* NULL until the first byte is added */
	size_t len;
	size_t alloc;
	size_t max;     /* len never exceeds max */
};

#define SBUF_INIT(maxlen) { NULL, 0, 0, (maxlen) }

void sbuf_init(struct sbuf *b, size_t max);
void sbuf_release(struct sbuf *b);
void sbuf_reset(struct sbuf *b);
/* Each returns 0, or -1 (contents unchanged) when the maximum would be passed. */
int sbuf_add(struct sbuf *b, const void *data, size_t n);
int sbuf_addstr(struct sbuf *b, const char *s);
int sbuf_addch(struct sbuf *b, char c);
int sbuf_addf(struct sbuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
int sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
/* A failure's reason: err (if not NULL) holds only the message; returns -1. */
int sbuf_fail(struct sbuf *err, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* The contents ("" when empty); valid until the next change. */
const char *sbuf_str(const struct sbuf *b);
/* Hand the contents to the caller (free() it) and reset the buffer. */
char *sbuf_detach(struct sbuf *b, size_t *len);
void sbuf_truncate(struct sbuf *b, size_t len);

#endif
