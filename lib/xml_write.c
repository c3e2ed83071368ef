/* Writing XML: the one escaping rule and the element writers (xml_write.h). */
#include "xml_write.h"
#include "field.h"

static const char *entity(char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	}
	return NULL;
}

/* Append s with what XML cannot carry as '?', escaping entities when asked. */
static int add_clean(struct sbuf *b, const char *s, bool escape)
{
	size_t len = s ? strlen(s) : 0, i = 0, k, start = b->len;
	const char *e;
	int r;

	while (i < len) {
		k = field_char_len(s + i, len - i, true);
		if (k == 0)
			r = sbuf_addch(b, '?'), k = 1;
		else if (escape && k == 1 && (e = entity(s[i])))
			r = sbuf_addstr(b, e);
		else
			r = sbuf_add(b, s + i, k);
		if (r < 0) {
			sbuf_truncate(b, start);
			return -1;
		}
		i += k;
	}
	return 0;
}

int xml_add_text(struct sbuf *b, const char *s)
{
	return add_clean(b, s, true);
}

static int open_tag(struct sbuf *b, int indent, const char *name)
{
	return sbuf_addf(b, "%*s<%s>", indent, "", name);
}

static int close_tag(struct sbuf *b, const char *name)
{
	return sbuf_addf(b, "</%s>\n", name);
}

int xml_elem_str(struct sbuf *b, int indent, const char *name, const char *value)
{
	int r = open_tag(b, indent, name);

	r |= xml_add_text(b, value);
	return r | close_tag(b, name);
}

int xml_elem_fmt(struct sbuf *b, int indent, const char *name, const char *fmt, ...)
{
	va_list ap;
	int r = open_tag(b, indent, name);

	va_start(ap, fmt);
	r |= sbuf_vaddf(b, fmt, ap);
	va_end(ap);
	return r | close_tag(b, name);
}

int xml_elem_i64(struct sbuf *b, int indent, const char *name, int64_t v)
{
	return xml_elem_fmt(b, indent, name, "%" PRId64, v);
}

int xml_elem_f(struct sbuf *b, int indent, const char *name, double v)
{
	return xml_elem_fmt(b, indent, name, "%f", v);
}

int xml_elem_cdata(struct sbuf *b, int indent, const char *name, const char *value)
{
	struct sbuf clean;
	const char *p, *end;
	int r = open_tag(b, indent, name) | sbuf_addstr(b, "<![CDATA[");

	sbuf_init(&clean, value ? strlen(value) + 1 : 1);
	add_clean(&clean, value, false);
	for (p = sbuf_str(&clean); (end = strstr(p, "]]>")); p = end + 2)
		r |= sbuf_add(b, p, (size_t)(end - p) + 2) | sbuf_addstr(b, "]]><![CDATA[");
	r |= sbuf_addstr(b, p) | sbuf_addstr(b, "]]>");
	sbuf_release(&clean);
	return r | close_tag(b, name);
}
