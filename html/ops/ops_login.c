/*
 * Signing in and out of the ops pages (see ops_page.c for the rules).
 */
#include "ops.h"
#include "account.h"
#include "config.h"
#include "db.h"
#include "db_web.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "passwd.h"
#include "wtime.h"

#define NEXT_MAX 300

/* Where to go after signing in: a page of the ops site, given as page[?query]. */
static bool next_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0, i;

	if (!n || n > NEXT_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_?=&%.+-", c)))
			return false;
	}
	return true;
}

static void field(struct ops *o, const char *label, const char *name, const char *type,
		  const char *autocomplete)
{
	sbuf_addf(o->b, "<label for=\"%s\">", name);
	ops_esc(o->b, label);
	sbuf_addf(o->b, "</label><input id=\"%s\" name=\"%s\" type=\"%s\" autocomplete=\"%s\">\n",
		  name, name, type, autocomplete);
}

static void form_head(struct ops *o, const char *next)
{
	sbuf_addstr(o->b, "<form method=\"post\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addstr(o->b, "login\">");
	ops_csrf_field(o);
	if (next_ok(next)) {
		sbuf_addstr(o->b, "<input type=\"hidden\" name=\"next\" value=\"");
		ops_esc(o->b, next);
		sbuf_addstr(o->b, "\">");
	}
	sbuf_addstr(o->b, "\n");
}

void ops_login_page(struct ops *o, int status, const char *error)
{
	struct sbuf next = SBUF_INIT(NEXT_MAX + 2);
	const char *n = web_param(o->r, "next");

	if (!strcmp(o->page, "login") && n)
		sbuf_addstr(&next, n);
	else if (strcmp(o->page, "login") && strcmp(o->page, "logout"))
		sbuf_addf(&next, "%s%s%s", o->page, *o->r->query_string ? "?" : "",
			  o->r->query_string);
	o->o->status = status;
	if (status == 401)
		sbuf_addf(&o->o->headers, "WWW-Authenticate: Form realm=\"%s\"\r\n", o->base);
	sbuf_reset(o->b);
	ops_start(o, "Sign in");
	sbuf_addstr(o->b, "<div class=\"login\">\n<p>The ops pages are for the project's "
		       "administrators (accounts granted it with <code>account grant --ops</code>).</p>\n");
	if (error) {
		sbuf_addstr(o->b, "<p class=\"error\">");
		ops_esc(o->b, error);
		sbuf_addstr(o->b, "</p>\n");
	}
	form_head(o, sbuf_str(&next));
	field(o, "E-mail address", "email_addr", "email", "username");
	field(o, "Password", "passwd", "password", "current-password");
	sbuf_addstr(o->b, "<p><button type=\"submit\" id=\"login_pw\">Sign in</button></p>\n</form>\n"
		       "<h2>Or with the account's key</h2>\n");
	form_head(o, sbuf_str(&next));
	field(o, "Authenticator (keys/admin_authenticator)", "authenticator", "password", "off");
	sbuf_addstr(o->b, "<p><button type=\"submit\" id=\"login_key\">Sign in</button></p>\n"
		       "</form>\n</div>\n");
	ops_end(o);
	sbuf_release(&next);
}

static int start_session(struct ops *o, const struct db_user *u)
{
	struct db_web_session s = { 0 };
	char tok[33], h[33];
	struct sbuf b = SBUF_INIT(256);

	if (random_hex(tok, 16) < 0)
		return -1;
	if (db_web_session_purge(o->c->db, now(), now() - ACCOUNT_LOGIN_WINDOW) != DB_OK)
		log_warn("cannot remove expired sessions");
	sbuf_addf(&b, "ops:%s", tok);
	md5_buf(b.buf, b.len, h);
	sbuf_release(&b);
	s.token_hash = h;
	s.userid = u->id;
	s.create_time = now();
	s.expire_time = s.create_time + OPS_SESSION_SECONDS;
	if (db_web_session_insert(o->c->db, &s) != DB_OK)
		return log_error("ops: cannot start a session for user %" PRId64, u->id);
	sbuf_addf(&o->o->headers, "Set-Cookie: %s=%s; Path=%s; Max-Age=%ld; HttpOnly; "
		  "SameSite=Strict%s\r\n", OPS_SESSION_COOKIE, tok, o->base, OPS_SESSION_SECONDS,
		  o->r->https ? "; Secure" : "");
	return 0;
}

/* The account the form names: by authenticator, else by e-mail address and password. */
static int find_account(struct ops *o, struct db_user *u, struct account_error *e)
{
	const char *key = web_param(o->r, "authenticator"), *email = web_param(o->r, "email_addr"),
		   *pw = web_param(o->r, "passwd");
	char h[PASSWD_HASH_HEX + 1];

	if (key && *key)
		return account_lookup_auth(o->c->db, o->c->acct, o->r->remote_addr, key, u, e);
	if (!email || !*email || !pw || !*pw)
		return account_fail(e, ACCT_ERR_GENERIC, "Give the e-mail address and password, "
				    "or the authenticator.");
	passwd_hash_of(pw, email, h);
	return account_lookup(o->c->db, o->c->acct, o->r->remote_addr, email, h, u, e);
}

void ops_login_post(struct ops *o)
{
	struct account_error e = { 0 };
	struct db_user u = { 0 };
	const char *next = web_param(o->r, "next");

	if (!ops_post_ok(o))
		return;
	if (!o->c->db) {
		ops_login_page(o, 503, "The project's database is not available; try again later.");
		return;
	}
	if (find_account(o, &u, &e) != ACCT_OK) {
		log_warn("ops [%s]: sign-in refused (%d)", o->r->remote_addr, e.num);
		ops_login_page(o, e.throttled ? 429 : 401,
			       e.num == ACCT_ERR_DB || e.throttled || e.num == ACCT_ERR_GENERIC
			       ? e.msg : "Wrong e-mail address, password or authenticator.");
	} else if (!ops_is_admin(o->c->db, u.id)) {
		log_warn("ops: sign-in refused: %s is not an admin", ops_who_is(&u, o->r->remote_addr));
		ops_login_page(o, 403, "This account is not one of the project's administrators.");
	} else if (start_session(o, &u) < 0) {
		ops_login_page(o, 500, "Signing in failed; try again later.");
	} else {
		log_info("ops: admin %s signed in", ops_who_is(&u, o->r->remote_addr));
		ops_redirect(o, next_ok(next) ? next : "");
	}
	db_user_release(&u);
}

void ops_logout_post(struct ops *o)
{
	struct db_web_session s = { 0 };
	char *tok;
	char h[33];
	struct sbuf b = SBUF_INIT(256);

	if (!ops_post_ok(o))
		return;
	tok = web_cookie(o->r, OPS_SESSION_COOKIE);
	if (tok && passwd_hash_ok(tok)) {
		sbuf_addf(&b, "ops:%s", tok);
		md5_buf(b.buf, b.len, h);
		if (db_rec_lookup_by(o->c->db, &db_web_session_table, "token_hash", h, &s) == DB_OK)
			db_web_session_delete(o->c->db, &s);
	}
	log_info("ops: admin %s signed out", ops_who(o));
	sbuf_addf(&o->o->headers, "Set-Cookie: %s=; Path=%s; Max-Age=0; HttpOnly; SameSite=Strict\r\n",
		  OPS_SESSION_COOKIE, o->base);
	ops_redirect(o, "");
	db_web_session_release(&s);
	sbuf_release(&b);
	free(tok);
}
