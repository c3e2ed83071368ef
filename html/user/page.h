/*
 * What every page of the volunteers' web site shares: who is signed in
 * (the session cookie), the CSRF token of its forms (bound to the session
 * once signed in), the security headers, the layout, links and redirects. Pages are server-rendered HTML with no JavaScript; every value
 * a user typed goes through web_html() where it is shown.
 */
#ifndef WSEQ_PAGE_H
#define WSEQ_PAGE_H

#include "web.h"
#include "db_records.h"

#define SESSION_COOKIE "wseq_session"
#define CSRF_COOKIE "wseq_csrf"
#define SESSION_DAYS 30

/* A page request in progress: the request, the reply, and who asks. */
struct page {
	const struct web_ctx *c;
	const struct web_req *r;
	struct web_reply *o;
	struct db_user user;            /* user.id 0: nobody signed in */
	char csrf[33];                  /* the forms' CSRF token: the session's, else the cookie's */
	bool csrf_new;                  /* ... just made: set its cookie */
};

void page_init(struct page *p, const struct web_ctx *c, const struct web_req *r,
	       struct web_reply *o);
void page_release(struct page *p);

/* The HTML head, the site's menu and the title as <h1>; page_end closes it. */
void page_start(struct page *p, const char *title);
void page_end(struct page *p);
/* A whole page saying msg (an error, a refusal), with HTTP status. */
void page_message(struct page *p, int status, const char *title, const char *msg);
/* 303 to a page of the site (rel: "account", "team?id=3"). */
void page_redirect(struct page *p, const char *rel);
/* The hidden CSRF field of a form. */
void page_csrf_field(struct page *p);
/*
 * A POST whose CSRF field is the page's token -- signed in, md5("csrf:"
 * session token); else the double-submitted cookie's -- or a 403 page (false).
 */
bool page_post_ok(struct page *p);
/*
 * The start of a form's handler: a GET shows the form (form(p, NULL)); a
 * POST without its CSRF token is refused; without the database the form is
 * shown again, saying so. True when the POST is to be acted on.
 */
bool page_form_post(struct page *p, void (*form)(struct page *p, const char *error));
/* Signed in; else a page asking to sign in (false). */
bool page_need_user(struct page *p);

/* The rows of a table a page writes from a database enumeration, and how many. */
struct page_rows {
	struct page *p;
	int n;
};

/* Start a session for userid: its cookie goes into the reply. 0 or -1 (logged). */
int page_login(struct page *p, int64_t userid);
/* End the current session (row and cookie). */
void page_logout(struct page *p);

/* Append a URL of the site (master URL + rel), escaped for an attribute. */
void page_url(struct page *p, const char *rel);
/* "1,234.56" style numbers, "1,234" counts and dates for people. */
void page_num(struct sbuf *b, double v);
void page_int(struct sbuf *b, int64_t v);
void page_time(struct sbuf *b, int64_t t);

/* A parameter as a positive id, or 0. */
int64_t page_id_param(const struct page *p, const char *name);

#endif
