/*
 * libxml2 helpers. Every document wseq reads -- config.xml, templates,
 * requests from strangers -- is parsed here, with the network and external
 * entities off, and parse errors reported as "NAME:LINE: message".
 */
#ifndef WSEQ_XML_H
#define WSEQ_XML_H

#include "common.h"
#include "sbuf.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

/* Parse a file or a buffer; NULL with the error logged (and, if err is given, copied there). */
xmlDoc *xml_read_file(const char *path, struct sbuf *err);
xmlDoc *xml_read_memory(const char *buf, size_t len, const char *name, struct sbuf *err);
/* The same with the document's encoding given (NULL: from the document, else UTF-8). */
xmlDoc *xml_read_memory_enc(const char *buf, size_t len, const char *name, const char *encoding,
			    struct sbuf *err);
/*
 * Parse with libxml2's recovery: what it can make of a malformed document
 * (only for text whose damage is known to be harmless to the reader, such
 * as an app's stderr in a scheduler request). NULL if nothing.
 */
xmlDoc *xml_read_memory_recover(const char *buf, size_t len, const char *name);
/* Append the children of node (not node itself) serialized as XML. */
int xml_serialize_children(const xmlNode *node, struct sbuf *out);

/* Is node an element called name? */
bool xml_is(const xmlNode *node, const char *name);
/* First element child (of any name when name is NULL), and the next element sibling. */
xmlNode *xml_child(const xmlNode *node, const char *name);
xmlNode *xml_next(const xmlNode *node, const char *name);
#define xml_for_each(child, parent, name) \
	for ((child) = xml_child((parent), (name)); (child); (child) = xml_next((child), (name)))

/* The element's text with surrounding whitespace removed; allocated (free()). */
char *xml_text(const xmlNode *node);
/* xml_text of the first child called name, or NULL if there is none. */
char *xml_child_text(const xmlNode *node, const char *name);
long xml_line(const xmlNode *node);
/* Append the node and its content serialized as XML. */
int xml_serialize(const xmlNode *node, struct sbuf *out);

#endif
