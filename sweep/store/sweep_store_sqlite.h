/*
 * What the embedded store (sweep_store_sqlite.c) shows beyond
 * sweep_store.h, for its tests: the schema version it writes, and the query
 * plan of each statement it runs (test_sweep_store.c checks that every one
 * reads through an index).
 */
#ifndef WSEQ_SWEEP_STORE_SQLITE_H
#define WSEQ_SWEEP_STORE_SQLITE_H

#include "sweep_store.h"

/* PRAGMA user_version of the files this build writes; a newer file is refused. */
#define SWEEP_STORE_SQLITE_VERSION 1
/* PRAGMA application_id: "wSwp", an SQLite file of something else is refused. */
#define SWEEP_STORE_SQLITE_APP_ID 0x77537770

/*
 * fn(name, sql, plan, arg) for each statement of the store st (opened with
 * sweep_store_open_sqlite()), plan its EXPLAIN QUERY PLAN lines joined by
 * newlines; fn returns non-zero to stop. 0, or -1 (logged).
 */
int sweep_store_sqlite_plans(struct sweep_store *st,
			     int (*fn)(const char *, const char *, const char *, void *), void *arg);

#endif
