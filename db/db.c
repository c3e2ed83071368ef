/*
 * The connection: connect with back-off, reconnect when the server went
 * away, the per-connection cache of prepared statements, executing with
 * typed binds, and transactions. See db.h for the contract.
 */
#include "db_internal.h"
#include "config.h"
#include "log.h"
#include "wtime.h"

#include <errmsg.h>
#include <mysqld_error.h>

/*
 * Strict mode so a bad value is an error, not a silent truncation; UTC so
 * TIMESTAMP columns convert to unix time without daylight-saving gaps.
 */
#define DB_INIT_COMMAND \
	"SET SESSION sql_mode='STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO," \
	"NO_ENGINE_SUBSTITUTION', time_zone='+00:00'"
#define DB_CONNECT_TIMEOUT 10
/* db_set_implicit_transactions(): each statement sees what is committed when it runs */
#define DB_IMPLICIT_COMMAND "SET SESSION tx_isolation='READ-COMMITTED'"

static const char *nz(const char *s)
{
	return s && *s ? s : NULL;
}

void db_params_from_config(struct db_params *p, const struct project_config *c)
{
	memset(p, 0, sizeof(*p));
	p->name = c->db_name;
	p->user = c->db_user;
	p->passwd = c->db_passwd;
	p->host = c->db_host;
	p->socket = c->db_socket;
	p->port = c->db_port;
}

void db_params_from_env(struct db_params *p)
{
	const char *port = getenv("WSEQ_DB_PORT");
	long l;

	memset(p, 0, sizeof(*p));
	p->name = getenv("WSEQ_DB_NAME");
	p->user = getenv("WSEQ_DB_USER");
	p->passwd = getenv("WSEQ_DB_PASSWD");
	p->host = getenv("WSEQ_DB_HOST");
	p->socket = getenv("WSEQ_DB_SOCKET");
	if (port && parse_long(port, &l) == 0)
		p->port = l;
}

bool db_conn_lost_errno(unsigned e)
{
	switch (e) {
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_CONNECTION_ERROR:
	case CR_CONN_HOST_ERROR:
	case CR_SERVER_LOST_EXTENDED:
	case ER_CONNECTION_KILLED:
	case ER_SERVER_SHUTDOWN:
	case ER_QUERY_INTERRUPTED:
		return true;
	default:
		return false;
	}
}

static void set_err(struct db *db, unsigned e, const char *msg)
{
	db->err_no = e;
	wstrlcpy(db->err, msg ? msg : "", sizeof(db->err));
}

int db_fail_(struct db *db, MYSQL_STMT *stmt, const char *what)
{
	if (stmt)
		set_err(db, mysql_stmt_errno(stmt), mysql_stmt_error(stmt));
	else if (db->mysql)
		set_err(db, mysql_errno(db->mysql), mysql_error(db->mysql));
	return log_error("database error in %s: %s (%u)", what, db->err, db->err_no);
}

/* ---- connecting ---------------------------------------------------------- */

static void stmt_free(struct db_stmt *s)
{
	if (s->stmt)
		mysql_stmt_close(s->stmt);
	free(s->sql);
	free(s);
}

/*
 * Forget the connection and its statements. mysql_close() detaches the
 * statements from the dead connection first, so closing them afterwards
 * sends nothing. A statement still being read (busy) is left to its
 * holder, whose db_stmt_release() frees it.
 */
static void disconnect(struct db *db)
{
	size_t i;

	if (db->mysql)
		mysql_close(db->mysql);
	db->mysql = NULL;
	for (i = 0; i < db->ncache; i++) {
		if (db->cache[i]->busy)
			db->cache[i]->cached = false;
		else
			stmt_free(db->cache[i]);
		db->cache[i] = NULL;
	}
	db->ncache = 0;
	db->open = false;
}

static int connect_once(struct db *db, bool quiet)
{
	const struct db_params *p = &db->p;
	unsigned timeout = DB_CONNECT_TIMEOUT;
	my_bool no = 0;
	unsigned proto;
	MYSQL *m;

	m = mysql_init(NULL);
	if (!m) {
		set_err(db, 0, "out of memory");
		return log_error("database unavailable: mysql_init failed");
	}
	mysql_options(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_OPT_RECONNECT, &no);
	mysql_options(m, MYSQL_INIT_COMMAND, DB_INIT_COMMAND);
	if (db->implicit)
		mysql_options(m, MYSQL_INIT_COMMAND, DB_IMPLICIT_COMMAND);
	proto = nz(p->socket) ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
	if (nz(p->socket) || nz(p->host))
		mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
	if (!mysql_real_connect(m, nz(p->socket) ? "localhost" : nz(p->host),
				p->user, p->passwd ? p->passwd : "", nz(p->name),
				nz(p->socket) ? 0 : (unsigned)p->port, nz(p->socket),
				CLIENT_FOUND_ROWS)) {
		set_err(db, mysql_errno(m), mysql_error(m));
		mysql_close(m);
		if (quiet)
			return -1;
		return log_error("database unavailable: cannot connect to database '%s' "
				 "as '%s' on %s: %s", p->name ? p->name : "",
				 p->user ? p->user : "", db->where, db->err);
	}
	if (mysql_autocommit(m, !db->implicit)) {
		set_err(db, mysql_errno(m), mysql_error(m));
		mysql_close(m);
		return log_error("database unavailable: cannot set autocommit on %s: %s",
				 db->where, db->err);
	}
	db->mysql = m;
	return 0;
}

static int reconnect(struct db *db)
{
	disconnect(db);
	if (connect_once(db, false) < 0)
		return DB_ERROR;
	log_info("reconnected to the database on %s", db->where);
	return DB_OK;
}

int db_open(struct db **out, const struct db_params *p, double max_wait_s)
{
	struct db *db = xcalloc(1, sizeof(*db));
	double start = dnow(), delay = 0.2;

	*out = NULL;
	db->p.name = p->name ? xstrdup(p->name) : NULL;
	db->p.user = p->user ? xstrdup(p->user) : NULL;
	db->p.passwd = p->passwd ? xstrdup(p->passwd) : NULL;
	db->p.host = p->host ? xstrdup(p->host) : NULL;
	db->p.socket = p->socket ? xstrdup(p->socket) : NULL;
	db->p.port = p->port;
	if (p->passwd)
		log_add_secret(p->passwd);
	if (nz(p->socket))
		db->where = xasprintf("socket %s", p->socket);
	else
		db->where = xasprintf("%s:%ld", nz(p->host) ? p->host : "localhost",
				      p->port ? p->port : 3306L);
	while (connect_once(db, true) < 0) {
		double left = start + max_wait_s - dnow();

		if (left <= 0) {
			log_error("database unavailable: cannot connect to database '%s' as "
				  "'%s' on %s: %s", p->name ? p->name : "",
				  p->user ? p->user : "", db->where, db->err);
			db_close(db);
			return DB_ERROR;
		}
		if (delay == 0.2)
			log_warn("database not reachable on %s (%s); retrying for %.0f s",
				 db->where, db->err, left);
		if (delay > left)
			delay = left;
		usleep((useconds_t)(delay * 1e6));
		delay = delay * 2 > 5 ? 5 : delay * 2;
	}
	*out = db;
	return DB_OK;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	disconnect(db);
	free((char *)db->p.name);
	free((char *)db->p.user);
	free((char *)db->p.passwd);
	free((char *)db->p.host);
	free((char *)db->p.socket);
	free(db->where);
	free(db);
}

const char *db_error(struct db *db)
{
	return db ? db->err : "";
}

unsigned db_errno(struct db *db)
{
	return db ? db->err_no : 0;
}

int64_t db_insert_id(struct db *db)
{
	return db->last_insert_id;
}

bool db_deadlock(struct db *db)
{
	return db && db->err_no == ER_LOCK_DEADLOCK;
}

bool db_in_transaction(const struct db *db)
{
	return db->in_txn;
}

/* ---- statements ------------------------------------------------------------ */

/* Make sure there is a connection; a failed reconnect is logged. */
static int ensure_connected(struct db *db)
{
	if (db->mysql)
		return DB_OK;
	if (db->in_txn) {
		db->txn_lost = true;
		return DB_RETRY;
	}
	return reconnect(db);
}

/* After a lost connection: DB_RETRY in a transaction, else reconnect (DB_OK). */
static int on_conn_lost(struct db *db, const char *what)
{
	log_warn("database connection to %s lost in %s: %s (%u)", db->where, what,
		 db->err, db->err_no);
	if (db->in_txn) {
		db->txn_lost = true;
		disconnect(db);
		/* reconnect now so the rerun finds a connection; failing is fine here */
		if (connect_once(db, false) == 0)
			log_info("reconnected to the database on %s", db->where);
		return DB_RETRY;
	}
	return reconnect(db);
}

static int prepare(struct db *db, const char *sql, MYSQL_STMT **out)
{
	MYSQL_STMT *st = mysql_stmt_init(db->mysql);

	*out = NULL;
	if (!st)
		return db_fail_(db, NULL, "mysql_stmt_init");
	if (mysql_stmt_prepare(st, sql, (unsigned long)strlen(sql))) {
		set_err(db, mysql_stmt_errno(st), mysql_stmt_error(st));
		mysql_stmt_close(st);
		if (db_conn_lost_errno(db->err_no))
			return DB_RETRY;        /* the caller decides */
		return log_error("database error preparing \"%s\": %s (%u)", sql, db->err,
				 db->err_no);
	}
	*out = st;
	return DB_OK;
}

int db_stmt_get(struct db *db, const char *sql, struct db_stmt **out)
{
	MYSQL_STMT *st;
	struct db_stmt *s;
	size_t i;
	int rc;

	*out = NULL;
	if (db->txn_lost)
		return DB_RETRY;
	rc = ensure_connected(db);
	if (rc != DB_OK)
		return rc;
	/*
	 * Most SQL comes from the same string every time (a query's static
	 * text, db_rec's remembered SELECTs): that pointer is looked for first,
	 * its text confirmed with one comparison, before comparing the texts of
	 * the whole cache (which share long prefixes).
	 */
	for (i = 0; i < db->ncache; i++) {
		s = db->cache[i];
		if (!s->busy && s->asked == sql && strcmp(s->sql, sql) == 0)
			goto found;
	}
	for (i = 0; i < db->ncache; i++) {
		s = db->cache[i];
		if (!s->busy && strcmp(s->sql, sql) == 0) {
			s->asked = sql;
			goto found;
		}
	}
	rc = prepare(db, sql, &st);
	if (rc == DB_RETRY) {
		rc = on_conn_lost(db, "prepare");
		if (rc != DB_OK)
			return rc;
		rc = prepare(db, sql, &st);
		if (rc == DB_RETRY)
			return log_error("database unavailable: %s", db->err);
	}
	if (rc != DB_OK)
		return rc;
	s = xcalloc(1, sizeof(*s));
	s->sql = xstrdup(sql);
	s->asked = sql;
	s->stmt = st;
	/* a full cache means dynamic SQL somewhere: work, but don't keep it */
	if (db->ncache < DB_STMT_CACHE_MAX) {
		db->cache[db->ncache++] = s;
		s->cached = true;
	}
found:
	s->busy = true;
	*out = s;
	return DB_OK;
}

void db_stmt_release(struct db *db, struct db_stmt *s)
{
	if (!s)
		return;
	if (!s->cached) {
		stmt_free(s);
		return;
	}
	mysql_stmt_free_result(s->stmt);
	s->busy = false;
}

static int bind_and_execute(struct db *db, MYSQL_STMT *st, const struct db_val *vals,
			    size_t nvals)
{
	MYSQL_BIND *b = NULL;
	unsigned long *lens = NULL;
	size_t i;
	int rc = DB_OK;

	if (mysql_stmt_param_count(st) != nvals) {
		char msg[128];

		snprintf(msg, sizeof(msg), "statement has %lu placeholders, %zu values given",
			 mysql_stmt_param_count(st), nvals);
		set_err(db, 0, msg);
		return DB_ERROR;
	}
	if (nvals) {
		b = xcalloc(nvals, sizeof(*b));
		lens = xcalloc(nvals, sizeof(*lens));
	}
	for (i = 0; i < nvals; i++) {
		switch (vals[i].type) {
		case DB_T_INT:
		case DB_T_I64:
			b[i].buffer_type = MYSQL_TYPE_LONGLONG;
			b[i].buffer = (void *)&vals[i].u.i;
			break;
		case DB_T_DOUBLE:
			b[i].buffer_type = MYSQL_TYPE_DOUBLE;
			b[i].buffer = (void *)&vals[i].u.d;
			break;
		case DB_T_STR:
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = (void *)(vals[i].u.s ? vals[i].u.s : "");
			lens[i] = (unsigned long)strlen(b[i].buffer);
			b[i].buffer_length = lens[i];
			b[i].length = &lens[i];
			break;
		}
	}
	db->open = db->implicit;        /* a statement begins a transaction, even a failed one */
	if (nvals && mysql_stmt_bind_param(st, b))
		rc = DB_ERROR;
	else if (mysql_stmt_execute(st))
		rc = DB_ERROR;
	if (rc != DB_OK)
		set_err(db, mysql_stmt_errno(st), mysql_stmt_error(st));
	free(b);
	free(lens);
	return rc;
}

/*
 * Take a statement out of the cache: its holder's db_stmt_release() closes
 * it. After an error (a deadlock, a lock wait timeout) libmariadb can leave
 * a prepared statement in a state where its next execution waits forever
 * for an answer the server never sends (seen with SELECT ... FOR UPDATE);
 * a statement prepared afresh has no such past.
 */
void db_stmt_evict(struct db *db, struct db_stmt *s)
{
	size_t i;

	for (i = 0; i < db->ncache; i++) {
		if (db->cache[i] == s) {
			db->cache[i] = db->cache[--db->ncache];
			s->cached = false;
			return;
		}
	}
}

int db_stmt_execute(struct db *db, struct db_stmt **sp, const char *sql,
		    const struct db_val *vals, size_t nvals)
{
	int rc;

	if (bind_and_execute(db, (*sp)->stmt, vals, nvals) == DB_OK)
		goto ok;
	if (!db_conn_lost_errno(db->err_no)) {
		db_stmt_evict(db, *sp);
		return log_error("database error in \"%s\": %s (%u)", sql, db->err, db->err_no);
	}
	db_stmt_release(db, *sp);
	*sp = NULL;
	rc = on_conn_lost(db, "a statement");
	if (rc != DB_OK)
		return rc;
	rc = db_stmt_get(db, sql, sp);
	if (rc != DB_OK)
		return rc;
	if (bind_and_execute(db, (*sp)->stmt, vals, nvals) != DB_OK) {
		if (db_conn_lost_errno(db->err_no))
			return log_error("database unavailable: %s", db->err);
		return log_error("database error in \"%s\": %s (%u)", sql, db->err, db->err_no);
	}
ok:
	db->last_insert_id = (int64_t)mysql_stmt_insert_id((*sp)->stmt);
	return DB_OK;
}

int db_exec(struct db *db, const char *sql, const struct db_val *vals, size_t nvals,
	    int64_t *affected)
{
	struct db_stmt *s;
	int rc;

	rc = db_stmt_get(db, sql, &s);
	if (rc != DB_OK)
		return rc;
	rc = db_stmt_execute(db, &s, sql, vals, nvals);
	if (rc == DB_OK && affected)
		*affected = (int64_t)mysql_stmt_affected_rows(s->stmt);
	db_stmt_release(db, s);
	return rc;
}

int db_select_i64(struct db *db, const char *sql, const struct db_val *vals, size_t nvals,
		  int64_t *out)
{
	struct db_stmt *s;
	MYSQL_BIND b;
	long long v = 0;
	my_bool is_null = 0;
	int rc;

	*out = 0;
	rc = db_stmt_get(db, sql, &s);
	if (rc != DB_OK)
		return rc;
	rc = db_stmt_execute(db, &s, sql, vals, nvals);
	if (rc != DB_OK)
		goto out;
	memset(&b, 0, sizeof(b));
	b.buffer_type = MYSQL_TYPE_LONGLONG;
	b.buffer = &v;
	b.is_null = &is_null;
	if (mysql_stmt_field_count(s->stmt) != 1 || mysql_stmt_bind_result(s->stmt, &b)) {
		rc = log_error("database error: \"%s\" must return one column", sql);
		goto out;
	}
	switch (mysql_stmt_fetch(s->stmt)) {
	case 0:
	case MYSQL_DATA_TRUNCATED:
		*out = is_null ? 0 : (int64_t)v;
		break;
	case MYSQL_NO_DATA:
		rc = DB_NOT_FOUND;
		break;
	default:
		rc = db_fail_(db, s->stmt, sql);
	}
out:
	db_stmt_release(db, s);
	return rc;
}

int db_ping(struct db *db)
{
	int64_t one;

	return db_select_i64(db, "SELECT 1", NULL, 0, &one);
}

/* ---- transactions ---------------------------------------------------------- */

/* Transaction control runs as plain queries: nothing to bind, nothing to cache. */
static int txn_query(struct db *db, const char *sql)
{
	int rc = ensure_connected(db);

	if (rc != DB_OK)
		return rc;
	if (mysql_query(db->mysql, sql) == 0)
		return DB_OK;
	set_err(db, mysql_errno(db->mysql), mysql_error(db->mysql));
	if (db_conn_lost_errno(db->err_no))
		return DB_RETRY;
	return log_error("database error in %s: %s (%u)", sql, db->err, db->err_no);
}

static int txn_start(struct db *db, const char *sql, bool plain)
{
	bool implicit = db->implicit && plain;
	int rc;

	/* after DB_RETRY the caller may begin its rerun without a rollback */
	if (db->in_txn && !db->txn_lost)
		return log_error("database error: a transaction is already open");
	db->in_txn = false;
	db->txn_lost = false;
	/* implicit: the transaction began with the first statement since the last commit, or will */
	rc = implicit ? ensure_connected(db) : txn_query(db, sql);
	if (rc == DB_RETRY) {
		/* nothing done yet: a fresh connection can start it */
		rc = on_conn_lost(db, sql);
		if (rc == DB_OK && !implicit)
			rc = txn_query(db, sql);
		if (rc == DB_RETRY)
			rc = log_error("database unavailable: %s", db->err);
	}
	if (rc == DB_OK)
		db->in_txn = true;
	return rc;
}

int db_begin(struct db *db)
{
	return txn_start(db, "START TRANSACTION", true);
}

int db_begin_snapshot(struct db *db)
{
	return txn_start(db, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", false);
}

int db_commit(struct db *db)
{
	int rc;

	if (!db->in_txn)
		return log_error("database error: commit without a transaction");
	if (db->txn_lost) {
		db->in_txn = db->txn_lost = false;
		return DB_RETRY;
	}
	rc = txn_query(db, "COMMIT");
	db->open = false;
	if (rc == DB_RETRY) {
		/* whether the commit happened is unknown; the caller reruns */
		log_warn("database connection to %s lost at commit: %s", db->where, db->err);
		disconnect(db);
		if (connect_once(db, false) == 0)
			log_info("reconnected to the database on %s", db->where);
	}
	db->in_txn = db->txn_lost = false;
	return rc;
}

int db_savepoint(struct db *db, const char *name)
{
	char sql[80];

	if (!db->in_txn || db->txn_lost)
		return db->txn_lost ? DB_RETRY : log_error("database error: savepoint without a transaction");
	snprintf(sql, sizeof(sql), "SAVEPOINT %s", name);
	return txn_query(db, sql);
}

int db_rollback_to(struct db *db, const char *name)
{
	char sql[80];

	if (!db->in_txn || db->txn_lost)
		return DB_RETRY;
	snprintf(sql, sizeof(sql), "ROLLBACK TO SAVEPOINT %s", name);
	return txn_query(db, sql);
}

int db_rollback(struct db *db)
{
	bool lost = db->txn_lost;

	db->in_txn = db->txn_lost = false;
	if (lost || !db->mysql)
		return DB_OK;   /* the server rolled it back when the connection died */
	if (txn_query(db, "ROLLBACK") == DB_RETRY)
		disconnect(db);
	db->open = false;
	return DB_OK;
}

int db_set_implicit_transactions(struct db *db)
{
	if (db->implicit)
		return DB_OK;
	if (db->in_txn)
		return log_error("database error: implicit transactions asked inside a transaction");
	db->implicit = true;
	if (!db->mysql)
		return DB_OK;   /* the next connection is made so */
	if (mysql_query(db->mysql, DB_IMPLICIT_COMMAND) == 0 && mysql_autocommit(db->mysql, 0) == 0)
		return DB_OK;
	set_err(db, mysql_errno(db->mysql), mysql_error(db->mysql));
	log_warn("database connection to %s: cannot turn autocommit off (%s); connecting again",
		 db->where, db->err);
	disconnect(db);
	return DB_OK;
}

void db_end_request(struct db *db)
{
	if (!db || !db->implicit || !db->mysql || (!db->open && !db->in_txn))
		return;
	if (db->in_txn)
		log_warn("database: a transaction left open at the end of a request; rolled back");
	db_rollback(db);
}
