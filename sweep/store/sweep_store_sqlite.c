/*
 * The embedded sweep store's calls (sweep_store.h) on its file
 * (sweep_store_sqlite_file.c). tick() does the transitioner's work itself,
 * with the transitioner's rules (daemons/transitioner.c, as db_sweep.c's
 * sessions get them): doc/sweep-store.md has the rules.
 *
 * A handle may be shared by threads (the embedded HTTP server's): its calls
 * take turns on a mutex. A callback of returned/tasks/ended runs inside the
 * call's read transaction and must not call the store (it gets ERROR).
 */
#include "sweep_store_sqlite_int.h"
#include "log.h"

/* A ticket's columns (the file's TICKET_COLS); then ticket_elapsed(). */
#define SQ_TICKET(t) SQ_INT64(&(t)->id), SQ_INT64(&(t)->task), SQ_SIZE(&(t)->row), \
	SQ_TEXT(&(t)->name), SQ_STATE(&(t)->state), SQ_INT64(&(t)->sent_time), \
	SQ_INT64(&(t)->deadline), SQ_INT64(&(t)->received_time), SQ_TEXT(&(t)->note), \
	SQ_BOOL(&(t)->task_over)

static void ticket_elapsed(struct sweep_ticket *t)
{
	t->elapsed = t->received_time && t->received_time > t->sent_time
		? (double)(t->received_time - t->sent_time) : 0;
}

/* sq_row()'s answer as a call's: OK, NOT_FOUND when no row, or ERROR. */
static int found(int rc)
{
	return rc == 1 ? SWEEP_STORE_OK : rc == 0 ? SWEEP_STORE_NOT_FOUND : rc;
}

/* ---- create, session ------------------------------------------------------------------- */

struct create_args {
	const char *sid, *spec;
	const struct sweep_task_new *tasks;
	size_t n;
};

static int create_task(struct sq *s, int64_t session, const struct sweep_task_new *t)
{
	int64_t task;
	int k;

	if (t->row < 1 || !t->body || t->timeout < 0 || t->max_assign < 1 ||
	    t->max_total < t->max_assign)
		return log_error("sweep store: task of row %zu: bad limits or no body", t->row);
	if (sq_exec(s, Q_TASK_NEW, SQ_VALS(SQ_I(session), SQ_I(t->row), SQ_S(t->body),
					   SQ_I(t->timeout), SQ_I(t->max_assign),
					   SQ_I(t->max_total))) < 0)
		return SWEEP_STORE_ERROR;
	task = sqlite3_last_insert_rowid(s->db);
	for (k = 0; k < t->max_assign; k++)
		if (sq_exec(s, Q_TICKET_NEW, SQ_VALS(SQ_I(session), SQ_I(task), SQ_I(t->row))) < 0)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int do_create(struct sq *s, void *arg)
{
	const struct create_args *a = arg;
	int64_t session;
	size_t i;

	if (sq_exec(s, Q_SESSION_NEW, SQ_VALS(SQ_S(a->sid), SQ_S(a->spec), SQ_I(a->n))) < 0)
		return SWEEP_STORE_ERROR;
	session = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < a->n; i++)
		if (create_task(s, session, &a->tasks[i]) != SWEEP_STORE_OK)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_create(struct sweep_store *st, const char *sid, const char *spec,
		     const struct sweep_task_new *tasks, size_t n)
{
	struct create_args a = { sid, spec, tasks, n };

	if (!sid || !*sid)
		return log_error("sweep store: a session needs an ID");
	return sq_txn((struct sq *)st, true, do_create, &a);
}

struct session_args {
	const char *sid;
	int64_t *session;
	char **spec;
};

static int do_session(struct sq *s, void *arg)
{
	struct session_args *a = arg;

	return found(sq_row(s, Q_SESSION, SQ_VALS(SQ_S(a->sid)),
			    SQ_COLS(SQ_INT64(a->session), SQ_TEXT(a->spec))));
}

static int sq_session(struct sweep_store *st, const char *sid, int64_t *session, char **spec)
{
	struct session_args a = { sid, session, spec };

	*session = 0;
	if (spec)
		*spec = NULL;
	return sid ? sq_txn((struct sq *)st, false, do_session, &a) : SWEEP_STORE_NOT_FOUND;
}

/* ---- next, ticket, report -------------------------------------------------------------- */

struct next_args {
	int64_t session, t;
	const char *name, *note;
	struct sweep_claim *out;
};

static int do_next(struct sq *s, void *arg)
{
	struct next_args *a = arg;
	struct sweep_claim *c = a->out;
	int rc = sq_row(s, Q_NEXT, SQ_VALS(SQ_I(a->session)),
			SQ_COLS(SQ_INT64(&c->ticket), SQ_INT64(&c->task), SQ_SIZE(&c->row),
				SQ_INT(&c->timeout), SQ_TEXT(&c->body)));

	if (rc <= 0)
		return found(rc);
	if (sq_exec(s, Q_SEND, SQ_VALS(SQ_S(a->name), SQ_I(a->t),
				       SQ_I(c->timeout > 0 ? a->t + c->timeout : 0),
				       SQ_S(a->note ? a->note : ""), SQ_I(c->ticket))) != 1) {
		sweep_claim_release(c);
		return SWEEP_STORE_ERROR;
	}
	return SWEEP_STORE_OK;
}

static int sq_next(struct sweep_store *st, int64_t session, const char *ticket, int64_t t,
		   const char *note, struct sweep_claim *out)
{
	struct next_args a = { session, t, ticket, note, out };

	memset(out, 0, sizeof(*out));
	if (!ticket || !*ticket)
		return log_error("sweep store: a ticket needs a name");
	return sq_txn((struct sq *)st, true, do_next, &a);
}

struct ticket_args {
	int64_t session;
	const char *name;
	struct sweep_ticket *out;
};

static int do_ticket(struct sq *s, void *arg)
{
	struct ticket_args *a = arg;
	int rc = sq_row(s, Q_TICKET, SQ_VALS(SQ_I(a->session), SQ_S(a->name)),
			SQ_COLS(SQ_TICKET(a->out), SQ_TEXT(&a->out->body)));

	ticket_elapsed(a->out);
	return found(rc);
}

static int sq_ticket(struct sweep_store *st, int64_t session, const char *name,
		     struct sweep_ticket *out)
{
	struct ticket_args a = { session, name, out };

	memset(out, 0, sizeof(*out));
	return name ? sq_txn((struct sq *)st, false, do_ticket, &a) : SWEEP_STORE_NOT_FOUND;
}

struct report_args {
	int64_t ticket, t;
	bool success;
	const char *note;
	bool *taken;
};

static int do_report(struct sq *s, void *arg)
{
	struct report_args *a = arg;
	int64_t n = sq_exec(s, Q_REPORT, SQ_VALS(SQ_I(a->success ? SWEEP_TICKET_RETURNED
						 : SWEEP_TICKET_FAILED), SQ_I(a->t),
						 SQ_S(a->note ? a->note : ""), SQ_I(a->ticket)));

	if (n < 0)
		return SWEEP_STORE_ERROR;
	*a->taken = n > 0;
	/* a failure: its task wants a new ticket (tick) */
	if (n > 0 && !a->success && sq_exec(s, Q_DUE_OF_TICKET, SQ_VALS(SQ_I(a->ticket))) < 0)
		return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_report(struct sweep_store *st, int64_t ticket, bool success, int64_t t,
		     const char *note, bool *taken)
{
	struct report_args a = { ticket, t, success, note, taken };

	*taken = false;
	return sq_txn((struct sq *)st, true, do_report, &a);
}

/* ---- tick: the transitioner's work ------------------------------------------------------- */

struct due_task {
	int64_t id, row, session;
	int max_assign, max_total;
	bool over;
};

/* A task ends without a valid ticket: failed, its unsent tickets cancelled. */
static int fail_task(struct sq *s, const struct due_task *d)
{
	log_info("sweep store: task of row %" PRId64 " failed: out of tickets (%d)", d->row,
		 d->max_total);
	if (sq_exec(s, Q_TASK_FAIL, SQ_VALS(SQ_I(d->id))) < 0 ||
	    sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(d->id))) < 0 ||
	    sq_exec(s, Q_SESSION_ADD, SQ_VALS(SQ_I(0), SQ_I(1), SQ_I(d->session))) < 0)
		return SWEEP_STORE_ERROR;
	return 1;
}

/* A task's tickets counted by state (Q_TASK_COUNTS), a row at a time. */
struct state_counts {
	int state;
	int64_t n, c[SWEEP_TICKET_CANCELLED + 1], total;
};

static int add_state(void *arg)
{
	struct state_counts *k = arg;

	if (k->state >= 0 && k->state <= SWEEP_TICKET_CANCELLED)
		k->c[k->state] = k->n;
	k->total += k->n;
	return 0;
}

/*
 * The transitioner's rule for a task without a valid ticket: it wants
 * max_assign tickets unsent, out or successful (returned, valid); it gets
 * them while it has had fewer than max_total; when it wants one and may
 * have none, it fails. Returns the rows changed, or ERROR.
 */
static int settle_task(struct sq *s, const struct due_task *d)
{
	struct state_counts n = { 0 };
	const int64_t *c = n.c;
	int64_t needed, allowed, k;
	int rc = sq_rows(s, Q_TASK_COUNTS, SQ_VALS(SQ_I(d->id)),
			 SQ_COLS(SQ_INT(&n.state), SQ_INT64(&n.n)), add_state, &n);

	if (rc < 0)
		return rc;
	needed = d->max_assign - c[SWEEP_TICKET_UNSENT] - c[SWEEP_TICKET_OUT] -
		c[SWEEP_TICKET_RETURNED] - c[SWEEP_TICKET_VALID];
	needed = needed < 0 ? 0 : needed;
	allowed = d->max_total - n.total;
	if (allowed < 0 || (allowed == 0 && needed > 0))
		return fail_task(s, d);
	for (k = 0; k < needed && k < allowed; k++)
		if (sq_exec(s, Q_TICKET_NEW, SQ_VALS(SQ_I(d->session), SQ_I(d->id), SQ_I(d->row))) < 0)
			return SWEEP_STORE_ERROR;
	return (int)k;
}

/* The session's next due task (1), none (0), or ERROR. */
static int next_due(struct sq *s, int64_t session, struct due_task *d)
{
	d->session = session;
	return sq_row(s, Q_DUE_NEXT, SQ_VALS(SQ_I(session)),
		      SQ_COLS(SQ_INT64(&d->id), SQ_INT64(&d->row), SQ_INT(&d->max_assign),
			      SQ_INT(&d->max_total), SQ_BOOL(&d->over)));
}

struct tick_args {
	int64_t session, t;
	bool *changed;
};

static int do_tick(struct sq *s, void *arg)
{
	struct tick_args *a = arg;
	struct due_task d;
	int64_t n;
	int rc;

	if (sq_exec(s, Q_TIMEOUT_DUE, SQ_VALS(SQ_I(a->session), SQ_I(a->t))) < 0 ||
	    (n = sq_exec(s, Q_TIMEOUT, SQ_VALS(SQ_I(a->session), SQ_I(a->t)))) < 0)
		return SWEEP_STORE_ERROR;
	*a->changed = n > 0;
	while ((rc = next_due(s, a->session, &d)) == 1) {
		n = d.over ? sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(d.id))) : settle_task(s, &d);
		if (n < 0 || sq_exec(s, Q_TASK_SETTLED, SQ_VALS(SQ_I(d.id))) < 0)
			return SWEEP_STORE_ERROR;
		*a->changed = *a->changed || n > 0;
	}
	return rc < 0 ? rc : SWEEP_STORE_OK;
}

static int sq_tick(struct sweep_store *st, int64_t session, int64_t t, bool *changed)
{
	struct tick_args a = { session, t, changed };

	*changed = false;
	return sq_txn((struct sq *)st, true, do_tick, &a);
}

/* ---- judging --------------------------------------------------------------------------- */

struct judge_args {
	const struct sweep_verdict *v;
	size_t n;
};

/*
 * A valid ticket: its task's canonical one if it has none (the task is
 * done then, even one that had failed meanwhile), its unsent tickets
 * cancelled. An invalid one: its task wants a new ticket (tick).
 */
static int judge_one(struct sq *s, const struct sweep_verdict *v)
{
	int64_t task, session;
	bool first, failed;
	int rc = sq_row(s, Q_JUDGE_OF, SQ_VALS(SQ_I(v->ticket)),
			SQ_COLS(SQ_INT64(&task), SQ_INT64(&session), SQ_BOOL(&first),
				SQ_BOOL(&failed)));

	if (rc <= 0)
		return rc;      /* not RETURNED: judged already, or not an answer */
	if (sq_exec(s, Q_JUDGED, SQ_VALS(SQ_I(v->valid ? SWEEP_TICKET_VALID : SWEEP_TICKET_INVALID),
					 SQ_I(v->ticket))) < 0)
		return SWEEP_STORE_ERROR;
	if (!v->valid)
		return sq_exec(s, Q_TASK_DUE, SQ_VALS(SQ_I(task))) < 0 ? SWEEP_STORE_ERROR : 0;
	if (!first)
		return 0;
	if (sq_exec(s, Q_CANONICAL, SQ_VALS(SQ_I(v->ticket), SQ_I(task))) < 0 ||
	    sq_exec(s, Q_CANCEL, SQ_VALS(SQ_I(task))) < 0 ||
	    sq_exec(s, Q_SESSION_ADD, SQ_VALS(SQ_I(1), SQ_I(failed ? -1 : 0), SQ_I(session))) < 0)
		return SWEEP_STORE_ERROR;
	return 0;
}

static int do_judge(struct sq *s, void *arg)
{
	struct judge_args *a = arg;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (judge_one(s, &a->v[i]) < 0)
			return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_judge(struct sweep_store *st, const struct sweep_verdict *v, size_t n, int64_t t)
{
	struct judge_args a = { v, n };

	return sq_txn((struct sq *)st, true, do_judge, &a);
}

/* ---- reading a session ------------------------------------------------------------------ */

/* An enumeration: each row read into t or k, then handed to ticket_fn or task_fn. */
struct each_args {
	enum sq_query q;
	int64_t session;
	int (*ticket_fn)(const struct sweep_ticket *, void *);
	int (*task_fn)(const struct sweep_task_state *, void *);
	void *arg;
	struct sweep_ticket t;
	struct sweep_task_state k;
};

static int each_ticket(void *arg)
{
	struct each_args *a = arg;
	int stop;

	ticket_elapsed(&a->t);
	stop = a->ticket_fn(&a->t, a->arg);
	sweep_ticket_release(&a->t);
	return stop;
}

static int each_task(void *arg)
{
	struct each_args *a = arg;
	int stop = a->task_fn(&a->k, a->arg);

	free(a->k.canonical);
	a->k.canonical = NULL;
	return stop;
}

static int do_each(struct sq *s, void *arg)
{
	struct each_args *a = arg;
	struct sweep_task_state *k = &a->k;
	int rc = a->ticket_fn
		? sq_rows(s, a->q, SQ_VALS(SQ_I(a->session)), SQ_COLS(SQ_TICKET(&a->t)),
			  each_ticket, a)
		: sq_rows(s, a->q, SQ_VALS(SQ_I(a->session)),
			  SQ_COLS(SQ_INT64(&k->id), SQ_SIZE(&k->row), SQ_TEXT(&k->canonical),
				  SQ_BOOL(&k->failed), SQ_INT(&k->nout), SQ_INT(&k->nunsent)),
			  each_task, a);

	return rc < 0 ? rc : SWEEP_STORE_OK;
}

static int each(struct sweep_store *st, struct each_args a)
{
	return sq_txn((struct sq *)st, false, do_each, &a);
}

static int sq_returned(struct sweep_store *st, int64_t session,
		       int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return each(st, (struct each_args){ .q = Q_RETURNED, .session = session,
					    .ticket_fn = fn, .arg = arg });
}

static int sq_ended(struct sweep_store *st, int64_t session,
		    int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return each(st, (struct each_args){ .q = Q_ENDED, .session = session, .ticket_fn = fn,
					    .arg = arg });
}

static int sq_tasks(struct sweep_store *st, int64_t session,
		    int (*fn)(const struct sweep_task_state *, void *), void *arg)
{
	return each(st, (struct each_args){ .q = Q_TASKS, .session = session, .task_fn = fn,
					    .arg = arg });
}

struct counts_args {
	int64_t session;
	struct sweep_counts *c;
};

static int do_counts(struct sq *s, void *arg)
{
	struct counts_args *a = arg;
	struct sweep_counts *c = a->c;
	int rc = sq_row(s, Q_COUNTS, SQ_VALS(SQ_I(a->session)),
			SQ_COLS(SQ_INT64(&c->total), SQ_INT64(&c->done), SQ_INT64(&c->failed)));

	if (rc <= 0)
		return found(rc);
	if (sq_row(s, Q_RUNNING, SQ_VALS(SQ_I(a->session)), SQ_COLS(SQ_INT64(&c->running))) < 0 ||
	    sq_row(s, Q_WAITING, SQ_VALS(SQ_I(a->session)), SQ_COLS(SQ_BOOL(&c->waiting))) < 0)
		return SWEEP_STORE_ERROR;
	return SWEEP_STORE_OK;
}

static int sq_counts(struct sweep_store *st, int64_t session, struct sweep_counts *c)
{
	struct counts_args a = { session, c };

	memset(c, 0, sizeof(*c));
	return sq_txn((struct sq *)st, false, do_counts, &a);
}

const struct sweep_store_ops sq_ops = {
	.kind = "sqlite",
	.close = sq_close,
	.create = sq_create,
	.session = sq_session,
	.next = sq_next,
	.ticket = sq_ticket,
	.report = sq_report,
	.tick = sq_tick,
	.returned = sq_returned,
	.judge = sq_judge,
	.tasks = sq_tasks,
	.ended = sq_ended,
	.counts = sq_counts,
};

