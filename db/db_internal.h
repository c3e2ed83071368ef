/*
 * What the files of db/ share and nobody else sees: the connection struct,
 * the statement cache, and the bind helpers. Only db/ is built with
 * MYSQL_CFLAGS, so only db/ may include this header.
 */
#ifndef WSEQ_DB_INTERNAL_H
#define WSEQ_DB_INTERNAL_H

#include "db.h"
#include "sbuf.h"

#include <mysql.h>

#define DB_STMT_CACHE_MAX 256
#define DB_ERR_MAX 1024

struct db_stmt {
	char *sql;
	const char *asked;      /* the pointer it was prepared for: looked for first */
	MYSQL_STMT *stmt;
	bool busy;              /* in use: a nested use of the same SQL prepares anew */
	bool cached;            /* in db->cache; else freed on release */
};

struct db {
	MYSQL *mysql;           /* NULL while disconnected */
	struct db_params p;     /* our own copies of the strings */
	char *where;            /* "socket /x/y" or "host:port" for messages */
	bool in_txn;
	bool txn_lost;          /* connection lost inside the transaction */
	bool implicit;          /* db_set_implicit_transactions(): autocommit off */
	bool open;              /* implicit: a statement ran since the last commit or rollback */
	unsigned err_no;
	char err[DB_ERR_MAX];
	struct db_stmt *cache[DB_STMT_CACHE_MAX];
	size_t ncache;
	int64_t last_insert_id;
	int64_t autoinc_step;   /* ids of one multi-row INSERT: 0 unknown, -1 not consecutive */
};

/* Record the error of mysql or of stmt (NULL: of db->mysql), log it, return DB_ERROR. */
int db_fail_(struct db *db, MYSQL_STMT *stmt, const char *what);
/* Whether a MariaDB client error number means the connection is gone. */
bool db_conn_lost_errno(unsigned e);

/*
 * A prepared statement for sql, from the cache or prepared now (reconnecting
 * first if needed). release it with db_stmt_release when done.
 */
int db_stmt_get(struct db *db, const char *sql, struct db_stmt **out);
void db_stmt_release(struct db *db, struct db_stmt *s);
/* After an error on s: not to be used again (db_stmt_release then closes it). */
void db_stmt_evict(struct db *db, struct db_stmt *s);

/*
 * Execute s with vals bound. On a lost connection: inside a transaction
 * return DB_RETRY, outside reconnect, re-prepare and try once more (s may
 * then have been replaced: *sp is updated).
 */
int db_stmt_execute(struct db *db, struct db_stmt **sp, const char *sql,
		    const struct db_val *vals, size_t nvals);

/*
 * Result binding into a record of table t (cols NULL: every column of t).
 * db_fetch_rec reads one row into rec (strings allocated); returns DB_OK,
 * DB_NOT_FOUND at the end, or DB_ERROR.
 */
struct db_rowbind {
	const struct db_table *t;
	size_t n;
	MYSQL_BIND *bind;
	unsigned long *len;
	my_bool *is_null;
	my_bool *error;
	int64_t *i64;
	double *dbl;
};
int db_rowbind_init(struct db *db, MYSQL_STMT *stmt, const struct db_table *t,
		    struct db_rowbind *rb);
int db_fetch_rec(struct db *db, MYSQL_STMT *stmt, struct db_rowbind *rb, void *rec);
void db_rowbind_release(struct db_rowbind *rb);

/* The column list of t for a SELECT (mod_time as UNIX_TIMESTAMP(mod_time)). */
void db_select_cols(const struct db_table *t, struct sbuf *b);

/*
 * Statements over a batch of up to DB_SEQ_BATCH (32) sequences or rows: Q32
 * placeholders typed I32; db_batch_vals fills them with ids[0..n) and the
 * unused ones with ids[0] again (-1, logged, if n is 0 or too many).
 */
#define Q4 "?,?,?,?"
#define Q32 Q4 "," Q4 "," Q4 "," Q4 "," Q4 "," Q4 "," Q4 "," Q4
#define I32 "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii"
int db_batch_vals(struct db_val *v, const int64_t *ids, size_t n);

#endif
