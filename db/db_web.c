/* The volunteers' web pages' queries (db_web.h). */
#include "db_web.h"
#include "db_account.h"
#include "sbuf.h"

#include <ctype.h>

const struct db_query dbq_web_user_results = {
	"web_user_results", &db_result_table, "WHERE userid=? ORDER BY id DESC LIMIT ? OFFSET ?",
	"iii"
};
const struct db_query dbq_web_host_results = {
	"web_host_results", &db_result_table, "WHERE hostid=? ORDER BY id DESC LIMIT ? OFFSET ?",
	"iii"
};
const struct db_query dbq_web_team_members = {
	"web_team_members", &db_user_table,
	"WHERE teamid=? ORDER BY expavg_credit DESC, id LIMIT ?", "ii"
};
const struct db_query dbq_web_teams_by_rac = {
	"web_teams_by_rac", &db_team_table, "ORDER BY expavg_credit DESC, id LIMIT ? OFFSET ?", "ii"
};
const struct db_query dbq_web_team_search = {
	"web_team_search", &db_team_table,
	"WHERE name_lc LIKE ? ORDER BY expavg_credit DESC, id LIMIT ? OFFSET ?", "sii"
};
const struct db_query dbq_web_session_expired = {
	"web_session_expired", NULL, "DELETE FROM web_session WHERE expire_time<?", "i"
};
const struct db_query dbq_web_session_user = {
	"web_session_user", NULL, "DELETE FROM web_session WHERE userid=?", "i"
};

int db_web_user_results(struct db *db, int64_t userid, long offset, long limit,
			int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[3] = { DBV_INT(userid), DBV_INT(limit), DBV_INT(offset) };

	return db_result_query(db, &dbq_web_user_results, v, 3, fn, arg);
}

int db_web_host_results(struct db *db, int64_t hostid, long offset, long limit,
			int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[3] = { DBV_INT(hostid), DBV_INT(limit), DBV_INT(offset) };

	return db_result_query(db, &dbq_web_host_results, v, 3, fn, arg);
}

int db_web_team_members(struct db *db, int64_t teamid, long limit,
			int (*fn)(struct db_user *, void *), void *arg)
{
	struct db_val v[2] = { DBV_INT(teamid), DBV_INT(limit) };

	return db_user_query(db, &dbq_web_team_members, v, 2, fn, arg);
}

int db_web_teams(struct db *db, const char *search, long offset, long limit,
		 int (*fn)(struct db_team *, void *), void *arg)
{
	struct sbuf pat = SBUF_INIT(4096);
	const char *s;
	int rc;

	if (!search || !*search) {
		struct db_val v[2] = { DBV_INT(limit), DBV_INT(offset) };

		return db_team_query(db, &dbq_web_teams_by_rac, v, 2, fn, arg);
	}
	/* "%text%", lower-cased, with LIKE's own characters escaped */
	sbuf_addch(&pat, '%');
	for (s = search; *s; s++) {
		if (*s == '%' || *s == '_' || *s == '\\')
			sbuf_addch(&pat, '\\');
		sbuf_addch(&pat, (char)tolower((unsigned char)*s));
	}
	sbuf_addch(&pat, '%');
	{
		struct db_val v[3] = { DBV_STR(sbuf_str(&pat)), DBV_INT(limit), DBV_INT(offset) };

		rc = db_team_query(db, &dbq_web_team_search, v, 3, fn, arg);
	}
	sbuf_release(&pat);
	return rc;
}

int db_web_session_purge(struct db *db, int64_t t, int64_t failures_before)
{
	struct db_val v[1] = { DBV_INT(t) };
	int rc = db_query_exec(db, &dbq_web_session_expired, v, 1, NULL);

	return rc == DB_OK ? db_auth_purge(db, failures_before) : rc;
}

int db_web_session_end_user(struct db *db, int64_t userid)
{
	struct db_val v[1] = { DBV_INT(userid) };

	return db_query_exec(db, &dbq_web_session_user, v, 1, NULL);
}
