/*
 * Cancelling work (db_cancel.h): the few statements backend/cancel.c puts
 * together in one transaction, and the cancel_jobs tool's selections.
 */
#include "db_cancel.h"

const struct db_query dbq_wu_cancel = {
	"wu_cancel", NULL,
	"UPDATE workunit SET error_mask=error_mask|16, transition_time=? "
	"WHERE id=? AND canonical_resultid=0 AND error_mask=0", "ii"
};
/* A batch's ordinary jobs only: its sequences are ended through their heads. */
const struct db_query dbq_wu_cancel_batch = {
	"wu_cancel_batch", NULL,
	"UPDATE workunit SET error_mask=error_mask|16, transition_time=? "
	"WHERE batch=? AND seq_id=0 AND canonical_resultid=0 AND error_mask=0", "ii"
};
const struct db_query dbq_result_cancel_wu = {
	"result_cancel_wu", NULL,
	"UPDATE result SET server_state=5, outcome=5 WHERE workunitid=? AND server_state IN (1, 2)",
	"i"
};
const struct db_query dbq_result_cancel_batch = {
	"result_cancel_batch", NULL,
	"UPDATE result SET server_state=5, outcome=5 WHERE batch=? AND seq_id=0 "
	"AND server_state IN (1, 2)", "i"
};
/*
 * The transitioner looks at every job of the batch again, to release its
 * files -- no later than t: a batch cancelled twice is touched once.
 */
const struct db_query dbq_wu_touch_batch = {
	"wu_touch_batch", NULL,
	"UPDATE workunit SET transition_time=LEAST(transition_time, ?) WHERE batch=?", "ii"
};
const struct db_query dbq_seq_cancel = {
	"seq_cancel", NULL,
	"UPDATE sequence SET state=2, need_relocate=0, error_msg=? WHERE id=? AND state=0", "si"
};
const struct db_query dbq_batch_lock = {
	"batch_lock", &db_batch_table, "WHERE id=? FOR UPDATE", "i"
};
const struct db_query dbq_batch_set_state = {
	"batch_set_state", NULL, "UPDATE batch SET state=? WHERE id=?", "ii"
};

static const struct db_column seq_id_cols[] = {
	{ "id", DB_T_I64, 0, 0 },
};
static const struct db_table seq_id_table = {
	"sequence", sizeof(int64_t), seq_id_cols, ARRAY_SIZE(seq_id_cols), false
};
const struct db_query dbq_seq_batch_active = {
	"seq_batch_active", &seq_id_table, "WHERE batch=? AND state=0 ORDER BY id", "i"
};

static const struct db_column pick_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_cancel_pick, id), 0 },
	{ "name", DB_T_STR, offsetof(struct db_cancel_pick, name), 0 },
	{ "seq_id", DB_T_I64, offsetof(struct db_cancel_pick, seq_id), 0 },
};
const struct db_table db_cancel_pick_table = {
	"workunit", sizeof(struct db_cancel_pick), pick_cols, ARRAY_SIZE(pick_cols), false
};
const struct db_query dbq_cancel_pick_range = {
	"cancel_pick_range", &db_cancel_pick_table,
	"WHERE id>=? AND id<=? AND id>? ORDER BY id LIMIT ?", "iiii"
};
/* By name, so a pattern with a fixed beginning reads a range of wu_name. */
const struct db_query dbq_cancel_pick_name = {
	"cancel_pick_name", &db_cancel_pick_table,
	"WHERE name LIKE ? AND name>? ORDER BY name LIMIT ?", "ssi"
};

int db_result_cancel_unsent(struct db *db, int64_t wuid, int64_t *n)
{
	struct db_val v[] = { DBV_INT(wuid) };

	return db_query_exec(db, &dbq_result_cancel_wu, v, ARRAY_SIZE(v), n);
}

int db_workunit_cancel(struct db *db, int64_t wuid, int64_t t, int64_t *n)
{
	struct db_val v[] = { DBV_INT(t), DBV_INT(wuid) };

	return db_query_exec(db, &dbq_wu_cancel, v, ARRAY_SIZE(v), n);
}

int db_batch_cancel_jobs(struct db *db, int64_t batch, int64_t t, int64_t *nresults,
			 int64_t *nwus)
{
	struct db_val w[] = { DBV_INT(t), DBV_INT(batch) }, r[] = { DBV_INT(batch) };
	int rc = db_query_exec(db, &dbq_result_cancel_batch, r, ARRAY_SIZE(r), nresults);

	if (rc == DB_OK)
		rc = db_query_exec(db, &dbq_wu_cancel_batch, w, ARRAY_SIZE(w), nwus);
	return rc == DB_OK ? db_query_exec(db, &dbq_wu_touch_batch, w, ARRAY_SIZE(w), NULL) : rc;
}

int db_sequence_cancel(struct db *db, int64_t seq_id, const char *why, int64_t *n)
{
	struct db_val v[] = { DBV_STR(why), DBV_INT(seq_id) };

	return db_query_exec(db, &dbq_seq_cancel, v, ARRAY_SIZE(v), n);
}

static int take_batch(struct db_batch *b, void *arg)
{
	struct db_batch *out = arg;

	db_batch_release(out);
	*out = *b;
	memset(b, 0, sizeof(*b));
	return 1;
}

int db_batch_lock(struct db *db, int64_t id, struct db_batch *b)
{
	struct db_val v[] = { DBV_INT(id) };
	int rc;

	db_batch_release(b);
	memset(b, 0, sizeof(*b));
	rc = db_batch_query(db, &dbq_batch_lock, v, ARRAY_SIZE(v), take_batch, b);
	return rc == DB_OK && !b->id ? DB_NOT_FOUND : rc;
}

int db_batch_set_state(struct db *db, int64_t id, int state)
{
	struct db_val v[] = { DBV_INT(state), DBV_INT(id) };

	return db_query_exec(db, &dbq_batch_set_state, v, ARRAY_SIZE(v), NULL);
}

static int take_id(void *rec, void *arg)
{
	return db_ids_add(arg, *(int64_t *)rec);
}

int db_sequence_ids_batch_active(struct db *db, int64_t batch, int64_t **ids, size_t *n)
{
	struct db_val v[] = { DBV_INT(batch) };
	struct db_ids l = { NULL, 0 };
	int rc = db_query_rows(db, &dbq_seq_batch_active, v, ARRAY_SIZE(v), take_id, &l);

	if (rc != DB_OK) {
		free(l.v);
		l.v = NULL;
		l.n = 0;
	}
	*ids = l.v;
	*n = l.n;
	return rc;
}

int db_cancel_pick_range(struct db *db, int64_t min, int64_t max, int64_t after, int limit,
			 int (*fn)(struct db_cancel_pick *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(min), DBV_INT(max), DBV_INT(after), DBV_INT(limit) };

	return db_query_rows(db, &dbq_cancel_pick_range, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_cancel_pick_name(struct db *db, const char *pattern, const char *after, int limit,
			int (*fn)(struct db_cancel_pick *, void *), void *arg)
{
	struct db_val v[] = { DBV_STR(pattern), DBV_STR(after), DBV_INT(limit) };

	return db_query_rows(db, &dbq_cancel_pick_name, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}
