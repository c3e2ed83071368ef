/* libxml2 helpers; see xml.h. */
#include "xml.h"
#include "log.h"

#include <libxml/xmlerror.h>

/* Parse without network access, entity substitution or DTD loading. */
#define XML_OPTS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

static void report(const char *name, struct sbuf *err)
{
	const xmlError *e = xmlGetLastError();
	char msg[512];
	size_t n;

	if (e && e->message) {
		wstrlcpy(msg, e->message, sizeof(msg));
		n = strlen(msg);
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		log_error("%s:%d: %s", name, e->line, msg);
		if (err)
			sbuf_addf(err, "%s:%d: %s", name, e->line, msg);
	} else {
		log_error("%s: cannot parse XML", name);
		if (err)
			sbuf_addf(err, "%s: cannot parse XML", name);
	}
	xmlResetLastError();
}

xmlDoc *xml_read_file(const char *path, struct sbuf *err)
{
	xmlDoc *doc;

	if (access(path, R_OK) != 0) {
		log_error("%s: %s", path, strerror(errno));
		if (err)
			sbuf_addf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	xmlResetLastError();
	doc = xmlReadFile(path, NULL, XML_OPTS);
	if (!doc || !xmlDocGetRootElement(doc)) {
		if (doc)
			xmlFreeDoc(doc);
		report(path, err);
		return NULL;
	}
	return doc;
}

xmlDoc *xml_read_memory(const char *buf, size_t len, const char *name, struct sbuf *err)
{
	return xml_read_memory_enc(buf, len, name, NULL, err);
}

xmlDoc *xml_read_memory_enc(const char *buf, size_t len, const char *name, const char *encoding,
			    struct sbuf *err)
{
	xmlDoc *doc;

	if (len > INT_MAX) {
		log_error("%s: document too large", name);
		return NULL;
	}
	xmlResetLastError();
	doc = xmlReadMemory(buf, (int)len, name, encoding, XML_OPTS);
	if (!doc || !xmlDocGetRootElement(doc)) {
		if (doc)
			xmlFreeDoc(doc);
		report(name, err);
		return NULL;
	}
	return doc;
}

xmlDoc *xml_read_memory_recover(const char *buf, size_t len, const char *name)
{
	xmlDoc *doc;

	if (len > INT_MAX)
		return NULL;
	xmlResetLastError();
	doc = xmlReadMemory(buf, (int)len, name, "UTF-8", XML_OPTS | XML_PARSE_RECOVER);
	xmlResetLastError();
	if (doc && !xmlDocGetRootElement(doc)) {
		xmlFreeDoc(doc);
		doc = NULL;
	}
	return doc;
}

bool xml_is(const xmlNode *node, const char *name)
{
	return node && node->type == XML_ELEMENT_NODE &&
	       (!name || strcmp((const char *)node->name, name) == 0);
}

xmlNode *xml_next(const xmlNode *node, const char *name)
{
	for (node = node ? node->next : NULL; node; node = node->next)
		if (xml_is(node, name))
			return (xmlNode *)node;
	return NULL;
}

xmlNode *xml_child(const xmlNode *node, const char *name)
{
	const xmlNode *c;

	for (c = node ? node->children : NULL; c; c = c->next)
		if (xml_is(c, name))
			return (xmlNode *)c;
	return NULL;
}

char *xml_text(const xmlNode *node)
{
	xmlChar *t = xmlNodeGetContent(node);
	const char *s = t ? (const char *)t : "";
	size_t len;
	char *r;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	r = xstrndup(s, len);
	xmlFree(t);
	return r;
}

char *xml_child_text(const xmlNode *node, const char *name)
{
	xmlNode *c = xml_child(node, name);

	return c ? xml_text(c) : NULL;
}

long xml_line(const xmlNode *node)
{
	return node ? xmlGetLineNo(node) : 0;
}

int xml_serialize(const xmlNode *node, struct sbuf *out)
{
	xmlBuffer *b = xmlBufferCreate();
	int r = -1;

	if (!b)
		return -1;
	if (xmlNodeDump(b, node->doc, (xmlNode *)node, 0, 0) >= 0)
		r = sbuf_add(out, xmlBufferContent(b), (size_t)xmlBufferLength(b));
	xmlBufferFree(b);
	return r;
}

int xml_serialize_children(const xmlNode *node, struct sbuf *out)
{
	const xmlNode *c;

	for (c = node->children; c; c = c->next)
		if (xml_serialize(c, out) < 0)
			return -1;
	return 0;
}
