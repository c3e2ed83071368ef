/*
 * Queries of work creation (backend/work.c) and app registration
 * (tools/xadd, tools/update_versions). Listed in db_query.c like the
 * others so the EXPLAIN test checks them.
 */
#ifndef WSEQ_DB_WORK_H
#define WSEQ_DB_WORK_H

#include "db_queries.h"

extern const struct db_query dbq_result_count_wu, dbq_app_version_by_key, dbq_wu_id_by_name;

/* The id of the workunit called name; DB_NOT_FOUND if there is none. */
int db_workunit_id_by_name(struct db *db, const char *name, int64_t *id);

/* How many results workunit wuid has (the next result's index). */
int db_result_count_workunit(struct db *db, int64_t wuid, int64_t *count);

/*
 * The app version (appid, platformid, version_num, plan_class) into av
 * (zeroed or freed before); DB_NOT_FOUND if there is none.
 */
int db_app_version_lookup_key(struct db *db, int64_t appid, int64_t platformid,
			      int version_num, const char *plan_class,
			      struct db_app_version *av);

#endif
