/*
 * The request target and the handler's CGI reply, read for the embedded
 * HTTP server (serve_http_msg.h).
 */
#include "serve_http_msg.h"

#include <ctype.h>
#include <strings.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Percent-decode s[0..n) into a new string; NULL on a bad escape or one of
 * a control byte (%00, %0A: a PATH_INFO goes into logs and file names).
 */
static char *path_decode(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '%') {
			d[k++] = s[i];
			continue;
		}
		hi = i + 2 < n ? hexval((unsigned char)s[i + 1]) : -1;
		lo = i + 2 < n ? hexval((unsigned char)s[i + 2]) : -1;
		if (hi < 0 || lo < 0 || hi * 16 + lo < 0x20 || hi * 16 + lo == 0x7f) {
			free(d);
			return NULL;
		}
		d[k++] = (char)(hi * 16 + lo);
		i += 2;
	}
	d[k] = '\0';
	return d;
}

int serve_http_target(const char *uri, const char *script_name, char **path_info, char **query,
		      struct sbuf *why)
{
	size_t plen = strcspn(uri, "?"), slen = strlen(script_name);
	const char *p;

	*path_info = *query = NULL;
	for (p = uri; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return sbuf_fail(why, "a control byte in the request target"), 400;
	if (uri[0] != '/')
		return sbuf_fail(why, "the request target is not a path"), 400;
	if (plen < slen || strncmp(uri, script_name, slen) || (plen > slen && uri[slen] != '/'))
		return sbuf_fail(why, "not under %s/", script_name), 404;
	*path_info = path_decode(uri + slen, plen - slen);
	if (!*path_info)
		return sbuf_fail(why, "a bad %%-escape in the path, or one of a control byte"), 400;
	*query = xstrdup(uri[plen] ? uri + plen + 1 : "");
	return 0;
}

/* Is s[0..n) an HTTP token (a header name)? */
static bool is_token(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && (!s[i] || !strchr("!#$%&'*+-.^_`|~", s[i])))
			return false;
	return true;
}

static bool has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return true;
	return false;
}

/* The status of "Status: 404 Not Found": 100..599, else -1. */
static int parse_status(const char *v)
{
	int code = 0, i;

	for (i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)v[i]))
			return -1;
		code = code * 10 + (v[i] - '0');
	}
	if (v[3] && v[3] != ' ')
		return -1;
	return code >= 100 && code <= 599 ? code : -1;
}

static bool named(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(name, want, n);
}

/* One "Name: value" line (without its end); 0 or -1. */
static int reply_header(struct serve_http_reply *rp, const char *line, size_t n, bool *located,
			struct sbuf *why)
{
	const char *colon = memchr(line, ':', n), *v;
	size_t nlen, vlen;

	if (!colon || !is_token(line, (size_t)(colon - line)))
		return sbuf_fail(why, "a reply header line that is not 'Name: value'");
	nlen = (size_t)(colon - line);
	for (v = colon + 1; v < line + n && (*v == ' ' || *v == '\t'); v++)
		;
	vlen = (size_t)(line + n - v);
	if (has_control(v, vlen))
		return sbuf_fail(why, "a control byte in a reply header");
	if (named(line, nlen, "Status")) {
		char *s = xstrndup(v, vlen);

		rp->status = parse_status(s);
		free(s);
		return rp->status < 0 ? sbuf_fail(why, "a bad Status line in the reply") : 0;
	}
	if (named(line, nlen, "Content-Length") || named(line, nlen, "Connection") ||
	    named(line, nlen, "Transfer-Encoding") || named(line, nlen, "X-Content-Type-Options"))
		return 0;       /* the server's own: HTTP's, and nosniff always */
	if (rp->nh == SERVE_HTTP_MAX_HEADERS)
		return sbuf_fail(why, "more than %d reply headers", SERVE_HTTP_MAX_HEADERS);
	rp->has_type |= named(line, nlen, "Content-Type");
	*located |= named(line, nlen, "Location");
	ARRAY_GROW(rp->h, rp->nh);
	rp->h[rp->nh].name = xstrndup(line, nlen);
	rp->h[rp->nh++].value = xstrndup(v, vlen);
	return 0;
}

int serve_http_reply_parse(const char *text, size_t len, struct serve_http_reply *rp,
			   struct sbuf *why)
{
	size_t pos = 0;
	bool located = false;

	memset(rp, 0, sizeof(*rp));
	for (;;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n;

		if (!nl)
			return sbuf_fail(why, "the reply has no blank line after its headers");
		n = (size_t)(nl - (text + pos));
		if (n && text[pos + n - 1] == '\r')
			n--;
		if (!n) {
			rp->body = (size_t)(nl - text) + 1;
			break;
		}
		if (reply_header(rp, text + pos, n, &located, why) < 0)
			return -1;
		pos = (size_t)(nl - text) + 1;
	}
	if (!rp->status)
		rp->status = located ? 302 : 200;
	return 0;
}

void serve_http_reply_release(struct serve_http_reply *rp)
{
	size_t i;

	for (i = 0; i < rp->nh; i++) {
		free(rp->h[i].name);
		free(rp->h[i].value);
	}
	free(rp->h);
	memset(rp, 0, sizeof(*rp));
}
