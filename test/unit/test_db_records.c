/*
 * The record layer against a real MariaDB (t0110-db-records.sh starts one
 * and passes WSEQ_DB_*): every record type round-trips with every field
 * set to a distinctive value, the typed wrappers and named queries do what
 * they say, transactions commit and roll back, and a duplicate name is an
 * error, not a crash.
 */
#include "unit.h"
#include "db.h"
#include "db_records.h"
#include "db_queries.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

#include <math.h>

#define TEST_DB "wseq_t_records"

static struct db *db;
static struct db_params params;

static int setup(void **state)
{
	const char *src = getenv("WSEQ_SRCDIR");
	char *schema = xasprintf("%s/db/schema.sql", src ? src : ".");

	db_params_from_env(&params);
	params.name = TEST_DB;
	if (db_create_database(&params, true) != DB_OK)
		return -1;
	if (db_open(&db, &params, 10) != DB_OK)
		return -1;
	if (db_load_schema(db, schema) != DB_OK)
		return -1;
	free(schema);
	return 0;
}

static int teardown(void **state)
{
	db_close(db);
	return 0;
}

/* ---- generic fill and compare, driven by the descriptors ----------------- */

static bool is_blob(const char *col)
{
	static const char *const blobs[] = { "xml_doc", "xml_doc_in", "xml_doc_out",
					     "stderr_out", "global_prefs", "project_prefs",
					     "misc" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(blobs); i++)
		if (strcmp(col, blobs[i]) == 0)
			return true;
	return false;
}

static void *fld(void *rec, const struct db_column *c)
{
	return (char *)rec + c->offset;
}

/*
 * Every column gets a value no other column of the row has, far from any
 * default: 64-bit integers above 2^40, negative and large ints, doubles
 * near the ends of the range, strings with quotes, a backslash, control
 * characters, accents and an emoji (blobs also raw high bytes, and one
 * a 200 kB document).
 */
static void fill(const struct db_table *t, void *rec, int seed, bool keep_keys)
{
	size_t j;

	for (j = 0; j < t->ncols; j++) {
		const struct db_column *c = &t->cols[j];
		int k = seed * 100 + (int)j;

		if (c->flags & DB_COL_MODTIME)
			continue;
		if (keep_keys && (c->flags & (DB_COL_ID | DB_COL_KEY)))
			continue;
		switch (c->type) {
		case DB_T_INT:
			*(int *)fld(rec, c) = (j % 2 ? -1 : 1) * (1000000 + k);
			break;
		case DB_T_I64:
			*(int64_t *)fld(rec, c) = ((int64_t)1 << 40) + (int64_t)k * 1000003;
			break;
		case DB_T_DOUBLE:
			*(double *)fld(rec, c) = j % 3 == 0 ? 1.2345678901234567e300 / (k + 1)
				: j % 3 == 1 ? -9.87654321e-300 * (k + 1) : 0.1 + k;
			break;
		case DB_T_STR: {
			char **s = fld(rec, c);

			free(*s);
			if (strcmp(c->name, "xml_doc") == 0 && seed == 2) {
				size_t n = 200 * 1024, i;

				*s = xmalloc(n + 1);
				for (i = 0; i < n; i++)
					(*s)[i] = (char)('a' + (i * 7 + (size_t)k) % 26);
				(*s)[n] = '\0';
			} else if (is_blob(c->name)) {
				*s = xasprintf("<x a='1'>\"\\\x01\x7f\xff\xfe\x80 %s %d</x>", c->name, k);
			} else {
				*s = xasprintf("'\"\\\x01\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 %d", k);
			}
			break;
		}
		}
	}
}

static void assert_same(const struct db_table *t, void *a, void *b)
{
	size_t j;

	for (j = 0; j < t->ncols; j++) {
		const struct db_column *c = &t->cols[j];

		if (c->flags & DB_COL_MODTIME) {
			int64_t m = *(int64_t *)fld(b, c);

			if (m < now() - 86400 || m > now() + 86400)
				fail_msg("%s.%s: mod_time %" PRId64 " is not about now", t->name,
					 c->name, m);
			continue;
		}
		switch (c->type) {
		case DB_T_INT:
			if (*(int *)fld(a, c) != *(int *)fld(b, c))
				fail_msg("%s.%s: wrote %d, read %d", t->name, c->name,
					 *(int *)fld(a, c), *(int *)fld(b, c));
			break;
		case DB_T_I64:
			if (*(int64_t *)fld(a, c) != *(int64_t *)fld(b, c))
				fail_msg("%s.%s: wrote %" PRId64 ", read %" PRId64, t->name, c->name,
					 *(int64_t *)fld(a, c), *(int64_t *)fld(b, c));
			break;
		case DB_T_DOUBLE:
			if (*(double *)fld(a, c) != *(double *)fld(b, c))
				fail_msg("%s.%s: wrote %.17g, read %.17g", t->name, c->name,
					 *(double *)fld(a, c), *(double *)fld(b, c));
			break;
		case DB_T_STR: {
			const char *x = *(char **)fld(a, c), *y = *(char **)fld(b, c);

			if (!y || strcmp(x ? x : "", y) != 0)
				fail_msg("%s.%s: wrote \"%.60s\", read \"%.60s\"", t->name, c->name,
					 x ? x : "(null)", y ? y : "(null)");
			break;
		}
		}
	}
}

static int count_rows(void *rec, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static void round_trip(const struct db_table *t)
{
	void *a = xcalloc(1, t->size), *b = xcalloc(1, t->size), *c = xcalloc(1, t->size);
	struct db_val keys[4];
	char tail[256];
	size_t j, nk = 0;
	int64_t n;
	int rows = 0;

	fill(t, a, 1, false);
	if (db_rec_insert(db, t, a) != DB_OK)
		fail_msg("%s: insert failed: %s", t->name, db_error(db));
	/* b gets only the keys, then everything else from the database */
	tail[0] = '\0';
	for (j = 0; j < t->ncols; j++) {
		const struct db_column *col = &t->cols[j];

		if (!(col->flags & (DB_COL_ID | DB_COL_KEY)))
			continue;
		memcpy(fld(b, col), fld(a, col), col->type == DB_T_INT ? sizeof(int) : sizeof(int64_t));
		keys[nk] = col->type == DB_T_INT ? DBV_INT(*(int *)fld(a, col))
						 : DBV_INT(*(int64_t *)fld(a, col));
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "%s`%s`=?",
			 nk ? " AND " : "WHERE ", col->name);
		nk++;
	}
	assert_int_equal(db_rec_lookup(db, t, b), DB_OK);
	assert_same(t, a, b);

	/* update every non-key column, and read it back */
	fill(t, a, 2, true);
	assert_int_equal(db_rec_update(db, t, a), DB_OK);
	assert_int_equal(db_rec_lookup(db, t, b), DB_OK);
	assert_same(t, a, b);

	/* enumerate with a where clause over the key, and count */
	assert_int_equal(db_rec_enum(db, t, tail, keys, nk, count_rows, &rows), DB_OK);
	assert_int_equal(rows, 1);
	assert_int_equal(db_rec_count(db, t, tail, keys, nk, &n), DB_OK);
	assert_int_equal(n, 1);

	assert_int_equal(db_rec_delete(db, t, a), DB_OK);
	memcpy(c, b, t->size);          /* same keys; strings freed via b only */
	for (j = 0; j < t->ncols; j++)
		if (t->cols[j].type == DB_T_STR)
			*(char **)fld(c, &t->cols[j]) = NULL;
	assert_int_equal(db_rec_lookup(db, t, c), DB_NOT_FOUND);
	assert_int_equal(db_rec_delete(db, t, a), DB_NOT_FOUND);
	assert_int_equal(db_rec_update(db, t, a), DB_NOT_FOUND);
	db_rec_release(t, a);
	db_rec_release(t, b);
	db_rec_release(t, c);
	free(a);
	free(b);
	free(c);
}

static void test_round_trip_every_table(void **state)
{
	size_t i;

	for (i = 0; i < db_ntables; i++)
		round_trip(db_all_tables[i]);
	assert_int_equal(db_ntables, 22);
}

static void test_auto_id_and_typed_wrappers(void **state)
{
	struct db_app app = { 0 };
	struct db_workunit wu = { 0 }, wu2 = { 0 };
	struct db_user u = { 0 }, u2 = { 0 };

	app.name = xstrdup("typed_app");
	assert_int_equal(db_app_insert(db, &app), DB_OK);
	assert_true(app.id > 0);
	wu.appid = app.id;
	wu.name = xstrdup("seg_7_0_3");
	wu.seq_id = 7;
	wu.seqno = 3;
	wu.xml_doc = xstrdup("<file_ref/>");
	assert_int_equal(db_workunit_insert(db, &wu), DB_OK);
	assert_true(wu.id > 0);
	assert_int_equal(db_workunit_lookup_name(db, "seg_7_0_3", &wu2), DB_OK);
	assert_int_equal(wu2.id, wu.id);
	assert_int_equal(wu2.seq_id, 7);
	assert_int_equal(wu2.seqno, 3);
	/* a NULL string is written as '' and read back as "" */
	assert_non_null(wu2.keywords);
	assert_string_equal(wu2.keywords, "");
	assert_int_equal(db_workunit_lookup_name(db, "no such", &wu2), DB_NOT_FOUND);
	assert_int_equal(db_workunit_lookup_id(db, wu.id, &wu2), DB_OK);
	assert_string_equal(wu2.xml_doc, "<file_ref/>");

	u.email_addr = xstrdup("a@example.org");
	u.authenticator = xstrdup("0123456789abcdef0123456789abcdef");
	u.name = xstrdup("O'Brien \"the\" \\admin\\");
	assert_int_equal(db_user_insert(db, &u), DB_OK);
	assert_int_equal(db_user_lookup_auth(db, u.authenticator, &u2), DB_OK);
	assert_string_equal(u2.name, u.name);
	assert_int_equal(db_user_lookup_email(db, "a@example.org", &u2), DB_OK);
	assert_int_equal(u2.id, u.id);
	/* a name is matched as a value, never spliced into SQL */
	assert_int_equal(db_user_lookup_auth(db, "' OR '1'='1", &u2), DB_NOT_FOUND);
	/* only unique columns can be looked up by */
	assert_int_equal(db_rec_lookup_by(db, &db_user_table, "country", "x", &u2), DB_ERROR);

	db_app_release(&app);
	db_workunit_release(&wu);
	db_workunit_release(&wu2);
	db_user_release(&u);
	db_user_release(&u2);
}

static void test_duplicate_name_is_an_error(void **state)
{
	struct db_platform p = { 0 }, q = { 0 };

	p.name = xstrdup("dup_platform");
	assert_int_equal(db_platform_insert(db, &p), DB_OK);
	q.name = xstrdup("dup_platform");
	assert_int_equal(db_platform_insert(db, &q), DB_ERROR);
	assert_int_equal(db_errno(db), 1062);
	assert_non_null(strstr(db_error(db), "Duplicate"));
	assert_int_equal(q.id, 0);
	/* the connection still works */
	assert_int_equal(db_ping(db), DB_OK);
	assert_int_equal(db_platform_lookup_name(db, "dup_platform", &q), DB_OK);
	assert_int_equal(q.id, p.id);
	db_platform_release(&p);
	db_platform_release(&q);
}

static void test_transactions(void **state)
{
	struct db *other;
	struct db_platform p = { 0 }, q = { 0 };

	assert_int_equal(db_open(&other, &params, 0), DB_OK);

	assert_int_equal(db_begin(db), DB_OK);
	assert_true(db_in_transaction(db));
	p.name = xstrdup("rolled_back");
	assert_int_equal(db_platform_insert(db, &p), DB_OK);
	assert_int_equal(db_platform_lookup_name(db, "rolled_back", &q), DB_OK);
	assert_int_equal(db_platform_lookup_name(other, "rolled_back", &q), DB_NOT_FOUND);
	assert_int_equal(db_rollback(db), DB_OK);
	assert_false(db_in_transaction(db));
	assert_int_equal(db_platform_lookup_name(db, "rolled_back", &q), DB_NOT_FOUND);

	assert_int_equal(db_begin(db), DB_OK);
	free(p.name);
	p.name = xstrdup("committed");
	p.id = 0;
	assert_int_equal(db_platform_insert(db, &p), DB_OK);
	assert_int_equal(db_platform_lookup_name(other, "committed", &q), DB_NOT_FOUND);
	assert_int_equal(db_commit(db), DB_OK);
	assert_int_equal(db_platform_lookup_name(other, "committed", &q), DB_OK);
	assert_int_equal(q.id, p.id);
	assert_int_equal(db_commit(db), DB_ERROR);      /* no transaction */

	db_platform_release(&p);
	db_platform_release(&q);
	db_close(other);
}

struct ids {
	int64_t id[16];
	int n;
};

static int collect_result(struct db_result *r, void *arg)
{
	struct ids *x = arg;

	x->id[x->n++] = r->id;
	return x->n == 16;
}

static void test_named_queries(void **state)
{
	struct db_result r = { 0 };
	struct ids x = { { 0 }, 0 };
	struct db_sequence s = { 0 };
	int64_t n99 = 0;
	int i;

	for (i = 0; i < 5; i++) {
		r.id = 0;
		r.workunitid = 4242;
		r.server_state = RESULT_SERVER_STATE_UNSENT;
		r.priority = i;
		free(r.name);
		r.name = xasprintf("q_result_%d", i);
		assert_int_equal(db_result_insert(db, &r), DB_OK);
	}
	assert_int_equal(db_result_enum_workunit(db, 4242, collect_result, &x), DB_OK);
	assert_int_equal(x.n, 5);
	assert_true(x.id[0] < x.id[4]);
	x.n = 0;
	assert_int_equal(db_result_enum_unsent_lock(db, false, 1000, INT64_MAX, 0, 2, collect_result,
						    &x), DB_OK);
	assert_int_equal(x.n, 2);                       /* LIMIT bound */
	/* claimed ahead until 2000: passed over before then, found among the leased */
	{
		struct ids y = { { 0 }, 0 };

		assert_int_equal(db_result_lease(db, &x.id[0], 1, 2000), DB_OK);
		assert_int_equal(db_result_enum_unsent_lock(db, false, 1000, INT64_MAX, 0, 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 4);
		assert_true(y.id[0] == x.id[1]);
		y.n = 0;
		assert_int_equal(db_result_enum_unsent_lock(db, true, 1000, INT64_MAX, 0, 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 1);
		assert_true(y.id[0] == x.id[0]);
		y.n = 0;                                /* the lease ended */
		assert_int_equal(db_result_enum_unsent_lock(db, false, 2001, INT64_MAX, 0, 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 5);
		assert_true(y.id[0] == x.id[0]);
		y.n = 0;                                /* after the first's key (priority 4) */
		assert_int_equal(db_result_enum_unsent_lock(db, false, 2001, 4, x.id[0], 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 4);
		assert_true(y.id[0] == x.id[1]);
		y.n = 0;
		assert_int_equal(db_result_enum_unsent_lock(db, true, 1000, 4, x.id[0], 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 0);
		/* given back */
		assert_int_equal(db_result_lease(db, &x.id[0], 1, 0), DB_OK);
		y.n = 0;
		assert_int_equal(db_result_enum_unsent_lock(db, true, 1000, INT64_MAX, 0, 5,
							    collect_result, &y), DB_OK);
		assert_int_equal(y.n, 0);
	}

	/* claiming: the first scheduler wins, the second is told */
	r.id = x.id[0];
	{
		int64_t one = r.id, matched = -1;

		assert_int_equal(db_result_claim_many(db, &one, 1, 99, 0, 1000, 2000, 0, 0, &matched),
				 DB_OK);
		assert_int_equal(matched, 1);
		assert_int_equal(db_result_claim_many(db, &one, 1, 99, 0, 1000, 2000, 0, 0, &matched),
				 DB_OK);
		assert_int_equal(matched, 0);
	}
	assert_int_equal(db_result_count_host_in_progress(db, 99, &n99), DB_OK);
	assert_int_equal(n99, 1);
	/* many at once: those still unsent, each once however often it is named */
	{
		int64_t ids[3] = { x.id[0], x.id[1], x.id[1] }, matched = -1;

		assert_int_equal(db_result_claim_many(db, ids, 3, 98, 1, 1000, 2000, 0, 0, &matched),
				 DB_OK);
		assert_int_equal(matched, 1);
		assert_int_equal(db_result_claim_many(db, ids, 3, 98, 1, 1000, 2000, 0, 0, &matched),
				 DB_OK);
		assert_int_equal(matched, 0);
		assert_int_equal(db_result_count_host_in_progress(db, 98, &n99), DB_OK);
		assert_int_equal(n99, 1);
	}
	/* transition times: each workunit to its own time, only ever earlier */
	{
		struct db_workunit w = { 0 };
		int64_t wids[5], times[5] = { 500, 700, 300, 900, 100 };

		for (i = 0; i < 5; i++) {
			w.id = 0;
			free(w.name);
			w.name = xasprintf("touch_%d", i);
			w.transition_time = 600;
			assert_int_equal(db_workunit_insert(db, &w), DB_OK);
			wids[i] = w.id;
		}
		assert_int_equal(db_workunit_touch_each(db, wids, times, 5), DB_OK);
		for (i = 0; i < 5; i++) {
			assert_int_equal(db_workunit_lookup_id(db, wids[i], &w), DB_OK);
			assert_int_equal(w.transition_time, times[i] < 600 ? times[i] : 600);
		}
		db_workunit_release(&w);
	}
	/* reports of one host in one statement: each row its own figures, and only in progress */
	{
		struct db_result_report rep[3];
		struct db_result got = { 0 };
		int64_t matched = -1;

		for (i = 0; i < 3; i++) {
			got.id = 0;
			free(got.name);
			got.name = xasprintf("report_%d", i);
			got.server_state = i < 2 ? RESULT_SERVER_STATE_IN_PROGRESS : RESULT_SERVER_STATE_OVER;
			got.hostid = 97;
			assert_int_equal(db_result_insert(db, &got), DB_OK);
			memset(&rep[i], 0, sizeof(rep[i]));
			rep[i].id = got.id;
			rep[i].hostid = 97;
			rep[i].outcome = i == 1 ? RESULT_OUTCOME_CLIENT_ERROR : RESULT_OUTCOME_SUCCESS;
			rep[i].exit_status = i;
			rep[i].cpu_time = 10.5 * (i + 1);
			rep[i].received_time = 3000 + i;
			rep[i].stderr_out = i == 0 ? "first" : "second";
			rep[i].xml_doc_out = "";
		}
		assert_int_equal(db_result_report_many(db, rep, 3, &matched), DB_OK);
		assert_int_equal(matched, 2);           /* the third is over, not timed out */
		for (i = 0; i < 2; i++) {
			assert_int_equal(db_result_lookup_id(db, rep[i].id, &got), DB_OK);
			assert_int_equal(got.server_state, RESULT_SERVER_STATE_OVER);
			assert_int_equal(got.outcome, rep[i].outcome);
			assert_int_equal(got.exit_status, i);
			assert_true(got.cpu_time == 10.5 * (i + 1));
			assert_int_equal(got.received_time, 3000 + i);
			assert_string_equal(got.stderr_out, rep[i].stderr_out);
		}
		assert_int_equal(db_result_report_many(db, rep, 2, &matched), DB_OK);
		assert_int_equal(matched, 0);           /* reported already */
		db_result_release(&got);
	}
	assert_int_equal(db_result_claim_timed_out(db, r.id, 1500), DB_NOT_FOUND);
	assert_int_equal(db_result_claim_timed_out(db, r.id, 2500), DB_OK);
	assert_int_equal(db_result_lookup_id(db, r.id, &r), DB_OK);
	assert_int_equal(r.server_state, RESULT_SERVER_STATE_OVER);
	assert_int_equal(r.outcome, RESULT_OUTCOME_NO_REPLY);

	/* a sequence is assigned once */
	s.name = xstrdup("seq_assign");
	s.appid = 1;
	assert_int_equal(db_sequence_insert(db, &s), DB_OK);
	assert_int_equal(db_sequence_assign(db, s.id, 5, 100, 1), DB_OK);
	assert_int_equal(db_sequence_assign(db, s.id, 6, 100, 1), DB_NOT_FOUND);
	assert_int_equal(db_sequence_lookup_id(db, s.id, &s), DB_OK);
	assert_int_equal(s.hostid, 5);

	/* a repeated association is not an error */
	assert_int_equal(db_batch_file_assoc_add(db, 3, 4), DB_OK);
	assert_int_equal(db_batch_file_assoc_add(db, 3, 4), DB_OK);

	/* a wrong number of values is refused before reaching the server */
	assert_int_equal(db_query_exec(db, &dbq_seq_assign, NULL, 0, NULL), DB_ERROR);
	assert_int_equal(db_exec(db, "UPDATE host SET rpc_seqno=? WHERE id=?", NULL, 0, NULL),
			 DB_ERROR);
	db_result_release(&r);
	db_sequence_release(&s);
}

static int platform_name_of(struct db_platform *p, void *arg)
{
	snprintf(arg, 64, "%s", p->name);
	return 0;
}

/*
 * SELECTs are remembered by their text and statements looked up by the
 * pointer first: a tail rewritten in place (the same pointer) must still
 * run its own SQL, and SQL in a reused buffer its own statement.
 */
static void test_sql_reused_buffers(void **state)
{
	struct db_platform p = { 0 };
	char tail[64], got[64], sql[128];
	int64_t v = 0;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		p.id = 0;
		p.name = i ? "reuse_b" : "reuse_a";
		assert_int_equal(db_platform_insert(db, &p), DB_OK);
	}
	p.name = NULL;
	for (i = 0; i < 4; i++) {
		snprintf(tail, sizeof(tail), "WHERE name='reuse_%c'", i % 2 ? 'b' : 'a');
		got[0] = '\0';
		assert_int_equal(db_platform_enum(db, tail, NULL, 0, platform_name_of, got), DB_OK);
		assert_string_equal(got, i % 2 ? "reuse_b" : "reuse_a");
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM platform WHERE name LIKE 'reuse_%c'",
			 i % 2 ? '%' : 'a');
		assert_int_equal(db_select_i64(db, sql, NULL, 0, &v), DB_OK);
		assert_int_equal(v, i % 2 ? 2 : 1);
	}
}

static void test_list_and_nested_statements(void **state)
{
	struct db_result *list;
	size_t n, i;

	assert_int_equal(db_rec_list(db, &db_result_table, "WHERE workunitid=? ORDER BY id",
				     (struct db_val[]){ DBV_INT(4242) }, 1, (void **)&list, &n),
			 DB_OK);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_int_equal(list[i].workunitid, 4242);
	assert_string_equal(list[4].name, "q_result_4");
	db_rec_list_free(&db_result_table, list, n);
}

/* ---- host_app_version (db_hav.c) ------------------------------------------ */

struct havs {
	struct db_host_app_version v[8];
	size_t n;
};

static int collect_hav(struct db_host_app_version *h, void *arg)
{
	struct havs *x = arg;

	assert_true(x->n < ARRAY_SIZE(x->v));
	x->v[x->n++] = *h;
	return 0;
}

static struct db_host_app_version hav_row(int64_t hostid, int64_t avid)
{
	struct havs x = { .n = 0 };
	size_t i;

	assert_int_equal(db_hav_enum_host(db, hostid, collect_hav, &x), DB_OK);
	for (i = 0; i < x.n && x.v[i].app_version_id != avid; i++)
		;
	assert_true(i < x.n);
	return x.v[i];
}

static void assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-9 * fabs(want))
		fail_msg("%.17g, expected %.17g", got, want);
}

/* A job of host on avid at flops FLOPS in elapsed s: its workunit made with that estimate. */
static int hav_job(int64_t host, int64_t avid, double flops, double elapsed, bool *taken)
{
	static int n;
	struct db_workunit wu = { 0 };
	int rc;

	wu.name = xasprintf("hav_wu_%d", n++);
	wu.rsc_fpops_est = flops * elapsed;
	assert_int_equal(db_workunit_insert(db, &wu), DB_OK);
	rc = db_hav_report(db, host, avid, wu.id, elapsed, 1e18, taken);
	db_workunit_release(&wu);
	return rc;
}

/* A job taken as a sample. */
static int hav_sample(int64_t host, int64_t avid, double flops, double elapsed)
{
	bool taken = false;
	int rc = hav_job(host, avid, flops, elapsed, &taken);

	assert_true(rc != DB_OK || taken);
	return rc;
}

/*
 * The moving average: job n weighs 1/n up to n = 10, then 0.1 -- the
 * first job's speed is the average, the fifteenth moves it by a tenth.
 */
static void test_hav_moving_average(void **state)
{
	double flops[15] = { 100, 200, 300, 50, 400, 1000, 1000, 70, 1e9, 1, 5e3, 5e3, 5e3, 2, 9e12 };
	double want = 0, want_el = 0;
	struct db_host_app_version h;
	bool taken;
	int n;

	for (n = 1; n <= 15; n++) {
		double w = n <= 10 ? 1.0 / n : 0.1;

		assert_int_equal(hav_sample(901, 31, flops[n - 1], 10.0 * n), DB_OK);
		want += (flops[n - 1] - want) * w;
		want_el += (10.0 * n - want_el) * w;
		h = hav_row(901, 31);
		assert_int_equal(h.n_jobs, n);
		assert_close(h.flops_avg, want);
		assert_close(h.elapsed_avg, want_el);
		if (n == 1)
			assert_close(h.flops_avg, 100);
		if (n == 3)
			assert_close(h.flops_avg, 200);
	}
	assert_int_equal(h.host_id, 901);
	assert_int_equal(h.n_valid + h.n_invalid + h.consecutive_valid, 0);
	assert_true(h.last_update >= now() - 60);
	/* no measurement, no change: no elapsed time, no estimate, a speed above the bound */
	assert_int_equal(db_hav_report(db, 901, 31, 1, NAN, 1e18, &taken), DB_ERROR);
	assert_int_equal(db_hav_report(db, 901, 31, 1, 0, 1e18, &taken), DB_ERROR);
	assert_int_equal(db_hav_report(db, 901, 31, 1, INFINITY, 1e18, &taken), DB_ERROR);
	assert_int_equal(db_hav_report(db, 901, 31, 1, 1e300, 1e18, &taken), DB_ERROR);
	assert_int_equal(hav_job(901, 31, 0, 10, &taken), DB_OK);
	assert_false(taken);
	assert_int_equal(hav_job(901, 31, 2e18, 1e-6, &taken), DB_OK);
	assert_false(taken);
	assert_int_equal(hav_job(901, 31, 1e18, 1e-6, &taken), DB_OK);
	assert_true(taken);
	assert_int_equal(hav_row(901, 31).n_jobs, 16);
}

/*
 * Verdicts count; an invalid one ends the run of valid ones; a row is made if
 * need be. Errors count and end it too; an unverified valid one neither adds
 * to it nor ends it; error_rate and turnaround_avg move with each outcome.
 */
static void test_hav_validated(void **state)
{
	static const bool verdicts[] = { true, true, false, true, true };
	struct db_host_app_version h;
	struct havs x = { .n = 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verdicts); i++)
		assert_int_equal(db_hav_outcome(db, 902, 7, verdicts[i] ? HAV_VALID : HAV_INVALID,
						100), DB_OK);
	h = hav_row(902, 7);
	assert_int_equal(h.n_valid, 4);
	assert_int_equal(h.n_invalid, 1);
	assert_int_equal(h.consecutive_valid, 2);
	assert_int_equal(h.n_jobs, 0);
	/* the k-th outcome moves it 1/k of the way: 0, 0, 1/3, 1/4, 1/5 */
	assert_close(h.error_rate, 0.2);
	assert_close(h.turnaround_avg, 100);
	assert_int_equal(db_hav_outcome(db, 902, 7, HAV_VALID_UNVERIFIED, 600), DB_OK);
	h = hav_row(902, 7);
	assert_int_equal(h.n_valid, 5);
	assert_int_equal(h.consecutive_valid, 2);
	assert_close(h.error_rate, 0.2 * 5 / 6);
	assert_close(h.turnaround_avg, 100 + 500.0 / 6);
	/* an unknown turnaround leaves the average */
	assert_int_equal(db_hav_outcome(db, 902, 7, HAV_ERROR, -1), DB_OK);
	h = hav_row(902, 7);
	assert_int_equal(h.n_errors, 1);
	assert_int_equal(h.consecutive_valid, 0);
	assert_close(h.turnaround_avg, 100 + 500.0 / 6);
	assert_int_equal(db_hav_outcome(db, 902, 7, HAV_VALID, 100), DB_OK);
	assert_int_equal(hav_row(902, 7).consecutive_valid, 1);
	assert_int_equal(hav_sample(902, 7, 5e9, 20), DB_OK);
	assert_int_equal(db_hav_outcome(db, 902, 7, HAV_INVALID, 100), DB_OK);
	h = hav_row(902, 7);
	assert_int_equal(h.n_jobs, 1);
	assert_close(h.flops_avg, 5e9);
	assert_int_equal(h.n_invalid, 2);
	assert_int_equal(h.n_valid, 6);
	assert_int_equal(h.consecutive_valid, 0);
	/* a host's rows only, by app version; the caller's transaction rolls them back */
	assert_int_equal(hav_sample(902, 3, 1e9, 20), DB_OK);
	assert_int_equal(db_begin(db), DB_OK);
	assert_int_equal(hav_sample(902, 5, 1e9, 20), DB_OK);
	assert_int_equal(db_hav_outcome(db, 902, 3, HAV_VALID, 50), DB_OK);
	assert_int_equal(db_rollback(db), DB_OK);
	assert_int_equal(db_hav_enum_host(db, 902, collect_hav, &x), DB_OK);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.v[0].app_version_id, 3);
	assert_int_equal(x.v[0].n_valid, 0);
	assert_int_equal(x.v[1].app_version_id, 7);
	x.n = 0;
	assert_int_equal(db_hav_enum_host(db, 903, collect_hav, &x), DB_OK);
	assert_int_equal(x.n, 0);
}

static int collect_fpops(struct db_wu_fpops *f, void *arg)
{
	double *sum = arg;

	sum[0] += f->rsc_fpops_est;
	sum[1] += 1;
	return 0;
}

/* The estimates of 1, 3 and 6 workunits, each read once whatever the padding. */
static void test_wu_fpops(void **state)
{
	struct db_workunit wu = { 0 };
	int64_t ids[6];
	size_t i;

	for (i = 0; i < 6; i++) {
		wu.id = 0;
		free(wu.name);
		wu.name = xasprintf("fpops_wu_%zu", i);
		wu.rsc_fpops_est = 1e12 * (double)(i + 1);
		assert_int_equal(db_workunit_insert(db, &wu), DB_OK);
		ids[i] = wu.id;
	}
	db_workunit_release(&wu);
	for (i = 1; i <= 6; i += 2 + (i == 3)) {
		double sum[2] = { 0, 0 };
		size_t k;
		double want = 0;

		for (k = 0; k < i; k++)
			want += 1e12 * (double)(k + 1);
		assert_int_equal(db_workunit_enum_fpops(db, ids, i, collect_fpops, sum), DB_OK);
		assert_close(sum[1], (double)i);
		assert_close(sum[0], want);
	}
}

struct seq_files {
	int64_t seq[16];
	int seqno[16], branch[16];
	size_t n;
};

static int collect_seq_file(struct db_seq_file *f, void *arg)
{
	struct seq_files *c = arg;

	assert_true(c->n < 16);
	c->seq[c->n] = f->seq_id;
	c->seqno[c->n] = f->seqno;
	c->branch[c->n++] = f->branch;
	db_seq_file_release(f);
	return 0;
}

/*
 * A segment's state rows, by one sequence's short statement and by the
 * batch's: the same rows in the same order (segment, then branch, newest
 * first), answers and other segments left out.
 */
static void test_seq_file_states(void **state)
{
	static const struct { int64_t seq; int branch, seqno, kind; } rows[] = {
		{ 7001, 0, 3, 1 }, { 7001, 1, 3, 1 }, { 7001, 0, 5, 1 }, { 7001, 0, 5, 2 },
		{ 7001, 0, 9, 1 }, { 7002, 0, 5, 1 }, { 7001, 2, 0, 1 },
	};
	int seqnos[3] = { 3, 5, 0 };
	int64_t both[2] = { 7001, 7002 };
	struct seq_files one = { .n = 0 }, many = { .n = 0 };
	struct db_seq_file f = { 0 };
	size_t i, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		f.id = 0;
		free(f.name);
		f.name = xasprintf("states_%zu", i);
		f.seq_id = rows[i].seq;
		f.branch = rows[i].branch;
		f.seqno = rows[i].seqno;
		f.kind = rows[i].kind;
		assert_int_equal(db_seq_file_insert(db, &f), DB_OK);
	}
	db_seq_file_release(&f);
	assert_int_equal(db_seq_file_states_many(db, both, 1, seqnos, 3, collect_seq_file, &one),
			 DB_OK);
	assert_int_equal(db_seq_file_states_many(db, both, 2, seqnos, 3, collect_seq_file, &many),
			 DB_OK);
	/* 7001: 5/0, 3/1, 3/0, 0/2 (the answer at 5 and segment 9 left out) */
	assert_int_equal(one.n, 4);
	assert_int_equal(one.seqno[0], 5);
	assert_int_equal(one.seqno[1], 3);
	assert_int_equal(one.branch[1], 1);
	assert_int_equal(one.branch[2], 0);
	assert_int_equal(one.seqno[3], 0);
	assert_int_equal(many.n, 5);
	for (i = 0; i < one.n; i++) {
		assert_int_equal(one.seq[i], 7001);
		assert_int_equal(many.seq[i], 7001);
		assert_int_equal(many.seqno[i], one.seqno[i]);
		assert_int_equal(many.branch[i], one.branch[i]);
	}
	assert_int_equal(many.seq[4], 7002);
	/* more segments than the short statement holds: the batch's, same rows */
	{
		int wide[DB_SEQ_SEQNOS_ONE + 1];
		struct seq_files w = { .n = 0 };

		for (k = 0; k < ARRAY_SIZE(wide); k++)
			wide[k] = (int)k;
		assert_int_equal(db_seq_file_states_many(db, both, 1, wide, ARRAY_SIZE(wide),
							 collect_seq_file, &w), DB_OK);
		assert_int_equal(w.n, 5);       /* 9/0, 5/0, 3/1, 3/0, 0/2 */
		assert_int_equal(w.seqno[0], 9);
	}
}

/* 71 rows: chunks of 64, 4, 2 and 1; every id set, and each row where its id says. */
static void test_insert_many(void **state)
{
	struct db_platform v[71], q = { 0 };
	size_t i;

	(void)state;
	memset(v, 0, sizeof(v));
	for (i = 0; i < 71; i++)
		v[i].name = xasprintf("many_%zu", i);
	assert_int_equal(db_rec_insert_many(db, &db_platform_table, v, sizeof(v[0]), 71), DB_OK);
	for (i = 0; i < 71; i++) {
		char want[32];

		assert_true(v[i].id > 0);
		if (i)
			assert_true(v[i].id > v[i - 1].id);
		assert_int_equal(db_platform_lookup_id(db, v[i].id, &q), DB_OK);
		snprintf(want, sizeof(want), "many_%zu", i);
		assert_string_equal(q.name, want);
		db_platform_release(&v[i]);
	}
	db_platform_release(&q);
	assert_int_equal(db_rec_insert_many(db, &db_platform_table, v, sizeof(v[0]), 0), DB_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_table),
		cmocka_unit_test(test_auto_id_and_typed_wrappers),
		cmocka_unit_test(test_duplicate_name_is_an_error),
		cmocka_unit_test(test_transactions),
		cmocka_unit_test(test_named_queries),
		cmocka_unit_test(test_list_and_nested_statements),
		cmocka_unit_test(test_insert_many),
		cmocka_unit_test(test_sql_reused_buffers),
		cmocka_unit_test(test_hav_moving_average),
		cmocka_unit_test(test_hav_validated),
		cmocka_unit_test(test_wu_fpops),
		cmocka_unit_test(test_seq_file_states),
	};

	if (!getenv("WSEQ_DB_USER")) {
		printf("1..0 # SKIP needs WSEQ_DB_* (run by t0110-db-records.sh)\n");
		return 0;
	}
	log_init("test_db_records", NULL);
	return cmocka_run_group_tests(tests, setup, teardown);
}
