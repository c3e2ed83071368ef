/*
 * ops: the project's ops pages, for its administrators, at <url_base>/<name>_ops/
 * (see ops_page.c for who may see them).
 *
 * A program of its own rather than more pages of `web`: make_project's
 * Apache configuration sends every URL under the ops path to it and to
 * nothing else, so no route of the volunteers' site can reach an ops page
 * and every ops URL -- known or not -- passes the same sign-in check; its
 * own log (<log_dir>/ops.log) records who did what; and its FastCGI pool
 * is small and separate. It shares the request and reply code (html/web.c)
 * and runs through serve/serve.c as FastCGI under mod_fcgid or as CGI.
 *
 * Pages (server-rendered HTML, no JavaScript; the sequence timeline is SVG
 * drawn here):
 *   (ops URL)     overview: daemons, their logs' last lines, counts, disk use
 *   errors        recent failed results by outcome and exit status, per app and host
 *   hosts, host?id=N            batches, batch?id=N        apps
 *   sequences[?state=active|ended|error], seq?id=N|name=NAME, wu?id=N
 *   login, logout, cancel       (POST; cancel: what=wu|seq|batch, id=N)
 *   news, news_edit?id=N; news_post, news_withdraw (POST)   the project's news
 *   mail; mail_users (POST: subject, body, dry_run)          mail all users
 */
#include "ops.h"
#include "account.h"
#include "config.h"
#include "db.h"
#include "log.h"
#include "serve.h"

static const char usage[] =
	"usage: ops\n"
	"The project's ops pages for its administrators: overview, errors, hosts,\n"
	"batches, apps, sequences with their timelines, cancelling work, revalidating\n"
	"a workunit, the project's news, mailing all users. Run by the web server\n"
	"under <url_base>/<name>_ops/ as a FastCGI program (many requests a process,\n"
	"under mod_fcgid) or as a CGI program (one).\n"
	"It reads the project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or\n"
	"../config.xml) and logs to <log_dir>/ops.log. See the README's \"Ops pages\"\n"
	"and doc/ops.md.\n";

static const struct {
	const char *name;
	void (*fn)(struct ops *);
} pages[] = {
	{ "", ops_overview },
	{ "errors", ops_errors },
	{ "hosts", ops_hosts },
	{ "host", ops_host },
	{ "batches", ops_batches },
	{ "batch", ops_batch },
	{ "apps", ops_apps },
	{ "sequences", ops_sequences },
	{ "seq", ops_sequence },
	{ "wu", ops_workunit },
	{ "cancel", ops_cancel_post },
	{ "invalid", ops_invalid },
	{ "revalidate", ops_revalidate_post },
	{ "news", ops_news },
	{ "news_edit", ops_news_edit },
	{ "news_post", ops_news_post },
	{ "news_withdraw", ops_news_withdraw_post },
	{ "mail", ops_mail },
	{ "mail_users", ops_mail_users_post },
	{ "logout", ops_logout_post },
};

void ops_handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *out)
{
	struct ops o;
	size_t i;

	ops_init(&o, c, r, out);
	if (!o.admin.id) {
		/* nobody signed in: the sign-in form, whatever was asked */
		if (!strcmp(o.page, "login") && !strcmp(r->method, "POST") && !r->bad)
			ops_login_post(&o);
		else
			ops_login_page(&o, c->db ? 401 : 503, c->db ? NULL :
				       "The project's database is not available; try again later.");
		ops_release(&o);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (!strcmp(o.page, pages[i].name))
			break;
	if (r->bad)
		ops_message(&o, 400, "Bad request", r->bad_why);
	else if (!strcmp(o.page, "login"))
		ops_redirect(&o, "");
	else if (i == ARRAY_SIZE(pages))
		ops_message(&o, 404, "Not found", "There is no such ops page.");
	else
		pages[i].fn(&o);
	ops_release(&o);
}

static const struct web_program program = {
	"ops", usage, ops_handle,
	"Status: 503\r\nContent-Type: text/plain\r\n\r\nThe project is not configured.\n",
};

int main(int argc, char **argv)
{
	return web_serve_main(&program, argc, argv);
}
