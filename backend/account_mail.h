/*
 * What an account does by mail: the links mailed for a password reset, an
 * address change and a deletion (a random token, kept as its md5 in
 * mail_token, working once and for set->mail_token_hours), the
 * project's messages themselves, the erasing of an account, and the
 * unsubscribe code of the admins' mailings.
 */
#ifndef WSEQ_ACCOUNT_MAIL_H
#define WSEQ_ACCOUNT_MAIL_H

#include "account.h"

/* What a link's token turned out to be. */
enum account_token_state {
	ACCT_TOKEN_OK,
	ACCT_TOKEN_UNKNOWN,     /* no such link (or of another kind, or malformed) */
	ACCT_TOKEN_EXPIRED,
	ACCT_TOKEN_USED,
	ACCT_TOKEN_DB,          /* the database failed */
};
#define ACCOUNT_TOKEN_HEX 32

/* Count one attempt from addr at a door that takes no password (throttled as sign-ins). */
int account_throttle(struct db *db, const struct account_settings *set, const char *addr,
		     struct account_error *e);
/*
 * A new link of kind (MAIL_TOKEN_*) for user userid, with data (an address
 * change: the new address; else NULL): tok gets its token. Expired links
 * (everyone's) are forgotten meanwhile. 0 or -1 (logged).
 */
int account_token_new(struct db *db, const struct account_settings *set, int64_t userid,
		      int kind, const char *data, char tok[ACCOUNT_TOKEN_HEX + 1]);
/* The link of tok, if it is of kind and works: its row in *t (released by the caller). */
enum account_token_state account_token_check(struct db *db, const char *tok, int kind,
					     struct db_mail_token *t);
/* Words for a person about a state that is not ACCT_TOKEN_OK. */
const char *account_token_why(enum account_token_state s);
/*
 * Follow link tok (of kind) in one transaction: the link is marked used
 * and act(db, user, arg) runs on the locked user; both or neither. The
 * state says why not.
 */
enum account_token_state account_token_follow(struct db *db, const char *tok, int kind,
					      int (*act)(struct db *db, struct db_user *u,
							 const struct db_mail_token *t, void *arg),
					      void *arg);

/* A message of the project to one address through set->mail_server. 0 or -1 (logged). */
int account_mail(const struct project_config *cfg, const struct account_settings *set,
		 const char *to, const char *subject, const char *body);
/* A mailing's progress: users after last are still to be mailed. */
struct account_mailing {
	int64_t last;           /* the last user mailed (or counted); set it to resume after */
	long sent;              /* how many were mailed (counted, in a dry run) */
};
/*
 * The admins' mailing (bin/mail_users, the ops pages): subject (one line)
 * and body to every user with send_email after m->last, by id, each with
 * its unsubscribe link; a dry run sends nothing and counts. 0, or -1 at the
 * first failure (logged), m saying how far it got.
 */
int account_mailing(struct db *db, const struct project_config *cfg,
		    const struct account_settings *set, const char *subject, const char *body,
		    bool dry_run, struct account_mailing *m);
/* Whether the mail server answers at all (for an answer that must not differ). */
int account_mail_server_up(const struct account_settings *set);

/*
 * Erase user u's personal data (in the caller's transaction): see
 * db_user_erase(); its sessions, links, submit and ops rights go too.
 * Credit, hosts and team membership stay, anonymous.
 */
int account_erase(struct db *db, struct db_user *u);
/* The code of user u's unsubscribe link: md5 of a secret of the account (32 hex digits). */
void account_opt_out_code(const struct db_user *u, char out[33]);
/*
 * The auth of user userid's notices feed (notices.php?userid=N&auth=A, the
 * URL the scheduler reply's <rss_feeds> gives): "N_" and the md5 of a secret
 * of the account, as upstream's rss_auth; out holds at least 64 bytes.
 */
void account_rss_auth(int64_t userid, const char *authenticator, char out[64]);

#endif
