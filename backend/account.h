/*
 * Volunteers' accounts and teams: the rules every door shares -- the account
 * RPCs the BOINC client and Manager call, the web pages, and the admins'
 * `account` tool -- so an e-mail address, a user name or a password is
 * judged the same way wherever it comes from. Errors carry the numbers the
 * BOINC client knows (boinc-account-rpc.md) and a short message.
 */
#ifndef WSEQ_ACCOUNT_H
#define WSEQ_ACCOUNT_H

#include "common.h"
#include "db_records.h"
#include "param.h"

struct db;
struct project_config;

/* BOINC's error numbers (lib/error_numbers.h) for the account RPCs. */
enum account_err {
	ACCT_OK = 0,
	ACCT_ERR_GENERIC = -1,          /* a missing or bad parameter, with its name */
	ACCT_ERR_XML_PARSE = -112,
	ACCT_ERR_NOT_FOUND = -136,      /* no account with that e-mail address / key */
	ACCT_ERR_NOT_UNIQUE = -137,     /* the e-mail address (or team name) is taken */
	ACCT_ERR_DB = -138,             /* the database cannot be reached */
	ACCT_ERR_PROJECT_DOWN = -183,
	ACCT_ERR_BAD_USER_NAME = -188,
	ACCT_ERR_BAD_EMAIL = -205,
	ACCT_ERR_BAD_PASSWD = -206,
	ACCT_ERR_CREATION_DISABLED = -208,
	ACCT_ERR_INVITE_CODE = -209,
};

struct account_error {
	int num;
	char msg[256];
	bool throttled;         /* refused by the throttle of guesses (too many attempts) */
};

/* The <config> settings of accounts (account_params), beside disable_account_creation. */
struct account_settings {
	bool disable_account_creation_rpc;  /* the client may not create accounts; the web may */
	char *invite_code;                  /* if set, creating an account needs it */
	long min_passwd_length;
	char *account_home_text;            /* home page text file, relative to the project */
	long login_failures_max;            /* attempts an address or an account may make per window */
	char *mail_server;                  /* smtp://host:port the project's mail goes through */
	char *mail_from;                    /* its sender (NULL: noreply@ the master URL's host) */
	long mail_token_hours;              /* how long a mailed link works */
};

/* The window in which the throttle counts attempts. */
#define ACCOUNT_LOGIN_WINDOW (15 * 60)

extern const struct param account_params[];

/* Where a request comes from: the rules differ a little. */
enum account_door {
	ACCT_DOOR_RPC,          /* the BOINC client or an account manager */
	ACCT_DOOR_WEB,          /* the join form */
	ACCT_DOOR_ADMIN,        /* the account tool: every creation rule is the admin's */
};

struct account_new {
	const char *email;
	const char *passwd_hash;        /* md5(password + email), 32 hex digits */
	long passwd_len;                /* the password's length if known, else -1 */
	const char *name;
	const char *team_name;          /* optional: join it if it exists and is joinable */
	const char *invite_code;        /* optional */
	enum account_door door;
	const char *addr;               /* the client's address: throttled (NULL: the admin) */
};

/*
 * Create an account (one transaction). Through the client's door
 * (ACCT_DOOR_RPC) only, the same address and password hash as an existing
 * account finds it (creation is idempotent, as the client expects); any
 * other door refuses an address in use (-137) whatever the password. With
 * a->addr the attempt is throttled as account_lookup's are, a wrong
 * password for an existing address counting as a failed sign-in. *u gets
 * the user. ACCT_OK, else an error in *e.
 */
int account_create(struct db *db, const struct project_config *cfg,
		   const struct account_settings *set, const struct account_new *a,
		   struct db_user *u, struct account_error *e);
/*
 * The account of an e-mail address and password hash (or the hash of its
 * authenticator with the address). With hash NULL, only whether it exists.
 * With addr (the client's address; NULL for an admin) every attempt is
 * throttled: counted before the check -- by addr, and with a hash by the
 * account too -- in windows of ACCOUNT_LOGIN_WINDOW seconds, given back if
 * it succeeds. Past set->login_failures_max in a window, by either count,
 * attempts are refused (-206, e->throttled) until the window ends.
 */
int account_lookup(struct db *db, const struct account_settings *set, const char *addr,
		   const char *email, const char *passwd_hash, struct db_user *u,
		   struct account_error *e);
/* The account of an authenticator, throttled by addr as account_lookup is. */
int account_lookup_auth(struct db *db, const struct account_settings *set, const char *addr,
			const char *authenticator, struct db_user *u, struct account_error *e);
/* Check values as account_create does: ACCT_OK or the error in *e. */
int account_check_email(const char *email, struct account_error *e);
int account_check_name(const char *name, const char *what, struct account_error *e);
/*
 * A preferences document a volunteer sends (am_set_info's global_prefs,
 * project_prefs), stored and later echoed inside other documents: well
 * formed, at most ACCOUNT_PREFS_MAX bytes, one element and nothing around
 * it -- no XML declaration, no DOCTYPE (so no entities), no comment or
 * processing instruction. ACCT_OK, else -112 naming what.
 */
#define ACCOUNT_PREFS_MAX (64L << 10)
int account_check_prefs(const char *v, const char *what, struct account_error *e);
/* The user may join team teamid (0: leave any): it exists and takes members. DB_OK, else
 * DB_NOT_FOUND with the reason in *e, or a database error. */
int team_may_join(struct db *db, int64_t teamid, struct account_error *e);
/* s lower-cased (ASCII), as the client does to addresses: the stored address, a team's name_lc. Allocated. */
char *account_lowercase(const char *email);
/* Set the user's password from its hash (one UPDATE). */
int account_set_passwd(struct db *db, struct db_user *u, const char *passwd_hash,
		       struct account_error *e);

/* md5(internal cross-project id + e-mail address): the id stats sites see. */
void account_external_cpid(const struct db_user *u, char out[33]);
/* md5 of the stored e-mail address (the client's email_hash). */
void account_email_hash(const struct db_user *u, char out[33]);

/* ---- teams ---- */
struct team_new {
	const char *name;
	const char *url;
	const char *description;
	const char *country;
	int type;
};
/* Create a team founded by user founder, who joins it (one transaction). */
int team_create(struct db *db, int64_t founder, const struct team_new *t, struct db_team *out,
		struct account_error *e);
/* User userid joins team teamid (0: leaves its team). */
int team_join(struct db *db, int64_t userid, int64_t teamid, struct account_error *e);
/* The team named name, any case. */
int team_lookup_name(struct db *db, const char *name, struct db_team *t);

/* Fill e (num, printf message); returns num. */
int account_fail(struct account_error *e, int num, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
