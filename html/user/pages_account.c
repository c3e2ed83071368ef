/*
 * An account of one's own: join, sign in and out, the account page, and
 * the pages of a user, a host and a list of results.
 */
#include "pages.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "db_web.h"
#include "field.h"
#include "log.h"
#include "passwd.h"
#include "web_host.h"
#include "wtime.h"

#define RESULTS_PER_PAGE 20
#define ACCOUNT_RESULTS 10

void page_field_row(struct page *p, const char *label, const char *name, const char *type,
		      const char *value, const char *autocomplete)
{
	struct sbuf *b = &p->o->body;

	sbuf_addf(b, "<p><label for=\"%s\">", name);
	web_html(b, label);
	sbuf_addf(b, "</label><br><input id=\"%s\" name=\"%s\" type=\"%s\" autocomplete=\"%s\"",
		  name, name, type, autocomplete);
	if (value) {
		sbuf_addstr(b, " value=\"");
		web_html(b, value);
		sbuf_addstr(b, "\"");
	}
	sbuf_addstr(b, " required></p>\n");
}

void page_form_start(struct page *p, const char *action)
{
	sbuf_addstr(&p->o->body, "<form method=\"post\" action=\"");
	page_url(p, action);
	sbuf_addstr(&p->o->body, "\">\n");
	page_csrf_field(p);
	sbuf_addstr(&p->o->body, "\n");
}

void page_error_para(struct page *p, const char *msg)
{
	if (!msg)
		return;
	sbuf_addstr(&p->o->body, "<p class=\"error\">");
	web_html(&p->o->body, msg);
	sbuf_addstr(&p->o->body, "</p>\n");
}

static void join_form(struct page *p, const char *error)
{
	const struct account_settings *a = p->c->acct;

	if (error)
		p->o->status = 400;
	page_start(p, "Join");
	page_error_para(p, error);
	if (p->c->cfg->disable_account_creation) {
		sbuf_addstr(&p->o->body, "<p>This project is not taking new accounts at the moment.</p>\n");
		page_end(p);
		return;
	}
	page_form_start(p, "join");
	page_field_row(p, "Name (shown on the project's pages)", "user_name", "text",
		  web_param(p->r, "user_name"), "nickname");
	page_field_row(p, "E-mail address", "email_addr", "email", web_param(p->r, "email_addr"), "email");
	sbuf_addf(&p->o->body, "<p class=\"hint\">Passwords have at least %ld characters.</p>\n",
		  a->min_passwd_length);
	page_field_row(p, "Password", "passwd", "password", NULL, "new-password");
	page_field_row(p, "Password again", "passwd2", "password", NULL, "new-password");
	if (a->invite_code && *a->invite_code)
		page_field_row(p, "Invitation code", "invite_code", "text", NULL, "off");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Create account</button></p>\n</form>\n");
	page_end(p);
}

/* The form again with the reason; too many attempts: 429. */
static void join_refused(struct page *p, const struct account_error *e)
{
	log_info("join [%s]: refused (%d)", p->r->remote_addr, e->num);
	join_form(p, e->msg);
	if (e->throttled)
		p->o->status = 429;
}

long page_chars(const char *s)
{
	long n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

void page_join(struct page *p)
{
	const char *pw = web_param(p->r, "passwd"), *pw2 = web_param(p->r, "passwd2");
	const char *email = web_param(p->r, "email_addr");
	struct account_new a = { 0 };
	struct account_error e;
	struct db_user u = { 0 };
	char h[PASSWD_HASH_HEX + 1];

	if (!page_form_post(p, join_form))
		return;
	if (!pw || !pw2 || !email || strcmp(pw, pw2)) {
		join_form(p, "The two passwords differ.");
		return;
	}
	passwd_hash_of(pw, email, h);
	a.email = email;
	a.passwd_hash = h;
	a.passwd_len = page_chars(pw);
	a.name = web_param(p->r, "user_name");
	a.invite_code = web_param(p->r, "invite_code");
	a.door = ACCT_DOOR_WEB;
	a.addr = p->r->remote_addr;
	if (!a.name)
		a.name = "";
	if (account_create(p->c->db, p->c->cfg, p->c->acct, &a, &u, &e) != ACCT_OK)
		join_refused(p, &e);
	else if (page_login(p, u.id) < 0)
		page_message(p, 500, "Join", "Your account was made, but signing in failed: please "
			     "sign in.");
	else
		page_redirect(p, "account");
	db_user_release(&u);
}

static void login_form(struct page *p, const char *error)
{
	if (error)
		p->o->status = 403;
	page_start(p, "Sign in");
	page_error_para(p, error);
	page_form_start(p, "login");
	page_field_row(p, "E-mail address", "email_addr", "email", web_param(p->r, "email_addr"), "email");
	page_field_row(p, "Password", "passwd", "password", NULL, "current-password");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Sign in</button></p>\n</form>\n"
				 "<p><a href=\"");
	page_url(p, "get_passwd.php");
	sbuf_addstr(&p->o->body, "\">Forgot your password?</a></p>\n");
	page_end(p);
}

void page_login_form(struct page *p)
{
	const char *email = web_param(p->r, "email_addr"), *pw = web_param(p->r, "passwd");
	struct account_error e;
	struct db_user u = { 0 };
	char h[PASSWD_HASH_HEX + 1];

	if (!page_form_post(p, login_form))
		return;
	if (!email || !pw) {
		login_form(p, "Please give your e-mail address and password.");
		return;
	}
	passwd_hash_of(pw, email, h);
	if (account_lookup(p->c->db, p->c->acct, p->r->remote_addr, email, h, &u, &e) != ACCT_OK) {
		log_info("login [%s]: refused (%d)", p->r->remote_addr, e.num);
		/* the same words for an unknown address and a wrong password */
		login_form(p, e.num == ACCT_ERR_DB || e.throttled ? e.msg :
			   "Wrong e-mail address or password.");
		if (e.throttled)
			p->o->status = 429;
	} else if (page_login(p, u.id) < 0) {
		login_form(p, "Signing in failed; please try again later.");
	} else {
		page_redirect(p, "account");
	}
	db_user_release(&u);
}

void page_logout_post(struct page *p)
{
	if (!page_post_ok(p))
		return;
	page_logout(p);
	page_redirect(p, "");
}

static const char *result_state(const struct db_result *r)
{
	if (r->server_state == RESULT_SERVER_STATE_UNSENT || r->server_state == RESULT_SERVER_STATE_INACTIVE)
		return "Waiting to be sent";
	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		return "In progress";
	switch (r->outcome) {
	case RESULT_OUTCOME_SUCCESS:
		return r->validate_state == VALIDATE_STATE_VALID ? "Completed and validated" :
		       r->validate_state == VALIDATE_STATE_INVALID ? "Completed, marked invalid" :
		       r->validate_state == VALIDATE_STATE_INCONCLUSIVE ? "Completed, inconclusive" :
		       r->validate_state == VALIDATE_STATE_TOO_LATE ? "Completed, too late to validate" :
		       "Completed, waiting for validation";
	case RESULT_OUTCOME_CLIENT_ERROR:
		return "Error while computing";
	case RESULT_OUTCOME_NO_REPLY:
		return "Timed out (no reply)";
	case RESULT_OUTCOME_DIDNT_NEED:
		return "Not needed";
	case RESULT_OUTCOME_VALIDATE_ERROR:
		return "Validate error";
	case RESULT_OUTCOME_CLIENT_DETACHED:
		return "Abandoned";
	default:
		return "Over";
	}
}

static int result_row(struct db_result *r, void *arg)
{
	struct page_rows *rs = arg;
	struct sbuf *b = &rs->p->o->body;

	sbuf_addstr(b, "<tr><td>");
	web_html(b, r->name);
	sbuf_addf(b, "</td><td><a href=\"");
	page_url(rs->p, "");
	sbuf_addf(b, "host?id=%" PRId64 "\">%" PRId64 "</a></td><td>", r->hostid, r->hostid);
	page_time(b, r->sent_time);
	sbuf_addstr(b, "</td><td>");
	web_html(b, result_state(r));
	sbuf_addstr(b, "</td><td class=\"num\">");
	page_num(b, r->granted_credit);
	sbuf_addstr(b, "</td></tr>\n");
	rs->n++;
	return 0;
}

static void results_table(struct page *p, int64_t userid, int64_t hostid, long offset, long n,
			  int *shown)
{
	struct page_rows rs = { p, 0 };
	int rc;

	sbuf_addstr(&p->o->body, "<table class=\"results\">\n<tr><th>Task</th><th>Host</th>"
				 "<th>Sent</th><th>State</th><th>Credit</th></tr>\n");
	rc = hostid ? db_web_host_results(p->c->db, hostid, offset, n, result_row, &rs)
		    : db_web_user_results(p->c->db, userid, offset, n, result_row, &rs);
	if (rc != DB_OK)
		log_error("results of user %" PRId64 " host %" PRId64 ": cannot read them", userid, hostid);
	if (!rs.n)
		sbuf_addstr(&p->o->body, "<tr><td colspan=\"5\">No tasks yet.</td></tr>\n");
	sbuf_addstr(&p->o->body, "</table>\n");
	*shown = rs.n;
}

static int host_row(struct db_host *h, void *arg)
{
	struct page_rows *rs = arg;
	struct sbuf *b = &rs->p->o->body;

	sbuf_addstr(b, "<tr><td><a href=\"");
	page_url(rs->p, "");
	sbuf_addf(b, "host?id=%" PRId64 "\">%" PRId64 "</a></td><td>", h->id, h->id);
	web_html(b, h->domain_name);
	sbuf_addstr(b, "</td><td>");
	web_html(b, h->p_model);
	sbuf_addstr(b, "</td><td>");
	web_html(b, h->os_name);
	sbuf_addstr(b, "</td><td class=\"num\">");
	page_num(b, h->total_credit);
	sbuf_addstr(b, "</td><td class=\"num\">");
	page_num(b, h->expavg_credit);
	sbuf_addstr(b, "</td><td>");
	page_time(b, h->rpc_time);
	sbuf_addstr(b, "</td></tr>\n");
	rs->n++;
	return 0;
}

static void credit_rows(struct sbuf *b, double total, double avg)
{
	sbuf_addstr(b, "<tr><th>Total credit</th><td>");
	page_num(b, total);
	sbuf_addstr(b, "</td></tr>\n<tr><th>Recent average credit</th><td>");
	page_num(b, avg);
	sbuf_addstr(b, " a day</td></tr>\n");
}

static void team_row(struct page *p, int64_t teamid)
{
	struct sbuf *b = &p->o->body;
	struct db_team t = { 0 };

	sbuf_addstr(b, "<tr><th>Team</th><td>");
	if (teamid && db_team_lookup_id(p->c->db, teamid, &t) == DB_OK) {
		sbuf_addstr(b, "<a href=\"");
		page_url(p, "");
		sbuf_addf(b, "team?id=%" PRId64 "\">", t.id);
		web_html(b, t.name);
		sbuf_addstr(b, "</a>");
	} else {
		sbuf_addstr(b, "none");
	}
	sbuf_addstr(b, "</td></tr>\n");
	db_team_release(&t);
}

void page_account(struct page *p)
{
	struct sbuf *b = &p->o->body;
	const struct db_user *u = &p->user;
	struct page_rows rs = { p, 0 };
	int shown;

	if (!page_need_user(p))
		return;
	page_start(p, "Your account");
	sbuf_addstr(b, "<table class=\"facts\">\n<tr><th>Name</th><td>");
	web_html(b, u->name);
	sbuf_addstr(b, "</td></tr>\n<tr><th>E-mail address</th><td>");
	web_html(b, u->email_addr);
	sbuf_addstr(b, "</td></tr>\n<tr><th>Member since</th><td>");
	page_time(b, u->create_time);
	sbuf_addstr(b, "</td></tr>\n");
	credit_rows(b, u->total_credit, u->expavg_credit);
	team_row(p, u->teamid);
	sbuf_addstr(b, "</table>\n");
	if (!u->teamid) {
		sbuf_addstr(b, "<p><a href=\"");
		page_url(p, "teams");
		sbuf_addstr(b, "\">Find a team to join</a>, or <a href=\"");
		page_url(p, "team_create");
		sbuf_addstr(b, "\">found one</a>.</p>\n");
	}
	sbuf_addstr(b, "<details><summary>Account key (to attach a computer with "
		       "boinccmd)</summary><p><code>");
	web_html(b, u->authenticator);
	sbuf_addstr(b, "</code></p></details>\n<h2>Your computers</h2>\n<table class=\"hosts\">\n"
		       "<tr><th>Id</th><th>Name</th><th>CPU</th><th>System</th><th>Credit</th>"
		       "<th>Recent average</th><th>Last contact</th></tr>\n");
	if (db_host_enum_user(p->c->db, u->id, host_row, &rs) != DB_OK)
		log_error("account page: the hosts of user %" PRId64 " cannot be read", u->id);
	if (!rs.n)
		sbuf_addstr(b, "<tr><td colspan=\"7\">None yet: attach a computer with the BOINC "
			       "Manager.</td></tr>\n");
	sbuf_addstr(b, "</table>\n<h2>Recent tasks</h2>\n");
	results_table(p, u->id, 0, 0, ACCOUNT_RESULTS, &shown);
	sbuf_addstr(b, "<p><a href=\"");
	page_url(p, "results");
	sbuf_addstr(b, "\">All your tasks</a></p>\n<h2>Your data</h2>\n<ul class=\"account-links\">\n"
		       "<li><a href=\"");
	page_url(p, "prefs_edit.php?subset=project");
	sbuf_addstr(b, "\">Project preferences</a> (applications, resources, per venue)</li>\n"
		       "<li><a href=\"");
	page_url(p, "prefs_edit.php?subset=global");
	sbuf_addstr(b, "\">Computing preferences</a> (CPUs, hours, disk, memory: every "
		       "project)</li>\n<li><a href=\"");
	page_url(p, "edit_email_form.php");
	sbuf_addstr(b, "\">Change your e-mail address</a></li>\n<li><a href=\"");
	page_url(p, "account_data");
	sbuf_addstr(b, "\">Download what the project holds about you</a> (XML)</li>\n<li><a href=\"");
	page_url(p, "delete_account_request.php");
	sbuf_addstr(b, "\">Delete your account</a></li>\n</ul>\n");
	page_end(p);
}

void page_show_user(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct db_user u = { 0 };
	int64_t id = page_id_param(p, "userid");

	if (!p->c->db || !id || db_user_lookup_id(p->c->db, id, &u) != DB_OK) {
		page_message(p, 404, "No such user", "There is no user with that number.");
		db_user_release(&u);
		return;
	}
	page_start(p, u.name);
	sbuf_addstr(b, "<table class=\"facts\">\n<tr><th>Member since</th><td>");
	page_time(b, u.create_time);
	sbuf_addstr(b, "</td></tr>\n");
	if (*u.country) {
		sbuf_addstr(b, "<tr><th>Country</th><td>");
		web_html(b, u.country);
		sbuf_addstr(b, "</td></tr>\n");
	}
	credit_rows(b, u.total_credit, u.expavg_credit);
	team_row(p, u.teamid);
	sbuf_addstr(b, "</table>\n");
	page_end(p);
	db_user_release(&u);
}

void page_host(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct db_host h = { 0 };
	struct db_user owner = { 0 };
	int64_t id = page_id_param(p, "id");
	bool own, shown = false;
	char title[64];

	if (p->c->db && id && db_host_lookup_id(p->c->db, id, &h) == DB_OK) {
		own = p->user.id && h.userid == p->user.id;
		shown = own || (db_user_lookup_id(p->c->db, h.userid, &owner) == DB_OK &&
				owner.show_hosts);
	}
	if (!shown) {
		page_message(p, 404, "No such computer", "There is no computer with that number, "
			     "or its owner keeps it private.");
		goto out;
	}
	own = p->user.id && h.userid == p->user.id;
	snprintf(title, sizeof(title), "Computer %" PRId64, h.id);
	page_start(p, title);
	sbuf_addstr(b, "<table class=\"facts\">\n");
	if (own) {
		sbuf_addstr(b, "<tr><th>Name</th><td>");
		web_html(b, h.domain_name);
		sbuf_addstr(b, "</td></tr>\n");
	}
	web_host_resources(b, &h);
	sbuf_addstr(b, "<tr><th>Operating system</th><td>");
	web_html(b, h.os_name);
	sbuf_addstr(b, " ");
	web_html(b, h.os_version);
	sbuf_addstr(b, "</td></tr>\n<tr><th>Memory</th><td>");
	page_num(b, h.m_nbytes / (1 << 20));
	sbuf_addstr(b, " MB</td></tr>\n");
	credit_rows(b, h.total_credit, h.expavg_credit);
	sbuf_addstr(b, "<tr><th>Created</th><td>");
	page_time(b, h.create_time);
	sbuf_addstr(b, "</td></tr>\n<tr><th>Last contact</th><td>");
	page_time(b, h.rpc_time);
	sbuf_addstr(b, "</td></tr>\n</table>\n");
	if (own) {
		sbuf_addstr(b, "<p><a href=\"");
		page_url(p, "");
		sbuf_addf(b, "results?hostid=%" PRId64 "\">Its tasks</a></p>\n", h.id);
	}
	page_end(p);
out:
	db_host_release(&h);
	db_user_release(&owner);
}

void page_results(struct page *p)
{
	struct sbuf *b = &p->o->body;
	int64_t hostid = page_id_param(p, "hostid"), off = page_id_param(p, "offset");
	struct db_host h = { 0 };
	int shown;

	if (!page_need_user(p))
		return;
	if (hostid && (db_host_lookup_id(p->c->db, hostid, &h) != DB_OK || h.userid != p->user.id)) {
		page_message(p, 404, "No such computer", "You have no computer with that number.");
		db_host_release(&h);
		return;
	}
	db_host_release(&h);
	if (off > 1000000)
		off = 1000000;
	page_start(p, hostid ? "Tasks of your computer" : "Your tasks");
	results_table(p, p->user.id, hostid, (long)off, RESULTS_PER_PAGE, &shown);
	sbuf_addstr(b, "<p class=\"paging\">");
	if (off > 0) {
		sbuf_addstr(b, "<a href=\"");
		page_url(p, "");
		sbuf_addf(b, "results?hostid=%" PRId64 "&amp;offset=%" PRId64 "\">Newer</a> ", hostid,
			  off > RESULTS_PER_PAGE ? off - RESULTS_PER_PAGE : 0);
	}
	if (shown == RESULTS_PER_PAGE) {
		sbuf_addstr(b, "<a href=\"");
		page_url(p, "");
		sbuf_addf(b, "results?hostid=%" PRId64 "&amp;offset=%" PRId64 "\">Older</a>", hostid,
			  off + RESULTS_PER_PAGE);
	}
	sbuf_addstr(b, "</p>\n");
	page_end(p);
}
