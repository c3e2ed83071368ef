/*
 * The project preferences page (upstream's prefs_edit.php?subset=project):
 * one venue's block at a time -- the default, home, school or work -- of
 * user.project_prefs in upstream's XML (lib/prefs.h): the applications
 * selected and "send others", the resources this project may use (the CPU
 * and each GPU type the project has versions for), the resource share,
 * beta work (if an app is beta), and the project's own text when the admin
 * defines one (project_specific_prefs.xml in the project directory). The
 * scheduler obeys them on the host's next RPC (sched/sched_prefs.c).
 */
#include "pages.h"
#include "config.h"
#include "db.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_status.h"
#include "fileutil.h"
#include "log.h"
#include "prefs.h"
#include "web_host.h"
#include "web_plan.h"
#include "wtime.h"
#include "xml.h"

#include <math.h>
#include <unistd.h>

/* What the form offers: the apps, the resources with versions, beta, the project's text. */
struct prefs_offer {
	struct db_app *apps;
	size_t napps;
	bool rsc[PREFS_NRSC];
	bool beta;
	char *specific;         /* the admin's default text (NULL: the project has none) */
};

DB_ROWS_TAKER(take_app, struct db_app)

static int take_version(struct db_status_version *v, void *arg)
{
	struct prefs_offer *o = ((void **)arg)[0];
	const struct plan_classes *pcs = ((void **)arg)[1];
	enum web_plan_state st;
	const char *r = web_plan_resource(pcs, v->plan_class, NULL, &st);
	static const char *const names[PREFS_OTHER] = { "CPU", "NVIDIA", "ATI", "intel_gpu",
						       "apple_gpu" };
	int i;

	if (r && st != WEB_PLAN_UNDEFINED) {
		for (i = 0; i < PREFS_OTHER && strcmp(r, names[i]); i++)
			;
		o->rsc[i] = true;       /* PREFS_OTHER: a coprocessor of another type */
	}
	return DB_OK;           /* the record stays the enumerator's */
}

static void offer_release(struct prefs_offer *o)
{
	size_t i;

	for (i = 0; i < o->napps; i++)
		db_app_release(&o->apps[i]);
	free(o->apps);
	free(o->specific);
	memset(o, 0, sizeof(*o));
}

static int offer_read(struct page *p, struct prefs_offer *o)
{
	struct db_rows rows = DB_ROWS(o->apps, o->napps, 0);
	void *arg[2] = { o, (void *)web_plan_classes(p->c) };
	char *path = xasprintf("%s/project_specific_prefs.xml", p->c->cfg->project_dir);
	struct sbuf text = SBUF_INIT(PREFS_SPECIFIC_MAX);
	size_t i;
	int rc;

	memset(o, 0, sizeof(*o));
	o->rsc[PREFS_CPU] = true;
	rc = db_app_enum_all(p->c->db, take_app, &rows);
	if (rc == DB_OK)
		rc = db_status_versions(p->c->db, take_version, arg);
	for (i = 0; i < o->napps; i++)
		o->beta = o->beta || (o->apps[i].beta && !o->apps[i].deprecated);
	/* the admin's project-specific text: shown only when the project has one */
	if (access(path, R_OK) == 0 && read_file(path, PREFS_SPECIFIC_MAX, &text) == 0)
		o->specific = xstrdup(sbuf_str(&text));
	sbuf_release(&text);
	free(path);
	return rc;
}

static const char *venue_param(struct page *p)
{
	const char *v = web_param(p->r, "venue");

	return v && prefs_venue_ok(v) ? v : NULL;
}

static int venue_index(const char *v)
{
	int i;

	for (i = 0; prefs_venues[i] && strcmp(prefs_venues[i], v); i++)
		;
	return i;
}

static const char *venue_label(int i)
{
	static const char *const l[] = { "Default", "Home", "School", "Work" };

	return l[i];
}

static void checkbox(struct sbuf *b, const char *name, bool on, const char *label)
{
	sbuf_addf(b, "<label><input type=\"checkbox\" name=\"%s\" value=\"1\"%s> ", name,
		  on ? " checked" : "");
	web_html(b, label);
	sbuf_addstr(b, "</label><br>\n");
}

/* A labelled text input that may be left empty (page_field_row's are required). */
static void text_row(struct sbuf *b, const char *label, const char *name, const char *value)
{
	sbuf_addf(b, "<p><label for=\"%s\">", name);
	web_html(b, label);
	sbuf_addf(b, "</label><br><input id=\"%s\" name=\"%s\" type=\"text\" value=\"", name,
		  name);
	web_html(b, value);
	sbuf_addstr(b, "\"></p>\n");
}

/* Links to the page of each venue (subset: "project" or "global"), this one in bold. */
static void venue_links(struct page *p, const char *subset, int cur)
{
	struct sbuf *b = &p->o->body;
	char rel[80];
	int i;

	sbuf_addstr(b, "<p class=\"venues\">Venue: ");
	for (i = 0; i < 4; i++) {
		if (i == cur) {
			sbuf_addf(b, "<strong>%s</strong> ", venue_label(i));
			continue;
		}
		snprintf(rel, sizeof(rel), "prefs_edit.php?subset=%s&venue=%s", subset,
			 prefs_venues[i]);
		sbuf_addstr(b, "<a href=\"");
		page_url(p, rel);
		sbuf_addf(b, "\">%s</a> ", venue_label(i));
	}
	sbuf_addstr(b, "</p>\n");
}

static void apps_fields(struct page *p, const struct prefs_offer *o, const struct prefs_project *v)
{
	struct sbuf *b = &p->o->body;
	char name[40];
	size_t i;

	sbuf_addstr(b, "<fieldset><legend>Applications</legend>\n<p class=\"hint\">Ticked: the "
		       "applications this venue's computers run. All ticked: every application, "
		       "new ones too.</p>\n");
	for (i = 0; i < o->napps; i++) {
		const struct db_app *a = &o->apps[i];

		if (a->deprecated)
			continue;
		snprintf(name, sizeof(name), "app_%" PRId64, a->id);
		checkbox(b, name, prefs_project_selected(v, a->id),
			 *a->user_friendly_name ? a->user_friendly_name : a->name);
	}
	checkbox(b, "allow_others", v->allow_others,
		 "If no work for the selected applications is available, accept work from "
		 "other applications");
	sbuf_addstr(b, "</fieldset>\n");
}

static void rsc_fields(struct page *p, const struct prefs_offer *o, const struct prefs_project *v)
{
	struct sbuf *b = &p->o->body;
	char name[32];
	int r;

	sbuf_addstr(b, "<fieldset><legend>Resources</legend>\n<p class=\"hint\">What this "
		       "project may use on this venue's computers.</p>\n");
	for (r = 0; r < PREFS_NRSC; r++) {
		if (!o->rsc[r] && !v->no_rsc[r])
			continue;
		snprintf(name, sizeof(name), "use_%s", prefs_rsc_tag(r) + 3);
		checkbox(b, name, !v->no_rsc[r], prefs_rsc_label(r));
	}
	sbuf_addstr(b, "</fieldset>\n");
}

static void prefs_form(struct page *p, const char *error)
{
	struct sbuf *b = &p->o->body;
	const char *venue = venue_param(p);
	struct prefs_offer o;
	struct prefs_project v[4];
	bool have[4];
	struct sbuf err = SBUF_INIT(512);
	char share[32] = "";
	int vi;

	if (!venue) {
		page_message(p, 400, "Project preferences", "No such venue: a venue is home, "
			     "school, work, or empty for the default.");
		return;
	}
	vi = venue_index(venue);
	if (!p->c->db || offer_read(p, &o) != DB_OK) {
		if (p->c->db)
			offer_release(&o);
		page_message(p, 503, "Project preferences", "The project's database is not "
			     "available; please try again later.");
		return;
	}
	if (prefs_project_parse_all(p->user.project_prefs, v, have, &err) < 0)
		log_warn("prefs page: user %" PRId64 ": stored prefs unreadable: %s", p->user.id,
			 sbuf_str(&err));
	if (error)
		p->o->status = 400;
	page_start(p, "Project preferences");
	page_error_para(p, error);
	venue_links(p, "project", vi);
	if (!have[vi])
		sbuf_addstr(b, "<p class=\"hint\">This venue has no preferences of its own: its "
			       "computers use the default ones, shown here. Saving gives it its own."
			       "</p>\n");
	if (!have[vi])
		vi = 0;
	page_form_start(p, "prefs_edit.php");
	sbuf_addstr(b, "<input type=\"hidden\" name=\"subset\" value=\"project\">\n"
		       "<input type=\"hidden\" name=\"venue\" value=\"");
	web_html(b, venue);
	sbuf_addstr(b, "\">\n");
	if (v[vi].resource_share >= 0)
		snprintf(share, sizeof(share), "%g", v[vi].resource_share);
	text_row(b, "Resource share (empty: the project's default, 100)", "resource_share", share);
	rsc_fields(p, &o, &v[vi]);
	apps_fields(p, &o, &v[vi]);
	if (o.beta) {
		sbuf_addstr(b, "<fieldset><legend>Beta work</legend>\n");
		checkbox(b, "allow_beta", v[vi].allow_beta, "Run test applications and versions");
		sbuf_addstr(b, "</fieldset>\n");
	}
	if (o.specific) {
		sbuf_addstr(b, "<fieldset><legend>This project's own settings (XML)</legend>\n"
			       "<textarea name=\"specific\" rows=\"6\" cols=\"60\">");
		web_html(b, v[vi].specific ? v[vi].specific : o.specific);
		sbuf_addstr(b, "</textarea></fieldset>\n");
	}
	sbuf_addstr(b, "<p><button type=\"submit\">Save</button></p>\n</form>\n");
	page_end(p);
	for (vi = 0; vi < 4; vi++)
		prefs_project_release(&v[vi]);
	offer_release(&o);
	sbuf_release(&err);
}

static bool on(struct page *p, const char *name)
{
	const char *v = web_param(p->r, name);

	return v && *v && strcmp(v, "0");
}

/* The project's own text: elements that read back inside <project_specific>. */
static const char *specific_from(const char *text, char **out)
{
	char *doc = xasprintf("<project_preferences><project_specific>%s</project_specific>"
			      "</project_preferences>", text);
	struct prefs_project t;
	struct sbuf err = SBUF_INIT(512);
	const char *why = NULL;

	*out = NULL;
	if (prefs_project_parse(doc, "", &t, &err) < 0)
		why = "The project's own settings must be well-formed XML elements of at most "
		      "4096 bytes.";
	else
		*out = t.specific ? xstrdup(t.specific) : NULL;
	prefs_project_release(&t);
	sbuf_release(&err);
	free(doc);
	return why;
}

/* The venue's new block from the form; NULL, or what is wrong. */
static const char *from_form(struct page *p, const struct prefs_offer *o, struct prefs_project *n)
{
	const char *share = web_param(p->r, "resource_share");
	char name[40], *end;
	size_t i, nsel = 0, nlive = 0;
	int r;

	prefs_project_init(n);
	if (share && *share) {
		double d = strtod(share, &end);

		if (*end || !isfinite(d) || d < 0 || d > 100000)
			return "The resource share must be a number from 0 to 100000.";
		n->resource_share = d;
	}
	for (r = 0; r < PREFS_NRSC; r++) {
		snprintf(name, sizeof(name), "use_%s", prefs_rsc_tag(r) + 3);
		n->no_rsc[r] = o->rsc[r] && !on(p, name);
	}
	for (i = 0; i < o->napps; i++) {
		if (o->apps[i].deprecated)
			continue;
		nlive++;
		snprintf(name, sizeof(name), "app_%" PRId64, o->apps[i].id);
		if (on(p, name) && n->napps < PREFS_MAX_APPS)
			n->apps[n->napps++] = o->apps[i].id;
	}
	nsel = n->napps;
	if (nlive && !nsel)
		return "Select at least one application.";
	if (nsel == nlive)
		n->napps = 0;   /* every application, new ones too */
	n->allow_others = on(p, "allow_others");
	n->allow_beta = o->beta && on(p, "allow_beta");
	if (o->specific && web_param(p->r, "specific"))
		return specific_from(web_param(p->r, "specific"), &n->specific);
	return NULL;
}

struct prefs_store {
	int64_t userid;
	int venue;
	struct prefs_project *block;
};

/* The other venues' blocks as stored, this one replaced, in one transaction. */
static int store_txn(struct db *db, void *arg)
{
	struct prefs_store *s = arg;
	struct db_user u = { 0 };
	struct prefs_project v[4];
	const struct prefs_project *w[4] = { NULL };
	struct sbuf doc = SBUF_INIT(PREFS_MAX_BYTES), err = SBUF_INIT(512);
	bool have[4] = { false };
	int i, rc = db_user_lock(db, s->userid, &u);

	for (i = 0; i < 4; i++)
		prefs_project_init(&v[i]);
	if (rc == DB_OK && prefs_project_parse_all(u.project_prefs, v, have, &err) < 0)
		log_warn("prefs page: user %" PRId64 ": unreadable prefs replaced: %s", u.id,
			 sbuf_str(&err));
	for (i = 0; rc == DB_OK && i < 4; i++)
		w[i] = i == s->venue ? s->block : have[i] || i == 0 ? &v[i] : NULL;
	if (rc == DB_OK) {
		prefs_project_write(&doc, w);
		free(u.project_prefs);
		u.project_prefs = xstrdup(sbuf_str(&doc));
		rc = db_user_update(db, &u);
	}
	for (i = 0; i < 4; i++)
		prefs_project_release(&v[i]);
	db_user_release(&u);
	sbuf_release(&doc);
	sbuf_release(&err);
	return rc;
}

static void project_post(struct page *p)
{
	const char *venue = venue_param(p), *why;
	struct prefs_project n;
	struct prefs_offer o;
	struct prefs_store s;
	char rel[64];

	if (!venue) {
		prefs_form(p, NULL);
		return;
	}
	if (offer_read(p, &o) != DB_OK) {
		offer_release(&o);
		prefs_form(p, "The project's database is not available; please try again later.");
		return;
	}
	if ((why = from_form(p, &o, &n)) != NULL) {
		prefs_form(p, why);
	} else {
		s = (struct prefs_store){ p->user.id, venue_index(venue), &n };
		if (db_txn_run(p->c->db, store_txn, &s) != DB_OK) {
			prefs_form(p, "The preferences could not be saved; please try again later.");
		} else {
			log_info("prefs page: user %" PRId64 ": project prefs of venue '%s' saved",
				 p->user.id, venue);
			snprintf(rel, sizeof(rel), "prefs_edit.php?subset=project&venue=%s", venue);
			page_redirect(p, rel);
		}
	}
	prefs_project_release(&n);
	offer_release(&o);
}

/* ---- computing preferences (subset=global) ---- */

static bool global_subset(struct page *p)
{
	const char *s = web_param(p->r, "subset");

	return s && !strcmp(s, "global");
}

static void global_form(struct page *p, const char *error)
{
	struct sbuf *b = &p->o->body, err = SBUF_INIT(512);
	const char *venue = venue_param(p);
	struct prefs_global v[4];
	bool have[4];
	char val[64];
	int vi, i;

	if (!venue) {
		page_message(p, 400, "Computing preferences", "No such venue: a venue is home, "
			     "school, work, or empty for the default.");
		return;
	}
	vi = venue_index(venue);
	if (prefs_global_parse_all(p->user.global_prefs, v, have, &err) < 0)
		log_warn("prefs page: user %" PRId64 ": computing prefs unreadable: %s", p->user.id,
			 sbuf_str(&err));
	if (error)
		p->o->status = 400;
	page_start(p, "Computing preferences");
	page_error_para(p, error);
	venue_links(p, "global", vi);
	sbuf_addstr(b, "<p class=\"hint\">They apply to all the projects your computers "
		       "run: the BOINC client takes the newest a project sends.</p>\n");
	if (!have[vi])
		sbuf_addstr(b, "<p class=\"hint\">This venue has no preferences of its own: its "
			       "computers use the default ones, shown here. Saving gives it its own."
			       "</p>\n");
	if (!have[vi])
		vi = 0;
	page_form_start(p, "prefs_edit.php");
	sbuf_addstr(b, "<input type=\"hidden\" name=\"subset\" value=\"global\">\n"
		       "<input type=\"hidden\" name=\"venue\" value=\"");
	web_html(b, venue);
	sbuf_addstr(b, "\">\n");
	for (i = 0; i < PREFS_GLOBAL_NFIELDS; i++) {
		const struct prefs_global_field *f = &prefs_global_fields[i];

		if (f->flag) {
			char name[48];

			snprintf(name, sizeof(name), "%s", f->tag);
			checkbox(b, name, v[vi].v[i] != 0, f->label);
		} else {
			snprintf(val, sizeof(val), "%g", v[vi].v[i]);
			text_row(b, f->label, f->tag, val);
		}
	}
	sbuf_addstr(b, "<p><button type=\"submit\">Save</button></p>\n</form>\n");
	page_end(p);
	sbuf_release(&err);
}

static const char *global_from_form(struct page *p, struct prefs_global *g)
{
	static char why[160];
	int i;

	for (i = 0; i < PREFS_GLOBAL_NFIELDS; i++) {
		const struct prefs_global_field *f = &prefs_global_fields[i];
		const char *s = web_param(p->r, f->tag);
		char *end;
		double d;

		if (f->flag) {          /* a checkbox: absent is off */
			g->v[i] = on(p, f->tag);
			continue;
		}
		if (!s || !*s) {
			g->v[i] = f->def;
			continue;
		}
		d = strtod(s, &end);
		if (*end || !isfinite(d) || d < f->min || d > f->max) {
			snprintf(why, sizeof(why), "\"%s\" must be a number from %g to %g.", f->label,
				 f->min, f->max);
			return why;
		}
		g->v[i] = d;
	}
	return NULL;
}

struct global_store {
	int64_t userid;
	int venue;
	const struct prefs_global *block;
};

/* The other venues kept, this one replaced, mod_time now: the newest copy the clients see. */
static int global_txn(struct db *db, void *arg)
{
	struct global_store *s = arg;
	struct db_user u = { 0 };
	struct prefs_global v[4];
	const struct prefs_global *w[4] = { NULL };
	struct sbuf doc = SBUF_INIT(PREFS_MAX_BYTES), err = SBUF_INIT(512);
	bool have[4] = { false };
	int i, rc = db_user_lock(db, s->userid, &u);

	if (rc == DB_OK && prefs_global_parse_all(u.global_prefs, v, have, &err) < 0)
		log_warn("prefs page: user %" PRId64 ": unreadable computing prefs replaced: %s",
			 u.id, sbuf_str(&err));
	for (i = 0; rc == DB_OK && i < 4; i++)
		w[i] = i == s->venue ? s->block : have[i] || i == 0 ? &v[i] : NULL;
	if (rc == DB_OK) {
		prefs_global_write(&doc, floor(dnow()), w);
		rc = db_user_set_global_prefs(db, u.id, sbuf_str(&doc));
	}
	db_user_release(&u);
	sbuf_release(&doc);
	sbuf_release(&err);
	return rc;
}

static void global_post(struct page *p)
{
	const char *venue = venue_param(p), *why;
	struct prefs_global g;
	struct global_store s;
	char rel[64];

	if (!venue) {
		global_form(p, NULL);
		return;
	}
	if ((why = global_from_form(p, &g)) != NULL) {
		global_form(p, why);
		return;
	}
	s = (struct global_store){ p->user.id, venue_index(venue), &g };
	if (db_txn_run(p->c->db, global_txn, &s) != DB_OK) {
		global_form(p, "The preferences could not be saved; please try again later.");
		return;
	}
	log_info("prefs page: user %" PRId64 ": computing prefs of venue '%s' saved", p->user.id,
		 venue);
	snprintf(rel, sizeof(rel), "prefs_edit.php?subset=global&venue=%s", venue);
	page_redirect(p, rel);
}

void page_prefs_edit(struct page *p)
{
	bool global = global_subset(p);

	if (!page_need_user(p) || !page_form_post(p, global ? global_form : prefs_form))
		return;
	if (global)
		global_post(p);
	else
		project_post(p);
}
