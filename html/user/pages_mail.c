/*
 * What is done through a mailed link: a forgotten password (get_passwd.php
 * asks the address and says the same whether or not it has an account;
 * reset_passwd?t=.. sets a new one and ends every session), a new address
 * (edit_email_form.php mails a link to it; confirm_email?t=.. makes the
 * change and tells the old address), and the admins' mailings' unsubscribe
 * link (opt_out.php, no sign-in needed). Links work once, for the project's
 * mail_token_hours.
 */
#include "pages.h"
#include "account_mail.h"
#include "config.h"
#include "db.h"
#include "db_mail.h"
#include "db_web.h"
#include "log.h"
#include "passwd.h"
#include "sbuf.h"
#include "wtime.h"

#define MAIL_DOWN "The project could not send mail just now; please try again later."

/* The link to page rel?t=tok, for a message. Allocated. */
static char *link_of(struct page *p, const char *rel, const char *tok)
{
	return xasprintf("%s%s?t=%s", p->c->cfg->master_url, rel, tok);
}

static void hours(struct sbuf *b, long h)
{
	sbuf_addf(b, "%ld hour%s", h, h == 1 ? "" : "s");
}

static void get_passwd_form(struct page *p, const char *error)
{
	if (error)
		p->o->status = 400;
	page_start(p, "Forgotten password");
	page_error_para(p, error);
	sbuf_addstr(&p->o->body, "<p>Give the e-mail address of your account: a link to choose a "
				 "new password will be mailed to it.</p>\n");
	page_form_start(p, "get_passwd.php");
	page_field_row(p, "E-mail address", "email_addr", "email", web_param(p->r, "email_addr"),
		       "email");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Mail me a link</button></p>\n</form>\n");
	page_end(p);
}

/* Mail user u its reset link. 0 or -1 (logged). */
static int mail_reset(struct page *p, const struct db_user *u)
{
	char tok[ACCOUNT_TOKEN_HEX + 1], *link, *body;
	struct sbuf b = SBUF_INIT(8192);
	int rc;

	if (account_token_new(p->c->db, p->c->acct, u->id, MAIL_TOKEN_RESET, NULL, tok) < 0)
		return -1;
	link = link_of(p, "reset_passwd", tok);
	sbuf_addf(&b, "Someone, probably you, asked to reset the password of your account at "
		      "%s.\n\nTo choose a new password, open this link within ", p->c->cfg->long_name);
	hours(&b, p->c->acct->mail_token_hours);
	sbuf_addf(&b, ":\n\n%s\n\nThe link works once. If you did not ask, ignore this message: "
		      "your password stays as it is.\n", link);
	body = sbuf_detach(&b, NULL);
	rc = account_mail(p->c->cfg, p->c->acct, u->email_addr, "Your password", body);
	free(link);
	free(body);
	return rc;
}

void page_get_passwd(struct page *p)
{
	const char *email = web_param(p->r, "email_addr");
	struct account_error e;
	struct db_user u = { 0 };
	struct sbuf *b = &p->o->body;
	int rc;

	if (!page_form_post(p, get_passwd_form))
		return;
	if (!email || account_check_email(email, &e) != ACCT_OK) {
		get_passwd_form(p, "Please give a valid e-mail address.");
		return;
	}
	if (account_throttle(p->c->db, p->c->acct, p->r->remote_addr, &e) != ACCT_OK) {
		get_passwd_form(p, e.msg);
		p->o->status = e.throttled ? 429 : 503;
		return;
	}
	rc = account_lookup(p->c->db, p->c->acct, NULL, email, NULL, &u, &e);
	/* an unknown address gets the same answer: the server is asked whether it is up */
	if (rc == ACCT_OK ? mail_reset(p, &u) < 0 :
	    rc == ACCT_ERR_NOT_FOUND ? account_mail_server_up(p->c->acct) < 0 : true) {
		page_message(p, 503, "Forgotten password", rc == ACCT_ERR_DB ? e.msg : MAIL_DOWN);
		db_user_release(&u);
		return;
	}
	log_info("password reset asked [%s]", p->r->remote_addr);
	page_start(p, "Forgotten password");
	sbuf_addstr(b, "<p class=\"done\">If an account has the address <strong>");
	web_html(b, email);
	sbuf_addstr(b, "</strong>, a message with a link to choose a new password is on its way "
		       "to it. The link works once, for ");
	hours(b, p->c->acct->mail_token_hours);
	sbuf_addstr(b, ".</p>\n");
	page_end(p);
	db_user_release(&u);
}

static void reset_form(struct page *p, const char *error)
{
	const char *tok = web_param(p->r, "t");
	struct db_mail_token t = { 0 };
	enum account_token_state s = p->c->db ? account_token_check(p->c->db, tok, MAIL_TOKEN_RESET, &t)
					      : ACCT_TOKEN_DB;

	db_mail_token_release(&t);
	if (s != ACCT_TOKEN_OK) {
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		return;
	}
	if (error)
		p->o->status = 400;
	page_start(p, "Choose a new password");
	page_error_para(p, error);
	sbuf_addf(&p->o->body, "<p class=\"hint\">Passwords have at least %ld characters.</p>\n",
		  p->c->acct->min_passwd_length);
	page_form_start(p, "reset_passwd");
	sbuf_addstr(&p->o->body, "<input type=\"hidden\" name=\"t\" value=\"");
	web_html(&p->o->body, tok);
	sbuf_addstr(&p->o->body, "\">\n");
	page_field_row(p, "New password", "passwd", "password", NULL, "new-password");
	page_field_row(p, "New password again", "passwd2", "password", NULL, "new-password");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Set the password</button></p>\n</form>\n");
	page_end(p);
}

/* The new password of a reset, in the link's transaction; every session ends. */
static int reset_act(struct db *db, struct db_user *u, const struct db_mail_token *t, void *arg)
{
	char h[PASSWD_HASH_HEX + 1];
	struct account_error e;

	(void)t;
	passwd_hash_of(arg, u->email_addr, h);
	if (account_set_passwd(db, u, h, &e) != ACCT_OK)
		return log_error("password reset of user %" PRId64 ": %s", u->id, e.msg);
	log_info("user %" PRId64 ": password reset through a mailed link", u->id);
	return 0;
}

void page_reset_passwd(struct page *p)
{
	const char *pw = web_param(p->r, "passwd"), *pw2 = web_param(p->r, "passwd2");
	const char *tok = web_param(p->r, "t");
	struct account_error e;
	struct db_mail_token t = { 0 };
	enum account_token_state s;

	if (!page_form_post(p, reset_form))
		return;
	if (account_throttle(p->c->db, p->c->acct, p->r->remote_addr, &e) != ACCT_OK) {
		page_message(p, e.throttled ? 429 : 503, "Link refused", e.msg);
		return;
	}
	if (!pw || !pw2 || strcmp(pw, pw2)) {
		reset_form(p, "The two passwords differ.");
		return;
	}
	if (page_chars(pw) < p->c->acct->min_passwd_length) {
		reset_form(p, "The password is too short.");
		return;
	}
	s = account_token_follow(p->c->db, tok, MAIL_TOKEN_RESET, reset_act, (void *)pw);
	if (s != ACCT_TOKEN_OK) {
		log_info("password reset [%s]: link refused (%d)", p->r->remote_addr, (int)s);
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		return;
	}
	/* this browser is signed in afresh; every other session has ended */
	if (account_token_check(p->c->db, tok, MAIL_TOKEN_RESET, &t) == ACCT_TOKEN_USED && t.userid)
		page_login(p, t.userid);
	db_mail_token_release(&t);
	page_message(p, 200, "Password changed", "Your new password is set, and every other "
		     "browser signed in to your account has been signed out.");
}

static void email_form(struct page *p, const char *error)
{
	if (error)
		p->o->status = 400;
	page_start(p, "Change your e-mail address");
	page_error_para(p, error);
	sbuf_addstr(&p->o->body, "<p>A link to confirm the change is mailed to the new address; "
				 "the address changes when it is followed.</p>\n");
	page_form_start(p, "edit_email_form.php");
	page_field_row(p, "New e-mail address", "email_addr", "email", web_param(p->r, "email_addr"),
		       "email");
	page_field_row(p, "Your password", "passwd", "password", NULL, "current-password");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Mail a link to it</button></p>\n</form>\n");
	page_end(p);
}

/* The signed-in user's password is pw (throttled as sign-ins): 0, or the form again and -1. */
static int password_ok(struct page *p, const char *pw, void (*form)(struct page *, const char *))
{
	struct db_user u = { 0 };
	struct account_error e;
	char h[PASSWD_HASH_HEX + 1];
	int rc;

	passwd_hash_of(pw ? pw : "", p->user.email_addr, h);
	rc = account_lookup(p->c->db, p->c->acct, p->r->remote_addr, p->user.email_addr, h, &u, &e);
	db_user_release(&u);
	if (rc == ACCT_OK)
		return 0;
	form(p, e.throttled || rc == ACCT_ERR_DB ? e.msg : "Wrong password.");
	if (e.throttled)
		p->o->status = 429;
	return -1;
}

static int mail_email_link(struct page *p, const char *email)
{
	char tok[ACCOUNT_TOKEN_HEX + 1], *link, *body;
	int rc;

	if (account_token_new(p->c->db, p->c->acct, p->user.id, MAIL_TOKEN_EMAIL, email, tok) < 0)
		return -1;
	link = link_of(p, "confirm_email", tok);
	body = xasprintf("Someone, probably you, asked to make this the e-mail address of the "
			 "account \"%s\" at %s.\n\nTo confirm, open this link within %ld hour(s) "
			 "and give the account's password:\n\n%s\n\nIf you did not ask, ignore "
			 "this message: nothing changes.\n", p->user.name, p->c->cfg->long_name,
			 p->c->acct->mail_token_hours, link);
	rc = account_mail(p->c->cfg, p->c->acct, email, "Confirm your new e-mail address", body);
	free(link);
	free(body);
	return rc;
}

void page_edit_email(struct page *p)
{
	const char *email = web_param(p->r, "email_addr");
	struct account_error e;
	struct db_user other = { 0 };
	char *lc;
	int rc;

	if (!page_need_user(p) || !page_form_post(p, email_form))
		return;
	if (!email || account_check_email(email, &e) != ACCT_OK) {
		email_form(p, "Please give a valid e-mail address.");
		return;
	}
	if (password_ok(p, web_param(p->r, "passwd"), email_form) < 0)
		return;
	lc = account_lowercase(email);
	rc = db_user_lookup_email(p->c->db, lc, &other);
	db_user_release(&other);
	if (rc == DB_OK)
		email_form(p, "Another account has that address.");
	else if (rc != DB_NOT_FOUND)
		email_form(p, "The project's database is not available; please try again later.");
	else if (mail_email_link(p, lc) < 0)
		page_message(p, 503, "Change your e-mail address", MAIL_DOWN);
	else
		page_message(p, 200, "Change your e-mail address", "A link to confirm the change is "
			     "on its way to the new address. Your address changes when you follow it.");
	free(lc);
}

static void confirm_form(struct page *p, const char *error)
{
	const char *tok = web_param(p->r, "t");
	struct db_mail_token t = { 0 };
	enum account_token_state s = p->c->db ? account_token_check(p->c->db, tok, MAIL_TOKEN_EMAIL, &t)
					      : ACCT_TOKEN_DB;

	if (s != ACCT_TOKEN_OK) {
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		db_mail_token_release(&t);
		return;
	}
	if (error)
		p->o->status = 400;
	page_start(p, "Confirm your new e-mail address");
	page_error_para(p, error);
	sbuf_addstr(&p->o->body, "<p>The account's address becomes <strong>");
	web_html(&p->o->body, t.data);
	sbuf_addstr(&p->o->body, "</strong>. Give the account's password to confirm.</p>\n");
	page_form_start(p, "confirm_email");
	sbuf_addstr(&p->o->body, "<input type=\"hidden\" name=\"t\" value=\"");
	web_html(&p->o->body, tok);
	sbuf_addstr(&p->o->body, "\">\n");
	page_field_row(p, "Password", "passwd", "password", NULL, "current-password");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Confirm</button></p>\n</form>\n");
	page_end(p);
	db_mail_token_release(&t);
}

struct email_change {
	const char *pw;
	char *old;              /* the address before (allocated) */
	bool wrong_passwd;
	bool taken;             /* another account took the address meanwhile */
};

static int email_act(struct db *db, struct db_user *u, const struct db_mail_token *t, void *arg)
{
	struct email_change *c = arg;
	char h[PASSWD_HASH_HEX + 1], nh[PASSWD_HASH_HEX + 1], stored[PASSWD_STORED_MAX];

	struct db_user other = { 0 };
	int rc;

	passwd_hash_of(c->pw, u->email_addr, h);
	if (!passwd_verify(h, u->passwd_hash)) {
		c->wrong_passwd = true;
		return -1;
	}
	rc = db_user_lookup_email(db, t->data, &other);
	db_user_release(&other);
	if (rc != DB_NOT_FOUND) {
		c->taken = rc == DB_OK;
		return -1;
	}
	/* the stored password is a hash of password and address: made anew for the new one */
	passwd_hash_of(c->pw, t->data, nh);
	if (passwd_store(nh, stored) < 0 ||
	    db_user_set_email(db, u->id, t->data, stored, (double)now()) != DB_OK ||
	    db_web_session_end_user(db, u->id) != DB_OK)
		return log_error("user %" PRId64 ": cannot change the address", u->id);
	c->old = xstrdup(u->email_addr);
	log_info("user %" PRId64 ": e-mail address changed through a mailed link", u->id);
	return 0;
}

void page_confirm_email(struct page *p)
{
	const char *tok = web_param(p->r, "t");
	struct email_change c = { web_param(p->r, "passwd"), NULL, false, false };
	struct account_error e;
	struct db_mail_token t = { 0 };
	enum account_token_state s;

	if (!page_form_post(p, confirm_form))
		return;
	if (account_throttle(p->c->db, p->c->acct, p->r->remote_addr, &e) != ACCT_OK) {
		page_message(p, e.throttled ? 429 : 503, "Link refused", e.msg);
		return;
	}
	if (!c.pw)
		c.pw = "";
	s = account_token_follow(p->c->db, tok, MAIL_TOKEN_EMAIL, email_act, &c);
	if (c.wrong_passwd) {
		confirm_form(p, "Wrong password.");
		return;
	}
	if (c.taken) {
		page_message(p, 409, "Link refused", "Another account has taken that address since "
			     "the link was sent.");
		return;
	}
	if (s != ACCT_TOKEN_OK) {
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		return;
	}
	if (account_token_check(p->c->db, tok, MAIL_TOKEN_EMAIL, &t) == ACCT_TOKEN_USED && c.old) {
		char *body = xasprintf("The e-mail address of your account at %s has been changed "
				       "to %s.\n\nIf you did not do this, write to the project's "
				       "administrators.\n", p->c->cfg->long_name, t.data);

		if (account_mail(p->c->cfg, p->c->acct, c.old, "Your e-mail address changed", body) < 0)
			log_warn("user %" PRId64 ": the old address was not told of the change", t.userid);
		free(body);
		page_login(p, t.userid);
	}
	db_mail_token_release(&t);
	free(c.old);
	page_message(p, 200, "E-mail address changed", "Your account's e-mail address is changed. "
		     "Sign in with it from now on (your password is the same).");
}

/* Equal, in a time that says nothing of where they differ (both 32 characters). */
static bool same_code(const char *a, const char *b)
{
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < 32; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

void page_opt_out(struct page *p)
{
	int64_t id = page_id_param(p, "userid");
	const char *code = web_param(p->r, "code");
	struct db_user u = { 0 };
	char want[33];

	if (!p->c->db || !id || !code || db_user_lookup_id(p->c->db, id, &u) != DB_OK) {
		page_message(p, 403, "Link refused", "This unsubscribe link is not valid.");
		goto out;
	}
	account_opt_out_code(&u, want);
	if (strlen(code) != 32 || !same_code(code, want)) {
		log_info("opt_out [%s]: a wrong code for user %" PRId64, p->r->remote_addr, id);
		page_message(p, 403, "Link refused", "This unsubscribe link is not valid.");
	} else if (!u.send_email) {
		page_message(p, 200, "Unsubscribed", "You were unsubscribed already: the project "
			     "sends you no more news by mail.");
	} else if (db_user_set_send_email(p->c->db, id, 0) != DB_OK) {
		page_message(p, 503, "Unsubscribe", "The project's database is not available; "
			     "please try again later.");
	} else {
		log_info("user %" PRId64 " unsubscribed from the project's mailings", id);
		page_message(p, 200, "Unsubscribed", "You are unsubscribed: the project sends you "
			     "no more news by mail. (Mail you ask for, such as a password reset, "
			     "still comes.)");
	}
out:
	db_user_release(&u);
}
