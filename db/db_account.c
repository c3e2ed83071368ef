/*
 * Credit and teams. Host, user and team rows share their credit columns, so
 * one projection (struct db_credit_row) and one set of queries per table
 * serve all three; credit_by_app keeps each user's credit per app.
 */
#include "db_account.h"
#include "credit.h"
#include "db_daemons.h"
#include "log.h"

#define CREDIT_COLS(T)                                                                 \
	static const struct db_column T##_credit_cols[] = {                            \
		{ "id", DB_T_I64, offsetof(struct db_credit_row, id), DB_COL_ID },     \
		{ "total_credit", DB_T_DOUBLE, offsetof(struct db_credit_row, total_credit), 0 }, \
		{ "expavg_credit", DB_T_DOUBLE, offsetof(struct db_credit_row, expavg_credit), 0 }, \
		{ "expavg_time", DB_T_DOUBLE, offsetof(struct db_credit_row, expavg_time), 0 }, \
	};                                                                             \
	static const struct db_table T##_credit_table = {                              \
		#T, sizeof(struct db_credit_row), T##_credit_cols, ARRAY_SIZE(T##_credit_cols), false \
	}

CREDIT_COLS(host);
CREDIT_COLS(user);
CREDIT_COLS(team);

#define PER_KIND(name, sqlh, sqlu, sqlt, params)                                         \
	{ { #name "_host", NULL, sqlh, params }, { #name "_user", NULL, sqlu, params },    \
	  { #name "_team", NULL, sqlt, params } }

const struct db_query dbq_credit_lock[DB_CREDIT_NKINDS] = {
	{ "credit_lock_host", &host_credit_table, "WHERE id=? FOR UPDATE", "i" },
	{ "credit_lock_user", &user_credit_table, "WHERE id=? FOR UPDATE", "i" },
	{ "credit_lock_team", &team_credit_table, "WHERE id=? FOR UPDATE", "i" },
};
const struct db_query dbq_credit_add[DB_CREDIT_NKINDS] = PER_KIND(credit_add,
	"UPDATE host SET total_credit=total_credit+?, expavg_credit=?, expavg_time=? WHERE id=?",
	"UPDATE user SET total_credit=total_credit+?, expavg_credit=?, expavg_time=? WHERE id=?",
	"UPDATE team SET total_credit=total_credit+?, expavg_credit=?, expavg_time=? WHERE id=?",
	"dddi");
/* Stale: RAC left to decay, oldest first (the key on expavg_credit narrows the scan). */
const struct db_query dbq_credit_stale[DB_CREDIT_NKINDS] = {
	{ "credit_stale_host", &host_credit_table,
	  "WHERE expavg_credit>? AND expavg_time<? AND id>? ORDER BY id LIMIT ?", "ddii" },
	{ "credit_stale_user", &user_credit_table,
	  "WHERE expavg_credit>? AND expavg_time<? AND id>? ORDER BY id LIMIT ?", "ddii" },
	{ "credit_stale_team", &team_credit_table,
	  "WHERE expavg_credit>? AND expavg_time<? AND id>? ORDER BY id LIMIT ?", "ddii" },
};
/* Only if no credit came meanwhile (expavg_time unchanged). */
const struct db_query dbq_credit_decay[DB_CREDIT_NKINDS] = PER_KIND(credit_decay,
	"UPDATE host SET expavg_credit=?, expavg_time=? WHERE id=? AND expavg_time=?",
	"UPDATE user SET expavg_credit=?, expavg_time=? WHERE id=? AND expavg_time=?",
	"UPDATE team SET expavg_credit=?, expavg_time=? WHERE id=? AND expavg_time=?",
	"ddid");
const struct db_query dbq_user_team = {
	"user_team", NULL, "UPDATE user SET teamid=? WHERE id=?", "ii"
};
const struct db_query dbq_team_nusers = {
	"team_nusers", NULL, "UPDATE team SET nusers=GREATEST(nusers+?, 0) WHERE id=?", "ii"
};

const struct db_query dbq_user_lock = {
	"user_lock", &db_user_table, "WHERE id=? FOR UPDATE", "i"
};
const struct db_query dbq_host_lock = {
	"host_lock", &db_host_table, "WHERE id=? FOR UPDATE", "i"
};
const struct db_query dbq_user_set_passwd = {
	"user_set_passwd", NULL, "UPDATE user SET passwd_hash=? WHERE id=?", "si"
};

const struct db_query dbq_user_set_cpid = {
	"user_set_cpid", NULL, "UPDATE user SET cross_project_id=? WHERE id=?", "si"
};

int db_user_set_cpid(struct db *db, int64_t id, const char *cpid)
{
	struct db_val v[2] = { DBV_STR(cpid), DBV_INT(id) };

	return db_query_exec(db, &dbq_user_set_cpid, v, 2, NULL);
}

const struct db_query dbq_user_set_global_prefs = {
	"user_set_global_prefs", NULL, "UPDATE user SET global_prefs=? WHERE id=?", "si"
};

int db_user_set_global_prefs(struct db *db, int64_t id, const char *prefs)
{
	struct db_val v[2] = { DBV_STR(prefs), DBV_INT(id) };

	return db_query_exec(db, &dbq_user_set_global_prefs, v, 2, NULL);
}

const struct db_query dbq_submit_app_revoke = {
	"submit_app_revoke", NULL, "DELETE FROM user_submit_app WHERE user_id=?", "i"
};
const struct db_query dbq_submit_revoke = {
	"submit_revoke", NULL, "DELETE FROM user_submit WHERE user_id=?", "i"
};

int db_user_submit_revoke(struct db *db, int64_t userid)
{
	struct db_val v[1] = { DBV_INT(userid) };
	int rc = db_query_exec(db, &dbq_submit_app_revoke, v, 1, NULL);

	return rc == DB_OK ? db_query_exec(db, &dbq_submit_revoke, v, 1, NULL) : rc;
}

/* The first attempt of a window starts it anew; a later one adds to it. */
const struct db_query dbq_auth_attempt = {
	"auth_attempt", NULL,
	"INSERT INTO auth_throttle (kind, k, n, window_start) VALUES (?, ?, 1, ?) "
	"ON DUPLICATE KEY UPDATE n=IF(window_start<?, 1, n+1), "
	"window_start=IF(window_start<?, VALUES(window_start), window_start)", "isiii"
};
const struct db_query dbq_auth_attempt_undo = {
	"auth_attempt_undo", NULL,
	"UPDATE auth_throttle SET n=GREATEST(n-1, 0) WHERE kind=? AND k=? AND window_start<=?",
	"isi"
};

const struct db_query dbq_auth_throttle_old = {
	"auth_throttle_old", NULL, "DELETE FROM auth_throttle WHERE window_start<?", "i"
};

int db_auth_purge(struct db *db, int64_t before)
{
	struct db_val v[1] = { DBV_INT(before) };

	return db_query_exec(db, &dbq_auth_throttle_old, v, 1, NULL);
}

struct attempt {
	int kind;
	const char *k;
	int64_t now, window, *n;
};

static int attempt_txn(struct db *db, void *arg)
{
	struct attempt *a = arg;
	struct db_val v[5] = { DBV_INT(a->kind), DBV_STR(a->k), DBV_INT(a->now),
			       DBV_INT(a->now - a->window), DBV_INT(a->now - a->window) };
	int rc = db_query_exec(db, &dbq_auth_attempt, v, 5, NULL);

	/* the row stays locked to this transaction: the count read is this attempt's own */
	if (rc == DB_OK)
		rc = db_select_i64(db, "SELECT n FROM auth_throttle WHERE kind=? AND k=? FOR UPDATE",
				   v, 2, a->n);
	return rc;
}

int db_auth_attempt(struct db *db, int kind, const char *k, int64_t now, int64_t window,
		    int64_t *n)
{
	struct attempt a = { kind, k, now, window, n };

	*n = 0;
	return db_txn_run(db, attempt_txn, &a);
}

int db_auth_attempt_undo(struct db *db, int kind, const char *k, int64_t when)
{
	struct db_val v[3] = { DBV_INT(kind), DBV_STR(k), DBV_INT(when) };

	return db_query_exec(db, &dbq_auth_attempt_undo, v, 3, NULL);
}

struct one {
	const struct db_table *t;
	void *rec;
	bool found;
};

static int take_one(void *rec, void *arg)
{
	struct one *o = arg;

	db_rec_release(o->t, o->rec);
	memcpy(o->rec, rec, o->t->size);
	memset(rec, 0, o->t->size);
	o->found = true;
	return 1;
}

static int lock_one(struct db *db, const struct db_query *q, int64_t id, void *rec)
{
	struct db_val v[1] = { DBV_INT(id) };
	struct one o = { q->table, rec, false };
	int rc = db_query_rows(db, q, v, 1, take_one, &o);

	return rc == DB_OK && !o.found ? DB_NOT_FOUND : rc;
}

int db_user_lock(struct db *db, int64_t id, struct db_user *u)
{
	return lock_one(db, &dbq_user_lock, id, u);
}

int db_host_lock(struct db *db, int64_t id, struct db_host *h)
{
	return lock_one(db, &dbq_host_lock, id, h);
}

int db_user_set_passwd(struct db *db, int64_t id, const char *stored)
{
	struct db_val v[2] = { DBV_STR(stored), DBV_INT(id) };

	return db_query_exec(db, &dbq_user_set_passwd, v, 2, NULL);
}

static int take_row(void *rec, void *arg)
{
	*(struct db_credit_row *)arg = *(struct db_credit_row *)rec;
	return 1;
}

static int add_credit(struct db *db, enum db_credit_kind k, int64_t id, double credit,
		      double start, double now)
{
	struct db_credit_row r = { 0 };
	struct db_val v[1] = { DBV_INT(id) };
	int rc;

	if (id <= 0)
		return DB_OK;
	rc = db_query_rows(db, &dbq_credit_lock[k], v, 1, take_row, &r);
	if (rc != DB_OK || r.id != id)
		return rc;      /* no such row: nobody to credit */
	credit_update_average(now, start, credit, CREDIT_HALF_LIFE, &r.expavg_credit,
			      &r.expavg_time);
	{
		struct db_val u[4] = { DBV_DBL(credit), DBV_DBL(r.expavg_credit),
				       DBV_DBL(r.expavg_time), DBV_INT(id) };

		return db_query_exec(db, &dbq_credit_add[k], u, 4, NULL);
	}
}

int db_credit_grant(struct db *db, int64_t hostid, int64_t userid, double credit,
		    double start, double now)
{
	struct db_val v[1] = { DBV_INT(userid) };
	int64_t teamid = 0;
	int rc;

	if (!(credit > 0))
		return DB_OK;
	rc = add_credit(db, DB_CREDIT_HOST, hostid, credit, start, now);
	if (rc == DB_OK)
		rc = add_credit(db, DB_CREDIT_USER, userid, credit, start, now);
	if (rc == DB_OK && userid > 0) {
		rc = db_select_i64(db, "SELECT teamid FROM user WHERE id=?", v, 1, &teamid);
		if (rc == DB_NOT_FOUND)
			return DB_OK;
	}
	if (rc == DB_OK)
		rc = add_credit(db, DB_CREDIT_TEAM, teamid, credit, start, now);
	return rc;
}

struct stale {
	struct db_credit_row *v;
	size_t n;
};

static int take_stale(void *rec, void *arg)
{
	struct stale *s = arg;

	s->v[s->n++] = *(struct db_credit_row *)rec;
	return 0;
}

#define DECAY_BATCH 1000

int db_credit_decay_all(struct db *db, enum db_credit_kind k, double now, double before,
			double min_rac, int64_t *n)
{
	struct stale s = { xcalloc(DECAY_BATCH, sizeof(*s.v)), 0 };
	int64_t after = 0;
	int rc = DB_OK;

	*n = 0;
	do {
		struct db_val v[4] = { DBV_DBL(min_rac), DBV_DBL(before), DBV_INT(after),
				       DBV_INT(DECAY_BATCH) };
		size_t i;

		s.n = 0;
		rc = db_query_rows(db, &dbq_credit_stale[k], v, 4, take_stale, &s);
		for (i = 0; rc == DB_OK && i < s.n; i++) {
			double avg = s.v[i].expavg_credit, t = s.v[i].expavg_time;
			struct db_val u[4];
			int64_t hit = 0;

			credit_update_average(now, now, 0, CREDIT_HALF_LIFE, &avg, &t);
			u[0] = DBV_DBL(avg);
			u[1] = DBV_DBL(t);
			u[2] = DBV_INT(s.v[i].id);
			u[3] = DBV_DBL(s.v[i].expavg_time);
			rc = db_query_exec(db, &dbq_credit_decay[k], u, 4, &hit);
			*n += hit;
			after = s.v[i].id;
		}
	} while (rc == DB_OK && s.n == DECAY_BATCH);
	free(s.v);
	return rc;
}

int db_user_set_team(struct db *db, int64_t userid, int64_t teamid)
{
	struct db_val v[1] = { DBV_INT(userid) };
	int64_t old = 0, found = 0;
	int rc;

	rc = db_select_i64(db, "SELECT teamid FROM user WHERE id=? FOR UPDATE", v, 1, &old);
	if (rc != DB_OK || old == teamid)
		return rc;
	if (teamid) {
		struct db_val t[1] = { DBV_INT(teamid) };

		rc = db_select_i64(db, "SELECT id FROM team WHERE id=? FOR UPDATE", t, 1, &found);
		if (rc != DB_OK)
			return rc;
	}
	{
		struct db_val u[2] = { DBV_INT(teamid), DBV_INT(userid) };
		struct db_val dec[2] = { DBV_INT(-1), DBV_INT(old) };
		struct db_val inc[2] = { DBV_INT(1), DBV_INT(teamid) };

		rc = db_query_exec(db, &dbq_user_team, u, 2, NULL);
		if (rc == DB_OK && old)
			rc = db_query_exec(db, &dbq_team_nusers, dec, 2, NULL);
		if (rc == DB_OK && teamid)
			rc = db_query_exec(db, &dbq_team_nusers, inc, 2, NULL);
	}
	return rc;
}

const struct db_query dbq_credit_by_app = {
	"credit_by_app", NULL,
	"INSERT INTO credit_by_app (userid, appid, total_credit, njobs) VALUES (?, ?, ?, 1) "
	"ON DUPLICATE KEY UPDATE total_credit=total_credit+VALUES(total_credit), njobs=njobs+1",
	"iid"
};

int db_credit_by_app(struct db *db, int64_t userid, int64_t appid, double credit)
{
	struct db_val v[] = { DBV_INT(userid), DBV_INT(appid), DBV_DBL(credit) };

	return db_query_exec(db, &dbq_credit_by_app, v, ARRAY_SIZE(v), NULL);
}

const struct db_query dbq_credit_claimed = {
	"credit_claimed", NULL, "UPDATE result SET claimed_credit=? WHERE id=?", "di"
};

int db_credit_claimed(struct db *db, int64_t resultid, double credit)
{
	struct db_val v[] = { DBV_DBL(credit), DBV_INT(resultid) };

	return db_query_exec(db, &dbq_credit_claimed, v, ARRAY_SIZE(v), NULL);
}
