/*
 * The embedded sweep store (sweep_store.h): one SQLite file in the master's
 * state directory, no server. The file is in WAL mode and every call is one
 * transaction (BEGIN IMMEDIATE when it writes), so a master killed at any
 * moment leaves the last committed call whole and nothing of the next; a
 * second process (`sweep status`) reads it while the master writes. Values
 * from clients (ticket names, notes) are bound parameters, never SQL text.
 * The store does the transitioner's work itself in tick(), with the
 * transitioner's rules (daemons/transitioner.c, as db_sweep.c's sessions
 * get them): doc/sweep-store.md has the schema and the rules.
 *
 * A handle may be shared by threads (the embedded HTTP server's): its calls
 * take turns on a mutex. A callback of returned/tasks/ended runs inside the
 * call's read transaction and must not call the store (it gets ERROR).
 */
#include "sweep_store_sqlite.h"
#include "log.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>

/* The ticket states are stored as numbers, and the indexes name them. */
_Static_assert(SWEEP_TICKET_UNSENT == 0 && SWEEP_TICKET_OUT == 1 && SWEEP_TICKET_RETURNED == 2 &&
	       SWEEP_TICKET_FAILED == 3 && SWEEP_TICKET_TIMED_OUT == 4 &&
	       SWEEP_TICKET_VALID == 5 && SWEEP_TICKET_INVALID == 6 &&
	       SWEEP_TICKET_CANCELLED == 7, "ticket states are stored by number");

/* How long a call waits for another process's write lock, ms. */
#define SQ_BUSY_MS 5000

/*
 * Version 1. A task is due (due = 1) when tick() must look at it: a ticket
 * of it failed, timed out or was judged invalid. Over tasks (canonical or
 * failed) have no UNSENT ticket: the call that ends a task cancels them, so
 * the UNSENT index alone answers next() and "waiting".
 */
static const char sq_schema[] =
	"CREATE TABLE session (id INTEGER PRIMARY KEY, sid TEXT NOT NULL UNIQUE, spec TEXT,"
	" ntasks INTEGER NOT NULL, ndone INTEGER NOT NULL DEFAULT 0,"
	" nfailed INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE task (id INTEGER PRIMARY KEY, session INTEGER NOT NULL REFERENCES session(id),"
	" row INTEGER NOT NULL, body TEXT NOT NULL, timeout INTEGER NOT NULL,"
	" max_assign INTEGER NOT NULL, max_total INTEGER NOT NULL, canonical INTEGER,"
	" failed INTEGER NOT NULL DEFAULT 0, due INTEGER NOT NULL DEFAULT 0, UNIQUE (session, row));"
	"CREATE INDEX task_due ON task (session) WHERE due = 1;"
	"CREATE TABLE ticket (id INTEGER PRIMARY KEY, session INTEGER NOT NULL,"
	" task INTEGER NOT NULL REFERENCES task(id), row INTEGER NOT NULL, name TEXT,"
	" state INTEGER NOT NULL DEFAULT 0, sent_time INTEGER NOT NULL DEFAULT 0,"
	" deadline INTEGER NOT NULL DEFAULT 0, received_time INTEGER NOT NULL DEFAULT 0,"
	" note TEXT NOT NULL DEFAULT '');"
	"CREATE UNIQUE INDEX ticket_name ON ticket (session, name);"
	"CREATE INDEX ticket_task ON ticket (task, state);"
	"CREATE INDEX ticket_unsent ON ticket (session, row, id) WHERE state = 0;"
	"CREATE INDEX ticket_out ON ticket (session, deadline) WHERE state = 1;"
	"CREATE INDEX ticket_returned ON ticket (session) WHERE state = 2;"
	"CREATE INDEX ticket_ended ON ticket (session) WHERE state >= 2;";

/* A ticket as struct sweep_ticket reads it (read_ticket()). */
#define TICKET_COLS "ticket.id, ticket.task, ticket.row, ticket.name, ticket.state, " \
	"ticket.sent_time, ticket.deadline, ticket.received_time, ticket.note, " \
	"task.canonical IS NOT NULL OR task.failed FROM ticket JOIN task ON task.id = ticket.task "

enum sq_query {
	Q_SESSION_NEW, Q_TASK_NEW, Q_TICKET_NEW, Q_SESSION, Q_NEXT, Q_SEND, Q_TICKET, Q_REPORT,
	Q_DUE_OF_TICKET, Q_TIMEOUT_DUE, Q_TIMEOUT, Q_DUE_NEXT, Q_TASK_COUNTS, Q_CANCEL,
	Q_TASK_FAIL, Q_TASK_SETTLED, Q_SESSION_ADD, Q_RETURNED, Q_JUDGE_OF, Q_JUDGED,
	Q_CANONICAL, Q_TASK_DUE, Q_TASKS, Q_ENDED, Q_COUNTS, Q_RUNNING, Q_WAITING, Q_N
};

static const struct {
	const char *name, *sql;
} sq_sql[Q_N] = {
	[Q_SESSION_NEW] = { "session_new", "INSERT INTO session (sid, spec, ntasks) VALUES (?, ?, ?)" },
	[Q_TASK_NEW] = { "task_new", "INSERT INTO task (session, row, body, timeout, max_assign, "
			 "max_total) VALUES (?, ?, ?, ?, ?, ?)" },
	[Q_TICKET_NEW] = { "ticket_new", "INSERT INTO ticket (session, task, row) VALUES (?, ?, ?)" },
	[Q_SESSION] = { "session", "SELECT id, spec FROM session WHERE sid = ?" },
	[Q_NEXT] = { "next", "SELECT ticket.id, ticket.task, ticket.row, task.timeout, task.body "
		     "FROM ticket JOIN task ON task.id = ticket.task "
		     "WHERE ticket.session = ? AND ticket.state = 0 "
		     "ORDER BY ticket.row, ticket.id LIMIT 1" },
	[Q_SEND] = { "send", "UPDATE ticket SET state = 1, name = ?, sent_time = ?, deadline = ?, "
		     "note = ? WHERE id = ? AND state = 0" },
	[Q_TICKET] = { "ticket", "SELECT " TICKET_COLS
		       "WHERE ticket.session = ? AND ticket.name = ?" },
	[Q_REPORT] = { "report", "UPDATE ticket SET state = ?, received_time = ?, "
		       "note = note || ? WHERE id = ? AND state = 1" },
	[Q_DUE_OF_TICKET] = { "due_of_ticket", "UPDATE task SET due = 1 "
			      "WHERE id = (SELECT task FROM ticket WHERE id = ?)" },
	[Q_TIMEOUT_DUE] = { "timeout_due", "UPDATE task SET due = 1 WHERE id IN "
			    "(SELECT task FROM ticket WHERE session = ?1 AND state = 1 "
			    "AND deadline > 0 AND deadline < ?2)" },
	[Q_TIMEOUT] = { "timeout", "UPDATE ticket SET state = 4 WHERE session = ?1 AND state = 1 "
			"AND deadline > 0 AND deadline < ?2" },
	[Q_DUE_NEXT] = { "due_next", "SELECT id, row, max_assign, max_total, "
			 "canonical IS NOT NULL OR failed FROM task "
			 "WHERE session = ? AND due = 1 LIMIT 1" },
	[Q_TASK_COUNTS] = { "task_counts", "SELECT state, COUNT(*) FROM ticket WHERE task = ? "
			    "GROUP BY state" },
	[Q_CANCEL] = { "cancel", "UPDATE ticket SET state = 7 WHERE task = ? AND state = 0" },
	[Q_TASK_FAIL] = { "task_fail", "UPDATE task SET failed = 1 WHERE id = ?" },
	[Q_TASK_SETTLED] = { "task_settled", "UPDATE task SET due = 0 WHERE id = ?" },
	[Q_SESSION_ADD] = { "session_add", "UPDATE session SET ndone = ndone + ?, "
			    "nfailed = nfailed + ? WHERE id = ?" },
	[Q_RETURNED] = { "returned", "SELECT " TICKET_COLS
			 "WHERE ticket.session = ? AND ticket.state = 2 ORDER BY ticket.id" },
	[Q_JUDGE_OF] = { "judge_of", "SELECT ticket.task, task.session, task.canonical IS NULL, "
			 "task.failed FROM ticket JOIN task ON task.id = ticket.task "
			 "WHERE ticket.id = ? AND ticket.state = 2" },
	[Q_JUDGED] = { "judged", "UPDATE ticket SET state = ? WHERE id = ? AND state = 2" },
	[Q_CANONICAL] = { "canonical", "UPDATE task SET canonical = ? "
			  "WHERE id = ? AND canonical IS NULL" },
	[Q_TASK_DUE] = { "task_due", "UPDATE task SET due = 1 WHERE id = ?" },
	[Q_TASKS] = { "tasks", "SELECT task.id, task.row, "
		      "(SELECT c.name FROM ticket AS c WHERE c.id = task.canonical), "
		      "task.failed AND task.canonical IS NULL, "
		      "(SELECT COUNT(*) FROM ticket AS o WHERE o.task = task.id AND o.state = 1), "
		      "(SELECT COUNT(*) FROM ticket AS u WHERE u.task = task.id AND u.state = 0) "
		      "FROM task WHERE task.session = ? ORDER BY task.row" },
	[Q_ENDED] = { "ended", "SELECT " TICKET_COLS
		      "WHERE ticket.session = ? AND ticket.state >= 2 ORDER BY ticket.id" },
	[Q_COUNTS] = { "counts", "SELECT ntasks, ndone, nfailed FROM session WHERE id = ?" },
	[Q_RUNNING] = { "running", "SELECT COUNT(DISTINCT ticket.task) FROM ticket "
			"JOIN task ON task.id = ticket.task WHERE ticket.session = ? "
			"AND ticket.state = 1 AND task.canonical IS NULL AND task.failed = 0" },
	[Q_WAITING] = { "waiting", "SELECT EXISTS (SELECT 1 FROM ticket "
			"WHERE session = ? AND state = 0)" },
};

struct sq {
	struct sweep_store base;
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[Q_N];
	pthread_mutex_t lock;
};

/* The store whose call this thread is in: a callback calling it again is refused. */
static __thread const struct sq *sq_inside;

/* One bound value (SQ_I, SQ_S); a statement gets them as SQ_VALS(...). */
struct sq_val {
	char type;
	int64_t i;
	const char *s;
};
#define SQ_I(v) { 'i', (int64_t)(v), NULL }
#define SQ_S(v) { 's', 0, (v) }
#define SQ_VALS(...) (const struct sq_val[]){ __VA_ARGS__ }, \
	ARRAY_SIZE(((const struct sq_val[]){ __VA_ARGS__ }))

/* ERROR, logged with SQLite's reason (SWEEP_STORE_ERROR is log_error()'s -1). */
static int sq_fail(struct sq *s, const char *what)
{
	return log_error("sweep store %s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

/* Statement q, prepared once, with vals bound; NULL when that failed (logged). */
static sqlite3_stmt *sq_bind(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n)
{
	sqlite3_stmt *st = s->stmt[q];
	size_t i;
	int rc = SQLITE_OK;

	if (!st && sqlite3_prepare_v3(s->db, sq_sql[q].sql, -1, SQLITE_PREPARE_PERSISTENT,
				      &s->stmt[q], NULL) != SQLITE_OK) {
		sq_fail(s, sq_sql[q].name);
		return NULL;
	}
	st = s->stmt[q];
	if ((size_t)sqlite3_bind_parameter_count(st) != n) {
		log_error("sweep store: %s: %zu values for %d parameters", sq_sql[q].name, n,
			  sqlite3_bind_parameter_count(st));
		return NULL;
	}
	for (i = 0; i < n && rc == SQLITE_OK; i++)
		rc = v[i].type == 'i' ? sqlite3_bind_int64(st, (int)i + 1, v[i].i)
			: sqlite3_bind_text(st, (int)i + 1, v[i].s, -1, SQLITE_TRANSIENT);
	if (rc != SQLITE_OK) {
		sq_fail(s, sq_sql[q].name);
		sqlite3_reset(st);
		return NULL;
	}
	return st;
}

/* The next row of st: 1, 0 at the end (st reset), or ERROR (logged, st reset). */
static int sq_step(struct sq *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		sq_fail(s, sqlite3_sql(st));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : SWEEP_STORE_ERROR;
}

static void sq_end(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* Run a statement that returns no row: the rows it changed, or ERROR. */
static int64_t sq_exec(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n)
{
	sqlite3_stmt *st = sq_bind(s, q, v, n);
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc == 1) {
		sq_end(st);
		return 0;
	}
	return rc < 0 ? rc : sqlite3_changes(s->db);
}

/* A query's single integer (0 when it has no row), or ERROR. */
static int sq_int(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n, int64_t *out)
{
	sqlite3_stmt *st = sq_bind(s, q, v, n);
	int rc;

	*out = 0;
	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc == 1) {
		*out = sqlite3_column_int64(st, 0);
		sq_end(st);
	}
	return rc < 0 ? rc : SWEEP_STORE_OK;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *p = sqlite3_column_text(st, i);

	return p ? xstrdup((const char *)p) : NULL;
}

static void read_ticket(sqlite3_stmt *st, struct sweep_ticket *t)
{
	memset(t, 0, sizeof(*t));
	t->id = sqlite3_column_int64(st, 0);
	t->task = sqlite3_column_int64(st, 1);
	t->row = (size_t)sqlite3_column_int64(st, 2);
	t->name = col_str(st, 3);
	t->state = (enum sweep_ticket_state)sqlite3_column_int(st, 4);
	t->sent_time = sqlite3_column_int64(st, 5);
	t->deadline = sqlite3_column_int64(st, 6);
	t->received_time = sqlite3_column_int64(st, 7);
	t->note = col_str(st, 8);
	t->task_over = sqlite3_column_int(st, 9) != 0;
	if (t->received_time && t->received_time > t->sent_time)
		t->elapsed = (double)(t->received_time - t->sent_time);
}

/* ---- transactions ------------------------------------------------------------------- */

typedef int (*sq_body)(struct sq *, void *);

static int sq_plain(struct sq *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? SWEEP_STORE_OK
		: sq_fail(s, sql);
}

/*
 * body in one transaction (write: BEGIN IMMEDIATE, which takes the write
 * lock first, so two writers never deadlock): committed unless it returned
 * ERROR, then rolled back.
 */
static int sq_txn(struct sq *s, bool write, sq_body body, void *arg)
{
	int rc;

	if (sq_inside == s)
		return log_error("sweep store %s: called again from inside its own call", s->path);
	pthread_mutex_lock(&s->lock);
	sq_inside = s;
	rc = sq_plain(s, write ? "BEGIN IMMEDIATE" : "BEGIN");
	if (rc == SWEEP_STORE_OK) {
		rc = body(s, arg);
		if (rc != SWEEP_STORE_ERROR && sq_plain(s, "COMMIT") != SWEEP_STORE_OK)
			rc = SWEEP_STORE_ERROR;
		if (rc == SWEEP_STORE_ERROR && !sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	sq_inside = NULL;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* ---- create, session ------------------------------------------------------------------- */

struct create_args {
	const char *sid, *spec;
	const struct sweep_task_new *tasks;
	size_t n;
};

static int create_task(struct sq *s, int64_t session, const struct sweep_task_new *t)
{
	int64_t task;
	int k;

	if (t->row < 1 || !t->body || t->timeout < 0 || t->max_assign < 1 ||
	    t->max_total < t->max_assign)
		return log_error("sweep store: task of row %zu: bad limits or no body", t->row);
	if (sq_exec(s, Q_TASK_NEW, SQ_VALS(SQ_I(session), SQ_I(t->row), SQ_S(t->body),
					   SQ_I(t->timeout), SQ_I(t->max_assign),
					   SQ_I(t->max_total))) < 0)
		return SWEEP_STORE_ERROR;
	task = sqlite3_last_insert_rowid(s->db);
	for (k = 0; k < t->max_assign; k++)
		if (sq_exec(s, Q_TICKET_NEW, SQ_VALS(SQ_I(session), SQ_I(task), SQ_I(t->row))) < 0)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int do_create(struct sq *s, void *arg)
{
	const struct create_args *a = arg;
	int64_t session;
	size_t i;

	if (sq_exec(s, Q_SESSION_NEW, SQ_VALS(SQ_S(a->sid), SQ_S(a->spec), SQ_I(a->n))) < 0)
		return SWEEP_STORE_ERROR;
	session = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < a->n; i++)
		if (create_task(s, session, &a->tasks[i]) != SWEEP_STORE_OK)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_create(struct sweep_store *st, const char *sid, const char *spec,
		     const struct sweep_task_new *tasks, size_t n)
{
	struct create_args a = { sid, spec, tasks, n };

	if (!sid || !*sid)
		return log_error("sweep store: a session needs an ID");
	return sq_txn((struct sq *)st, true, do_create, &a);
}

struct session_args {
	const char *sid;
	int64_t *session;
	char **spec;
};

static int do_session(struct sq *s, void *arg)
{
	struct session_args *a = arg;
	sqlite3_stmt *st = sq_bind(s, Q_SESSION, SQ_VALS(SQ_S(a->sid)));
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc <= 0)
		return rc < 0 ? rc : SWEEP_STORE_NOT_FOUND;
	*a->session = sqlite3_column_int64(st, 0);
	if (a->spec)
		*a->spec = col_str(st, 1);
	sq_end(st);
	return SWEEP_STORE_OK;
}

static int sq_session(struct sweep_store *st, const char *sid, int64_t *session, char **spec)
{
	struct session_args a = { sid, session, spec };

	*session = 0;
	if (spec)
		*spec = NULL;
	return sid ? sq_txn((struct sq *)st, false, do_session, &a) : SWEEP_STORE_NOT_FOUND;
}

/* ---- next, ticket, report -------------------------------------------------------------- */

struct next_args {
	int64_t session, t;
	const char *name, *note;
	struct sweep_claim *out;
};

static int do_next(struct sq *s, void *arg)
{
	struct next_args *a = arg;
	struct sweep_claim *c = a->out;
	sqlite3_stmt *st = sq_bind(s, Q_NEXT, SQ_VALS(SQ_I(a->session)));
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc <= 0)
		return rc < 0 ? rc : SWEEP_STORE_NOT_FOUND;
	c->ticket = sqlite3_column_int64(st, 0);
	c->task = sqlite3_column_int64(st, 1);
	c->row = (size_t)sqlite3_column_int64(st, 2);
	c->timeout = sqlite3_column_int(st, 3);
	c->body = col_str(st, 4);
	sq_end(st);
	if (sq_exec(s, Q_SEND, SQ_VALS(SQ_S(a->name), SQ_I(a->t),
				       SQ_I(c->timeout > 0 ? a->t + c->timeout : 0),
				       SQ_S(a->note ? a->note : ""), SQ_I(c->ticket))) != 1) {
		sweep_claim_release(c);
		return SWEEP_STORE_ERROR;
	}
	return SWEEP_STORE_OK;
}

static int sq_next(struct sweep_store *st, int64_t session, const char *ticket, int64_t t,
		   const char *note, struct sweep_claim *out)
{
	struct next_args a = { session, t, ticket, note, out };

	memset(out, 0, sizeof(*out));
	if (!ticket || !*ticket)
		return log_error("sweep store: a ticket needs a name");
	return sq_txn((struct sq *)st, true, do_next, &a);
}

struct ticket_args {
	int64_t session;
	const char *name;
	struct sweep_ticket *out;
};

static int do_ticket(struct sq *s, void *arg)
{
	struct ticket_args *a = arg;
	sqlite3_stmt *st = sq_bind(s, Q_TICKET, SQ_VALS(SQ_I(a->session), SQ_S(a->name)));
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc <= 0)
		return rc < 0 ? rc : SWEEP_STORE_NOT_FOUND;
	read_ticket(st, a->out);
	sq_end(st);
	return SWEEP_STORE_OK;
}

static int sq_ticket(struct sweep_store *st, int64_t session, const char *name,
		     struct sweep_ticket *out)
{
	struct ticket_args a = { session, name, out };

	memset(out, 0, sizeof(*out));
	return name ? sq_txn((struct sq *)st, false, do_ticket, &a) : SWEEP_STORE_NOT_FOUND;
}

struct report_args {
	int64_t ticket, t;
	bool success;
	const char *note;
	bool *taken;
};

static int do_report(struct sq *s, void *arg)
{
	struct report_args *a = arg;
	int64_t n = sq_exec(s, Q_REPORT, SQ_VALS(SQ_I(a->success ? SWEEP_TICKET_RETURNED
						 : SWEEP_TICKET_FAILED), SQ_I(a->t),
						 SQ_S(a->note ? a->note : ""), SQ_I(a->ticket)));

	if (n < 0)
		return SWEEP_STORE_ERROR;
	*a->taken = n > 0;
	/* a failure: its task wants a new ticket (tick) */
	if (n > 0 && !a->success && sq_exec(s, Q_DUE_OF_TICKET, SQ_VALS(SQ_I(a->ticket))) < 0)
		return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_report(struct sweep_store *st, int64_t ticket, bool success, int64_t t,
		     const char *note, bool *taken)
{
	struct report_args a = { ticket, t, success, note, taken };

	*taken = false;
	return sq_txn((struct sq *)st, true, do_report, &a);
}

/* ---- tick: the transitioner's work ------------------------------------------------------- */

struct due_task {
	int64_t id, row, session;
	int max_assign, max_total;
	bool over;
};

/* A task ends without a valid ticket: failed, its unsent tickets cancelled. */
static int fail_task(struct sq *s, const struct due_task *d)
{
	log_info("sweep store: task of row %" PRId64 " failed: out of tickets (%d)", d->row,
		 d->max_total);
	if (sq_exec(s, Q_TASK_FAIL, SQ_VALS(SQ_I(d->id))) < 0 ||
	    sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(d->id))) < 0 ||
	    sq_exec(s, Q_SESSION_ADD, SQ_VALS(SQ_I(0), SQ_I(1), SQ_I(d->session))) < 0)
		return SWEEP_STORE_ERROR;
	return 1;
}

/*
 * The transitioner's rule for a task without a valid ticket: it wants
 * max_assign tickets unsent, out or successful (returned, valid); it gets
 * them while it has had fewer than max_total; when it wants one and may
 * have none, it fails. Returns the rows changed, or ERROR.
 */
static int settle_task(struct sq *s, const struct due_task *d)
{
	sqlite3_stmt *st = sq_bind(s, Q_TASK_COUNTS, SQ_VALS(SQ_I(d->id)));
	int64_t c[SWEEP_TICKET_CANCELLED + 1] = { 0 }, total = 0, needed, allowed, k;
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	while ((rc = sq_step(s, st)) == 1) {
		int state = sqlite3_column_int(st, 0);

		if (state >= 0 && state <= SWEEP_TICKET_CANCELLED)
			c[state] = sqlite3_column_int64(st, 1);
		total += sqlite3_column_int64(st, 1);
	}
	if (rc < 0)
		return rc;
	needed = d->max_assign - c[SWEEP_TICKET_UNSENT] - c[SWEEP_TICKET_OUT] -
		c[SWEEP_TICKET_RETURNED] - c[SWEEP_TICKET_VALID];
	needed = needed < 0 ? 0 : needed;
	allowed = d->max_total - total;
	if (allowed < 0 || (allowed == 0 && needed > 0))
		return fail_task(s, d);
	for (k = 0; k < needed && k < allowed; k++)
		if (sq_exec(s, Q_TICKET_NEW, SQ_VALS(SQ_I(d->session), SQ_I(d->id), SQ_I(d->row))) < 0)
			return SWEEP_STORE_ERROR;
	return (int)k;
}

/* The session's next due task (1), none (0), or ERROR. */
static int next_due(struct sq *s, int64_t session, struct due_task *d)
{
	sqlite3_stmt *st = sq_bind(s, Q_DUE_NEXT, SQ_VALS(SQ_I(session)));
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	rc = sq_step(s, st);
	if (rc == 1) {
		d->id = sqlite3_column_int64(st, 0);
		d->row = sqlite3_column_int64(st, 1);
		d->max_assign = sqlite3_column_int(st, 2);
		d->max_total = sqlite3_column_int(st, 3);
		d->over = sqlite3_column_int(st, 4) != 0;
		d->session = session;
		sq_end(st);
	}
	return rc;
}

struct tick_args {
	int64_t session, t;
	bool *changed;
};

static int do_tick(struct sq *s, void *arg)
{
	struct tick_args *a = arg;
	struct due_task d;
	int64_t n;
	int rc;

	if (sq_exec(s, Q_TIMEOUT_DUE, SQ_VALS(SQ_I(a->session), SQ_I(a->t))) < 0 ||
	    (n = sq_exec(s, Q_TIMEOUT, SQ_VALS(SQ_I(a->session), SQ_I(a->t)))) < 0)
		return SWEEP_STORE_ERROR;
	*a->changed = n > 0;
	while ((rc = next_due(s, a->session, &d)) == 1) {
		n = d.over ? sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(d.id))) : settle_task(s, &d);
		if (n < 0 || sq_exec(s, Q_TASK_SETTLED, SQ_VALS(SQ_I(d.id))) < 0)
			return SWEEP_STORE_ERROR;
		*a->changed = *a->changed || n > 0;
	}
	return rc < 0 ? rc : SWEEP_STORE_OK;
}

static int sq_tick(struct sweep_store *st, int64_t session, int64_t t, bool *changed)
{
	struct tick_args a = { session, t, changed };

	*changed = false;
	return sq_txn((struct sq *)st, true, do_tick, &a);
}

/* ---- judging --------------------------------------------------------------------------- */

struct judge_args {
	const struct sweep_verdict *v;
	size_t n;
};

/*
 * A valid ticket: its task's canonical one if it has none (the task is
 * done then, even one that had failed meanwhile), its unsent tickets
 * cancelled. An invalid one: its task wants a new ticket (tick).
 */
static int judge_one(struct sq *s, const struct sweep_verdict *v)
{
	sqlite3_stmt *st = sq_bind(s, Q_JUDGE_OF, SQ_VALS(SQ_I(v->ticket)));
	int64_t task, session;
	bool first, failed;
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	if ((rc = sq_step(s, st)) <= 0)
		return rc;      /* not RETURNED: judged already, or not an answer */
	task = sqlite3_column_int64(st, 0);
	session = sqlite3_column_int64(st, 1);
	first = sqlite3_column_int(st, 2) != 0;
	failed = sqlite3_column_int(st, 3) != 0;
	sq_end(st);
	if (sq_exec(s, Q_JUDGED, SQ_VALS(SQ_I(v->valid ? SWEEP_TICKET_VALID : SWEEP_TICKET_INVALID),
					 SQ_I(v->ticket))) < 0)
		return SWEEP_STORE_ERROR;
	if (!v->valid)
		return sq_exec(s, Q_TASK_DUE, SQ_VALS(SQ_I(task))) < 0 ? SWEEP_STORE_ERROR : 0;
	if (!first)
		return 0;
	if (sq_exec(s, Q_CANONICAL, SQ_VALS(SQ_I(v->ticket), SQ_I(task))) < 0 ||
	    sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(task))) < 0 ||
	    sq_exec(s, Q_SESSION_ADD, SQ_VALS(SQ_I(1), SQ_I(failed ? -1 : 0), SQ_I(session))) < 0)
		return SWEEP_STORE_ERROR;
	return 0;
}

static int do_judge(struct sq *s, void *arg)
{
	struct judge_args *a = arg;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (judge_one(s, &a->v[i]) < 0)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_judge(struct sweep_store *st, const struct sweep_verdict *v, size_t n, int64_t t)
{
	struct judge_args a = { v, n };

	return sq_txn((struct sq *)st, true, do_judge, &a);
}

/* ---- reading a session ------------------------------------------------------------------ */

struct each_args {
	enum sq_query q;
	int64_t session;
	int (*ticket_fn)(const struct sweep_ticket *, void *);
	int (*task_fn)(const struct sweep_task_state *, void *);
	void *arg;
};

static int each_row(struct sq *s, sqlite3_stmt *st, const struct each_args *a)
{
	struct sweep_ticket t;
	struct sweep_task_state k;
	int stop;

	if (a->ticket_fn) {
		read_ticket(st, &t);
		stop = a->ticket_fn(&t, a->arg);
		sweep_ticket_release(&t);
		return stop;
	}
	memset(&k, 0, sizeof(k));
	k.id = sqlite3_column_int64(st, 0);
	k.row = (size_t)sqlite3_column_int64(st, 1);
	k.canonical = col_str(st, 2);
	k.failed = sqlite3_column_int(st, 3) != 0;
	k.nout = sqlite3_column_int(st, 4);
	k.nunsent = sqlite3_column_int(st, 5);
	stop = a->task_fn(&k, a->arg);
	free(k.canonical);
	return stop;
}

static int do_each(struct sq *s, void *arg)
{
	struct each_args *a = arg;
	sqlite3_stmt *st = sq_bind(s, a->q, SQ_VALS(SQ_I(a->session)));
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	while ((rc = sq_step(s, st)) == 1)
		if (each_row(s, st, a)) {
			sq_end(st);
			return SWEEP_STORE_OK;
		}
	return rc;
}

static int sq_returned(struct sweep_store *st, int64_t session,
		       int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	struct each_args a = { Q_RETURNED, session, fn, NULL, arg };

	return sq_txn((struct sq *)st, false, do_each, &a);
}

static int sq_ended(struct sweep_store *st, int64_t session,
		    int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	struct each_args a = { Q_ENDED, session, fn, NULL, arg };

	return sq_txn((struct sq *)st, false, do_each, &a);
}

static int sq_tasks(struct sweep_store *st, int64_t session,
		    int (*fn)(const struct sweep_task_state *, void *), void *arg)
{
	struct each_args a = { Q_TASKS, session, NULL, fn, arg };

	return sq_txn((struct sq *)st, false, do_each, &a);
}

struct counts_args {
	int64_t session;
	struct sweep_counts *c;
};

static int do_counts(struct sq *s, void *arg)
{
	struct counts_args *a = arg;
	sqlite3_stmt *st = sq_bind(s, Q_COUNTS, SQ_VALS(SQ_I(a->session)));
	int64_t waiting;
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	if ((rc = sq_step(s, st)) <= 0)
		return rc < 0 ? rc : SWEEP_STORE_NOT_FOUND;
	a->c->total = sqlite3_column_int64(st, 0);
	a->c->done = sqlite3_column_int64(st, 1);
	a->c->failed = sqlite3_column_int64(st, 2);
	sq_end(st);
	if (sq_int(s, Q_RUNNING, SQ_VALS(SQ_I(a->session)), &a->c->running) < 0 ||
	    sq_int(s, Q_WAITING, SQ_VALS(SQ_I(a->session)), &waiting) < 0)
		return SWEEP_STORE_ERROR;
	a->c->waiting = waiting != 0;
	return SWEEP_STORE_OK;
}

static int sq_counts(struct sweep_store *st, int64_t session, struct sweep_counts *c)
{
	struct counts_args a = { session, c };

	memset(c, 0, sizeof(*c));
	return sq_txn((struct sq *)st, false, do_counts, &a);
}

/* ---- open, close ------------------------------------------------------------------------ */

static void sq_close(struct sweep_store *st)
{
	struct sq *s = (struct sq *)st;
	size_t i;

	for (i = 0; i < Q_N; i++)
		sqlite3_finalize(s->stmt[i]);
	/* the last connection checkpoints the WAL into the file and removes it */
	if (sqlite3_close(s->db) != SQLITE_OK)
		log_warn("sweep store %s: close: %s", s->path, sqlite3_errmsg(s->db));
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s);
}

static const struct sweep_store_ops sq_ops = {
	.kind = "sqlite",
	.close = sq_close,
	.create = sq_create,
	.session = sq_session,
	.next = sq_next,
	.ticket = sq_ticket,
	.report = sq_report,
	.tick = sq_tick,
	.returned = sq_returned,
	.judge = sq_judge,
	.tasks = sq_tasks,
	.ended = sq_ended,
	.counts = sq_counts,
};

static int pragma_int(struct sq *s, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* A new file gets the schema; an old one must be ours, of a version we know. */
static int check_schema(struct sq *s, struct sbuf *err)
{
	int64_t app, version, objects;

	if (pragma_int(s, "PRAGMA application_id", &app) < 0 ||
	    pragma_int(s, "PRAGMA user_version", &version) < 0 ||
	    pragma_int(s, "SELECT COUNT(*) FROM sqlite_master", &objects) < 0)
		return sbuf_fail(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
	if (app == 0 && version == 0 && objects == 0) {
		char *init = xasprintf("%sPRAGMA application_id = %d; PRAGMA user_version = %d;",
				       sq_schema, SWEEP_STORE_SQLITE_APP_ID,
				       SWEEP_STORE_SQLITE_VERSION);
		int rc = sqlite3_exec(s->db, init, NULL, NULL, NULL);

		free(init);
		return rc == SQLITE_OK ? 0 : sbuf_fail(err, "%s: cannot make the store: %s", s->path,
						       sqlite3_errmsg(s->db));
	}
	if (app != SWEEP_STORE_SQLITE_APP_ID)
		return sbuf_fail(err, "%s: an SQLite database, but not a sweep store", s->path);
	if (version > SWEEP_STORE_SQLITE_VERSION)
		return sbuf_fail(err, "%s: store version %" PRId64 " is newer than this sweep's (%d): "
				 "use the sweep that wrote it, or a newer one", s->path, version,
				 SWEEP_STORE_SQLITE_VERSION);
	if (version != SWEEP_STORE_SQLITE_VERSION)
		return sbuf_fail(err, "%s: unknown store version %" PRId64, s->path, version);
	return 0;
}

/* Switch to WAL: 1, 0 when the file system cannot have it, -1 on an error. */
static int wal_mode(struct sq *s)
{
	sqlite3_stmt *st;
	int rc, wal = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		wal = !strcasecmp((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? wal : -1;
}

/* The connection's settings, then the schema checked (or made) under the write lock. */
static int sq_setup(struct sq *s, struct sbuf *err)
{
	int64_t unused;
	int rc;

	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, SQ_BUSY_MS);
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	/* the first read of the file: one that is not a database fails here */
	if (pragma_int(s, "SELECT COUNT(*) FROM sqlite_master", &unused) < 0)
		return sbuf_fail(err, "%s: not a sweep store: %s", s->path, sqlite3_errmsg(s->db));
	rc = wal_mode(s);
	if (rc != 1)
		return rc < 0 ? sbuf_fail(err, "%s: %s", s->path, sqlite3_errmsg(s->db))
			: sbuf_fail(err, "%s: cannot keep a write-ahead log here (a network file "
				    "system?): put the state directory on a local disk", s->path);
	if (sqlite3_exec(s->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sbuf_fail(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
	rc = check_schema(s, err);
	if (sqlite3_exec(s->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    rc == 0)
		rc = sbuf_fail(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
	return rc;
}

/* Made owner-only before SQLite opens it: the tickets in it are the clients' keys. */
static int make_private(const char *path, struct sbuf *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return sbuf_fail(err, "%s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

struct sweep_store *sweep_store_open_sqlite(const char *path, struct sbuf *err)
{
	struct sq *s;

	if (make_private(path, err) < 0)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->base.ops = &sq_ops;
	s->path = xstrdup(path);
	pthread_mutex_init(&s->lock, NULL);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		sbuf_fail(err, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sq_close(&s->base);
		return NULL;
	}
	if (sq_setup(s, err) < 0) {
		sq_close(&s->base);
		return NULL;
	}
	return &s->base;
}

/* ---- for the tests ---------------------------------------------------------------------- */

static int plan_of(struct sq *s, enum sq_query q, struct sbuf *plan)
{
	char *sql = xasprintf("EXPLAIN QUERY PLAN %s", sq_sql[q].sql);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return sq_fail(s, sq_sql[q].name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		sbuf_addf(plan, "%s\n", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sq_fail(s, sq_sql[q].name);
}

int sweep_store_sqlite_plans(struct sweep_store *st,
			     int (*fn)(const char *, const char *, const char *, void *), void *arg)
{
	struct sq *s = (struct sq *)st;
	struct sbuf plan = SBUF_INIT(1 << 16);
	int rc = 0;
	size_t q;

	if (st->ops != &sq_ops)
		return log_error("sweep store: not an embedded store");
	pthread_mutex_lock(&s->lock);
	for (q = 0; q < Q_N && rc == 0; q++) {
		sbuf_reset(&plan);
		rc = plan_of(s, (enum sq_query)q, &plan);
		if (rc == 0 && fn(sq_sql[q].name, sq_sql[q].sql, sbuf_str(&plan), arg))
			break;
	}
	pthread_mutex_unlock(&s->lock);
	sbuf_release(&plan);
	return rc < 0 ? -1 : 0;
}
