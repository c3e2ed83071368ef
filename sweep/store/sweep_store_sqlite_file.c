/*
 * The embedded sweep store's file (sweep_store_sqlite_int.h): one SQLite
 * file in the master's state directory, no server. The file is in WAL mode
 * and every call is one transaction (BEGIN IMMEDIATE when it writes), so a
 * master killed at any moment leaves each call it answered whole and
 * nothing of the one under way; a second process (`sweep status`) reads it
 * while the master writes. Values from clients (ticket names, notes) are
 * bound parameters, never SQL text. doc/sweep-store.md has the schema.
 */
#include "sweep_store_sqlite_int.h"
#include "log.h"

#include <fcntl.h>

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
	/* with its task's body, for /complete's check */
	[Q_TICKET] = { "ticket", "SELECT ticket.id, ticket.task, ticket.row, ticket.name, "
		       "ticket.state, ticket.sent_time, ticket.deadline, ticket.received_time, "
		       "ticket.note, task.canonical IS NOT NULL OR task.failed, task.body "
		       "FROM ticket JOIN task ON task.id = ticket.task "
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

/* The store whose call this thread is in: a callback calling it again is refused. */
static __thread const struct sq *sq_inside;

/* ERROR, logged with SQLite's reason and what was being done (log_error()'s -1). */
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

/* Done with st, at its end or before. */
static void sq_end(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The next row of st: 1, 0 at the end (st ended), or ERROR (logged, st ended). */
static int sq_step(struct sq *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		sq_fail(s, sqlite3_sql(st));
	sq_end(st);
	return rc == SQLITE_DONE ? 0 : SWEEP_STORE_ERROR;
}

static char *sq_col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *p = sqlite3_column_text(st, i);

	return p ? xstrdup((const char *)p) : NULL;
}

/* The row's columns into their places (sweep_store_sqlite_int.h's SQ_COLS). */
static void sq_read(sqlite3_stmt *st, const struct sq_col *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		void *p = c[i].p;
		int k = (int)i;

		if (!p)
			continue;
		switch (c[i].type) {
		case 'l':
			*(int64_t *)p = sqlite3_column_int64(st, k);
			break;
		case 'i':
			*(int *)p = sqlite3_column_int(st, k);
			break;
		case 'b':
			*(bool *)p = sqlite3_column_int(st, k) != 0;
			break;
		case 'z':
			*(size_t *)p = (size_t)sqlite3_column_int64(st, k);
			break;
		case 'e':
			*(enum sweep_ticket_state *)p =
				(enum sweep_ticket_state)sqlite3_column_int(st, k);
			break;
		case 's':
			*(char **)p = sq_col_str(st, k);
			break;
		}
	}
}

int sq_rows(struct sq *s, enum sq_query q, const struct sq_val *v, size_t nv,
	    const struct sq_col *c, size_t nc, sq_row_fn fn, void *arg)
{
	sqlite3_stmt *st = sq_bind(s, q, v, nv);
	int rc;

	if (!st)
		return SWEEP_STORE_ERROR;
	if (nc && (size_t)sqlite3_column_count(st) != nc) {
		sq_end(st);
		return log_error("sweep store: %s: %zu places for %d columns", sq_sql[q].name, nc,
				 sqlite3_column_count(st));
	}
	while ((rc = sq_step(s, st)) == 1) {
		sq_read(st, c, nc);
		if (!fn || fn(arg)) {
			sq_end(st);
			return 1;
		}
	}
	return rc;
}

int sq_row(struct sq *s, enum sq_query q, const struct sq_val *v, size_t nv,
	   const struct sq_col *c, size_t nc)
{
	return sq_rows(s, q, v, nv, c, nc, NULL, NULL);
}

int64_t sq_exec(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n)
{
	int rc = sq_row(s, q, v, n, NULL, 0);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	return sqlite3_changes(s->db);
}

/* ---- transactions ------------------------------------------------------------------- */

static int sq_plain(struct sq *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? SWEEP_STORE_OK
		: sq_fail(s, sql);
}

int sq_txn(struct sq *s, bool write, sq_body body, void *arg)
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

/* ---- open, close ------------------------------------------------------------------------ */

void sq_close(struct sweep_store *st)
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
	/*
	 * NORMAL: in WAL mode a commit is safe from a crash of the process
	 * (kill -9) and never corrupts; only a power loss may undo the last
	 * calls, whose tickets then time out and go out again. FULL (an fsync
	 * a call) made claims three times slower (doc/sweep-store.md).
	 */
	if (sqlite3_exec(s->db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
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
