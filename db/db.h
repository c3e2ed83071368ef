/*
 * The database layer: one connection to the project's MariaDB, prepared
 * statements with typed binds, transactions, and transparent reconnection.
 * Nothing outside db/ includes mysql.h or writes SQL; the rest of wseq uses
 * the record types of db_records.h and the named queries of db_queries.h,
 * both built on the generic machinery declared here.
 *
 * Functions return enum db_rc: DB_OK, DB_NOT_FOUND (a lookup matched no
 * row), DB_RETRY (the connection was lost inside a transaction: it has been
 * rolled back; rerun the whole transaction), DB_ERROR (logged).
 *
 * Reconnection: when the server goes away, the next call reconnects and
 * prepares its statements again. Outside a transaction a statement that
 * failed because the connection was lost is retried once on the new
 * connection (so a non-idempotent change that must happen exactly once
 * belongs in a transaction). A database that cannot be reached gives
 * "database unavailable: ..." in the log and DB_ERROR (DB_RETRY inside a
 * transaction); a later call tries again.
 */
#ifndef WSEQ_DB_H
#define WSEQ_DB_H

#include "common.h"

/* The schema version this code expects (schema.sql and db/upgrade/ agree). */
#define DB_SCHEMA_VERSION 19

enum db_rc { DB_OK = 0, DB_NOT_FOUND = 1, DB_RETRY = 2, DB_ERROR = -1 };

struct project_config;
struct db;

/* Where the database is. NULL or "" strings and port 0 mean "not given". */
struct db_params {
	const char *name, *user, *passwd, *host, *socket;
	long port;
};

/* The strings point into c; c must outlive p. */
void db_params_from_config(struct db_params *p, const struct project_config *c);
/* From WSEQ_DB_NAME, _USER, _PASSWD, _HOST, _PORT, _SOCKET (test programs). */
void db_params_from_env(struct db_params *p);

/*
 * Connect, retrying with back-off for up to max_wait_s seconds (0: one
 * try). The socket wins over host:port when both are given. The session
 * uses utf8mb4, autocommit and strict SQL mode. On failure *out is NULL and
 * the error (host or socket and the server's message) is logged.
 */
int db_open(struct db **out, const struct db_params *p, double max_wait_s);
void db_close(struct db *db);
/* The last error's text ("" if none); valid until the next call. */
const char *db_error(struct db *db);
/* The last error's MariaDB number (0 if none), e.g. 1062 duplicate key. */
unsigned db_errno(struct db *db);
/* Was the last error a deadlock (InnoDB rolled the whole transaction back)? */
bool db_deadlock(struct db *db);
/* DB_OK if the server answers (reconnecting if needed). */
int db_ping(struct db *db);

int db_begin(struct db *db);
/*
 * A read-only transaction every read of which sees the database as it was
 * when it began (a consistent snapshot): long reports that must agree with
 * themselves. End it with db_commit().
 */
int db_begin_snapshot(struct db *db);
int db_commit(struct db *db);
int db_rollback(struct db *db);
/*
 * A savepoint in the open transaction (name: an SQL identifier), and back
 * to it. db_rollback_to() fails when the server has rolled the whole
 * transaction back meanwhile (a deadlock's victim): then nothing of it
 * stands, and the caller must roll back and rerun it.
 */
int db_savepoint(struct db *db, const char *name);
/*
 * For a server answering request after request on one connection (the
 * scheduler): autocommit off and READ COMMITTED, here and after every
 * reconnect. A transaction then needs no START TRANSACTION -- its first
 * statement begins it; db_begin() only marks that the caller holds it --
 * and each statement sees what was committed when it ran. Call
 * db_end_request() after each request: what a request left open (reads
 * before a refusal, a forgotten transaction) is rolled back, so nothing
 * carries into the next.
 */
int db_set_implicit_transactions(struct db *db);
void db_end_request(struct db *db);
int db_rollback_to(struct db *db, const char *name);
bool db_in_transaction(const struct db *db);

/* CREATE DATABASE p->name (utf8mb4), dropping it first if asked. */
int db_create_database(const struct db_params *p, bool drop_first);
/* Run every statement of an SQL file of our own (schema, upgrades) as text. */
int db_load_schema(struct db *db, const char *schema_sql_path);
int db_run_sql_file(struct db *db, const char *path);
/* MAX(version) of schema_version; DB_ERROR if the table is missing. */
int db_schema_version(struct db *db, long *v);
/* Record version v (after its upgrade file ran). */
int db_set_schema_version(struct db *db, long v, const char *description);

/*
 * A user account (name, email, authenticator) allowed to submit and manage
 * jobs of every app (user + user_submit rows, one transaction).
 */
int db_make_admin(struct db *db, const char *name, const char *email_addr,
		  const char *authenticator);

/*
 * Splitting an SQL file into statements: at each ';' outside quotes and
 * comments. Calls fn(statement, arg) with comments left in; stops at the
 * first nonzero return. Exposed for the unit test.
 */
int db_sql_split(const char *text, int (*fn)(const char *stmt, void *arg), void *arg);

/* ---- typed values for the ? placeholders of a statement ---------------- */

enum db_type {
	DB_T_INT = 1,   /* int, SQL INT */
	DB_T_I64,       /* int64_t, SQL BIGINT: ids and times */
	DB_T_DOUBLE,    /* double */
	DB_T_STR,       /* char *, allocated (NULL reads as ""), VARCHAR or BLOB */
};

struct db_val {
	enum db_type type;
	union {
		int64_t i;
		double d;
		const char *s;
	} u;
};

#define DBV_INT(x) ((struct db_val){ .type = DB_T_I64, .u.i = (int64_t)(x) })
#define DBV_DBL(x) ((struct db_val){ .type = DB_T_DOUBLE, .u.d = (double)(x) })
#define DBV_STR(x) ((struct db_val){ .type = DB_T_STR, .u.s = (x) })

/* ---- tables described once ------------------------------------------------ */

enum db_col_flags {
	DB_COL_ID = 1 << 0,      /* AUTO_INCREMENT primary key (int64_t); insert sets it */
	DB_COL_KEY = 1 << 1,     /* part of a primary key the caller supplies */
	DB_COL_MODTIME = 1 << 2, /* TIMESTAMP kept by the server; read as unix time */
	DB_COL_UNIQUE = 1 << 3,  /* has a UNIQUE index of its own: db_rec_lookup_by() */
	DB_COL_EXPR = 1 << 4,    /* read-only projections: name is an SQL expression */
};

struct db_column {
	const char *name;        /* SQL column name = struct member name */
	enum db_type type;
	size_t offset;
	int flags;
};

struct db_table {
	const char *name;
	size_t size;             /* sizeof the record struct */
	const struct db_column *cols;
	size_t ncols;
	bool qualified;          /* columns named `table`.`column`: a query joining another table */
};

/* Returns 0 to go on, 1 to stop (DB_OK), -1 to stop with DB_ERROR. */
typedef int (*db_row_fn)(void *rec, void *arg);

/*
 * The one row collector: rows of an enumeration moved into a growing array
 * (strings and all; the enumerator's record is left zeroed). Give
 * db_rows_take (or, where the enumerator is typed, a DB_ROWS_TAKER) as the
 * callback and a struct db_rows as its argument.
 */
struct db_rows {
	void *arr;      /* the address of the array's pointer (&list.v) */
	size_t *n;      /* the array's count */
	size_t size;    /* bytes a record */
	size_t max;     /* stop (DB_OK) once *n reaches it; 0: no bound */
};
#define DB_ROWS(v, n, max) { &(v), &(n), sizeof(*(v)), (max) }
int db_rows_take(void *rec, void *rows);
/* Ids collected from an enumeration: a callback returns db_ids_add(ids, rec->id). */
struct db_ids {
	int64_t *v;
	size_t n;
};
int db_ids_add(void *ids, int64_t id);
/* static int name(type *rec, void *rows): db_rows_take for a typed enumerator. */
#define DB_ROWS_TAKER(name, type) \
	static int name(type *rec, void *rows) { return db_rows_take(rec, rows); }

/*
 * Generic operations on records of table t. Strings of a record are
 * allocated: db_rec_release() releases them (the struct itself is the caller's).
 * Lookups overwrite *rec (freeing its strings first).
 */
int db_rec_insert(struct db *db, const struct db_table *t, void *rec);
/*
 * Insert the n records of the array recs (each size bytes, ids 0) with few
 * multi-row statements (chunks of 2^k rows, so few distinct statements are
 * prepared), setting their ids -- or one by one where the server does not
 * promise consecutive ids (innodb_autoinc_lock_mode 2).
 */
int db_rec_insert_many(struct db *db, const struct db_table *t, void *recs, size_t size,
		       size_t n);
/* By primary key; DB_NOT_FOUND if no row has it. */
int db_rec_update(struct db *db, const struct db_table *t, const void *rec);
int db_rec_lookup(struct db *db, const struct db_table *t, void *rec);  /* key fields set in rec */
int db_rec_lookup_id(struct db *db, const struct db_table *t, int64_t id, void *rec);
/* col must be one of t's DB_COL_UNIQUE columns (checked). */
int db_rec_lookup_by(struct db *db, const struct db_table *t, const char *col,
		     const char *value, void *rec);
int db_rec_delete(struct db *db, const struct db_table *t, const void *rec);
/*
 * For each row of "SELECT <t's columns> FROM t <tail>" call fn with a record
 * owned by the enumerator (fn may take a string by setting the member to
 * NULL). tail is static SQL ("WHERE appid=? ORDER BY id LIMIT ?") whose
 * placeholders are bound from vals; never put data into it.
 */
int db_rec_enum(struct db *db, const struct db_table *t, const char *tail,
		const struct db_val *vals, size_t nvals, db_row_fn fn, void *arg);
/* The same rows as an allocated array (db_rec_list_free releases it). */
int db_rec_list(struct db *db, const struct db_table *t, const char *tail,
		const struct db_val *vals, size_t nvals, void **out, size_t *n);
void db_rec_list_free(const struct db_table *t, void *list, size_t n);
int db_rec_count(struct db *db, const struct db_table *t, const char *tail,
		 const struct db_val *vals, size_t nvals, int64_t *count);
void db_rec_release(const struct db_table *t, void *rec);
const struct db_column *db_table_column(const struct db_table *t, const char *name);

/* ---- statements ------------------------------------------------------------ */

/*
 * Run a statement that returns no rows; *affected (may be NULL) gets the
 * number of rows it matched (UPDATE counts rows found, not only changed).
 */
int db_exec(struct db *db, const char *sql, const struct db_val *vals, size_t nvals,
	    int64_t *affected);
/* The id the last INSERT generated. */
int64_t db_insert_id(struct db *db);
/* A one-row, one-column integer SELECT; DB_NOT_FOUND if no row, NULL reads 0. */
int db_select_i64(struct db *db, const char *sql, const struct db_val *vals, size_t nvals,
		  int64_t *out);

#endif
