/* The queries of the volunteers' web pages (db_web.c), each on an index. */
#ifndef WSEQ_DB_WEB_H
#define WSEQ_DB_WEB_H

#include "db_queries.h"

extern const struct db_query dbq_web_user_results, dbq_web_host_results, dbq_web_team_members,
	dbq_web_teams_by_rac, dbq_web_team_search, dbq_web_session_expired, dbq_web_session_user;

/* A user's or a host's results, newest first: limit rows after skipping offset. */
int db_web_user_results(struct db *db, int64_t userid, long offset, long limit,
			int (*fn)(struct db_result *, void *), void *arg);
int db_web_host_results(struct db *db, int64_t hostid, long offset, long limit,
			int (*fn)(struct db_result *, void *), void *arg);
/* A team's members, highest recent average credit first. */
int db_web_team_members(struct db *db, int64_t teamid, long limit,
			int (*fn)(struct db_user *, void *), void *arg);
/* Teams by recent average credit; or those whose name holds a text (any case). */
int db_web_teams(struct db *db, const char *search, long offset, long limit,
		 int (*fn)(struct db_team *, void *), void *arg);
/* Remove sessions that expired before t, and throttle windows begun before failures_before. */
int db_web_session_purge(struct db *db, int64_t t, int64_t failures_before);
/* End every session of a user (volunteers' and ops pages'): its password or address changed. */
int db_web_session_end_user(struct db *db, int64_t userid);

#endif
