/*
 * work_tool: work_create_result for shell tests, as the transitioner will
 * call it. Run with the project's config.xml reachable (WSEQ_PROJECT_DIR).
 *
 *   work_tool create_result WU_NAME [N]   make N (default 1) results of WU_NAME,
 *                                         printing each name and xml_doc_in
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_records.h"
#include "log.h"
#include "work.h"

int main(int argc, char **argv)
{
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	struct db_workunit wu = { 0 };
	struct db_result r = { 0 };
	long n = 1, i;
	int rc = 1;

	log_init("work_tool", NULL);
	if (argc < 3 || strcmp(argv[1], "create_result") ||
	    (argc > 3 && (parse_long(argv[3], &n) || n < 1))) {
		fprintf(stderr, "usage: work_tool create_result WU_NAME [N]\n");
		return 2;
	}
	if (config_load(&cfg, NULL, NULL, NULL))
		goto out;
	db_params_from_config(&dp, &cfg);
	if (db_open(&db, &dp, 0) != DB_OK)
		goto out;
	if (db_workunit_lookup_name(db, argv[2], &wu) != DB_OK) {
		log_error("no workunit %s", argv[2]);
		goto out;
	}
	if (db_begin(db) != DB_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (work_create_result(db, &cfg, &wu, &r)) {
			db_rollback(db);
			goto out;
		}
		printf("%s\n%s", r.name, r.xml_doc_in);
	}
	if (db_commit(db) != DB_OK)
		goto out;
	rc = 0;
out:
	db_result_free(&r);
	db_workunit_free(&wu);
	if (db)
		db_close(db);
	config_free(&cfg);
	return rc;
}
