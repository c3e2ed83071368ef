/*
 * Inside the embedded sweep store: what its two files share.
 * sweep_store_sqlite_file.c keeps the file -- its schema, the statements,
 * binding values and reading rows, transactions, opening and closing;
 * sweep_store_sqlite.c the calls of sweep_store.h on it (sq_ops).
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

/*
 * One column of a row read into a place: SQ_INT64, SQ_INT, SQ_BOOL (not 0),
 * SQ_SIZE, SQ_STATE (a ticket state) and SQ_TEXT (a new string, NULL when
 * NULL); a NULL place skips its column. A query gets them as SQ_COLS(...),
 * one a column of its SELECT, in order. The place's type is checked.
 */
struct sq_col {
	char type;
	void *p;
};
#define SQ_COL(type, ctype, p) { (type), (void *)(1 ? (p) : (ctype *)NULL) }
#define SQ_INT64(p) SQ_COL('l', int64_t, p)
#define SQ_INT(p) SQ_COL('i', int, p)
#define SQ_BOOL(p) SQ_COL('b', bool, p)
#define SQ_SIZE(p) SQ_COL('z', size_t, p)
#define SQ_STATE(p) SQ_COL('e', enum sweep_ticket_state, p)
#define SQ_TEXT(p) SQ_COL('s', char *, p)
#define SQ_COLS(...) (const struct sq_col[]){ __VA_ARGS__ }, \
	ARRAY_SIZE(((const struct sq_col[]){ __VA_ARGS__ }))

/* What to do after a row's columns were read: 0 go on, else stop. */
typedef int (*sq_row_fn)(void *);
/*
 * Query q with vals bound: each row's columns read into cols (all the
 * query's, or none), then fn(arg) -- with fn NULL, the first row only.
 * 1 when stopped at a row, 0 at the end, or ERROR (logged).
 */
int sq_rows(struct sq *s, enum sq_query q, const struct sq_val *v, size_t nv,
	    const struct sq_col *c, size_t nc, sq_row_fn fn, void *arg);
/* The first row of query q read into cols: 1, 0 when it has none, or ERROR. */
int sq_row(struct sq *s, enum sq_query q, const struct sq_val *v, size_t nv,
	   const struct sq_col *c, size_t nc);
/* Run a statement that returns no row: the rows it changed, or ERROR. */
int64_t sq_exec(struct sq *s, enum sq_query q, const struct sq_val *v, size_t n);

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
