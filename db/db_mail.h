/*
 * The mailed links' table (mail_token) and what those links do to an
 * account: an address changed, an account's personal data erased.
 */
#ifndef WSEQ_DB_MAIL_H
#define WSEQ_DB_MAIL_H

#include "db_queries.h"

extern const struct db_query dbq_mail_token_use, dbq_mail_token_user, dbq_mail_token_expired,
	dbq_user_set_email, dbq_user_erase, dbq_host_erase, dbq_user_send_email, dbq_user_mailing;

/* The link of token hash (md5 of the token): DB_OK, DB_NOT_FOUND or an error. */
int db_mail_token_find(struct db *db, const char *hash, struct db_mail_token *t);
/* Mark token id used at t, if nobody did before: DB_OK, else DB_NOT_FOUND (used already). */
int db_mail_token_use(struct db *db, int64_t id, int64_t t);
/* Forget the links of a user (all kinds), and those that expired before t (everyone's). */
int db_mail_token_forget(struct db *db, int64_t userid, int64_t before);
/* The user's address and stored password (an address change: both at once). */
int db_user_set_email(struct db *db, int64_t id, const char *email, const char *stored_passwd,
		      double t);
/*
 * Erase what names the person of user id and its hosts: name (now "deleted"), address
 * (replaced by erased_email, unique), password, authenticator (replaced by
 * new_auth, never given out), cross-project id, country, postal code, URL,
 * signature, preferences; the hosts' names and addresses. Credit, team and
 * hosts' other columns stay (anonymous statistics).
 */
int db_user_erase(struct db *db, int64_t id, const char *erased_email, const char *new_auth);
/* Users who take the admins' mail (send_email=1) with ids above after, by id, at most limit. */
int db_user_mailing(struct db *db, int64_t after, long limit,
		    int (*fn)(struct db_user *, void *), void *arg);
/* The user's send_email flag (0: no mail from the admins). */
int db_user_set_send_email(struct db *db, int64_t id, int send);

#endif
