/*
 * What volunteers' accounts need from the database (db_account.c): credit
 * added to a host, its user and the user's team with their recent average
 * (RAC), the daily decay of RAC, and teams joined and left.
 */
#ifndef WSEQ_DB_ACCOUNT_H
#define WSEQ_DB_ACCOUNT_H

#include "db_queries.h"

/* Who earns credit: rows of these tables carry total_credit, expavg_credit, expavg_time. */
enum db_credit_kind { DB_CREDIT_HOST, DB_CREDIT_USER, DB_CREDIT_TEAM, DB_CREDIT_NKINDS };

/* The credit columns of one row (a projection of host, user or team). */
struct db_credit_row {
	int64_t id;
	double total_credit;
	double expavg_credit;
	double expavg_time;
};

extern const struct db_query dbq_credit_lock[DB_CREDIT_NKINDS], dbq_credit_add[DB_CREDIT_NKINDS],
	dbq_credit_stale[DB_CREDIT_NKINDS], dbq_credit_decay[DB_CREDIT_NKINDS],
	dbq_user_team, dbq_team_nusers, dbq_user_lock, dbq_host_lock, dbq_user_set_passwd,
	dbq_user_set_cpid, dbq_user_set_global_prefs, dbq_submit_app_revoke, dbq_submit_revoke, dbq_auth_attempt,
	dbq_auth_attempt_undo, dbq_auth_throttle_old, dbq_credit_by_app,
	dbq_credit_claimed;

/*
 * The throttle of password and key guesses (backend/account.c): one more
 * attempt of key k of a kind (DB_AUTH_ADDR: a client address,
 * DB_AUTH_ACCOUNT: md5 of a lower-cased e-mail address), counted in fixed windows
 * of `window` seconds. *n gets the window's count with this attempt, read
 * in the same transaction as it was added, so attempts made at the same
 * moment each see a different count. _undo gives back an attempt made at
 * time `when` (it succeeded) if its window is still the current one: begun
 * at or before it.
 */
enum { DB_AUTH_ADDR = 1, DB_AUTH_ACCOUNT = 2 };
int db_auth_attempt(struct db *db, int kind, const char *k, int64_t now, int64_t window,
		    int64_t *n);
int db_auth_attempt_undo(struct db *db, int kind, const char *k, int64_t when);
/* Forget the windows begun before a time. */
int db_auth_purge(struct db *db, int64_t before);

/*
 * Inside a transaction, read a user or host row and lock it: whoever
 * writes the whole row (the scheduler its host, account changes their
 * user) reads it this way, so credit granted meanwhile is never written
 * over with an old total.
 */
int db_user_lock(struct db *db, int64_t id, struct db_user *u);
int db_host_lock(struct db *db, int64_t id, struct db_host *h);
/* The user may submit jobs no more (its user_submit and user_submit_app rows go). */
int db_user_submit_revoke(struct db *db, int64_t userid);
/* Set the cross-project id only. */
int db_user_set_cpid(struct db *db, int64_t id, const char *cpid);
/* Set the computing preferences only (a client's newer ones, by the scheduler). */
int db_user_set_global_prefs(struct db *db, int64_t id, const char *prefs);
/* Set the stored password hash only. */
int db_user_set_passwd(struct db *db, int64_t id, const char *stored);

/*
 * Inside a transaction: credit earned by result work sent at start goes to
 * host hostid, its user userid and that user's team (if any) as of now:
 * each row is locked, its RAC updated (credit_update_average) and its
 * total_credit raised. A missing row (host or user deleted) is skipped.
 */
/*
 * Inside the granting transaction: credit granted to userid for a result of
 * appid, added to the user's credit_by_app row (total_credit, njobs).
 */
int db_credit_by_app(struct db *db, int64_t userid, int64_t appid, double credit);
/* Inside the validator's transaction: result resultid claims credit (claimed_credit). */
int db_credit_claimed(struct db *db, int64_t resultid, double credit);
int db_credit_grant(struct db *db, int64_t hostid, int64_t userid, double credit,
		    double start, double now);
/*
 * Decay the RAC of every row of kind k with RAC above min_rac not updated
 * since before, as of now; a row credit changed meanwhile is left alone.
 * *n gets the rows decayed.
 */
int db_credit_decay_all(struct db *db, enum db_credit_kind k, double now, double before,
			double min_rac, int64_t *n);

/*
 * Inside a transaction: user userid leaves its team (if any) and joins
 * teamid (0: none); the teams' nusers follow. DB_NOT_FOUND if teamid names
 * no team.
 */
int db_user_set_team(struct db *db, int64_t userid, int64_t teamid);

#endif
