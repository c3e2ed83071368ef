/* Mailed links, the project's messages, erasing an account (account_mail.h). */
#include "account_mail.h"
#include "config.h"
#include "db.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_mail.h"
#include "db_ops.h"
#include "db_web.h"
#include "fileutil.h"
#include "log.h"
#include "mail.h"
#include "md5.h"
#include "passwd.h"
#include "sbuf.h"
#include "wtime.h"

#include <curl/curl.h>
#include <ctype.h>

int account_throttle(struct db *db, const struct account_settings *set, const char *addr,
		     struct account_error *e)
{
	struct db_user u = { 0 };
	int rc;

	/* a lookup of no address: counted by addr, never given back (no success) */
	rc = account_lookup(db, set, addr, "\x01", NULL, &u, e);
	db_user_release(&u);
	return e->throttled || rc == ACCT_ERR_DB ? e->num : ACCT_OK;
}

int account_token_new(struct db *db, const struct account_settings *set, int64_t userid,
		      int kind, const char *data, char tok[ACCOUNT_TOKEN_HEX + 1])
{
	struct db_mail_token t = { 0 };
	char h[MD5_HEX_LEN + 1];

	if (random_hex(tok, ACCOUNT_TOKEN_HEX / 2) < 0)
		return -1;
	md5_buf(tok, ACCOUNT_TOKEN_HEX, h);
	if (db_mail_token_forget(db, 0, now()) != DB_OK)
		log_warn("cannot forget expired mailed links");
	t.token_hash = h;
	t.userid = userid;
	t.kind = kind;
	t.create_time = now();
	t.expire_time = t.create_time + set->mail_token_hours * 3600;
	t.data = (char *)(data ? data : "");
	if (db_mail_token_insert(db, &t) != DB_OK)
		return log_error("cannot store a mailed link for user %" PRId64, userid);
	return 0;
}

static bool token_form_ok(const char *tok)
{
	size_t i;

	for (i = 0; tok && i < ACCOUNT_TOKEN_HEX; i++)
		if (!isxdigit((unsigned char)tok[i]) || isupper((unsigned char)tok[i]))
			return false;
	return tok && tok[i] == '\0';
}

enum account_token_state account_token_check(struct db *db, const char *tok, int kind,
					     struct db_mail_token *t)
{
	char h[MD5_HEX_LEN + 1];
	int rc;

	if (!token_form_ok(tok))
		return ACCT_TOKEN_UNKNOWN;
	md5_buf(tok, ACCOUNT_TOKEN_HEX, h);
	rc = db_mail_token_find(db, h, t);
	if (rc == DB_NOT_FOUND || (rc == DB_OK && t->kind != kind))
		return ACCT_TOKEN_UNKNOWN;
	if (rc != DB_OK)
		return ACCT_TOKEN_DB;
	if (t->used_time)
		return ACCT_TOKEN_USED;
	if (t->expire_time < now())
		return ACCT_TOKEN_EXPIRED;
	return ACCT_TOKEN_OK;
}

const char *account_token_why(enum account_token_state s)
{
	switch (s) {
	case ACCT_TOKEN_EXPIRED:
		return "This link has expired. Please ask for a new one.";
	case ACCT_TOKEN_USED:
		return "This link has been used already; it works only once. Please ask for a new one.";
	case ACCT_TOKEN_DB:
		return "The project's database cannot be reached; please try again later.";
	default:
		return "This link is not valid. Please check that it was copied whole, or ask for a new one.";
	}
}

struct follow {
	const char *tok;
	int kind;
	int (*act)(struct db *, struct db_user *, const struct db_mail_token *, void *);
	void *arg;
	enum account_token_state state;
};

static int follow_txn(struct db *db, void *arg)
{
	struct follow *f = arg;
	struct db_mail_token t = { 0 };
	struct db_user u = { 0 };
	int rc = DB_OK;

	f->state = account_token_check(db, f->tok, f->kind, &t);
	if (f->state == ACCT_TOKEN_OK) {
		rc = db_mail_token_use(db, t.id, now());
		if (rc == DB_NOT_FOUND)
			f->state = ACCT_TOKEN_USED;     /* another request took it meanwhile */
		else if (rc == DB_OK && (rc = db_user_lock(db, t.userid, &u)) == DB_NOT_FOUND)
			f->state = ACCT_TOKEN_UNKNOWN;
		else if (rc == DB_OK && f->act(db, &u, &t, f->arg) < 0)
			rc = DB_ERROR;
		if (rc != DB_OK && rc != DB_NOT_FOUND && rc != DB_RETRY)
			f->state = ACCT_TOKEN_DB;
	} else if (f->state == ACCT_TOKEN_DB) {
		rc = DB_ERROR;
	}
	db_mail_token_release(&t);
	db_user_release(&u);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

enum account_token_state account_token_follow(struct db *db, const char *tok, int kind,
					      int (*act)(struct db *db, struct db_user *u,
							 const struct db_mail_token *t, void *arg),
					      void *arg)
{
	struct follow f = { tok, kind, act, arg, ACCT_TOKEN_UNKNOWN };

	if (db_txn_run(db, follow_txn, &f) != DB_OK && f.state == ACCT_TOKEN_OK)
		f.state = ACCT_TOKEN_DB;
	return f.state;
}

/* noreply@ the master URL's host. Allocated. */
static char *default_from(const struct project_config *cfg)
{
	const char *h = strstr(cfg->master_url, "://");
	size_t n;

	h = h ? h + 3 : cfg->master_url;
	n = strcspn(h, ":/");
	return xasprintf("noreply@%.*s", (int)n, h);
}

int account_mail(const struct project_config *cfg, const struct account_settings *set,
		 const char *to, const char *subject, const char *body)
{
	char *from = set->mail_from && *set->mail_from ? xstrdup(set->mail_from) : default_from(cfg);
	struct mail_msg m = { set->mail_server, from, cfg->long_name, to, subject, body };
	int rc = mail_send(&m);

	free(from);
	return rc;
}

int account_mail_server_up(const struct account_settings *set)
{
	const char *server = set->mail_server && *set->mail_server ? set->mail_server :
			     MAIL_SERVER_DEFAULT;
	CURL *c = curl_easy_init();
	CURLcode rc;

	if (!c)
		return -1;
	curl_easy_setopt(c, CURLOPT_URL, server);
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK)
		return log_error("mail: the mail server %s does not answer: %s", server,
				 curl_easy_strerror(rc));
	return 0;
}

int account_erase(struct db *db, struct db_user *u)
{
	char *email = xasprintf("deleted_%" PRId64 "@invalid", u->id);
	char r[33], *auth;
	int rc;

	if (random_hex(r, 16) < 0) {
		free(email);
		return -1;
	}
	/* never the form of an authenticator given out (32 hex digits) */
	auth = xasprintf("deleted_%s", r);
	rc = db_user_erase(db, u->id, email, auth);
	if (rc == DB_OK)
		rc = db_web_session_end_user(db, u->id);
	if (rc == DB_OK)
		rc = db_mail_token_forget(db, u->id, 0);
	if (rc == DB_OK)
		rc = db_user_submit_revoke(db, u->id);
	if (rc == DB_OK)
		rc = db_ops_admin_revoke(db, u->id);
	free(email);
	free(auth);
	if (rc != DB_OK)
		return log_error("cannot erase account %" PRId64, u->id);
	log_info("account %" PRId64 " deleted: its personal data erased", u->id);
	return 0;
}

void account_opt_out_code(const struct db_user *u, char out[33])
{
	struct sbuf b = SBUF_INIT(1024);

	sbuf_addf(&b, "opt_out %" PRId64 " %s", u->id, u->authenticator ? u->authenticator : "");
	md5_buf(b.buf, b.len, out);
	sbuf_release(&b);
}

void account_rss_auth(int64_t userid, const char *authenticator, char out[64])
{
	struct sbuf b = SBUF_INIT(1024);
	char hex[33];

	sbuf_addf(&b, "notify_rss %" PRId64 " %s", userid, authenticator ? authenticator : "");
	md5_buf(b.buf, b.len, hex);
	snprintf(out, 64, "%" PRId64 "_%s", userid, hex);
	sbuf_release(&b);
}
