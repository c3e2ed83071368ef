/*
 * Accounts and teams: the checks and the transactions behind every door
 * (account RPCs, web pages, the account tool).
 */
#include "account.h"
#include "config.h"
#include "db.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_web.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "passwd.h"
#include "sbuf.h"
#include "wtime.h"
#include "xml.h"

#include <ctype.h>
#include <openssl/crypto.h>

#define A(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct account_settings, field), def, flags, min, max, arg, help }

const struct param account_params[] = {
	A("disable_account_creation_rpc", PARAM_BOOL, disable_account_creation_rpc, "0",
	  PARAM_NOOPTION, 0, 0, NULL,
	  "the BOINC client and Manager may not create accounts (the web site still may)"),
	A("invite_code", PARAM_STR, invite_code, NULL, PARAM_NOOPTION | PARAM_SECRET, 0, 0, "CODE",
	  "creating an account needs this invitation code (so only on the web site)"),
	A("min_passwd_length", PARAM_INT, min_passwd_length, "6", PARAM_NOOPTION | PARAM_BOUNDED,
	  1, 1000, "N", "shortest password accepted"),
	A("home_page_text", PARAM_STR, account_home_text, "home_page.html", PARAM_NOOPTION, 0, 0,
	  "FILE", "HTML shown on the home page, from this file of the project directory"),
	A("login_failures_max", PARAM_INT, login_failures_max, "30", PARAM_NOOPTION | PARAM_BOUNDED,
	  1, 1e6, "N", "attempts with a password or an account key one address, or one account, "
	  "may make in 15 minutes (successes given back); the rest are refused"),
	A("mail_server", PARAM_STR, mail_server, "smtp://localhost:25", PARAM_NOOPTION, 0, 0, "URL",
	  "the SMTP server the project's mail goes through (smtp://host:port, smtps://...)"),
	A("mail_from", PARAM_STR, mail_from, NULL, PARAM_NOOPTION, 0, 0, "ADDRESS",
	  "the address the project's mail comes from (default: the master URL's host's noreply@)"),
	A("mail_token_hours", PARAM_INT, mail_token_hours, "1", PARAM_NOOPTION | PARAM_BOUNDED,
	  1, 24 * 30, "N", "hours a mailed link (password reset, address change, deletion) works"),
	PARAM_TABLE_END
};

int account_fail(struct account_error *e, int num, const char *fmt, ...)
{
	va_list ap;

	e->num = num;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return num;
}

static int db_fail(struct account_error *e)
{
	return account_fail(e, ACCT_ERR_DB, "Can't access database");
}

static bool all_digits(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int account_check_name(const char *name, const char *what, struct account_error *e)
{
	size_t len = name ? strlen(name) : 0;
	char *out = NULL;
	int rc;

	if (!len)
		return account_fail(e, ACCT_ERR_BAD_USER_NAME, "%s is empty", what);
	rc = field_str(what, name, FIELD_COLUMN_CHARS, 0, &out, NULL);
	free(out);
	if (rc != FIELD_OK)
		return account_fail(e, ACCT_ERR_BAD_USER_NAME,
				    "%s must be at most %d characters of text", what,
				    FIELD_COLUMN_CHARS);
	if (isspace((unsigned char)name[0]) || isspace((unsigned char)name[len - 1]))
		return account_fail(e, ACCT_ERR_BAD_USER_NAME,
				    "%s may not begin or end with a space", what);
	if (all_digits(name))
		return account_fail(e, ACCT_ERR_BAD_USER_NAME, "%s may not be a number", what);
	return ACCT_OK;
}

int account_check_email(const char *email, struct account_error *e)
{
	const char *at, *dot, *p;
	size_t len = email ? strlen(email) : 0;

	if (!len || len > FIELD_COLUMN_CHARS || !field_text_ok(email, len, false))
		return account_fail(e, ACCT_ERR_BAD_EMAIL, "Email address has invalid syntax");
	at = strchr(email, '@');
	for (p = email; *p; p++)
		if (isspace((unsigned char)*p) || strchr("<>()[],;:\\\"", *p))
			break;
	dot = at ? strrchr(at, '.') : NULL;
	if (*p || !at || at == email || strchr(at + 1, '@') || !dot || dot == at + 1 ||
	    !dot[1] || strstr(at, ".."))
		return account_fail(e, ACCT_ERR_BAD_EMAIL, "Email address has invalid syntax");
	return ACCT_OK;
}

/* The text before the document's root element: only white space, no declaration. */
static bool bare_start(const char *v)
{
	while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
		v++;
	return v[0] == '<' && v[1] != '?' && v[1] != '!';
}

int account_check_prefs(const char *v, const char *what, struct account_error *e)
{
	struct sbuf err = SBUF_INIT(1024);
	size_t len = strlen(v);
	xmlDoc *d = len <= ACCOUNT_PREFS_MAX ? xml_read_memory(v, len, what, &err) : NULL;
	xmlNode *root = d ? xmlDocGetRootElement(d) : NULL;
	bool ok = root && !d->intSubset && !d->extSubset && d->children == root && !root->next &&
		  bare_start(v);

	sbuf_release(&err);
	if (d)
		xmlFreeDoc(d);
	if (ok)
		return ACCT_OK;
	return account_fail(e, ACCT_ERR_XML_PARSE, "Invalid XML: %s must be one element of at most "
			    "%ld bytes, without a declaration, DOCTYPE or entities", what,
			    ACCOUNT_PREFS_MAX);
}

char *account_lowercase(const char *email)
{
	char *k = xstrdup(email);
	char *p;

	for (p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return k;
}

static bool same_secret(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strlen(a) == n && CRYPTO_memcmp(a, b, n) == 0;
}

/* Is hash the user's password hash, or md5(authenticator + e-mail address)? */
static bool passwd_matches(const struct db_user *u, const char *hash)
{
	char alt[33], h[33];
	size_t i;

	if (passwd_verify(hash, u->passwd_hash))
		return true;
	if (!passwd_hash_ok(hash) || !u->authenticator || !*u->authenticator)
		return false;
	for (i = 0; i < 32; i++)
		h[i] = (char)tolower((unsigned char)hash[i]);
	h[32] = '\0';
	passwd_hash_of(u->authenticator, u->email_addr ? u->email_addr : "", alt);
	return same_secret(h, alt);
}

/*
 * The throttle: an attempt is counted before the password or key is looked
 * at, by the client's address and (when it names one) by the account, so
 * guesses sent at once are each counted before any is checked; one that
 * succeeds is given back at the end. What the admin's tool does (no
 * address) is never throttled.
 */
struct attempt {
	const char *addr;
	char acct[33];          /* md5 of the lower-cased address, "" if none */
	int64_t start;
	bool counted;
};

/* ACCT_OK, or the refusal in *e: this attempt is one too many, or cannot be counted. */
static int count_attempt(struct db *db, const struct account_settings *set, int kind,
			 const char *k, const struct attempt *t, struct account_error *e)
{
	int64_t n = 0;

	if (db_auth_attempt(db, kind, k, t->start, ACCOUNT_LOGIN_WINDOW, &n) != DB_OK)
		return db_fail(e);      /* a throttle that cannot count lets nobody try */
	/* an address's new window: a moment to forget the windows that are over */
	if (kind == DB_AUTH_ADDR && n == 1 &&
	    db_auth_purge(db, t->start - ACCOUNT_LOGIN_WINDOW) != DB_OK)
		log_warn("[%s] cannot forget old sign-in attempts", t->addr);
	if (n <= set->login_failures_max)
		return ACCT_OK;
	log_warn("[%s] sign-in refused: %" PRId64 " attempts %s in %d minutes (limit %ld)",
		 t->addr, n, kind == DB_AUTH_ADDR ? "from this address" : "on one account",
		 ACCOUNT_LOGIN_WINDOW / 60, set->login_failures_max);
	e->throttled = true;
	return account_fail(e, ACCT_ERR_BAD_PASSWD, "Too many attempts: please try again in %d "
			    "minutes", ACCOUNT_LOGIN_WINDOW / 60);
}

static int attempt_begin(struct db *db, const struct account_settings *set, const char *addr,
			 const char *email, struct attempt *t, struct account_error *e)
{
	memset(t, 0, sizeof(*t));
	if (!set || !addr)
		return ACCT_OK;
	t->addr = addr;
	t->start = now();
	t->counted = true;
	if (email && *email) {
		char *lc = account_lowercase(email);

		md5_buf(lc, strlen(lc), t->acct);
		free(lc);
	}
	/* both counted, whichever refuses: a refused guess still spends the other's budget */
	if (count_attempt(db, set, DB_AUTH_ADDR, addr, t, e) != ACCT_OK) {
		struct account_error ignored = { 0, "", false };

		if (*t->acct)
			count_attempt(db, set, DB_AUTH_ACCOUNT, t->acct, t, &ignored);
		return e->num;
	}
	if (*t->acct && count_attempt(db, set, DB_AUTH_ACCOUNT, t->acct, t, e) != ACCT_OK)
		return e->num;
	return ACCT_OK;
}

/* The door's answer: a success gives its attempt back; anything else stays counted. */
static int attempt_end(struct db *db, struct attempt *t, int rc)
{
	if (!t->counted || rc != ACCT_OK)
		return rc;
	if (db_auth_attempt_undo(db, DB_AUTH_ADDR, t->addr, t->start) != DB_OK ||
	    (*t->acct && db_auth_attempt_undo(db, DB_AUTH_ACCOUNT, t->acct, t->start) != DB_OK))
		log_warn("[%s] cannot give a successful sign-in its attempt back", t->addr);
	return rc;
}

static int lookup(struct db *db, const char *email, const char *passwd_hash,
		  struct db_user *u, struct account_error *e)
{
	char *key = account_lowercase(email);
	int rc = db_user_lookup_email(db, key, u);

	free(key);
	if (rc == DB_NOT_FOUND)
		return account_fail(e, ACCT_ERR_NOT_FOUND, "No account with that email address");
	if (rc != DB_OK)
		return db_fail(e);
	if (passwd_hash && !passwd_matches(u, passwd_hash))
		return account_fail(e, ACCT_ERR_BAD_PASSWD, "Invalid password");
	return ACCT_OK;
}

static void error_clear(struct account_error *e)
{
	e->num = 0;
	e->msg[0] = '\0';
	e->throttled = false;
}

struct create_job {
	const struct account_new *a;
	char *email;
	struct db_user *u;
	struct account_error *e;
	bool existed;
};

static int join_named_team(struct db *db, int64_t userid, const char *name)
{
	struct db_team t = { 0 };
	int rc = team_lookup_name(db, name, &t);

	if (rc == DB_OK && t.joinable)
		rc = db_user_set_team(db, userid, t.id);
	else if (rc == DB_OK || rc == DB_NOT_FOUND)
		rc = DB_OK;     /* as upstream: a team that cannot be joined is ignored */
	db_team_release(&t);
	return rc;
}

static int create_txn(struct db *db, void *arg)
{
	struct create_job *j = arg;
	struct db_user *u = j->u;
	char auth[33], cpid[33], stored[PASSWD_STORED_MAX];
	int rc;

	j->existed = false;
	rc = db_user_lookup_email(db, j->email, u);
	if (rc == DB_OK) {
		j->existed = true;
		/* upstream's idempotent answer, for the client only; never the join form's */
		if (j->a->door == ACCT_DOOR_RPC && passwd_matches(u, j->a->passwd_hash))
			return DB_OK;
		account_fail(j->e, ACCT_ERR_NOT_UNIQUE, "There is already an account with that "
			     "email address");
		return DB_NOT_FOUND;
	}
	if (rc != DB_NOT_FOUND)
		return rc;
	if (random_hex(auth, 16) < 0 || random_hex(cpid, 16) < 0 ||
	    passwd_store(j->a->passwd_hash, stored) < 0)
		return DB_ERROR;
	db_user_release(u);
	memset(u, 0, sizeof(*u));
	u->create_time = now();
	u->email_addr = xstrdup(j->email);
	u->name = xstrdup(j->a->name);
	u->authenticator = xstrdup(auth);
	u->cross_project_id = xstrdup(cpid);
	u->passwd_hash = xstrdup(stored);
	u->send_email = 1;
	u->show_hosts = 1;
	rc = db_user_insert(db, u);
	if (rc == DB_ERROR && db_errno(db) == 1062) {
		/* the same address created at this moment by another request */
		account_fail(j->e, ACCT_ERR_NOT_UNIQUE, "There is already an account with that "
			     "email address");
		return DB_NOT_FOUND;
	}
	if (rc == DB_OK && j->a->team_name && *j->a->team_name)
		rc = join_named_team(db, u->id, j->a->team_name);
	return rc;
}

int account_create(struct db *db, const struct project_config *cfg,
		   const struct account_settings *set, const struct account_new *a,
		   struct db_user *u, struct account_error *e)
{
	struct create_job j = { a, NULL, u, e, false };
	struct attempt t;
	int rc;

	error_clear(e);
	if (a->door != ACCT_DOOR_ADMIN) {
		if (cfg->disable_account_creation)
			return account_fail(e, ACCT_ERR_CREATION_DISABLED,
					    "This project is not accepting new accounts.");
		if (a->door == ACCT_DOOR_RPC && set->disable_account_creation_rpc)
			return account_fail(e, ACCT_ERR_CREATION_DISABLED,
					    "Please create an account on the project's web site.");
		if (set->invite_code && *set->invite_code) {
			if (!a->invite_code || !*a->invite_code)
				return account_fail(e, ACCT_ERR_CREATION_DISABLED,
						    "An invitation code is needed: please join "
						    "on the project's web site.");
			if (!same_secret(a->invite_code, set->invite_code))
				return account_fail(e, ACCT_ERR_INVITE_CODE,
						    "Invalid invitation code");
		}
	}
	if (account_check_name(a->name, "The user name", e) != ACCT_OK ||
	    account_check_email(a->email, e) != ACCT_OK)
		return e->num;
	if (!a->passwd_hash || !passwd_hash_ok(a->passwd_hash))
		return account_fail(e, ACCT_ERR_GENERIC, "missing or bad parameter: passwd_hash");
	if (a->passwd_len >= 0 && a->passwd_len < set->min_passwd_length)
		return account_fail(e, ACCT_ERR_BAD_PASSWD, "The password must be at least %ld "
				    "characters long", set->min_passwd_length);
	if (attempt_begin(db, set, a->addr, a->email, &t, e) != ACCT_OK)
		return e->num;
	j.email = account_lowercase(a->email);
	rc = db_txn_run(db, create_txn, &j);
	free(j.email);
	if (rc == DB_NOT_FOUND)
		return attempt_end(db, &t, e->num);
	if (rc != DB_OK)
		return attempt_end(db, &t, db_fail(e));
	if (!j.existed)
		log_info("account %" PRId64 " created (%s)", u->id,
			 a->door == ACCT_DOOR_RPC ? "client RPC" :
			 a->door == ACCT_DOOR_WEB ? "web" : "admin");
	return attempt_end(db, &t, ACCT_OK);
}

int account_lookup(struct db *db, const struct account_settings *set, const char *addr,
		   const char *email, const char *passwd_hash, struct db_user *u,
		   struct account_error *e)
{
	struct attempt t;

	error_clear(e);
	if (!email || !*email)
		return account_fail(e, ACCT_ERR_GENERIC, "missing or bad parameter: email_addr");
	/* a probe without a password counts by address only: it guesses at no account */
	if (attempt_begin(db, set, addr, passwd_hash ? email : NULL, &t, e) != ACCT_OK)
		return e->num;
	return attempt_end(db, &t, lookup(db, email, passwd_hash, u, e));
}

int account_lookup_auth(struct db *db, const struct account_settings *set, const char *addr,
			const char *authenticator, struct db_user *u, struct account_error *e)
{
	struct attempt t;
	int rc;

	error_clear(e);
	if (!authenticator || !*authenticator)
		return account_fail(e, ACCT_ERR_GENERIC, "missing or bad parameter: authenticator");
	if (attempt_begin(db, set, addr, NULL, &t, e) != ACCT_OK)
		return e->num;
	rc = strlen(authenticator) > FIELD_COLUMN_CHARS ? DB_NOT_FOUND :
	     db_user_lookup_auth(db, authenticator, u);
	if (rc == DB_NOT_FOUND)
		account_fail(e, ACCT_ERR_NOT_FOUND, "No account with that key");
	else if (rc != DB_OK)
		db_fail(e);
	return attempt_end(db, &t, e->num);
}

int account_set_passwd(struct db *db, struct db_user *u, const char *passwd_hash,
		       struct account_error *e)
{
	char stored[PASSWD_STORED_MAX];

	if (!passwd_hash_ok(passwd_hash))
		return account_fail(e, ACCT_ERR_GENERIC, "missing or bad parameter: passwd_hash");
	if (passwd_store(passwd_hash, stored) < 0)
		return account_fail(e, ACCT_ERR_GENERIC, "cannot store the password");
	/* the new password ends every session signed in with the old one */
	if (db_user_set_passwd(db, u->id, stored) != DB_OK ||
	    db_web_session_end_user(db, u->id) != DB_OK)
		return db_fail(e);
	free(u->passwd_hash);
	u->passwd_hash = xstrdup(stored);
	return ACCT_OK;
}

void account_external_cpid(const struct db_user *u, char out[33])
{
	struct sbuf b = SBUF_INIT(1024);

	sbuf_addstr(&b, u->cross_project_id ? u->cross_project_id : "");
	sbuf_addstr(&b, u->email_addr ? u->email_addr : "");
	md5_buf(b.buf, b.len, out);
	sbuf_release(&b);
}

void account_email_hash(const struct db_user *u, char out[33])
{
	const char *m = u->email_addr ? u->email_addr : "";

	md5_buf(m, strlen(m), out);
}

/* ---- teams ---- */

int team_lookup_name(struct db *db, const char *name, struct db_team *t)
{
	char *lc = account_lowercase(name);     /* the same ASCII lower-casing */
	int rc = db_rec_lookup_by(db, &db_team_table, "name_lc", lc, t);

	free(lc);
	return rc;
}

struct team_job {
	int64_t founder;
	const struct team_new *n;
	struct db_team *t;
	struct account_error *e;
};

static int team_create_txn(struct db *db, void *arg)
{
	struct team_job *j = arg;
	struct db_team *t = j->t;
	int rc;

	db_team_release(t);
	memset(t, 0, sizeof(*t));
	t->create_time = now();
	t->userid = j->founder;
	t->name = xstrdup(j->n->name);
	t->name_lc = account_lowercase(j->n->name);
	t->url = xstrdup(j->n->url ? j->n->url : "");
	t->description = xstrdup(j->n->description ? j->n->description : "");
	t->country = xstrdup(j->n->country ? j->n->country : "");
	t->type = j->n->type;
	t->joinable = 1;
	rc = db_team_insert(db, t);
	if (rc == DB_ERROR && db_errno(db) == 1062) {
		account_fail(j->e, ACCT_ERR_NOT_UNIQUE, "There is already a team with that name");
		return DB_NOT_FOUND;
	}
	if (rc == DB_OK)
		rc = db_user_set_team(db, j->founder, t->id);
	if (rc == DB_OK)
		t->nusers = 1;
	return rc;
}

static int check_text(const char *value, size_t max, bool multiline, const char *what,
		      struct account_error *e)
{
	if (value && (strlen(value) > max || !field_text_ok(value, strlen(value), multiline)))
		return account_fail(e, ACCT_ERR_GENERIC, "%s must be at most %zu bytes of text",
				    what, max);
	return ACCT_OK;
}

int team_create(struct db *db, int64_t founder, const struct team_new *n, struct db_team *out,
		struct account_error *e)
{
	struct team_job j = { founder, n, out, e };
	int rc;

	e->num = 0;
	e->msg[0] = '\0';
	if (account_check_name(n->name, "The team name", e) != ACCT_OK ||
	    check_text(n->url, FIELD_COLUMN_CHARS, false, "The URL", e) != ACCT_OK ||
	    check_text(n->country, FIELD_COLUMN_CHARS, false, "The country", e) != ACCT_OK ||
	    check_text(n->description, 60000, true, "The description", e) != ACCT_OK)
		return e->num;
	rc = db_txn_run(db, team_create_txn, &j);
	if (rc == DB_NOT_FOUND)
		return e->num;
	if (rc != DB_OK)
		return db_fail(e);
	log_info("team %" PRId64 " created by user %" PRId64, out->id, founder);
	return ACCT_OK;
}

struct join_job {
	int64_t userid, teamid;
	struct account_error *e;
};

int team_may_join(struct db *db, int64_t teamid, struct account_error *e)
{
	struct db_team t = { 0 };
	int rc = DB_OK;

	if (teamid) {
		rc = db_team_lookup_id(db, teamid, &t);
		if (rc == DB_NOT_FOUND)
			account_fail(e, ACCT_ERR_NOT_FOUND, "No such team");
		else if (rc == DB_OK && !t.joinable) {
			account_fail(e, ACCT_ERR_GENERIC, "This team is not taking new members");
			rc = DB_NOT_FOUND;
		}
		db_team_release(&t);
	}
	return rc;
}

static int join_txn(struct db *db, void *arg)
{
	struct join_job *j = arg;
	int rc = team_may_join(db, j->teamid, j->e);

	if (rc == DB_OK)
		rc = db_user_set_team(db, j->userid, j->teamid);
	if (rc == DB_NOT_FOUND && !j->e->num)
		account_fail(j->e, ACCT_ERR_NOT_FOUND, "No such team");
	return rc;
}

int team_join(struct db *db, int64_t userid, int64_t teamid, struct account_error *e)
{
	struct join_job j = { userid, teamid, e };
	int rc;

	e->num = 0;
	e->msg[0] = '\0';
	rc = db_txn_run(db, join_txn, &j);
	if (rc == DB_NOT_FOUND)
		return e->num;
	if (rc != DB_OK)
		return db_fail(e);
	return ACCT_OK;
}
