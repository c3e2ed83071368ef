/*
 * HTML form bodies and query strings (see form.h).
 */
#include "form.h"
#include "field.h"

#include <ctype.h>
#include <strings.h>

static struct form_part *add_part(struct form *f, struct sbuf *err)
{
	struct form_part *p;

	if (f->n >= FORM_MAX_PARTS) {
		sbuf_addf(err, "more than %d form fields", FORM_MAX_PARTS);
		return NULL;
	}
	ARRAY_GROW(f->parts, f->n);
	p = &f->parts[f->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode %XX and '+' of s[0..len) into an allocated string; *out_len its length. */
static char *url_decode(const char *s, size_t len, size_t *out_len)
{
	char *d = xmalloc(len + 1);
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '+') {
			d[n++] = ' ';
		} else if (s[i] == '%' && i + 2 < len && hexval((unsigned char)s[i + 1]) >= 0 &&
			   hexval((unsigned char)s[i + 2]) >= 0) {
			d[n++] = (char)(hexval((unsigned char)s[i + 1]) * 16 +
					hexval((unsigned char)s[i + 2]));
			i += 2;
		} else {
			d[n++] = s[i];
		}
	}
	d[n] = 0;
	*out_len = n;
	return d;
}

/* A field's name is text: a name with NULs, control bytes or past FORM_NAME_MAX is refused. */
static int name_ok(const char *name, size_t len, struct sbuf *err)
{
	char *clean = NULL;
	int rc;

	if (memchr(name, 0, len)) {
		sbuf_addstr(err, "form field name: a NUL byte in it");
		return -1;
	}
	rc = field_str("form field name", name, FORM_NAME_MAX, 0, &clean, err);
	free(clean);
	return rc == FIELD_BAD ? -1 : 0;
}

static int parse_urlencoded(const char *body, size_t len, struct form *f, struct sbuf *err)
{
	size_t i = 0;

	while (i < len) {
		const char *amp = memchr(body + i, '&', len - i);
		size_t end = amp ? (size_t)(amp - body) : len;
		const char *eq = memchr(body + i, '=', end - i);
		struct form_part *p;
		size_t nlen;

		if (end > i) {
			if (!(p = add_part(f, err)))
				return -1;
			if (eq) {
				p->name = url_decode(body + i, (size_t)(eq - body) - i, &nlen);
				p->owned = url_decode(eq + 1, end - (size_t)(eq - body) - 1, &p->len);
			} else {
				p->name = url_decode(body + i, end - i, &nlen);
				p->owned = xstrdup("");
			}
			p->data = p->owned;
			if (name_ok(p->name, nlen, err) < 0)
				return -1;
		}
		i = end + 1;
	}
	return 0;
}

/* The value of parameter key in a header value ("form-data; name=\"x\"; ..."), allocated. */
static char *header_param(const char *h, size_t hlen, const char *key)
{
	size_t klen = strlen(key), i;

	for (i = 0; i + klen < hlen; i++) {
		if ((i == 0 || h[i - 1] == ';' || h[i - 1] == ' ' || h[i - 1] == '\t') &&
		    !strncasecmp(h + i, key, klen) && h[i + klen] == '=') {
			const char *v = h + i + klen + 1, *e;
			size_t rest = hlen - (size_t)(v - h);

			if (rest && *v == '"') {
				e = memchr(v + 1, '"', rest - 1);
				return e ? xstrndup(v + 1, (size_t)(e - v - 1)) : NULL;
			}
			for (e = v; e < h + hlen && *e != ';' && *e != ' ' && *e != '\r'; e++)
				;
			return xstrndup(v, (size_t)(e - v));
		}
	}
	return NULL;
}

/*
 * The next delimiter at or after p: CRLF "--" boundary, then "--" (the last)
 * or optional blanks and CRLF (RFC 2046); a lookalike inside a part is data.
 */
static const char *find_delimiter(const char *p, const char *end, const struct sbuf *delim)
{
	while (p < end) {
		const char *d = memmem(p, (size_t)(end - p), delim->buf, delim->len), *a;

		if (!d)
			return NULL;
		a = d + delim->len;
		if (end - a >= 2 && a[0] == '-' && a[1] == '-')
			return d;
		while (a < end && (*a == ' ' || *a == '\t'))
			a++;
		if (end - a >= 2 && a[0] == '\r' && a[1] == '\n')
			return d;
		p = d + 1;
	}
	return NULL;
}

/* Shown only (in logs): cut to a column and cleaned of what is not text. */
static int clean_filename(struct form_part *p)
{
	char *clean = NULL;

	if (!p->filename)
		return 0;
	if (field_str("filename", p->filename, FIELD_COLUMN_CHARS, FIELD_CUT | FIELD_CLEAN, &clean,
		      NULL) == FIELD_BAD)
		return -1;
	free(p->filename);
	p->filename = clean;
	return 0;
}

/*
 * head: body is only the first bytes of a body -- the part it ends in runs
 * to its end, and a part whose headers are cut short is left out.
 */
static int parse_multipart(const char *ctype, const char *body, size_t len, bool head,
			   struct form *f, struct sbuf *err)
{
	char *boundary = header_param(ctype, strlen(ctype), "boundary");
	struct sbuf delim = SBUF_INIT(256);
	const char *p, *end = body + len;
	int rc = -1;

	if (!boundary || !*boundary || strlen(boundary) > 200) {
		sbuf_addstr(err, "multipart body without a usable boundary");
		goto out;
	}
	sbuf_addf(&delim, "\r\n--%s", boundary);
	/* The first delimiter may open the body without the CRLF. */
	if (len >= delim.len - 2 && !memcmp(body, sbuf_str(&delim) + 2, delim.len - 2)) {
		p = body + delim.len - 2;
	} else {
		p = memmem(body, len, sbuf_str(&delim), delim.len);
		if (!p) {
			sbuf_addstr(err, "multipart body without its boundary");
			goto out;
		}
		p += delim.len;
	}
	for (;;) {
		const char *hdr_end, *next, *h;
		struct form_part *part;
		bool named;

		if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
			rc = 0;         /* the closing delimiter */
			break;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (head && end - p < 2) {
			rc = 0;
			break;
		}
		if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
			break;
		p += 2;
		hdr_end = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
		if (!hdr_end && head)
			rc = 0;
		if (!hdr_end)
			break;
		next = find_delimiter(hdr_end + 4, end, &delim);
		if (!next && head)
			next = end;
		if (!next)
			break;
		if (!(part = add_part(f, err)))
			goto out;
		for (h = p, named = false; h < hdr_end;) {
			const char *eol = memmem(h, (size_t)(hdr_end + 2 - h), "\r\n", 2);
			size_t hl = (size_t)(eol - h);

			/* The first Content-Disposition names the part; another is ignored. */
			if (hl > 20 && !strncasecmp(h, "Content-Disposition:", 20) && !named) {
				part->name = header_param(h + 20, hl - 20, "name");
				part->filename = header_param(h + 20, hl - 20, "filename");
				named = true;
			}
			h = eol + 2;
		}
		if (!part->name)
			part->name = xstrdup("");
		if (name_ok(part->name, strlen(part->name), err) < 0 || clean_filename(part) < 0)
			goto out;
		part->data = hdr_end + 4;
		part->len = (size_t)(next - part->data);
		if (next == end) {
			rc = 0;         /* a head cut inside this part */
			break;
		}
		p = next + delim.len;
	}
	if (rc < 0 && !err->len)
		sbuf_addstr(err, "truncated or malformed multipart body");
out:
	free(boundary);
	sbuf_release(&delim);
	return rc;
}

static int parse_body(const char *content_type, const char *body, size_t len, bool head,
		      struct form *f, struct sbuf *err)
{
	memset(f, 0, sizeof(*f));
	if (!content_type || !*content_type)
		content_type = "application/x-www-form-urlencoded";
	if (!strncasecmp(content_type, "multipart/form-data", 19))
		return parse_multipart(content_type, body, len, head, f, err);
	/* a head cut inside a field: the field's value so far */
	if (!strncasecmp(content_type, "application/x-www-form-urlencoded", 33))
		return parse_urlencoded(body, len, f, err);
	sbuf_addf(err, "content type %.60s not accepted", content_type);
	return -1;
}

int form_parse(const char *content_type, const char *body, size_t len, struct form *f,
	       struct sbuf *err)
{
	return parse_body(content_type, body, len, false, f, err);
}

int form_parse_head(const char *content_type, const char *head, size_t len, struct form *f,
		    struct sbuf *err)
{
	return parse_body(content_type, head, len, true, f, err);
}

int form_parse_query(const char *query, struct form *f, struct sbuf *err)
{
	memset(f, 0, sizeof(*f));
	return parse_urlencoded(query ? query : "", query ? strlen(query) : 0, f, err);
}

/* A CGI program's standard input, for form_read_body_from(). */
static long read_stdin(void *arg, char *buf, size_t n)
{
	ssize_t r;

	(void)arg;
	do
		r = read(0, buf, n);
	while (r < 0 && errno == EINTR);
	return (long)r;
}

/* Read from rd until body holds want bytes or the stream ends. */
static void read_upto(struct sbuf *body, size_t want,
		      long (*rd)(void *arg, char *buf, size_t n), void *arg)
{
	char chunk[65536];

	while (body->len < want) {
		size_t ask = want - body->len;
		long n = rd(arg, chunk, ask < sizeof(chunk) ? ask : sizeof(chunk));

		if (n <= 0 || sbuf_add(body, chunk, (size_t)n) < 0)
			break;
	}
}

char *form_read_body_gated(const char *content_length, long max, const struct form_gate *gate,
			   long (*rd)(void *arg, char *buf, size_t n), void *arg, size_t *len,
			   struct sbuf *why)
{
	struct sbuf body;
	long want;

	if (!content_length || !*content_length) {
		sbuf_addstr(why, "no Content-Length");
		return NULL;
	}
	if (field_long("Content-Length", content_length, 0, max, 0, &want, why) != FIELD_OK)
		return NULL;    /* not a number, or over max: "...is outside [0, max]" */
	/* memory for what arrives, not for what a stranger announces */
	sbuf_init(&body, (size_t)want);
	if (gate && want > gate->head) {
		read_upto(&body, (size_t)gate->head, rd, arg);
		if (body.len == (size_t)gate->head &&
		    gate->check(gate->arg, body.buf, body.len, want, why) < 0) {
			sbuf_release(&body);
			return NULL;
		}
	}
	read_upto(&body, (size_t)want, rd, arg);
	if (body.len < (size_t)want) {
		sbuf_addf(why, "request body cut short: %zu of the %ld bytes of its Content-Length",
			  body.len, want);
		sbuf_release(&body);
		return NULL;
	}
	return sbuf_detach(&body, len);
}

char *form_read_body_from(const char *content_length, long max,
			  long (*rd)(void *arg, char *buf, size_t n), void *arg, size_t *len,
			  struct sbuf *why)
{
	return form_read_body_gated(content_length, max, NULL, rd, arg, len, why);
}

char *form_read_body(long max, size_t *len, struct sbuf *why)
{
	return form_read_body_from(getenv("CONTENT_LENGTH"), max, read_stdin, NULL, len, why);
}

const struct form_part *form_get(const struct form *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->parts[i].name, name))
			return &f->parts[i];
	return NULL;
}

char *form_value(const struct form *f, const char *name)
{
	const struct form_part *p = form_get(f, name);

	if (!p || memchr(p->data, 0, p->len))
		return NULL;
	return xstrndup(p->data, p->len);
}

void form_release(struct form *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->parts[i].name);
		free(f->parts[i].filename);
		free(f->parts[i].owned);
	}
	free(f->parts);
	memset(f, 0, sizeof(*f));
}
