/*
 * Values from untrusted input -- scheduler requests, upload headers, submit
 * RPCs and forms, GAHP lines, sweep bodies, config and template files -- go
 * through here: text becomes a bounded value, or the caller gets a message
 * that names the field and quotes (safely) what was sent. One set of rules
 * for every door:
 *
 *   - a number must parse whole; inf, nan and out-of-range values are
 *     refused, or with FIELD_CLAMP replaced by the nearest bound; an
 *     integer may be written 1e3, but a fraction is refused (FIELD_CLAMP:
 *     its whole part);
 *   - an integer is never made by casting a double that does not fit;
 *   - a string longer than its limit is refused, or with FIELD_CUT cut on a
 *     UTF-8 character boundary; bytes that are not UTF-8 and control
 *     characters are refused, or with FIELD_CLEAN replaced by '?'.
 *
 * Each function returns FIELD_OK, FIELD_FIXED (the value was clamped, cut
 * or cleaned: *out is usable, why says what changed) or FIELD_BAD (*out
 * untouched, why says why). why may be NULL.
 */
#ifndef WSEQ_FIELD_H
#define WSEQ_FIELD_H

#include "common.h"
#include "sbuf.h"

enum field_rc {
	FIELD_BAD = -1,
	FIELD_OK = 0,
	FIELD_FIXED = 1,
};

enum field_flags {
	FIELD_CLAMP = 1 << 0,   /* numbers: out of range or not finite -> nearest bound,
				 * a fraction for an integer -> its whole part */
	FIELD_CUT = 1 << 1,     /* strings: too long -> cut to the limit */
	FIELD_CLEAN = 1 << 2,   /* strings: control bytes and bad UTF-8 -> '?' */
	FIELD_MULTILINE = 1 << 3, /* strings: tab, CR and LF are allowed */
};

/* The most characters a VARCHAR(254) column holds (every name-like column). */
#define FIELD_COLUMN_CHARS 254

int field_double(const char *name, const char *text, double min, double max, int flags,
		 double *out, struct sbuf *why);
int field_int64(const char *name, const char *text, int64_t min, int64_t max, int flags,
		int64_t *out, struct sbuf *why);
int field_int(const char *name, const char *text, int min, int max, int flags, int *out,
	      struct sbuf *why);
int field_long(const char *name, const char *text, long min, long max, int flags, long *out,
	       struct sbuf *why);
/*
 * A string of at most max_chars characters (UTF-8 code points); *out is
 * allocated. An empty string is fine here (the caller decides whether it
 * is required).
 */
int field_str(const char *name, const char *text, size_t max_chars, int flags, char **out,
	      struct sbuf *why);

/* A double already in hand (from a parser) into [min, max] as an integer, never UB. */
int64_t field_clamp_i64(double v, int64_t min, int64_t max);

/*
 * Append s for a message or a log line: control bytes, backslashes and bytes
 * that are not UTF-8 as \xNN, at most max bytes of s, then "..." when it was
 * longer.
 */
void field_quote(struct sbuf *out, const char *s, size_t max);

/*
 * Length of the character at s (n bytes there) if it is UTF-8 XML can carry
 * and not a control character (tab, CR, LF allowed if multiline); else 0.
 */
size_t field_char_len(const char *s, size_t n, bool multiline);
/* Is s valid UTF-8 without control characters (tab, CR, LF allowed if multiline)? */
bool field_text_ok(const char *s, size_t len, bool multiline);
/*
 * Is ext (a file name's extension, without the dot) one a browser shows as
 * an active page (HTML, SVG, XML and its styles, scripts) or a web server
 * may hand to a handler (PHP, SSI, CGI)? Without regard to case. Names a
 * submitter gives files served from the project's origin never have one.
 */
bool field_active_ext(const char *ext);

#endif
