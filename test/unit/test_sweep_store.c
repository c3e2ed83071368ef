/*
 * The embedded sweep store (sweep/store/sweep_store_sqlite.c): the
 * conformance suite on a temporary file, then what only a file has --
 * reopening, refusing files it cannot read, a second process on the same
 * file, a kill -9 between calls, and an index under every statement.
 */
#include "unit.h"
#include "sweep_store_conf.h"
#include "sweep_store_sqlite.h"

#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

static char dir[] = "/tmp/test_sweep_store.XXXXXX";    /* not the master's wseq-sweep-PID.* */
static unsigned nfiles;

/* A new file name in the test's directory (free it). */
static char *new_path(void)
{
	return xasprintf("%s/store-%u.db", dir, ++nfiles);
}

static struct sweep_store *open_ok(const char *path)
{
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_store *st = sweep_store_open_sqlite(path, &err);

	if (!st)
		fail_msg("%s", sbuf_str(&err));
	sbuf_release(&err);
	return st;
}

/* The reason opening path fails (free it); fails the test if it opens. */
static char *open_refused(const char *path)
{
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_store *st = sweep_store_open_sqlite(path, &err);

	if (st) {
		sweep_store_close(st);
		fail_msg("%s opened", path);
	}
	return sbuf_detach(&err, NULL);
}

static struct sweep_store *fresh(void *arg)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);

	free(path);
	return st;
}

static void test_conformance(void **state)
{
	struct sweep_store_conf c = { .fresh = fresh, .prefix = "# " };

	assert_int_equal(sweep_store_conformance(&c), 0);
}

/* A session of n tasks (MaxAssign 1, MaxTotal 2, Timeout 60) named sid. */
static int64_t make_session(struct sweep_store *st, const char *sid, size_t n)
{
	struct sweep_task_new *t = xcalloc(n, sizeof(*t));
	int64_t id = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = (struct sweep_task_new){ i + 1, "Command=x\n", 60, 1, 2 };
	assert_int_equal(sweep_store_create(st, sid, "s.spec", t, n), SWEEP_STORE_OK);
	assert_int_equal(sweep_store_session(st, sid, &id, NULL), SWEEP_STORE_OK);
	free(t);
	return id;
}

static int claim(struct sweep_store *st, int64_t session, const char *name, size_t *row)
{
	struct sweep_claim c = { 0 };
	int rc = sweep_store_next(st, session, name, 1000, "host=h\n", &c);

	*row = c.row;
	sweep_claim_release(&c);
	return rc;
}

static enum sweep_ticket_state state_of(struct sweep_store *st, int64_t session, const char *name)
{
	struct sweep_ticket t = { 0 };
	enum sweep_ticket_state state;

	assert_int_equal(sweep_store_ticket(st, session, name, &t), SWEEP_STORE_OK);
	state = t.state;
	sweep_ticket_release(&t);
	return state;
}

static void test_reopen(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	struct sweep_ticket t = { 0 };
	struct sweep_counts c;
	int64_t s = make_session(st, "aa", 3), again = 0;
	size_t row;
	bool taken;

	assert_int_equal(claim(st, s, "one", &row), SWEEP_STORE_OK);
	assert_int_equal(sweep_store_ticket(st, s, "one", &t), SWEEP_STORE_OK);
	assert_int_equal(sweep_store_report(st, t.id, true, 1010, "why=ok\n", &taken), SWEEP_STORE_OK);
	sweep_ticket_release(&t);
	assert_int_equal(claim(st, s, "two", &row), SWEEP_STORE_OK);
	sweep_store_close(st);
	st = open_ok(path);
	assert_int_equal(sweep_store_session(st, "aa", &again, NULL), SWEEP_STORE_OK);
	assert_true(again == s);
	assert_int_equal(state_of(st, s, "one"), SWEEP_TICKET_RETURNED);
	assert_int_equal(state_of(st, s, "two"), SWEEP_TICKET_OUT);
	assert_int_equal(claim(st, s, "three", &row), SWEEP_STORE_OK);
	assert_int_equal(row, 3);
	assert_int_equal(sweep_store_counts(st, s, &c), SWEEP_STORE_OK);
	assert_true(c.total == 3 && c.running == 2 && !c.waiting);
	sweep_store_close(st);
	free(path);
}

static void set_pragma(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_newer_version(void **state)
{
	char *path = new_path(), *why;

	sweep_store_close(open_ok(path));
	set_pragma(path, "PRAGMA user_version = 2");
	why = open_refused(path);
	assert_non_null(strstr(why, "store version 2 is newer than this sweep's (1)"));
	assert_non_null(strstr(why, path));
	free(why);
	free(path);
}

static void test_not_a_database(void **state)
{
	char *path = new_path(), *why;
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	for (i = 0; i < 100; i++)
		fputs("this is a parameter table, not a database\n", f);
	fclose(f);
	why = open_refused(path);
	assert_non_null(strstr(why, "not a sweep store"));
	assert_non_null(strstr(why, path));
	free(why);
	free(path);
	/* a database of something else */
	path = new_path();
	set_pragma(path, "CREATE TABLE notes (x TEXT)");
	why = open_refused(path);
	assert_non_null(strstr(why, "an SQLite database, but not a sweep store"));
	free(why);
	free(path);
}

/*
 * In a child: open path, claim n tickets of session s as PREFIX-i and write
 * each row claimed to fd once its call returned; with go >= 0, wait for a
 * byte from go before each call (none: go on freely).
 */
static void claim_in_child(const char *path, int64_t s, int n, const char *prefix, int fd, int go)
{
	struct sweep_store *st = open_ok(path);
	int i, rc = 0;
	char byte;

	for (i = 0; i < n && rc == 0; i++) {
		char name[32];
		size_t row = 0;

		if (go >= 0 && read(go, &byte, 1) != 1)
			go = -1;
		snprintf(name, sizeof(name), "%s-%d", prefix, i);
		rc = claim(st, s, name, &row);
		if (rc == 0 && write(fd, &row, sizeof(row)) != (ssize_t)sizeof(row))
			rc = -1;
	}
	sweep_store_close(st);
	_exit(rc == 0 ? 0 : 1);
}

/* As claim_in_child() in a new process; the test's end of the go pipe closed in it. */
static pid_t spawn_claimer(const char *path, int64_t s, int n, const char *prefix, int fd, int go,
			   int go_end)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (go_end >= 0)
			close(go_end);
		claim_in_child(path, s, n, prefix, fd, go);
	}
	return pid;
}

static void test_two_processes(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	int64_t s = make_session(st, "bb", 200);
	bool seen[201] = { false };
	int p[2], status, i;
	pid_t a, b;
	size_t row;

	assert_int_equal(pipe(p), 0);
	a = spawn_claimer(path, s, 100, "a", p[1], -1, -1);
	b = spawn_claimer(path, s, 100, "b", p[1], -1, -1);
	close(p[1]);
	for (i = 0; i < 200; i++) {
		assert_int_equal(read(p[0], &row, sizeof(row)), (ssize_t)sizeof(row));
		assert_true(row >= 1 && row <= 200 && !seen[row]);
		seen[row] = true;
	}
	close(p[0]);
	assert_int_equal(waitpid(a, &status, 0), a);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(waitpid(b, &status, 0), b);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* this handle sees the other processes' commits */
	assert_int_equal(state_of(st, s, "a-99"), SWEEP_TICKET_OUT);
	assert_int_equal(state_of(st, s, "b-99"), SWEEP_TICKET_OUT);
	assert_int_equal(claim(st, s, "c", &row), SWEEP_STORE_NOT_FOUND);
	sweep_store_close(st);
	free(path);
}

/* Threads sharing one handle (the embedded HTTP server's): each claim its own ticket. */
struct claimer {
	struct sweep_store *st;
	int64_t session;
	int id, n;
	size_t rows[50];
};

static void *claim_thread(void *arg)
{
	struct claimer *c = arg;
	int i;

	for (i = 0; i < 50; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%d-%d", c->id, i);
		if (claim(c->st, c->session, name, &c->rows[c->n]) == SWEEP_STORE_OK)
			c->n++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	int64_t s = make_session(st, "ff", 200);
	struct claimer c[4];
	pthread_t th[4];
	bool seen[201] = { false };
	int i, k;

	for (i = 0; i < 4; i++) {
		c[i] = (struct claimer){ st, s, i, 0, { 0 } };
		assert_int_equal(pthread_create(&th[i], NULL, claim_thread, &c[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(c[i].n, 50);
		for (k = 0; k < 50; k++) {
			assert_true(c[i].rows[k] >= 1 && c[i].rows[k] <= 200 && !seen[c[i].rows[k]]);
			seen[c[i].rows[k]] = true;
		}
	}
	sweep_store_close(st);
	free(path);
}

/* The store's file is whole (PRAGMA integrity_check). */
static void assert_intact(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/*
 * A writer killed -9: first in step with the test (30 calls, then let go),
 * so the kill lands while it runs freely, inside a call or between two.
 * Every call it said had returned is there, the file is whole, and the
 * store goes on.
 */
static void test_kill9(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	int64_t s = make_session(st, "cc", 5000);
	struct sweep_counts c;
	int p[2], go[2], status, i;
	size_t row;
	pid_t pid;

	sweep_store_close(st);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(go), 0);
	pid = spawn_claimer(path, s, 5000, "k", p[1], go[0], go[1]);
	close(p[1]);
	close(go[0]);
	for (i = 0; i < 30; i++) {
		assert_int_equal(write(go[1], "g", 1), 1);
		assert_int_equal(read(p[0], &row, sizeof(row)), (ssize_t)sizeof(row));
		assert_int_equal(row, (size_t)i + 1);
	}
	close(go[1]);
	for (; i < 60; i++)
		assert_int_equal(read(p[0], &row, sizeof(row)), (ssize_t)sizeof(row));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	while (read(p[0], &row, sizeof(row)) == (ssize_t)sizeof(row))
		i++;
	close(p[0]);
	assert_intact(path);
	st = open_ok(path);
	assert_int_equal(sweep_store_counts(st, s, &c), SWEEP_STORE_OK);
	assert_true(c.running >= i && c.running <= i + 1);
	assert_int_equal(claim(st, s, "after", &row), SWEEP_STORE_OK);
	assert_true(row == (size_t)c.running + 1);
	while (i-- > 0) {
		char name[32];

		snprintf(name, sizeof(name), "k-%d", i);
		assert_int_equal(state_of(st, s, name), SWEEP_TICKET_OUT);
	}
	sweep_store_close(st);
	free(path);
}

struct inside {
	struct sweep_store *st;
	int rc;
};

static int counts_inside(const struct sweep_task_state *k, void *arg)
{
	struct inside *in = arg;
	struct sweep_counts c;

	in->rc = sweep_store_counts(in->st, 1, &c);
	return 1;
}

/* A callback that calls its store back gets ERROR, not a deadlock. */
static void test_reentry(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	int64_t s = make_session(st, "dd", 2);
	struct inside in = { st, 0 };
	struct sweep_counts c;

	assert_int_equal(sweep_store_tasks(st, s, counts_inside, &in), SWEEP_STORE_OK);
	assert_int_equal(in.rc, SWEEP_STORE_ERROR);
	assert_int_equal(sweep_store_counts(st, s, &c), SWEEP_STORE_OK);
	assert_true(c.total == 2);
	sweep_store_close(st);
	free(path);
}

/*
 * Every statement reads through an index or a key: no full scan of a table
 * (SCAN t, without an index), no sort for ORDER BY.
 */
static bool plan_line_bad(const char *line)
{
	if (!strncmp(line, "SCAN ", 5))
		return strcmp(line, "SCAN CONSTANT ROW") && !strstr(line, " INDEX ");
	return strstr(line, "TEMP B-TREE") && strstr(line, "ORDER BY");
}

static int check_plan(const char *name, const char *sql, const char *plan, void *arg)
{
	char *copy = xstrdup(plan), *line, *save = NULL;

	(*(int *)arg)++;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (plan_line_bad(line))
			fail_msg("%s: %s\nplan:\n%s", name, sql, plan);
	free(copy);
	return 0;
}

static void test_plans(void **state)
{
	char *path = new_path();
	struct sweep_store *st = open_ok(path);
	int n = 0;

	assert_true(plan_line_bad("SCAN ticket"));
	assert_true(plan_line_bad("USE TEMP B-TREE FOR ORDER BY"));
	assert_false(plan_line_bad("SCAN task USING COVERING INDEX task_due"));
	assert_false(plan_line_bad("SEARCH ticket USING INDEX ticket_out (session=?)"));
	make_session(st, "ee", 50);
	assert_int_equal(sweep_store_sqlite_plans(st, check_plan, &n), 0);
	assert_true(n > 20);
	sweep_store_close(st);
	free(path);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_newer_version),
		cmocka_unit_test(test_not_a_database),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_kill9),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_reentry),
		cmocka_unit_test(test_plans),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
