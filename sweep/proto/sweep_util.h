/*
 * Helpers shared by the sweep file and message parsers: error reporting
 * into a caller's buffer, a bounded file reader, a line iterator that
 * accepts LF and CRLF, and the checks for names and file names that come
 * from outside.
 */
#ifndef WSEQ_SWEEP_UTIL_H
#define WSEQ_SWEEP_UTIL_H

#include "common.h"
#include "sbuf.h"

/*
 * Append the message to err, or log it when err is NULL; returns -1 so a
 * parser can `return sweep_fail(err, ...)`.
 */
int sweep_fail(struct sbuf *err, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Read a whole file of at most max bytes; errors ("NAME: ...") go to err. */
int sweep_read_file(const char *path, size_t max, struct sbuf *out, struct sbuf *err);

struct sweep_lines {
	const char *p, *end;
	int lineno;             /* of the line last returned, from 1 */
};

void sweep_lines_init(struct sweep_lines *it, const char *buf, size_t len);
/* The next line without its "\n" or "\r\n"; false at the end of the buffer. */
bool sweep_lines_next(struct sweep_lines *it, const char **line, size_t *len);

/* Remove spaces and tabs from both ends of (s, len). */
void sweep_trim(const char **s, size_t *len);

/* Letters, digits and '_', at least one: a parameter or placeholder name. */
bool sweep_is_name(const char *s, size_t len);
bool sweep_is_name_char(int c);

/*
 * A file name the client may create in its work directory: not empty, not
 * absolute, no ".." component, no control characters.
 */
bool sweep_safe_filename(const char *s);

/* "Yes"/"No" in any case; 0, or -1 when s is neither. */
int sweep_parse_yesno(const char *s, bool *out);

/* A decimal number in [lo, hi] with no sign or spaces; 0 / -1. */
int sweep_parse_bounded(const char *s, long lo, long hi, long *out);

/* The BOINC name of the platform sweep_client and the master were built for (the
 * master deploys its own sweep_client, so it asks for this platform's worker). */
#if defined(__linux__) && defined(__x86_64__)
#define SWEEP_PLATFORM "x86_64-pc-linux-gnu"
#elif defined(__linux__) && defined(__i386__)
#define SWEEP_PLATFORM "i686-pc-linux-gnu"
#elif defined(__linux__) && defined(__aarch64__)
#define SWEEP_PLATFORM "aarch64-unknown-linux-gnu"
#elif defined(__linux__) && defined(__arm__)
#define SWEEP_PLATFORM "arm-unknown-linux-gnueabihf"
#elif defined(__linux__) && defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWEEP_PLATFORM "powerpc64le-unknown-linux-gnu"
#elif defined(__APPLE__) && defined(__aarch64__)
#define SWEEP_PLATFORM "arm64-apple-darwin"
#elif defined(__APPLE__) && defined(__x86_64__)
#define SWEEP_PLATFORM "x86_64-apple-darwin"
#elif defined(__FreeBSD__) && defined(__x86_64__)
#define SWEEP_PLATFORM "x86_64-pc-freebsd__FreeBSD"
#else
#define SWEEP_PLATFORM "unknown"
#endif

#endif
