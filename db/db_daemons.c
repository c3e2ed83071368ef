/*
 * The back-end daemons' queries (see db_daemons.h): enumerations sliced by
 * --mod, row-locking reads, narrow state updates, the input file index and
 * the job-file lease check.
 */
#include "db_daemons.h"
#include "log.h"
#include "sbuf.h"
#include "xml_write.h"

#define DB_TXN_TRIES 5
#define ER_LOCK_WAIT_TIMEOUT 1205
#define ER_LOCK_DEADLOCK 1213

const struct db_query dbq_app_all = {
	"app_all", &db_app_table, "ORDER BY id", ""
};
const struct db_query dbq_wu_transition_mod = {
	"wu_transition_mod", &db_workunit_table,
	"WHERE transition_time<=? AND MOD(id, ?)=? ORDER BY transition_time LIMIT ?", "iiii"
};
const struct db_query dbq_wu_need_validate_mod = {
	"wu_need_validate_mod", &db_workunit_table,
	"WHERE appid=? AND need_validate=1 AND MOD(id, ?)=? AND id>? ORDER BY id LIMIT ?",
	"iiiii"
};
const struct db_query dbq_wu_assimilate_mod = {
	"wu_assimilate_mod", &db_workunit_table,
	"WHERE appid=? AND assimilate_state=1 AND MOD(id, ?)=? AND id>? ORDER BY id LIMIT ?",
	"iiiii"
};
const struct db_query dbq_wu_file_delete_mod = {
	"wu_file_delete_mod", &db_workunit_table,
	"WHERE file_delete_state=1 AND MOD(id, ?)=? AND id>? ORDER BY id LIMIT ?", "iiii"
};
const struct db_query dbq_result_file_delete_mod = {
	"result_file_delete_mod", &db_result_table,
	"WHERE file_delete_state=1 AND MOD(id, ?)=? AND id>? ORDER BY id LIMIT ?", "iiii"
};
const struct db_query dbq_wu_lock = {
	"wu_lock", &db_workunit_table, "WHERE id=? FOR UPDATE", "i"
};
const struct db_query dbq_result_by_workunit_lock = {
	"result_by_workunit_lock", &db_result_table,
	"WHERE workunitid=? ORDER BY id FOR UPDATE", "i"
};
const struct db_query dbq_wu_update_state = {
	"wu_update_state", NULL,
	"UPDATE workunit SET need_validate=?, canonical_resultid=?, canonical_credit=?, "
	"error_mask=?, assimilate_state=?, file_delete_state=?, target_nresults=?, "
	"transition_time=? WHERE id=?", "iidiiiiii"
};
const struct db_query dbq_wu_set_transition = {
	"wu_set_transition", NULL, "UPDATE workunit SET transition_time=? WHERE id=?", "ii"
};
const struct db_query dbq_result_update_state = {
	"result_update_state", NULL,
	"UPDATE result SET server_state=?, outcome=?, validate_state=?, validate_why=?, "
	"file_delete_state=?, granted_credit=? WHERE id=?", "iiiiidi"
};
const struct db_query dbq_result_set_validate_why = {
	"result_set_validate_why", NULL, "UPDATE result SET validate_why=? WHERE id=?", "ii"
};
const struct db_query dbq_result_set_file_delete = {
	"result_set_file_delete", NULL,
	"UPDATE result SET file_delete_state=? WHERE id=?", "ii"
};
const struct db_query dbq_wu_unindexed = {
	"wu_unindexed", &db_workunit_table, "WHERE files_indexed=0 ORDER BY id LIMIT ?", "i"
};
const struct db_query dbq_wu_any_unindexed = {
	"wu_any_unindexed", NULL, "SELECT id FROM workunit WHERE files_indexed=0 LIMIT 1", ""
};
const struct db_query dbq_wu_set_indexed = {
	"wu_set_indexed", NULL, "UPDATE workunit SET files_indexed=1 WHERE id=?", "i"
};
const struct db_query dbq_wu_file_add = {
	"wu_file_add", NULL, "INSERT IGNORE INTO wu_file (name, workunitid) VALUES (?, ?)", "si"
};
const struct db_query dbq_wu_file_others = {
	"wu_file_others", NULL,
	"SELECT COUNT(*) FROM wu_file WHERE name=? AND workunitid<>? FOR UPDATE", "si"
};
const struct db_query dbq_wu_file_drop = {
	"wu_file_drop", NULL, "DELETE FROM wu_file WHERE workunitid=?", "i"
};
const struct db_query dbq_job_file_expired_after = {
	"job_file_expired_after", &db_job_file_table,
	"WHERE delete_time<? AND id>? ORDER BY id LIMIT ?", "dii"
};
const struct db_query dbq_job_file_lock = {
	"job_file_lock", &db_job_file_table, "WHERE id=? FOR UPDATE", "i"
};
/* BOINC's delete_job_files asks for batches *below* COMPLETE and deletes when it finds one. */
/*
 * A batch holds its files until it is ABORTED or RETIRED; one left in INIT
 * (a submit that never completed) only until its expire_time.
 */
const struct db_query dbq_bfa_live = {
	"bfa_live", NULL,
	"SELECT COUNT(*) FROM batch_file_assoc JOIN batch ON batch.id=batch_file_assoc.batch_id "
	"WHERE batch_file_assoc.job_file_id=? AND batch.state NOT IN (3, 4) "
	"AND NOT (batch.state=0 AND batch.expire_time>0 AND batch.expire_time<?)", "id"
};
/*
 * App versions whose xml_doc names the file (the <name> of one of its
 * file_infos): few rows, read by the file deleter only for an expired job
 * file, so a scan is fine.
 */
const struct db_query dbq_app_version_file = {
	"app_version_file", NULL, "SELECT COUNT(*) FROM app_version WHERE LOCATE(?, xml_doc) > 0",
	"s"
};
const struct db_query dbq_bfa_drop_file = {
	"bfa_drop_file", NULL, "DELETE FROM batch_file_assoc WHERE job_file_id=?", "i"
};

static bool lock_conflict(struct db *db)
{
	unsigned e = db_errno(db);

	return e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT;
}

int db_txn_run(struct db *db, int (*fn)(struct db *db, void *arg), void *arg)
{
	int tries, rc = DB_ERROR;

	for (tries = 1; tries <= DB_TXN_TRIES; tries++) {
		rc = db_begin(db);
		if (rc != DB_OK)
			return DB_ERROR;
		rc = fn(db, arg);
		if (rc == DB_OK) {
			rc = db_commit(db);
			if (rc == DB_OK)
				return DB_OK;
		} else {
			db_rollback(db);
			if (rc == DB_NOT_FOUND)
				return DB_NOT_FOUND;
		}
		if (rc == DB_ERROR && !lock_conflict(db))
			return DB_ERROR;
		log_info("transaction interrupted (%s), running it again",
			 rc == DB_RETRY ? "connection lost" : db_error(db));
	}
	return log_error("database error: transaction failed %d times, giving up", DB_TXN_TRIES);
}

int db_app_enum_all(struct db *db, int (*fn)(struct db_app *, void *), void *arg)
{
	return db_app_query(db, &dbq_app_all, NULL, 0, fn, arg);
}

static int take_app_id(struct db_app *a, void *arg)
{
	return db_ids_add(arg, a->id);
}

int db_app_id(struct db *db, const char *name, int64_t *id)
{
	struct db_app app = { 0 };
	int rc = db_app_lookup_name(db, name, &app);

	*id = app.id;
	db_app_release(&app);
	if (rc == DB_NOT_FOUND)
		log_error("no app named %s", name);
	return rc;
}

int db_app_ids(struct db *db, int64_t **ids, size_t *n)
{
	struct db_ids l = { NULL, 0 };
	int rc = db_app_enum_all(db, take_app_id, &l);

	*ids = l.v;
	*n = l.n;
	return rc;
}

int db_workunit_enum_transition_mod(struct db *db, int64_t t, long mod_n, long mod_i,
				    int limit, int (*fn)(struct db_workunit *, void *),
				    void *arg)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_transition_mod, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_need_validate_mod(struct db *db, int64_t appid, long mod_n, long mod_i,
				       int64_t after, int limit,
				       int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(appid), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(after),
			      DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_need_validate_mod, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_assimilate_mod(struct db *db, int64_t appid, long mod_n, long mod_i,
				    int64_t after, int limit,
				    int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(appid), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(after),
			      DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_assimilate_mod, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_enum_file_delete_mod(struct db *db, long mod_n, long mod_i, int64_t after,
				     int limit, int (*fn)(struct db_workunit *, void *),
				     void *arg)
{
	struct db_val v[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(after), DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_file_delete_mod, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_enum_file_delete_mod(struct db *db, long mod_n, long mod_i, int64_t after,
				   int limit, int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(after), DBV_INT(limit) };

	return db_result_query(db, &dbq_result_file_delete_mod, v, ARRAY_SIZE(v), fn, arg);
}

static int take_wu(struct db_workunit *w, void *arg)
{
	struct db_workunit *out = arg;

	db_workunit_release(out);
	*out = *w;
	memset(w, 0, sizeof(*w));
	return 1;
}

int db_workunit_lock(struct db *db, int64_t id, struct db_workunit *wu)
{
	struct db_val v[] = { DBV_INT(id) };
	int rc;

	db_workunit_release(wu);
	memset(wu, 0, sizeof(*wu));
	rc = db_workunit_query(db, &dbq_wu_lock, v, ARRAY_SIZE(v), take_wu, wu);
	if (rc == DB_OK && wu->id == 0)
		return DB_NOT_FOUND;
	return rc;
}

int db_result_enum_workunit_lock(struct db *db, int64_t wuid,
				 int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_result_query(db, &dbq_result_by_workunit_lock, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_update_state(struct db *db, const struct db_workunit *wu)
{
	struct db_val v[] = {
		DBV_INT(wu->need_validate), DBV_INT(wu->canonical_resultid),
		DBV_DBL(wu->canonical_credit), DBV_INT(wu->error_mask),
		DBV_INT(wu->assimilate_state), DBV_INT(wu->file_delete_state),
		DBV_INT(wu->target_nresults), DBV_INT(wu->transition_time), DBV_INT(wu->id),
	};

	return db_query_exec(db, &dbq_wu_update_state, v, ARRAY_SIZE(v), NULL);
}

int db_workunit_set_transition(struct db *db, int64_t wuid, int64_t t)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_set_transition, v, ARRAY_SIZE(v), NULL);
}

int db_result_update_state(struct db *db, const struct db_result *r)
{
	struct db_val v[] = {
		DBV_INT(r->server_state), DBV_INT(r->outcome), DBV_INT(r->validate_state),
		DBV_INT(r->validate_why), DBV_INT(r->file_delete_state), DBV_DBL(r->granted_credit),
		DBV_INT(r->id),
	};

	return db_query_exec(db, &dbq_result_update_state, v, ARRAY_SIZE(v), NULL);
}

int db_result_set_validate_why(struct db *db, int64_t id, int why)
{
	struct db_val v[] = { DBV_INT(why), DBV_INT(id) };

	return db_query_exec(db, &dbq_result_set_validate_why, v, ARRAY_SIZE(v), NULL);
}

int db_result_set_file_delete(struct db *db, int64_t id, int state)
{
	struct db_val v[] = { DBV_INT(state), DBV_INT(id) };
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_set_file_delete, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_workunit_enum_unindexed(struct db *db, int limit,
			       int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(limit) };

	return db_workunit_query(db, &dbq_wu_unindexed, v, ARRAY_SIZE(v), fn, arg);
}

int db_workunit_any_unindexed(struct db *db)
{
	int64_t id = 0;

	return db_select_i64(db, dbq_wu_any_unindexed.sql, NULL, 0, &id);
}

int db_workunit_set_indexed(struct db *db, int64_t wuid)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_set_indexed, v, ARRAY_SIZE(v), NULL);
}

int db_wu_file_add(struct db *db, const char *name, int64_t wuid)
{
	struct db_val v[] = { DBV_STR(name), DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_file_add, v, ARRAY_SIZE(v), NULL);
}

int db_wu_file_count_others(struct db *db, const char *name, int64_t wuid, int64_t *n)
{
	struct db_val v[] = { DBV_STR(name), DBV_INT(wuid) };

	*n = 0;
	return db_select_i64(db, dbq_wu_file_others.sql, v, ARRAY_SIZE(v), n);
}

int db_wu_file_drop(struct db *db, int64_t wuid)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_file_drop, v, ARRAY_SIZE(v), NULL);
}

int db_job_file_enum_expired_after(struct db *db, double t, int64_t after, int limit,
				   int (*fn)(struct db_job_file *, void *), void *arg)
{
	struct db_val v[] = { DBV_DBL(t), DBV_INT(after), DBV_INT(limit) };

	return db_job_file_query(db, &dbq_job_file_expired_after, v, ARRAY_SIZE(v), fn, arg);
}

static int take_jf(struct db_job_file *j, void *arg)
{
	struct db_job_file *out = arg;

	db_job_file_release(out);
	*out = *j;
	memset(j, 0, sizeof(*j));
	return 1;
}

int db_job_file_lock(struct db *db, int64_t id, struct db_job_file *jf)
{
	struct db_val v[] = { DBV_INT(id) };
	int rc;

	db_job_file_release(jf);
	memset(jf, 0, sizeof(*jf));
	rc = db_job_file_query(db, &dbq_job_file_lock, v, ARRAY_SIZE(v), take_jf, jf);
	if (rc == DB_OK && jf->id == 0)
		return DB_NOT_FOUND;
	return rc;
}

int db_job_file_count_live_batches(struct db *db, int64_t job_file_id, double t, int64_t *n)
{
	struct db_val v[] = { DBV_INT(job_file_id), DBV_DBL(t) };

	*n = 0;
	return db_select_i64(db, dbq_bfa_live.sql, v, ARRAY_SIZE(v), n);
}

int db_app_version_count_file(struct db *db, const char *name, int64_t *n)
{
	struct sbuf tag = SBUF_INIT(4096);
	struct db_val v[1];
	int rc;

	sbuf_addstr(&tag, "<name>");
	xml_add_text(&tag, name);
	sbuf_addstr(&tag, "</name>");
	v[0] = DBV_STR(sbuf_str(&tag));
	*n = 0;
	rc = db_select_i64(db, dbq_app_version_file.sql, v, ARRAY_SIZE(v), n);
	sbuf_release(&tag);
	return rc;
}

int db_batch_file_assoc_drop_file(struct db *db, int64_t job_file_id)
{
	struct db_val v[] = { DBV_INT(job_file_id) };

	return db_query_exec(db, &dbq_bfa_drop_file, v, ARRAY_SIZE(v), NULL);
}

/* ---- work sequences in the validator ---- */

const struct db_query dbq_wu_segment_newest = {
	"wu_segment_newest", &db_workunit_table,
	"WHERE seq_id=? AND seqno=? ORDER BY branch DESC LIMIT 1 FOR UPDATE", "ii"
};
const struct db_query dbq_seq_lock = {
	"seq_lock", &db_sequence_table, "WHERE id=? FOR UPDATE", "i"
};
const struct db_query dbq_seq_set_unvalidated = {
	"seq_set_unvalidated", NULL, "UPDATE sequence SET first_unvalidated_seqno=? WHERE id=?", "ii"
};
const struct db_query dbq_seq_invalid = {
	"seq_invalid", NULL,
	"UPDATE sequence SET hostid=0, need_relocate=?, last_state_seqno=LEAST(last_state_seqno, ?) "
	"WHERE id=? AND branch=? AND state=0 AND need_relocate=0", "iiii"
};
const struct db_query dbq_seq_group_fail = {
	"seq_group_fail", NULL,
	"UPDATE sequence SET state=2, error_msg=? WHERE groupid=? AND state<>2", "si"
};
const struct db_query dbq_group_fail = {
	"group_fail", NULL, "UPDATE sequence_group SET state=2 WHERE id=? AND state=0", "i"
};

int db_workunit_lock_segment(struct db *db, int64_t seq_id, int seqno, struct db_workunit *wu)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(seqno) };
	int rc;

	db_workunit_release(wu);
	memset(wu, 0, sizeof(*wu));
	rc = db_workunit_query(db, &dbq_wu_segment_newest, v, ARRAY_SIZE(v), take_wu, wu);
	return rc == DB_OK && wu->id == 0 ? DB_NOT_FOUND : rc;
}

static int take_seq(struct db_sequence *s, void *arg)
{
	struct db_sequence *out = arg;

	db_sequence_release(out);
	*out = *s;
	memset(s, 0, sizeof(*s));
	return 1;
}

int db_sequence_lock(struct db *db, int64_t id, struct db_sequence *s)
{
	struct db_val v[] = { DBV_INT(id) };
	int rc;

	db_sequence_release(s);
	memset(s, 0, sizeof(*s));
	rc = db_sequence_query(db, &dbq_seq_lock, v, ARRAY_SIZE(v), take_seq, s);
	return rc == DB_OK && s->id == 0 ? DB_NOT_FOUND : rc;
}

int db_sequence_advance_validated(struct db *db, int64_t seq_id)
{
	struct db_sequence s = { 0 };
	struct db_workunit wu = { 0 };
	int rc = db_sequence_lock(db, seq_id, &s), k;

	if (rc != DB_OK) {
		db_sequence_release(&s);
		return rc;
	}
	for (k = s.first_unvalidated_seqno; k <= s.nsegments; k++) {
		rc = db_workunit_lock_segment(db, seq_id, k, &wu);
		if (rc != DB_OK || !wu.canonical_resultid)
			break;
	}
	if (rc == DB_OK || rc == DB_NOT_FOUND) {
		struct db_val v[] = { DBV_INT(k), DBV_INT(seq_id) };

		rc = k == s.first_unvalidated_seqno ? DB_OK
			: db_query_exec(db, &dbq_seq_set_unvalidated, v, ARRAY_SIZE(v), NULL);
	}
	db_workunit_release(&wu);
	db_sequence_release(&s);
	return rc;
}

int db_sequence_flag_invalid(struct db *db, int64_t seq_id, int branch, int reason, int last)
{
	struct db_val v[] = { DBV_INT(reason), DBV_INT(last), DBV_INT(seq_id), DBV_INT(branch) };

	return db_query_exec(db, &dbq_seq_invalid, v, ARRAY_SIZE(v), NULL);
}

int db_sequence_group_fail(struct db *db, int64_t groupid, const char *why)
{
	struct db_val v[] = { DBV_STR(why), DBV_INT(groupid) };
	struct db_val g[] = { DBV_INT(groupid) };
	int rc = db_query_exec(db, &dbq_seq_group_fail, v, ARRAY_SIZE(v), NULL);

	return rc == DB_OK ? db_query_exec(db, &dbq_group_fail, g, ARRAY_SIZE(g), NULL) : rc;
}
