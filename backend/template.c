/*
 * What the input and output templates share (template_int.h): reading a
 * template, which may be a bare list of elements, and its numbers; the
 * element text escaping of the job documents.
 */
#include "template_int.h"
#include "fileutil.h"
#include "log.h"

/*
 * Element text escaped as little as XML needs (&, <, >): the client's own
 * parser unescapes few entities, and a command line keeps its quotes.
 */
int tpl_add_text(struct sbuf *b, const char *s)
{
	int r = 0;

	for (; *s && !r; s++) {
		switch (*s) {
		case '&': r = sbuf_addstr(b, "&amp;"); break;
		case '<': r = sbuf_addstr(b, "&lt;"); break;
		case '>': r = sbuf_addstr(b, "&gt;"); break;
		default: r = sbuf_addch(b, *s); break;
		}
	}
	return r;
}

/*
 * BOINC templates may be a bare list of top-level elements, which is not a
 * well-formed XML document: give such a text the wrapper element. An XML
 * declaration is dropped first; the wrapper goes on the first line so line
 * numbers in errors stay those of the file.
 */
xmlDoc *tpl_read(const char *text, size_t len, const char *name,
			     const char *wrapper)
{
	struct sbuf b = SBUF_INIT(TEMPLATE_MAX + 256);
	char open[64];
	const char *p = text, *end = text + len, *q;
	xmlDoc *doc;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (end - p >= 5 && memcmp(p, "<?xml", 5) == 0) {
		q = memchr(p, '>', (size_t)(end - p));
		if (q)
			p = q + 1;
	}
	snprintf(open, sizeof(open), "<%s", wrapper);
	for (q = p; q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'); q++)
		;
	if ((size_t)(end - q) >= strlen(open) && memcmp(q, open, strlen(open)) == 0)
		return xml_read_memory(p, (size_t)(end - p), name, NULL);
	if (sbuf_addf(&b, "<%s>", wrapper) || sbuf_add(&b, p, (size_t)(end - p)) ||
	    sbuf_addf(&b, "</%s>", wrapper)) {
		sbuf_release(&b);
		log_error("%s: template too large", name);
		return NULL;
	}
	doc = xml_read_memory(b.buf, b.len, name, NULL);
	sbuf_release(&b);
	return doc;
}

int tpl_elem_long(const xmlNode *n, const char *tname, long lo, long hi, long *out)
{
	char *s = xml_text(n);
	int r = 0;

	if (parse_long(s, out) || *out < lo || *out > hi)
		r = log_error("%s:%ld: bad <%s> value \"%s\"", tname, xml_line(n),
			      (const char *)n->name, s);
	free(s);
	return r;
}

int tpl_elem_double(const xmlNode *n, const char *tname, double *out)
{
	char *s = xml_text(n);
	int r = 0;

	if (parse_double(s, out) || *out < 0)
		r = log_error("%s:%ld: bad <%s> value \"%s\"", tname, xml_line(n),
			      (const char *)n->name, s);
	free(s);
	return r;
}

int tpl_read_file(const char *path, struct sbuf *text)
{
	if (read_file(path, TEMPLATE_MAX, text))
		return log_error("cannot read template %s", path);
	return 0;
}

/* Append " <child/>" serialisations of the elements of n not consumed by the caller. */
int tpl_add_extra(struct sbuf *extra, const xmlNode *c)
{
	if (xml_serialize(c, extra) || sbuf_addch(extra, '\n'))
		return -1;
	return 0;
}
