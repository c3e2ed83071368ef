/*
 * The files of a sequence app read from bytes (see sequence.h): sequence
 * templates -- state and answer files, state levels and their checks --
 * and the plans of sequence apps. Both come from the project's templates
 * directory, the admin's or a submitter's; every error names its line.
 */
#include "sequence.h"
#include "config.h"
#include "field.h"
#include "log.h"
#include "xml.h"

#include <ctype.h>

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
