/*
 * The sweep store conformance suite (sweep_store_conf.h): each case makes
 * its own session in a fresh store and checks one rule of sweep_store.h
 * through the interface only, on the suite's own clock. No cmocka: the
 * project store's integration test links it too.
 */
#include "sweep_store_conf.h"

struct conf_run {
	const struct sweep_store_conf *c;
	struct sweep_store *st;
	int64_t t0;
	const char *prefix;
	int nfail;              /* failed checks of this case */
	struct sbuf diag;
	char name[64];          /* the ticket name claim() used last */
};

static unsigned conf_seq;

#define CHECK(r, cond) conf_check((r), (cond), #cond, __LINE__)

static bool conf_check(struct conf_run *r, bool ok, const char *what, int line)
{
	if (!ok) {
		r->nfail++;
		sbuf_addf(&r->diag, "%s#   %s:%d: %s\n", r->prefix, __FILE__, line, what);
	}
	return ok;
}

/* A session of n tasks (rows given n down to 1) with these limits: its id, or 0. */
static int64_t mk(struct conf_run *r, size_t n, int timeout, int max_assign, int max_total)
{
	struct sweep_task_new *t = xcalloc(n + 1, sizeof(*t));
	char **bodies = xcalloc(n + 1, sizeof(char *));
	char sid[40];
	int64_t id = 0;
	size_t i;

	snprintf(sid, sizeof(sid), "%08lx%08x%08x%08x", (unsigned long)time(NULL) & 0xffffffffUL,
		 (unsigned)getpid(), ++conf_seq, (unsigned)rand());
	for (i = 0; i < n; i++) {
		bodies[i] = xasprintf("Command=run %zu\n", n - i);
		t[i] = (struct sweep_task_new){ n - i, bodies[i], timeout, max_assign, max_total };
	}
	if (CHECK(r, sweep_store_create(r->st, sid, "conf.spec", t, n) == SWEEP_STORE_OK))
		CHECK(r, sweep_store_session(r->st, sid, &id, NULL) == SWEEP_STORE_OK && id > 0);
	for (i = 0; i < n; i++)
		free(bodies[i]);
	free(bodies);
	free(t);
	return id;
}

/* Claim the next ticket at t under a new name (r->name): the store's code. */
static int claim(struct conf_run *r, int64_t session, int64_t t, struct sweep_claim *c)
{
	snprintf(r->name, sizeof(r->name), "conf%u%08x", ++conf_seq, (unsigned)rand());
	return sweep_store_next(r->st, session, r->name, t, "host=conf\n", c);
}

/* Claim at t and report the row claimed (0: none). */
static size_t claim_row(struct conf_run *r, int64_t session, int64_t t, int64_t *ticket)
{
	struct sweep_claim c = { 0 };
	size_t row = 0;

	if (claim(r, session, t, &c) == SWEEP_STORE_OK)
		row = c.row;
	if (ticket)
		*ticket = c.ticket;
	sweep_claim_release(&c);
	return row;
}

/* The state of ticket name, or -1 when the store does not find it. */
static int state_of(struct conf_run *r, int64_t session, const char *name)
{
	struct sweep_ticket t = { 0 };
	int state = -1;

	if (sweep_store_ticket(r->st, session, name, &t) == SWEEP_STORE_OK)
		state = (int)t.state;
	sweep_ticket_release(&t);
	return state;
}

/* What tick may change in a session, summed: tasks' tickets, their ends. */
struct fingerprint {
	int64_t out, unsent, failed, done, ended;
};

static int add_task_print(const struct sweep_task_state *k, void *arg)
{
	struct fingerprint *f = arg;

	f->out += k->nout;
	f->unsent += k->nunsent;
	f->failed += k->failed;
	f->done += k->canonical != NULL;
	return 0;
}

static int add_ended_print(const struct sweep_ticket *t, void *arg)
{
	((struct fingerprint *)arg)->ended += 1 + (int64_t)t->state * 1000000;
	return 0;
}

static struct fingerprint fingerprint(struct conf_run *r, int64_t session)
{
	struct fingerprint f = { 0 };

	CHECK(r, sweep_store_tasks(r->st, session, add_task_print, &f) == SWEEP_STORE_OK);
	CHECK(r, sweep_store_ended(r->st, session, add_ended_print, &f) == SWEEP_STORE_OK);
	return f;
}

/*
 * The store's tick at t, then the transitioner's when it runs elsewhere:
 * whether the session changed. A transitioner elsewhere cannot say, so the
 * session is compared before and after.
 */
static bool tick(struct conf_run *r, int64_t session, int64_t t)
{
	struct fingerprint before = { 0 }, after;
	bool changed = false;

	if (r->c->transition)
		before = fingerprint(r, session);
	CHECK(r, sweep_store_tick(r->st, session, t, &changed) == SWEEP_STORE_OK);
	if (!r->c->transition)
		return changed;
	CHECK(r, r->c->transition(r->c->arg, r->st, t) == 0);
	after = fingerprint(r, session);
	return memcmp(&before, &after, sizeof(before)) != 0;
}

static bool report(struct conf_run *r, int64_t ticket, bool success, int64_t t, const char *note)
{
	bool taken = true;

	CHECK(r, sweep_store_report(r->st, ticket, success, t, note, &taken) == SWEEP_STORE_OK);
	return taken;
}

struct task_find {
	size_t row;
	struct sweep_task_state s;
	int n;
};

static int take_task(const struct sweep_task_state *s, void *arg)
{
	struct task_find *f = arg;

	f->n++;
	if (s->row == f->row) {
		f->s = *s;
		f->s.canonical = s->canonical ? xstrdup(s->canonical) : NULL;
	}
	return 0;
}

/* Task row of the session as tasks() shows it (free out->canonical). */
static void task_of(struct conf_run *r, int64_t session, size_t row, struct sweep_task_state *out)
{
	struct task_find f = { row, { 0 }, 0 };

	CHECK(r, sweep_store_tasks(r->st, session, take_task, &f) == SWEEP_STORE_OK);
	CHECK(r, f.s.row == row);
	*out = f.s;
}

static void counts(struct conf_run *r, int64_t session, struct sweep_counts *c)
{
	CHECK(r, sweep_store_counts(r->st, session, c) == SWEEP_STORE_OK);
}

struct ended_count {
	int n[SWEEP_TICKET_CANCELLED + 1];
	int total;
	int64_t last;
	bool ordered;
};

static int take_ended(const struct sweep_ticket *t, void *arg)
{
	struct ended_count *e = arg;

	if ((int)t->state >= 0 && t->state <= SWEEP_TICKET_CANCELLED)
		e->n[t->state]++;
	e->ordered = e->ordered && t->id > e->last;
	e->last = t->id;
	e->total++;
	return 0;
}

static struct ended_count ended(struct conf_run *r, int64_t session)
{
	struct ended_count e = { { 0 }, 0, 0, true };

	CHECK(r, sweep_store_ended(r->st, session, take_ended, &e) == SWEEP_STORE_OK);
	CHECK(r, e.ordered);
	return e;
}

static int take_returned(const struct sweep_ticket *t, void *arg)
{
	struct ended_count *e = arg;

	return take_ended(t, e);
}

static int judge(struct conf_run *r, int64_t ticket, bool valid, int64_t t)
{
	struct sweep_verdict v = { ticket, valid };

	return sweep_store_judge(r->st, &v, 1, t);
}

/* ---- the cases -------------------------------------------------------------------------- */

static void case_create(struct conf_run *r)
{
	struct sweep_task_new t = { 1, "Command=x\n", 0, 1, 1 };
	struct sweep_counts c;
	int64_t id = 0, again = 0;
	char *spec = NULL, sid[40];

	snprintf(sid, sizeof(sid), "c0ffee%08x%08x%010u", (unsigned)getpid(), ++conf_seq,
		 (unsigned)rand());
	CHECK(r, sweep_store_create(r->st, sid, "a.spec", &t, 1) == SWEEP_STORE_OK);
	CHECK(r, sweep_store_session(r->st, sid, &id, &spec) == SWEEP_STORE_OK && id > 0);
	CHECK(r, spec && !strcmp(spec, "a.spec"));
	free(spec);
	CHECK(r, sweep_store_create(r->st, sid, "b.spec", &t, 1) == SWEEP_STORE_ERROR);
	CHECK(r, sweep_store_session(r->st, sid, &again, &spec) == SWEEP_STORE_OK && again == id);
	CHECK(r, spec && !strcmp(spec, "a.spec"));
	free(spec);
	counts(r, id, &c);
	CHECK(r, c.total == 1 && c.done == 0 && c.failed == 0 && c.running == 0 && c.waiting);
	CHECK(r, sweep_store_session(r->st, "0123456789abcdef0123456789abcdef", &again, NULL) ==
		 SWEEP_STORE_NOT_FOUND);
}

static void case_next_order(struct conf_run *r)
{
	int64_t s = mk(r, 4, 60, 1, 3), a = 0, b = 0;
	struct sweep_claim c = { 0 };
	struct sweep_counts n;

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	CHECK(r, claim_row(r, s, r->t0, &b) == 2 && b != a);
	CHECK(r, claim_row(r, s, r->t0 + 1, NULL) == 3);
	counts(r, s, &n);
	CHECK(r, n.running == 3 && n.waiting);
	CHECK(r, claim_row(r, s, r->t0 + 1, NULL) == 4);
	counts(r, s, &n);
	CHECK(r, n.running == 4 && !n.waiting);
	CHECK(r, claim(r, s, r->t0 + 2, &c) == SWEEP_STORE_NOT_FOUND);
	sweep_claim_release(&c);
	CHECK(r, claim(r, s + 1000000, r->t0 + 2, &c) == SWEEP_STORE_NOT_FOUND);
	sweep_claim_release(&c);
}

static void case_claim_contents(struct conf_run *r)
{
	int64_t s = mk(r, 2, 60, 1, 1);
	struct sweep_claim c = { 0 };
	struct sweep_ticket t = { 0 };

	CHECK(r, claim(r, s, r->t0 + 5, &c) == SWEEP_STORE_OK);
	CHECK(r, c.row == 1 && c.timeout == 60 && c.ticket > 0 && c.task > 0);
	CHECK(r, c.body && !strcmp(c.body, "Command=run 1\n"));
	CHECK(r, sweep_store_ticket(r->st, s, r->name, &t) == SWEEP_STORE_OK);
	CHECK(r, t.id == c.ticket && t.task == c.task && t.row == 1 && t.state == SWEEP_TICKET_OUT);
	CHECK(r, t.name && !strcmp(t.name, r->name) && !t.task_over);
	CHECK(r, t.sent_time == r->t0 + 5 && t.deadline == r->t0 + 65 && t.received_time == 0);
	CHECK(r, t.note && strstr(t.note, "host=conf\n") == t.note);
	/* what /complete's check compares the results with */
	CHECK(r, t.body && !strcmp(t.body, "Command=run 1\n"));
	sweep_ticket_release(&t);
	sweep_claim_release(&c);
}

static void case_ticket_lookup(struct conf_run *r)
{
	int64_t s1 = mk(r, 1, 60, 1, 1), s2 = mk(r, 1, 60, 1, 1);
	struct sweep_ticket t = { 0 };

	CHECK(r, claim_row(r, s1, r->t0, NULL) == 1);
	CHECK(r, state_of(r, s1, r->name) == SWEEP_TICKET_OUT);
	CHECK(r, sweep_store_ticket(r->st, s2, r->name, &t) == SWEEP_STORE_NOT_FOUND);
	CHECK(r, sweep_store_ticket(r->st, s1, "no-such-ticket", &t) == SWEEP_STORE_NOT_FOUND);
	sweep_ticket_release(&t);
}

static void case_report(struct conf_run *r)
{
	int64_t s = mk(r, 2, 60, 1, 3), a = 0, b = 0;
	struct sweep_ticket t = { 0 };
	char na[64];

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	snprintf(na, sizeof(na), "%s", r->name);
	CHECK(r, claim_row(r, s, r->t0, &b) == 2);
	CHECK(r, report(r, a, true, r->t0 + 7, "why=done\n"));
	CHECK(r, sweep_store_ticket(r->st, s, na, &t) == SWEEP_STORE_OK);
	CHECK(r, t.state == SWEEP_TICKET_RETURNED && t.received_time == r->t0 + 7);
	CHECK(r, t.elapsed > 6.9 && t.elapsed < 7.1);
	CHECK(r, t.note && strstr(t.note, "host=conf\n") && strstr(t.note, "why=done\n"));
	sweep_ticket_release(&t);
	CHECK(r, !report(r, a, false, r->t0 + 8, "why=late\n"));
	CHECK(r, sweep_store_ticket(r->st, s, na, &t) == SWEEP_STORE_OK);
	CHECK(r, t.state == SWEEP_TICKET_RETURNED && t.received_time == r->t0 + 7);
	CHECK(r, t.note && !strstr(t.note, "why=late"));
	sweep_ticket_release(&t);
	CHECK(r, report(r, b, false, r->t0 + 9, "why=exit 1\n"));
	CHECK(r, state_of(r, s, r->name) == SWEEP_TICKET_FAILED);
	CHECK(r, !report(r, b, true, r->t0 + 10, ""));
	CHECK(r, state_of(r, s, r->name) == SWEEP_TICKET_FAILED);
	CHECK(r, !report(r, b + 1000000, true, r->t0 + 10, ""));
}

static void case_timeout(struct conf_run *r)
{
	int64_t s = mk(r, 3, 10, 1, 3), a = 0;
	struct sweep_task_state k;
	char na[64];

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	snprintf(na, sizeof(na), "%s", r->name);
	CHECK(r, !tick(r, s, r->t0 + 10));
	CHECK(r, state_of(r, s, na) == SWEEP_TICKET_OUT);
	CHECK(r, tick(r, s, r->t0 + 11));
	CHECK(r, state_of(r, s, na) == SWEEP_TICKET_TIMED_OUT);
	task_of(r, s, 1, &k);
	CHECK(r, k.nout == 0 && k.nunsent == 1 && !k.failed && !k.canonical);
	/*
	 * The new ticket of row 1 goes before the first of row 2: lowest row
	 * first. The project store hands tickets out in the order they were
	 * made (its index): a new one after those waiting.
	 */
	CHECK(r, claim_row(r, s, r->t0 + 12, NULL) == (r->c->transition ? 2 : 1));
	CHECK(r, !report(r, a, true, r->t0 + 13, ""));
	CHECK(r, state_of(r, s, na) == SWEEP_TICKET_TIMED_OUT);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_TIMED_OUT] == 1);
}

static void case_no_timeout(struct conf_run *r)
{
	int64_t s = mk(r, 1, 0, 1, 2);
	struct sweep_ticket t = { 0 };

	CHECK(r, claim_row(r, s, r->t0, NULL) == 1);
	CHECK(r, sweep_store_ticket(r->st, s, r->name, &t) == SWEEP_STORE_OK);
	CHECK(r, t.state == SWEEP_TICKET_OUT);
	sweep_ticket_release(&t);
	tick(r, s, r->t0 + 400);
	CHECK(r, state_of(r, s, r->name) == SWEEP_TICKET_OUT);
}

static void case_max_total(struct conf_run *r)
{
	int64_t s = mk(r, 2, 60, 1, 3), id = 0;
	struct sweep_task_state k;
	struct sweep_ticket t = { 0 };
	struct sweep_counts c;
	int i;

	/* row 2 out first: then row 1's tickets are the only ones waiting, in either order */
	for (i = 0; i < 3; i++) {
		CHECK(r, claim_row(r, s, r->t0 + 10 * i, &id) == 1);
		if (i == 0)
			CHECK(r, claim_row(r, s, r->t0, NULL) == 2);
		CHECK(r, report(r, id, false, r->t0 + 10 * i + 1, "why=exit 1\n"));
		CHECK(r, tick(r, s, r->t0 + 10 * i + 2));
	}
	task_of(r, s, 1, &k);
	CHECK(r, k.failed && !k.canonical && k.nunsent == 0 && k.nout == 0);
	CHECK(r, sweep_store_ticket(r->st, s, r->name, &t) == SWEEP_STORE_OK && t.task_over);
	sweep_ticket_release(&t);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_FAILED] == 3 && ended(r, s).total == 3);
	counts(r, s, &c);
	CHECK(r, c.total == 2 && c.failed == 1 && c.done == 0 && !c.waiting && c.running == 1);
	/* the failed task gives nothing more */
	CHECK(r, claim_row(r, s, r->t0 + 40, NULL) == 0);
	tick(r, s, r->t0 + 41);
	CHECK(r, ended(r, s).total == 3);
}

static void case_cancel_unsent(struct conf_run *r)
{
	int64_t s = mk(r, 1, 60, 2, 3), a = 0, b = 0;
	struct sweep_task_state k;
	struct sweep_counts c;

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	CHECK(r, claim_row(r, s, r->t0, &b) == 1 && b != a);
	CHECK(r, report(r, a, false, r->t0 + 1, ""));
	CHECK(r, tick(r, s, r->t0 + 2));
	task_of(r, s, 1, &k);
	CHECK(r, k.nunsent == 1 && k.nout == 1 && !k.failed);
	CHECK(r, report(r, b, false, r->t0 + 3, ""));
	CHECK(r, tick(r, s, r->t0 + 4));
	task_of(r, s, 1, &k);
	CHECK(r, k.failed && k.nunsent == 0);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_CANCELLED] == 1);
	counts(r, s, &c);
	CHECK(r, c.failed == 1 && !c.waiting && c.running == 0);
	CHECK(r, claim_row(r, s, r->t0 + 5, NULL) == 0);
}

static void case_returned_waits(struct conf_run *r)
{
	int64_t s = mk(r, 1, 60, 1, 3), a = 0;
	struct sweep_task_state k;
	struct ended_count e = { { 0 }, 0, 0, true };

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	CHECK(r, report(r, a, true, r->t0 + 1, ""));
	tick(r, s, r->t0 + 100);
	task_of(r, s, 1, &k);
	CHECK(r, k.nunsent == 0 && k.nout == 0 && !k.failed && !k.canonical);
	CHECK(r, sweep_store_returned(r->st, s, take_returned, &e) == SWEEP_STORE_OK);
	CHECK(r, e.total == 1 && e.last == a);
}

static void case_judge_valid(struct conf_run *r)
{
	int64_t s = mk(r, 1, 60, 3, 5), a = 0, b = 0;
	struct sweep_task_state k;
	struct sweep_counts c;
	char na[64];

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	snprintf(na, sizeof(na), "%s", r->name);
	CHECK(r, claim_row(r, s, r->t0, &b) == 1);
	CHECK(r, report(r, a, true, r->t0 + 1, "") && report(r, b, true, r->t0 + 2, ""));
	CHECK(r, judge(r, a, true, r->t0 + 3) == SWEEP_STORE_OK);
	CHECK(r, judge(r, b, true, r->t0 + 3) == SWEEP_STORE_OK);
	tick(r, s, r->t0 + 4);
	task_of(r, s, 1, &k);
	CHECK(r, k.canonical && !strcmp(k.canonical, na) && !k.failed && k.nunsent == 0);
	free(k.canonical);
	CHECK(r, state_of(r, s, r->name) == SWEEP_TICKET_VALID);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_VALID] == 2);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_CANCELLED] == 1);
	counts(r, s, &c);
	CHECK(r, c.done == 1 && c.failed == 0 && !c.waiting && c.running == 0);
	CHECK(r, claim_row(r, s, r->t0 + 5, NULL) == 0);
}

static void case_judge_invalid(struct conf_run *r)
{
	int64_t s = mk(r, 2, 60, 1, 2), a = 0, b = 0;
	struct sweep_task_state k;
	struct ended_count e = { { 0 }, 0, 0, true };

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	CHECK(r, claim_row(r, s, r->t0, &b) == 2);
	/* an OUT ticket is no answer: a verdict on it changes nothing */
	CHECK(r, judge(r, b, true, r->t0 + 1) == SWEEP_STORE_OK);
	CHECK(r, state_of(r, s, r->name) == SWEEP_TICKET_OUT);
	CHECK(r, report(r, a, true, r->t0 + 1, ""));
	CHECK(r, judge(r, a, false, r->t0 + 2) == SWEEP_STORE_OK);
	CHECK(r, sweep_store_returned(r->st, s, take_returned, &e) == SWEEP_STORE_OK && e.total == 0);
	CHECK(r, tick(r, s, r->t0 + 3));
	task_of(r, s, 1, &k);
	CHECK(r, k.nunsent == 1 && !k.canonical && !k.failed);
	CHECK(r, claim_row(r, s, r->t0 + 4, NULL) == 1);
	/* judged already: a second verdict changes nothing */
	CHECK(r, judge(r, a, true, r->t0 + 5) == SWEEP_STORE_OK);
	task_of(r, s, 1, &k);
	CHECK(r, !k.canonical && k.nout == 1);
	free(k.canonical);
	CHECK(r, ended(r, s).n[SWEEP_TICKET_INVALID] == 1);
}

struct sums {
	int64_t done, failed, running, unsent;
};

static int sum_task(const struct sweep_task_state *k, void *arg)
{
	struct sums *m = arg;

	m->done += k->canonical != NULL;
	m->failed += k->failed;
	m->running += !k->canonical && !k->failed && k->nout > 0;
	m->unsent += !k->canonical && !k->failed ? k->nunsent : 0;
	return 0;
}

static void case_counts_agree(struct conf_run *r)
{
	int64_t s = mk(r, 6, 30, 1, 1), id[6] = { 0 };
	struct sums m = { 0 };
	struct sweep_counts c;
	int i;

	for (i = 0; i < 5; i++)
		CHECK(r, claim_row(r, s, r->t0, &id[i]) == (size_t)i + 1);
	CHECK(r, report(r, id[0], true, r->t0 + 1, "") && report(r, id[1], true, r->t0 + 1, ""));
	CHECK(r, report(r, id[2], false, r->t0 + 1, ""));
	CHECK(r, judge(r, id[0], true, r->t0 + 2) == SWEEP_STORE_OK);
	tick(r, s, r->t0 + 3);
	counts(r, s, &c);
	CHECK(r, sweep_store_tasks(r->st, s, sum_task, &m) == SWEEP_STORE_OK);
	CHECK(r, c.total == 6 && c.done == 1 && c.failed == 1 && c.running == 2 && c.waiting);
	CHECK(r, m.done == c.done && m.failed == c.failed && m.running == c.running);
	CHECK(r, m.unsent == 1);
	CHECK(r, ended(r, s).total == 3);
}

static int stop_at_first(const struct sweep_task_state *k, void *arg)
{
	(void)k;
	(*(int *)arg)++;
	return 1;
}

static void case_sessions_apart(struct conf_run *r)
{
	int64_t s1 = mk(r, 2, 10, 1, 2), s2 = mk(r, 2, 10, 1, 2);
	struct sweep_counts c;
	int n = 0;

	CHECK(r, s1 != s2);
	CHECK(r, claim_row(r, s1, r->t0, NULL) == 1);
	CHECK(r, claim_row(r, s2, r->t0, NULL) == 1);
	CHECK(r, tick(r, s1, r->t0 + 20));
	/* a transitioner elsewhere serves every session at once: s2's ticket is past due too */
	if (!r->c->transition) {
		CHECK(r, state_of(r, s2, r->name) == SWEEP_TICKET_OUT);
		counts(r, s2, &c);
		CHECK(r, c.total == 2 && c.running == 1);
	}
	CHECK(r, sweep_store_tasks(r->st, s1, stop_at_first, &n) == SWEEP_STORE_OK && n == 1);
}

static void case_hostile_strings(struct conf_run *r)
{
	static const char *const names[] = {
		"x'; DROP TABLE ticket; --", "\"quoted\" %s %n", "line\nbreak", "ünïcödé",
	};
	int64_t s = mk(r, 4, 60, 1, 1), id;
	struct sweep_claim c = { 0 };
	struct sweep_ticket t = { 0 };
	char note[5000];
	size_t i;

	memset(note, 'n', sizeof(note) - 2);
	note[sizeof(note) - 2] = '\n';
	note[sizeof(note) - 1] = 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		CHECK(r, sweep_store_next(r->st, s, names[i], r->t0, names[i], &c) == SWEEP_STORE_OK);
		id = c.ticket;
		sweep_claim_release(&c);
		CHECK(r, report(r, id, true, r->t0 + 1, note));
		CHECK(r, sweep_store_ticket(r->st, s, names[i], &t) == SWEEP_STORE_OK);
		CHECK(r, t.id == id && t.name && !strcmp(t.name, names[i]));
		CHECK(r, t.note && strlen(t.note) == strlen(names[i]) + strlen(note));
		sweep_ticket_release(&t);
	}
	CHECK(r, ended(r, s).n[SWEEP_TICKET_RETURNED] == 4);
}

static void case_max_assign(struct conf_run *r)
{
	int64_t s = mk(r, 2, 60, 2, 4), a = 0, b = 0, c = 0;
	struct sweep_task_state k;

	CHECK(r, claim_row(r, s, r->t0, &a) == 1);
	CHECK(r, claim_row(r, s, r->t0, &b) == 1 && b != a);
	CHECK(r, claim_row(r, s, r->t0, &c) == 2);
	tick(r, s, r->t0 + 1);
	task_of(r, s, 1, &k);
	CHECK(r, k.nout == 2 && k.nunsent == 0);
	CHECK(r, report(r, a, false, r->t0 + 2, ""));
	tick(r, s, r->t0 + 3);
	task_of(r, s, 1, &k);
	CHECK(r, k.nout == 1 && k.nunsent == 1);
}

/* ---- the runner ------------------------------------------------------------------------- */

static const struct {
	void (*fn)(struct conf_run *);
	const char *what;
} conf_cases[] = {
	{ case_create, "create makes a session, its sid again is refused, session finds it" },
	{ case_next_order, "next hands out lowest row first, each ticket once, then NOT_FOUND" },
	{ case_claim_contents, "a claim has its task's body and timeout; the ticket is OUT, noted, with the body" },
	{ case_ticket_lookup, "a ticket is found by name in its own session only" },
	{ case_report, "report is taken only while OUT; a late or repeated one changes nothing" },
	{ case_timeout, "tick times a ticket out past its deadline and its task gets a new one" },
	{ case_no_timeout, "a ticket of a task without timeout never times out" },
	{ case_max_total, "new tickets up to MaxTotal, then the task fails and is over" },
	{ case_cancel_unsent, "a failed task's unsent tickets are cancelled" },
	{ case_returned_waits, "an answer waiting for its verdict gets no new ticket" },
	{ case_judge_valid, "valid makes the canonical ticket, a second valid does not" },
	{ case_judge_invalid, "invalid gives a new ticket after tick; only answers are judged" },
	{ case_counts_agree, "counts, tasks and ended agree" },
	{ case_sessions_apart, "one session's ticks and tickets never touch another's" },
	{ case_hostile_strings, "names and notes from clients are kept byte for byte" },
	{ case_max_assign, "MaxAssign tickets out at once, a new one when one fails" },
};

int sweep_store_conformance_cases(void)
{
	return (int)ARRAY_SIZE(conf_cases);
}

int sweep_store_conformance(const struct sweep_store_conf *conf)
{
	FILE *out = conf->out ? conf->out : stdout;
	int failed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conf_cases); i++) {
		struct conf_run r = { conf, NULL, conf->t0 ? conf->t0 : 1700000000,
				      conf->prefix ? conf->prefix : "", 0, SBUF_INIT(1 << 16), "" };

		r.st = conf->fresh(conf->arg);
		if (CHECK(&r, r.st != NULL))
			conf_cases[i].fn(&r);
		sweep_store_close(r.st);
		fprintf(out, "%s%sok %zu - %s\n%s", r.prefix, r.nfail ? "not " : "", i + 1,
			conf_cases[i].what, sbuf_str(&r.diag));
		failed += r.nfail > 0;
		sbuf_release(&r.diag);
	}
	fflush(out);
	return failed;
}
