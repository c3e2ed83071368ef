/*
 * Recent errors: the results over whose deadline fell in the last days
 * (?days=N, 1 to 365, default 7) -- by outcome; those in error by app,
 * outcome and exit status, and by host; those judged invalid (or waiting
 * on a check that could not tell) by app and what the verdict rests on
 * (validate_why), each count a link to the list of those results
 * (invalid?days=N&app=A&why=W); and the latest errors.
 */
#include "ops.h"
#include "db_daemons.h"
#include "db_ops.h"
#include "log.h"
#include "wtime.h"

#define GROUPS_MAX 100
#define LATEST_MAX 50

struct counts {
	struct db_ops_count v[GROUPS_MAX];
	size_t n;
};

static int take_count(struct db_ops_count *c, void *arg)
{
	struct counts *l = arg;

	if (l->n == GROUPS_MAX)
		return 1;
	l->v[l->n++] = *c;
	return 0;
}

struct app_names {
	int64_t id[1000];
	char *name[1000];
	size_t n;
};

static int take_app(struct db_app *a, void *arg)
{
	struct app_names *l = arg;

	if (l->n == ARRAY_SIZE(l->id))
		return 1;
	l->id[l->n] = a->id;
	l->name[l->n++] = a->name;
	a->name = NULL;
	return 0;
}

static const char *app_name(const struct app_names *l, int64_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return l->name[i];
	return "?";
}

static void by_outcome(struct ops *o, const struct counts *c)
{
	int64_t total = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		total += c->v[i].n;
	sbuf_addstr(o->b, "<table id=\"outcomes\">\n<tr><th>Outcome</th><th>Results</th><th>Share</th></tr>\n");
	for (i = 0; i < c->n; i++) {
		sbuf_addf(o->b, "<tr><td class=\"%s\">%s</td><td class=\"num\">",
			  c->v[i].a == RESULT_OUTCOME_SUCCESS ? "ok" : "bad",
			  ops_outcome_name((int)c->v[i].a));
		ops_int(o->b, c->v[i].n);
		sbuf_addf(o->b, "</td><td class=\"num\">%.1f%%</td></tr>\n",
			  total ? 100.0 * (double)c->v[i].n / (double)total : 0);
	}
	if (!c->n)
		sbuf_addstr(o->b, "<tr><td colspan=\"3\" class=\"dim\">No result ended.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
}

static void by_app(struct ops *o, const struct counts *c, const struct app_names *apps)
{
	size_t i;

	sbuf_addstr(o->b, "<h2>Errors by app, outcome and exit status</h2>\n<table id=\"by_app\">\n"
			  "<tr><th>App</th><th>Outcome</th><th>Exit status</th><th>Results</th></tr>\n");
	for (i = 0; i < c->n; i++) {
		sbuf_addstr(o->b, "<tr><td>");
		ops_esc(o->b, app_name(apps, c->v[i].a));
		sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%" PRId64 "</td><td class=\"num\">",
			  ops_outcome_name((int)c->v[i].b), c->v[i].c);
		ops_int(o->b, c->v[i].n);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	if (!c->n)
		sbuf_addstr(o->b, "<tr><td colspan=\"4\" class=\"dim\">No errors.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
}

static void by_host(struct ops *o, const struct counts *c)
{
	size_t i;

	sbuf_addstr(o->b, "<h2>Errors by host</h2>\n<table id=\"by_host\">\n<tr><th>Host</th>"
			  "<th>Name</th><th>Outcome</th><th>Results</th></tr>\n");
	for (i = 0; i < c->n; i++) {
		struct db_host h = { 0 };
		char id[32];

		snprintf(id, sizeof(id), "%" PRId64, c->v[i].a);
		sbuf_addstr(o->b, "<tr><td>");
		if (c->v[i].a)
			ops_linkf(o, id, "host?id=%" PRId64, c->v[i].a);
		else
			sbuf_addstr(o->b, "none");
		sbuf_addstr(o->b, "</td><td>");
		if (c->v[i].a && db_host_lookup_id(o->c->db, c->v[i].a, &h) == DB_OK)
			ops_esc(o->b, h.domain_name);
		db_host_release(&h);
		sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">", ops_outcome_name((int)c->v[i].b));
		ops_int(o->b, c->v[i].n);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	if (!c->n)
		sbuf_addstr(o->b, "<tr><td colspan=\"4\" class=\"dim\">No errors.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
}

static void by_why(struct ops *o, const struct counts *c, const struct app_names *apps, long days)
{
	size_t i;

	sbuf_addstr(o->b, "<h2>Invalid results by check outcome</h2>\n<table id=\"by_why\">\n"
			  "<tr><th>App</th><th>Verdict rests on</th><th>Results</th></tr>\n");
	for (i = 0; i < c->n; i++) {
		char n[32];

		snprintf(n, sizeof(n), "%" PRId64, c->v[i].n);
		sbuf_addstr(o->b, "<tr><td>");
		ops_esc(o->b, app_name(apps, c->v[i].a));
		sbuf_addf(o->b, "</td><td class=\"%s\">%s</td><td class=\"num\">",
			  c->v[i].b == VALIDATE_WHY_CHECK_RETRY ? "dim" : "bad",
			  ops_validate_why((int)c->v[i].b));
		ops_linkf(o, n, "invalid?days=%ld&app=%" PRId64 "&why=%" PRId64, days, c->v[i].a,
			  c->v[i].b);
		sbuf_addstr(o->b, "</td></tr>\n");
	}
	if (!c->n)
		sbuf_addstr(o->b, "<tr><td colspan=\"3\" class=\"dim\">No invalid results.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
}

/* A result's row begins: its name (to its workunit's page), its host (to the host's). */
static void result_row_start(struct ops *o, const struct db_ops_result *r)
{
	char id[32];

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, r->name, "wu?id=%" PRId64, r->workunitid);
	sbuf_addstr(o->b, "</td><td>");
	if (r->hostid) {
		snprintf(id, sizeof(id), "%" PRId64, r->hostid);
		ops_linkf(o, *r->host_name ? r->host_name : id, "host?id=%" PRId64, r->hostid);
	}
}

static int latest_row(struct db_ops_result *r, void *arg)
{
	struct ops *o = arg;

	result_row_start(o, r);
	sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%d</td><td>",
		  ops_outcome_name(r->outcome), r->exit_status);
	ops_time(o->b, r->received_time ? r->received_time : r->report_deadline);
	sbuf_addstr(o->b, "</td><td><code>");
	ops_esc(o->b, r->stderr_head);
	sbuf_addstr(o->b, "</code></td></tr>\n");
	return 0;
}

void ops_errors(struct ops *o)
{
	struct counts *c = xcalloc(4, sizeof(*c));
	struct app_names *apps = xcalloc(1, sizeof(*apps));
	struct db *db = o->c->db;
	long days;
	int64_t since;
	size_t i;

	if (!ops_num_param(o, "days", 1, 365, 7, &days))
		goto out;
	since = now() - days * 86400L;
	if (!db || db_ops_outcomes_since(db, since, take_count, &c[0]) != DB_OK ||
	    db_ops_errors_by_app(db, since, GROUPS_MAX, take_count, &c[1]) != DB_OK ||
	    db_ops_errors_by_host(db, since, GROUPS_MAX, take_count, &c[2]) != DB_OK ||
	    db_ops_invalid_by_why(db, since, GROUPS_MAX, take_count, &c[3]) != DB_OK ||
	    db_app_enum_all(db, take_app, apps) != DB_OK) {
		ops_db_failed(o, "errors");
		goto out;
	}
	ops_start(o, "Recent errors");
	sbuf_addf(o->b, "<p>Results that ended with a report deadline in the last %ld days "
			"(", days);
	ops_link(o, "errors?days=1", "1 day");
	sbuf_addstr(o->b, ", ");
	ops_link(o, "errors?days=7", "7");
	sbuf_addstr(o->b, ", ");
	ops_link(o, "errors?days=30", "30");
	sbuf_addstr(o->b, ").</p>\n");
	by_outcome(o, &c[0]);
	by_app(o, &c[1], apps);
	by_host(o, &c[2]);
	by_why(o, &c[3], apps, days);
	sbuf_addf(o->b, "<h2>The latest %d errors</h2>\n<table id=\"latest\">\n<tr><th>Result</th>"
			"<th>Host</th><th>Outcome</th><th>Exit</th><th>Reported or due</th><th>stderr</th>"
			"</tr>\n", LATEST_MAX);
	if (db_ops_recent_errors(db, since, LATEST_MAX, latest_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"6\" class=\"error\">cannot be read</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	for (i = 0; i < apps->n; i++)
		free(apps->name[i]);
	free(apps);
	free(c);
}

/* ---- invalid?days=N&app=A&why=W: the results behind a count of by_why ---- */

static int invalid_row(struct db_ops_result *r, void *arg)
{
	struct ops *o = arg;

	result_row_start(o, r);
	sbuf_addf(o->b, "</td><td>%s</td><td>",
		  ops_result_state(r->server_state, r->outcome, r->validate_state));
	ops_time(o->b, r->received_time ? r->received_time : r->report_deadline);
	sbuf_addstr(o->b, "</td></tr>\n");
	return 0;
}

void ops_invalid(struct ops *o)
{
	struct app_names *apps = xcalloc(1, sizeof(*apps));
	struct sbuf title = SBUF_INIT(512);
	long days, why;
	int64_t appid;
	size_t i, mark;

	if (!ops_num_param(o, "days", 1, 365, 7, &days) || !ops_id_param(o, "app", &appid) ||
	    !ops_num_param(o, "why", VALIDATE_WHY_NONE, VALIDATE_WHY_CHECK_RETRY, -1, &why))
		goto out;
	if (why < 0) {
		ops_message(o, 400, "Bad request", "why (what a verdict rests on, 0 to 6) is missing.");
		goto out;
	}
	if (!o->c->db || db_app_enum_all(o->c->db, take_app, apps) != DB_OK) {
		ops_db_failed(o, "invalid");
		goto out;
	}
	sbuf_addstr(&title, "Invalid results: ");
	sbuf_addstr(&title, app_name(apps, appid));
	ops_start(o, sbuf_str(&title));
	sbuf_addf(o->b, "<p>Results of this app whose report deadline fell in the last %ld days, "
			"judged invalid, or waiting, because: <b>%s</b> (the latest %d). ", days,
		  ops_validate_why((int)why), LATEST_MAX);
	ops_linkf(o, "Back to the errors", "errors?days=%ld", days);
	sbuf_addstr(o->b, "</p>\n<table id=\"invalid\">\n<tr><th>Result</th><th>Host</th>"
			  "<th>State</th><th>Reported or due</th></tr>\n");
	mark = o->b->len;
	if (db_ops_invalid_results(o->c->db, now() - days * 86400L, appid, (int)why, LATEST_MAX,
				   invalid_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"4\" class=\"error\">cannot be read</td></tr>\n");
	ops_none_row(o, mark, 4);
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	for (i = 0; i < apps->n; i++)
		free(apps->name[i]);
	free(apps);
	sbuf_release(&title);
}
