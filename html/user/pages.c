/*
 * The volunteers' web site: which page a request is for, and the home
 * page. The account RPCs come first (their .php names are the protocol's);
 * then the pages, by the last element of their URL:
 *
 *   (master URL)   home: what the project does, how to join
 *   join, login, logout, account          an account of one's own
 *   get_passwd.php, reset_passwd?t=..     a forgotten password (a mailed link)
 *   edit_email_form.php, confirm_email?t=..   a new address (confirmed by mail)
 *   delete_account_request.php, delete_account_confirm.php?t=..   leaving
 *   account_data                          all the project holds about one (XML)
 *   opt_out.php?userid=N&code=..          no more mail from the admins
 *   show_user.php?userid=N, host?id=N, results[?hostid=N]
 *   teams[?search=..], team?id=N, team_create, team_join, team_leave
 *   apps, server_status[.php][?xml=1]
 *   news, notices.php?userid=N&auth=A, rss_main.php   the project's news (RSS)
 */
#include "pages.h"
#include "config.h"
#include "fileutil.h"
#include "log.h"

#define HOME_TEXT_MAX (256L << 10)

static const struct {
	const char *name;
	void (*fn)(struct page *);
} pages[] = {
	{ "", page_home },
	{ "index.php", page_home },
	{ "join", page_join },
	{ "login", page_login_form },
	{ "logout", page_logout_post },
	{ "account", page_account },
	{ "get_passwd.php", page_get_passwd },
	{ "reset_passwd", page_reset_passwd },
	{ "edit_email_form.php", page_edit_email },
	{ "confirm_email", page_confirm_email },
	{ "opt_out.php", page_opt_out },
	{ "delete_account_request.php", page_delete_request },
	{ "delete_account_confirm.php", page_delete_confirm },
	{ "account_data", page_account_data },
	{ "prefs_edit.php", page_prefs_edit },
	{ "show_user.php", page_show_user },
	{ "host", page_host },
	{ "results", page_results },
	{ "teams", page_teams },
	{ "team", page_team },
	{ "team_create", page_team_create },
	{ "team_join", page_team_join },
	{ "team_leave", page_team_leave },
	{ "apps", page_apps },
	{ "server_status", page_server_status },
	{ "server_status.php", page_server_status },
	{ "news", page_news },
	{ "notices.php", page_notices_rss },
	{ "rss_main.php", page_rss_main },
};

/* The admin's own words for the home page: a file of the project, HTML as written. */
static void home_text(struct page *p)
{
	const char *f = p->c->acct->account_home_text;
	struct sbuf t = SBUF_INIT(HOME_TEXT_MAX + 1);
	char *path = f && *f ? xasprintf("%s/%s", p->c->cfg->project_dir, f) : NULL;

	if (path && access(path, R_OK) == 0 && read_file(path, HOME_TEXT_MAX, &t) == 0 && t.len) {
		sbuf_add(&p->o->body, t.buf, t.len);
	} else {
		sbuf_addstr(&p->o->body, "<p>");
		web_html(&p->o->body, p->c->cfg->long_name);
		sbuf_addstr(&p->o->body, " is a volunteer computing project: people around the "
			    "world lend their computers' spare time to its computations.</p>\n");
	}
	free(path);
	sbuf_release(&t);
}

void page_home(struct page *p)
{
	struct sbuf *b = &p->o->body;
	const char *url = p->c->cfg->master_url;

	page_start(p, p->c->cfg->long_name);
	home_text(p);
	sbuf_addstr(b, "<section>\n<h2>How to join</h2>\n<ol>\n"
		       "<li>Install BOINC, the program that runs the project's work on your "
		       "computer: from <a href=\"https://boinc.berkeley.edu/download.php\">"
		       "boinc.berkeley.edu</a>, or on Debian and Ubuntu with "
		       "<code>apt install boinc-manager boinc-client</code>.</li>\n"
		       "<li>In the BOINC Manager choose <em>Tools &rarr; Add project</em>, enter "
		       "this project's address<br><code class=\"url\">");
	web_html(b, url);
	sbuf_addstr(b, "</code><br>and create an account (or use the one you made ");
	sbuf_addstr(b, "<a href=\"");
	page_url(p, "join");
	sbuf_addstr(b, "\">here</a>).</li>\n<li>Or, without a screen:\n<pre>boinccmd --create_account ");
	web_html(b, url);
	sbuf_addstr(b, " you@example.org PASSWORD \"Your Name\"\nboinccmd --project_attach ");
	web_html(b, url);
	sbuf_addstr(b, " ACCOUNT_KEY</pre></li>\n</ol>\n<p>Your computer then asks for work when "
		       "it is idle, returns the results, and earns credit for you and your "
		       "team.</p>\n</section>\n");
	/* the scheduler's address in the form older clients look for, one tag a line */
	sbuf_addstr(b, "<!--\n<scheduler>");
	web_html(b, p->c->cfg->cgi_url);
	sbuf_addstr(b, "cgi</scheduler>\n-->\n");
	page_end(p);
}

int web_handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	struct page p;
	size_t i;

	if (user_rpc(c, r, o) == 0)
		return 0;
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (!strcmp(r->page, pages[i].name))
			break;
	page_init(&p, c, r, o);
	if (i == ARRAY_SIZE(pages))
		page_message(&p, 404, "Not found", "There is no such page here.");
	else if (r->bad)
		page_message(&p, 400, "Bad request", r->bad_why);
	else
		pages[i].fn(&p);
	page_release(&p);
	return i == ARRAY_SIZE(pages) ? -1 : 0;
}
