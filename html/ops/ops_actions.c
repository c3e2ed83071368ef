/*
 * A workunit's page (its results and what each verdict rests on, a form
 * to cancel it, one to revalidate it: ops_revalidate.c) and the cancel
 * action behind every cancel form: POST cancel with what=wu|seq|batch and
 * id, the page's CSRF token, done through backend/cancel.h and logged with
 * the admin's name.
 */
#include "ops.h"
#include "cancel.h"
#include "db_ops.h"
#include "log.h"
#include "wtime.h"

#define WU_RESULTS 100

static int result_row(struct db_ops_result *r, void *arg)
{
	struct ops *o = arg;
	char id[32];

	snprintf(id, sizeof(id), "%" PRId64, r->hostid);
	sbuf_addstr(o->b, "<tr><td>");
	ops_esc(o->b, r->name);
	sbuf_addstr(o->b, "</td><td>");
	if (r->hostid)
		ops_linkf(o, *r->host_name ? r->host_name : id, "host?id=%" PRId64, r->hostid);
	sbuf_addf(o->b, "</td><td>%s</td><td>%s</td><td class=\"num\">%d</td><td>",
		  ops_result_state(r->server_state, r->outcome, r->validate_state),
		  ops_validate_why(r->validate_why), r->exit_status);
	ops_time(o->b, r->sent_time);
	sbuf_addstr(o->b, "</td><td>");
	ops_time(o->b, r->received_time);
	sbuf_addstr(o->b, "</td><td><code>");
	ops_esc(o->b, r->stderr_head);
	sbuf_addstr(o->b, "</code></td></tr>\n");
	return 0;
}

static void wu_facts(struct ops *o, const struct db_workunit *wu)
{
	sbuf_addstr(o->b, "<table id=\"wu\">\n<tr><th>State</th><td>");
	if (wu->error_mask & WU_ERROR_CANCELLED)
		sbuf_addstr(o->b, "cancelled");
	else if (wu->error_mask)
		sbuf_addf(o->b, "failed (error_mask %d)", wu->error_mask);
	else if (wu->canonical_resultid)
		sbuf_addstr(o->b, "done");
	else
		sbuf_addstr(o->b, "in progress");
	sbuf_addf(o->b, "</td></tr>\n<tr><th>Assimilate state</th><td>%d</td></tr>\n"
			"<tr><th>Created</th><td>", wu->assimilate_state);
	ops_time(o->b, wu->create_time);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>Next transition</th><td>");
	ops_time(o->b, wu->transition_time < (int64_t)1 << 61 ? wu->transition_time : 0);
	sbuf_addstr(o->b, "</td></tr>\n");
	if (wu->batch) {
		sbuf_addstr(o->b, "<tr><th>Batch</th><td>");
		ops_linkf(o, "batch", "batch?id=%" PRId64, wu->batch);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	if (wu->seq_id) {
		sbuf_addf(o->b, "<tr><th>Sequence</th><td>segment %d of branch %d of ", wu->seqno,
			  wu->branch);
		ops_linkf(o, "its sequence", "seq?id=%" PRId64, wu->seq_id);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	sbuf_addstr(o->b, "</table>\n");
}

void ops_workunit(struct ops *o)
{
	struct db_workunit wu = { 0 };
	struct sbuf title = SBUF_INIT(512);
	int64_t id;
	int rc;

	if (!ops_id_param(o, "id", &id))
		goto out;
	rc = o->c->db ? db_workunit_lookup_id(o->c->db, id, &wu) : DB_ERROR;
	if (rc == DB_NOT_FOUND) {
		ops_message(o, 404, "Not found", "There is no workunit with that id.");
		goto out;
	}
	if (rc != DB_OK) {
		ops_db_failed(o, "workunit");
		goto out;
	}
	sbuf_addstr(&title, "Workunit ");
	sbuf_addstr(&title, wu.name);
	ops_start(o, sbuf_str(&title));
	wu_facts(o, &wu);
	if (!wu.error_mask && !wu.canonical_resultid)
		ops_cancel_form(o, "wu", wu.id, wu.seq_id ? "Cancel its sequence" :
				"Cancel this workunit");
	if (!wu.error_mask && wu.assimilate_state != ASSIMILATE_DONE)
		ops_revalidate_form(o, wu.id);
	sbuf_addstr(o->b, "<h2>Results</h2>\n<table id=\"wu_results\">\n<tr><th>Result</th>"
			  "<th>Host</th><th>State</th><th>Verdict rests on</th><th>Exit</th>"
			  "<th>Sent</th><th>Received</th><th>stderr</th></tr>\n");
	if (db_ops_wu_results(o->c->db, id, WU_RESULTS, result_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"8\" class=\"error\">cannot be read</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	sbuf_release(&title);
	db_workunit_release(&wu);
}

/* ---- cancel ---- */

static const struct {
	const char *what, *noun, *page;
	enum cancel_rc (*fn)(struct db *, int64_t, const char *, struct cancel_count *);
} kinds[] = {
	{ "wu", "workunit", "wu", cancel_workunit },
	{ "seq", "sequence", "seq", cancel_sequence },
	{ "batch", "batch", "batch", cancel_batch },
};

static void cancel_done(struct ops *o, size_t k, int64_t id, enum cancel_rc rc,
			const struct cancel_count *n)
{
	char rel[64];

	ops_start(o, rc == CANCEL_OK ? "Cancelled" : "Nothing to cancel");
	sbuf_addf(o->b, "<p class=\"message\" id=\"outcome\">%s %" PRId64 ": ", kinds[k].noun, id);
	if (rc == CANCEL_OK)
		sbuf_addf(o->b, "cancelled: %" PRId64 " workunits and %" PRId64 " sequences; %" PRId64
				" unsent results will not be sent; hosts are told to abort %" PRId64
				" segments in progress.", n->workunits, n->sequences, n->results, n->aborted);
	else
		sbuf_addstr(o->b, "it had already finished, failed or been cancelled; nothing changed.");
	sbuf_addstr(o->b, "</p>\n<p>");
	snprintf(rel, sizeof(rel), "%s?id=%" PRId64, kinds[k].page, id);
	ops_link(o, rel, "Back to it");
	sbuf_addstr(o->b, "</p>\n");
	ops_end(o);
}

void ops_cancel_post(struct ops *o)
{
	const char *what = web_param(o->r, "what");
	struct cancel_count n = { 0 };
	struct sbuf why = SBUF_INIT(CANCEL_WHY_MAX + 64);
	enum cancel_rc rc;
	int64_t id;
	size_t k;

	if (!ops_post_ok(o))
		goto out;
	for (k = 0; what && k < ARRAY_SIZE(kinds); k++)
		if (!strcmp(what, kinds[k].what))
			break;
	if (!what || k == ARRAY_SIZE(kinds)) {
		ops_message(o, 400, "Bad request", "what is one of wu, seq and batch.");
		goto out;
	}
	if (!ops_id_param(o, "id", &id))
		goto out;
	if (!o->c->db) {
		ops_db_failed(o, "cancel");
		goto out;
	}
	sbuf_addstr(&why, "cancelled by admin ");
	sbuf_addstr(&why, o->admin.name ? o->admin.name : "?");
	rc = kinds[k].fn(o->c->db, id, sbuf_str(&why), &n);
	if (rc == CANCEL_NOT_FOUND) {
		ops_message(o, 404, "Not found", "There is nothing with that id to cancel.");
	} else if (rc == CANCEL_ERROR) {
		ops_db_failed(o, "cancel");
	} else {
		log_info("ops: admin %s cancelled %s %" PRId64 ": %s (%" PRId64 " workunits, %" PRId64
			 " sequences, %" PRId64 " unsent results, %" PRId64 " segments to abort)",
			 ops_who(o), kinds[k].noun, id, rc == CANCEL_OK ? "done" : "nothing left to do",
			 n.workunits, n.sequences, n.results, n.aborted);
		cancel_done(o, k, id, rc, &n);
	}
out:
	sbuf_release(&why);
}
