/*
 * Requests and replies of the web programs (web.h).
 */
#include "web.h"
#include "log.h"
#include "xml_write.h"

#include <ctype.h>
#include <strings.h>

static const char *var(const char *(*getvar)(const char *, void *), void *arg, const char *n)
{
	const char *v = getvar(n, arg);

	return v ? v : "";
}

void web_req_init(struct web_req *r, const char *(*getvar)(const char *name, void *arg),
		  void *arg, char *body, size_t len)
{
	const char *path, *slash;
	struct sbuf err = SBUF_INIT(1024);

	memset(r, 0, sizeof(*r));
	r->method = var(getvar, arg, "REQUEST_METHOD");
	r->remote_addr = var(getvar, arg, "REMOTE_ADDR");
	r->cookie = getvar("HTTP_COOKIE", arg);
	r->https = !strcasecmp(var(getvar, arg, "HTTPS"), "on");
	/* the page: SCRIPT_NAME under ScriptAliasMatch, else the program's name */
	path = var(getvar, arg, "SCRIPT_NAME");
	r->path = path;
	slash = strrchr(path, '/');
	r->page = slash ? slash + 1 : path;
	r->body_buf = body;
	r->query_string = var(getvar, arg, "QUERY_STRING");
	if (form_parse_query(r->query_string, &r->query, &err) < 0) {
		r->bad = true;
		snprintf(r->bad_why, sizeof(r->bad_why), "bad query string: %s", sbuf_str(&err));
	} else if (body && form_parse(var(getvar, arg, "CONTENT_TYPE"), body, len, &r->body,
				      &err) < 0) {
		r->bad = true;
		snprintf(r->bad_why, sizeof(r->bad_why), "bad request body: %s", sbuf_str(&err));
	}
	sbuf_release(&err);
}

void web_req_release(struct web_req *r)
{
	form_release(&r->query);
	form_release(&r->body);
	free(r->body_buf);
	memset(r, 0, sizeof(*r));
}

static const char *part_value(const struct form *f, const char *name)
{
	const struct form_part *p = form_get(f, name);

	/* parts of a body are not NUL-terminated; decoded ones (owned) are */
	if (!p || !p->owned || memchr(p->data, '\0', p->len))
		return NULL;
	return p->data;
}

const char *web_param(const struct web_req *r, const char *name)
{
	const char *v = part_value(&r->query, name);

	return v ? v : part_value(&r->body, name);
}

char *web_cookie(const struct web_req *r, const char *name)
{
	size_t n = strlen(name);
	const char *p = r->cookie;

	while (p && *p) {
		const char *end;

		while (*p == ' ' || *p == ';')
			p++;
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > n && !strncmp(p, name, n) && p[n] == '=')
			return xstrndup(p + n + 1, (size_t)(end - p) - n - 1);
		p = end;
	}
	return NULL;
}

void web_reply_init(struct web_reply *o)
{
	memset(o, 0, sizeof(*o));
	o->status = 200;
	o->content_type = "text/html; charset=utf-8";
	sbuf_init(&o->headers, 1 << 16);
	sbuf_init(&o->body, 64L << 20);
}

void web_reply_release(struct web_reply *o)
{
	sbuf_release(&o->headers);
	sbuf_release(&o->body);
}

int web_reply_write(const struct web_reply *o, FILE *f)
{
	fprintf(f, "Status: %d\r\nContent-Type: %s\r\n", o->status, o->content_type);
	fputs("X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n", f);
	fwrite(o->headers.buf ? o->headers.buf : "", 1, o->headers.len, f);
	fputs("\r\n", f);
	fwrite(o->body.buf ? o->body.buf : "", 1, o->body.len, f);
	return fflush(f) == 0 ? 0 : -1;
}

void web_page_headers(struct web_reply *o)
{
	sbuf_addstr(&o->headers, "Content-Security-Policy: default-src 'none'; "
		    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; "
		    "frame-ancestors 'none'; base-uri 'none'\r\n"
		    "X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n");
}

void web_html(struct sbuf *b, const char *s)
{
	xml_add_text(b, s ? s : "");
}

void web_urlencode(struct sbuf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '_' || c == '.')
			sbuf_addch(b, (char)c);
		else if (c == ' ')
			sbuf_addch(b, '+');
		else
			sbuf_addf(b, "%%%02X", c);
	}
}
