/* Bounded values from untrusted text; see field.h. */
#include "field.h"

#include <math.h>
#include <strings.h>

#define FIELD_QUOTE_MAX 64

static size_t utf8_char(const unsigned char *p, size_t n);

void field_quote(struct sbuf *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p), i = 0, k;

	while (i < len) {
		if (i >= max) {
			sbuf_addstr(out, "...");
			return;
		}
		/* bytes that are not UTF-8 too: the message may go into an XML reply */
		k = p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\' ? 0 : utf8_char(p + i, len - i);
		if (k == 0) {
			sbuf_addf(out, "\\x%02x", p[i]);
			i++;
		} else {
			sbuf_add(out, p + i, k);
			i += k;
		}
	}
}

static void PRINTF_LIKE(3, 4) note(struct sbuf *why, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	if (why->len)
		sbuf_addstr(why, "; ");
	sbuf_addf(why, "%s: ", name);
	va_start(ap, fmt);
	sbuf_vaddf(why, fmt, ap);
	va_end(ap);
}

static void note_quoted(struct sbuf *why, const char *name, const char *text, const char *what)
{
	struct sbuf q = SBUF_INIT(4 * FIELD_QUOTE_MAX + 8);

	field_quote(&q, text, FIELD_QUOTE_MAX);
	note(why, name, "'%s' %s", sbuf_str(&q), what);
	sbuf_release(&q);
}

/* Parse text as a finite or infinite double; NaN and junk are not numbers. */
static int read_number(const char *text, double *v)
{
	char *end;

	if (!text)
		return -1;
	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	if (!*text || strpbrk(text, "xXpP"))
		return -1;      /* no hex floats: "0x10" is not what anyone means */
	errno = 0;
	*v = strtod(text, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (*end || isnan(*v))
		return -1;
	/* ERANGE: an overflow is +-HUGE_VAL (out of range below); an underflow is ~0, fine. */
	return 0;
}

int field_double(const char *name, const char *text, double min, double max, int flags,
		 double *out, struct sbuf *why)
{
	double v;

	if (read_number(text, &v) < 0) {
		note_quoted(why, name, text, "is not a number");
		return FIELD_BAD;
	}
	if (v >= min && v <= max) {
		*out = v;
		return FIELD_OK;
	}
	if (!(flags & FIELD_CLAMP)) {
		note(why, name, "%g is outside [%g, %g]", v, min, max);
		return FIELD_BAD;
	}
	*out = v < min ? min : max;
	note(why, name, "%g is outside [%g, %g]; %g used", v, min, max, *out);
	return FIELD_FIXED;
}

int64_t field_clamp_i64(double v, int64_t min, int64_t max)
{
	if (isnan(v) || v <= (double)min)
		return min;
	/* (double)max may round up past max: compare with that, then stay inside */
	if (v >= (double)max)
		return max;
	return (int64_t)v;
}

int field_int64(const char *name, const char *text, int64_t min, int64_t max, int flags,
		int64_t *out, struct sbuf *why)
{
	double v;
	char *end;
	long long l;

	if (read_number(text, &v) < 0) {
		note_quoted(why, name, text, "is not a number");
		return FIELD_BAD;
	}
	/* Plain integers are read exactly (a double loses digits past 2^53). */
	errno = 0;
	l = strtoll(text, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (!*end && errno == 0) {
		if (l >= min && l <= max) {
			*out = l;
			return FIELD_OK;
		}
		v = (double)l;
	} else if (v != floor(v) && v >= (double)min && v <= (double)max) {
		/* 2.5 for an integer: with FIELD_CLAMP its whole part, else refused */
		if (!(flags & FIELD_CLAMP)) {
			note(why, name, "%g is not a whole number", v);
			return FIELD_BAD;
		}
		*out = field_clamp_i64(v, min, max);
		note(why, name, "%g is not a whole number; %" PRId64 " used", v, *out);
		return FIELD_FIXED;
	} else if (v >= (double)min && v <= (double)max && v > -9.2e18 && v < 9.2e18) {
		*out = (int64_t)v;      /* 1e3 */
		return FIELD_OK;
	}
	if (!(flags & FIELD_CLAMP)) {
		note(why, name, "%g is outside [%" PRId64 ", %" PRId64 "]", v, min, max);
		return FIELD_BAD;
	}
	*out = field_clamp_i64(v, min, max);
	note(why, name, "%g is outside [%" PRId64 ", %" PRId64 "]; %" PRId64 " used", v, min, max,
	     *out);
	return FIELD_FIXED;
}

int field_int(const char *name, const char *text, int min, int max, int flags, int *out,
	      struct sbuf *why)
{
	int64_t v;
	int rc = field_int64(name, text, min, max, flags, &v, why);

	if (rc != FIELD_BAD)
		*out = (int)v;
	return rc;
}

int field_long(const char *name, const char *text, long min, long max, int flags, long *out,
	       struct sbuf *why)
{
	int64_t v;
	int rc = field_int64(name, text, min, max, flags, &v, why);

	if (rc != FIELD_BAD)
		*out = (long)v;
	return rc;
}

/*
 * Length of the UTF-8 character at p (at most n bytes there), or 0 if it is
 * not one: overlong forms, surrogates, code points past U+10FFFF and the
 * noncharacters U+FFFE and U+FFFF (which XML cannot carry) are not.
 */
static size_t utf8_char(const unsigned char *p, size_t n)
{
	unsigned int cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

static bool control(unsigned char c, bool multiline)
{
	if (multiline && (c == '\t' || c == '\n' || c == '\r'))
		return false;
	return c < 0x20 || c == 0x7f;
}

size_t field_char_len(const char *s, size_t n, bool multiline)
{
	const unsigned char *p = (const unsigned char *)s;

	return control(p[0], multiline) ? 0 : utf8_char(p, n);
}

bool field_text_ok(const char *s, size_t len, bool multiline)
{
	size_t i = 0, k;

	while (i < len) {
		if ((k = field_char_len(s + i, len - i, multiline)) == 0)
			return false;
		i += k;
	}
	return true;
}

int field_str(const char *name, const char *text, size_t max_chars, int flags, char **out,
	      struct sbuf *why)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)p), i = 0, chars = 0, k;
	bool cleaned = false, cut = false;
	struct sbuf b = SBUF_INIT(len + 1);
	int rc = FIELD_OK;

	while (i < len) {
		if (chars == max_chars) {
			cut = true;
			break;
		}
		k = field_char_len((const char *)p + i, len - i, flags & FIELD_MULTILINE);
		if (k == 0) {
			if (!(flags & FIELD_CLEAN)) {
				note(why, name, "byte 0x%02x at offset %zu is not %s", p[i], i,
				     control(p[i], flags & FIELD_MULTILINE) ? "allowed here"
									   : "UTF-8");
				sbuf_release(&b);
				return FIELD_BAD;
			}
			sbuf_addch(&b, '?');
			cleaned = true;
			k = 1;
		} else {
			sbuf_add(&b, p + i, k);
		}
		i += k;
		chars++;
	}
	if (cut && !(flags & FIELD_CUT)) {
		note(why, name, "longer than %zu characters", max_chars);
		sbuf_release(&b);
		return FIELD_BAD;
	}
	if (cut) {
		note(why, name, "longer than %zu characters; cut", max_chars);
		rc = FIELD_FIXED;
	}
	if (cleaned) {
		note(why, name, "control characters or bytes that are not UTF-8 replaced by '?'");
		rc = FIELD_FIXED;
	}
	*out = sbuf_detach(&b, NULL);
	if (!*out)
		*out = xstrdup("");
	return rc;
}

static const char *const active_exts[] = {
	"htm", "html", "xhtml", "xht", "shtml", "shtm", "stm", "mht", "mhtml", "hta",
	"svg", "svgz", "xml", "xsl", "xslt", "xbl", "rdf", "js", "mjs", "swf",
	"php", "php3", "php4", "php5", "php7", "php8", "phtml", "pht", "phps", "phar",
	"cgi", "fcgi", "asp", "aspx", "jsp",
};

bool field_active_ext(const char *ext)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(active_exts); i++)
		if (!strcasecmp(ext, active_exts[i]))
			return true;
	return false;
}
