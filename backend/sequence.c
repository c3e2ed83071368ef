/* Work sequences: creation and segments; see sequence.h. */
#include "sequence.h"
#include "config.h"
#include "db_queries.h"
#include "dirhier.h"
#include "field.h"
#include "log.h"
#include "work.h"
#include "xml.h"

#include <ctype.h>
#include "wtime.h"
#include "xml_write.h"

char *seq_wu_name(const char *seq, int branch, int seqno)
{
	return xasprintf("%s_b%d_s%d", seq, branch, seqno);
}

static char *file_name(const char *seq, int branch, int seqno, const char *kind, size_t i)
{
	if (i == 0)
		return xasprintf("%s_b%d_s%d_%s", seq, branch, seqno, kind);
	return xasprintf("%s_b%d_s%d_%s%zu", seq, branch, seqno, kind, i);
}

char *seq_state_name(const char *seq, int branch, int seqno, size_t i)
{
	return file_name(seq, branch, seqno, "state", i);
}

int seq_state_index(const char *name)
{
	const char *p = NULL, *q;
	long i = 0;

	for (q = name ? strstr(name, "_state") : NULL; q; q = strstr(q + 1, "_state"))
		p = q;
	if (!p)
		return -1;
	p += strlen("_state");
	if (!*p)
		return 0;
	if (*p == '0')
		return -1;      /* file 0 is "_state" */
	for (; *p >= '0' && *p <= '9' && i < SEQ_MAX_FILES; p++)
		i = i * 10 + (*p - '0');
	return *p || i >= SEQ_MAX_FILES ? -1 : (int)i;
}

char *seq_answer_name(const char *seq, int branch, int seqno, size_t i)
{
	return file_name(seq, branch, seqno, "answer", i);
}

void seq_layout_release(struct seq_layout *l)
{
	size_t i;

	for (i = 0; i < l->nstate; i++) {
		free(l->state[i].open_in);
		free(l->state[i].open_out);
		free(l->state[i].level);
	}
	for (i = 0; i < l->nanswer; i++)
		free(l->answer[i].open_name);
	memset(l, 0, sizeof(*l));
}

size_t seq_nstate_files(const struct project_config *cfg, const struct db_sequence *s)
{
	struct seq_layout l;
	size_t n;

	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return 0;
	n = l.nstate;
	seq_layout_release(&l);
	return n;
}

/* An open name: letters, digits, '_', '-', '.'; not empty. */
static bool good_open_name(const char *n)
{
	if (!n || !*n)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '_' && *n != '-' && *n != '.')
			return false;
	return true;
}

/*
 * The number in n's child element name (lib/field.h), dflt when absent; -1
 * (why in err, if given) when it is not a number in lo..hi or, whole, has a
 * fraction.
 */
static int elem_num(const xmlNode *n, const char *name, bool whole, double dflt, double lo,
		    double hi, double *out, struct sbuf *err)
{
	char *t = xml_child_text(n, name);
	int64_t v;
	int rc = FIELD_OK;

	*out = dflt;
	if (t && whole) {
		rc = field_int64(name, t, (int64_t)lo, (int64_t)hi, 0, &v, err);
		if (rc == FIELD_OK)
			*out = (double)v;
	} else if (t) {
		rc = field_double(name, t, lo, hi, 0, out, err);
	}
	free(t);
	return rc == FIELD_OK ? 0 : -1;
}

/*
 * A template being read: its declared <level>s (name, period, line, whether
 * a state uses it) and the line of each state, for the errors.
 */
struct layout_read {
	const char *path;
	struct {
		char *name;
		int every;
		long line;
		bool used;
	} lv[SEQ_MAX_FILES];
	size_t nlv;
	long state_line[SEQ_MAX_FILES];
};

static void layout_read_release(struct layout_read *r)
{
	size_t i;

	for (i = 0; i < r->nlv; i++)
		free(r->lv[i].name);
}

/* A period: a whole number of segments, 1 to 1e6. */
static int elem_every(const xmlNode *n, int *out)
{
	double d;

	if (elem_num(n, "upload_every", true, 0, 1, 1e6, &d, NULL) < 0)
		return -1;
	*out = (int)d;
	return 0;
}

static int read_level(struct layout_read *r, const xmlNode *n)
{
	char *name = xml_child_text(n, "name");
	size_t i;
	int every = 0;

	if (!good_open_name(name) || elem_every(n, &every) < 0 || every == 0) {
		free(name);
		return log_error("%s:%ld: a <level> needs a <name> (letters, digits, _ - .) and an "
				 "<upload_every> of 1 to 1e6 (whole segments)", r->path, xml_line(n));
	}
	for (i = 0; i < r->nlv; i++) {
		if (strcmp(r->lv[i].name, name) == 0) {
			log_error("%s:%ld: level \"%s\" is declared twice (first at line %ld)",
				  r->path, xml_line(n), name, r->lv[i].line);
			free(name);
			return -1;
		}
	}
	if (r->nlv == SEQ_MAX_FILES) {
		free(name);
		return log_error("%s:%ld: one <level> too many (at most %d)", r->path, xml_line(n),
				 SEQ_MAX_FILES);
	}
	r->lv[r->nlv].name = name;
	r->lv[r->nlv].every = every;
	r->lv[r->nlv].line = xml_line(n);
	r->nlv++;
	return 0;
}

/* The <level> or <upload_every> of state i (neither: 0, the sequence's M). */
static int read_state_level(struct layout_read *r, const xmlNode *n, struct seq_layout *l,
			    size_t i)
{
	size_t j;

	l->state[i].level = xml_child_text(n, "level");
	if (l->state[i].level && xml_child(n, "upload_every"))
		return log_error("%s:%ld: a <state> has a <level> or an <upload_every>, not both",
				 r->path, xml_line(n));
	if (elem_every(n, &l->state[i].upload_every) < 0)
		return log_error("%s:%ld: a <state>'s <upload_every> is a whole number of segments, "
				 "1 to 1e6", r->path, xml_line(n));
	if (!l->state[i].level)
		return 0;
	for (j = 0; j < r->nlv; j++) {
		if (strcmp(r->lv[j].name, l->state[i].level) == 0) {
			r->lv[j].used = true;
			l->state[i].upload_every = r->lv[j].every;
			return 0;
		}
	}
	return log_error("%s:%ld: a <state> names level \"%s\", which no <level> declares",
			 r->path, xml_line(n), l->state[i].level);
}

static int read_state(struct layout_read *r, const xmlNode *n, struct seq_layout *l)
{
	size_t i = l->nstate++;
	int rc = 0;

	r->state_line[i] = xml_line(n);
	l->state[i].open_in = xml_child_text(n, "open_name_in");
	l->state[i].open_out = xml_child_text(n, "open_name_out");
	if (elem_num(n, "max_nbytes", false, 0, 1, 1e15, &l->state[i].max_nbytes, NULL) < 0 ||
	    !good_open_name(l->state[i].open_in) || !good_open_name(l->state[i].open_out))
		rc = log_error("%s:%ld: a <state> needs <open_name_in> and <open_name_out> "
			       "(letters, digits, _ - .) and a <max_nbytes> of 1 to 1e15 if any",
			       r->path, xml_line(n));
	if (read_state_level(r, n, l, i) < 0)
		rc = -1;
	return rc;
}

static int read_answer(struct layout_read *r, const xmlNode *n, struct seq_layout *l)
{
	size_t i = l->nanswer++;

	l->answer[i].open_name = xml_child_text(n, "open_name");
	if (elem_num(n, "max_nbytes", false, 1e7, 1, 1e15, &l->answer[i].max_nbytes, NULL) < 0 ||
	    !good_open_name(l->answer[i].open_name))
		return log_error("%s:%ld: an <answer> needs an <open_name> (letters, digits, _ - .) "
				 "and a <max_nbytes> of 1 to 1e15 if any", r->path, xml_line(n));
	return 0;
}

/* State i's level in words, for an error: its name or line, and its period. */
static void describe_state_level(struct sbuf *b, const struct layout_read *r,
				 const struct seq_layout *l, size_t i)
{
	size_t j;

	for (j = 0; l->state[i].level && j < r->nlv; j++)
		if (strcmp(r->lv[j].name, l->state[i].level) == 0)
			break;
	if (l->state[i].level && j < r->nlv)
		sbuf_addf(b, "level \"%s\" (every %d, line %ld)", r->lv[j].name, r->lv[j].every,
			  r->lv[j].line);
	else
		sbuf_addf(b, "the state at line %ld (every %d)", r->state_line[i],
			  l->state[i].upload_every);
}

/*
 * Do the states' own periods nest (seq_policy_levels_nest)? If not, name
 * one pair that does not, in template order, at the later state's line.
 */
static int check_nesting(const struct layout_read *r, const struct seq_layout *l)
{
	struct sbuf msg = SBUF_INIT(1024);
	int p[SEQ_MAX_FILES], pair[2];
	size_t idx[SEQ_MAX_FILES], n = 0, i, j, bad;

	for (i = 0; i < l->nstate; i++)
		if (l->state[i].upload_every > 0) {
			idx[n] = i;
			p[n++] = l->state[i].upload_every;
		}
	if (seq_policy_levels_nest(p, n, &bad))
		return 0;
	for (j = 0; j < n; j++) {
		pair[0] = p[bad];
		pair[1] = p[j];
		if (!seq_policy_levels_nest(pair, 2, &i))
			break;
	}
	if (j == n)
		j = bad;
	if (j < bad) {
		i = j;
		j = bad;
		bad = i;
	}
	describe_state_level(&msg, r, l, idx[bad]);
	sbuf_addstr(&msg, " and ");
	describe_state_level(&msg, r, l, idx[j]);
	log_error("%s:%ld: state periods do not nest: %s: each period must divide every larger "
		  "one", r->path, r->state_line[idx[j]], sbuf_str(&msg));
	sbuf_release(&msg);
	return -1;
}

/* Every declared level is used by a state, and the periods nest. */
static int check_levels(const struct layout_read *r, const struct seq_layout *l)
{
	size_t j;

	for (j = 0; j < r->nlv; j++)
		if (!r->lv[j].used)
			return log_error("%s:%ld: level \"%s\" is a level with no state: no <state> "
					 "names it", r->path, r->lv[j].line, r->lv[j].name);
	return check_nesting(r, l);
}

/*
 * Read the document's <level>, <state> and <answer> elements into l; the
 * doc is freed. The levels first, wherever they stand, so that a state may
 * name one declared after it.
 */
static int seq_layout_from_doc(xmlDoc *doc, const char *path, struct seq_layout *l)
{
	struct layout_read r = { .path = path };
	xmlNode *root, *n;
	int rc = 0;

	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "sequence_template")) {
		rc = log_error("sequence template %s: the root element is not <sequence_template>", path);
		goto done;
	}
	xml_for_each(n, root, "level")
		if (read_level(&r, n) < 0)
			rc = -1;
	xml_for_each(n, root, NULL) {
		if (xml_is(n, "level"))
			continue;
		if (xml_is(n, "state") && l->nstate < SEQ_MAX_FILES) {
			if (read_state(&r, n, l) < 0)
				rc = -1;
		} else if (xml_is(n, "answer") && l->nanswer < SEQ_MAX_FILES) {
			if (read_answer(&r, n, l) < 0)
				rc = -1;
		} else {
			rc = log_error("%s:%ld: <%s> is not <level>, <state> or <answer>, or one too "
				       "many (at most %d of each)", path, xml_line(n),
				       (const char *)n->name, SEQ_MAX_FILES);
		}
	}
	if (rc == 0 && l->nstate == 0)
		rc = log_error("sequence template %s: no <state>: a sequence carries at least one",
			       path);
	if (rc == 0)
		rc = check_levels(&r, l);
done:
	layout_read_release(&r);
	xmlFreeDoc(doc);
	if (rc)
		seq_layout_release(l);
	return rc;
}

int seq_layout_load(const char *project_dir, const char *path, struct seq_layout *l)
{
	struct sbuf full = SBUF_INIT(PATH_MAX), err = SBUF_INIT(1024);
	xmlDoc *doc;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!path || !*path) {
		l->nstate = l->nanswer = 1;
		l->state[0].open_in = xstrdup("state_in");
		l->state[0].open_out = xstrdup("state_out");
		l->answer[0].open_name = xstrdup("answer");
		l->answer[0].max_nbytes = 1e7;
		return 0;
	}
	if (path[0] == '/')
		sbuf_addstr(&full, path);
	else
		sbuf_addf(&full, "%s/%s", project_dir, path);
	doc = xml_read_file(sbuf_str(&full), &err);
	if (!doc)
		rc = log_error("sequence template %s: %s", path, sbuf_str(&err));
	else
		rc = seq_layout_from_doc(doc, path, l);
	sbuf_release(&full);
	sbuf_release(&err);
	return rc;
}

int seq_layout_parse(const char *text, size_t len, const char *name, struct seq_layout *l)
{
	struct sbuf err = SBUF_INIT(1024);
	xmlDoc *doc;
	int rc;

	memset(l, 0, sizeof(*l));
	doc = xml_read_memory(text, len, name, &err);
	if (!doc)
		rc = log_error("sequence template %s: %s", name, sbuf_str(&err));
	else
		rc = seq_layout_from_doc(doc, name, l);
	sbuf_release(&err);
	return rc;
}

void seq_view_of(const struct db_sequence *s, struct seq_view *v)
{
	*v = (struct seq_view){
		.groupid = s->groupid,
		.active = s->state == SEQ_STATE_ACTIVE,
		.branch = s->branch,
		.nsegments = s->nsegments,
		.target_nsegments = s->target_nsegments,
		.first_unsent = s->first_unsent_seqno,
		.high_water = s->high_water,
		.answer_every = s->answer_every,
		.state_upload_every = s->state_upload_every,
		.last_state_seqno = s->last_state_seqno,
		.relocating = (enum seq_reason)s->need_relocate,
		.max_result_time = s->max_result_time,
		.rsc_fpops_est = s->rsc_fpops_est,
	};
}

void seq_view_levels(struct seq_view *v, const struct seq_layout *l)
{
	size_t i;

	v->nstate = l->nstate;
	for (i = 0; i < l->nstate && i < SEQ_MAX_FILES; i++)
		v->state_every[i] = l->state[i].upload_every;
}

int seq_layout_check_every(const struct seq_layout *l, int state_upload_every, const char *what)
{
	struct seq_view v = { .state_upload_every = state_upload_every };
	struct sbuf msg = SBUF_INIT(1024);
	int p[SEQ_MAX_FILES];
	size_t i, n = 0, bad;

	seq_view_levels(&v, l);
	for (i = 0; i < l->nstate; i++) {
		p[n] = seq_policy_state_period(&v, i);
		if (p[n] > 0)
			n++;
	}
	if (seq_policy_levels_nest(p, n, &bad))
		return 0;
	for (i = 0; i < l->nstate; i++)
		if (l->state[i].upload_every > 0)
			sbuf_addf(&msg, "%s\"%s\" every %d", msg.len ? ", " : "",
				  l->state[i].level ? l->state[i].level : l->state[i].open_out,
				  l->state[i].upload_every);
	log_error("%s: --state_upload_every %d (the states with no level of their own) does not "
		  "nest with the template's levels %s: each period must divide every larger one",
		  what, state_upload_every, sbuf_str(&msg));
	sbuf_release(&msg);
	return -1;
}

void seg_view_of(const struct db_result *r, int seqno, int branch, struct seg_view *g)
{
	enum seg_status st = SEG_INACTIVE;

	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		st = SEG_IN_PROGRESS;
	else if (r->server_state == RESULT_SERVER_STATE_OVER && r->outcome == RESULT_OUTCOME_NO_REPLY)
		st = SEG_LATE;
	else if (r->server_state == RESULT_SERVER_STATE_OVER && r->outcome == RESULT_OUTCOME_SUCCESS)
		st = r->validate_state == VALIDATE_STATE_INVALID ? SEG_INVALID : SEG_SUCCESS;
	else if (r->server_state == RESULT_SERVER_STATE_OVER)
		st = SEG_ERROR;
	*g = (struct seg_view){ seqno, branch, r->hostid, st, (double)r->report_deadline,
				r->elapsed_time };
}

unsigned seq_state_uploads(const struct db_sequence *s, const struct seq_layout *l, int seqno)
{
	struct seq_view v;

	seq_view_of(s, &v);
	seq_view_levels(&v, l);
	return seq_policy_state_mask(&v, seqno);
}

bool seq_uploads_answer(const struct db_sequence *s, int seqno)
{
	struct seq_view v;

	seq_view_of(s, &v);
	return seq_policy_uploads(&v, seqno) & SEQ_UPLOAD_ANSWER;
}

static void file_info_out(struct sbuf *b, const char *name, bool sticky, double max_nbytes,
			  const char *upload_url)
{
	sbuf_addstr(b, "<file_info>\n    <name>");
	xml_add_text(b, name);
	sbuf_addstr(b, "</name>\n");
	if (sticky)
		sbuf_addstr(b, "    <sticky/>\n");
	sbuf_addf(b, "    <max_nbytes>%.0f</max_nbytes>\n", max_nbytes);
	if (upload_url) {
		sbuf_addstr(b, "    <url>");
		xml_add_text(b, upload_url);
		sbuf_addstr(b, "</url>\n");
	}
	sbuf_addstr(b, "</file_info>\n");
}

/*
 * An output is copied out of the slot; an input state is linked, so that
 * boinc_resolve_filename(open_name) gives its physical name -- which tells
 * the app the segment it came from (after a relocation, with state levels,
 * not every input is from the previous segment).
 */
static void file_ref(struct sbuf *b, const char *name, const char *open_name, bool copy)
{
	sbuf_addstr(b, "    <file_ref>\n        <file_name>");
	xml_add_text(b, name);
	sbuf_addf(b, "</file_name>\n        <open_name>%s</open_name>\n%s    </file_ref>\n",
		  open_name, copy ? "        <copy_file/>\n" : "");
}

static void seq_file_init(struct db_seq_file *f, const struct db_sequence *s, int seqno,
			  const char *name, int kind, bool upload, bool uploaded)
{
	memset(f, 0, sizeof(*f));
	f->create_time = now();
	f->name = xstrdup(name);
	f->seq_id = s->id;
	f->branch = s->branch;
	f->seqno = seqno;
	f->kind = kind;
	f->upload = upload;
	f->uploaded = uploaded;
}

/* An initial state's row: on the server from the start, its MD5 and size known. */
static int add_initial_state(struct db *db, const struct db_sequence *s, const struct seq_input *in)
{
	struct db_seq_file f;
	int rc;

	seq_file_init(&f, s, 0, in->name, SEQ_FILE_STATE, true, true);
	f.md5_cksum = xstrdup(in->md5);
	f.nbytes = in->nbytes;
	f.upload_time = f.create_time;
	rc = db_seq_file_insert(db, &f);
	db_seq_file_release(&f);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

/* Segment seqno's workunit, result (workunitid still 0) and output files, in memory. */
static void segment_build(const struct project_config *cfg, const struct db_sequence *s,
			  const struct seq_layout *l, int seqno, const struct seq_input *in,
			  struct db_workunit *wu, struct db_result *res, struct db_seq_file *files)
{
	struct sbuf wdoc = SBUF_INIT(1 << 20), rdoc = SBUF_INIT(1 << 20);
	unsigned up_state = seq_state_uploads(s, l, seqno);
	unsigned up_before = seqno > 1 ? seq_state_uploads(s, l, seqno - 1) : 0;
	bool up_answer = seq_uploads_answer(s, seqno);
	size_t i, nf = 0;

	/*
	 * The inputs: the states the segment starts from, kept on the host
	 * (sticky). The client merges such a file_info into the previous
	 * segment's output of the same name and takes its URL list from it:
	 * when that output is to be uploaded, the upload URL must be here too,
	 * or the upload fails.
	 */
	for (i = 0; i < l->nstate; i++) {
		sbuf_addstr(&wdoc, "<file_info>\n    <name>");
		xml_add_text(&wdoc, in[i].name);
		sbuf_addstr(&wdoc, "</name>\n    <sticky/>\n    <no_delete/>\n");
		if (!in[i].url && (in[i].upload || (up_before >> i & 1u))) {
			sbuf_addstr(&wdoc, "    <url>");
			xml_add_text(&wdoc, cfg->upload_url);
			sbuf_addstr(&wdoc, "</url>\n");
		}
		if (in[i].url) {
			sbuf_addstr(&wdoc, "    <url>");
			xml_add_text(&wdoc, in[i].url);
			sbuf_addf(&wdoc, "</url>\n    <md5_cksum>%s</md5_cksum>\n"
				  "    <nbytes>%.0f</nbytes>\n", in[i].md5, in[i].nbytes);
		}
		sbuf_addstr(&wdoc, "</file_info>\n");
	}
	sbuf_addstr(&wdoc, "<workunit>\n");
	for (i = 0; i < l->nstate; i++)
		file_ref(&wdoc, in[i].name, l->state[i].open_in, false);
	sbuf_addstr(&wdoc, "    <command_line>");
	xml_add_text(&wdoc, s->command_line);
	sbuf_addstr(&wdoc, "</command_line>\n</workunit>\n");

	/*
	 * The outputs: the states always stay on the host; state file i is
	 * uploaded when its level's period divides seqno, answers every Nth.
	 */
	for (i = 0; i < l->nstate; i++) {
		char *name = seq_state_name(s->name, s->branch, seqno, i);
		bool up = up_state >> i & 1u;

		file_info_out(&rdoc, name, true,
			      l->state[i].max_nbytes > 0 ? l->state[i].max_nbytes : s->rsc_disk_bound,
			      up ? cfg->upload_url : NULL);
		seq_file_init(&files[nf++], s, seqno, name, SEQ_FILE_STATE, up, false);
		free(name);
	}
	for (i = 0; i < l->nanswer; i++) {
		char *name = seq_answer_name(s->name, s->branch, seqno, i);

		file_info_out(&rdoc, name, false, l->answer[i].max_nbytes,
			      up_answer ? cfg->upload_url : NULL);
		seq_file_init(&files[nf++], s, seqno, name, SEQ_FILE_ANSWER, up_answer, false);
		free(name);
	}
	sbuf_addstr(&rdoc, "<result>\n");
	for (i = 0; i < nf; i++)
		file_ref(&rdoc, files[i].name, i < l->nstate ? l->state[i].open_out
							     : l->answer[i - l->nstate].open_name, true);
	sbuf_addstr(&rdoc, "</result>\n");

	memset(wu, 0, sizeof(*wu));
	wu->create_time = now();
	wu->appid = s->appid;
	wu->name = seq_wu_name(s->name, s->branch, seqno);
	wu->xml_doc = sbuf_detach(&wdoc, NULL);
	wu->batch = s->batch;
	wu->rsc_fpops_est = s->rsc_fpops_est;
	wu->rsc_fpops_bound = s->rsc_fpops_bound;
	wu->rsc_memory_bound = s->rsc_memory_bound;
	wu->rsc_disk_bound = s->rsc_disk_bound;
	wu->delay_bound = s->delay_bound;
	wu->min_quorum = wu->target_nresults = 1;
	wu->max_error_results = wu->max_total_results = wu->max_success_results = 1;
	wu->priority = s->priority;
	wu->transition_time = now();
	wu->transitioner_flags = 1;     /* results come from the sequence, not the transitioner */
	wu->seq_id = s->id;
	wu->seqno = seqno;
	wu->branch = s->branch;

	memset(res, 0, sizeof(*res));
	res->create_time = now();
	res->server_state = RESULT_SERVER_STATE_INACTIVE;
	res->name = xasprintf("%s_0", wu->name);
	res->xml_doc_in = sbuf_detach(&rdoc, NULL);
	work_certify_outputs(cfg, res);
	res->appid = s->appid;
	res->batch = s->batch;
	res->priority = s->priority;
	res->seq_id = s->id;
	res->random = (int)(now() & 0x7fffffff);
	sbuf_release(&wdoc);
	sbuf_release(&rdoc);
}

void seq_rows_release(struct seq_rows *r)
{
	size_t j;

	for (j = 0; j < r->n; j++) {
		db_workunit_release(&r->wu[j]);
		db_result_release(&r->res[j]);
	}
	for (j = 0; j < r->nfiles; j++)
		db_seq_file_release(&r->files[j]);
	free(r->wu);
	free(r->res);
	free(r->files);
	memset(r, 0, sizeof(*r));
}

void seq_rows_add(struct seq_rows *r, const struct project_config *cfg,
		 const struct db_sequence *s, const struct seq_layout *l, int from, int to,
		 const struct seq_input *in)
{
	size_t n = to >= from ? (size_t)(to - from + 1) : 0, nf = l->nstate + l->nanswer, j, i;

	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->wu = xrealloc(r->wu, r->cap * sizeof(*r->wu));
		r->res = xrealloc(r->res, r->cap * sizeof(*r->res));
	}
	if (r->nfiles + nf * n > r->cap_files) {
		r->cap_files = (r->nfiles + nf * n) * 2;
		r->files = xrealloc(r->files, r->cap_files * sizeof(*r->files));
	}
	for (j = 0; j < n; j++) {
		int k = from + (int)j;
		struct seq_input prev[SEQ_MAX_FILES];
		char *names[SEQ_MAX_FILES] = { NULL };

		for (i = 0; i < l->nstate; i++) {
			if (j == 0 && in) {
				prev[i] = in[i];
			} else {
				names[i] = seq_state_name(s->name, s->branch, k - 1, i);
				prev[i] = (struct seq_input){ names[i], NULL, NULL, 0, false };
			}
		}
		segment_build(cfg, s, l, k, prev, &r->wu[r->n], &r->res[r->n],
			      &r->files[r->nfiles]);
		r->n++;
		r->nfiles += nf;
		for (i = 0; i < l->nstate; i++)
			free(names[i]);
	}
}

int seq_rows_insert(struct db *db, struct seq_rows *r)
{
	size_t j;
	/* Three statements whatever the number of segments and sequences. */
	int rc = db_rec_insert_many(db, &db_workunit_table, r->wu, sizeof(*r->wu), r->n);

	for (j = 0; rc == DB_OK && j < r->n; j++)
		r->res[j].workunitid = r->wu[j].id;
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_result_table, r->res, sizeof(*r->res), r->n);
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_seq_file_table, r->files, sizeof(*r->files),
					r->nfiles);
	if (rc == DB_ERROR)
		log_error("cannot make %zu segment workunits: %s", r->n, db_error(db));
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

int seq_make_segments(struct db *db, const struct project_config *cfg,
		      const struct db_sequence *s, int from, int to, const struct seq_input *in,
		      size_t nin)
{
	struct seq_rows r = { 0 };
	struct seq_layout l;
	int rc;

	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return -1;
	if (seq_layout_check_every(&l, s->state_upload_every, s->name) < 0) {
		seq_layout_release(&l);
		return -1;
	}
	if (in && nin != l.nstate) {
		seq_layout_release(&l);
		return log_error("sequence %s: %zu input states for %zu state files", s->name, nin,
				 l.nstate);
	}
	seq_rows_add(&r, cfg, s, &l, from, to, in);
	rc = seq_rows_insert(db, &r);
	if (rc < 0)
		log_error("sequence %s: segments %d..%d not made", s->name, from, to);
	seq_rows_release(&r);
	seq_layout_release(&l);
	return rc;
}

struct prev_states {
	struct seq_input in[SEQ_MAX_FILES];
	char *names[SEQ_MAX_FILES];
	size_t n;
};

static int take_prev_state(struct db_seq_file *f, void *arg)
{
	struct prev_states *p = arg;

	if (f->kind != SEQ_FILE_STATE || p->n == SEQ_MAX_FILES)
		return 0;
	p->names[p->n] = f->name;
	f->name = NULL;
	p->in[p->n] = (struct seq_input){ p->names[p->n], NULL, NULL, 0, f->upload != 0 };
	p->n++;
	return 0;
}

/*
 * Segment from-1's states as the host keeps them, with whether that segment
 * uploads them as its rows say: decided when it was made, which an extension
 * of a known-length sequence may since have changed for seq_state_uploads()
 * (the formerly last segment uploads its state, a middle one might not).
 */
int seq_make_following(struct db *db, const struct project_config *cfg,
		       const struct db_sequence *s, int from, int to)
{
	struct prev_states p = { .n = 0 };
	size_t i;
	int rc;

	if (from > 1 && db_seq_file_enum_segment(db, s->id, s->branch, from - 1, take_prev_state,
						 &p) != DB_OK)
		p.n = 0;
	rc = seq_make_segments(db, cfg, s, from, to, p.n ? p.in : NULL, p.n);
	for (i = 0; i < p.n; i++)
		free(p.names[i]);
	return rc;
}

int seq_create(struct db *db, const struct project_config *cfg, const struct seq_spec *spec,
	       char *const *initial_states, size_t ninitial, struct db_sequence *s)
{
	struct work_file init[SEQ_MAX_FILES];
	struct seq_input in[SEQ_MAX_FILES];
	struct seq_layout l;
	size_t i, nstaged = 0;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	memset(init, 0, sizeof(init));
	if (seq_layout_load(cfg->project_dir, spec->seq_template, &l) < 0)
		return -1;
	if (seq_layout_check_every(&l, spec->state_upload_every, spec->name) < 0) {
		rc = -1;
		goto out;
	}
	if (ninitial != l.nstate) {
		rc = log_error("sequence %s: %zu initial state file%s given, the template has %zu "
			       "state file%s", spec->name, ninitial, ninitial == 1 ? "" : "s",
			       l.nstate, l.nstate == 1 ? "" : "s");
		goto out;
	}
	for (i = 0; i < l.nstate && rc == 0; i++) {
		char *name = seq_state_name(spec->name, 0, 0, i);

		if (work_stage_input(cfg, initial_states[i], name, &init[i]) < 0)
			rc = -1;
		else
			in[nstaged++] = (struct seq_input){ init[i].name, init[i].url,
							    init[i].md5, init[i].nbytes, false };
		free(name);
	}
	if (rc)
		goto out;
	s->create_time = now();
	s->name = xstrdup(spec->name);
	s->appid = spec->appid;
	s->wu_template = xstrdup(spec->seq_template ? spec->seq_template : "");
	s->max_result_time = spec->max_result_time;
	s->first_unvalidated_seqno = s->first_unsent_seqno = 1;
	s->nsegments = spec->segments;
	s->target_nsegments = spec->open_ended ? 0 : spec->segments;
	s->answer_every = spec->answer_every;
	s->state_upload_every = spec->state_upload_every;
	s->high_water = spec->high_water;
	s->rsc_fpops_est = spec->rsc_fpops_est;
	s->rsc_fpops_bound = spec->rsc_fpops_bound;
	s->rsc_memory_bound = spec->rsc_memory_bound;
	s->rsc_disk_bound = spec->state_max_nbytes > spec->rsc_disk_bound ? spec->state_max_nbytes
									    : spec->rsc_disk_bound;
	s->delay_bound = spec->delay_bound;
	s->priority = spec->priority;
	s->command_line = xstrdup(spec->command_line);
	s->state = SEQ_STATE_ACTIVE;
	s->batch = spec->batch;
	rc = db_sequence_insert(db, s);
	for (i = 0; rc == DB_OK && i < l.nstate; i++)
		rc = add_initial_state(db, s, &in[i]);
	if (rc == DB_OK)
		rc = seq_make_segments(db, cfg, s, 1, spec->segments, in, l.nstate);
out:
	for (i = 0; i < nstaged; i++) {
		if (rc != DB_OK)
			work_unstage_input(&init[i]);
		work_file_release(&init[i]);
	}
	seq_layout_release(&l);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

/* The plan in doc (NULL: unreadable, why in err) into spec; 1 or -1, the doc freed. */
static int seq_plan_from_doc(xmlDoc *doc, struct seq_spec *spec, struct sbuf *err)
{
	double segs = 0, ans, up, hw, mrt, db, smax;
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	int rc = 1;

	if (!root || !xml_is(root, "sequence_app")) {
		if (!err->len)
			sbuf_addstr(err, "not a <sequence_app> document");
		rc = -1;
	}
	if (rc > 0 && (elem_num(root, "segments", true, 0, 1, 1e6, &segs, err) ||
		       elem_num(root, "answer_every", true, 1, 1, 1e6, &ans, err) ||
		       elem_num(root, "state_upload_every", true, 1, 1, 1e6, &up, err) ||
		       elem_num(root, "high_water", true, 2, 1, 100, &hw, err) ||
		       elem_num(root, "max_result_time", false, 86400, 1, 1e9, &mrt, err) ||
		       elem_num(root, "delay_bound", true, 0, 0, 1e9, &db, err) ||
		       elem_num(root, "state_max_nbytes", false, 1e9, 1, 1e15, &smax, err)))
		rc = -1;
	if (rc > 0 && segs < 1) {
		sbuf_addstr(err, "<segments> is missing");
		rc = -1;
	}
	if (rc > 0) {
		spec->segments = (int)segs;
		spec->answer_every = (int)ans;
		spec->state_upload_every = (int)up;
		spec->high_water = (int)hw;
		spec->max_result_time = mrt;
		spec->delay_bound = db > 0 ? (int)db : (int)(2 * mrt);
		spec->state_max_nbytes = smax;
		spec->seq_template = xml_child_text(root, "seq_template");
		spec->open_ended = xml_child(root, "open_ended") != NULL;
	}
	if (doc)
		xmlFreeDoc(doc);
	return rc;
}

int seq_app_plan_load(const char *project_dir, const char *app, struct seq_spec *spec,
		      struct sbuf *err)
{
	char *path = xasprintf("%s/templates/%s_seq", project_dir, app);
	int rc;

	if (access(path, F_OK) != 0) {
		free(path);
		return 0;
	}
	rc = seq_plan_from_doc(xml_read_file(path, err), spec, err);
	if (rc < 0)
		log_error("%s: %s", path, sbuf_str(err));
	free(path);
	return rc;
}

int seq_app_plan_parse(const char *text, size_t len, const char *name, struct seq_spec *spec,
		       struct sbuf *err)
{
	int rc = seq_plan_from_doc(xml_read_memory(text, len, name, err), spec, err);

	if (rc < 0)
		log_error("%s: %s", name, sbuf_str(err));
	return rc;
}
