/*
 * wseq_test work: backend calls for shell tests and benchmarks, as the daemons
 * make them. Run with the project's config.xml reachable (WSEQ_PROJECT_DIR).
 *
 *   wseq_test work create_result WU_NAME [N]   make N (default 1) results of WU_NAME,
 *                                              printing each name and xml_doc_in
 *   wseq_test work certify                     certify the outputs of every result
 *                                              not over (work_certify_outputs): rows
 *                                              copied in SQL with new names, as
 *                                              test/bench fills its databases
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_records.h"
#include "log.h"
#include "work.h"
#include "wseq_test.h"

static const char usage[] = "usage: wseq_test work create_result WU_NAME [N]\n"
			    "       wseq_test work certify\n";

static int create_results(struct db *db, const struct project_config *cfg, const char *wu_name,
			  long n)
{
	struct db_workunit wu = { 0 };
	struct db_result r = { 0 };
	long i;
	int rc = -1;

	if (db_workunit_lookup_name(db, wu_name, &wu) != DB_OK) {
		log_error("no workunit %s", wu_name);
		goto out;
	}
	if (db_begin(db) != DB_OK)
		goto out;
	for (i = 0; i < n; i++) {
		if (work_create_result(db, cfg, &wu, &r)) {
			db_rollback(db);
			goto out;
		}
		printf("%s\n%s", r.name, r.xml_doc_in);
	}
	rc = db_commit(db) == DB_OK ? 0 : -1;
out:
	db_result_release(&r);
	db_workunit_release(&wu);
	return rc;
}

/* A thousand results a transaction, in id order; certificates that do not verify made anew. */
static int certify(struct db *db, const struct project_config *cfg)
{
	struct db_result_list l = { NULL, 0 };
	int64_t after = 0, done = 0;
	size_t i;
	int rc = DB_OK;

	do {
		struct db_val v[] = { DBV_INT(after) };

		db_result_list_release(&l);
		rc = db_begin(db);
		if (rc == DB_OK)
			rc = db_result_enum(db, "WHERE server_state<5 AND id>? ORDER BY id LIMIT 1000", v,
					    1, db_result_list_take, &l);
		for (i = 0; rc == DB_OK && i < l.n; i++) {
			char *was = xstrdup(l.v[i].xml_doc_in ? l.v[i].xml_doc_in : "");

			/* a certificate copied with another name does not verify: made anew */
			work_certify_outputs(cfg, &l.v[i]);
			if (strcmp(was, l.v[i].xml_doc_in ? l.v[i].xml_doc_in : "")) {
				rc = db_result_update(db, &l.v[i]);
				done++;
			}
			free(was);
			after = l.v[i].id;
		}
		if (rc == DB_OK)
			rc = db_commit(db);
		else if (db_in_transaction(db))
			db_rollback(db);
	} while (rc == DB_OK && l.n > 0);
	db_result_list_release(&l);
	printf("%" PRId64 " results certified\n", done);
	return rc == DB_OK ? 0 : -1;
}

int wseq_test_work(int argc, char **argv)
{
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	long n = 1;
	int rc = 1;

	if (argc == 2 && !strcmp(argv[1], "certify")) {
		n = 0;
	} else if (argc < 3 || strcmp(argv[1], "create_result") ||
		   (argc > 3 && (parse_long(argv[3], &n) || n < 1))) {
		fputs(usage, stderr);
		return 2;
	}
	if (config_load(&cfg, NULL, NULL, NULL))
		goto out;
	db_params_from_config(&dp, &cfg);
	if (db_open(&db, &dp, 0) != DB_OK)
		goto out;
	rc = n == 0 ? certify(db, &cfg) : create_results(db, &cfg, argv[2], n);
	rc = rc == 0 ? 0 : 1;
out:
	if (db)
		db_close(db);
	config_release(&cfg);
	return rc;
}
