/*
 * wseq_test db: the database layer's internals for shell tests. Connection
 * settings come from WSEQ_DB_* in the environment.
 *
 *   wseq_test db create SCHEMA_SQL  create WSEQ_DB_NAME afresh and load the schema
 *   wseq_test db version            print the schema version
 *   wseq_test db fill N             insert N rows into the hot tables, then ANALYZE
 *   wseq_test db explain            EXPLAIN every named query; exit 1 if one scans
 *                                   all of a result/workunit/host/sequence table
 *                                   or of one of its indexes
 *   wseq_test db serve              hold one connection and run commands from
 *                                   stdin, one reply line each on stdout:
 *       ping | count | connid | begin | commit | rollback |
 *       implicit (db_set_implicit_transactions) | end (db_end_request) |
 *       insert NAME | lookup NAME | lock NAME (SELECT ... FOR UPDATE) |
 *       lockall PATTERN (name LIKE PATTERN ... FOR UPDATE)  (platform rows) | quit
 *     replies: "ok [value]", "not_found", "retry", "error"
 */
#include "common.h"
#include "db.h"
#include "db_queries.h"
#include "log.h"
#include "wtime.h"
#include "wseq_test.h"

static const char *rc_word(int rc)
{
	switch (rc) {
	case DB_OK: return "ok";
	case DB_NOT_FOUND: return "not_found";
	case DB_RETRY: return "retry";
	default: return "error";
	}
}

static int open_db(struct db **db)
{
	struct db_params p;

	db_params_from_env(&p);
	return db_open(db, &p, 10) == DB_OK ? 0 : -1;
}

static int cmd_create(const char *schema)
{
	struct db_params p;
	struct db *db;
	int rc;

	db_params_from_env(&p);
	if (db_create_database(&p, true) != DB_OK || db_open(&db, &p, 0) != DB_OK)
		return 1;
	rc = db_load_schema(db, schema) == DB_OK ? 0 : 1;
	db_close(db);
	return rc;
}

static int cmd_version(void)
{
	struct db *db;
	long v;
	int rc;

	if (open_db(&db) < 0)
		return 1;
	rc = db_schema_version(db, &v);
	if (rc == DB_OK)
		printf("%ld\n", v);
	db_close(db);
	return rc == DB_OK ? 0 : 1;
}

/*
 * Realistic spreads of values, so the optimizer's choice is the one a live
 * project gets (on near-empty tables it may prefer a scan for anything).
 */
static int cmd_fill(long n)
{
	static const char *const analyze[] = { "ANALYZE TABLE result", "ANALYZE TABLE workunit",
		"ANALYZE TABLE host", "ANALYZE TABLE sequence", "ANALYZE TABLE seq_file",
		"ANALYZE TABLE batch", "ANALYZE TABLE job_file", "ANALYZE TABLE batch_file_assoc",
		"ANALYZE TABLE user_submit_app" };
	struct db *db;
	long i;
	int rc = DB_OK;
	size_t k;

	if (open_db(&db) < 0)
		return 1;
	for (i = 1; i <= n && rc == DB_OK; i++) {
		struct db_workunit wu = { 0 };
		struct db_result r = { 0 };
		struct db_host h = { 0 };
		struct db_sequence s = { 0 };
		struct db_seq_file f = { 0 };
		struct db_batch b = { 0 };
		struct db_job_file jf = { 0 };
		char name[64];

		if (i == 1)
			rc = db_begin(db);
		snprintf(name, sizeof(name), "fill_%ld", i);
		wu.name = r.name = s.name = f.name = b.name = jf.name = name;
		wu.appid = 1 + i % 5;
		wu.transition_time = i % 50 == 0 ? 1 : 2000000000 + i;
		wu.need_validate = i % 40 == 0;
		wu.assimilate_state = i % 30 == 0 ? ASSIMILATE_READY : ASSIMILATE_DONE;
		wu.file_delete_state = i % 35 == 0 ? FILE_DELETE_READY : FILE_DELETE_DONE;
		wu.batch = i % 100;
		wu.seq_id = i % 3 == 0 ? i / 3 : 0;
		wu.seqno = (int)(i % 20);
		if (rc == DB_OK)
			rc = db_workunit_insert(db, &wu);
		r.workunitid = wu.id;
		r.server_state = i % 25 == 0 ? RESULT_SERVER_STATE_UNSENT
			: i % 7 == 0 ? RESULT_SERVER_STATE_IN_PROGRESS : RESULT_SERVER_STATE_OVER;
		r.hostid = i % 200;
		r.userid = i % 50;
		r.report_deadline = 2000000000 + i;
		r.file_delete_state = i % 35 == 0 ? FILE_DELETE_READY : FILE_DELETE_DONE;
		r.seq_id = wu.seq_id;
		if (rc == DB_OK)
			rc = db_result_insert(db, &r);
		h.userid = i % 50;
		h.host_cpid = name;
		if (rc == DB_OK)
			rc = db_host_insert(db, &h);
		s.appid = 1;
		s.hostid = i % 4 == 0 ? 0 : i;
		s.state = i % 10 == 0 ? SEQ_STATE_ACTIVE : SEQ_STATE_ENDED;
		s.need_relocate = i % 60 == 0;
		s.groupid = i / 10;
		if (rc == DB_OK)
			rc = db_sequence_insert(db, &s);
		f.seq_id = s.id;
		f.seqno = (int)(i % 20);
		f.file_delete_state = i % 35 == 0 ? FILE_DELETE_READY : FILE_DELETE_DONE;
		if (rc == DB_OK)
			rc = db_seq_file_insert(db, &f);
		b.user_id = i % 50;
		b.state = i % 20 == 0 ? BATCH_STATE_IN_PROGRESS : BATCH_STATE_RETIRED;
		b.expire_time = 1e9 + (double)i;
		if (rc == DB_OK)
			rc = db_batch_insert(db, &b);
		jf.delete_time = 2e9 + (double)i;
		if (rc == DB_OK)
			rc = db_job_file_insert(db, &jf);
		if (rc == DB_OK)
			rc = db_batch_file_assoc_add(db, jf.id, b.id);
		if (rc == DB_OK && (i % 500 == 0 || i == n)) {
			rc = db_commit(db);
			if (rc == DB_OK && i < n)
				rc = db_begin(db);
		}
	}
	for (k = 0; k < ARRAY_SIZE(analyze) && rc == DB_OK; k++)
		rc = db_exec(db, analyze[k], NULL, 0, NULL);
	db_close(db);
	return rc == DB_OK ? 0 : 1;
}

struct explain_ctx {
	const struct db_query *q;
	int bad;
};

static int explain_row(const char *table, const char *type, const char *key,
		       const char *extra, void *arg)
{
	struct explain_ctx *c = arg;
	bool hot = table && (!strcmp(table, "result") || !strcmp(table, "workunit") ||
			     !strcmp(table, "host") || !strcmp(table, "sequence"));
	/* ALL reads the table, index reads all of an index: both grow with the table */
	bool scan = type && (strcmp(type, "ALL") == 0 || strcmp(type, "index") == 0);

	printf("%-26s %-12s %-8s %-16s %s%s\n", c->q->name, table ? table : "-",
	       type ? type : "-", key ? key : "-", extra ? extra : "",
	       hot && scan ? "  <-- full scan" : "");
	if (hot && scan)
		c->bad++;
	return 0;
}

static int cmd_explain(void)
{
	struct db *db;
	size_t i;
	int bad = 0;

	if (open_db(&db) < 0)
		return 1;
	for (i = 0; i < db_nqueries; i++) {
		struct explain_ctx c = { db_queries[i], 0 };

		if (db_query_explain(db, db_queries[i], explain_row, &c) != DB_OK) {
			printf("%-26s EXPLAIN failed: %s\n", db_queries[i]->name, db_error(db));
			bad++;
		}
		bad += c.bad;
	}
	printf("%zu queries, %d full scans of hot tables\n", db_nqueries, bad);
	db_close(db);
	return bad ? 1 : 0;
}

static void reply(int rc, const char *value)
{
	if (value)
		printf("%s %s\n", rc_word(rc), value);
	else
		printf("%s\n", rc_word(rc));
	fflush(stdout);
}

static int count_row(struct db_platform *p, void *arg)
{
	(void)p;
	(*(int64_t *)arg)++;
	return 0;
}

static int cmd_serve(void)
{
	struct db *db;
	char line[512];

	if (open_db(&db) < 0)
		return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char *arg, *nl = strchr(line, '\n');
		char buf[64];
		int64_t v;
		int rc;

		if (nl)
			*nl = '\0';
		arg = strchr(line, ' ');
		if (arg)
			*arg++ = '\0';
		if (!strcmp(line, "quit")) {
			break;
		} else if (!strcmp(line, "ping")) {
			reply(db_ping(db), NULL);
		} else if (!strcmp(line, "count")) {
			rc = db_select_i64(db, "SELECT COUNT(*) FROM platform", NULL, 0, &v);
			snprintf(buf, sizeof(buf), "%" PRId64, v);
			reply(rc, rc == DB_OK ? buf : NULL);
		} else if (!strcmp(line, "connid")) {
			rc = db_select_i64(db, "SELECT CONNECTION_ID()", NULL, 0, &v);
			snprintf(buf, sizeof(buf), "%" PRId64, v);
			reply(rc, rc == DB_OK ? buf : NULL);
		} else if (!strcmp(line, "begin")) {
			reply(db_begin(db), NULL);
		} else if (!strcmp(line, "commit")) {
			reply(db_commit(db), NULL);
		} else if (!strcmp(line, "rollback")) {
			reply(db_rollback(db), NULL);
		} else if (!strcmp(line, "implicit")) {
			reply(db_set_implicit_transactions(db), NULL);
		} else if (!strcmp(line, "end")) {
			db_end_request(db);
			reply(DB_OK, NULL);
		} else if (!strcmp(line, "insert") && arg) {
			struct db_platform p = { 0 };

			p.name = arg;
			p.create_time = now();
			reply(db_platform_insert(db, &p), NULL);
		} else if (!strcmp(line, "lock") && arg) {
			/* the platform named arg, locked: the same prepared statement every time */
			struct db_val val[] = { DBV_STR(arg) };
			int64_t n = 0;

			rc = db_platform_enum(db, "WHERE name=? FOR UPDATE", val, 1, count_row, &n);
			reply(rc, NULL);
		} else if (!strcmp(line, "lockall") && arg) {
			/* every platform whose name is LIKE arg, locked one after the other */
			struct db_val val[] = { DBV_STR(arg) };
			int64_t n = 0;

			rc = db_platform_enum(db, "WHERE name LIKE ? ORDER BY id FOR UPDATE", val, 1,
					      count_row, &n);
			snprintf(buf, sizeof(buf), "%" PRId64, n);
			reply(rc, rc == DB_OK ? buf : NULL);
		} else if (!strcmp(line, "lookup") && arg) {
			struct db_platform p = { 0 };

			rc = db_platform_lookup_name(db, arg, &p);
			snprintf(buf, sizeof(buf), "%" PRId64, p.id);
			reply(rc, rc == DB_OK ? buf : NULL);
			db_platform_release(&p);
		} else {
			printf("usage: unknown command '%s'\n", line);
			fflush(stdout);
		}
	}
	db_close(db);
	return 0;
}

int wseq_test_db(int argc, char **argv)
{
	long n;

	if (argc == 3 && !strcmp(argv[1], "create"))
		return cmd_create(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "version"))
		return cmd_version();
	if (argc == 3 && !strcmp(argv[1], "fill") && parse_long(argv[2], &n) == 0)
		return cmd_fill(n);
	if (argc == 2 && !strcmp(argv[1], "explain"))
		return cmd_explain();
	if (argc == 2 && !strcmp(argv[1], "serve"))
		return cmd_serve();
	fprintf(stderr, "usage: wseq_test db create SCHEMA_SQL | version | fill N | explain | serve\n");
	return 2;
}
