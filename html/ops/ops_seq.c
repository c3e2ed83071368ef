/*
 * Work sequences: the list (?state=active|ended|error, ?before=ID to page)
 * with each one's state, host, live branch, progress and relocations; and
 * a page per sequence (?id=N or ?name=NAME) with its head (its state
 * levels and restart point among it), its timeline (ops_svg.c), every
 * branch's segments, and a form to cancel it.
 */
#include "ops.h"
#include "db_ops.h"
#include "log.h"
#include "config.h"
#include "seq_keep.h"
#include "sequence.h"
#include "wtime.h"

#define SEQS_PER_PAGE 100
#define SEGMENTS_MAX 5000
#define FILES_MAX 20000
#define NAME_MAX_LEN 254

struct seq_walk {
	struct ops *o;
	int64_t last_id;
	int n;
};

static void host_cell(struct ops *o, int64_t hostid)
{
	struct db_host h = { 0 };
	char id[32];

	snprintf(id, sizeof(id), "%" PRId64, hostid);
	if (!hostid) {
		sbuf_addstr(o->b, "<span class=\"dim\">none</span>");
		return;
	}
	if (db_host_lookup_id(o->c->db, hostid, &h) == DB_OK && h.domain_name && *h.domain_name)
		ops_linkf(o, h.domain_name, "host?id=%" PRId64, hostid);
	else
		ops_linkf(o, id, "host?id=%" PRId64, hostid);
	db_host_release(&h);
}

static void progress(struct ops *o, const struct db_sequence *s)
{
	int done = s->first_unvalidated_seqno - 1;

	if (s->target_nsegments)
		sbuf_addf(o->b, "%d/%d", done, s->target_nsegments);
	else
		sbuf_addf(o->b, "%d/%d (open)", done, s->nsegments);
}

static int seq_row(struct db_sequence *s, void *arg)
{
	struct seq_walk *w = arg;
	struct ops *o = w->o;

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, s->name, "seq?id=%" PRId64, s->id);
	sbuf_addf(o->b, "</td><td class=\"%s\">%s</td><td>", s->state == SEQ_STATE_ERROR ? "bad" : "",
		  ops_seq_state(s->state));
	host_cell(o, s->hostid);
	sbuf_addf(o->b, "</td><td class=\"num\">%d</td><td class=\"num\">", s->branch);
	progress(o, s);
	sbuf_addf(o->b, "</td><td class=\"num\">%d</td><td>", s->nrelocations);
	if (s->need_relocate)
		sbuf_addf(o->b, "to relocate: %s", ops_relocate_reason(s->need_relocate));
	ops_esc(o->b, s->error_msg);
	sbuf_addstr(o->b, "</td></tr>\n");
	w->last_id = s->id;
	w->n++;
	return 0;
}

/* ?state: -1 for all; false (a 400 page) for an unknown one. */
static bool state_param(struct ops *o, int *state, const char **name)
{
	static const char *const names[] = { "active", "ended", "error" };
	const char *v = web_param(o->r, "state");
	int i;

	*state = -1;
	*name = "";
	if (!v || !*v || !strcmp(v, "all"))
		return true;
	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		if (!strcmp(v, names[i])) {
			*state = i;
			*name = names[i];
			return true;
		}
	ops_message(o, 400, "Bad request", "state is one of active, ended, error and all.");
	return false;
}

void ops_sequences(struct ops *o)
{
	struct seq_walk w = { o, 0, 0 };
	const char *sname;
	long before;
	int state;

	if (!state_param(o, &state, &sname) ||
	    !ops_num_param(o, "before", 1, LONG_MAX, LONG_MAX, &before))
		return;
	if (!o->c->db) {
		ops_db_failed(o, "sequences");
		return;
	}
	ops_start(o, "Sequences");
	sbuf_addstr(o->b, "<p>Show: ");
	ops_link(o, "sequences", "all");
	sbuf_addstr(o->b, " &middot; ");
	ops_link(o, "sequences?state=active", "active");
	sbuf_addstr(o->b, " &middot; ");
	ops_link(o, "sequences?state=ended", "ended");
	sbuf_addstr(o->b, " &middot; ");
	ops_link(o, "sequences?state=error", "error");
	sbuf_addstr(o->b, "</p>\n<table id=\"sequences\">\n<tr><th>Sequence</th><th>State</th>"
			  "<th>Host</th><th>Live branch</th><th>Done</th><th>Relocations</th>"
			  "<th>Note</th></tr>\n");
	if (db_ops_sequences(o->c->db, state, before, SEQS_PER_PAGE, seq_row, &w) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"7\" class=\"error\">cannot be read</td></tr>\n");
	else if (!w.n)
		sbuf_addstr(o->b, "<tr><td colspan=\"7\" class=\"dim\">No sequence.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
	if (w.n == SEQS_PER_PAGE && w.last_id > 1) {
		sbuf_addstr(o->b, "<p>");
		ops_linkf(o, "Older", "sequences?state=%s&before=%" PRId64, *sname ? sname : "all",
			  w.last_id - 1);
		sbuf_addstr(o->b, "</p>\n");
	}
	ops_end(o);
}

/* ---- one sequence ---- */

struct seq_data {
	struct db_ops_segment *segs;
	size_t nsegs;
	struct db_seq_file *files;
	size_t nfiles;
};

static int take_segment(struct db_ops_segment *s, void *arg)
{
	struct seq_data *d = arg;
	struct db_rows rows = DB_ROWS(d->segs, d->nsegs, SEGMENTS_MAX);

	return db_rows_take(s, &rows);
}

static int take_file(struct db_seq_file *f, void *arg)
{
	struct seq_data *d = arg;
	struct db_rows rows = DB_ROWS(d->files, d->nfiles, FILES_MAX);

	return db_rows_take(f, &rows);
}

static void seq_data_release(struct seq_data *d)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++) {
		free(d->segs[i].wu_name);
		db_ops_result_release(&d->segs[i].r);
	}
	for (i = 0; i < d->nfiles; i++)
		db_seq_file_release(&d->files[i]);
	free(d->segs);
	free(d->files);
}

static void fact_row(struct ops *o, const char *label)
{
	sbuf_addf(o->b, "<tr><th>%s</th><td>", label);
}

/* The state levels: each state file's name and period, and the restart point. */
static void level_facts(struct ops *o, const struct db_sequence *s, const struct seq_layout *l)
{
	struct seq_view v;
	size_t i;
	char level[64];

	seq_view_of(s, &v);
	seq_view_levels(&v, l);
	for (i = 0; i < l->nstate; i++) {
		seq_keep_level_name(l, i, level, sizeof(level));
		sbuf_addstr(o->b, i ? ", " : "");
		ops_esc(o->b, level);
		sbuf_addf(o->b, " every %d", seq_policy_state_period(&v, i));
	}
	sbuf_addf(o->b, "; restart point: segment %d, versions older than those a restart after "
			"%d reads are deleted", s->last_state_seqno, seq_keep_point(s));
}

static void head_facts(struct ops *o, const struct db_sequence *s, const struct seq_layout *l)
{
	sbuf_addstr(o->b, "<table id=\"seq_head\">\n");
	fact_row(o, "State");
	sbuf_addf(o->b, "%s</td></tr>\n", ops_seq_state(s->state));
	fact_row(o, "Host");
	host_cell(o, s->hostid);
	sbuf_addstr(o->b, "</td></tr>\n");
	fact_row(o, "Live branch");
	sbuf_addf(o->b, "%d</td></tr>\n", s->branch);
	fact_row(o, "Done");
	progress(o, s);
	sbuf_addf(o->b, "; sent to the host up to segment %d</td></tr>\n", s->first_unsent_seqno - 1);
	fact_row(o, "Uploads");
	sbuf_addf(o->b, "answer every %d, state every %d; last state on the server: segment %d"
			"</td></tr>\n", s->answer_every, s->state_upload_every, s->last_state_seqno);
	if (l) {
		fact_row(o, "State levels");
		level_facts(o, s, l);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	fact_row(o, "Relocations");
	sbuf_addf(o->b, "%d%s%s</td></tr>\n", s->nrelocations, s->need_relocate ? "; to relocate: " : "",
		  ops_relocate_reason(s->need_relocate));
	fact_row(o, "Batch");
	if (s->batch)
		ops_linkf(o, "batch", "batch?id=%" PRId64, s->batch);
	sbuf_addstr(o->b, "</td></tr>\n");
	fact_row(o, "Created");
	ops_time(o->b, s->create_time);
	sbuf_addstr(o->b, "</td></tr>\n");
	if (s->error_msg && *s->error_msg) {
		fact_row(o, "Error");
		ops_esc(o->b, s->error_msg);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	sbuf_addstr(o->b, "</table>\n");
}

static void segment_rows(struct ops *o, const struct seq_data *d, int branch)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++) {
		const struct db_ops_segment *s = &d->segs[i];

		if (s->branch != branch)
			continue;
		sbuf_addf(o->b, "<tr><td class=\"num\">%d</td><td>", s->seqno);
		ops_linkf(o, s->wu_name, "wu?id=%" PRId64, s->wuid);
		sbuf_addstr(o->b, "</td><td>");
		if (s->r.hostid)
			host_cell(o, s->r.hostid);
		sbuf_addf(o->b, "</td><td>%s</td><td>", s->r.id ? ops_result_state(s->r.server_state,
			  s->r.outcome, s->r.validate_state) : "no result");
		ops_time(o->b, s->r.sent_time);
		sbuf_addstr(o->b, "</td><td>");
		ops_time(o->b, s->r.received_time);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
}

static void branches(struct ops *o, const struct db_sequence *s, const struct seq_data *d)
{
	int b;

	for (b = s->branch; b >= 0 && b > s->branch - 20; b--) {
		sbuf_addf(o->b, "<h2>Branch %d (%s)</h2>\n<table class=\"segments\" data-branch=\"%d\">\n"
				"<tr><th>Segment</th><th>Workunit</th><th>Host</th><th>Result</th>"
				"<th>Sent</th><th>Received</th></tr>\n", b, b == s->branch ? "live" : "dead",
			  b);
		segment_rows(o, d, b);
		sbuf_addstr(o->b, "</table>\n");
	}
}

/* The sequence of ?id or ?name: DB_OK, else a page was made. */
static int find_sequence(struct ops *o, struct db_sequence *s)
{
	const char *name = web_param(o->r, "name");
	int64_t id = 0;
	int rc;

	if (name && *name && !web_param(o->r, "id")) {
		if (strlen(name) > NAME_MAX_LEN) {
			ops_message(o, 400, "Bad request", "That name is too long for a sequence.");
			return DB_ERROR;
		}
		rc = o->c->db ? db_sequence_lookup_name(o->c->db, name, s) : DB_ERROR;
	} else if (ops_id_param(o, "id", &id)) {
		rc = o->c->db ? db_sequence_lookup_id(o->c->db, id, s) : DB_ERROR;
	} else {
		return DB_ERROR;
	}
	if (rc == DB_NOT_FOUND)
		ops_message(o, 404, "Not found", "There is no such sequence.");
	else if (rc != DB_OK)
		ops_db_failed(o, "sequence");
	return rc;
}

void ops_sequence(struct ops *o)
{
	struct db_sequence s = { 0 };
	struct seq_data d = { 0 };
	struct ops_timeline t;
	struct sbuf title = SBUF_INIT(512);
	struct seq_layout l;
	bool have_layout = false;

	if (find_sequence(o, &s) != DB_OK)
		goto out;
	if (db_ops_seq_segments(o->c->db, s.id, SEGMENTS_MAX, take_segment, &d) != DB_OK ||
	    db_ops_seq_files(o->c->db, s.id, FILES_MAX, take_file, &d) != DB_OK) {
		ops_db_failed(o, "sequence segments");
		goto out;
	}
	sbuf_addstr(&title, "Sequence ");
	sbuf_addstr(&title, s.name);
	ops_start(o, sbuf_str(&title));
	have_layout = seq_layout_load(o->c->cfg->project_dir, s.wu_template, &l) == 0;
	head_facts(o, &s, have_layout ? &l : NULL);
	if (s.state == SEQ_STATE_ACTIVE)
		ops_cancel_form(o, "seq", s.id, "Cancel this sequence");
	sbuf_addstr(o->b, "<h2>Timeline</h2>\n");
	t.seq = &s;
	t.layout = have_layout ? &l : NULL;
	t.segs = d.segs;
	t.nsegs = d.nsegs;
	t.files = d.files;
	t.nfiles = d.nfiles;
	t.now = now();
	ops_svg_timeline(o->b, &t);
	if (d.nsegs == SEGMENTS_MAX)
		sbuf_addf(o->b, "<p class=\"dim\">Only the first %d segments are shown.</p>\n",
			  SEGMENTS_MAX);
	branches(o, &s, &d);
	ops_end(o);
out:
	if (have_layout)
		seq_layout_release(&l);
	sbuf_release(&title);
	seq_data_release(&d);
	db_sequence_release(&s);
}
