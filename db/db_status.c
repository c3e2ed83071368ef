/*
 * The status pages' reads (db_status.h). Each counter is one COUNT the
 * server answers from an index range: the result and workunit states from
 * their state keys (the workunit keys that begin with appid through the
 * few apps), users and hosts from their credit and create_time keys. No
 * query reads a row a result, so the page costs the same with a million.
 */
#include "db_status.h"

/* One counter: its query and where its value goes in struct db_status. */
struct counter {
	const struct db_query *q;
	size_t off;
};

#define COUNT_QUERY(id, sql) \
	const struct db_query dbq_status_##id = { "status_" #id, NULL, sql, "" }
#define COUNT_SINCE_QUERY(id, sql) \
	const struct db_query dbq_status_##id = { "status_" #id, NULL, sql, "i" }

COUNT_QUERY(unsent, "SELECT COUNT(*) FROM result WHERE server_state=2");
COUNT_QUERY(in_progress, "SELECT COUNT(*) FROM result WHERE server_state=4");
COUNT_QUERY(result_file_delete, "SELECT COUNT(*) FROM result WHERE file_delete_state=1");
/* wu_val and wu_assim begin with appid: reached through the apps, not scanned */
COUNT_QUERY(wu_validate, "SELECT COUNT(*) FROM app STRAIGHT_JOIN workunit "
	    "ON workunit.appid=app.id AND workunit.need_validate=1");
COUNT_QUERY(wu_assimilate, "SELECT COUNT(*) FROM app STRAIGHT_JOIN workunit "
	    "ON workunit.appid=app.id AND workunit.assimilate_state=1");
COUNT_QUERY(wu_file_delete, "SELECT COUNT(*) FROM workunit WHERE file_delete_state=1");
COUNT_QUERY(transition, "SELECT COALESCE(MIN(transition_time), 0) FROM workunit");
/* "recent credit": a recent average above 1, as BOINC's status page counts */
COUNT_QUERY(users_recent, "SELECT COUNT(*) FROM user WHERE expavg_credit>1");
COUNT_QUERY(users_credit, "SELECT COUNT(*) FROM user WHERE total_credit>0");
COUNT_SINCE_QUERY(users_new, "SELECT COUNT(*) FROM user WHERE create_time>?");
COUNT_QUERY(hosts_recent, "SELECT COUNT(*) FROM host WHERE expavg_credit>1");
COUNT_QUERY(hosts_credit, "SELECT COUNT(*) FROM host WHERE total_credit>0");
COUNT_SINCE_QUERY(hosts_new, "SELECT COUNT(*) FROM host WHERE create_time>?");
COUNT_QUERY(sequences, "SELECT COUNT(*) FROM sequence WHERE state=0");

#define AT(member) offsetof(struct db_status, member)

static const struct counter job_counters[] = {
	{ &dbq_status_unsent, AT(results_ready_to_send) },
	{ &dbq_status_in_progress, AT(results_in_progress) },
	{ &dbq_status_result_file_delete, AT(results_need_file_delete) },
	{ &dbq_status_wu_validate, AT(wus_need_validate) },
	{ &dbq_status_wu_assimilate, AT(wus_need_assimilate) },
	{ &dbq_status_wu_file_delete, AT(wus_need_file_delete) },
};

static const struct counter other_counters[] = {
	{ &dbq_status_transition, AT(min_transition_time) },
	{ &dbq_status_users_recent, AT(users_with_recent_credit) },
	{ &dbq_status_users_credit, AT(users_with_credit) },
	{ &dbq_status_users_new, AT(users_registered_recently) },
	{ &dbq_status_hosts_recent, AT(hosts_with_recent_credit) },
	{ &dbq_status_hosts_credit, AT(hosts_with_credit) },
	{ &dbq_status_hosts_new, AT(hosts_registered_recently) },
	{ &dbq_status_sequences, AT(sequences_in_progress) },
};

/* The recent average credit of all users, summed along user_avg. */
static const struct db_column rac_cols[] = {
	{ "COALESCE(SUM(expavg_credit), 0)", DB_T_DOUBLE, AT(users_expavg_credit), DB_COL_EXPR },
};
static const struct db_table rac_table = {
	"user", sizeof(struct db_status), rac_cols, ARRAY_SIZE(rac_cols), false
};
const struct db_query dbq_status_rac = {
	"status_rac", &rac_table, "WHERE expavg_credit>0", ""
};

static int run_counters(struct db *db, const struct counter *cs, size_t n, int64_t since,
			struct db_status *s)
{
	size_t i;
	int rc = DB_OK;

	for (i = 0; i < n && rc == DB_OK; i++) {
		struct db_val v[1] = { DBV_INT(since) };
		int64_t *out = (int64_t *)(void *)((char *)s + cs[i].off);

		*out = 0;
		rc = db_select_i64(db, cs[i].q->sql, v, strlen(cs[i].q->params), out);
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	return rc;
}

int db_status_job_counts(struct db *db, struct db_status *s)
{
	memset(s, 0, sizeof(*s));
	return run_counters(db, job_counters, ARRAY_SIZE(job_counters), 0, s);
}

static int take_rac(void *rec, void *arg)
{
	((struct db_status *)arg)->users_expavg_credit = ((struct db_status *)rec)->users_expavg_credit;
	return 0;
}

int db_status_counts(struct db *db, int64_t since, struct db_status *s)
{
	int rc = db_status_job_counts(db, s);

	if (rc == DB_OK)
		rc = run_counters(db, other_counters, ARRAY_SIZE(other_counters), since, s);
	if (rc == DB_OK)
		rc = db_query_rows(db, &dbq_status_rac, NULL, 0, take_rac, s);
	return rc;
}

/* ---- apps and their versions ---- */

#define APP_COL(name, type) \
	{ "app." #name, type, offsetof(struct db_status_app, name), DB_COL_EXPR }

static const struct db_column app_cols[] = {
	APP_COL(id, DB_T_I64),
	APP_COL(name, DB_T_STR),
	APP_COL(user_friendly_name, DB_T_STR),
	/* through res_app_state: the app's results in that state only */
	{ "(SELECT COUNT(*) FROM result WHERE result.appid=app.id AND result.server_state=2)",
	  DB_T_I64, offsetof(struct db_status_app, unsent), DB_COL_EXPR },
	{ "(SELECT COUNT(*) FROM result WHERE result.appid=app.id AND result.server_state=4)",
	  DB_T_I64, offsetof(struct db_status_app, in_progress), DB_COL_EXPR },
};
static const struct db_table app_table = {
	"app", sizeof(struct db_status_app), app_cols, ARRAY_SIZE(app_cols), false
};
const struct db_query dbq_status_apps = {
	"status_apps", &app_table, "WHERE app.deprecated=0 ORDER BY app.id", ""
};

#define AV_COL(name, type) \
	{ "app_version." #name, type, offsetof(struct db_status_version, name), DB_COL_EXPR }

static const struct db_column version_cols[] = {
	AV_COL(appid, DB_T_I64),
	AV_COL(version_num, DB_T_INT),
	AV_COL(plan_class, DB_T_STR),
	AV_COL(create_time, DB_T_I64),
	{ "COALESCE(NULLIF(platform.user_friendly_name, ''), platform.name)", DB_T_STR,
	  offsetof(struct db_status_version, platform), DB_COL_EXPR },
};
static const struct db_table version_table = {
	"app_version", sizeof(struct db_status_version), version_cols, ARRAY_SIZE(version_cols), false
};
/* A version is current when no newer one of its app, platform and plan class is live. */
const struct db_query dbq_status_versions = {
	"status_versions", &version_table,
	"JOIN app ON app.id=app_version.appid "
	"JOIN platform ON platform.id=app_version.platformid "
	"WHERE app_version.deprecated=0 AND app.deprecated=0 AND platform.deprecated=0 "
	"AND NOT EXISTS (SELECT 1 FROM app_version newer WHERE newer.appid=app_version.appid "
	"AND newer.platformid=app_version.platformid AND newer.plan_class=app_version.plan_class "
	"AND newer.deprecated=0 AND newer.version_num>app_version.version_num) "
	"ORDER BY app_version.appid, platform.user_friendly_name, platform.name, "
	"app_version.plan_class", ""
};

int db_status_apps(struct db *db, int (*fn)(struct db_status_app *, void *), void *arg)
{
	return db_query_rows(db, &dbq_status_apps, NULL, 0, (db_row_fn)fn, arg);
}

int db_status_versions(struct db *db, int (*fn)(struct db_status_version *, void *), void *arg)
{
	return db_query_rows(db, &dbq_status_versions, NULL, 0, (db_row_fn)fn, arg);
}

/* ---- tasks in progress by plan class ---- */

struct version_count {
	int64_t id, n;
	char *plan_class;       /* the version's class, once read */
};

static const struct db_column vcount_cols[] = {
	{ "app_version_id", DB_T_I64, offsetof(struct version_count, id), DB_COL_EXPR },
	{ "COUNT(*)", DB_T_I64, offsetof(struct version_count, n), DB_COL_EXPR },
};
static const struct db_table vcount_table = {
	"result", sizeof(struct version_count), vcount_cols, ARRAY_SIZE(vcount_cols), false
};
/* The in-progress range of res_deadline, which holds app_version_id: read from the index alone. */
const struct db_query dbq_status_in_progress_by_version = {
	"status_in_progress_by_version", &vcount_table,
	"FORCE INDEX (res_deadline) WHERE server_state=4 GROUP BY app_version_id", ""
};

struct counts {
	struct version_count *v;
	size_t n;
};

static int take_count(struct version_count *c, void *arg)
{
	struct counts *t = arg;
	struct db_rows rows = DB_ROWS(t->v, t->n, 0);

	return db_rows_take(c, &rows);
}

/* A version's plan class onto its count. */
static int version_class(struct db_app_version *av, void *arg)
{
	struct counts *t = arg;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].id == av->id && !t->v[i].plan_class)
			t->v[i].plan_class = xstrdup(av->plan_class ? av->plan_class : "");
	db_app_version_release(av);
	memset(av, 0, sizeof(*av));
	return 0;
}

/*
 * Counted per app version from the index, then summed per plan class (a
 * job without a version, or of one deleted, counts under ""): the cost is
 * the jobs in progress read from an index, and the few versions.
 */
int db_status_in_progress_by_class(struct db *db, int (*fn)(struct db_status_class *, void *),
				   void *arg)
{
	struct counts t = { NULL, 0 };
	size_t i, j;
	int rc = db_query_rows(db, &dbq_status_in_progress_by_version, NULL, 0,
			       (db_row_fn)take_count, &t);

	if (rc == DB_OK && t.n > 0)
		rc = db_app_version_enum(db, "", NULL, 0, version_class, &t);
	for (i = 0; rc == DB_OK && i < t.n; i++) {
		struct db_status_class c = { t.v[i].plan_class ? t.v[i].plan_class : "", t.v[i].n };

		if (t.v[i].n < 0)
			continue;               /* summed into an earlier one of its class */
		for (j = i + 1; j < t.n; j++)
			if (!strcmp(c.plan_class, t.v[j].plan_class ? t.v[j].plan_class : "")) {
				c.in_progress += t.v[j].n;
				t.v[j].n = -1;
			}
		rc = fn(&c, arg) ? DB_ERROR : DB_OK;
	}
	for (i = 0; i < t.n; i++)
		free(t.v[i].plan_class);
	free(t.v);
	return rc;
}
