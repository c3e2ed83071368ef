/*
 * Inside the templates (template.c, template_in.c, template_out.c): the
 * helpers the input and output templates share. Not for other files.
 */
#ifndef WSEQ_TEMPLATE_INT_H
#define WSEQ_TEMPLATE_INT_H

#include "common.h"
#include "template.h"
#include "xml.h"

/*
 * Element text escaped as little as XML needs (&, <, >): the client's own
 * parser unescapes few entities, and a command line keeps its quotes.
 */
int tpl_add_text(struct sbuf *b, const char *s);
/* The template text as a document, wrapped in <wrapper> when it is a bare list. */
xmlDoc *tpl_read(const char *text, size_t len, const char *name, const char *wrapper);
/* The element's number, within [lo, hi] (else logged with tname and the line: -1). */
int tpl_elem_long(const xmlNode *n, const char *tname, long lo, long hi, long *out);
/* The element's number, at least 0 (else logged: -1). */
int tpl_elem_double(const xmlNode *n, const char *tname, double *out);
/* The file at path into text, at most TEMPLATE_MAX bytes (else logged: -1). */
int tpl_read_file(const char *path, struct sbuf *text);
/* Append " <child/>" serialisations of the elements of n not consumed by the caller. */
int tpl_add_extra(struct sbuf *extra, const xmlNode *c);

#endif
