/*
 * The master's session code (sweep/master/sweep_session.c) on the embedded
 * store: it reaches its store only through sweep_store_*(), so a session
 * made, run (the clients played here through the store, their results
 * written where the endpoints write them), judged, collected and counted
 * on SQLite gives what t6110-sweep-session.sh sees on a project's MariaDB:
 * the same spec (test/data/sweep-session), the same output, the same
 * failed set.
 */
#include "unit.h"
#include "fileutil.h"
#include "sweep_files.h"
#include "sweep_msg.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_store.h"
#include "wtime.h"

struct fixture {
	char dir[64];
	struct sweep_files files;
	struct sweep_store *st;
	char sid[SWEEP_SID_LEN + 1];
	int64_t session;
	int nclaims;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *src = getenv("WSEQ_SRCDIR");
	struct sbuf err = SBUF_INIT(1024);
	char *cmd, *path;

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_sweep_session.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	cmd = xasprintf("cp -p '%s'/test/data/sweep-session/* '%s'", src ? src : "..", f->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	f->files.sessions = xasprintf("%s/sessions", f->dir);
	f->files.results = xasprintf("%s/results", f->dir);
	assert_int_equal(mkdir_p(f->files.results, 0755), 0);
	path = xasprintf("%s/store.sqlite", f->dir);
	f->st = sweep_store_open_sqlite(path, &err);
	assert_non_null(f->st);
	free(path);
	sbuf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sweep_store_close(f->st);
	remove_tree(f->dir);
	sweep_files_release(&f->files);
	free(f);
	return 0;
}

/* What worker.sh leaves for parameter set row (from 1) of the table p. */
static void results_of(const struct sweep_params *p, size_t row, struct sbuf *body)
{
	const char *a = p->rows[row - 1].values[0], *b = p->rows[row - 1].values[1];
	char *product = xasprintf("%s x %s = %ld\n", a, b, atol(a) * atol(b));
	char *label = xasprintf("%s\n", p->rows[row - 1].values[2]);     /* the input file's */
	struct sweep_msg_output out[] = {
		{ "product", product, strlen(product) },
		{ "label", label, strlen(label) },
	};
	struct sweep_complete c = { .results = out, .nresults = ARRAY_SIZE(out) };
	struct sbuf err = SBUF_INIT(1024);

	assert_int_equal(sweep_complete_encode(&c, body, &err), 0);
	sbuf_release(&err);
	free(product);
	free(label);
}

/* Every ticket waiting, taken and answered as sweep_client and the endpoints would. */
static void run_clients(struct fixture *f, const struct sweep_params *p)
{
	struct sweep_claim c = { 0 };
	char name[32];

	for (;;) {
		struct sbuf body = SBUF_INIT(SWEEP_COMPLETE_MAX), path = SBUF_INIT(4096);
		bool taken = false;

		snprintf(name, sizeof(name), "ticket%d", ++f->nclaims);
		if (sweep_store_next(f->st, f->session, name, now(), "host=h1\n", &c) != SWEEP_STORE_OK)
			break;
		results_of(p, c.row, &body);
		assert_int_equal(sweep_files_result(&f->files, name, true, &path), 0);
		assert_int_equal(write_file_atomic(sbuf_str(&path), body.buf, body.len, 0644), 0);
		assert_int_equal(sweep_store_report(f->st, c.ticket, true, now(), "", &taken),
				 SWEEP_STORE_OK);
		assert_true(taken);
		sweep_claim_release(&c);
		sbuf_release(&body);
		sbuf_release(&path);
	}
	sweep_claim_release(&c);
}

static void collect(struct fixture *f, size_t valid, size_t invalid, bool output)
{
	struct sweep_collect_stats cs;
	struct sbuf err = SBUF_INIT(4096);

	assert_int_equal(sweep_session_collect(f->st, &f->files, f->sid, output, &cs, &err), 0);
	assert_int_equal(cs.valid, valid);
	assert_int_equal(cs.invalid, invalid);
	free(cs.output);
	sbuf_release(&err);
}

static void test_a_session_on_the_embedded_store(void **state)
{
	struct fixture *f = *state;
	struct sbuf err = SBUF_INIT(4096), out = SBUF_INIT(1 << 20);
	struct sweep_params p = { 0 };
	struct sweep_stats st;
	char *spec = xasprintf("%s/spec", f->dir), *path;
	size_t n = 0;

	assert_int_equal(sweep_session_create(f->st, &f->files, spec, NULL, f->sid, &f->session, &n,
					      &err), 0);
	assert_int_equal(n, 3);
	path = xasprintf("%s/%s/workers/x86_64-pc-linux-gnu", f->files.sessions, f->sid);
	assert_int_equal(access(path, X_OK), 0);
	free(path);
	path = xasprintf("%s/params", f->dir);
	assert_int_equal(sweep_params_read(path, &p, &err), 0);

	run_clients(f, &p);
	assert_int_equal(f->nclaims, 4);        /* three tickets, then none */
	collect(f, 2, 1, true);
	free(path);
	path = xasprintf("%s/out.txt", f->dir);
	assert_int_equal(read_file(path, 1 << 20, &out), 0);
	assert_string_equal(sbuf_str(&out), "### a=2 b=3 label=first\n2 x 3 = 6\nfirst\n"
			    "### a=6 b=7 label=\" padded \"\n6 x 7 = 42\n padded \n");

	/* the invalid set (a = 4, always refused) gets its second and last ticket */
	collect(f, 0, 0, false);
	run_clients(f, &p);
	collect(f, 0, 1, false);
	collect(f, 0, 0, true);
	assert_int_equal(sweep_session_stats(f->st, f->sid, true, &st, &err), 0);
	assert_true(st.total == 3 && st.done == 2 && st.failed == 1 && st.waiting == 0);
	assert_int_equal(st.nhosts, 1);
	assert_string_equal(st.hosts[0].host, "h1");
	assert_true(st.hosts[0].done == 2 && st.hosts[0].invalid == 2);
	assert_int_equal(st.nfailed_sets, 1);
	assert_int_equal(st.failed_sets[0].row, 2);
	assert_string_equal(st.failed_sets[0].why, "invalid result (h1)");
	sweep_stats_release(&st);
	assert_int_equal(sweep_session_stats(f->st, "0123", false, &st, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "no sweep session 0123"));

	sweep_params_release(&p);
	free(path);
	free(spec);
	sbuf_release(&out);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_session_on_the_embedded_store, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
