/*
 * Hosts: those that asked for work in the last days (?days=N, default 30),
 * latest first, with their CPUs and GPUs, error rate (results ended in
 * error of those ended), average turnaround and last RPC; and a page per
 * host with its resources (CPUs and GPUs, web_host.h), its reliability per
 * app version (host_app_version: what adaptive replication trusts), results
 * and sequences.
 */
#include "ops.h"
#include "db_ops.h"
#include "db_sched.h"
#include "log.h"
#include "web_host.h"
#include "wtime.h"

#define HOSTS_PER_PAGE 100
#define HOST_RESULTS 50
#define HOST_SEQS 50

/* A host's results: ended (over), in error, in progress, unsent. */
struct host_tally {
	int64_t over, errors, in_progress;
};

static int tally(struct db_ops_count *c, void *arg)
{
	struct host_tally *t = arg;

	if (c->a == RESULT_SERVER_STATE_IN_PROGRESS)
		t->in_progress += c->n;
	if (c->a != RESULT_SERVER_STATE_OVER || c->b == RESULT_OUTCOME_DIDNT_NEED)
		return 0;
	t->over += c->n;
	if (c->b != RESULT_OUTCOME_SUCCESS)
		t->errors += c->n;
	return 0;
}

static void error_rate(struct ops *o, const struct host_tally *t)
{
	double r = t->over ? (double)t->errors / (double)t->over : 0;

	sbuf_addf(o->b, "<td class=\"num %s\">", r > 0.1 ? "bad" : "");
	if (t->over)
		sbuf_addf(o->b, "%.1f%% <span class=\"dim\">(%" PRId64 "/%" PRId64 ")</span>", 100 * r,
			  t->errors, t->over);
	else
		sbuf_addstr(o->b, "-");
	sbuf_addstr(o->b, "</td>");
}

struct host_walk {
	struct ops *o;
	int n;
};

static void turnaround(struct ops *o, double t)
{
	if (t > 0)
		ops_duration(o->b, t);
	else
		sbuf_addstr(o->b, "-");
}

static int host_row(struct db_host *h, void *arg)
{
	struct host_walk *w = arg;
	struct ops *o = w->o;
	struct host_tally t = { 0 };
	char id[32];

	if (db_ops_host_counts(o->c->db, h->id, tally, &t) != DB_OK)
		return -1;
	snprintf(id, sizeof(id), "%" PRId64, h->id);
	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, id, "host?id=%" PRId64, h->id);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, h->domain_name);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, h->os_name);
	sbuf_addf(o->b, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>", h->p_ncpus,
		  h->p_ngpus);
	error_rate(o, &t);
	sbuf_addf(o->b, "<td class=\"num\">%" PRId64 "</td><td class=\"num\">", t.in_progress);
	turnaround(o, h->avg_turnaround);
	sbuf_addstr(o->b, "</td><td>");
	ops_time(o->b, h->rpc_time);
	sbuf_addstr(o->b, "</td></tr>\n");
	w->n++;
	return 0;
}

void ops_hosts(struct ops *o)
{
	struct host_walk w = { o, 0 };
	long days, offset;

	if (!ops_num_param(o, "days", 1, 3650, 30, &days) ||
	    !ops_num_param(o, "offset", 0, 100000000, 0, &offset))
		return;
	if (!o->c->db) {
		ops_db_failed(o, "hosts");
		return;
	}
	ops_start(o, "Hosts");
	sbuf_addf(o->b, "<p>Hosts that contacted the scheduler in the last %ld days, latest "
			"first. Error rate: results ended in error (client error, no reply, "
			"validate error, detached) of all ended.</p>\n", days);
	sbuf_addstr(o->b, "<table id=\"hosts\">\n<tr><th>Host</th><th>Name</th><th>OS</th>"
			  "<th>CPUs</th><th>GPUs</th><th>Error rate</th><th>In progress</th>"
			  "<th>Turnaround</th><th>Last RPC</th></tr>\n");
	if (db_ops_hosts_recent(o->c->db, now() - days * 86400L, offset, HOSTS_PER_PAGE, host_row,
				&w) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"9\" class=\"error\">cannot be read</td></tr>\n");
	else if (!w.n)
		sbuf_addstr(o->b, "<tr><td colspan=\"9\" class=\"dim\">none</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n<p>");
	if (offset)
		ops_linkf(o, "Newer", "hosts?days=%ld&offset=%ld", days,
			  offset > HOSTS_PER_PAGE ? offset - HOSTS_PER_PAGE : 0);
	sbuf_addstr(o->b, " ");
	if (w.n == HOSTS_PER_PAGE)
		ops_linkf(o, "Older", "hosts?days=%ld&offset=%ld", days, offset + HOSTS_PER_PAGE);
	sbuf_addstr(o->b, "</p>\n");
	ops_end(o);
}

/* ---- one host ---- */

static void fact(struct ops *o, const char *label, const char *value)
{
	sbuf_addf(o->b, "<tr><th>%s</th><td>", label);
	ops_esc(o->b, value);
	sbuf_addstr(o->b, "</td></tr>\n");
}

static void host_facts(struct ops *o, const struct db_host *h, const struct host_tally *t)
{
	struct db_user u = { 0 };

	sbuf_addstr(o->b, "<table id=\"host\">\n");
	fact(o, "Name", h->domain_name);
	sbuf_addstr(o->b, "<tr><th>Owner</th><td>");
	if (db_user_lookup_id(o->c->db, h->userid, &u) == DB_OK)
		ops_esc(o->b, u.name);
	db_user_release(&u);
	sbuf_addf(o->b, " (user %" PRId64 ")</td></tr>\n", h->userid);
	web_host_resources(o->b, h);
	fact(o, "OS", h->os_name);
	fact(o, "OS version", h->os_version);
	fact(o, "Last IP address", h->last_ip_addr);
	sbuf_addstr(o->b, "<tr><th>Created</th><td>");
	ops_time(o->b, h->create_time);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>Last RPC</th><td>");
	ops_time(o->b, h->rpc_time);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>Average turnaround</th><td>");
	turnaround(o, h->avg_turnaround);
	sbuf_addstr(o->b, "</td></tr>\n<tr><th>Error rate</th>");
	error_rate(o, t);
	sbuf_addf(o->b, "</tr>\n<tr><th>In progress</th><td>%" PRId64 "</td></tr>\n</table>\n",
		  t->in_progress);
}

static int result_row(struct db_ops_result *r, void *arg)
{
	struct ops *o = arg;

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, r->name, "wu?id=%" PRId64, r->workunitid);
	sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%d</td><td>",
		  ops_result_state(r->server_state, r->outcome, r->validate_state), r->exit_status);
	ops_time(o->b, r->sent_time);
	sbuf_addstr(o->b, "</td><td>");
	ops_time(o->b, r->received_time);
	sbuf_addstr(o->b, "</td></tr>\n");
	return 0;
}

static int seq_row(struct db_sequence *s, void *arg)
{
	struct ops *o = arg;

	sbuf_addstr(o->b, "<tr><td>");
	ops_linkf(o, s->name, "seq?id=%" PRId64, s->id);
	sbuf_addf(o->b, "</td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d</td></tr>\n",
		  ops_seq_state(s->state), s->branch, s->nrelocations);
	return 0;
}

/* One host_app_version row: its version's app, number and plan class, and the trust it earned. */
static int version_row(struct db_host_app_version *v, void *arg)
{
	struct ops *o = arg;
	struct db_app_version av = { 0 };
	struct db_app app = { 0 };
	bool have = db_app_version_lookup_id(o->c->db, v->app_version_id, &av) == DB_OK &&
		    db_app_lookup_id(o->c->db, av.appid, &app) == DB_OK;
	bool adaptive = have && app.target_nresults > 1;

	sbuf_addstr(o->b, "<tr><td>");
	ops_esc(o->b, have ? app.name : "?");
	sbuf_addf(o->b, "</td><td class=\"num\">%d.%02d</td><td>", av.version_num / 100,
		  av.version_num % 100);
	ops_esc(o->b, av.plan_class && *av.plan_class ? av.plan_class : "-");
	sbuf_addf(o->b, "</td><td class=\"num\">%" PRId64 "</td><td class=\"num\">%" PRId64
			"</td><td class=\"num%s\">%" PRId64 "</td><td class=\"num%s\">%" PRId64
			"</td><td class=\"num\">%" PRId64 "</td><td class=\"num%s\">%.1f%%</td>"
			"<td class=\"num\">", v->n_jobs, v->n_valid, v->n_invalid ? " bad" : "",
		  v->n_invalid, v->n_errors ? " bad" : "", v->n_errors, v->consecutive_valid,
		  v->error_rate > 0.1 ? " bad" : "", 100 * v->error_rate);
	turnaround(o, v->turnaround_avg);
	sbuf_addstr(o->b, "</td><td class=\"num\">");
	if (v->flops_avg > 0)
		sbuf_addf(o->b, "%.2f GFLOPS", v->flops_avg / 1e9);
	else
		sbuf_addstr(o->b, "-");
	if (!adaptive)
		sbuf_addstr(o->b, "</td><td class=\"dim\">no adaptive replication");
	else if (v->consecutive_valid >= app.trust_after)
		sbuf_addstr(o->b, "</td><td class=\"ok\">trusted");
	else
		sbuf_addf(o->b, "</td><td>not yet (%" PRId64 " more valid)",
			  (int64_t)app.trust_after - v->consecutive_valid);
	sbuf_addstr(o->b, "</td></tr>\n");
	db_app_version_release(&av);
	db_app_release(&app);
	return 0;
}

static void host_versions(struct ops *o, int64_t id)
{
	size_t mark;

	sbuf_addstr(o->b, "<h2>Reliability per app version</h2>\n<p>What each version's results "
			  "on this host showed. Error rate: a moving average of results not valid "
			  "(invalid, client error, missed deadline); consecutive valid results make a "
			  "host trusted for an app with adaptive replication (its target_nresults "
			  "&gt; 1) once they reach the app's trust_after.</p>\n"
			  "<table id=\"host_versions\">\n<tr><th>App</th><th>Version</th>"
			  "<th>Plan class</th><th>Jobs</th><th>Valid</th><th>Invalid</th>"
			  "<th>Errors</th><th>Consecutive valid</th><th>Error rate</th>"
			  "<th>Turnaround</th><th>Measured speed</th><th>Trusted</th></tr>\n");
	mark = o->b->len;
	if (db_hav_enum_host(o->c->db, id, version_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"12\" class=\"error\">cannot be read</td></tr>\n");
	ops_none_row(o, mark, 12);
	sbuf_addstr(o->b, "</table>\n");
}

void ops_host(struct ops *o)
{
	struct db_host h = { 0 };
	struct host_tally t = { 0 };
	int64_t id;
	char title[64];
	size_t mark;
	int rc;

	if (!ops_id_param(o, "id", &id))
		return;
	rc = o->c->db ? db_host_lookup_id(o->c->db, id, &h) : DB_ERROR;
	if (rc == DB_NOT_FOUND) {
		ops_message(o, 404, "Not found", "There is no host with that id.");
		goto out;
	}
	if (rc != DB_OK || db_ops_host_counts(o->c->db, id, tally, &t) != DB_OK) {
		ops_db_failed(o, "host");
		goto out;
	}
	snprintf(title, sizeof(title), "Host %" PRId64, id);
	ops_start(o, title);
	host_facts(o, &h, &t);
	host_versions(o, id);
	sbuf_addstr(o->b, "<h2>Sequences assigned to it now</h2>\n<table id=\"host_seqs\">\n"
			  "<tr><th>Sequence</th><th>State</th><th>Branch</th><th>Relocations</th></tr>\n");
	mark = o->b->len;
	db_ops_host_sequences(o->c->db, id, HOST_SEQS, seq_row, o);
	ops_none_row(o, mark, 4);
	sbuf_addf(o->b, "</table>\n<h2>Its latest %d results</h2>\n<table id=\"host_results\">\n"
			"<tr><th>Result</th><th>State</th><th>Exit</th><th>Sent</th><th>Received</th>"
			"</tr>\n", HOST_RESULTS);
	mark = o->b->len;
	if (db_ops_host_results(o->c->db, id, HOST_RESULTS, result_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"5\" class=\"error\">cannot be read</td></tr>\n");
	ops_none_row(o, mark, 5);
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	db_host_release(&h);
}
