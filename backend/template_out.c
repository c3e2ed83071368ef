/*
 * Output (result) templates (template.h): parsed once into literal XML
 * pieces and placeholders, so a result's XML is made by concatenation.
 */
#include "template_int.h"
#include "log.h"
#include "xml_write.h"

#include <ctype.h>

enum seg_kind { SEG_TEXT, SEG_OUTFILE, SEG_UPLOAD_URL };

struct result_template_seg {
	enum seg_kind kind;
	int n;                  /* SEG_OUTFILE: i of <OUTFILE_i/> */
	char *text;             /* SEG_TEXT */
};

/* State while compiling an output template into segments. */
struct rt_build {
	struct result_template *t;
	struct sbuf lit;        /* literal text not yet made a segment */
	size_t alloc;
	bool uses_upload_url;
};

void result_template_release(struct result_template *t)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++)
		free(t->segs[i].text);
	free(t->segs);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

static void push_seg(struct rt_build *b, enum seg_kind kind, int n)
{
	struct result_template *t = b->t;

	if (kind != SEG_TEXT && b->lit.len)
		push_seg(b, SEG_TEXT, 0);
	if (kind == SEG_TEXT && !b->lit.len)
		return;
	if (t->nsegs == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 16;
		t->segs = xrealloc(t->segs, b->alloc * sizeof(*t->segs));
	}
	t->segs[t->nsegs].kind = kind;
	t->segs[t->nsegs].n = n;
	t->segs[t->nsegs].text = kind == SEG_TEXT ? sbuf_detach(&b->lit, NULL) : NULL;
	t->nsegs++;
}

/* Is c a placeholder element (<OUTFILE_3/>, <UPLOAD_URL/>)? Sets *kind and *n. */
static int placeholder(const char *tname, const xmlNode *c, enum seg_kind *kind, int *n)
{
	const char *name = (const char *)c->name;
	long l;

	if (strncmp(name, "OUTFILE_", 8) == 0) {
		if (parse_long(name + 8, &l) || l < 0 || l > 9999 || !isdigit((unsigned char)name[8]))
			return log_error("%s:%ld: bad placeholder <%s/>", tname, xml_line(c), name);
		*kind = SEG_OUTFILE;
		*n = (int)l;
	} else if (strcmp(name, "UPLOAD_URL") == 0) {
		*kind = SEG_UPLOAD_URL;
		*n = 0;
	} else {
		for (; *name; name++)
			if (!isupper((unsigned char)*name) && !isdigit((unsigned char)*name) &&
			    *name != '_')
				return 0;
		return log_error("%s:%ld: unknown placeholder <%s/>", tname, xml_line(c),
				 (const char *)c->name);
	}
	if (c->children)
		return log_error("%s:%ld: placeholder <%s/> must be empty", tname, xml_line(c),
				 (const char *)c->name);
	return 1;
}

static bool ws_only(const xmlChar *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

/* An element with element children (other than placeholders) holds no text of its own. */
static bool is_block(const xmlNode *n)
{
	const xmlNode *c;

	for (c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strncmp((const char *)c->name, "OUTFILE_", 8) &&
		    strcmp((const char *)c->name, "UPLOAD_URL"))
			return true;
	return false;
}

/* Write n (element) with placeholders as segments; compact, one child element a line. */
static int emit(struct rt_build *b, const xmlNode *n)
{
	const xmlNode *c;
	const xmlAttr *a;
	enum seg_kind kind;
	int num, r = 0, p;
	bool block = is_block(n);

	if ((p = placeholder(b->t->name, n, &kind, &num)) != 0) {
		if (p < 0)
			return -1;
		if (kind == SEG_OUTFILE && num + 1 > b->t->noutfiles)
			b->t->noutfiles = num + 1;
		if (kind == SEG_UPLOAD_URL)
			b->uses_upload_url = true;
		push_seg(b, kind, num);
		return 0;
	}
	r |= sbuf_addf(&b->lit, "<%s", (const char *)n->name);
	for (a = n->properties; a; a = a->next) {
		xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);

		r |= sbuf_addf(&b->lit, " %s=\"", (const char *)a->name);
		r |= xml_add_text(&b->lit, v ? (const char *)v : "");
		r |= sbuf_addch(&b->lit, '"');
		xmlFree(v);
	}
	if (!n->children) {
		r |= sbuf_addstr(&b->lit, "/>");
		return r ? log_error("%s: output template too large", b->t->name) : 0;
	}
	r |= sbuf_addstr(&b->lit, block ? ">\n" : ">");
	for (c = n->children; c && !r; c = c->next) {
		if (c->type == XML_ELEMENT_NODE) {
			if (emit(b, c))
				return -1;
			if (block)
				r |= sbuf_addch(&b->lit, '\n');
		} else if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
			if (block && ws_only(c->content))
				continue;
			if (block)
				return log_error("%s:%ld: text beside elements in <%s>", b->t->name,
						 xml_line(n), (const char *)n->name);
			r |= tpl_add_text(&b->lit, (const char *)c->content);
		}
	}
	r |= sbuf_addf(&b->lit, "</%s>", (const char *)n->name);
	return r ? log_error("%s: output template too large", b->t->name) : 0;
}

/*
 * A name as a comparable key: text with "\1<i>\1" for each <OUTFILE_i/>.
 * Returns NULL (logged) for other elements inside a name.
 */
static char *name_key(const char *tname, const xmlNode *n, bool *has_outfile)
{
	struct sbuf k = SBUF_INIT(4096);
	const xmlNode *c;
	enum seg_kind kind;
	int num;
	char *s, *p, *e;

	*has_outfile = false;
	for (c = n->children; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE) {
			if (placeholder(tname, c, &kind, &num) != 1 || kind != SEG_OUTFILE) {
				log_error("%s:%ld: only <OUTFILE_i/> may appear in <%s>", tname,
					  xml_line(c), (const char *)n->name);
				sbuf_release(&k);
				return NULL;
			}
			*has_outfile = true;
			sbuf_addf(&k, "\1%d\1", num);
		} else if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
			sbuf_addstr(&k, (const char *)c->content);
		}
	}
	s = sbuf_detach(&k, NULL);
	if (!s)
		return xstrdup("");
	for (p = s; *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'; p++)
		;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	memmove(s, p, (size_t)(e - p));
	s[e - p] = '\0';
	return s;
}

struct out_names {
	char **keys;
	size_t n;
};

static int check_out_file_info(const char *tname, const xmlNode *fi, struct out_names *names)
{
	const xmlNode *name = xml_child(fi, "name"), *url = xml_child(fi, "url"), *mx;
	double max_nbytes = 0;
	bool has_outfile;
	char *key, *s;
	size_t i;

	if (!name)
		return log_error("%s:%ld: output file_info has no <name>", tname, xml_line(fi));
	key = name_key(tname, name, &has_outfile);
	if (!key)
		return -1;
	if (!has_outfile) {
		log_error("%s:%ld: output file name \"%s\" has no <OUTFILE_i/> (every result "
			  "needs its own file names)", tname, xml_line(name), key);
		free(key);
		return -1;
	}
	if (key[0] != '\1') {
		log_error("%s:%ld: output file name must start with <OUTFILE_i/> (the upload "
			  "handler finds an output's result by it)", tname, xml_line(name));
		free(key);
		return -1;
	}
	for (i = 0; i < names->n; i++)
		if (strcmp(names->keys[i], key) == 0) {
			log_error("%s:%ld: output file name given twice", tname, xml_line(name));
			free(key);
			return -1;
		}
	ARRAY_GROW(names->keys, names->n);
	names->keys[names->n++] = key;

	mx = xml_child(fi, "max_nbytes");
	if (mx && tpl_elem_double(mx, tname, &max_nbytes))
		return -1;
	if (max_nbytes <= 0)
		return log_error("%s:%ld: output file_info needs <max_nbytes> above 0 (the client "
				 "fails any larger output, and with 0 every output)", tname,
				 xml_line(fi));
	if (url && !xml_child(url, "UPLOAD_URL")) {
		s = xml_text(url);
		if (!strstr(s, "file_upload_handler")) {
			log_error("%s:%ld: output <url> \"%s\" is not an upload URL (it must contain "
				  "file_upload_handler; use <UPLOAD_URL/>)", tname, xml_line(url), s);
			free(s);
			return -1;
		}
		free(s);
	}
	return 0;
}

static int check_result(const char *tname, const xmlNode *res, const struct out_names *names)
{
	const xmlNode *fr, *fn;
	bool has_outfile;
	char *key, *open;
	size_t i;

	xml_for_each(fr, res, "file_ref") {
		fn = xml_child(fr, "file_name");
		if (!fn)
			return log_error("%s:%ld: result file_ref has no <file_name>", tname,
					 xml_line(fr));
		key = name_key(tname, fn, &has_outfile);
		if (!key)
			return -1;
		for (i = 0; i < names->n && strcmp(names->keys[i], key); i++)
			;
		free(key);
		if (i == names->n)
			return log_error("%s:%ld: result file_ref to a file with no <file_info>",
					 tname, xml_line(fn));
		open = xml_child_text(fr, "open_name");
		if (!open || !*open) {
			free(open);
			return log_error("%s:%ld: result file_ref has no <open_name>", tname,
					 xml_line(fr));
		}
		free(open);
	}
	return 0;
}

int result_template_parse(const char *text, size_t len, const char *name,
			  struct result_template *t)
{
	struct rt_build b = { t, SBUF_INIT(TEMPLATE_MAX), 0, false };
	struct out_names names = { NULL, 0 };
	const xmlNode *root, *c;
	xmlDoc *doc;
	bool have_result = false;
	size_t i;
	int r = -1;

	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	doc = tpl_read(text, len, name, "output_template");
	if (!doc)
		goto out;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "output_template")) {
		log_error("%s:%ld: expected <output_template>, found <%s>", name, xml_line(root),
			  (const char *)root->name);
		goto out;
	}
	xml_for_each(c, root, NULL) {
		if (xml_is(c, "file_info")) {
			if (have_result) {
				log_error("%s:%ld: output file_info after <result>", name, xml_line(c));
				goto out;
			}
			if (check_out_file_info(name, c, &names))
				goto out;
		} else if (xml_is(c, "result")) {
			if (have_result) {
				log_error("%s:%ld: more than one <result>", name, xml_line(c));
				goto out;
			}
			have_result = true;
			if (check_result(name, c, &names))
				goto out;
		} else {
			log_error("%s:%ld: unexpected <%s> in an output template", name, xml_line(c),
				  (const char *)c->name);
			goto out;
		}
		if (emit(&b, c) || sbuf_addch(&b.lit, '\n'))
			goto out;
	}
	if (!have_result) {
		log_error("%s:%ld: output template has no <result>", name, xml_line(root));
		goto out;
	}
	push_seg(&b, SEG_TEXT, 0);
	r = 0;
out:
	for (i = 0; i < names.n; i++)
		free(names.keys[i]);
	free(names.keys);
	sbuf_release(&b.lit);
	if (doc)
		xmlFreeDoc(doc);
	if (r)
		result_template_release(t);
	return r;
}

int result_template_load(const char *path, struct result_template *t)
{
	struct sbuf text = SBUF_INIT(TEMPLATE_MAX);
	int r;

	memset(t, 0, sizeof(*t));
	if (tpl_read_file(path, &text))
		return -1;
	r = result_template_parse(sbuf_str(&text), text.len, path, t);
	sbuf_release(&text);
	return r;
}

int result_template_process(const struct result_template *t, const char *result_name,
			    const char *upload_url, struct sbuf *out)
{
	size_t i, start = out->len;
	int r = 0;

	for (i = 0; i < t->nsegs; i++) {
		const struct result_template_seg *s = &t->segs[i];

		switch (s->kind) {
		case SEG_TEXT:
			r |= sbuf_addstr(out, s->text);
			break;
		case SEG_OUTFILE:
			r |= tpl_add_text(out, result_name);
			r |= sbuf_addf(out, "_%d", s->n);
			break;
		case SEG_UPLOAD_URL:
			if (!upload_url || !strstr(upload_url, "file_upload_handler")) {
				sbuf_truncate(out, start);
				return log_error("upload_url \"%s\" does not contain file_upload_handler",
						 upload_url ? upload_url : "");
			}
			r |= tpl_add_text(out, upload_url);
			break;
		}
	}
	if (r) {
		sbuf_truncate(out, start);
		return log_error("result xml_doc_in from %s too large", t->name);
	}
	return 0;
}
