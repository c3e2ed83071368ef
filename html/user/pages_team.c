/*
 * Teams: the list (by recent average credit, or found by name), a team's
 * page with its members, and founding, joining and leaving one.
 */
#include "pages.h"
#include "db.h"
#include "db_web.h"
#include "log.h"

#define TEAMS_PER_PAGE 20
#define MEMBERS_SHOWN 100

static int team_row(struct db_team *t, void *arg)
{
	struct page_rows *rs = arg;
	struct sbuf *b = &rs->p->o->body;

	sbuf_addstr(b, "<tr><td><a href=\"");
	page_url(rs->p, "");
	sbuf_addf(b, "team?id=%" PRId64 "\">", t->id);
	web_html(b, t->name);
	sbuf_addf(b, "</a></td><td class=\"num\">%d</td><td class=\"num\">", t->nusers);
	page_num(b, t->total_credit);
	sbuf_addstr(b, "</td><td class=\"num\">");
	page_num(b, t->expavg_credit);
	sbuf_addstr(b, "</td></tr>\n");
	rs->n++;
	return 0;
}

void page_teams(struct page *p)
{
	struct sbuf *b = &p->o->body;
	const char *search = web_param(p->r, "search");
	int64_t off = page_id_param(p, "offset");
	struct page_rows rs = { p, 0 };

	if (search && (!*search || strlen(search) > 254))
		search = NULL;
	if (off > 1000000)
		off = 1000000;
	page_start(p, "Teams");
	sbuf_addstr(b, "<form method=\"get\" action=\"");
	page_url(p, "teams");
	sbuf_addstr(b, "\"><label for=\"search\">Find a team by name</label> <input id=\"search\" "
		       "name=\"search\" type=\"search\" value=\"");
	web_html(b, search ? search : "");
	sbuf_addstr(b, "\"> <button type=\"submit\">Search</button></form>\n");
	sbuf_addstr(b, "<table class=\"teams\">\n<tr><th>Team</th><th>Members</th><th>Credit</th>"
		       "<th>Recent average</th></tr>\n");
	if (!p->c->db || db_web_teams(p->c->db, search, (long)off, TEAMS_PER_PAGE, team_row, &rs) != DB_OK)
		log_error("teams page: the teams cannot be read");
	if (!rs.n)
		sbuf_addstr(b, "<tr><td colspan=\"4\">No team found.</td></tr>\n");
	sbuf_addstr(b, "</table>\n<p class=\"paging\">");
	if (rs.n == TEAMS_PER_PAGE) {
		sbuf_addstr(b, "<a href=\"");
		page_url(p, "");
		sbuf_addf(b, "teams?offset=%" PRId64 "&amp;search=", off + TEAMS_PER_PAGE);
		web_urlencode(b, search ? search : "");
		sbuf_addstr(b, "\">More</a>");
	}
	sbuf_addstr(b, "</p>\n");
	if (p->user.id) {
		sbuf_addstr(b, "<p><a href=\"");
		page_url(p, "team_create");
		sbuf_addstr(b, "\">Found a team</a></p>\n");
	}
	page_end(p);
}

static int member_row(struct db_user *u, void *arg)
{
	struct page_rows *rs = arg;
	struct sbuf *b = &rs->p->o->body;

	sbuf_addstr(b, "<tr><td><a href=\"");
	page_url(rs->p, "");
	sbuf_addf(b, "show_user.php?userid=%" PRId64 "\">", u->id);
	web_html(b, u->name);
	sbuf_addstr(b, "</a></td><td class=\"num\">");
	page_num(b, u->total_credit);
	sbuf_addstr(b, "</td><td class=\"num\">");
	page_num(b, u->expavg_credit);
	sbuf_addstr(b, "</td></tr>\n");
	rs->n++;
	return 0;
}

static void post_button(struct page *p, const char *action, int64_t id, const char *label)
{
	struct sbuf *b = &p->o->body;

	sbuf_addstr(b, "<form method=\"post\" action=\"");
	page_url(p, action);
	sbuf_addstr(b, "\">");
	page_csrf_field(p);
	sbuf_addf(b, "<input type=\"hidden\" name=\"id\" value=\"%" PRId64 "\">"
		     "<button type=\"submit\">", id);
	web_html(b, label);
	sbuf_addstr(b, "</button></form>\n");
}

void page_team(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct db_team t = { 0 };
	struct db_user founder = { 0 };
	struct page_rows rs = { p, 0 };
	int64_t id = page_id_param(p, "id");

	if (!p->c->db || !id || db_team_lookup_id(p->c->db, id, &t) != DB_OK) {
		page_message(p, 404, "No such team", "There is no team with that number.");
		db_team_release(&t);
		return;
	}
	page_start(p, t.name);
	sbuf_addstr(b, "<table class=\"facts\">\n<tr><th>Founded by</th><td>");
	if (t.userid && db_user_lookup_id(p->c->db, t.userid, &founder) == DB_OK)
		web_html(b, founder.name);
	else
		sbuf_addstr(b, "&mdash;");
	sbuf_addstr(b, "</td></tr>\n<tr><th>Created</th><td>");
	page_time(b, t.create_time);
	sbuf_addf(b, "</td></tr>\n<tr><th>Members</th><td>%d</td></tr>\n<tr><th>Total credit</th><td>",
		  t.nusers);
	page_num(b, t.total_credit);
	sbuf_addstr(b, "</td></tr>\n<tr><th>Recent average credit</th><td>");
	page_num(b, t.expavg_credit);
	sbuf_addstr(b, " a day</td></tr>\n");
	if (*t.url) {
		sbuf_addstr(b, "<tr><th>Web site</th><td>");
		web_html(b, t.url);
		sbuf_addstr(b, "</td></tr>\n");
	}
	sbuf_addstr(b, "</table>\n");
	if (*t.description) {
		sbuf_addstr(b, "<p class=\"description\">");
		web_html(b, t.description);
		sbuf_addstr(b, "</p>\n");
	}
	if (p->user.id && p->user.teamid == t.id)
		post_button(p, "team_leave", t.id, "Leave this team");
	else if (p->user.id && t.joinable)
		post_button(p, "team_join", t.id, "Join this team");
	sbuf_addstr(b, "<h2>Members</h2>\n<table class=\"members\">\n<tr><th>Name</th><th>Credit</th>"
		       "<th>Recent average</th></tr>\n");
	if (db_web_team_members(p->c->db, t.id, MEMBERS_SHOWN, member_row, &rs) != DB_OK)
		log_error("team page: the members of team %" PRId64 " cannot be read", t.id);
	sbuf_addstr(b, "</table>\n");
	page_end(p);
	db_team_release(&t);
	db_user_release(&founder);
}

static void create_form(struct page *p, const char *error)
{
	struct sbuf *b = &p->o->body;
	static const char *const fields[][3] = {
		{ "Team name", "name", "text" },
		{ "Web site (optional)", "url", "url" },
		{ "Country (optional)", "country", "text" },
	};
	size_t i;

	if (error)
		p->o->status = 400;
	page_start(p, "Found a team");
	if (error) {
		sbuf_addstr(b, "<p class=\"error\">");
		web_html(b, error);
		sbuf_addstr(b, "</p>\n");
	}
	sbuf_addstr(b, "<form method=\"post\" action=\"");
	page_url(p, "team_create");
	sbuf_addstr(b, "\">\n");
	page_csrf_field(p);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		const char *v = web_param(p->r, fields[i][1]);

		sbuf_addf(b, "<p><label for=\"%s\">%s</label><br><input id=\"%s\" name=\"%s\" "
			     "type=\"%s\" value=\"", fields[i][1], fields[i][0], fields[i][1],
			  fields[i][1], fields[i][2]);
		web_html(b, v ? v : "");
		sbuf_addf(b, "\"%s></p>\n", i == 0 ? " required" : "");
	}
	sbuf_addstr(b, "<p><label for=\"description\">Description (optional)</label><br>"
		       "<textarea id=\"description\" name=\"description\" rows=\"4\">");
	web_html(b, web_param(p->r, "description"));
	sbuf_addstr(b, "</textarea></p>\n<p><button type=\"submit\">Found the team</button></p>\n"
		       "</form>\n");
	page_end(p);
}

static const char *opt(const struct page *p, const char *name)
{
	const char *v = web_param(p->r, name);

	return v ? v : "";
}

void page_team_create(struct page *p)
{
	struct team_new n = { 0 };
	struct db_team t = { 0 };
	struct account_error e;
	char rel[64];

	if (!page_need_user(p) || !page_form_post(p, create_form))
		return;
	n.name = opt(p, "name");
	n.url = opt(p, "url");
	n.country = opt(p, "country");
	n.description = opt(p, "description");
	if (team_create(p->c->db, p->user.id, &n, &t, &e) != ACCT_OK) {
		create_form(p, e.msg);
	} else {
		snprintf(rel, sizeof(rel), "team?id=%" PRId64, t.id);
		page_redirect(p, rel);
	}
	db_team_release(&t);
}

static void change_team(struct page *p, bool join)
{
	struct account_error e;
	int64_t id = page_id_param(p, "id");
	char rel[64];

	if (!page_need_user(p) || !page_post_ok(p))
		return;
	if (join && !id) {
		page_message(p, 400, "Join a team", "Which team? (no team number was sent)");
		return;
	}
	if (!join && p->user.teamid != id) {
		page_message(p, 400, "Leave a team", "You are not a member of that team.");
		return;
	}
	if (team_join(p->c->db, p->user.id, join ? id : 0, &e) != ACCT_OK) {
		page_message(p, e.num == ACCT_ERR_NOT_FOUND ? 404 : 400, "Teams", e.msg);
		return;
	}
	snprintf(rel, sizeof(rel), "team?id=%" PRId64, id);
	page_redirect(p, rel);
}

void page_team_join(struct page *p)
{
	change_team(p, true);
}

void page_team_leave(struct page *p)
{
	change_team(p, false);
}
