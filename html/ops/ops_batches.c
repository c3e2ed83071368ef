/*
 * Batches (remote submission from Condor, and sweep sessions): the list,
 * newest first (?before=ID to page), and a page per batch with its
 * progress, failures, lease and expiry, its jobs and sequences, and a form
 * to cancel it.
 */
#include "ops.h"
#include "db_ops.h"
#include "log.h"
#include "wtime.h"

#define BATCHES_PER_PAGE 50
#define BATCH_JOBS 200

struct app_cache {
	int64_t id;
	char name[64];
};

/* "sweep" for a sweep session's app, else the batch's app name. */
static void app_of(struct ops *o, int64_t appid, struct app_cache *c)
{
	struct db_app a = { 0 };

	if (c->id == appid)
		return;
	c->id = appid;
	snprintf(c->name, sizeof(c->name), "%s", appid ? "?" : "-");
	if (appid && o->c->db && db_app_lookup_id(o->c->db, appid, &a) == DB_OK)
		snprintf(c->name, sizeof(c->name), "%s", a.name);
	db_app_release(&a);
}

struct batch_walk {
	struct ops *o;
	struct app_cache app;
	int64_t last_id;
	int n;
};

static void expiry(struct sbuf *b, double t)
{
	if (t <= 0)
		sbuf_addstr(b, "never");
	else
		ops_time(b, (int64_t)t);
}

static int batch_row(struct db_batch *bt, void *arg)
{
	struct batch_walk *w = arg;
	struct ops *o = w->o;
	char id[32];

	app_of(o, bt->app_id, &w->app);
	snprintf(id, sizeof(id), "%" PRId64, bt->id);
	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, id, "batch?id=%" PRId64, bt->id);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, bt->name);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, w->app.name);
	sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%.0f%%</td>"
			"<td class=\"num%s\">%d</td><td>", ops_batch_state(bt->state), bt->njobs,
		  100 * bt->fraction_done, bt->nerror_jobs ? " bad" : "", bt->nerror_jobs);
	ops_time(o->b, bt->create_time);
	sbuf_addstr(o->b, "</td><td>");
	expiry(o->b, bt->expire_time);
	sbuf_addstr(o->b, "</td></tr>\n");
	w->last_id = bt->id;
	w->n++;
	return 0;
}

void ops_batches(struct ops *o)
{
	struct batch_walk w = { o, { -1, "" }, 0, 0 };
	long before;

	if (!ops_num_param(o, "before", 1, LONG_MAX, LONG_MAX, &before))
		return;
	if (!o->c->db) {
		ops_db_failed(o, "batches");
		return;
	}
	ops_start(o, "Batches");
	sbuf_addstr(o->b, "<p>Batches of remote job submission (HTCondor through boinc_gahp) and "
			  "sweep sessions (app <code>sweep</code>), newest first.</p>\n"
			  "<table id=\"batches\">\n<tr><th>Batch</th><th>Name</th><th>App</th>"
			  "<th>State</th><th>Jobs</th><th>Done</th><th>Failed</th><th>Created</th>"
			  "<th>Expires</th></tr>\n");
	if (db_ops_batches(o->c->db, before, BATCHES_PER_PAGE, batch_row, &w) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"9\" class=\"error\">cannot be read</td></tr>\n");
	else if (!w.n)
		sbuf_addstr(o->b, "<tr><td colspan=\"9\" class=\"dim\">No batch.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
	if (w.n == BATCHES_PER_PAGE && w.last_id > 1) {
		sbuf_addstr(o->b, "<p>");
		ops_linkf(o, "Older", "batches?before=%" PRId64, w.last_id - 1);
		sbuf_addstr(o->b, "</p>\n");
	}
	ops_end(o);
}

/* ---- one batch ---- */

struct batch_tally {
	int64_t jobs, done, failed, cancelled;
	int64_t unsent, in_progress, over, errors;
};

static int wu_tally(struct db_ops_count *c, void *arg)
{
	struct batch_tally *t = arg;

	t->jobs += c->n;
	t->done += c->a ? c->n : 0;
	t->failed += c->b ? c->n : 0;
	t->cancelled += c->c ? c->n : 0;
	return 0;
}

static int result_tally(struct db_ops_count *c, void *arg)
{
	struct batch_tally *t = arg;

	if (c->a == RESULT_SERVER_STATE_UNSENT || c->a == RESULT_SERVER_STATE_INACTIVE)
		t->unsent += c->n;
	else if (c->a == RESULT_SERVER_STATE_IN_PROGRESS)
		t->in_progress += c->n;
	else if (c->a == RESULT_SERVER_STATE_OVER)
		t->over += c->n;
	if (c->a == RESULT_SERVER_STATE_OVER && c->b != RESULT_OUTCOME_SUCCESS &&
	    c->b != RESULT_OUTCOME_DIDNT_NEED)
		t->errors += c->n;
	return 0;
}

static void row_int(struct ops *o, const char *label, int64_t v)
{
	sbuf_addf(o->b, "<tr><th>%s</th><td class=\"num\">", label);
	ops_int(o->b, v);
	sbuf_addstr(o->b, "</td></tr>\n");
}

static void batch_facts(struct ops *o, const struct db_batch *bt, const struct batch_tally *t,
			int64_t lease)
{
	struct app_cache app = { -1, "" };

	app_of(o, bt->app_id, &app);
	sbuf_addstr(o->b, "<table id=\"batch\">\n<tr><th>Name</th><td>");
	ops_esc(o->b, bt->name);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>App</th><td>");
	ops_esc(o->b, app.name);
	sbuf_addf(o->b, "</td></tr>\n<tr><th>State</th><td>%s</td></tr>\n<tr><th>Submitter</th>"
			"<td>user %" PRId64 "</td></tr>\n<tr><th>Created</th><td>",
		  ops_batch_state(bt->state), bt->user_id);
	ops_time(o->b, bt->create_time);
	sbuf_addf(o->b, "</td></tr>\n<tr><th>Done</th><td class=\"num\">%.0f%%</td></tr>\n",
		  100 * bt->fraction_done);
	row_int(o, "Jobs (ordinary)", t->jobs);
	row_int(o, "with a canonical result", t->done);
	row_int(o, "failed", t->failed);
	row_int(o, "of which cancelled", t->cancelled);
	row_int(o, "Results unsent", t->unsent);
	row_int(o, "Results in progress", t->in_progress);
	row_int(o, "Results over", t->over);
	row_int(o, "of which in error", t->errors);
	sbuf_addstr(o->b, "<tr><th>Files leased until</th><td>");
	expiry(o->b, (double)lease);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>Expires</th><td>");
	expiry(o->b, bt->expire_time);
	sbuf_addstr(o->b, "</td></tr>\n</table>\n");
}

static int job_row(struct db_job_status *j, void *arg)
{
	struct ops *o = arg;

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, j->name, "wu?id=%" PRId64, j->id);
	sbuf_addf(o->b, "</td><td class=\"%s\">%s</td><td class=\"num\">%d</td></tr>\n",
		  j->error_mask ? "bad" : j->canonical_resultid ? "ok" : "",
		  j->error_mask & WU_ERROR_CANCELLED ? "cancelled" : j->error_mask ? "failed" :
		  j->canonical_resultid ? "done" : j->nsent ? "in progress" : "unsent", j->nsent);
	return 0;
}

static int seq_row(struct db_sequence *s, void *arg)
{
	struct ops *o = arg;

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, s->name, "seq?id=%" PRId64, s->id);
	sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%d/%d</td><td class=\"num\">%d</td></tr>\n",
		  ops_seq_state(s->state), s->first_unvalidated_seqno - 1,
		  s->target_nsegments ? s->target_nsegments : s->nsegments, s->nrelocations);
	return 0;
}

static void cancel_form(struct ops *o, const char *what, int64_t id, const char *label)
{
	sbuf_addstr(o->b, "<form class=\"action\" method=\"post\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addf(o->b, "cancel\">");
	ops_csrf_field(o);
	sbuf_addf(o->b, "<input type=\"hidden\" name=\"what\" value=\"%s\"><input type=\"hidden\" "
			"name=\"id\" value=\"%" PRId64 "\"><button class=\"danger\" type=\"submit\" "
			"id=\"cancel\">", what, id);
	ops_esc(o->b, label);
	sbuf_addstr(o->b, "</button></form>\n");
}

void ops_batch(struct ops *o)
{
	struct db_batch bt = { 0 };
	struct batch_tally t = { 0 };
	int64_t id, lease = 0;
	char title[64];
	size_t mark;
	int rc;

	if (!ops_id_param(o, "id", &id))
		return;
	rc = o->c->db ? db_batch_lookup_id(o->c->db, id, &bt) : DB_ERROR;
	if (rc == DB_NOT_FOUND) {
		ops_message(o, 404, "Not found", "There is no batch with that id.");
		goto out;
	}
	if (rc != DB_OK || db_ops_batch_wu_counts(o->c->db, id, wu_tally, &t) != DB_OK ||
	    db_ops_batch_result_counts(o->c->db, id, result_tally, &t) != DB_OK ||
	    db_ops_batch_lease(o->c->db, id, &lease) != DB_OK) {
		ops_db_failed(o, "batch");
		goto out;
	}
	snprintf(title, sizeof(title), "Batch %" PRId64, id);
	ops_start(o, title);
	batch_facts(o, &bt, &t, lease);
	if (bt.state != BATCH_STATE_ABORTED && bt.state != BATCH_STATE_RETIRED)
		cancel_form(o, "batch", id, "Cancel this batch");
	sbuf_addstr(o->b, "<h2>Sequences</h2>\n<table id=\"batch_seqs\">\n<tr><th>Sequence</th>"
			  "<th>State</th><th>Done</th><th>Relocations</th></tr>\n");
	mark = o->b->len;
	db_sequence_enum_batch(o->c->db, id, 0, seq_row, o);
	ops_none_row(o, mark, 4);
	sbuf_addf(o->b, "</table>\n<h2>Jobs (the first %d)</h2>\n<table id=\"batch_jobs\">\n"
			"<tr><th>Job</th><th>State</th><th>Results sent</th></tr>\n", BATCH_JOBS);
	mark = o->b->len;
	db_ops_batch_jobs(o->c->db, id, BATCH_JOBS, job_row, o);
	ops_none_row(o, mark, 3);
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	db_batch_release(&bt);
}

void ops_cancel_form(struct ops *o, const char *what, int64_t id, const char *label)
{
	cancel_form(o, what, id, label);
}
