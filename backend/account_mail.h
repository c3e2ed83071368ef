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

#endif
