/*
 * The project's news for volunteers: the news page, and the RSS feeds the
 * BOINC client fetches for the Manager's notices -- notices.php?userid=N&auth=A,
 * the URL the scheduler reply's <rss_feeds> names (upstream's), and
 * rss_main.php, the same items for anyone. Items are the admins' plain text
 * (posted on the ops pages): the Manager shows an item's title and
 * description as HTML, so each is escaped for HTML first and the result for
 * XML, and a news item can never become markup or script there or here.
 */
#include "pages.h"
#include "account_mail.h"
#include "config.h"
#include "db_news.h"
#include "log.h"
#include "xml_write.h"

#include <time.h>

#define NEWS_PAGE_MAX 50
#define FEED_DAYS 30            /* the client drops items older than 30 days */
#define FEED_MAX 50

/* Plain text as HTML: escaped, line breaks kept. */
static void text_html(struct sbuf *b, const char *text)
{
	const char *s = text ? text : "", *nl;

	while ((nl = strchr(s, '\n'))) {
		/* a browser's form sends CR LF */
		char *line = xstrndup(s, (size_t)(nl - s - (nl > s && nl[-1] == '\r')));

		web_html(b, line);
		sbuf_addstr(b, "<br>\n");
		free(line);
		s = nl + 1;
	}
	web_html(b, s);
}

static int news_row(struct db_news *n, void *arg)
{
	struct page_rows *rows = arg;
	struct sbuf *b = &rows->p->o->body;

	sbuf_addf(b, "<article class=\"news\" id=\"news_%" PRId64 "\">\n<h2>", n->id);
	web_html(b, n->title);
	sbuf_addstr(b, "</h2>\n<p class=\"when\">");
	page_time(b, n->create_time);
	if (n->author && *n->author) {
		sbuf_addstr(b, " by ");
		web_html(b, n->author);
	}
	sbuf_addstr(b, "</p>\n<p>");
	text_html(b, n->text);
	sbuf_addstr(b, "</p>\n</article>\n");
	rows->n++;
	db_news_release(n);
	return 0;
}

void page_news(struct page *p)
{
	struct page_rows rows = { p, 0 };
	struct sbuf *b = &p->o->body;

	page_start(p, "News");
	if (!p->c->db || db_news_recent(p->c->db, 0, NEWS_PAGE_MAX, news_row, &rows) != DB_OK) {
		page_error_para(p, "The project's database is not available; please try again "
			       "later.");
	} else if (!rows.n) {
		sbuf_addstr(b, "<p>No news yet.</p>\n");
	}
	sbuf_addstr(b, "<p class=\"feed\">Also as an RSS feed: <a href=\"");
	page_url(p, "rss_main.php");
	sbuf_addstr(b, "\">rss_main.php</a>; the BOINC Manager shows it as notices.</p>\n");
	page_end(p);
}

/* HTML made of plain text, then escaped as XML text: what the Manager renders. */
static void feed_html_elem(struct sbuf *b, const char *tag, const char *text, bool lines)
{
	struct sbuf h = SBUF_INIT(32L << 20);

	if (lines)
		text_html(&h, text);
	else
		web_html(&h, text);
	sbuf_addf(b, "    <%s>", tag);
	xml_add_text(b, sbuf_str(&h));
	sbuf_addf(b, "</%s>\n", tag);
	sbuf_release(&h);
}

/* RFC 822 time as RSS wants and the client's parser reads ("%a, %d %b %Y %H:%M:%S"). */
static void rss_time(struct sbuf *b, int64_t t)
{
	static const char *const day[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	sbuf_addf(b, "%s, %02d %s %04d %02d:%02d:%02d GMT", day[tm.tm_wday], tm.tm_mday,
		  mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int feed_item(struct db_news *n, void *arg)
{
	struct page_rows *rows = arg;
	struct sbuf *b = &rows->p->o->body;
	struct sbuf link = SBUF_INIT(4096);

	sbuf_addf(&link, "%snews#news_%" PRId64, rows->p->c->cfg->master_url, n->id);
	sbuf_addstr(b, "<item>\n");
	feed_html_elem(b, "title", n->title, false);
	xml_elem_str(b, 4, "link", sbuf_str(&link));
	/* the id: an edited item replaces the one the client has */
	xml_elem_str(b, 4, "guid", sbuf_str(&link));
	feed_html_elem(b, "description", n->text, true);
	sbuf_addstr(b, "    <pubDate>");
	rss_time(b, n->create_time);
	sbuf_addstr(b, "</pubDate>\n</item>\n");
	sbuf_release(&link);
	rows->n++;
	db_news_release(n);
	return 0;
}

static void feed(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct page_rows rows = { p, 0 };
	int64_t now = (int64_t)time(NULL);

	p->o->content_type = "application/xml; charset=utf-8";
	sbuf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n"
		       "<channel>\n");
	sbuf_addstr(b, "    <title>");
	xml_add_text(b, p->c->cfg->long_name);
	sbuf_addstr(b, " notices</title>\n");
	xml_elem_str(b, 4, "link", p->c->cfg->master_url);
	sbuf_addstr(b, "    <description>Notices</description>\n    <lastBuildDate>");
	rss_time(b, now);
	sbuf_addstr(b, "</lastBuildDate>\n");
	if (db_news_recent(p->c->db, now - FEED_DAYS * 86400L, FEED_MAX, feed_item, &rows) != DB_OK)
		log_error("news feed: the news cannot be read");
	sbuf_addstr(b, "</channel>\n</rss>\n");
}

/* An error the client's feed parser reads (<error_num>), as upstream's xml_error. */
static void feed_error(struct page *p, int status, int num, const char *msg)
{
	struct sbuf *b = &p->o->body;

	p->o->status = status;
	p->o->content_type = "application/xml; charset=utf-8";
	sbuf_addf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<error>\n"
		     "    <error_num>%d</error_num>\n", num);
	xml_elem_str(b, 4, "error_msg", msg);
	sbuf_addstr(b, "</error>\n");
}

static bool same_auth(const char *a, const char *b)
{
	size_t n = strlen(b), i;
	unsigned char d = 0;

	if (strlen(a) != n)
		return false;
	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

void page_notices_rss(struct page *p)
{
	int64_t id = page_id_param(p, "userid");
	const char *auth = web_param(p->r, "auth");
	struct db_user u = { 0 };
	char want[64];

	if (!p->c->db) {
		feed_error(p, 503, -183, "the project's database is not available");
		return;
	}
	if (!id || !auth || db_user_lookup_id(p->c->db, id, &u) != DB_OK) {
		feed_error(p, 403, -155, "Invalid authenticator");
		goto out;
	}
	account_rss_auth(u.id, u.authenticator, want);
	if (!same_auth(auth, want)) {
		log_info("notices [%s]: a wrong auth for user %" PRId64, p->r->remote_addr, id);
		feed_error(p, 403, -155, "Invalid authenticator");
		goto out;
	}
	feed(p);
out:
	db_user_release(&u);
}

void page_rss_main(struct page *p)
{
	if (!p->c->db) {
		feed_error(p, 503, -183, "the project's database is not available");
		return;
	}
	feed(p);
}
