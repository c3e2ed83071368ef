/*
 * Schema upgrades: the files NNN_what.sql of an upgrade directory, applied
 * in order to a database whose schema_version is below NNN. MariaDB
 * commits DDL implicitly, so a file cannot be undone as a whole; recording
 * each version right after its file succeeds means a failed run leaves the
 * database at the last complete version, and a rerun starts from there.
 */
#include "db_upgrade.h"
#include "log.h"
#include "sbuf.h"

#include <ctype.h>
#include <dirent.h>

static int parse_name(const char *name, long *v)
{
	size_t n = strlen(name);

	if (n < 9 || !isdigit((unsigned char)name[0]) || !isdigit((unsigned char)name[1]) ||
	    !isdigit((unsigned char)name[2]) || name[3] != '_' ||
	    strcmp(name + n - 4, ".sql") != 0)
		return -1;
	*v = (name[0] - '0') * 100 + (name[1] - '0') * 10 + (name[2] - '0');
	return 0;
}

static int by_version(const void *a, const void *b)
{
	const struct db_upgrade_file *x = a, *y = b;

	return (x->version > y->version) - (x->version < y->version);
}

int db_upgrade_list(const char *dir, struct db_upgrade_file **out, size_t *n)
{
	struct db_upgrade_file *f = NULL;
	size_t nf = 0, i;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;       /* no upgrades shipped */
		return log_error("cannot read upgrade directory %s: %s", dir, strerror(errno));
	}
	while ((e = readdir(d)) != NULL) {
		long v;

		if (parse_name(e->d_name, &v) < 0)
			continue;
		ARRAY_GROW(f, nf);
		f[nf].version = v;
		f[nf].name = xstrdup(e->d_name);
		f[nf].path = xasprintf("%s/%s", dir, e->d_name);
		nf++;
	}
	closedir(d);
	if (nf > 1)
		qsort(f, nf, sizeof(*f), by_version);
	for (i = 1; i < nf; i++) {
		if (f[i].version == f[i - 1].version) {
			log_error("upgrade directory %s has two files for version %ld: %s and %s",
				  dir, f[i].version, f[i - 1].name, f[i].name);
			db_upgrade_list_free(f, nf);
			return -1;
		}
	}
	*out = f;
	*n = nf;
	return 0;
}

void db_upgrade_list_free(struct db_upgrade_file *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].path);
	}
	free(f);
}

long db_upgrade_latest(const struct db_upgrade_file *f, size_t n)
{
	long latest = DB_SCHEMA_VERSION;

	if (n && f[n - 1].version > latest)
		latest = f[n - 1].version;
	return latest;
}

/*
 * What a file says of itself -- its leading "-- " comment lines -- logged
 * once it ran, so the admin reads what changed (and what did not).
 */
static void say_what(const struct db_upgrade_file *f)
{
	FILE *in = fopen(f->path, "r");
	struct sbuf what = SBUF_INIT(4096);
	char line[512];

	while (in && fgets(line, sizeof(line), in) && !strncmp(line, "-- ", 3)) {
		line[strcspn(line, "\n")] = '\0';
		if (what.len)
			sbuf_addch(&what, ' ');
		sbuf_addstr(&what, line + 3);
	}
	if (in)
		fclose(in);
	if (what.len)
		log_info("%s: %s", f->name, sbuf_str(&what));
	sbuf_release(&what);
}

int db_upgrade_apply(struct db *db, const char *dir, long *from, long *to)
{
	struct db_upgrade_file *f;
	size_t n, i;
	long v;
	int rc = DB_OK;

	if (db_upgrade_list(dir, &f, &n) < 0)
		return DB_ERROR;
	rc = db_schema_version(db, &v);
	if (rc == DB_NOT_FOUND)
		rc = log_error("the database has no schema_version table: load schema.sql first");
	if (rc != DB_OK)
		goto out;
	*from = *to = v;
	if (v > db_upgrade_latest(f, n)) {
		rc = log_error("the database is at schema version %ld, newer than this wseq (%ld)",
			       v, db_upgrade_latest(f, n));
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (f[i].version <= v)
			continue;
		log_info("applying %s", f[i].path);
		if (db_run_sql_file(db, f[i].path) != DB_OK) {
			rc = log_error("upgrade %s failed; the database stays at version %ld",
				       f[i].name, *to);
			break;
		}
		rc = db_set_schema_version(db, f[i].version, f[i].name);
		if (rc != DB_OK)
			break;
		say_what(&f[i]);
		*to = f[i].version;
	}
out:
	db_upgrade_list_free(f, n);
	return rc;
}
