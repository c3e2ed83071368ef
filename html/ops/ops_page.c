/*
 * Who may see the ops pages, and their layout (ops.h).
 *
 * Admins only: a user in ops_admin (make_project makes one; account grant
 * --ops adds one; submit rights never do) signs in with the account's
 * e-mail address and password, or with its authenticator
 * (keys/admin_authenticator), through the throttle every password and key
 * door shares (backend/account.c). Without a session every URL of
 * the ops site answers 401 with the sign-in form -- from loopback too:
 * admins run servers from afar, and a proxy on the server is "local".
 *
 * A session is a random token in a cookie scoped to the ops path (HttpOnly,
 * SameSite=Strict, Secure under https), kept in web_session as md5("ops:"
 * token): a volunteer's session cookie is never an ops session, nor the
 * reverse. Its admin is checked again at every request, so account revoke
 * --ops ends it. Every form carries a CSRF token: before sign-in the
 * double-submitted cookie's, after it md5("csrf:" token), bound to the
 * session. Actions are logged with the admin's name (log/ops.log).
 */
#include "ops.h"
#include "account.h"
#include "config.h"
#include "db.h"
#include "db_ops.h"
#include "db_web.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "passwd.h"
#include "wtime.h"

#include <openssl/crypto.h>

static bool hex32(const char *s)
{
	return s && passwd_hash_ok(s);
}

/* md5(prefix + tok) in hex. */
static void keyed(const char *prefix, const char *tok, char out[33])
{
	struct sbuf b = SBUF_INIT(256);

	sbuf_addstr(&b, prefix);
	sbuf_addstr(&b, tok);
	md5_buf(b.buf, b.len, out);
	sbuf_release(&b);
}

static void set_cookie(struct ops *o, const char *name, const char *value, long max_age)
{
	sbuf_addf(&o->o->headers, "Set-Cookie: %s=%s; Path=%s; Max-Age=%ld; HttpOnly; "
		  "SameSite=Strict%s\r\n", name, value, o->base, max_age,
		  o->r->https ? "; Secure" : "");
}

bool ops_is_admin(struct db *db, int64_t userid)
{
	bool yes = false;

	return db_ops_admin_is(db, userid, &yes) == DB_OK && yes;
}

/* The signed-in admin of the session cookie, if any. */
static void find_admin(struct ops *o)
{
	struct db_web_session s = { 0 };
	char *tok = web_cookie(o->r, OPS_SESSION_COOKIE), h[33];

	if (hex32(tok) && o->c->db) {
		keyed("ops:", tok, h);
		if (db_rec_lookup_by(o->c->db, &db_web_session_table, "token_hash", h, &s) == DB_OK &&
		    s.expire_time > now() && db_user_lookup_id(o->c->db, s.userid, &o->admin) == DB_OK &&
		    ops_is_admin(o->c->db, o->admin.id))
			keyed("csrf:", tok, o->csrf);
		else {          /* a lookup that found a user who is no admin */
			db_user_release(&o->admin);
			memset(&o->admin, 0, sizeof(o->admin));
		}
	}
	db_web_session_release(&s);
	free(tok);
}

/* The ops URL: the master URL's last element with "_ops" ("/wseq/" -> "/wseq_ops/"). */
static void ops_urls(struct ops *o)
{
	const char *m = o->c->cfg->master_url, *p;
	size_t n = strlen(m);

	while (n && m[n - 1] == '/')
		n--;
	o->url = xasprintf("%.*s_ops/", (int)n, m);
	p = strstr(o->url, "://");
	p = p ? strchr(p + 3, '/') : o->url;
	o->base = xstrdup(p ? p : "/");
}

void ops_init(struct ops *o, const struct web_ctx *c, const struct web_req *r,
	      struct web_reply *out)
{
	const char *path = r->path ? r->path : "";
	char *lc;
	size_t n;

	memset(o, 0, sizeof(*o));
	o->c = c;
	o->r = r;
	o->o = out;
	o->b = &out->body;
	ops_urls(o);
	n = strlen(o->base);
	if (!strncmp(path, o->base, n))
		o->page = path + n;
	else if (!strncmp(path, o->base, n - 1) && !path[n - 1])
		o->page = "";
	else
		o->page = path;         /* not ours: no page matches it */
	lc = web_cookie(r, OPS_CSRF_COOKIE);
	if (hex32(lc)) {
		snprintf(o->login_csrf, sizeof(o->login_csrf), "%s", lc);
	} else if (random_hex(o->login_csrf, 16) == 0) {
		set_cookie(o, OPS_CSRF_COOKIE, o->login_csrf, 86400);
	}
	free(lc);
	find_admin(o);
	if (!o->admin.id)
		memcpy(o->csrf, o->login_csrf, sizeof(o->csrf));
	web_page_headers(out);
}

void ops_release(struct ops *o)
{
	db_user_release(&o->admin);
	free(o->base);
	free(o->url);
}

const char *ops_who_is(const struct db_user *u, const char *addr)
{
	/* one request at a time: a buffer for the log line being written */
	static char who[200];
	size_t i;

	snprintf(who, sizeof(who), "%s (user %" PRId64 ") [%s]", u->name ? u->name : "?", u->id,
		 addr);
	for (i = 0; who[i]; i++)
		if ((unsigned char)who[i] < 0x20 || who[i] == 0x7f)
			who[i] = '?';
	return who;
}

const char *ops_who(struct ops *o)
{
	return ops_who_is(&o->admin, o->r->remote_addr);
}

void ops_csrf_field(struct ops *o)
{
	sbuf_addf(o->b, "<input type=\"hidden\" name=\"csrf\" value=\"%s\">", o->csrf);
}

bool ops_post_ok(struct ops *o)
{
	const char *sent = web_param(o->r, "csrf");

	if (strcmp(o->r->method, "POST")) {
		ops_message(o, 405, "Not allowed", "This page takes a form sent with POST.");
		return false;
	}
	if (strlen(o->csrf) != 32 || !sent || strlen(sent) != 32 ||
	    CRYPTO_memcmp(sent, o->csrf, 32)) {
		log_warn("ops [%s]: a form refused: no or wrong CSRF token", o->r->remote_addr);
		ops_message(o, 403, "Form refused", "This form did not come from the ops pages' own "
			    "page (or the browser refused their cookie). Go back, reload the page "
			    "and try again.");
		return false;
	}
	return true;
}

/* ---- layout ---------------------------------------------------------------------------- */

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}"
	"header{background:#1d2a3a;color:#fff;padding:.5em 1em;display:flex;gap:1.2em;"
	"align-items:center;flex-wrap:wrap}header a{color:#cfe0ff;text-decoration:none}"
	"header .brand{font-weight:600;color:#fff}header .who{margin-left:auto;color:#aab}"
	"header form{display:inline}main{padding:1em 1.5em;max-width:1200px}"
	"h1{font-size:1.4em;margin:.3em 0 .6em}h2{font-size:1.1em;margin:1.2em 0 .4em}"
	"table{border-collapse:collapse;background:#fff;margin:.3em 0 1em}"
	"th,td{border:1px solid #d5d9e0;padding:.25em .6em;text-align:left;vertical-align:top}"
	"th{background:#eef1f5;font-weight:600}td.num{text-align:right;font-variant-numeric:"
	"tabular-nums}.ok{color:#186a2e}.bad{color:#a61b1b;font-weight:600}.dim{color:#777}"
	".running{color:#186a2e;font-weight:600}.not-running{color:#a61b1b;font-weight:600}"
	"h3.log{font-size:1em;margin:.6em 0 .2em}pre.log{background:#101820;color:#d7e3f0;padding:.5em;overflow:auto;max-height:12em;"
	"font-size:12px;margin:.2em 0 .8em}.error{color:#a61b1b}.message{font-size:1.1em}"
	"form.action{margin:.6em 0}button.danger{background:#a61b1b;color:#fff;border:0;"
	"padding:.35em .9em;border-radius:3px;cursor:pointer}"
	".timeline{background:#fff;border:1px solid #d5d9e0;margin:.5em 0;max-width:100%;height:auto}"
	"label{display:block;margin:.4em 0 .1em}input[type=text],input[type=email],"
	"input[type=password]{width:22em;padding:.3em}.login{max-width:30em}";

static void nav(struct ops *o)
{
	static const struct { const char *rel, *text; } items[] = {
		{ "", "Overview" }, { "errors", "Errors" }, { "hosts", "Hosts" },
		{ "batches", "Batches" }, { "apps", "Apps" }, { "sequences", "Sequences" },
		{ "news", "News" }, { "mail", "Mail" },
	};
	size_t i;

	sbuf_addstr(o->b, "<nav>");
	for (i = 0; i < ARRAY_SIZE(items); i++) {
		sbuf_addstr(o->b, i ? " " : "");
		ops_link(o, items[i].rel, items[i].text);
	}
	sbuf_addstr(o->b, "</nav>\n<span class=\"who\">");
	ops_esc(o->b, o->admin.name);
	sbuf_addstr(o->b, "</span>\n<form method=\"post\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addstr(o->b, "logout\">");
	ops_csrf_field(o);
	sbuf_addstr(o->b, "<button type=\"submit\">Sign out</button></form>\n");
}

void ops_start(struct ops *o, const char *title)
{
	struct sbuf *b = o->b;

	o->o->content_type = "text/html; charset=utf-8";
	sbuf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"robots\" content=\"noindex\">\n<title>");
	ops_esc(b, title);
	sbuf_addstr(b, " - ");
	ops_esc(b, o->c->cfg->long_name);
	sbuf_addstr(b, " ops</title>\n<style>");
	sbuf_addstr(b, style);
	sbuf_addstr(b, "</style>\n</head>\n<body>\n<header>\n<span class=\"brand\">");
	ops_esc(b, o->c->cfg->long_name);
	sbuf_addstr(b, " &middot; ops</span>\n");
	if (o->admin.id)
		nav(o);
	sbuf_addstr(b, "</header>\n<main>\n<h1>");
	ops_esc(b, title);
	sbuf_addstr(b, "</h1>\n");
}

void ops_end(struct ops *o)
{
	sbuf_addstr(o->b, "<p class=\"dim\">As of ");
	ops_time(o->b, now());
	sbuf_addstr(o->b, " UTC.</p>\n</main>\n</body>\n</html>\n");
}

void ops_message(struct ops *o, int status, const char *title, const char *msg)
{
	o->o->status = status;
	sbuf_reset(o->b);
	ops_start(o, title);
	sbuf_addstr(o->b, "<p class=\"message\">");
	ops_esc(o->b, msg);
	sbuf_addstr(o->b, "</p>\n");
	ops_end(o);
}

void ops_redirect(struct ops *o, const char *rel)
{
	o->o->status = 303;
	sbuf_addf(&o->o->headers, "Location: %s%s\r\n", o->url, rel);
	sbuf_reset(o->b);
}
