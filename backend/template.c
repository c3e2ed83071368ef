/*
 * Input and output templates (see template.h). Templates are parsed with
 * libxml2 once and kept in a form that makes processing a job cheap: the
 * input template as its file numbers, file_refs and verbatim extras; the
 * output template as a list of literal XML pieces and placeholders.
 */
#include "common.h"
#include "template.h"
#include "fileutil.h"
#include "log.h"
#include "xml.h"
#include "xml_write.h"

#include <ctype.h>

/*
 * Element text escaped as little as XML needs (&, <, >): the client's own
 * parser unescapes few entities, and a command line keeps its quotes.
 */
static int add_text(struct sbuf *b, const char *s)
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

/* ---- job parameters ------------------------------------------------------ */

void job_params_unset(struct job_params *p)
{
	p->rsc_fpops_est = p->rsc_fpops_bound = -1;
	p->rsc_memory_bound = p->rsc_disk_bound = -1;
	p->delay_bound = -1;
	p->min_quorum = p->target_nresults = p->max_error_results = -1;
	p->max_total_results = p->max_success_results = -1;
	p->priority = JOB_PRIORITY_UNSET;
}

/* tools/create_work.cpp's JOB_DESC defaults. */
void job_params_boinc_defaults(struct job_params *p)
{
	p->rsc_fpops_est = 3600e9;
	p->rsc_fpops_bound = 86400e9;
	p->rsc_memory_bound = 5e8;
	p->rsc_disk_bound = 1e9;
	p->delay_bound = 7 * 86400;
	p->min_quorum = 2;
	p->target_nresults = 2;
	p->max_error_results = 3;
	p->max_total_results = 10;
	p->max_success_results = 6;
	p->priority = 0;
}

void job_params_override(struct job_params *dst, const struct job_params *src)
{
#define OVR(f) do { if (src->f >= 0) dst->f = src->f; } while (0)
	OVR(rsc_fpops_est);
	OVR(rsc_fpops_bound);
	OVR(rsc_memory_bound);
	OVR(rsc_disk_bound);
	OVR(delay_bound);
	OVR(min_quorum);
	OVR(target_nresults);
	OVR(max_error_results);
	OVR(max_total_results);
	OVR(max_success_results);
#undef OVR
	if (src->priority != JOB_PRIORITY_UNSET)
		dst->priority = src->priority;
}

int job_params_finish(struct job_params *p)
{
	if (p->rsc_fpops_est <= 0 || p->rsc_fpops_bound <= 0)
		return log_error("rsc_fpops_est and rsc_fpops_bound must be above 0");
	if (p->delay_bound <= 0)
		return log_error("delay_bound must be above 0");
	if (p->min_quorum < 1)
		return log_error("min_quorum must be at least 1");
	if (p->max_error_results < 1 || p->max_total_results < 1 || p->max_success_results < 1)
		return log_error("max_error_results, max_total_results and max_success_results must be at least 1");
	if (p->rsc_memory_bound < 0 || p->rsc_disk_bound < 0)
		return log_error("rsc_memory_bound and rsc_disk_bound must not be negative");
	if (p->target_nresults < p->min_quorum)
		p->target_nresults = p->min_quorum;
	if (p->max_success_results < p->target_nresults)
		p->max_success_results = p->target_nresults;
	if (p->max_total_results < p->target_nresults)
		p->max_total_results = p->target_nresults;
	return 0;
}

/* ---- shared parsing helpers ---------------------------------------------- */

/*
 * BOINC templates may be a bare list of top-level elements, which is not a
 * well-formed XML document: give such a text the wrapper element. An XML
 * declaration is dropped first; the wrapper goes on the first line so line
 * numbers in errors stay those of the file.
 */
static xmlDoc *read_template(const char *text, size_t len, const char *name,
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
		sbuf_free(&b);
		log_error("%s: template too large", name);
		return NULL;
	}
	doc = xml_read_memory(b.buf, b.len, name, NULL);
	sbuf_free(&b);
	return doc;
}

static int elem_long(const xmlNode *n, const char *tname, long lo, long hi, long *out)
{
	char *s = xml_text(n);
	int r = 0;

	if (parse_long(s, out) || *out < lo || *out > hi)
		r = log_error("%s:%ld: bad <%s> value \"%s\"", tname, xml_line(n),
			      (const char *)n->name, s);
	free(s);
	return r;
}

static int elem_double(const xmlNode *n, const char *tname, double *out)
{
	char *s = xml_text(n);
	int r = 0;

	if (parse_double(s, out) || *out < 0)
		r = log_error("%s:%ld: bad <%s> value \"%s\"", tname, xml_line(n),
			      (const char *)n->name, s);
	free(s);
	return r;
}

static int read_template_file(const char *path, struct sbuf *text)
{
	if (read_file(path, TEMPLATE_MAX, text))
		return log_error("cannot read template %s", path);
	return 0;
}

/* Append " <child/>" serialisations of the elements of n not consumed by the caller. */
static int add_extra(struct sbuf *extra, const xmlNode *c)
{
	if (xml_serialize(c, extra) || sbuf_addch(extra, '\n'))
		return -1;
	return 0;
}

/* ---- input templates ----------------------------------------------------- */

void input_template_free(struct input_template *t)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		free(t->files[i].extra_xml);
	for (i = 0; i < t->nrefs; i++) {
		free(t->refs[i].open_name);
		free(t->refs[i].extra_xml);
	}
	free(t->files);
	free(t->refs);
	free(t->command_line);
	free(t->extra_xml);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

static int parse_in_file_info(struct input_template *t, const xmlNode *fi, size_t pos,
			      struct input_template_file *f)
{
	struct sbuf extra = SBUF_INIT(TEMPLATE_MAX);
	const xmlNode *c;
	long n = (long)pos;

	f->line = xml_line(fi);
	xml_for_each(c, fi, NULL) {
		if (xml_is(c, "number")) {
			if (elem_long(c, t->name, 0, 1000000, &n))
				goto fail;
		} else if (xml_is(c, "name") || xml_is(c, "url") || xml_is(c, "md5_cksum") ||
			   xml_is(c, "nbytes") || xml_is(c, "physical_name") ||
			   xml_is(c, "gzip") || xml_is(c, "gzipped_nbytes")) {
			/* constant and remote files: their URL and checksum come from elsewhere */
			log_error("%s:%ld: <%s> in an input file_info is not supported "
				  "(give the file as an argument)", t->name, xml_line(c),
				  (const char *)c->name);
			goto fail;
		} else if (add_extra(&extra, c)) {
			log_error("%s:%ld: file_info too large", t->name, xml_line(c));
			goto fail;
		}
	}
	f->number = (int)n;
	f->extra_xml = sbuf_detach(&extra, NULL);
	if (!f->extra_xml)
		f->extra_xml = xstrdup("");
	return 0;
fail:
	sbuf_free(&extra);
	return -1;
}

static int parse_in_file_ref(struct input_template *t, const xmlNode *fr, size_t pos,
			     struct input_template_ref *r)
{
	struct sbuf extra = SBUF_INIT(TEMPLATE_MAX);
	const xmlNode *c;
	long n = (long)pos;
	bool copy = false;

	r->line = xml_line(fr);
	xml_for_each(c, fr, NULL) {
		if (xml_is(c, "file_number")) {
			if (elem_long(c, t->name, 0, 1000000, &n))
				goto fail;
		} else if (xml_is(c, "open_name")) {
			free(r->open_name);
			r->open_name = xml_text(c);
			if (!*r->open_name || strchr(r->open_name, '/')) {
				log_error("%s:%ld: bad <open_name> \"%s\"", t->name,
					  xml_line(c), r->open_name);
				goto fail;
			}
		} else if (xml_is(c, "file_name")) {
			log_error("%s:%ld: <file_name> in an input file_ref: use <file_number>",
				  t->name, xml_line(c));
			goto fail;
		} else {
			if (xml_is(c, "copy_file"))
				copy = true;
			if (add_extra(&extra, c)) {
				log_error("%s:%ld: file_ref too large", t->name, xml_line(c));
				goto fail;
			}
		}
	}
	if (!r->open_name && !copy) {
		log_error("%s:%ld: file_ref has no <open_name> (and no <copy_file/>)",
			  t->name, r->line);
		goto fail;
	}
	r->file_number = (int)n;
	r->extra_xml = sbuf_detach(&extra, NULL);
	if (!r->extra_xml)
		r->extra_xml = xstrdup("");
	return 0;
fail:
	/* not counted in t->nrefs, so input_template_free would not free it */
	free(r->open_name);
	r->open_name = NULL;
	sbuf_free(&extra);
	return -1;
}

static const struct {
	const char *name;
	bool is_double;
	size_t offset;
} job_param_elems[] = {
#define D(f) { #f, true, offsetof(struct job_params, f) }
#define I(f) { #f, false, offsetof(struct job_params, f) }
	D(rsc_fpops_est), D(rsc_fpops_bound), D(rsc_memory_bound), D(rsc_disk_bound),
	I(delay_bound), I(min_quorum), I(target_nresults), I(max_error_results),
	I(max_total_results), I(max_success_results), I(priority),
#undef D
#undef I
};

/* A job parameter element of <workunit>: 1 if it was one, 0 if not, -1 if bad. */
static int parse_job_param(const char *tname, const xmlNode *c, struct job_params *p)
{
	size_t i;
	long l;
	double d;

	for (i = 0; i < ARRAY_SIZE(job_param_elems); i++) {
		if (!xml_is(c, job_param_elems[i].name))
			continue;
		if (job_param_elems[i].is_double) {
			if (elem_double(c, tname, &d))
				return -1;
			*(double *)(void *)((char *)p + job_param_elems[i].offset) = d;
		} else {
			bool prio = strcmp(job_param_elems[i].name, "priority") == 0;

			if (elem_long(c, tname, prio ? INT_MIN + 1 : 0, INT_MAX, &l))
				return -1;
			*(int *)(void *)((char *)p + job_param_elems[i].offset) = (int)l;
		}
		return 1;
	}
	return 0;
}

static int parse_workunit(struct input_template *t, const xmlNode *wu)
{
	struct sbuf extra = SBUF_INIT(TEMPLATE_MAX);
	const xmlNode *c;
	size_t nrefs = 0;
	int r;

	xml_for_each(c, wu, NULL)
		if (xml_is(c, "file_ref"))
			nrefs++;
	t->refs = xcalloc(nrefs ? nrefs : 1, sizeof(*t->refs));
	xml_for_each(c, wu, NULL) {
		if (xml_is(c, "file_ref")) {
			if (parse_in_file_ref(t, c, t->nrefs, &t->refs[t->nrefs]))
				goto fail;
			t->nrefs++;
		} else if (xml_is(c, "command_line")) {
			free(t->command_line);
			t->command_line = xml_text(c);
		} else if ((r = parse_job_param(t->name, c, &t->params)) != 0) {
			if (r < 0)
				goto fail;
		} else if (xml_is(c, "name") || xml_is(c, "app_name")) {
			log_error("%s:%ld: <%s> does not belong in a template", t->name,
				  xml_line(c), (const char *)c->name);
			goto fail;
		} else if (add_extra(&extra, c)) {
			log_error("%s:%ld: workunit too large", t->name, xml_line(c));
			goto fail;
		}
	}
	t->extra_xml = sbuf_detach(&extra, NULL);
	if (!t->extra_xml)
		t->extra_xml = xstrdup("");
	return 0;
fail:
	sbuf_free(&extra);
	return -1;
}

/* Order files by number; numbers must be exactly 0..n-1. */
static int check_numbers(struct input_template *t)
{
	struct input_template_file *by_num;
	size_t i, j;

	by_num = xcalloc(t->nfiles ? t->nfiles : 1, sizeof(*by_num));
	for (i = 0; i < t->nfiles; i++) {
		struct input_template_file *f = &t->files[i];

		if ((size_t)f->number >= t->nfiles) {
			log_error("%s:%ld: file_info number %d out of range (the template has %zu "
				  "input files, numbered 0..%zu)", t->name, f->line, f->number,
				  t->nfiles, t->nfiles - 1);
			goto fail;
		}
		for (j = 0; j < i; j++)
			if (t->files[j].number == f->number) {
				log_error("%s:%ld: duplicate file_info number %d (also on line %ld)",
					  t->name, f->line, f->number, t->files[j].line);
				goto fail;
			}
		by_num[f->number] = *f;
	}
	free(t->files);
	t->files = by_num;
	for (i = 0; i < t->nrefs; i++)
		if ((size_t)t->refs[i].file_number >= t->nfiles)
			return log_error("%s:%ld: file_ref to file number %d, which has no file_info",
					 t->name, t->refs[i].line, t->refs[i].file_number);
	return 0;
fail:
	free(by_num);
	return -1;
}

int input_template_parse(const char *text, size_t len, const char *name,
			 struct input_template *t)
{
	xmlDoc *doc;
	const xmlNode *root, *c;
	bool have_wu = false;
	size_t nfi = 0;

	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	job_params_unset(&t->params);
	doc = read_template(text, len, name, "input_template");
	if (!doc)
		goto fail;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "input_template")) {
		log_error("%s:%ld: expected <input_template>, found <%s>", name, xml_line(root),
			  (const char *)root->name);
		goto fail;
	}
	xml_for_each(c, root, "file_info")
		nfi++;
	t->files = xcalloc(nfi ? nfi : 1, sizeof(*t->files));
	xml_for_each(c, root, NULL) {
		if (xml_is(c, "file_info")) {
			if (parse_in_file_info(t, c, t->nfiles, &t->files[t->nfiles]))
				goto fail;
			t->nfiles++;
		} else if (xml_is(c, "workunit")) {
			if (have_wu) {
				log_error("%s:%ld: more than one <workunit>", name, xml_line(c));
				goto fail;
			}
			have_wu = true;
			if (parse_workunit(t, c))
				goto fail;
		} else {
			log_error("%s:%ld: unexpected <%s> in an input template", name,
				  xml_line(c), (const char *)c->name);
			goto fail;
		}
	}
	if (!have_wu) {
		log_error("%s:%ld: input template has no <workunit>", name, xml_line(root));
		goto fail;
	}
	if (check_numbers(t))
		goto fail;
	xmlFreeDoc(doc);
	return 0;
fail:
	if (doc)
		xmlFreeDoc(doc);
	input_template_free(t);
	return -1;
}

int input_template_load(const char *path, struct input_template *t)
{
	struct sbuf text = SBUF_INIT(TEMPLATE_MAX);
	int r;

	memset(t, 0, sizeof(*t));
	if (read_template_file(path, &text))
		return -1;
	r = input_template_parse(sbuf_str(&text), text.len, path, t);
	sbuf_free(&text);
	return r;
}

int input_template_process(const struct input_template *t,
			   const struct template_infile *files, size_t nfiles,
			   const char *command_line, struct sbuf *out)
{
	size_t i, start = out->len;
	int r = 0;

	if (nfiles != t->nfiles)
		return log_error("template %s needs %zu input file%s, got %zu", t->name, t->nfiles,
				 t->nfiles == 1 ? "" : "s", nfiles);
	for (i = 0; i < nfiles; i++) {
		const struct template_infile *f = &files[i];

		r |= sbuf_addstr(out, "<file_info>\n<name>");
		r |= add_text(out, f->name);
		r |= sbuf_addstr(out, "</name>\n<url>");
		r |= add_text(out, f->url);
		r |= sbuf_addf(out, "</url>\n<md5_cksum>%s</md5_cksum>\n<nbytes>%.0f</nbytes>\n",
			       f->md5, f->nbytes);
		r |= sbuf_addstr(out, t->files[i].extra_xml);
		r |= sbuf_addstr(out, "</file_info>\n");
	}
	r |= sbuf_addstr(out, "<workunit>\n");
	for (i = 0; i < t->nrefs; i++) {
		const struct input_template_ref *ref = &t->refs[i];
		const char *phys = files[ref->file_number].name;

		r |= sbuf_addstr(out, "<file_ref>\n<file_name>");
		r |= add_text(out, phys);
		r |= sbuf_addstr(out, "</file_name>\n<open_name>");
		r |= add_text(out, ref->open_name ? ref->open_name : phys);
		r |= sbuf_addstr(out, "</open_name>\n");
		r |= sbuf_addstr(out, ref->extra_xml);
		r |= sbuf_addstr(out, "</file_ref>\n");
	}
	if (!command_line)
		command_line = t->command_line;
	if (command_line && *command_line) {
		r |= sbuf_addstr(out, "<command_line>");
		r |= add_text(out, command_line);
		r |= sbuf_addstr(out, "</command_line>\n");
	}
	r |= sbuf_addstr(out, t->extra_xml);
	r |= sbuf_addstr(out, "</workunit>\n");
	if (r) {
		sbuf_truncate(out, start);
		return log_error("workunit xml_doc from %s too large", t->name);
	}
	return 0;
}

/* ---- output templates ---------------------------------------------------- */

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

void result_template_free(struct result_template *t)
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
			r |= add_text(&b->lit, (const char *)c->content);
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
				sbuf_free(&k);
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
	if (mx && elem_double(mx, tname, &max_nbytes))
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
	doc = read_template(text, len, name, "output_template");
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
	sbuf_free(&b.lit);
	if (doc)
		xmlFreeDoc(doc);
	if (r)
		result_template_free(t);
	return r;
}

int result_template_load(const char *path, struct result_template *t)
{
	struct sbuf text = SBUF_INIT(TEMPLATE_MAX);
	int r;

	memset(t, 0, sizeof(*t));
	if (read_template_file(path, &text))
		return -1;
	r = result_template_parse(sbuf_str(&text), text.len, path, t);
	sbuf_free(&text);
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
			r |= add_text(out, result_name);
			r |= sbuf_addf(out, "_%d", s->n);
			break;
		case SEG_UPLOAD_URL:
			if (!upload_url || !strstr(upload_url, "file_upload_handler")) {
				sbuf_truncate(out, start);
				return log_error("upload_url \"%s\" does not contain file_upload_handler",
						 upload_url ? upload_url : "");
			}
			r |= add_text(out, upload_url);
			break;
		}
	}
	if (r) {
		sbuf_truncate(out, start);
		return log_error("result xml_doc_in from %s too large", t->name);
	}
	return 0;
}
