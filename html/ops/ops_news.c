/*
 * The project's news on the ops pages: post an item, edit it, withdraw it
 * (POST news_post, news_withdraw, with the page's CSRF token, logged with
 * the admin's name). Items are plain text: the public news page and the
 * RSS feed of notices (html/user/pages_news.c) escape them wherever they
 * are shown. And the "mail all users" form (POST mail_users): what
 * bin/mail_users does (account_mailing), with a dry run that only counts.
 */
#include "ops.h"
#include "account_mail.h"
#include "db.h"
#include "db_news.h"
#include "log.h"
#include "wtime.h"

#define NEWS_TITLE_MAX 200              /* the column's characters; bytes here */
#define NEWS_TEXT_MAX (64L << 10)
#define NEWS_LIST 100
#define MAIL_SUBJECT_MAX 200
#define MAIL_BODY_MAX (256L << 10)      /* as bin/mail_users --body_file */

/* Well-formed UTF-8 without control characters other than tab and line ends. */
static bool clean_text(const char *s, bool one_line)
{
	const unsigned char *p = (const unsigned char *)s;
	int more;

	for (; *p; p++) {
		if (*p < 0x20 && (one_line || (*p != '\n' && *p != '\r' && *p != '\t')))
			return false;
		if (*p == 0x7f)
			return false;
		if (*p < 0x80)
			continue;
		if (*p >= 0xc2 && *p <= 0xdf)
			more = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			more = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			more = 3;
		else
			return false;
		while (more--)
			if ((*++p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* Why a title or text cannot be taken, or NULL. */
static const char *text_why(const char *title, const char *text, size_t title_max,
			    size_t text_max, const char *what)
{
	static char why[200];

	if (!title || !*title)
		snprintf(why, sizeof(why), "The %s is empty.", what);
	else if (strlen(title) > title_max)
		snprintf(why, sizeof(why), "The %s is longer than %zu bytes.", what, title_max);
	else if (!clean_text(title, true))
		snprintf(why, sizeof(why), "The %s is not one line of UTF-8 text.", what);
	else if (!text || !*text)
		return "The text is empty.";
	else if (strlen(text) > text_max)
		snprintf(why, sizeof(why), "The text is longer than %zu KiB.", text_max >> 10);
	else if (!clean_text(text, false))
		return "The text is not UTF-8 text (or holds control characters).";
	else
		return NULL;
	return why;
}

static void news_form(struct ops *o, const struct db_news *n, const char *title, const char *text)
{
	sbuf_addstr(o->b, "<form method=\"post\" class=\"action\" id=\"news_form\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addstr(o->b, "news_post\">");
	ops_csrf_field(o);
	if (n && n->id)
		sbuf_addf(o->b, "<input type=\"hidden\" name=\"id\" value=\"%" PRId64 "\">", n->id);
	sbuf_addstr(o->b, "\n<label for=\"title\">Title</label><input type=\"text\" id=\"title\" "
			  "name=\"title\" maxlength=\"200\" value=\"");
	ops_esc(o->b, title ? title : n ? n->title : "");
	sbuf_addstr(o->b, "\">\n<label for=\"text\">Text (plain text; shown as written, line "
			  "breaks kept)</label><textarea id=\"text\" name=\"text\" rows=\"8\" "
			  "cols=\"80\">");
	ops_esc(o->b, text ? text : n ? n->text : "");
	sbuf_addf(o->b, "</textarea>\n<p><button type=\"submit\" id=\"news_submit\">%s</button></p>"
			  "</form>\n",
		  n && n->id ? "Save" : "Post");
}

static int news_row(struct db_news *n, void *arg)
{
	struct ops *o = arg;

	sbuf_addf(o->b, "<tr id=\"news_%" PRId64 "\"><td class=\"num\">%" PRId64 "</td><td>",
		  n->id, n->id);
	ops_time(o->b, n->create_time);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, n->title);
	sbuf_addstr(o->b, "</td><td>");
	ops_esc(o->b, n->author);
	sbuf_addf(o->b, "</td><td>%s</td><td>", n->withdrawn ? "withdrawn" : "shown");
	if (!n->withdrawn) {
		ops_linkf(o, "Edit", "news_edit?id=%" PRId64, n->id);
		sbuf_addstr(o->b, " <form method=\"post\" style=\"display:inline\" action=\"");
		ops_esc(o->b, o->base);
		sbuf_addstr(o->b, "news_withdraw\">");
		ops_csrf_field(o);
		sbuf_addf(o->b, "<input type=\"hidden\" name=\"id\" value=\"%" PRId64 "\">"
				"<button type=\"submit\" class=\"danger withdraw\">Withdraw</button></form>",
			  n->id);
	}
	sbuf_addstr(o->b, "</td></tr>\n");
	db_news_release(n);
	return 0;
}

/* The news page: the form of a new item (again with error and what was sent), and the items. */
static void news_page(struct ops *o, int status, const char *error, const char *title,
		      const char *text)
{
	size_t mark;

	o->o->status = status;
	sbuf_reset(o->b);
	ops_start(o, "News");
	sbuf_addstr(o->b, "<p>News items are shown on the volunteers' <em>news</em> page and in "
			  "the RSS feed (<code>notices.php</code>, <code>rss_main.php</code>) that "
			  "the BOINC Manager shows as notices, for 30 days.</p>\n");
	if (error) {
		sbuf_addstr(o->b, "<p class=\"error\" id=\"error\">");
		ops_esc(o->b, error);
		sbuf_addstr(o->b, "</p>\n");
	}
	sbuf_addstr(o->b, "<h2>Post an item</h2>\n");
	news_form(o, NULL, title, text);
	sbuf_addstr(o->b, "<h2>Items</h2>\n<table id=\"news\">\n<tr><th>Id</th><th>Posted</th>"
			  "<th>Title</th><th>Author</th><th>State</th><th></th></tr>\n");
	mark = o->b->len;
	if (o->c->db && db_news_list(o->c->db, NEWS_LIST, news_row, o) != DB_OK)
		sbuf_addstr(o->b, "<tr><td colspan=\"6\" class=\"error\">cannot be read</td></tr>\n");
	ops_none_row(o, mark, 6);
	sbuf_addstr(o->b, "</table>\n");
	ops_end(o);
}

void ops_news(struct ops *o)
{
	news_page(o, 200, NULL, NULL, NULL);
}

/* The item of parameter id: true with *n; else a page saying why (false). */
static bool news_item(struct ops *o, struct db_news *n)
{
	int64_t id;
	int rc;

	if (!ops_id_param(o, "id", &id))
		return false;
	rc = o->c->db ? db_news_lookup_id(o->c->db, id, n) : DB_ERROR;
	if (rc == DB_NOT_FOUND)
		ops_message(o, 404, "Not found", "There is no news item with that id.");
	else if (rc != DB_OK)
		ops_db_failed(o, "news item");
	return rc == DB_OK;
}

void ops_news_edit(struct ops *o)
{
	struct db_news n = { 0 };

	if (news_item(o, &n)) {
		ops_start(o, "Edit a news item");
		news_form(o, &n, NULL, NULL);
		ops_end(o);
	}
	db_news_release(&n);
}

/* text allocated, with a browser's CR LF as LF */
static char *lf_only(const char *text)
{
	char *t = xstrdup(text), *w = t;
	const char *r;

	for (r = text; *r; r++)
		if (!(r[0] == '\r' && r[1] == '\n'))
			*w++ = *r;
	*w = 0;
	return t;
}

/* Post a new item, or save an edited one (id): in one statement each. */
static int news_save(struct ops *o, struct db_news *n, const char *title, const char *text)
{
	free(n->title);
	free(n->text);
	n->title = xstrdup(title);
	n->text = lf_only(text);
	n->mod_time = (int64_t)now();
	if (n->id)
		return db_news_update(o->c->db, n);
	free(n->author);
	n->author = xstrdup(o->admin.name ? o->admin.name : "");
	n->create_time = n->mod_time;
	return db_news_insert(o->c->db, n);
}

void ops_news_post(struct ops *o)
{
	const char *title = web_param(o->r, "title"), *text = web_param(o->r, "text");
	struct db_news n = { 0 };
	const char *why;
	bool edit = web_param(o->r, "id") != NULL;

	if (!ops_post_ok(o) || (edit && !news_item(o, &n)))
		goto out;
	why = text_why(title, text, NEWS_TITLE_MAX, NEWS_TEXT_MAX, "title");
	if (why) {
		log_info("ops: admin %s: a news item refused: %s", ops_who(o), why);
		news_page(o, 400, why, title, text);
	} else if (!o->c->db || news_save(o, &n, title, text) != DB_OK) {
		ops_db_failed(o, "news");
	} else {
		log_info("ops: admin %s %s news item %" PRId64, ops_who(o), edit ? "edited" : "posted",
			 n.id);
		ops_redirect(o, "news");
	}
out:
	db_news_release(&n);
}

void ops_news_withdraw_post(struct ops *o)
{
	struct db_news n = { 0 };

	if (!ops_post_ok(o) || !news_item(o, &n))
		goto out;
	n.withdrawn = 1;
	n.mod_time = (int64_t)now();
	if (db_news_update(o->c->db, &n) != DB_OK) {
		ops_db_failed(o, "news");
	} else {
		log_info("ops: admin %s withdrew news item %" PRId64, ops_who(o), n.id);
		ops_redirect(o, "news");
	}
out:
	db_news_release(&n);
}

/* ---- mail all users ---- */

static void mail_page(struct ops *o, int status, const char *error, const char *subject,
		      const char *body)
{
	o->o->status = status;
	sbuf_reset(o->b);
	ops_start(o, "Mail all users");
	sbuf_addstr(o->b, "<p>A message to every user who takes the project's mail (not "
			  "unsubscribed), each with their own unsubscribe link below it, through "
			  "the project's mail server: what <code>bin/mail_users</code> does. "
			  "<em>Count only</em> sends nothing.</p>\n");
	if (error) {
		sbuf_addstr(o->b, "<p class=\"error\" id=\"error\">");
		ops_esc(o->b, error);
		sbuf_addstr(o->b, "</p>\n");
	}
	sbuf_addstr(o->b, "<form method=\"post\" class=\"action\" id=\"mail_form\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addstr(o->b, "mail_users\">");
	ops_csrf_field(o);
	sbuf_addstr(o->b, "\n<label for=\"subject\">Subject</label><input type=\"text\" "
			  "id=\"subject\" name=\"subject\" maxlength=\"200\" value=\"");
	ops_esc(o->b, subject ? subject : "");
	sbuf_addstr(o->b, "\">\n<label for=\"body\">Text</label><textarea id=\"body\" name=\"body\" "
			  "rows=\"10\" cols=\"80\">");
	ops_esc(o->b, body ? body : "");
	sbuf_addstr(o->b, "</textarea>\n<p><button type=\"submit\" id=\"mail_count\" name=\"dry_run\" "
			  "value=\"1\">Count only</button> <button type=\"submit\" id=\"mail_send\" "
			  "name=\"send\" value=\"1\" class=\"danger\">Send to all users</button></p>"
			  "</form>\n");
	ops_end(o);
}

void ops_mail(struct ops *o)
{
	mail_page(o, 200, NULL, NULL, NULL);
}

void ops_mail_users_post(struct ops *o)
{
	const char *subject = web_param(o->r, "subject"), *body = web_param(o->r, "body");
	const char *dry = web_param(o->r, "dry_run"), *why;
	bool dry_run = dry && !strcmp(dry, "1");
	struct account_mailing m = { 0, 0 };
	int rc;

	if (!ops_post_ok(o))
		return;
	why = text_why(subject, body, MAIL_SUBJECT_MAX, MAIL_BODY_MAX, "subject");
	if (why) {
		mail_page(o, 400, why, subject, body);
		return;
	}
	if (!o->c->db) {
		ops_db_failed(o, "mail");
		return;
	}
	rc = account_mailing(o->c->db, o->c->cfg, o->c->acct, subject, body, dry_run, &m);
	log_info("ops: admin %s %s: %ld users%s", ops_who(o),
		 dry_run ? "counted a mailing" : "mailed all users", m.sent,
		 rc < 0 ? ", then stopped at a failure" : "");
	ops_start(o, dry_run ? "Mailing counted" : rc < 0 ? "Mailing stopped" : "Mailing sent");
	sbuf_addf(o->b, "<p class=\"message\" id=\"outcome\">%ld users %s.</p>\n", m.sent,
		  dry_run ? "would get the message" : "mailed");
	if (rc < 0)
		sbuf_addf(o->b, "<p class=\"error\">A message could not be sent (the log says why). "
				"To mail the rest: <code>bin/mail_users --after_id %" PRId64
				"</code>.</p>\n", m.last);
	ops_end(o);
}
