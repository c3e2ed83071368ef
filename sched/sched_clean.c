/*
 * Making a scheduler request parseable before libxml2 sees it. A client
 * copies its apps' stderr into the request unescaped, inside a CDATA
 * section (client result.cpp RESULT::write):
 *
 *   <stderr_out>
 *   <core_client_version>7.20.5</core_client_version>
 *   <![CDATA[
 *   ...whatever the app printed...
 *   ]]>
 *   </stderr_out>
 *
 * Real apps print bytes that are not UTF-8, characters XML cannot carry
 * (U+FFFE, control characters), and "]]>" -- each makes the whole request
 * malformed, on every RPC, because the client sends the same report again.
 * So the stderr section is found by the client's own framing (its CDATA
 * ends with "]]>\n</stderr_out>" followed by the result's next element),
 * its text made into characters XML carries ('?' for the rest) and any
 * "]]>" inside split across two CDATA sections; everywhere else bytes XML
 * cannot carry become '?' too.
 */
#include "sched_types.h"
#include "field.h"

static const char STDERR_OPEN[] = "<stderr_out>";
static const char STDERR_CLOSE[] = "</stderr_out>";
static const char CDATA_OPEN[] = "<![CDATA[";
static const char CDATA_END[] = "]]>";

/* Length of the XML character at p (at most n bytes), or 0 for a byte to replace. */
static size_t xml_char(const char *p, size_t n)
{
	unsigned char c = (unsigned char)*p;
	size_t k;

	if (c == '\t' || c == '\n' || c == '\r')
		return 1;
	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	return k <= n && field_text_ok(p, k, true) ? k : 0;
}

/*
 * Append n bytes of text with what XML cannot carry replaced; in CDATA, "]]>"
 * split. Runs of good bytes are appended whole: most requests have no bad one.
 */
static void add_clean(struct sbuf *out, const char *p, size_t n, bool cdata)
{
	size_t start = 0, i = 0, k;

	while (i < n) {
		bool split = cdata && n - i >= 3 && !memcmp(p + i, CDATA_END, 3);

		k = split ? 0 : xml_char(p + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		sbuf_add(out, p + start, i - start);
		if (split) {
			sbuf_addstr(out, "]]]]><![CDATA[>");
			i += 3;
		} else {
			sbuf_addch(out, '?');
			i++;
		}
		start = i;
	}
	sbuf_add(out, p + start, i - start);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static bool starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/*
 * The end of a stderr CDATA section starting at p: the first "]]>" that is
 * followed by </stderr_out> and then by what a client writes after it (an
 * output's <file_info> or </result>). NULL if there is none.
 */
static const char *cdata_end(const char *p, const char *end)
{
	const char *q = p;

	while ((q = memmem(q, (size_t)(end - q), CDATA_END, 3)) != NULL) {
		const char *r = skip_ws(q + 3, end);

		if (starts(r, end, STDERR_CLOSE)) {
			r = skip_ws(r + strlen(STDERR_CLOSE), end);
			if (starts(r, end, "<file_info") || starts(r, end, "</result>") || r == end)
				return q;
		}
		q++;
	}
	return NULL;
}

/*
 * One <stderr_out> element whose content starts at p: appended cleaned;
 * returns where the rest of the request continues (just after the content,
 * at its close tag), or NULL when it has no recognisable end.
 */
static const char *clean_stderr(struct sbuf *out, const char *p, const char *end)
{
	const char *q = skip_ws(p, end), *body, *stop;

	if (starts(q, end, "<core_client_version>")) {
		const char *c = memmem(q, (size_t)(end - q), "</core_client_version>", 22);

		if (c && c - q < 200)
			q = skip_ws(c + 22, end);
	}
	if (!starts(q, end, CDATA_OPEN)) {
		/* no CDATA: plain text up to the first close tag */
		stop = memmem(p, (size_t)(end - p), STDERR_CLOSE, strlen(STDERR_CLOSE));
		if (!stop)
			return NULL;
		add_clean(out, p, (size_t)(stop - p), false);
		return stop;
	}
	body = q + strlen(CDATA_OPEN);
	stop = cdata_end(body, end);
	if (!stop)
		return NULL;
	add_clean(out, p, (size_t)(q - p), false);
	sbuf_addstr(out, CDATA_OPEN);
	add_clean(out, body, (size_t)(stop - body), true);
	sbuf_addstr(out, CDATA_END);
	return stop + 3;
}

char *sched_request_clean(const char *buf, size_t len, bool *had_stderr)
{
	/* '?' for a byte keeps the length; a split "]]>" is 15 bytes for 3 */
	struct sbuf out = SBUF_INIT(5 * len + 64);
	const char *p = buf, *end = buf + len, *s;
	char *text;

	*had_stderr = false;
	while ((s = memmem(p, (size_t)(end - p), STDERR_OPEN, strlen(STDERR_OPEN))) != NULL) {
		const char *next;

		s += strlen(STDERR_OPEN);
		add_clean(&out, p, (size_t)(s - p), false);
		*had_stderr = true;
		next = clean_stderr(&out, s, end);
		p = next ? next : s;
	}
	add_clean(&out, p, (size_t)(end - p), false);
	text = sbuf_detach(&out, NULL);
	return text ? text : xstrdup("");
}
