/*
 * Finding and applying schema upgrade files (NNN_what.sql); used by the
 * db_upgrade tool and by tests.
 */
#ifndef WSEQ_DB_UPGRADE_H
#define WSEQ_DB_UPGRADE_H

#include "db.h"

struct db_upgrade_file {
	long version;
	char *name;     /* "002_add_x.sql" */
	char *path;
};

/* The files of dir sorted by version (a missing dir has none); -1 if unreadable. */
int db_upgrade_list(const char *dir, struct db_upgrade_file **out, size_t *n);
void db_upgrade_list_free(struct db_upgrade_file *f, size_t n);
/* The newest version known: DB_SCHEMA_VERSION or the highest file. */
long db_upgrade_latest(const struct db_upgrade_file *f, size_t n);
/*
 * Apply every file above the database's version, in order, recording each
 * version after its file ran. *from and *to get the versions before and
 * after (equal when nothing was pending).
 */
int db_upgrade_apply(struct db *db, const char *dir, long *from, long *to);

#endif
