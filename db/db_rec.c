/*
 * The one generic implementation of insert, update, lookup, delete and
 * enumerate for every table, driven by the table descriptors of
 * db_records.c. The SQL is generated from those static descriptors (column
 * names never come from data) and cached per connection as prepared
 * statements like any other.
 */
#include "db_internal.h"
#include "log.h"

#define SQL_MAX 16384

static void *field(void *rec, const struct db_column *c)
{
	return (char *)rec + c->offset;
}

static const void *cfield(const void *rec, const struct db_column *c)
{
	return (const char *)rec + c->offset;
}

static struct db_val col_val(const void *rec, const struct db_column *c)
{
	struct db_val v = { .type = c->type };

	switch (c->type) {
	case DB_T_INT:
		v.u.i = *(const int *)cfield(rec, c);
		break;
	case DB_T_I64:
		v.u.i = *(const int64_t *)cfield(rec, c);
		break;
	case DB_T_DOUBLE:
		v.u.d = *(const double *)cfield(rec, c);
		break;
	case DB_T_STR:
		v.u.s = *(char *const *)cfield(rec, c);
		break;
	}
	return v;
}

static bool is_key(const struct db_column *c)
{
	return c->flags & (DB_COL_ID | DB_COL_KEY);
}

const struct db_column *db_table_column(const struct db_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return &t->cols[i];
	return NULL;
}

void db_rec_release(const struct db_table *t, void *rec)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (t->cols[i].type == DB_T_STR) {
			char **s = field(rec, &t->cols[i]);
			free(*s);
			*s = NULL;
		}
	}
}

void db_select_cols(const struct db_table *t, struct sbuf *b)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		const char *q = t->qualified ? t->name : NULL;

		if (i)
			sbuf_addch(b, ',');
		if (t->cols[i].flags & DB_COL_EXPR)
			sbuf_addstr(b, t->cols[i].name);
		else
			sbuf_addf(b, "%s%s%s%s`%s`%s", t->cols[i].flags & DB_COL_MODTIME ? "UNIX_TIMESTAMP(" : "",
				  q ? "`" : "", q ? q : "", q ? "`." : "", t->cols[i].name,
				  t->cols[i].flags & DB_COL_MODTIME ? ")" : "");
	}
}

/* " WHERE `k1`=? AND `k2`=?" and the key values of rec. */
static size_t where_key(const struct db_table *t, const void *rec, struct sbuf *b,
			struct db_val *vals)
{
	size_t i, n = 0;

	for (i = 0; i < t->ncols; i++) {
		if (!is_key(&t->cols[i]))
			continue;
		sbuf_addf(b, "%s`%s`=?", n ? " AND " : " WHERE ", t->cols[i].name);
		vals[n++] = col_val(rec, &t->cols[i]);
	}
	return n;
}

/* ---- reading rows into records ------------------------------------------- */

int db_rowbind_init(struct db *db, MYSQL_STMT *stmt, const struct db_table *t,
		    struct db_rowbind *rb)
{
	size_t i, n = t->ncols;

	memset(rb, 0, sizeof(*rb));
	if (mysql_stmt_field_count(stmt) != n)
		return log_error("database error: %s query returns %u columns, record has %zu",
				 t->name, mysql_stmt_field_count(stmt), n);
	rb->t = t;
	rb->n = n;
	rb->bind = xcalloc(n, sizeof(*rb->bind));
	rb->len = xcalloc(n, sizeof(*rb->len));
	rb->is_null = xcalloc(n, sizeof(*rb->is_null));
	rb->error = xcalloc(n, sizeof(*rb->error));
	rb->i64 = xcalloc(n, sizeof(*rb->i64));
	rb->dbl = xcalloc(n, sizeof(*rb->dbl));
	for (i = 0; i < n; i++) {
		MYSQL_BIND *b = &rb->bind[i];

		b->length = &rb->len[i];
		b->is_null = &rb->is_null[i];
		b->error = &rb->error[i];
		switch (t->cols[i].type) {
		case DB_T_INT:
		case DB_T_I64:
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &rb->i64[i];
			break;
		case DB_T_DOUBLE:
			b->buffer_type = MYSQL_TYPE_DOUBLE;
			b->buffer = &rb->dbl[i];
			break;
		case DB_T_STR:
			/* length only: the bytes are fetched per row, see db_fetch_rec */
			b->buffer_type = MYSQL_TYPE_BLOB;
			b->buffer = NULL;
			b->buffer_length = 0;
			break;
		}
	}
	if (mysql_stmt_bind_result(stmt, rb->bind)) {
		db_rowbind_release(rb);
		return db_fail_(db, stmt, "binding result columns");
	}
	return DB_OK;
}

void db_rowbind_release(struct db_rowbind *rb)
{
	free(rb->bind);
	free(rb->len);
	free(rb->is_null);
	free(rb->error);
	free(rb->i64);
	free(rb->dbl);
	memset(rb, 0, sizeof(*rb));
}

int db_fetch_rec(struct db *db, MYSQL_STMT *stmt, struct db_rowbind *rb, void *rec)
{
	const struct db_table *t = rb->t;
	size_t i;
	int r;

	r = mysql_stmt_fetch(stmt);
	if (r == MYSQL_NO_DATA)
		return DB_NOT_FOUND;
	if (r == 1)
		return db_fail_(db, stmt, t->name);
	memset(rec, 0, t->size);
	for (i = 0; i < rb->n; i++) {
		const struct db_column *c = &t->cols[i];

		switch (c->type) {
		case DB_T_INT:
			if (!rb->is_null[i] && (rb->i64[i] < INT_MIN || rb->i64[i] > INT_MAX)) {
				db_rec_release(t, rec);
				return log_error("database error: %s.%s value %" PRId64
						 " does not fit an int", t->name, c->name, rb->i64[i]);
			}
			*(int *)field(rec, c) = rb->is_null[i] ? 0 : (int)rb->i64[i];
			break;
		case DB_T_I64:
			*(int64_t *)field(rec, c) = rb->is_null[i] ? 0 : rb->i64[i];
			break;
		case DB_T_DOUBLE:
			*(double *)field(rec, c) = rb->is_null[i] ? 0 : rb->dbl[i];
			break;
		case DB_T_STR: {
			unsigned long len = rb->is_null[i] ? 0 : rb->len[i];
			char *s = xmalloc(len + 1);

			if (len) {
				MYSQL_BIND b;

				memset(&b, 0, sizeof(b));
				b.buffer_type = MYSQL_TYPE_BLOB;
				b.buffer = s;
				b.buffer_length = len;
				if (mysql_stmt_fetch_column(stmt, &b, (unsigned)i, 0)) {
					free(s);
					db_rec_release(t, rec);
					return db_fail_(db, stmt, t->name);
				}
			}
			s[len] = '\0';
			*(char **)field(rec, c) = s;
			break;
		}
		}
	}
	return DB_OK;
}

/* Run a SELECT of t's columns and hand each row to fn. */
static int select_rows(struct db *db, const struct db_table *t, const char *sql,
		       const struct db_val *vals, size_t nvals,
		       int (*fn)(void *rec, void *arg), void *arg)
{
	struct db_stmt *s;
	struct db_rowbind rb;
	void *rec;
	int rc, r;

	rc = db_stmt_get(db, sql, &s);
	if (rc != DB_OK)
		return rc;
	rc = db_stmt_execute(db, &s, sql, vals, nvals);
	if (rc != DB_OK) {
		db_stmt_release(db, s);
		return rc;
	}
	/* buffer the rows so fn may run statements of its own */
	if (mysql_stmt_store_result(s->stmt)) {
		rc = db_fail_(db, s->stmt, sql);
		db_stmt_evict(db, s);
		db_stmt_release(db, s);
		return rc;
	}
	rc = db_rowbind_init(db, s->stmt, t, &rb);
	if (rc != DB_OK) {
		db_stmt_release(db, s);
		return rc;
	}
	rec = xcalloc(1, t->size);
	while ((rc = db_fetch_rec(db, s->stmt, &rb, rec)) == DB_OK) {
		r = fn(rec, arg);
		db_rec_release(t, rec);
		if (r) {
			rc = r < 0 ? DB_ERROR : DB_OK;
			break;
		}
	}
	if (rc == DB_NOT_FOUND)
		rc = DB_OK;
	free(rec);
	db_rowbind_release(&rb);
	db_stmt_release(db, s);
	return rc;
}

struct one_row {
	const struct db_table *t;
	void *rec;
	bool found;
};

static int take_one(void *rec, void *arg)
{
	struct one_row *o = arg;

	db_rec_release(o->t, o->rec);
	memcpy(o->rec, rec, o->t->size);
	memset(rec, 0, o->t->size);     /* the strings are ours now */
	o->found = true;
	return 1;
}

static int lookup_sql(struct db *db, const struct db_table *t, const char *sql,
		      const struct db_val *vals, size_t nvals, void *rec)
{
	struct one_row o = { t, rec, false };
	int rc = select_rows(db, t, sql, vals, nvals, take_one, &o);

	if (rc == DB_OK && !o.found)
		return DB_NOT_FOUND;
	return rc;
}

/* ---- the generic operations --------------------------------------------- */

int db_rec_insert(struct db *db, const struct db_table *t, void *rec)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	struct db_val *vals = xcalloc(t->ncols, sizeof(*vals));
	const struct db_column *idcol = NULL;
	size_t i, n = 0;
	int rc;

	sbuf_addf(&b, "INSERT INTO `%s` (", t->name);
	for (i = 0; i < t->ncols; i++) {
		const struct db_column *c = &t->cols[i];

		if (c->flags & DB_COL_MODTIME)
			continue;
		if (c->flags & DB_COL_ID) {
			idcol = c;
			/* an explicit id is kept (imports, tests); 0 lets the server choose */
			if (*(const int64_t *)field(rec, c) == 0)
				continue;
		}
		sbuf_addf(&b, "%s`%s`", n ? "," : "", c->name);
		vals[n++] = col_val(rec, c);
	}
	sbuf_addstr(&b, ") VALUES (");
	for (i = 0; i < n; i++)
		sbuf_addstr(&b, i ? ",?" : "?");
	sbuf_addch(&b, ')');
	rc = db_exec(db, sbuf_str(&b), vals, n, NULL);
	if (rc == DB_OK && idcol && *(int64_t *)field(rec, idcol) == 0)
		*(int64_t *)field(rec, idcol) = db_insert_id(db);
	sbuf_release(&b);
	free(vals);
	return rc;
}

/* The step between the ids of one multi-row INSERT; 0 if they may not be consecutive. */
static int autoinc_step(struct db *db, int64_t *step)
{
	int64_t mode = 0;
	int rc;

	if (db->autoinc_step) {
		*step = db->autoinc_step > 0 ? db->autoinc_step : 0;
		return DB_OK;
	}
	rc = db_select_i64(db, "SELECT @@innodb_autoinc_lock_mode", NULL, 0, &mode);
	if (rc == DB_OK)
		rc = db_select_i64(db, "SELECT @@auto_increment_increment", NULL, 0, step);
	if (rc != DB_OK)
		return rc;
	if (mode == 2 || *step < 1)
		*step = 0;
	db->autoinc_step = *step ? *step : -1;
	return DB_OK;
}

#define INSERT_CHUNK_MAX 64

int db_rec_insert_many(struct db *db, const struct db_table *t, void *recs, size_t size,
		       size_t n)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	struct db_val *vals = xcalloc(t->ncols * INSERT_CHUNK_MAX + 1, sizeof(*vals));
	const struct db_column *idcol = NULL;
	size_t done = 0, i, k, nv;
	int64_t step = 0;
	int rc = n ? autoinc_step(db, &step) : DB_OK;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].flags & DB_COL_ID)
			idcol = &t->cols[i];
	while (rc == DB_OK && done < n) {
		size_t chunk = INSERT_CHUNK_MAX;
		char *first = (char *)recs + done * size;

		if (!step || !idcol) {
			rc = db_rec_insert(db, t, first);
			done++;
			continue;
		}
		while (chunk > n - done)
			chunk /= 2;
		sbuf_reset(&b);
		sbuf_addf(&b, "INSERT INTO `%s` (", t->name);
		for (i = 0, nv = 0; i < t->ncols; i++) {
			const struct db_column *c = &t->cols[i];

			if (!(c->flags & (DB_COL_MODTIME | DB_COL_ID)))
				sbuf_addf(&b, "%s`%s`", nv++ ? "," : "", c->name);
		}
		sbuf_addstr(&b, ") VALUES ");
		for (k = 0, nv = 0; k < chunk; k++) {
			void *rec = first + k * size;

			bool first_col = true;

			sbuf_addstr(&b, k ? ",(" : "(");
			for (i = 0; i < t->ncols; i++) {
				const struct db_column *c = &t->cols[i];

				if (c->flags & (DB_COL_MODTIME | DB_COL_ID))
					continue;
				sbuf_addstr(&b, first_col ? "?" : ",?");
				first_col = false;
				vals[nv++] = col_val(rec, c);
			}
			sbuf_addch(&b, ')');
		}
		rc = db_exec(db, sbuf_str(&b), vals, nv, NULL);
		for (k = 0; rc == DB_OK && k < chunk; k++)
			*(int64_t *)field(first + k * size, idcol) = db_insert_id(db) + (int64_t)k * step;
		done += chunk;
	}
	sbuf_release(&b);
	free(vals);
	return rc;
}

int db_rec_update(struct db *db, const struct db_table *t, const void *rec)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	struct db_val *vals = xcalloc(t->ncols, sizeof(*vals));
	size_t i, n = 0;
	int64_t matched = 0;
	int rc;

	sbuf_addf(&b, "UPDATE `%s` SET ", t->name);
	for (i = 0; i < t->ncols; i++) {
		const struct db_column *c = &t->cols[i];

		if (is_key(c) || (c->flags & DB_COL_MODTIME))
			continue;
		sbuf_addf(&b, "%s`%s`=?", n ? "," : "", c->name);
		vals[n++] = col_val(rec, c);
	}
	if (n == 0) {
		/* only key columns: nothing to change, but the row must exist */
		int64_t count = 0;

		sbuf_reset(&b);
		n = where_key(t, rec, &b, vals);
		rc = db_rec_count(db, t, sbuf_str(&b) + 1, vals, n, &count);
		if (rc == DB_OK && count == 0)
			rc = DB_NOT_FOUND;
		goto out;
	}
	n += where_key(t, rec, &b, vals + n);
	rc = db_exec(db, sbuf_str(&b), vals, n, &matched);
	if (rc == DB_OK && matched == 0)
		rc = DB_NOT_FOUND;
out:
	sbuf_release(&b);
	free(vals);
	return rc;
}

int db_rec_lookup(struct db *db, const struct db_table *t, void *rec)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	struct db_val *vals = xcalloc(t->ncols, sizeof(*vals));
	size_t n;
	int rc;

	sbuf_addstr(&b, "SELECT ");
	db_select_cols(t, &b);
	sbuf_addf(&b, " FROM `%s`", t->name);
	n = where_key(t, rec, &b, vals);
	rc = lookup_sql(db, t, sbuf_str(&b), vals, n, rec);
	sbuf_release(&b);
	free(vals);
	return rc;
}

int db_rec_lookup_id(struct db *db, const struct db_table *t, int64_t id, void *rec)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (t->cols[i].flags & DB_COL_ID) {
			struct db_val v = DBV_INT(id);
			struct sbuf b = SBUF_INIT(SQL_MAX);
			int rc;

			sbuf_addstr(&b, "SELECT ");
			db_select_cols(t, &b);
			sbuf_addf(&b, " FROM `%s` WHERE `%s`=?", t->name, t->cols[i].name);
			rc = lookup_sql(db, t, sbuf_str(&b), &v, 1, rec);
			sbuf_release(&b);
			return rc;
		}
	}
	return log_error("database error: table %s has no id column", t->name);
}

int db_rec_lookup_by(struct db *db, const struct db_table *t, const char *col,
		     const char *value, void *rec)
{
	const struct db_column *c = db_table_column(t, col);
	struct sbuf b = SBUF_INIT(SQL_MAX);
	struct db_val v = DBV_STR(value);
	int rc;

	if (!c || !(c->flags & DB_COL_UNIQUE))
		return log_error("database error: %s.%s is not a unique column", t->name, col);
	sbuf_addstr(&b, "SELECT ");
	db_select_cols(t, &b);
	sbuf_addf(&b, " FROM `%s` WHERE `%s`=?", t->name, c->name);
	rc = lookup_sql(db, t, sbuf_str(&b), &v, 1, rec);
	sbuf_release(&b);
	return rc;
}

int db_rec_delete(struct db *db, const struct db_table *t, const void *rec)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	struct db_val *vals = xcalloc(t->ncols, sizeof(*vals));
	int64_t n_affected = 0;
	size_t n;
	int rc;

	sbuf_addf(&b, "DELETE FROM `%s`", t->name);
	n = where_key(t, rec, &b, vals);
	if (n == 0) {
		rc = log_error("database error: table %s has no key to delete by", t->name);
	} else {
		rc = db_exec(db, sbuf_str(&b), vals, n, &n_affected);
		if (rc == DB_OK && n_affected == 0)
			rc = DB_NOT_FOUND;
	}
	sbuf_release(&b);
	free(vals);
	return rc;
}

static int enum_sql(const struct db_table *t, const char *tail, struct sbuf *b)
{
	sbuf_addstr(b, "SELECT ");
	db_select_cols(t, b);
	sbuf_addf(b, " FROM `%s`", t->name);
	if (tail && *tail && (sbuf_addch(b, ' ') < 0 || sbuf_addstr(b, tail) < 0))
		return log_error("database error: SQL for %s too long", t->name);
	return 0;
}

/*
 * The SELECTs made by enum_sql, remembered for the process: a scheduler
 * runs the same few hundred times a second, and writing out a table's
 * column list each time, then comparing it with every cached statement's
 * text, cost more of its CPU than anything of its own. Keyed by the table
 * and the tail's text; at most MEMO_MAX of them (beyond, made each time).
 * The database layer is used by one thread a process (no wseq program
 * that opens a database starts threads).
 */
#define MEMO_MAX 1024
static struct memo {
	const struct db_table *t;
	char *tail, *sql;
} *memo;
static size_t nmemo;

static void memo_free(void)
{
	size_t i;

	for (i = 0; i < nmemo; i++) {
		free(memo[i].tail);
		free(memo[i].sql);
	}
	free(memo);
	memo = NULL;
	nmemo = 0;
}

static const char *memo_sql(const struct db_table *t, const char *tail)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	size_t i;

	tail = tail ? tail : "";
	for (i = 0; i < nmemo; i++)
		if (memo[i].t == t && strcmp(memo[i].tail, tail) == 0)
			return memo[i].sql;
	if (nmemo == MEMO_MAX || enum_sql(t, tail, &b) < 0) {
		sbuf_release(&b);
		return NULL;
	}
	if (!memo)
		atexit(memo_free);
	ARRAY_GROW(memo, nmemo);
	memo[nmemo].t = t;
	memo[nmemo].tail = xstrdup(tail);
	memo[nmemo].sql = sbuf_detach(&b, NULL);
	return memo[nmemo++].sql;
}

int db_rec_enum(struct db *db, const struct db_table *t, const char *tail,
		const struct db_val *vals, size_t nvals, db_row_fn fn, void *arg)
{
	const char *sql = memo_sql(t, tail);
	struct sbuf b = SBUF_INIT(SQL_MAX);
	int rc = DB_ERROR;

	if (sql)
		rc = select_rows(db, t, sql, vals, nvals, fn, arg);
	else if (enum_sql(t, tail, &b) == 0)
		rc = select_rows(db, t, sbuf_str(&b), vals, nvals, fn, arg);
	sbuf_release(&b);
	return rc;
}

int db_ids_add(void *ids, int64_t id)
{
	struct db_ids *l = ids;

	ARRAY_GROW(l->v, l->n);
	l->v[l->n++] = id;
	return 0;
}

int db_rows_take(void *rec, void *rows)
{
	struct db_rows *l = rows;
	char *v;

	if (l->max && *l->n >= l->max)
		return 1;
	memcpy(&v, l->arr, sizeof(v));
	v = array_grow(v, *l->n, l->size);
	memcpy(v + *l->n * l->size, rec, l->size);
	memset(rec, 0, l->size);        /* the strings are the array's now */
	memcpy(l->arr, &v, sizeof(v));
	(*l->n)++;
	return 0;
}

int db_rec_list(struct db *db, const struct db_table *t, const char *tail,
		const struct db_val *vals, size_t nvals, void **out, size_t *n)
{
	void *items = NULL;
	size_t count = 0;
	struct db_rows rows = { &items, &count, t->size, 0 };
	int rc = db_rec_enum(db, t, tail, vals, nvals, db_rows_take, &rows);

	if (rc != DB_OK) {
		db_rec_list_free(t, items, count);
		items = NULL;
		count = 0;
	}
	*out = items;
	*n = count;
	return rc;
}

void db_rec_list_free(const struct db_table *t, void *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		db_rec_release(t, (char *)list + i * t->size);
	free(list);
}

int db_rec_count(struct db *db, const struct db_table *t, const char *tail,
		 const struct db_val *vals, size_t nvals, int64_t *count)
{
	struct sbuf b = SBUF_INIT(SQL_MAX);
	int rc = DB_ERROR;

	sbuf_addf(&b, "SELECT COUNT(*) FROM `%s`", t->name);
	if (!tail || !*tail || (sbuf_addch(&b, ' ') == 0 && sbuf_addstr(&b, tail) == 0))
		rc = db_select_i64(db, sbuf_str(&b), vals, nvals, count);
	sbuf_release(&b);
	return rc;
}
