/*
 * Apps and app versions: every app (deprecated ones too) with its flags
 * and its work waiting and out, and every version per platform with its
 * plan class, the resource it runs on and what it needs of a host, as
 * plan_class_spec.xml says (web_plan.h) -- or that the file does not
 * define its class, so the scheduler sends it to no host.
 */
#include "ops.h"
#include "db_daemons.h"
#include "db_ops.h"
#include "db_status.h"
#include "log.h"
#include "web_host.h"
#include "web_plan.h"

struct lists {
	struct db_app *apps;
	size_t napps;
	struct db_app_version *vs;
	size_t nvs;
	struct db_platform *ps;
	size_t nps;
	struct db_status_app *counts;
	size_t ncounts;
};

#define TAKE(fn, type, arr, n)                                          \
	static int fn(type *r, void *arg)                               \
	{                                                               \
		struct lists *l = arg;                                  \
		struct db_rows rows = DB_ROWS(l->arr, l->n, 10000);     \
		return db_rows_take(r, &rows);                          \
	}
TAKE(take_app, struct db_app, apps, napps)
TAKE(take_version, struct db_app_version, vs, nvs)
TAKE(take_platform, struct db_platform, ps, nps)
TAKE(take_count, struct db_status_app, counts, ncounts)

static void lists_release(struct lists *l)
{
	size_t i;

	for (i = 0; i < l->napps; i++)
		db_app_release(&l->apps[i]);
	for (i = 0; i < l->nvs; i++)
		db_app_version_release(&l->vs[i]);
	for (i = 0; i < l->nps; i++)
		db_platform_release(&l->ps[i]);
	for (i = 0; i < l->ncounts; i++) {
		free(l->counts[i].name);
		free(l->counts[i].user_friendly_name);
	}
	free(l->apps);
	free(l->vs);
	free(l->ps);
	free(l->counts);
}

static const char *platform_name(const struct lists *l, int64_t id)
{
	size_t i;

	for (i = 0; i < l->nps; i++)
		if (l->ps[i].id == id)
			return l->ps[i].name;
	return "?";
}

static void app_row(struct ops *o, const struct lists *l, const struct db_app *a)
{
	int64_t unsent = 0, inprog = 0;
	size_t i;

	for (i = 0; i < l->ncounts; i++)
		if (l->counts[i].id == a->id) {
			unsent = l->counts[i].unsent;
			inprog = l->counts[i].in_progress;
		}
	sbuf_addf(o->b, "<tr><td>%" PRId64 "</td><td>", a->id);
	ops_esc(o->b, a->name);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, a->user_friendly_name);
	sbuf_addf(o->b, "</td><td>%s</td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">",
		  a->is_seq_app ? "sequences" : a->any_executable ? "jobs with their own executable" :
		  "jobs", a->deprecated ? "deprecated" : "",
		  a->target_nresults);
	ops_int(o->b, unsent);
	sbuf_addstr(o->b, "</td><td class=\"num\">");
	ops_int(o->b, inprog);
	sbuf_addstr(o->b, "</td></tr>\n");
}

/* The plan class's cells: the class, the resource, what it needs. */
static void version_class(struct ops *o, const struct plan_classes *pcs, const char *name)
{
	const struct plan_class *pc;
	enum web_plan_state st;
	const char *rsc = web_plan_resource(pcs, name, &pc, &st);
	struct sbuf needs = SBUF_INIT(4096);

	ops_esc(o->b, name);
	if (st == WEB_PLAN_UNDEFINED) {
		sbuf_addstr(o->b, "</td><td>-</td><td class=\"bad undefined\">not defined in "
				  "plan_class_spec.xml: sent to no host");
		return;
	}
	if (pc)
		plan_class_describe(pc, &needs);
	sbuf_addstr(o->b, "</td><td class=\"rsc\">");
	ops_esc(o->b, web_rsc_label(rsc));
	sbuf_addstr(o->b, "</td><td class=\"needs\">");
	ops_esc(o->b, pc ? sbuf_str(&needs) : "1 CPU");
	sbuf_release(&needs);
}

static void version_row(struct ops *o, const struct lists *l, const struct plan_classes *pcs,
			const struct db_app_version *v)
{
	const char *app = "?";
	size_t i;

	for (i = 0; i < l->napps; i++)
		if (l->apps[i].id == v->appid)
			app = l->apps[i].name;
	sbuf_addstr(o->b, "<tr><td>");
	ops_esc(o->b, app);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, platform_name(l, v->platformid));
	sbuf_addf(o->b, "</td><td>%d.%02d</td><td>", v->version_num / 100, v->version_num % 100);
	version_class(o, pcs, v->plan_class);
	sbuf_addf(o->b, "</td><td>%s</td><td>", v->deprecated ? "deprecated" : "");
	ops_time(o->b, v->create_time);
	sbuf_addstr(o->b, "</td></tr>\n");
}

void ops_apps(struct ops *o)
{
	struct lists l = { 0 };
	struct db *db = o->c->db;
	const struct plan_classes *pcs = web_plan_classes(o->c);
	size_t i;

	if (!db || db_app_enum_all(db, take_app, &l) != DB_OK ||
	    db_ops_versions(db, take_version, &l) != DB_OK ||
	    db_ops_platforms(db, take_platform, &l) != DB_OK ||
	    db_status_apps(db, take_count, &l) != DB_OK) {
		ops_db_failed(o, "apps");
		goto out;
	}
	ops_start(o, "Apps and versions");
	sbuf_addstr(o->b, "<table id=\"apps\">\n<tr><th>Id</th><th>Name</th><th>Shown as</th>"
			  "<th>Work</th><th></th><th>Results a job</th><th>Unsent</th>"
			  "<th>In progress</th></tr>\n");
	for (i = 0; i < l.napps; i++)
		app_row(o, &l, &l.apps[i]);
	if (!l.napps)
		sbuf_addstr(o->b, "<tr><td colspan=\"8\" class=\"dim\">No app yet: see xadd.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n<h2>Versions</h2>\n<table id=\"versions\">\n<tr><th>App</th>"
			  "<th>Platform</th><th>Version</th><th>Plan class</th><th>Runs on</th>"
			  "<th>Needs</th><th></th><th>Released</th></tr>\n");
	for (i = 0; i < l.nvs; i++)
		version_row(o, &l, pcs, &l.vs[i]);
	if (!l.nvs)
		sbuf_addstr(o->b, "<tr><td colspan=\"8\" class=\"dim\">No version yet: see "
				  "update_versions.</td></tr>\n");
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
out:
	lists_release(&l);
}
