/*
 * Creating a project's database and running our own SQL files in it: the
 * schema and the upgrades. These are the only statements sent as text;
 * they come from files shipped with wseq, never from data.
 */
#include "db_internal.h"
#include "log.h"
#include "wtime.h"

#include <mysqld_error.h>
#include <sys/stat.h>

#define SQL_FILE_MAX (16 * 1024 * 1024)

int db_sql_split(const char *text, int (*fn)(const char *stmt, void *arg), void *arg)
{
	const char *p = text, *start = text;
	bool content = false;   /* anything but blanks and comments since start */
	int r;

	while (*p) {
		char c = *p;

		if (c == '\'' || c == '"' || c == '`') {
			p++;
			while (*p && *p != c) {
				if (*p == '\\' && c != '`' && p[1])
					p++;
				p++;
			}
			if (*p)
				p++;
			content = true;
		} else if (c == '#' || (c == '-' && p[1] == '-' &&
					(p[2] == ' ' || p[2] == '\t' || p[2] == '\n' || !p[2]))) {
			while (*p && *p != '\n')
				p++;
		} else if (c == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(*p == '*' && p[1] == '/'))
				p++;
			if (*p)
				p += 2;
		} else if (c == ';') {
			if (content) {
				char *s = xstrndup(start, (size_t)(p - start));

				r = fn(s, arg);
				free(s);
				if (r)
					return r;
			}
			content = false;
			start = ++p;
		} else {
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
				content = true;
			p++;
		}
	}
	if (content)
		return fn(start, arg);
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *buf;
	size_t n;

	if (!f) {
		log_error("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0 || st.st_size > SQL_FILE_MAX) {
		log_error("%s: not a readable file of at most %d bytes", path, SQL_FILE_MAX);
		fclose(f);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		log_error("%s: contains a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
}

struct run_ctx {
	struct db *db;
	const char *path;
	int n;
};

static int run_one(const char *stmt, void *arg)
{
	struct run_ctx *c = arg;
	MYSQL *m = c->db->mysql;
	MYSQL_RES *res;

	c->n++;
	if (mysql_real_query(m, stmt, (unsigned long)strlen(stmt))) {
		unsigned e = mysql_errno(m);

		db_fail_(c->db, NULL, c->path);
		if (db_conn_lost_errno(e))
			return log_error("database unavailable while running %s", c->path);
		return log_error("%s: statement %d failed: %.200s", c->path, c->n, stmt);
	}
	do {
		res = mysql_store_result(m);
		if (res)
			mysql_free_result(res);
	} while (mysql_next_result(m) == 0);
	return 0;
}

int db_run_sql_file(struct db *db, const char *path)
{
	struct run_ctx c = { db, path, 0 };
	char *text;
	int r;

	if (db_ping(db) != DB_OK)
		return DB_ERROR;
	if (db->in_txn)
		return log_error("database error: %s cannot run inside a transaction", path);
	text = read_file(path);
	if (!text)
		return DB_ERROR;
	r = db_sql_split(text, run_one, &c);
	free(text);
	return r ? DB_ERROR : DB_OK;
}

int db_load_schema(struct db *db, const char *schema_sql_path)
{
	long v;

	if (db_run_sql_file(db, schema_sql_path) != DB_OK)
		return DB_ERROR;
	if (db_schema_version(db, &v) != DB_OK)
		return log_error("%s did not record a schema version", schema_sql_path);
	log_info("loaded %s: schema version %ld", schema_sql_path, v);
	return DB_OK;
}

static bool valid_db_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

int db_create_database(const struct db_params *p, bool drop_first)
{
	struct db_params server = *p;
	struct db *db;
	char *sql;
	int rc = DB_OK;

	/* a name is an identifier, not a value: it cannot be bound, so it is checked */
	if (!valid_db_name(p->name))
		return log_error("bad database name '%s': use letters, digits and _",
				 p->name ? p->name : "");
	server.name = NULL;
	if (db_open(&db, &server, 0) != DB_OK)
		return DB_ERROR;
	if (drop_first) {
		sql = xasprintf("DROP DATABASE IF EXISTS `%s`", p->name);
		if (mysql_query(db->mysql, sql))
			rc = db_fail_(db, NULL, "DROP DATABASE");
		free(sql);
	}
	if (rc == DB_OK) {
		sql = xasprintf("CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
				p->name);
		if (mysql_query(db->mysql, sql)) {
			if (mysql_errno(db->mysql) == ER_DB_CREATE_EXISTS)
				rc = log_error("database %s already exists (drop_db_first replaces it)",
					       p->name);
			else
				rc = db_fail_(db, NULL, "CREATE DATABASE");
		}
		free(sql);
	}
	db_close(db);
	return rc;
}

int db_schema_version(struct db *db, long *v)
{
	int64_t n;
	int rc;

	*v = 0;
	rc = db_select_i64(db, "SELECT COUNT(*) FROM information_schema.tables "
			   "WHERE table_schema=DATABASE() AND table_name='schema_version'",
			   NULL, 0, &n);
	if (rc != DB_OK)
		return rc;
	if (n == 0)
		return DB_NOT_FOUND;
	rc = db_select_i64(db, "SELECT MAX(version) FROM schema_version", NULL, 0, &n);
	if (rc == DB_OK)
		*v = (long)n;
	return rc;
}

int db_set_schema_version(struct db *db, long v, const char *description)
{
	struct db_val vals[] = { DBV_INT(v), DBV_INT(now()), DBV_STR(description) };

	return db_exec(db, "INSERT INTO schema_version (version, applied_time, description) "
		       "VALUES (?, ?, ?)", vals, ARRAY_SIZE(vals), NULL);
}
