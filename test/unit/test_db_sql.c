/*
 * Database layer checks that need no server: the SQL file splitter, the
 * table descriptors against the struct layouts and against schema.sql,
 * and the registry of named queries.
 */
#include "unit.h"
#include "db.h"
#include "db_records.h"
#include "db_queries.h"
#include "sbuf.h"

#include <ctype.h>

struct stmts {
	char *s[16];
	int n;
};

static int collect(const char *stmt, void *arg)
{
	struct stmts *c = arg;

	assert_true(c->n < 16);
	c->s[c->n++] = xstrdup(stmt);
	return 0;
}

static void free_stmts(struct stmts *c)
{
	while (c->n > 0)
		free(c->s[--c->n]);
}

/* Trimmed copy, to compare statements without their surrounding blanks. */
static char *trim(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

static void assert_stmt(const char *got, const char *want)
{
	char *t = trim(got);

	assert_string_equal(t, want);
	free(t);
}

static void test_split_quotes_and_comments(void **state)
{
	struct stmts c = { { 0 }, 0 };
	const char *sql =
		"-- a comment; with a semicolon\n"
		"CREATE TABLE a (x INT); # another; one\n"
		"INSERT INTO a VALUES ('it''s; fine'), ('back\\'slash;'), (\"dq;\");\n"
		"/* block ; comment */ SELECT `we;ird` FROM a;\n"
		";;  \n"
		"SELECT 1--1\n;\n"
		"SELECT 'no final semicolon'";

	assert_int_equal(db_sql_split(sql, collect, &c), 0);
	assert_int_equal(c.n, 5);
	assert_stmt(c.s[0], "-- a comment; with a semicolon\nCREATE TABLE a (x INT)");
	assert_stmt(c.s[1], "# another; one\nINSERT INTO a VALUES ('it''s; fine'), "
			    "('back\\'slash;'), (\"dq;\")");
	assert_stmt(c.s[2], "/* block ; comment */ SELECT `we;ird` FROM a");
	assert_stmt(c.s[3], "SELECT 1--1");
	assert_stmt(c.s[4], "SELECT 'no final semicolon'");
	free_stmts(&c);
}

static void test_split_only_comments_gives_nothing(void **state)
{
	struct stmts c = { { 0 }, 0 };

	assert_int_equal(db_sql_split("-- x;\n/* y; */\n# z;\n  ", collect, &c), 0);
	assert_int_equal(c.n, 0);
}

static size_t type_size(enum db_type t)
{
	switch (t) {
	case DB_T_INT: return sizeof(int);
	case DB_T_I64: return sizeof(int64_t);
	case DB_T_DOUBLE: return sizeof(double);
	case DB_T_STR: return sizeof(char *);
	}
	return 0;
}

/*
 * Laying the descriptor's members out in order with natural alignment must
 * give exactly the struct: a member missing from the descriptor, or one
 * with the wrong type, shifts an offset or the size.
 */
static void test_descriptors_cover_structs(void **state)
{
	size_t i, j;

	for (i = 0; i < db_ntables; i++) {
		const struct db_table *t = db_all_tables[i];
		size_t off = 0, align = 1, nid = 0, nkey = 0;

		for (j = 0; j < t->ncols; j++) {
			const struct db_column *c = &t->cols[j];
			size_t sz = type_size(c->type);

			off = (off + sz - 1) / sz * sz;
			if (c->offset != off)
				fail_msg("%s.%s: offset %zu, expected %zu (member missing from the "
					 "descriptor or out of order?)", t->name, c->name, c->offset, off);
			off += sz;
			if (sz > align)
				align = sz;
			nid += (c->flags & DB_COL_ID) != 0;
			nkey += (c->flags & DB_COL_KEY) != 0;
			if ((c->flags & DB_COL_ID) && c->type != DB_T_I64)
				fail_msg("%s.%s: id must be int64_t", t->name, c->name);
		}
		off = (off + align - 1) / align * align;
		if (off != t->size)
			fail_msg("%s: descriptor covers %zu bytes of %zu", t->name, off, t->size);
		if (!(nid == 1 && nkey == 0) && !(nid == 0 && nkey > 0))
			fail_msg("%s: needs one id column or key columns", t->name);
	}
}

static char *read_schema(void)
{
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/db/schema.sql", src ? src : ".");
	FILE *f = fopen(path, "r");
	struct sbuf b = SBUF_INIT(1 << 20);
	char line[1024];

	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f))
		assert_int_equal(sbuf_addstr(&b, line), 0);
	fclose(f);
	free(path);
	return sbuf_detach(&b, NULL);
}

/* The descriptor lists schema.sql's columns of each table, in order. */
static void test_descriptors_match_schema(void **state)
{
	char *schema = read_schema();
	size_t i, j;

	for (i = 0; i < db_ntables; i++) {
		const struct db_table *t = db_all_tables[i];
		char *head = xasprintf("CREATE TABLE `%s` (\n", t->name);
		char *p = strstr(schema, head), *end;

		if (!p)
			fail_msg("schema.sql has no table %s", t->name);
		p += strlen(head);
		end = strstr(p, "\n) ENGINE=InnoDB");
		assert_non_null(end);
		j = 0;
		while (p < end) {
			char word[128];
			size_t n = 0;

			while (*p == ' ')
				p++;
			while (p < end && (isalnum((unsigned char)*p) || *p == '_') && n < 127)
				word[n++] = *p++;
			word[n] = '\0';
			if (n && strcmp(word, "PRIMARY") && strcmp(word, "UNIQUE") &&
			    strcmp(word, "KEY")) {
				if (j >= t->ncols)
					fail_msg("%s: column %s is not in the descriptor", t->name, word);
				if (strcmp(word, t->cols[j].name) != 0)
					fail_msg("%s: schema column %s, descriptor has %s", t->name, word,
						 t->cols[j].name);
				j++;
			}
			p = strchr(p, '\n');
			if (!p)
				break;
			p++;
		}
		if (j != t->ncols)
			fail_msg("%s: schema has %zu columns, descriptor %zu", t->name, j, t->ncols);
		free(head);
	}
	free(schema);
}

static void test_queries_are_well_formed(void **state)
{
	size_t i, j;

	assert_true(db_nqueries >= 20);
	for (i = 0; i < db_nqueries; i++) {
		const struct db_query *q = db_queries[i];
		size_t marks = 0;
		char *sql = db_query_sql(q);

		for (j = 0; sql[j]; j++)
			marks += sql[j] == '?';
		if (marks != strlen(q->params))
			fail_msg("query %s has %zu placeholders but %zu parameter types", q->name,
				 marks, strlen(q->params));
		for (j = 0; j < i; j++)
			if (strcmp(db_queries[j]->name, q->name) == 0)
				fail_msg("two queries named %s", q->name);
		if (q->table && q->table->cols[0].flags & DB_COL_ID) {
			char *want = q->table->qualified ? xasprintf("SELECT `%s`.`id`,", q->table->name)
							 : xstrdup("SELECT `id`,");

			if (strncmp(sql, want, strlen(want)) != 0)
				fail_msg("query %s: %s", q->name, sql);
			free(want);
		}
		free(sql);
	}
}

static void test_query_sql_text(void **state)
{
	char *sql = db_query_sql(&dbq_seq_file_segment);

	assert_string_equal(sql, "SELECT `id`,`create_time`,`name`,`seq_id`,`branch`,`seqno`,"
			    "`kind`,`upload`,`uploaded`,`upload_time`,`nbytes`,`md5_cksum`,"
			    "`file_delete_state` FROM `seq_file` WHERE seq_id=? AND branch=? "
			    "AND seqno=? ORDER BY id");
	free(sql);
	sql = db_query_sql(&dbq_wu_transition);
	assert_non_null(strstr(sql, "UNIX_TIMESTAMP(`mod_time`)"));
	free(sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_quotes_and_comments),
		cmocka_unit_test(test_split_only_comments_gives_nothing),
		cmocka_unit_test(test_descriptors_cover_structs),
		cmocka_unit_test(test_descriptors_match_schema),
		cmocka_unit_test(test_queries_are_well_formed),
		cmocka_unit_test(test_query_sql_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
