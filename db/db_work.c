/* The queries of work creation and app registration; see db_work.h. */
#include "db_work.h"

/* No table: a one-value SELECT run with db_select_i64. */
const struct db_query dbq_result_count_wu = {
	"result_count_wu", NULL, "SELECT COUNT(*) FROM result WHERE workunitid=?", "i"
};
const struct db_query dbq_wu_id_by_name = {
	"wu_id_by_name", NULL, "SELECT id FROM workunit WHERE name=?", "s"
};
const struct db_query dbq_app_version_by_key = {
	"app_version_by_key", &db_app_version_table,
	"WHERE appid=? AND platformid=? AND version_num=? AND plan_class=?", "iiis"
};

int db_result_count_workunit(struct db *db, int64_t wuid, int64_t *count)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_select_i64(db, dbq_result_count_wu.sql, v, ARRAY_SIZE(v), count);
}

int db_workunit_id_by_name(struct db *db, const char *name, int64_t *id)
{
	struct db_val v[] = { DBV_STR(name) };

	return db_select_i64(db, dbq_wu_id_by_name.sql, v, ARRAY_SIZE(v), id);
}

static int take_first(struct db_app_version *r, void *arg)
{
	struct db_app_version *out = arg;

	db_app_version_release(out);
	*out = *r;
	memset(r, 0, sizeof(*r));
	return 1;
}

int db_app_version_lookup_key(struct db *db, int64_t appid, int64_t platformid,
			      int version_num, const char *plan_class,
			      struct db_app_version *av)
{
	struct db_val v[] = { DBV_INT(appid), DBV_INT(platformid), DBV_INT(version_num),
			      DBV_STR(plan_class) };
	int rc;

	av->id = 0;
	rc = db_app_version_query(db, &dbq_app_version_by_key, v, ARRAY_SIZE(v), take_first, av);
	if (rc != DB_OK)
		return rc;
	return av->id ? DB_OK : DB_NOT_FOUND;
}
