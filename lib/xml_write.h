/*
 * Writing XML: one escaping rule and the element writers every scheduler
 * reply, web page, RPC reply, request and export uses. Values are text from
 * strangers or from the database; whatever XML cannot carry (control bytes
 * other than tab, LF and CR, bytes that are not UTF-8) becomes '?', so what
 * is written is always well-formed.
 */
#ifndef WSEQ_XML_WRITE_H
#define WSEQ_XML_WRITE_H

#include "common.h"
#include "sbuf.h"

/*
 * Append s (NULL: nothing) as XML character data or attribute value: & < > "
 * ' as entities, what XML cannot carry as '?'. All or nothing: 0, or -1 with
 * the buffer as it was when its maximum would be passed.
 */
int xml_add_text(struct sbuf *b, const char *s);

/*
 * Append "<name>value</name>\n" after indent spaces; 0 or -1 (the maximum
 * was passed: the buffer holds part of it). A NULL string is written as an
 * empty element.
 */
int xml_elem_str(struct sbuf *b, int indent, const char *name, const char *value);
int xml_elem_i64(struct sbuf *b, int indent, const char *name, int64_t v);
/* The number as printf's "%f". */
int xml_elem_f(struct sbuf *b, int indent, const char *name, double v);
/* The value as printf formats it (numbers only: nothing is escaped). */
int xml_elem_fmt(struct sbuf *b, int indent, const char *name, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
/* The value (cleaned as xml_add_text does) in CDATA; "]]>" is split across two sections. */
int xml_elem_cdata(struct sbuf *b, int indent, const char *name, const char *value);

#endif
