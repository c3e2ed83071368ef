/*
 * Queries of the parameter sweep's HTTP endpoints (sweep/endpoints/sweep_cgi.c): a
 * sweep session is a batch, a task a workunit of it, a ticket one of its
 * results -- named by the ticket itself, so the ticket is unguessable -- made
 * by the transitioner as for any job (several at once, more after timeouts
 * and failures, up to max_total_results).
 */
#include "db_queries.h"

/* The next unsent ticket of a session with its task, both locked: a projection of the two. */
static const struct db_column sweep_claim_cols[] = {
	{ "result.id", DB_T_I64, offsetof(struct db_sweep_claim, id), DB_COL_EXPR },
	{ "result.workunitid", DB_T_I64, offsetof(struct db_sweep_claim, workunitid), DB_COL_EXPR },
	{ "workunit.name", DB_T_STR, offsetof(struct db_sweep_claim, wu_name), DB_COL_EXPR },
	{ "workunit.opaque", DB_T_DOUBLE, offsetof(struct db_sweep_claim, opaque), DB_COL_EXPR },
	{ "workunit.delay_bound", DB_T_INT, offsetof(struct db_sweep_claim, delay_bound),
	  DB_COL_EXPR },
	{ "workunit.xml_doc", DB_T_STR, offsetof(struct db_sweep_claim, xml_doc), DB_COL_EXPR },
};
const struct db_table db_sweep_claim_table = {
	"result", sizeof(struct db_sweep_claim), sweep_claim_cols, ARRAY_SIZE(sweep_claim_cols), false
};
/*
 * The index is forced: while a session has many unsent tickets the
 * optimizer was seen to walk the primary key from the table's first row
 * instead (thousands of rows read and locked a request, growing with the
 * table). SKIP LOCKED: concurrent requests take different tickets instead
 * of waiting for each other's.
 */
const struct db_query dbq_sweep_unsent = {
	"sweep_unsent", &db_sweep_claim_table,
	"FORCE INDEX (res_batch_state) JOIN workunit ON workunit.id=result.workunitid "
	"WHERE result.batch=? AND result.server_state=2 ORDER BY result.id LIMIT 1 "
	"FOR UPDATE SKIP LOCKED", "i"
};
/* Handed out: the ticket, and its task due for the transitioner at its deadline. */
const struct db_query dbq_sweep_send = {
	"sweep_send", NULL,
	"UPDATE result JOIN workunit ON workunit.id=result.workunitid "
	"SET result.server_state=4, result.name=?, result.sent_time=?, result.report_deadline=?, "
	"result.stderr_out=?, workunit.transition_time=LEAST(workunit.transition_time, ?) "
	"WHERE result.id=? AND result.server_state=2", "siisii"
};
/* A ticket with what the store tells of its task: a projection of result and workunit. */
#define TICKET_COL(expr, type, member) \
	{ expr, type, offsetof(struct db_sweep_ticket, member), DB_COL_EXPR }
static const struct db_column sweep_ticket_cols[] = {
	TICKET_COL("result.id", DB_T_I64, id),
	TICKET_COL("result.workunitid", DB_T_I64, workunitid),
	TICKET_COL("workunit.opaque", DB_T_DOUBLE, opaque),
	TICKET_COL("result.name", DB_T_STR, name),
	TICKET_COL("result.server_state", DB_T_INT, server_state),
	TICKET_COL("result.outcome", DB_T_INT, outcome),
	TICKET_COL("result.validate_state", DB_T_INT, validate_state),
	TICKET_COL("result.sent_time", DB_T_I64, sent_time),
	TICKET_COL("result.report_deadline", DB_T_I64, report_deadline),
	TICKET_COL("result.received_time", DB_T_I64, received_time),
	TICKET_COL("result.elapsed_time", DB_T_DOUBLE, elapsed_time),
	TICKET_COL("result.stderr_out", DB_T_STR, stderr_out),
	TICKET_COL("workunit.canonical_resultid", DB_T_I64, canonical_resultid),
	TICKET_COL("workunit.error_mask", DB_T_INT, error_mask),
};
const struct db_table db_sweep_ticket_table = {
	"result", sizeof(struct db_sweep_ticket), sweep_ticket_cols, ARRAY_SIZE(sweep_ticket_cols),
	false
};
const struct db_query dbq_sweep_ticket = {
	"sweep_ticket", &db_sweep_ticket_table,
	"JOIN workunit ON workunit.id=result.workunitid WHERE result.name=? AND result.batch=?", "si"
};
/* The answered tickets of a session the master has not judged yet. */
const struct db_query dbq_sweep_returned = {
	"sweep_returned", &db_sweep_ticket_table,
	"FORCE INDEX (res_batch_state) JOIN workunit ON workunit.id=result.workunitid "
	"WHERE result.batch=? AND result.server_state=5 AND result.outcome=1 "
	"AND result.validate_state=0 ORDER BY result.id", "i"
};
/*
 * A ticket's end, in one statement. Results: its task is due for the
 * master's judging (need_validate); the transitioner has nothing to do
 * before the verdict. A failure: the task is due for the transitioner now,
 * to be handed out again.
 */
const struct db_query dbq_sweep_report = {
	"sweep_report", NULL,
	"UPDATE result JOIN workunit ON workunit.id=result.workunitid "
	"SET result.server_state=5, result.outcome=?, result.received_time=?, "
	"result.validate_state=0, result.elapsed_time=GREATEST(?-result.sent_time,0), "
	"result.stderr_out=CONCAT(result.stderr_out,?), "
	"workunit.need_validate=workunit.need_validate OR ?, "
	"workunit.transition_time=IF(?, workunit.transition_time, LEAST(workunit.transition_time, ?)) "
	"WHERE result.id=? AND result.server_state=4", "iiisiiii"
};

static int take_claim(void *rec, void *arg)
{
	struct db_sweep_claim *out = arg;

	db_rec_release(&db_sweep_claim_table, out);
	*out = *(struct db_sweep_claim *)rec;
	memset(rec, 0, sizeof(*out));
	return 1;
}

int db_sweep_next(struct db *db, int64_t batch, struct db_sweep_claim *c)
{
	struct db_val v[] = { DBV_INT(batch) };
	int rc;

	db_rec_release(&db_sweep_claim_table, c);
	memset(c, 0, sizeof(*c));
	rc = db_query_rows(db, &dbq_sweep_unsent, v, ARRAY_SIZE(v), take_claim, c);
	return rc == DB_OK && !c->id ? DB_NOT_FOUND : rc;
}

int db_sweep_send(struct db *db, const struct db_sweep_claim *c, const char *ticket, int64_t t,
		  int64_t deadline, const char *note)
{
	struct db_val v[] = { DBV_STR(ticket), DBV_INT(t), DBV_INT(deadline), DBV_STR(note),
			      DBV_INT(deadline), DBV_INT(c->id) };

	return db_query_exec(db, &dbq_sweep_send, v, ARRAY_SIZE(v), NULL);
}

static int take_ticket(void *rec, void *arg)
{
	struct db_sweep_ticket *out = arg;

	db_rec_release(&db_sweep_ticket_table, out);
	*out = *(struct db_sweep_ticket *)rec;
	memset(rec, 0, sizeof(*out));
	return 1;
}

int db_sweep_ticket(struct db *db, int64_t batch, const char *ticket, struct db_sweep_ticket *t)
{
	struct db_val v[] = { DBV_STR(ticket), DBV_INT(batch) };
	int rc;

	db_rec_release(&db_sweep_ticket_table, t);
	memset(t, 0, sizeof(*t));
	rc = db_query_rows(db, &dbq_sweep_ticket, v, ARRAY_SIZE(v), take_ticket, t);
	return rc == DB_OK && !t->id ? DB_NOT_FOUND : rc;
}

int db_sweep_report(struct db *db, int64_t ticket, bool success, int64_t t, const char *note,
		    bool *taken)
{
	struct db_val v[] = { DBV_INT(success ? RESULT_OUTCOME_SUCCESS : RESULT_OUTCOME_CLIENT_ERROR),
			      DBV_INT(t), DBV_INT(t), DBV_STR(note), DBV_INT(success), DBV_INT(success),
			      DBV_INT(t), DBV_INT(ticket) };
	int64_t n = 0;
	int rc = db_query_exec(db, &dbq_sweep_report, v, ARRAY_SIZE(v), &n);

	*taken = rc == DB_OK && n > 0;
	return rc;
}

/* A verdict, on an answered ticket only (outcome SUCCESS): a valid one keeps it. */
const struct db_query dbq_sweep_result_judged = {
	"sweep_result_judged", NULL,
	"UPDATE result SET validate_state=?, outcome=? "
	"WHERE id=? AND validate_state=0 AND server_state=5 AND outcome=1", "iii"
};
/* Valid: the task is done, and due for the transitioner now (to cancel its unsent tickets). */
const struct db_query dbq_sweep_wu_valid = {
	"sweep_wu_valid", NULL,
	"UPDATE workunit JOIN result ON result.workunitid=workunit.id "
	"SET workunit.canonical_resultid=result.id, workunit.need_validate=0, "
	"workunit.assimilate_state=2, workunit.transition_time=LEAST(workunit.transition_time, ?) "
	"WHERE result.id=? AND workunit.canonical_resultid=0", "ii"
};
const struct db_query dbq_sweep_wu_invalid = {
	"sweep_wu_invalid", NULL,
	"UPDATE workunit JOIN result ON result.workunitid=workunit.id "
	"SET workunit.need_validate=0, "
	"workunit.transition_time=LEAST(workunit.transition_time, ?) WHERE result.id=?", "ii"
};

int db_sweep_returned(struct db *db, int64_t batch, int (*fn)(struct db_sweep_ticket *, void *),
		      void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return db_query_rows(db, &dbq_sweep_returned, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_sweep_judge(struct db *db, int64_t ticket, bool valid, int64_t t)
{
	struct db_val res[] = {
		DBV_INT(valid ? VALIDATE_STATE_VALID : VALIDATE_STATE_INVALID),
		DBV_INT(valid ? RESULT_OUTCOME_SUCCESS : RESULT_OUTCOME_VALIDATE_ERROR), DBV_INT(ticket)
	};
	struct db_val ok[] = { DBV_INT(t), DBV_INT(ticket) };
	struct db_val bad[] = { DBV_INT(t), DBV_INT(ticket) };
	int64_t n = 0;
	int rc = db_query_exec(db, &dbq_sweep_result_judged, res, ARRAY_SIZE(res), &n);

	if (rc != DB_OK || n == 0)
		return rc;      /* judged before, or not an answered ticket: nothing to do */
	return valid ? db_query_exec(db, &dbq_sweep_wu_valid, ok, ARRAY_SIZE(ok), NULL)
		: db_query_exec(db, &dbq_sweep_wu_invalid, bad, ARRAY_SIZE(bad), NULL);
}

/* A task's state for `sweep status` and the master's progress: a projection of workunit. */
static const struct db_column sweep_task_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_sweep_task, id), 0 },
	{ "opaque", DB_T_DOUBLE, offsetof(struct db_sweep_task, opaque), 0 },
	{ "canonical_resultid", DB_T_I64, offsetof(struct db_sweep_task, canonical_resultid), 0 },
	{ "error_mask", DB_T_INT, offsetof(struct db_sweep_task, error_mask), 0 },
	{ "(SELECT result.name FROM result WHERE result.id=workunit.canonical_resultid)",
	  DB_T_STR, offsetof(struct db_sweep_task, canonical), DB_COL_EXPR },
	/*
	 * The index is forced (and the table not aliased, so that the plan check
	 * of t0110 sees it): on a young table the optimizer took the
	 * server_state index, reading every running result for every task.
	 */
	{ "(SELECT COUNT(*) FROM result FORCE INDEX (res_wuid) "
	  "WHERE result.workunitid=workunit.id AND result.server_state=4)",
	  DB_T_INT, offsetof(struct db_sweep_task, nrunning), DB_COL_EXPR },
	{ "(SELECT COUNT(*) FROM result FORCE INDEX (res_wuid) "
	  "WHERE result.workunitid=workunit.id AND result.server_state=2)",
	  DB_T_INT, offsetof(struct db_sweep_task, nunsent), DB_COL_EXPR },
};
const struct db_table db_sweep_task_table = {
	"workunit", sizeof(struct db_sweep_task), sweep_task_cols, ARRAY_SIZE(sweep_task_cols), false
};
const struct db_query dbq_sweep_tasks = {
	"sweep_tasks", &db_sweep_task_table, "FORCE INDEX (wu_batch) WHERE batch=? ORDER BY id", "i"
};
/* The tickets of a session that ended (answered, failed, timed out, judged). */
const struct db_query dbq_sweep_ended = {
	"sweep_ended", &db_sweep_ticket_table,
	"FORCE INDEX (res_batch_state) JOIN workunit ON workunit.id=result.workunitid "
	"WHERE result.batch=? AND result.server_state=5 ORDER BY result.id", "i"
};

/*
 * The same state counted by the database, without a row a task: what the
 * master's once-a-second look needs (a session may have 100,000 tasks).
 */
static const struct db_column sweep_count_task_cols[] = {
	{ "COUNT(*)", DB_T_I64, offsetof(struct db_sweep_counts, total), DB_COL_EXPR },
	{ "COUNT(CASE WHEN canonical_resultid<>0 THEN 1 END)", DB_T_I64,
	  offsetof(struct db_sweep_counts, done), DB_COL_EXPR },
	{ "COUNT(CASE WHEN canonical_resultid=0 AND error_mask<>0 THEN 1 END)", DB_T_I64,
	  offsetof(struct db_sweep_counts, failed), DB_COL_EXPR },
};
static const struct db_table sweep_count_task_table = {
	"workunit", sizeof(struct db_sweep_counts), sweep_count_task_cols,
	ARRAY_SIZE(sweep_count_task_cols), false
};
const struct db_query dbq_sweep_count_tasks = {
	"sweep_count_tasks", &sweep_count_task_table, "FORCE INDEX (wu_batch) WHERE batch=?", "i"
};
/* Tickets out are few (one a client): counted through the index. */
static const struct db_column sweep_count_running_cols[] = {
	{ "COUNT(DISTINCT result.workunitid)", DB_T_I64, offsetof(struct db_sweep_counts, running),
	  DB_COL_EXPR },
};
static const struct db_table sweep_count_running_table = {
	"result", sizeof(struct db_sweep_counts), sweep_count_running_cols,
	ARRAY_SIZE(sweep_count_running_cols), false
};
const struct db_query dbq_sweep_count_running = {
	"sweep_count_running", &sweep_count_running_table,
	"FORCE INDEX (res_batch_state) JOIN workunit ON workunit.id=result.workunitid "
	"WHERE result.batch=? AND result.server_state=4 "
	"AND workunit.canonical_resultid=0 AND workunit.error_mask=0", "i"
};
/* Tickets waiting may be all of them: only whether there is one. */
static const struct db_column sweep_waiting_cols[] = {
	{ "result.id", DB_T_I64, offsetof(struct db_sweep_counts, waiting_ticket), DB_COL_EXPR },
};
static const struct db_table sweep_waiting_table = {
	"result", sizeof(struct db_sweep_counts), sweep_waiting_cols, ARRAY_SIZE(sweep_waiting_cols), false
};
const struct db_query dbq_sweep_waiting = {
	"sweep_waiting", &sweep_waiting_table,
	"FORCE INDEX (res_batch_state) JOIN workunit ON workunit.id=result.workunitid "
	"WHERE result.batch=? AND result.server_state=2 "
	"AND workunit.canonical_resultid=0 AND workunit.error_mask=0 LIMIT 1", "i"
};

static int take_task_counts(void *rec, void *arg)
{
	const struct db_sweep_counts *in = rec;
	struct db_sweep_counts *out = arg;

	out->total = in->total;
	out->done = in->done;
	out->failed = in->failed;
	return 0;
}

static int take_running(void *rec, void *arg)
{
	((struct db_sweep_counts *)arg)->running = ((struct db_sweep_counts *)rec)->running;
	return 0;
}

static int take_waiting(void *rec, void *arg)
{
	((struct db_sweep_counts *)arg)->waiting_ticket =
		((struct db_sweep_counts *)rec)->waiting_ticket;
	return 0;
}

int db_sweep_counts(struct db *db, int64_t batch, struct db_sweep_counts *c)
{
	struct db_val v[] = { DBV_INT(batch) };
	int rc;

	memset(c, 0, sizeof(*c));
	rc = db_query_rows(db, &dbq_sweep_count_tasks, v, ARRAY_SIZE(v), take_task_counts, c);
	if (rc == DB_OK)
		rc = db_query_rows(db, &dbq_sweep_count_running, v, ARRAY_SIZE(v), take_running, c);
	if (rc == DB_OK)
		rc = db_query_rows(db, &dbq_sweep_waiting, v, ARRAY_SIZE(v), take_waiting, c);
	return rc;
}

int db_sweep_tasks(struct db *db, int64_t batch, int (*fn)(struct db_sweep_task *, void *),
		   void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return db_query_rows(db, &dbq_sweep_tasks, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}

int db_sweep_ended(struct db *db, int64_t batch, int (*fn)(struct db_sweep_ticket *, void *),
		   void *arg)
{
	struct db_val v[] = { DBV_INT(batch) };

	return db_query_rows(db, &dbq_sweep_ended, v, ARRAY_SIZE(v), (db_row_fn)fn, arg);
}
