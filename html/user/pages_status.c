/*
 * The project's state, for people and for monitoring tools: server_status
 * (an HTML page; with ?xml=1 the XML BOINC's server_status.php?xml=1 gives,
 * with ?counts=1 its <job_counts>) and apps (the applications and their
 * current versions per platform). Whether a daemon runs is what bin/status
 * says (daemon_proc.h); every count is one indexed query (db_status.h).
 * Tasks in progress are also counted per resource -- CPU, NVIDIA, ATI, ... --
 * from one GROUP BY of their versions' plan classes, each class's resource
 * from plan_class_spec.xml (web_plan.h): a task without a version, or of a
 * class the file does not define, counts as CPU.
 * With the database down the status page still answers: the daemons, and
 * the counters left out (see doc/server_status.md).
 */
#include "pages.h"
#include "config.h"
#include "daemon_proc.h"
#include "db_status.h"
#include "log.h"
#include "web_host.h"
#include "web_plan.h"
#include "wtime.h"
#include "xml_write.h"

#define MAX_APPS 1000
#define MAX_VERSIONS 10000
#define MAX_RSC 64

/* Tasks in progress per resource: CPU first, then each resource a class of the file names. */
struct rsc_counts {
	const struct plan_classes *pcs;
	struct {
		const char *rsc;        /* "CPU" or the classes' own string */
		int64_t in_progress;
	} v[MAX_RSC];
	size_t n;
};

struct app_list {
	struct db_status_app *v;
	size_t n;
};

struct version_list {
	struct db_status_version *v;
	size_t n;
};

static int take_app(struct db_status_app *a, void *arg)
{
	struct app_list *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, MAX_APPS);

	return db_rows_take(a, &rows);
}

static void apps_release(struct app_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].user_friendly_name);
	}
	free(l->v);
}

static int take_version(struct db_status_version *v, void *arg)
{
	struct version_list *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, MAX_VERSIONS);

	return db_rows_take(v, &rows);
}

static void versions_release(struct version_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].plan_class);
		free(l->v[i].platform);
	}
	free(l->v);
}

static bool flag_param(const struct page *p, const char *name)
{
	const char *v = web_param(p->r, name);

	return v && *v && strcmp(v, "0");
}

static void rsc_add(struct rsc_counts *t, const char *rsc, int64_t n)
{
	size_t i;

	for (i = 0; i < t->n && strcmp(t->v[i].rsc, rsc); i++)
		;
	if (i == t->n) {
		if (t->n == MAX_RSC) {
			log_warn("server status: more than %d resources, %s left out", MAX_RSC, rsc);
			return;
		}
		t->v[t->n].rsc = rsc;
		t->v[t->n++].in_progress = 0;
	}
	t->v[i].in_progress += n;
}

static void rsc_init(struct page *p, struct rsc_counts *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->pcs = web_plan_classes(p->c);
	rsc_add(t, "CPU", 0);
	for (i = 0; i < t->pcs->n; i++)
		rsc_add(t, plan_class_resource(&t->pcs->v[i]), 0);
}

static int take_class(struct db_status_class *c, void *arg)
{
	struct rsc_counts *t = arg;

	rsc_add(t, web_plan_resource(t->pcs, c->plan_class, NULL, NULL), c->in_progress);
	return 0;
}

/* What the daemons and the database say; false when the database cannot be read. */
static bool status_read(struct page *p, struct db_status *s, struct app_list *apps,
			struct rsc_counts *rsc)
{
	memset(s, 0, sizeof(*s));
	rsc_init(p, rsc);
	if (!p->c->db)
		return false;
	if (db_status_counts(p->c->db, (int64_t)now() - 86400, s) != DB_OK ||
	    db_status_apps(p->c->db, take_app, apps) != DB_OK ||
	    db_status_in_progress_by_class(p->c->db, take_class, rsc) != DB_OK) {
		log_error("server status: the database cannot be read");
		memset(s, 0, sizeof(*s));
		return false;
	}
	return true;
}

static double backlog_hours(const struct db_status *s)
{
	int64_t t = now();

	return s->min_transition_time > 0 && s->min_transition_time < t
		? (double)(t - s->min_transition_time) / 3600 : 0;
}

/* A cobblestone is 1/200 of a day at 1 GFLOPS: recent average credit / 200 is GFLOPS. */
static double gigaflops(const struct db_status *s)
{
	return s->users_expavg_credit / 200;
}

static const char *daemon_status(const struct proc_daemon *d)
{
	if (d->cd->disabled)
		return "disabled";
	return d->state == PROC_RUNNING ? "running" : "not running";
}

/* Call fn for each daemon of config.xml, its state read from its pid file. */
static void each_daemon(struct page *p, void (*fn)(struct page *, const char *host,
						   const struct proc_daemon *))
{
	const struct project_config *cfg = p->c->cfg;
	char host[256] = "localhost";
	size_t i;

	if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	for (i = 0; i < cfg->ndaemons; i++) {
		struct proc_daemon d;

		if (proc_daemon_init(cfg, &cfg->daemons[i], &d) == 0) {
			proc_daemon_probe(&d);
			fn(p, host, &d);
		}
		proc_daemon_release(&d);
	}
}

/* ---- XML ---- */

static void xml_daemon(struct page *p, const char *host, const struct proc_daemon *d)
{
	struct sbuf *b = &p->o->body;

	sbuf_addstr(b, "    <daemon>\n");
	xml_elem_str(b, 8, "host", host);
	xml_elem_str(b, 8, "command", d->name);
	xml_elem_str(b, 8, "status", daemon_status(d));
	sbuf_addstr(b, "    </daemon>\n");
}

static void xml_job_counts(struct sbuf *b, const struct db_status *s)
{
	xml_elem_i64(b, 4, "results_ready_to_send", s->results_ready_to_send);
	xml_elem_i64(b, 4, "results_in_progress", s->results_in_progress);
	xml_elem_i64(b, 4, "results_need_file_delete", s->results_need_file_delete);
	xml_elem_i64(b, 4, "wus_need_validate", s->wus_need_validate);
	xml_elem_i64(b, 4, "wus_need_assimilate", s->wus_need_assimilate);
	xml_elem_i64(b, 4, "wus_need_file_delete", s->wus_need_file_delete);
}

static void xml_resources(struct sbuf *b, const struct rsc_counts *t)
{
	size_t i;

	sbuf_addstr(b, "    <tasks_by_resource>\n");
	for (i = 0; i < t->n; i++) {
		sbuf_addstr(b, "        <resource>\n");
		xml_elem_str(b, 12, "name", t->v[i].rsc);
		xml_elem_i64(b, 12, "in_progress", t->v[i].in_progress);
		sbuf_addstr(b, "        </resource>\n");
	}
	sbuf_addstr(b, "    </tasks_by_resource>\n");
}

static void xml_counters(struct sbuf *b, const struct db_status *s, const struct app_list *apps)
{
	size_t i;

	xml_elem_i64(b, 4, "results_ready_to_send", s->results_ready_to_send);
	xml_elem_i64(b, 4, "results_in_progress", s->results_in_progress);
	xml_elem_i64(b, 4, "workunits_waiting_for_validation", s->wus_need_validate);
	xml_elem_i64(b, 4, "workunits_waiting_for_assimilation", s->wus_need_assimilate);
	xml_elem_i64(b, 4, "workunits_waiting_for_deletion", s->wus_need_file_delete);
	xml_elem_i64(b, 4, "results_waiting_for_deletion", s->results_need_file_delete);
	sbuf_addf(b, "    <transitioner_backlog_hours>%.2f</transitioner_backlog_hours>\n",
		  backlog_hours(s));
	xml_elem_i64(b, 4, "users_with_recent_credit", s->users_with_recent_credit);
	xml_elem_i64(b, 4, "users_with_credit", s->users_with_credit);
	xml_elem_i64(b, 4, "users_registered_in_past_24_hours", s->users_registered_recently);
	xml_elem_i64(b, 4, "hosts_with_recent_credit", s->hosts_with_recent_credit);
	xml_elem_i64(b, 4, "hosts_with_credit", s->hosts_with_credit);
	xml_elem_i64(b, 4, "hosts_registered_in_past_24_hours", s->hosts_registered_recently);
	sbuf_addf(b, "    <current_floating_point_speed>%.2f</current_floating_point_speed>\n",
		  gigaflops(s));
	xml_elem_i64(b, 4, "sequences_in_progress", s->sequences_in_progress);
	sbuf_addstr(b, "    <tasks_by_app>\n");
	for (i = 0; i < apps->n; i++) {
		sbuf_addf(b, "        <app>\n            <id>%" PRId64 "</id>\n            <name>",
			  apps->v[i].id);
		web_html(b, apps->v[i].name);
		sbuf_addf(b, "</name>\n            <unsent>%" PRId64 "</unsent>\n"
			     "            <in_progress>%" PRId64 "</in_progress>\n        </app>\n",
			  apps->v[i].unsent, apps->v[i].in_progress);
	}
	sbuf_addstr(b, "    </tasks_by_app>\n");
}

static void status_xml(struct page *p, bool job_counts_only)
{
	struct sbuf *b = &p->o->body;
	struct app_list apps = { 0 };
	struct rsc_counts rsc;
	struct db_status s;
	bool db_ok;

	p->o->content_type = "text/xml; charset=utf-8";
	sbuf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	if (job_counts_only) {
		db_ok = p->c->db && db_status_job_counts(p->c->db, &s) == DB_OK;
		sbuf_addstr(b, "<job_counts>\n");
		if (db_ok)
			xml_job_counts(b, &s);
		else
			log_error("server status: the job counts cannot be read");
		sbuf_addstr(b, "</job_counts>\n");
		return;
	}
	db_ok = status_read(p, &s, &apps, &rsc);
	sbuf_addstr(b, "<server_status>\n<daemon_status>\n");
	each_daemon(p, xml_daemon);
	sbuf_addstr(b, "</daemon_status>\n<database_file_states>\n");
	if (db_ok) {
		xml_counters(b, &s, &apps);
		xml_resources(b, &rsc);
	}
	sbuf_addstr(b, "</database_file_states>\n</server_status>\n");
	apps_release(&apps);
}

/* ---- HTML ---- */

static void html_daemon(struct page *p, const char *host, const struct proc_daemon *d)
{
	struct sbuf *b = &p->o->body;
	const char *st = daemon_status(d);

	sbuf_addstr(b, "<tr><td>");
	web_html(b, d->name);
	sbuf_addstr(b, "</td><td>");
	web_html(b, host);
	sbuf_addf(b, "</td><td class=\"%s\">%s%s</td></tr>\n",
		  d->cd->disabled ? "disabled" : d->state == PROC_RUNNING ? "running" : "not-running",
		  st, d->cd->disabled && d->state == PROC_RUNNING ? ", but running" : "");
}

static void fact_int(struct sbuf *b, const char *label, int64_t v)
{
	sbuf_addf(b, "<tr><th>%s</th><td class=\"num\">", label);
	page_int(b, v);
	sbuf_addstr(b, "</td></tr>\n");
}

static void fact_num(struct sbuf *b, const char *label, double v, const char *unit)
{
	sbuf_addf(b, "<tr><th>%s</th><td class=\"num\">", label);
	page_num(b, v);
	sbuf_addf(b, "%s</td></tr>\n", unit);
}

static void html_counters(struct sbuf *b, const struct db_status *s)
{
	sbuf_addstr(b, "<h2>Work</h2>\n<table class=\"facts\">\n");
	fact_int(b, "Tasks ready to send", s->results_ready_to_send);
	fact_int(b, "Tasks in progress", s->results_in_progress);
	fact_int(b, "Sequences in progress", s->sequences_in_progress);
	fact_int(b, "Workunits waiting for validation", s->wus_need_validate);
	fact_int(b, "Workunits waiting for assimilation", s->wus_need_assimilate);
	fact_int(b, "Workunits waiting for file deletion", s->wus_need_file_delete);
	fact_int(b, "Tasks waiting for file deletion", s->results_need_file_delete);
	fact_num(b, "Transitioner backlog", backlog_hours(s), " hours");
	sbuf_addstr(b, "</table>\n<h2>Volunteers</h2>\n<table class=\"facts\">\n");
	fact_int(b, "Users with recent credit", s->users_with_recent_credit);
	fact_int(b, "Users with credit", s->users_with_credit);
	fact_int(b, "Users who joined in the past 24 hours", s->users_registered_recently);
	fact_int(b, "Computers with recent credit", s->hosts_with_recent_credit);
	fact_int(b, "Computers with credit", s->hosts_with_credit);
	fact_int(b, "Computers added in the past 24 hours", s->hosts_registered_recently);
	fact_num(b, "Recent average credit", s->users_expavg_credit, " a day");
	fact_num(b, "Computing power", gigaflops(s), " GigaFLOPS");
	sbuf_addstr(b, "</table>\n");
}

static void html_apps(struct page *p, const struct app_list *apps)
{
	struct sbuf *b = &p->o->body;
	size_t i;

	sbuf_addstr(b, "<h2>Tasks by application</h2>\n<table class=\"apps\">\n<tr><th>Application"
		       "</th><th>Ready to send</th><th>In progress</th></tr>\n");
	for (i = 0; i < apps->n; i++) {
		sbuf_addstr(b, "<tr><td>");
		web_html(b, *apps->v[i].user_friendly_name ? apps->v[i].user_friendly_name
							    : apps->v[i].name);
		sbuf_addstr(b, "</td><td class=\"num\">");
		page_int(b, apps->v[i].unsent);
		sbuf_addstr(b, "</td><td class=\"num\">");
		page_int(b, apps->v[i].in_progress);
		sbuf_addstr(b, "</td></tr>\n");
	}
	if (!apps->n)
		sbuf_addstr(b, "<tr><td colspan=\"3\">No application yet.</td></tr>\n");
	sbuf_addstr(b, "</table>\n");
}

static void html_resources(struct sbuf *b, const struct rsc_counts *t)
{
	size_t i;

	sbuf_addstr(b, "<h2>Tasks in progress by resource</h2>\n<table class=\"resources\">\n"
		       "<tr><th>Resource</th><th>In progress</th></tr>\n");
	for (i = 0; i < t->n; i++) {
		sbuf_addstr(b, "<tr><td>");
		web_html(b, web_rsc_label(t->v[i].rsc));
		sbuf_addstr(b, "</td><td class=\"num\">");
		page_int(b, t->v[i].in_progress);
		sbuf_addstr(b, "</td></tr>\n");
	}
	sbuf_addstr(b, "</table>\n");
}

static void status_html(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct app_list apps = { 0 };
	struct rsc_counts rsc;
	struct db_status s;
	bool db_ok = status_read(p, &s, &apps, &rsc);

	page_start(p, "Server status");
	sbuf_addstr(b, "<h2>Daemons</h2>\n");
	if (p->c->cfg->ndaemons) {
		sbuf_addstr(b, "<table class=\"daemons\">\n<tr><th>Program</th><th>Host</th>"
			       "<th>Status</th></tr>\n");
		each_daemon(p, html_daemon);
		sbuf_addstr(b, "</table>\n");
	} else {
		sbuf_addstr(b, "<p>The project runs no daemons.</p>\n");
	}
	if (db_ok) {
		html_counters(b, &s);
		html_apps(p, &apps);
		html_resources(b, &rsc);
	} else {
		sbuf_addstr(b, "<p class=\"error\">The database cannot be reached at the moment, "
			       "so the project's counts are not shown.</p>\n");
	}
	sbuf_addstr(b, "<p class=\"hint\">As of ");
	page_time(b, now());
	sbuf_addstr(b, ". For monitoring tools: <a href=\"");
	page_url(p, "server_status.php?xml=1");
	sbuf_addstr(b, "\">server_status.php?xml=1</a>.</p>\n");
	page_end(p);
	apps_release(&apps);
}

void page_server_status(struct page *p)
{
	if (flag_param(p, "counts"))
		status_xml(p, true);
	else if (flag_param(p, "xml"))
		status_xml(p, false);
	else
		status_html(p);
}

/* ---- apps ---- */

/* What a version runs on, for volunteers: "NVIDIA GPU"; of a class the file lacks, nothing. */
static void runs_on(struct sbuf *b, const struct plan_classes *pcs, const char *plan_class)
{
	enum web_plan_state st;
	const char *rsc = web_plan_resource(pcs, plan_class, NULL, &st);

	web_html(b, st == WEB_PLAN_UNDEFINED ? "not sent (no such plan class)" : web_rsc_label(rsc));
}

static void app_versions(struct page *p, int64_t appid, const struct version_list *vs,
			 const struct plan_classes *pcs)
{
	struct sbuf *b = &p->o->body;
	size_t i;
	int n = 0;

	sbuf_addstr(b, "<table class=\"versions\">\n<tr><th>Platform</th><th>Version</th>"
		       "<th>Plan class</th><th>Runs on</th><th>Released</th></tr>\n");
	for (i = 0; i < vs->n; i++) {
		const struct db_status_version *v = &vs->v[i];

		if (v->appid != appid)
			continue;
		sbuf_addstr(b, "<tr><td>");
		web_html(b, v->platform);
		sbuf_addf(b, "</td><td>%d.%02d</td><td>", v->version_num / 100, v->version_num % 100);
		web_html(b, v->plan_class);
		sbuf_addstr(b, "</td><td>");
		runs_on(b, pcs, v->plan_class);
		sbuf_addstr(b, "</td><td>");
		page_time(b, v->create_time);
		sbuf_addstr(b, "</td></tr>\n");
		n++;
	}
	if (!n)
		sbuf_addstr(b, "<tr><td colspan=\"5\">No version released yet.</td></tr>\n");
	sbuf_addstr(b, "</table>\n");
}

void page_apps(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct app_list apps = { 0 };
	struct version_list vs = { 0 };
	const struct plan_classes *pcs = web_plan_classes(p->c);
	size_t i;

	if (!p->c->db || db_status_apps(p->c->db, take_app, &apps) != DB_OK ||
	    db_status_versions(p->c->db, take_version, &vs) != DB_OK) {
		log_error("apps page: the applications cannot be read");
		page_message(p, 503, "Applications", "The list of applications cannot be read at "
			     "the moment. Please try again later.");
		goto out;
	}
	page_start(p, "Applications");
	sbuf_addstr(b, "<p>The programs this project runs on volunteers' computers, with their "
		       "current version for each platform. BOINC downloads the one that suits "
		       "your computer.</p>\n");
	for (i = 0; i < apps.n; i++) {
		const struct db_status_app *a = &apps.v[i];

		sbuf_addstr(b, "<section>\n<h2>");
		web_html(b, *a->user_friendly_name ? a->user_friendly_name : a->name);
		sbuf_addstr(b, "</h2>\n<p>");
		page_int(b, a->in_progress);
		sbuf_addstr(b, " tasks in progress, ");
		page_int(b, a->unsent);
		sbuf_addstr(b, " ready to send.</p>\n");
		app_versions(p, a->id, &vs, pcs);
		sbuf_addstr(b, "</section>\n");
	}
	if (!apps.n)
		sbuf_addstr(b, "<p>No application yet.</p>\n");
	page_end(p);
out:
	apps_release(&apps);
	versions_release(&vs);
}
