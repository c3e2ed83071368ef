/*
 * The statistics export's reads: users, hosts and teams with credit, a
 * batch at a time along the primary key. The index is forced: with a
 * filter on total_credit the optimizer may prefer the credit index and
 * sort every batch's candidates again, and a dump reads most rows anyway.
 */
#include "db_stats.h"

#define COL(S, name, type) { #name, type, offsetof(struct S, name), 0 }
#define EXPR(S, sql, member, type) { sql, type, offsetof(struct S, member), DB_COL_EXPR }

static const struct db_column stats_user_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_stats_user, id), DB_COL_ID },
	COL(db_stats_user, create_time, DB_T_I64),
	COL(db_stats_user, name, DB_T_STR),
	COL(db_stats_user, email_addr, DB_T_STR),
	COL(db_stats_user, cross_project_id, DB_T_STR),
	COL(db_stats_user, country, DB_T_STR),
	COL(db_stats_user, url, DB_T_STR),
	COL(db_stats_user, teamid, DB_T_I64),
	COL(db_stats_user, has_profile, DB_T_INT),
	COL(db_stats_user, total_credit, DB_T_DOUBLE),
	COL(db_stats_user, expavg_credit, DB_T_DOUBLE),
	COL(db_stats_user, expavg_time, DB_T_DOUBLE),
};
static const struct db_table stats_user_table = {
	"user", sizeof(struct db_stats_user), stats_user_cols, ARRAY_SIZE(stats_user_cols), false
};

static const struct db_column stats_host_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_stats_host, id), DB_COL_ID },
	COL(db_stats_host, create_time, DB_T_I64),
	COL(db_stats_host, userid, DB_T_I64),
	EXPR(db_stats_host, "COALESCE((SELECT u.show_hosts FROM user u WHERE u.id=host.userid), 0)",
	     show_hosts, DB_T_INT),
	COL(db_stats_host, rpc_time, DB_T_I64),
	COL(db_stats_host, timezone, DB_T_INT),
	COL(db_stats_host, p_ncpus, DB_T_INT),
	COL(db_stats_host, p_vendor, DB_T_STR),
	COL(db_stats_host, p_model, DB_T_STR),
	COL(db_stats_host, os_name, DB_T_STR),
	COL(db_stats_host, os_version, DB_T_STR),
	COL(db_stats_host, host_cpid, DB_T_STR),
	COL(db_stats_host, misc, DB_T_STR),
	COL(db_stats_host, p_fpops, DB_T_DOUBLE),
	COL(db_stats_host, p_iops, DB_T_DOUBLE),
	COL(db_stats_host, p_membw, DB_T_DOUBLE),
	COL(db_stats_host, m_nbytes, DB_T_DOUBLE),
	COL(db_stats_host, m_cache, DB_T_DOUBLE),
	COL(db_stats_host, m_swap, DB_T_DOUBLE),
	COL(db_stats_host, d_total, DB_T_DOUBLE),
	COL(db_stats_host, d_free, DB_T_DOUBLE),
	COL(db_stats_host, n_bwup, DB_T_DOUBLE),
	COL(db_stats_host, n_bwdown, DB_T_DOUBLE),
	COL(db_stats_host, avg_turnaround, DB_T_DOUBLE),
	COL(db_stats_host, credit_per_cpu_sec, DB_T_DOUBLE),
	COL(db_stats_host, total_credit, DB_T_DOUBLE),
	COL(db_stats_host, expavg_credit, DB_T_DOUBLE),
	COL(db_stats_host, expavg_time, DB_T_DOUBLE),
};
static const struct db_table stats_host_table = {
	"host", sizeof(struct db_stats_host), stats_host_cols, ARRAY_SIZE(stats_host_cols), false
};

static const struct db_column stats_team_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_stats_team, id), DB_COL_ID },
	COL(db_stats_team, create_time, DB_T_I64),
	COL(db_stats_team, userid, DB_T_I64),
	COL(db_stats_team, type, DB_T_INT),
	COL(db_stats_team, name, DB_T_STR),
	EXPR(db_stats_team, "COALESCE((SELECT u.name FROM user u WHERE u.id=team.userid), '')",
	     founder_name, DB_T_STR),
	COL(db_stats_team, url, DB_T_STR),
	COL(db_stats_team, name_html, DB_T_STR),
	COL(db_stats_team, description, DB_T_STR),
	COL(db_stats_team, country, DB_T_STR),
	COL(db_stats_team, total_credit, DB_T_DOUBLE),
	COL(db_stats_team, expavg_credit, DB_T_DOUBLE),
	COL(db_stats_team, expavg_time, DB_T_DOUBLE),
};
static const struct db_table stats_team_table = {
	"team", sizeof(struct db_stats_team), stats_team_cols, ARRAY_SIZE(stats_team_cols), false
};

const struct db_query dbq_stats_users = {
	"stats_users", &stats_user_table,
	"FORCE INDEX (PRIMARY) WHERE id>? AND total_credit>0 ORDER BY id LIMIT ?", "ii"
};
const struct db_query dbq_stats_hosts = {
	"stats_hosts", &stats_host_table,
	"FORCE INDEX (PRIMARY) WHERE id>? AND total_credit>0 AND userid<>0 ORDER BY id LIMIT ?", "ii"
};
const struct db_query dbq_stats_teams = {
	"stats_teams", &stats_team_table,
	"FORCE INDEX (PRIMARY) WHERE id>? AND total_credit>0 ORDER BY id LIMIT ?", "ii"
};

enum walk_kind { WALK_USER, WALK_HOST, WALK_TEAM };

struct walk {
	enum walk_kind kind;
	union {
		int (*user)(struct db_stats_user *, void *);
		int (*host)(struct db_stats_host *, void *);
		int (*team)(struct db_stats_team *, void *);
	} fn;
	void *arg;
	int64_t last;           /* the id the next batch starts after */
	int n;                  /* rows of this batch */
};

static int walk_row(void *rec, void *arg)
{
	struct walk *w = arg;
	int r = 0;

	switch (w->kind) {
	case WALK_USER:
		w->last = ((struct db_stats_user *)rec)->id;
		r = w->fn.user(rec, w->arg);
		break;
	case WALK_HOST:
		w->last = ((struct db_stats_host *)rec)->id;
		r = w->fn.host(rec, w->arg);
		break;
	case WALK_TEAM:
		w->last = ((struct db_stats_team *)rec)->id;
		r = w->fn.team(rec, w->arg);
		break;
	}
	w->n++;
	return r ? -1 : 0;
}

static int walk(struct db *db, const struct db_query *q, int batch, struct walk *w)
{
	int rc;

	if (batch < 1)
		batch = 1;
	do {
		struct db_val v[2] = { DBV_INT(w->last), DBV_INT(batch) };

		w->n = 0;
		rc = db_query_rows(db, q, v, 2, walk_row, w);
	} while (rc == DB_OK && w->n == batch);
	return rc;
}

int db_stats_enum_users(struct db *db, int batch, int (*fn)(struct db_stats_user *, void *),
			void *arg)
{
	struct walk w = { .kind = WALK_USER, .fn.user = fn, .arg = arg };

	return walk(db, &dbq_stats_users, batch, &w);
}

int db_stats_enum_hosts(struct db *db, int batch, int (*fn)(struct db_stats_host *, void *),
			void *arg)
{
	struct walk w = { .kind = WALK_HOST, .fn.host = fn, .arg = arg };

	return walk(db, &dbq_stats_hosts, batch, &w);
}

int db_stats_enum_teams(struct db *db, int batch, int (*fn)(struct db_stats_team *, void *),
			void *arg)
{
	struct walk w = { .kind = WALK_TEAM, .fn.team = fn, .arg = arg };

	return walk(db, &dbq_stats_teams, batch, &w);
}
