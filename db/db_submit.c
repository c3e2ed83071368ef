/*
 * Queries of the scheduler's host lookup and of BOINC remote job
 * submission: batches, content-addressed job files and their associations,
 * submit permissions.
 */
#include "db_queries.h"

#include <math.h>

const struct db_query dbq_host_by_cpid = {
	"host_by_cpid", &db_host_table,
	"WHERE userid=? AND host_cpid=? ORDER BY id DESC LIMIT 1", "is"
};
const struct db_query dbq_host_by_user = {
	"host_by_user", &db_host_table, "WHERE userid=? ORDER BY id", "i"
};
const struct db_query dbq_batch_by_name = {
	"batch_by_name", &db_batch_table, "WHERE name=? ORDER BY id LIMIT 1", "s"
};
const struct db_query dbq_batch_by_user = {
	"batch_by_user", &db_batch_table, "WHERE user_id=? ORDER BY id", "i"
};
const struct db_query dbq_batch_expired = {
	"batch_expired", &db_batch_table,
	"WHERE state=1 AND expire_time>0 AND expire_time<? ORDER BY expire_time", "d"
};
const struct db_query dbq_job_file_expired = {
	"job_file_expired", &db_job_file_table,
	"WHERE delete_time<? ORDER BY delete_time LIMIT ?", "di"
};
const struct db_query dbq_bfa_by_batch = {
	"bfa_by_batch", &db_batch_file_assoc_table, "WHERE batch_id=?", "i"
};
const struct db_query dbq_bfa_by_file = {
	"bfa_by_file", &db_batch_file_assoc_table, "WHERE job_file_id=?", "i"
};
const struct db_query dbq_bfa_add = {
	"bfa_add", NULL,
	"INSERT IGNORE INTO batch_file_assoc (job_file_id, batch_id) VALUES (?, ?)", "ii"
};
const struct db_query dbq_user_submit_app_by_user = {
	"user_submit_app_by_user", &db_user_submit_app_table, "WHERE user_id=?", "i"
};

static int take_host(struct db_host *h, void *arg)
{
	struct db_host *out = arg;

	db_host_release(out);
	*out = *h;
	memset(h, 0, sizeof(*h));
	return 1;
}

int db_host_lookup_cpid(struct db *db, int64_t userid, const char *host_cpid,
			struct db_host *h)
{
	struct db_val v[] = { DBV_INT(userid), DBV_STR(host_cpid) };
	struct db_host found = { 0 };
	int rc = db_host_query(db, &dbq_host_by_cpid, v, ARRAY_SIZE(v), take_host, &found);

	if (rc != DB_OK)
		return rc;
	if (!found.id)
		return DB_NOT_FOUND;
	db_host_release(h);
	*h = found;
	return DB_OK;
}

int db_host_enum_user(struct db *db, int64_t userid,
		      int (*fn)(struct db_host *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(userid) };

	return db_host_query(db, &dbq_host_by_user, v, ARRAY_SIZE(v), fn, arg);
}

static int take_batch(struct db_batch *b, void *arg)
{
	struct db_batch *out = arg;

	db_batch_release(out);
	*out = *b;
	memset(b, 0, sizeof(*b));
	return 1;
}

static int batch_lookup_name(struct db *db, const struct db_query *q, const char *name,
			     struct db_batch *b)
{
	struct db_val v[] = { DBV_STR(name) };
	struct db_batch found = { 0 };
	int rc = db_batch_query(db, q, v, ARRAY_SIZE(v), take_batch, &found);

	if (rc != DB_OK)
		return rc;
	if (!found.id)
		return DB_NOT_FOUND;
	db_batch_release(b);
	*b = found;
	return DB_OK;
}

int db_batch_lookup_name(struct db *db, const char *name, struct db_batch *b)
{
	return batch_lookup_name(db, &dbq_batch_by_name, name, b);
}

int db_batch_enum_user(struct db *db, int64_t user_id,
		       int (*fn)(struct db_batch *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(user_id) };

	return db_batch_query(db, &dbq_batch_by_user, v, ARRAY_SIZE(v), fn, arg);
}

int db_batch_enum_expired(struct db *db, double t,
			  int (*fn)(struct db_batch *, void *), void *arg)
{
	struct db_val v[] = { DBV_DBL(t) };

	return db_batch_query(db, &dbq_batch_expired, v, ARRAY_SIZE(v), fn, arg);
}

int db_job_file_enum_expired(struct db *db, double t, int limit,
			     int (*fn)(struct db_job_file *, void *), void *arg)
{
	struct db_val v[] = { DBV_DBL(t), DBV_INT(limit) };

	return db_job_file_query(db, &dbq_job_file_expired, v, ARRAY_SIZE(v), fn, arg);
}

int db_batch_file_assoc_enum_batch(struct db *db, int64_t batch_id,
				   int (*fn)(struct db_batch_file_assoc *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch_id) };

	return db_batch_file_assoc_query(db, &dbq_bfa_by_batch, v, ARRAY_SIZE(v), fn, arg);
}

int db_batch_file_assoc_enum_file(struct db *db, int64_t job_file_id,
				  int (*fn)(struct db_batch_file_assoc *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(job_file_id) };

	return db_batch_file_assoc_query(db, &dbq_bfa_by_file, v, ARRAY_SIZE(v), fn, arg);
}

int db_batch_file_assoc_add(struct db *db, int64_t job_file_id, int64_t batch_id)
{
	struct db_val v[] = { DBV_INT(job_file_id), DBV_INT(batch_id) };

	return db_query_exec(db, &dbq_bfa_add, v, ARRAY_SIZE(v), NULL);
}

int db_user_submit_app_enum_user(struct db *db, int64_t user_id,
				 int (*fn)(struct db_user_submit_app *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(user_id) };

	return db_user_submit_app_query(db, &dbq_user_submit_app_by_user, v, ARRAY_SIZE(v),
					fn, arg);
}

/* ---- the submit RPCs -------------------------------------------------------- */

/* A job's status for query_batch2: a projection of workunit (read only). */
static const struct db_column job_status_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_job_status, id), 0 },
	{ "name", DB_T_STR, offsetof(struct db_job_status, name), 0 },
	{ "canonical_resultid", DB_T_I64, offsetof(struct db_job_status, canonical_resultid), 0 },
	{ "error_mask", DB_T_INT, offsetof(struct db_job_status, error_mask), 0 },
	{ "seq_id", DB_T_I64, offsetof(struct db_job_status, seq_id), 0 },
	{ "(SELECT COUNT(*) FROM result r WHERE r.workunitid=workunit.id AND r.sent_time>0)",
	  DB_T_INT, offsetof(struct db_job_status, nsent), DB_COL_EXPR },
};
const struct db_table db_job_status_table = {
	"workunit", sizeof(struct db_job_status), job_status_cols, ARRAY_SIZE(job_status_cols), false
};

/*
 * Changed at or after the whole second of t (TIMESTAMP has whole seconds:
 * a strict > would miss a change made in the second the caller was told).
 */
const struct db_query dbq_job_status_batch = {
	"job_status_batch", &db_job_status_table,
	"WHERE batch=? AND seq_id=0 AND (mod_time>=FROM_UNIXTIME(?) OR id IN (SELECT workunitid "
	"FROM result WHERE batch=? AND mod_time>=FROM_UNIXTIME(?))) ORDER BY id", "idid"
};
/* The sequences of a batch (jobs of a sequence app) changed in or after the second of t. */
const struct db_query dbq_seq_batch = {
	"seq_batch", &db_sequence_table, "WHERE batch=? AND mod_time>=FROM_UNIXTIME(?) ORDER BY id",
	"id"
};
const struct db_query dbq_wu_segment_live = {
	"wu_segment_live", &db_workunit_table,
	"WHERE seq_id=? AND branch=? AND seqno=? ORDER BY id DESC LIMIT 1", "iii"
};
const struct db_query dbq_job_file_lease_batch = {
	"job_file_lease_batch", NULL,
	"UPDATE job_file JOIN batch_file_assoc a ON a.job_file_id=job_file.id "
	"SET job_file.delete_time=GREATEST(job_file.delete_time, ?) WHERE a.batch_id=?", "di"
};
/* The batch of a name, locked: create_batch makes or reuses it in one transaction. */
const struct db_query dbq_batch_by_name_lock = {
	"batch_by_name_lock", &db_batch_table, "WHERE name=? ORDER BY id LIMIT 1 FOR UPDATE", "s"
};
const struct db_query dbq_batch_njobs = {
	"batch_njobs", NULL,
	"SELECT (SELECT COUNT(*) FROM workunit WHERE batch=?) + "
	"(SELECT COUNT(*) FROM sequence WHERE batch=?)", "ii"
};
const struct db_query dbq_bfa_drop_batch = {
	"bfa_drop_batch", NULL, "DELETE FROM batch_file_assoc WHERE batch_id=?", "i"
};
/* How many batches the job file is tied to; how many of them are the user's. */
const struct db_query dbq_bfa_count_file = {
	"bfa_count_file", NULL, "SELECT COUNT(*) FROM batch_file_assoc WHERE job_file_id=?", "i"
};
const struct db_query dbq_bfa_count_user = {
	"bfa_count_user", NULL,
	"SELECT COUNT(*) FROM batch_file_assoc JOIN batch ON batch.id=batch_file_assoc.batch_id "
	"WHERE batch_file_assoc.job_file_id=? AND batch.user_id=?", "ii"
};
const struct db_query dbq_result_chosen = {
	"result_chosen", &db_result_table,
	"WHERE workunitid=? AND outcome IN (1, 3, 6) ORDER BY outcome=1 DESC, id DESC LIMIT 1", "i"
};

int db_batch_lookup_name_lock(struct db *db, const char *name, struct db_batch *b)
{
	return batch_lookup_name(db, &dbq_batch_by_name_lock, name, b);
}

int db_batch_count_jobs(struct db *db, int64_t batch, int64_t *n)
{
	struct db_val v[] = { DBV_INT(batch), DBV_INT(batch) };

	*n = 0;
	return db_select_i64(db, dbq_batch_njobs.sql, v, ARRAY_SIZE(v), n);
}

int db_job_file_owners(struct db *db, int64_t job_file_id, int64_t user_id, int64_t *batches,
		       int64_t *mine)
{
	struct db_val f[] = { DBV_INT(job_file_id) }, u[] = { DBV_INT(job_file_id), DBV_INT(user_id) };
	int rc;

	*batches = *mine = 0;
	rc = db_select_i64(db, dbq_bfa_count_file.sql, f, ARRAY_SIZE(f), batches);
	return rc == DB_OK ? db_select_i64(db, dbq_bfa_count_user.sql, u, ARRAY_SIZE(u), mine) : rc;
}

int db_batch_file_assoc_drop_batch(struct db *db, int64_t batch)
{
	struct db_val v[] = { DBV_INT(batch) };

	return db_query_exec(db, &dbq_bfa_drop_batch, v, ARRAY_SIZE(v), NULL);
}

int db_job_status_enum_batch(struct db *db, int64_t batch, double t,
			     int (*fn)(struct db_job_status *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch), DBV_DBL(floor(t)), DBV_INT(batch), DBV_DBL(floor(t)) };

	return db_query_rows(db, &dbq_job_status_batch, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

void db_job_status_release(struct db_job_status *s)
{
	free(s->name);
	s->name = NULL;
}

int db_job_file_lease_batch(struct db *db, int64_t batch, double t)
{
	struct db_val v[] = { DBV_DBL(t), DBV_INT(batch) };

	return db_query_exec(db, &dbq_job_file_lease_batch, v, ARRAY_SIZE(v), NULL);
}

static int take_result(struct db_result *r, void *arg)
{
	struct db_result *out = arg;

	db_result_release(out);
	*out = *r;
	memset(r, 0, sizeof(*r));
	return 1;
}

int db_result_chosen(struct db *db, int64_t wuid, struct db_result *r)
{
	struct db_val v[] = { DBV_INT(wuid) };
	int rc;

	db_result_release(r);
	memset(r, 0, sizeof(*r));
	rc = db_result_query(db, &dbq_result_chosen, v, ARRAY_SIZE(v), take_result, r);
	return rc == DB_OK && !r->id ? DB_NOT_FOUND : rc;
}

int db_sequence_enum_batch(struct db *db, int64_t batch, double t,
			   int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(batch), DBV_DBL(floor(t)) };

	return db_sequence_query(db, &dbq_seq_batch, v, ARRAY_SIZE(v), fn, arg);
}

static int take_wu(struct db_workunit *w, void *arg)
{
	struct db_workunit *out = arg;

	db_workunit_release(out);
	*out = *w;
	memset(w, 0, sizeof(*w));
	return 1;
}

int db_workunit_lookup_segment(struct db *db, int64_t seq_id, int branch, int seqno,
			       struct db_workunit *wu)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(branch), DBV_INT(seqno) };
	int rc;

	db_workunit_release(wu);
	memset(wu, 0, sizeof(*wu));
	rc = db_workunit_query(db, &dbq_wu_segment_live, v, ARRAY_SIZE(v), take_wu, wu);
	return rc == DB_OK && !wu->id ? DB_NOT_FOUND : rc;
}

/* ---- query_batch's CPU time, estimate_batch's hosts ----------------------------- */

/*
 * estimate_batch's hosts: those with a track record (credit: some valid
 * result) that asked for work lately; their FLOPS as n times the median
 * host's, so one host claiming a huge p_fpops or CPU count moves nothing.
 */
#define HOST_SPEED "LEAST(p_fpops, 1e18) * LEAST(GREATEST(p_ncpus, 1), 100000)"
#define TRACKED_HOSTS "WHERE rpc_time>? AND total_credit>0"
static const struct db_column host_capacity_cols[] = {
	{ "COUNT(*)", DB_T_I64, offsetof(struct db_sum, n), DB_COL_EXPR },
};
static const struct db_table host_capacity_table = {
	"host", sizeof(struct db_sum), host_capacity_cols, ARRAY_SIZE(host_capacity_cols), false
};
static const struct db_column host_speed_cols[] = {
	{ HOST_SPEED, DB_T_DOUBLE, offsetof(struct db_sum, sum), DB_COL_EXPR },
};
static const struct db_table host_speed_table = {
	"host", sizeof(struct db_sum), host_speed_cols, ARRAY_SIZE(host_speed_cols), false
};
const struct db_query dbq_host_median_speed = {
	"host_median_speed", &host_speed_table,
	TRACKED_HOSTS " ORDER BY " HOST_SPEED " LIMIT 1 OFFSET ?", "ii"
};
static const struct db_column batch_cpu_cols[] = {
	{ "COUNT(*)", DB_T_I64, offsetof(struct db_sum, n), DB_COL_EXPR },
	{ "COALESCE(SUM(cpu_time), 0)", DB_T_DOUBLE, offsetof(struct db_sum, sum), DB_COL_EXPR },
};
static const struct db_table batch_cpu_table = {
	"result", sizeof(struct db_sum), batch_cpu_cols, ARRAY_SIZE(batch_cpu_cols), false
};
const struct db_query dbq_host_capacity = {
	"host_capacity", &host_capacity_table, TRACKED_HOSTS, "i"
};
const struct db_query dbq_batch_cpu_time = {
	"batch_cpu_time", &batch_cpu_table, "WHERE batch=?", "i"
};

static int take_sum(void *rec, void *arg)
{
	*(struct db_sum *)arg = *(struct db_sum *)rec;
	return 1;
}

int db_host_capacity(struct db *db, int64_t since, struct db_sum *s)
{
	struct db_val v[] = { DBV_INT(since), DBV_INT(0) };
	struct db_sum median = { 0, 0 };
	int rc;

	memset(s, 0, sizeof(*s));
	rc = db_query_rows(db, &dbq_host_capacity, v, 1, take_sum, s);
	if (rc != DB_OK || s->n == 0)
		return rc;
	v[1] = DBV_INT((s->n - 1) / 2);
	rc = db_query_rows(db, &dbq_host_median_speed, v, ARRAY_SIZE(v), take_sum, &median);
	s->sum = (double)s->n * median.sum;
	return rc;
}

int db_batch_cpu_time(struct db *db, int64_t batch, struct db_sum *s)
{
	struct db_val v[] = { DBV_INT(batch) };

	memset(s, 0, sizeof(*s));
	return db_query_rows(db, &dbq_batch_cpu_time, v, ARRAY_SIZE(v), take_sum, s);
}
