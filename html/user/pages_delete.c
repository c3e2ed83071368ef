/*
 * Leaving the project, upstream's way: delete_account_request.php asks the
 * password and mails a link; delete_account_confirm.php?t=.. erases the
 * account's personal data (account_erase: hosts and credit stay in the
 * statistics, anonymous). And account_data: everything the project holds
 * about the signed-in volunteer, as XML.
 */
#include "pages.h"
#include "account_mail.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "log.h"
#include "passwd.h"
#include "sbuf.h"
#include "xml_write.h"

static void request_form(struct page *p, const char *error)
{
	if (error)
		p->o->status = 400;
	page_start(p, "Delete your account");
	page_error_para(p, error);
	sbuf_addstr(&p->o->body, "<p>Deleting your account erases your name, e-mail address, "
				 "password, country and web address, and signs out every browser; "
				 "your computers can no longer get work from the project. The work "
				 "they did stays in the project's statistics, without your name. "
				 "It cannot be undone.</p>\n<p>Give your password: a link to "
				 "confirm is then mailed to your address.</p>\n");
	page_form_start(p, "delete_account_request.php");
	page_field_row(p, "Password", "passwd", "password", NULL, "current-password");
	sbuf_addstr(&p->o->body, "<p><button type=\"submit\">Mail me the link</button></p>\n</form>\n");
	page_end(p);
}

void page_delete_request(struct page *p)
{
	const char *pw = web_param(p->r, "passwd");
	struct db_user u = { 0 };
	struct account_error e;
	char h[PASSWD_HASH_HEX + 1], tok[ACCOUNT_TOKEN_HEX + 1], *body;
	int rc;

	if (!page_need_user(p) || !page_form_post(p, request_form))
		return;
	passwd_hash_of(pw ? pw : "", p->user.email_addr, h);
	rc = account_lookup(p->c->db, p->c->acct, p->r->remote_addr, p->user.email_addr, h, &u, &e);
	db_user_release(&u);
	if (rc != ACCT_OK) {
		request_form(p, e.throttled || rc == ACCT_ERR_DB ? e.msg : "Wrong password.");
		if (e.throttled)
			p->o->status = 429;
		return;
	}
	if (account_token_new(p->c->db, p->c->acct, p->user.id, MAIL_TOKEN_DELETE, NULL, tok) < 0) {
		page_message(p, 503, "Delete your account", "Please try again later.");
		return;
	}
	body = xasprintf("You asked to delete your account at %s.\n\nTo delete it for good, open "
			 "this link within %ld hour(s):\n\n%sdelete_account_confirm.php?t=%s\n\nIf "
			 "you did not ask, ignore this message and change your password.\n",
			 p->c->cfg->long_name, p->c->acct->mail_token_hours, p->c->cfg->master_url,
			 tok);
	if (account_mail(p->c->cfg, p->c->acct, p->user.email_addr, "Deleting your account",
			 body) < 0)
		page_message(p, 503, "Delete your account", "The project could not send mail just "
			     "now; please try again later.");
	else
		page_message(p, 200, "Delete your account", "A link to confirm is on its way to your "
			     "e-mail address. Your account is deleted when you follow it.");
	free(body);
}

static void confirm_form(struct page *p, const char *error)
{
	const char *tok = web_param(p->r, "t");
	struct db_mail_token t = { 0 };
	enum account_token_state s = p->c->db ? account_token_check(p->c->db, tok, MAIL_TOKEN_DELETE, &t)
					      : ACCT_TOKEN_DB;

	db_mail_token_release(&t);
	if (s != ACCT_TOKEN_OK) {
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		return;
	}
	page_start(p, "Delete your account");
	page_error_para(p, error);
	sbuf_addstr(&p->o->body, "<p>This is the last step: your account's personal data is "
				 "erased for good.</p>\n");
	page_form_start(p, "delete_account_confirm.php");
	sbuf_addstr(&p->o->body, "<input type=\"hidden\" name=\"t\" value=\"");
	web_html(&p->o->body, tok);
	sbuf_addstr(&p->o->body, "\">\n<p><button type=\"submit\">Delete my account</button></p>\n"
				 "</form>\n");
	page_end(p);
}

static int delete_act(struct db *db, struct db_user *u, const struct db_mail_token *t, void *arg)
{
	(void)t;
	(void)arg;
	return account_erase(db, u);
}

void page_delete_confirm(struct page *p)
{
	enum account_token_state s;

	if (!page_form_post(p, confirm_form))
		return;
	s = account_token_follow(p->c->db, web_param(p->r, "t"), MAIL_TOKEN_DELETE, delete_act, NULL);
	if (s != ACCT_TOKEN_OK) {
		page_message(p, s == ACCT_TOKEN_DB ? 503 : 403, "Link refused", account_token_why(s));
		return;
	}
	page_logout(p);
	page_message(p, 200, "Account deleted", "Your account is deleted: its personal data is "
		     "erased. Thank you for the work your computers did.");
}

/* What a volunteer's data download leaves out: the secrets that prove who they are. */
static const char *const user_secrets[] = { "passwd_hash", "authenticator", "cross_project_id",
					    NULL };

static int host_xml(struct db_host *h, void *arg)
{
	struct sbuf *b = arg;

	sbuf_addstr(b, "  <host>\n");
	db_row_xml(b, &db_host_table, h, 4, NULL);
	sbuf_addstr(b, "  </host>\n");
	return 0;
}

void page_account_data(struct page *p)
{
	struct sbuf *b = &p->o->body;
	struct db_team t = { 0 };

	if (!page_need_user(p))
		return;
	p->o->content_type = "text/xml; charset=utf-8";
	sbuf_addstr(&p->o->headers, "Content-Disposition: attachment; filename=\"account_data.xml\"\r\n");
	sbuf_addstr(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<account_data>\n");
	xml_elem_str(b, 2, "project", p->c->cfg->long_name);
	sbuf_addstr(b, "  <user>\n");
	db_row_xml(b, &db_user_table, &p->user, 4, user_secrets);
	sbuf_addstr(b, "  </user>\n");
	if (p->user.teamid && db_team_lookup_id(p->c->db, p->user.teamid, &t) == DB_OK) {
		sbuf_addstr(b, "  <team>\n");
		xml_elem_i64(b, 4, "id", t.id);
		xml_elem_str(b, 4, "name", t.name);
		sbuf_addstr(b, "  </team>\n");
	}
	db_team_release(&t);
	if (db_host_enum_user(p->c->db, p->user.id, host_xml, b) != DB_OK)
		log_error("account_data: the hosts of user %" PRId64 " cannot be read", p->user.id);
	sbuf_addstr(b, "</account_data>\n");
	log_info("user %" PRId64 " downloaded the account's data [%s]", p->user.id, p->r->remote_addr);
}
