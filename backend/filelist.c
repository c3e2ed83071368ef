/*
 * Reading file lists out of workunit and result XML (see filelist.h). The
 * documents are fragments (several top-level elements), so each is parsed
 * inside a wrapper element.
 */
#include "filelist.h"
#include "db.h"
#include "db_records.h"
#include "sequence.h"
#include "log.h"
#include "sbuf.h"
#include "xml.h"

#define FILELIST_XML_MAX (16 * 1024 * 1024 + 64)

static xmlDoc *parse_fragment(const char *text, const char *what)
{
	struct sbuf b = SBUF_INIT(FILELIST_XML_MAX);
	xmlDoc *doc;

	if (sbuf_addstr(&b, "<wseq_doc>") || sbuf_addstr(&b, text ? text : "") ||
	    sbuf_addstr(&b, "</wseq_doc>")) {
		sbuf_release(&b);
		log_error("%s: document too large", what);
		return NULL;
	}
	doc = xml_read_memory(sbuf_str(&b), b.len, what, NULL);
	sbuf_release(&b);
	return doc;
}

static struct job_fileref *add(struct job_filelist *l, const char *name)
{
	struct job_fileref *f;

	ARRAY_GROW(l->f, l->n);
	f = &l->f[l->n++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	return f;
}

static struct job_fileref *find(struct job_filelist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->f[i].name, name) == 0)
			return &l->f[i];
	return NULL;
}

/* Every element called name below node, in document order. */
static void walk(xmlNode *node, const char *name, void (*fn)(xmlNode *, void *), void *arg)
{
	xmlNode *c;

	for (c = node->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (xml_is(c, name))
			fn(c, arg);
		else
			walk(c, name, fn, arg);
	}
}

static void input_info(xmlNode *fi, void *arg)
{
	struct job_filelist *l = arg;
	char *name = xml_child_text(fi, "name");
	struct job_fileref *f;

	if (name && *name && !find(l, name)) {
		f = add(l, name);
		f->no_delete = xml_child(fi, "no_delete") != NULL;
	}
	free(name);
}

int filelist_wu_inputs(const struct db_workunit *wu, struct job_filelist *out)
{
	xmlDoc *doc;

	memset(out, 0, sizeof(*out));
	doc = parse_fragment(wu->xml_doc, wu->name);
	if (!doc)
		return log_error("workunit %s: cannot read its xml_doc", wu->name);
	walk(xmlDocGetRootElement(doc), "file_info", input_info, out);
	xmlFreeDoc(doc);
	return 0;
}

static void output_ref(xmlNode *fr, void *arg)
{
	struct job_filelist *l = arg;
	char *name = xml_child_text(fr, "file_name");

	if (name && *name && !find(l, name))
		add(l, name)->open_name = xml_child_text(fr, "open_name");
	free(name);
}

static void output_info(xmlNode *fi, void *arg)
{
	struct job_filelist *l = arg;
	char *name = xml_child_text(fi, "name");

	if (name && *name && !find(l, name))
		add(l, name);
	free(name);
}

/* An output whose file_info has a URL is uploaded: the server should have it. */
static void output_upload(xmlNode *fi, void *arg)
{
	struct job_filelist *l = arg;
	char *name = xml_child_text(fi, "name");
	struct job_fileref *f = name ? find(l, name) : NULL;

	if (f)
		f->upload = xml_child(fi, "url") || xml_child(fi, "upload_url");
	free(name);
}

static void reported_info(xmlNode *fi, void *arg)
{
	struct job_filelist *l = arg;
	char *name = xml_child_text(fi, "name");
	char *md5 = xml_child_text(fi, "md5_cksum");
	char *nbytes = xml_child_text(fi, "nbytes");
	struct job_fileref *f;

	/* only the result's own outputs: a name it does not have is not its to report */
	if (name && *name && (f = find(l, name)) != NULL) {
		f->reported = true;
		if (md5 && strlen(md5) == MD5_HEX_LEN)
			wstrlcpy(f->md5, md5, sizeof(f->md5));
		if (nbytes)
			parse_double(nbytes, &f->nbytes);
	}
	free(name);
	free(md5);
	free(nbytes);
}

int filelist_result_outputs(const struct db_result *r, struct job_filelist *out)
{
	xmlDoc *in, *rep = NULL;
	xmlNode *root, *res;

	memset(out, 0, sizeof(*out));
	in = parse_fragment(r->xml_doc_in, r->name);
	if (!in)
		return log_error("result %s: cannot read its xml_doc_in", r->name);
	root = xmlDocGetRootElement(in);
	xml_for_each(res, root, "result")
		walk(res, "file_ref", output_ref, out);
	if (out->n == 0)
		walk(root, "file_info", output_info, out);
	walk(root, "file_info", output_upload, out);
	xmlFreeDoc(in);
	if (r->xml_doc_out && *r->xml_doc_out) {
		rep = parse_fragment(r->xml_doc_out, r->name);
		if (!rep) {
			filelist_release(out);
			return log_error("result %s: cannot read its xml_doc_out", r->name);
		}
		walk(xmlDocGetRootElement(rep), "file_info", reported_info, out);
		xmlFreeDoc(rep);
	}
	return 0;
}

void filelist_release(struct job_filelist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->f[i].name);
		free(l->f[i].open_name);
	}
	free(l->f);
	l->f = NULL;
	l->n = 0;
}

/* Is name an uploaded output of result r? */
static bool uploads(const struct db_result *r, const char *name)
{
	struct db_result in = *r;
	struct job_filelist l;
	bool yes = false;
	size_t i;

	in.xml_doc_out = NULL;
	if (filelist_result_outputs(&in, &l) < 0)
		return false;
	for (i = 0; i < l.n; i++)
		yes = yes || (l.f[i].upload && !strcmp(l.f[i].name, name));
	filelist_release(&l);
	return yes;
}

/* A sequence's file: the result of its segment. */
static int seq_owner(struct db *db, const char *name, struct db_result *owner)
{
	struct db_seq_file f = { 0 };
	struct db_sequence s = { 0 };
	char *wu = NULL, *res = NULL;
	int rc = db_seq_file_lookup_name(db, name, &f);

	if (rc == DB_OK)
		rc = db_sequence_lookup_id(db, f.seq_id, &s);
	if (rc == DB_OK) {
		wu = seq_wu_name(s.name, f.branch, f.seqno);
		res = xasprintf("%s_0", wu);
		rc = db_result_lookup_name(db, res, owner);
	}
	free(wu);
	free(res);
	db_seq_file_release(&f);
	db_sequence_release(&s);
	return rc;
}

#define OWNER_TRIES 8

int filelist_output_owner(struct db *db, const char *name, struct db_result *owner)
{
	size_t len = strlen(name), i;
	int rc = seq_owner(db, name, owner), tries = 0;

	if (rc == DB_OK && uploads(owner, name))
		return DB_OK;
	if (rc != DB_OK && rc != DB_NOT_FOUND)
		return rc;
	/* "<result name>_<i>" and what a template put after it: try each such prefix */
	for (i = len; i-- > 1 && tries < OWNER_TRIES;) {
		char *cand;

		if (name[i] != '_' || name[i + 1] < '0' || name[i + 1] > '9')
			continue;
		tries++;
		cand = xstrndup(name, i);
		db_result_release(owner);
		memset(owner, 0, sizeof(*owner));
		rc = db_result_lookup_name(db, cand, owner);
		free(cand);
		if (rc == DB_OK && uploads(owner, name))
			return DB_OK;
		if (rc != DB_OK && rc != DB_NOT_FOUND)
			return rc;
	}
	db_result_release(owner);
	memset(owner, 0, sizeof(*owner));
	return DB_NOT_FOUND;
}
