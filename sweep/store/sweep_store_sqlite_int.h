/*
 * Inside the embedded sweep store: what its two files share.
 * sweep_store_sqlite_file.c keeps the file -- its schema, the statements,
 * binding, transactions, opening and closing; sweep_store_sqlite.c the
 * calls of sweep_store.h on it (sq_ops).
 */
#ifndef WSEQ_SWEEP_STORE_SQLITE_INT_H
#define WSEQ_SWEEP_STORE_SQLITE_INT_H

#include "sweep_store_sqlite.h"

#include <pthread.h>
#include <sqlite3.h>

/* The statements, by name (sweep_store_sqlite_file.c has their SQL). */
enum sq_query {
	Q_SESSION_NEW, Q_TASK_NEW, Q_TICKET_NEW, Q_SESSION, Q_NEXT, Q_SEND, Q_TICKET, Q_REPORT,
	Q_DUE_OF_TICKET, Q_TIMEOUT_DUE, Q_TIMEOUT, Q_DUE_NEXT, Q_TASK_COUNTS, Q_CANCEL,
	Q_TASK_FAIL, Q_TASK_SETTLED, Q_SESSION_ADD, Q_RETURNED, Q_JUDGE_OF, Q_JUDGED,
	Q_CANONICAL, Q_TASK_DUE, Q_TASKS, Q_ENDED, Q_COUNTS, Q_RUNNING, Q_WAITING, Q_N
};

struct sq {
	struct sweep_store base;
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[Q_N];
	pthread_mutex_t lock;
};

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

/* ERROR, logged with SQLite's reason and what was being done. */
int sq_fail(struct sq *s, const char *what);
/* Statement q, prepared once, with vals bound; NULL when that failed (logged). */
sqlite3_stmt *sq_bind(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n);
/* The next row of st: 1, 0 at the end (st reset), or ERROR (logged, st reset). */
int sq_step(struct sq *s, sqlite3_stmt *st);
/* Done with st before its last row. */
void sq_end(sqlite3_stmt *st);
/* Run a statement that returns no row: the rows it changed, or ERROR. */
int64_t sq_exec(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n);
/* A query's single integer (0 when it has no row), or ERROR. */
int sq_int(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n, int64_t *out);
/* Column i as a new string, NULL when NULL. */
char *sq_col_str(sqlite3_stmt *st, int i);

/*
 * body in one transaction (write: BEGIN IMMEDIATE, which takes the write
 * lock first, so two writers never deadlock): committed unless it returned
 * ERROR, then rolled back. Calls take turns on the handle's mutex.
 */
typedef int (*sq_body)(struct sq *, void *);
int sq_txn(struct sq *s, bool write, sq_body body, void *arg);

/* The calls (sweep_store_sqlite.c); close is the file's. */
extern const struct sweep_store_ops sq_ops;
void sq_close(struct sweep_store *st);

#endif
