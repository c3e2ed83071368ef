/*
 * sweep_store_bench: the embedded sweep store's speed (doc/sweep-store.md,
 * doc/bench.md). A session of N tasks is made in a new file, then each task
 * is claimed (/task), reported (/complete) and judged one call at a time, as
 * the master's handlers and run loop would, with a tick and a counts each
 * 1,000 calls. Prints the seconds of each phase and the claims+reports a
 * second.
 */
#include "common.h"
#include "sweep_store.h"

#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(FILE *f, int rc)
{
	fputs("usage: sweep_store_bench [--tasks N] FILE\n"
	      "  Make a sweep session of N tasks (default 100000) in the new store FILE, then\n"
	      "  claim, report and judge every task one call at a time; print the figures.\n", f);
	return rc;
}

static int make(struct sweep_store *st, long n, int64_t *session)
{
	struct sweep_task_new *t = xcalloc((size_t)n, sizeof(*t));
	long i;
	int rc;

	for (i = 0; i < n; i++)
		t[i] = (struct sweep_task_new){ (size_t)i + 1, "Command=run\nInput=x\n", 600, 1, 3 };
	rc = sweep_store_create(st, "0123456789abcdef0123456789abcdef", "bench.spec", t, (size_t)n);
	free(t);
	return rc ? rc : sweep_store_session(st, "0123456789abcdef0123456789abcdef", session, NULL);
}

/* Claim, report and judge one task at t: 0, or -1. */
static int one(struct sweep_store *st, int64_t session, long i, int64_t t)
{
	struct sweep_claim c = { 0 };
	struct sweep_verdict v;
	char name[40];
	bool taken;
	int rc;

	snprintf(name, sizeof(name), "%032lx", i);
	rc = sweep_store_next(st, session, name, t, "host=bench\n", &c);
	v.ticket = c.ticket;
	v.valid = true;
	sweep_claim_release(&c);
	if (rc == SWEEP_STORE_OK)
		rc = sweep_store_report(st, v.ticket, true, t + 1, "why=done\n", &taken);
	if (rc == SWEEP_STORE_OK)
		rc = sweep_store_judge(st, &v, 1, t + 1);
	return rc == SWEEP_STORE_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sweep_store *st;
	struct sweep_counts c;
	struct sbuf err = SBUF_INIT(4096);
	int64_t session = 0, t = 1700000000;
	long n = 100000, i;
	double t0, t1, t2;

	if (argc > 1 && !strcmp(argv[1], "--help"))
		return usage(stdout, 0);
	if (argc == 4 && !strcmp(argv[1], "--tasks") && parse_long(argv[2], &n) == 0 && n > 0)
		argv += 2, argc -= 2;
	if (argc != 2)
		return usage(stderr, 2);
	if (!(st = sweep_store_open_sqlite(argv[1], &err))) {
		fprintf(stderr, "sweep_store_bench: %s\n", sbuf_str(&err));
		return 1;
	}
	t0 = now_s();
	if (make(st, n, &session) != SWEEP_STORE_OK)
		return fputs("sweep_store_bench: create failed\n", stderr), 1;
	t1 = now_s();
	for (i = 0; i < n; i++) {
		if (one(st, session, i, t + i) < 0)
			return fprintf(stderr, "sweep_store_bench: task %ld failed\n", i), 1;
		if (i % 1000 == 999 && (sweep_store_tick(st, session, t + i, NULL) ||
					sweep_store_counts(st, session, &c)))
			return fputs("sweep_store_bench: tick failed\n", stderr), 1;
	}
	t2 = now_s();
	if (sweep_store_counts(st, session, &c) || c.done != n)
		return fputs("sweep_store_bench: not every task done\n", stderr), 1;
	printf("tasks %ld\ncreate %.2f s\nclaim+report+judge %.2f s\n"
	       "claims+reports per second %.0f\n", n, t1 - t0, t2 - t1, (double)n / (t2 - t1));
	sweep_store_close(st);
	sbuf_release(&err);
	return 0;
}
