/*
 * Sessions, CSRF tokens and the layout of the volunteers' pages (page.h).
 */
#include "page.h"
#include "config.h"
#include "db.h"
#include "db_web.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "passwd.h"
#include "wtime.h"

#include <openssl/crypto.h>
#include <time.h>

/* The path part of the master URL ("/wseq/"): the cookies' Path. */
static const char *url_path(const char *url)
{
	const char *p = strstr(url, "://");

	p = p ? strchr(p + 3, '/') : NULL;
	return p ? p : "/";
}

static void set_cookie(struct page *p, const char *name, const char *value, long max_age,
		       const char *samesite)
{
	sbuf_addf(&p->o->headers, "Set-Cookie: %s=%s; Path=%s; Max-Age=%ld; HttpOnly; SameSite=%s%s\r\n",
		  name, value, url_path(p->c->cfg->master_url), max_age, samesite,
		  p->r->https ? "; Secure" : "");
}

static bool hex32(const char *s)
{
	return s && passwd_hash_ok(s);
}

/* The session row of the browser's cookie, and its token (DB_NOT_FOUND: none). */
static int session_of(struct page *p, struct db_web_session *s, char tok[33])
{
	char *c = web_cookie(p->r, SESSION_COOKIE), h[33];
	int rc = DB_NOT_FOUND;

	if (hex32(c) && p->c->db) {
		snprintf(tok, 33, "%s", c);
		md5_buf(tok, strlen(tok), h);
		rc = db_rec_lookup_by(p->c->db, &db_web_session_table, "token_hash", h, s);
	}
	free(c);
	return rc;
}

/* md5("csrf:" + session token): a form's token only this session's pages know. */
static void session_csrf(const char *tok, char out[33])
{
	struct sbuf b = SBUF_INIT(64);

	sbuf_addf(&b, "csrf:%s", tok);
	md5_buf(b.buf, b.len, out);
	sbuf_release(&b);
}

/* Who is signed in; then the forms' token is bound to the session. */
static void find_session(struct page *p)
{
	struct db_web_session s = { 0 };
	char tok[33];

	if (session_of(p, &s, tok) == DB_OK && s.expire_time > now()) {
		if (db_user_lookup_id(p->c->db, s.userid, &p->user) == DB_OK)
			session_csrf(tok, p->csrf);
		else
			memset(&p->user, 0, sizeof(p->user));
	}
	db_web_session_release(&s);
}

/*
 * Before sign-in a form's token is the double-submitted cookie's (nothing
 * to steal yet); after it, the session's own.
 */
void page_init(struct page *p, const struct web_ctx *c, const struct web_req *r,
	       struct web_reply *o)
{
	char *csrf;

	memset(p, 0, sizeof(*p));
	p->c = c;
	p->r = r;
	p->o = o;
	web_page_headers(o);
	find_session(p);
	if (p->user.id)
		return;
	csrf = web_cookie(r, CSRF_COOKIE);
	if (hex32(csrf)) {
		snprintf(p->csrf, sizeof(p->csrf), "%s", csrf);
	} else if (random_hex(p->csrf, 16) == 0) {
		p->csrf_new = true;
		set_cookie(p, CSRF_COOKIE, p->csrf, 365L * 86400, "Strict");
	}
	free(csrf);
}

void page_release(struct page *p)
{
	db_user_release(&p->user);
}

void page_url(struct page *p, const char *rel)
{
	web_html(&p->o->body, p->c->cfg->master_url);
	web_html(&p->o->body, rel);
}

static void nav_link(struct page *p, const char *rel, const char *text)
{
	sbuf_addstr(&p->o->body, "<a href=\"");
	page_url(p, rel);
	sbuf_addstr(&p->o->body, "\">");
	web_html(&p->o->body, text);
	sbuf_addstr(&p->o->body, "</a>");
}

void page_csrf_field(struct page *p)
{
	sbuf_addf(&p->o->body, "<input type=\"hidden\" name=\"csrf\" value=\"%s\">", p->csrf);
}

void page_start(struct page *p, const char *title)
{
	struct sbuf *b = &p->o->body;
	const char *name = p->c->cfg->long_name;

	p->o->content_type = "text/html; charset=utf-8";
	sbuf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	web_html(b, title);
	if (strcmp(title, name)) {
		sbuf_addstr(b, " - ");
		web_html(b, name);
	}
	sbuf_addstr(b, "</title>\n<link rel=\"stylesheet\" href=\"");
	page_url(p, "wseq.css");
	sbuf_addstr(b, "\">\n");
	/* the scheduler's address, for the BOINC client reading the master page */
	sbuf_addf(b, "<link rel=\"boinc_scheduler\" href=\"");
	web_html(b, p->c->cfg->cgi_url);
	sbuf_addstr(b, "cgi\">\n</head>\n<body>\n<header>\n<a class=\"brand\" href=\"");
	page_url(p, "");
	sbuf_addstr(b, "\">");
	web_html(b, name);
	sbuf_addstr(b, "</a>\n<nav>\n");
	nav_link(p, "", "Home");
	sbuf_addstr(b, "\n");
	nav_link(p, "apps", "Applications");
	sbuf_addstr(b, "\n");
	nav_link(p, "teams", "Teams");
	sbuf_addstr(b, "\n");
	nav_link(p, "server_status", "Server status");
	sbuf_addstr(b, "\n");
	nav_link(p, "news", "News");
	sbuf_addstr(b, "\n");
	if (p->user.id) {
		nav_link(p, "account", "Your account");
		sbuf_addstr(b, "\n<form class=\"inline\" method=\"post\" action=\"");
		page_url(p, "logout");
		sbuf_addstr(b, "\">");
		page_csrf_field(p);
		sbuf_addstr(b, "<button type=\"submit\">Sign out</button></form>\n");
	} else {
		nav_link(p, "join", "Join");
		sbuf_addstr(b, "\n");
		nav_link(p, "login", "Sign in");
		sbuf_addstr(b, "\n");
	}
	sbuf_addstr(b, "</nav>\n</header>\n<main>\n<h1>");
	web_html(b, title);
	sbuf_addstr(b, "</h1>\n");
}

void page_end(struct page *p)
{
	sbuf_addstr(&p->o->body, "</main>\n<footer>");
	web_html(&p->o->body, p->c->cfg->long_name);
	sbuf_addstr(&p->o->body, " runs on wseq, a BOINC-compatible server.</footer>\n</body>\n</html>\n");
}

void page_message(struct page *p, int status, const char *title, const char *msg)
{
	p->o->status = status;
	sbuf_reset(&p->o->body);
	page_start(p, title);
	sbuf_addstr(&p->o->body, "<p class=\"message\">");
	web_html(&p->o->body, msg);
	sbuf_addstr(&p->o->body, "</p>\n");
	page_end(p);
}

void page_redirect(struct page *p, const char *rel)
{
	p->o->status = 303;
	sbuf_addf(&p->o->headers, "Location: %s%s\r\n", p->c->cfg->master_url, rel);
	sbuf_reset(&p->o->body);
}

bool page_post_ok(struct page *p)
{
	const char *sent = web_param(p->r, "csrf");

	if (strcmp(p->r->method, "POST")) {
		page_message(p, 405, "Not allowed", "This page takes a form sent with POST.");
		return false;
	}
	if (p->csrf_new || !sent || strlen(sent) != 32 || CRYPTO_memcmp(sent, p->csrf, 32)) {
		log_warn("%s [%s]: form refused: no or wrong CSRF token", p->r->page, p->r->remote_addr);
		page_message(p, 403, "Form refused", "This form did not come from this site's own "
			     "page (or your browser refused its cookie). Please go back, reload the "
			     "page and try again.");
		return false;
	}
	return true;
}

bool page_form_post(struct page *p, void (*form)(struct page *p, const char *error))
{
	if (strcmp(p->r->method, "POST")) {
		form(p, NULL);
		return false;
	}
	if (!page_post_ok(p))
		return false;
	if (!p->c->db) {
		form(p, "The project's database is not available; please try again later.");
		return false;
	}
	return true;
}

bool page_need_user(struct page *p)
{
	if (p->user.id)
		return true;
	page_message(p, 403, "Please sign in", "This page is for signed-in volunteers: use "
		     "\"Sign in\" above, or \"Join\" to create an account.");
	return false;
}

int page_login(struct page *p, int64_t userid)
{
	struct db_web_session s = { 0 };
	char tok[33], h[33];
	int rc;

	if (random_hex(tok, 16) < 0)
		return -1;
	/* a sign-in is rare enough to sweep up what has expired meanwhile */
	if (db_web_session_purge(p->c->db, now(), now() - ACCOUNT_LOGIN_WINDOW) != DB_OK)
		log_warn("cannot remove expired sessions");
	md5_buf(tok, strlen(tok), h);
	s.token_hash = h;
	s.userid = userid;
	s.create_time = now();
	s.expire_time = s.create_time + SESSION_DAYS * 86400L;
	rc = db_web_session_insert(p->c->db, &s);
	if (rc != DB_OK)
		return log_error("cannot start a session for user %" PRId64, userid);
	set_cookie(p, SESSION_COOKIE, tok, SESSION_DAYS * 86400L, "Lax");
	log_info("user %" PRId64 " signed in [%s]", userid, p->r->remote_addr);
	return 0;
}

void page_logout(struct page *p)
{
	struct db_web_session s = { 0 };
	char tok[33];

	if (session_of(p, &s, tok) == DB_OK)
		db_web_session_delete(p->c->db, &s);
	db_web_session_release(&s);
	set_cookie(p, SESSION_COOKIE, "", 0, "Lax");
}

/* The digits of an unsigned number in tmp, with a comma every three up to the '.' */
static void add_grouped(struct sbuf *b, bool negative, const char *tmp)
{
	size_t i, n = strcspn(tmp, ".");

	if (negative)
		sbuf_addch(b, '-');
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			sbuf_addch(b, ',');
		sbuf_addch(b, tmp[i]);
	}
	sbuf_addstr(b, tmp + n);
}

void page_num(struct sbuf *b, double v)
{
	char tmp[64];

	snprintf(tmp, sizeof(tmp), "%.2f", v < 0 ? -v : v);
	add_grouped(b, v < 0, tmp);
}

void page_int(struct sbuf *b, int64_t v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%" PRIu64, v < 0 ? -(uint64_t)v : (uint64_t)v);
	add_grouped(b, v < 0, tmp);
}

void page_time(struct sbuf *b, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[64];

	if (t <= 0) {
		sbuf_addstr(b, "never");
		return;
	}
	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M UTC", &tm);
	sbuf_addstr(b, s);
}

int64_t page_id_param(const struct page *p, const char *name)
{
	const char *v = web_param(p->r, name);
	char *end;
	long long n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	return *end || errno || n <= 0 ? 0 : (int64_t)n;
}
