/*
 * Input templates (template.h): parsed once into their file numbers,
 * file_refs and verbatim extras, then a job's workunit XML made from them.
 */
#include "template_int.h"
#include "log.h"

void input_template_release(struct input_template *t)
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
			if (tpl_elem_long(c, t->name, 0, 1000000, &n))
				goto fail;
		} else if (xml_is(c, "name") || xml_is(c, "url") || xml_is(c, "md5_cksum") ||
			   xml_is(c, "nbytes") || xml_is(c, "physical_name") ||
			   xml_is(c, "gzip") || xml_is(c, "gzipped_nbytes")) {
			/* constant and remote files: their URL and checksum come from elsewhere */
			log_error("%s:%ld: <%s> in an input file_info is not supported "
				  "(give the file as an argument)", t->name, xml_line(c),
				  (const char *)c->name);
			goto fail;
		} else if (tpl_add_extra(&extra, c)) {
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
	sbuf_release(&extra);
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
			if (tpl_elem_long(c, t->name, 0, 1000000, &n))
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
			if (tpl_add_extra(&extra, c)) {
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
	/* not counted in t->nrefs, so input_template_release would not free it */
	free(r->open_name);
	r->open_name = NULL;
	sbuf_release(&extra);
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
			if (tpl_elem_double(c, tname, &d))
				return -1;
			*(double *)(void *)((char *)p + job_param_elems[i].offset) = d;
		} else {
			bool prio = strcmp(job_param_elems[i].name, "priority") == 0;

			if (tpl_elem_long(c, tname, prio ? INT_MIN + 1 : 0, INT_MAX, &l))
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
		} else if (tpl_add_extra(&extra, c)) {
			log_error("%s:%ld: workunit too large", t->name, xml_line(c));
			goto fail;
		}
	}
	t->extra_xml = sbuf_detach(&extra, NULL);
	if (!t->extra_xml)
		t->extra_xml = xstrdup("");
	return 0;
fail:
	sbuf_release(&extra);
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
	doc = tpl_read(text, len, name, "input_template");
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
	input_template_release(t);
	return -1;
}

int input_template_load(const char *path, struct input_template *t)
{
	struct sbuf text = SBUF_INIT(TEMPLATE_MAX);
	int r;

	memset(t, 0, sizeof(*t));
	if (tpl_read_file(path, &text))
		return -1;
	r = input_template_parse(sbuf_str(&text), text.len, path, t);
	sbuf_release(&text);
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
		r |= tpl_add_text(out, f->name);
		r |= sbuf_addstr(out, "</name>\n<url>");
		r |= tpl_add_text(out, f->url);
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
		r |= tpl_add_text(out, phys);
		r |= sbuf_addstr(out, "</file_name>\n<open_name>");
		r |= tpl_add_text(out, ref->open_name ? ref->open_name : phys);
		r |= sbuf_addstr(out, "</open_name>\n");
		r |= sbuf_addstr(out, ref->extra_xml);
		r |= sbuf_addstr(out, "</file_ref>\n");
	}
	if (!command_line)
		command_line = t->command_line;
	if (command_line && *command_line) {
		r |= sbuf_addstr(out, "<command_line>");
		r |= tpl_add_text(out, command_line);
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
