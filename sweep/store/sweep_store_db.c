/*
 * The sweep's project store (sweep_store.h, doc/sweep-store.md): a session
 * on a wseq project's MariaDB, as the project's own daemons see work. A
 * session is a batch "sweep:SID" of the app "sweep"; a task a workunit of
 * it (its row as opaque, its body as xml_doc, Timeout, MaxAssign and
 * MaxTotal as delay_bound, target_nresults and max_total_results); a ticket
 * one of its results, renamed to its ticket when handed out. The project's
 * transitioner makes new tickets and times old ones out, so tick does
 * nothing. The SQL is db/db_sweep.c's.
 *
 * Every call is one transaction, run again on a fresh connection after a
 * deadlock or a lost connection; a call that failed drops its connection
 * (a statement that failed with a deadlock was seen to make the next one on
 * its connection wait forever), and the next call connects afresh. Rows a
 * call hands out are read whole before the caller sees the first: its
 * callback (the master's Validate) runs outside any transaction.
 */
#include "sweep_store.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "fileutil.h"
#include "log.h"
#include "work.h"
#include "wtime.h"

#define TXN_TRIES 3
#define NO_DEADLINE (int64_t)4000000000
#define SWEEP_RESULT_TEMPLATE "templates/sweep_out"

struct db_store {
	struct sweep_store base;        /* first: the interface's */
	struct project_config cfg;
	struct db_params dp;            /* points into cfg */
	struct db *db;                  /* NULL after a failure: the next call connects */
};

typedef int txn_fn(struct db_store *s, void *arg);

static void drop(struct db_store *s)
{
	db_close(s->db);
	s->db = NULL;
}

static int txn_once(struct db_store *s, txn_fn *fn, void *arg, bool *again)
{
	int rc;

	if (!s->db && db_open(&s->db, &s->dp, 0) != DB_OK) {
		s->db = NULL;
		return DB_ERROR;
	}
	rc = db_begin(s->db);
	if (rc == DB_OK)
		rc = fn(s, arg);
	if (rc == DB_OK) {
		rc = db_commit(s->db);
		*again = rc != DB_OK;
		return rc == DB_OK ? DB_OK : DB_RETRY;
	}
	*again = rc == DB_RETRY || db_deadlock(s->db);
	db_rollback(s->db);
	return rc;
}

/*
 * fn(s, arg) in one transaction: committed when it returns DB_OK, rolled
 * back else; run again (fn must start afresh) on a fresh connection after
 * InnoDB chose it as a deadlock's victim or the connection was lost in it.
 * SWEEP_STORE_OK, NOT_FOUND (fn's), or ERROR (logged, the connection dropped).
 */
static int txn(struct db_store *s, const char *what, txn_fn *fn, void *arg)
{
	int rc, tries = 0;

	for (;;) {
		bool again = false;

		rc = txn_once(s, fn, arg, &again);
		if (rc == DB_OK)
			return SWEEP_STORE_OK;
		if (rc == DB_NOT_FOUND)
			return SWEEP_STORE_NOT_FOUND;
		if (s->db && !again)
			log_error("sweep store: %s: %s", what, db_error(s->db));
		else if (!s->db)
			log_error("sweep store: %s: the project database is unavailable", what);
		drop(s);
		if (!again || ++tries == TXN_TRIES)
			return SWEEP_STORE_ERROR;
	}
}

/* ---- sessions ------------------------------------------------------------------- */

/* The app "sweep" (made if missing) and its empty result template. */
static int sweep_app(struct db_store *s, int64_t *appid)
{
	static const char tpl[] = "<output_template>\n<result>\n</result>\n</output_template>\n";
	struct db_app app = { 0 };
	char *path = xasprintf("%s/%s", s->cfg.project_dir, SWEEP_RESULT_TEMPLATE);
	int rc = db_app_lookup_name(s->db, SWEEP_APP_NAME, &app);

	if (rc == DB_NOT_FOUND) {
		app.name = xstrdup(SWEEP_APP_NAME);
		app.user_friendly_name = xstrdup("parameter sweep");
		app.create_time = now();
		rc = db_app_insert(s->db, &app);
	}
	*appid = app.id;
	db_app_release(&app);
	if (rc == DB_OK && access(path, F_OK) != 0 &&
	    write_file_atomic(path, tpl, sizeof(tpl) - 1, 0644) < 0)
		rc = DB_ERROR;
	free(path);
	return rc;
}

struct create_args {
	const char *sid, *spec;
	const struct sweep_task_new **order;   /* the tasks by row: ids, and first tickets, follow rows */
	size_t n;
	struct db_batch b;
	struct db_workunit *wus;
};

static void task_workunit(struct db_workunit *w, const struct db_batch *b,
			  const struct sweep_task_new *t)
{
	w->create_time = now();
	w->appid = b->app_id;
	w->name = xasprintf("sweep_%lld_%zu", (long long)b->id, t->row);
	w->xml_doc = xstrdup(t->body);
	w->batch = b->id;
	w->delay_bound = t->timeout;
	w->min_quorum = 1;
	w->target_nresults = t->max_assign > 0 ? t->max_assign : 1;
	w->max_total_results = t->max_total > 0 ? t->max_total : w->target_nresults;
	w->max_error_results = w->max_total_results;
	w->max_success_results = w->target_nresults;
	w->result_template_file = xstrdup(SWEEP_RESULT_TEMPLATE);
	/* its first tickets are made with it: nothing for the transitioner to do before then */
	w->transition_time = work_safety_net(w, now());
	w->opaque = (double)t->row;
	w->files_indexed = 1;   /* a task body names no input file for the file deleter */
}

/*
 * The first tickets of the n tasks wus (inserted): target_nresults each, as
 * the transitioner would make them, so the clients find work at once instead
 * of after the transitioner's next pass. Later ones are the transitioner's.
 */
static int first_tickets(struct db_store *s, const struct db_workunit *wus, size_t n)
{
	struct db_result *rs;
	size_t i, k = 0, total = 0;
	int j, rc = DB_OK;

	for (i = 0; i < n; i++)
		total += (size_t)wus[i].target_nresults;
	rs = xcalloc(total + 1, sizeof(*rs));
	for (i = 0; rc == DB_OK && i < n; i++)
		for (j = 0; rc == DB_OK && j < wus[i].target_nresults; j++)
			if (work_result_init(&s->cfg, &wus[i], j, &rs[k++]) < 0)
				rc = DB_ERROR;
	if (rc == DB_OK && total)
		rc = db_rec_insert_many(s->db, &db_result_table, rs, sizeof(*rs), total);
	for (i = 0; i < k; i++)
		db_result_release(&rs[i]);
	free(rs);
	return rc;
}

static void create_reset(struct create_args *a)
{
	size_t i;

	for (i = 0; a->wus && i < a->n; i++)
		db_workunit_release(&a->wus[i]);
	free(a->wus);
	a->wus = NULL;
	db_batch_release(&a->b);
	memset(&a->b, 0, sizeof(a->b));
}

static int create_txn(struct db_store *s, void *arg)
{
	struct create_args *a = arg;
	struct db_batch old = { 0 };
	size_t i;
	int rc;

	create_reset(a);
	a->b.name = xasprintf("sweep:%s", a->sid);
	rc = db_batch_lookup_name(s->db, a->b.name, &old);
	db_batch_release(&old);
	if (rc == DB_OK) {
		log_error("sweep store: session %s exists already", a->sid);
		return DB_ERROR;
	}
	rc = rc == DB_NOT_FOUND ? sweep_app(s, &a->b.app_id) : rc;
	a->b.create_time = now();
	a->b.state = BATCH_STATE_IN_PROGRESS;
	a->b.njobs = (int)a->n;
	a->b.description = xstrdup(a->spec ? a->spec : "");
	if (rc == DB_OK)
		rc = db_batch_insert(s->db, &a->b);
	a->wus = xcalloc(a->n + 1, sizeof(*a->wus));
	for (i = 0; rc == DB_OK && i < a->n; i++)
		task_workunit(&a->wus[i], &a->b, a->order[i]);
	if (rc == DB_OK && a->n)
		rc = db_rec_insert_many(s->db, &db_workunit_table, a->wus, sizeof(*a->wus), a->n);
	if (rc == DB_OK)
		rc = first_tickets(s, a->wus, a->n);
	return rc;
}

static int cmp_row(const void *a, const void *b)
{
	size_t x = (*(const struct sweep_task_new *const *)a)->row;
	size_t y = (*(const struct sweep_task_new *const *)b)->row;

	return (x > y) - (x < y);
}

/*
 * Tickets are handed out in the order they were made (result ids, the
 * index /task walks): the tasks go in by row, so their first tickets are
 * handed out lowest row first; later ones, made by the transitioner, after
 * those waiting.
 */
static int store_create(struct sweep_store *st, const char *sid, const char *spec,
			const struct sweep_task_new *tasks, size_t n)
{
	const struct sweep_task_new **order;
	struct create_args a = { sid, spec, NULL, n, { 0 }, NULL };
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct sweep_task_new *t = &tasks[i];

		if (t->row < 1 || t->max_assign < 1 || t->max_total < t->max_assign ||
		    t->timeout < 0 || !t->body) {
			log_error("sweep store: session %s: task %zu makes no sense", sid, i + 1);
			return SWEEP_STORE_ERROR;
		}
	}
	a.order = order = xcalloc(n + 1, sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = &tasks[i];
	if (n)
		qsort(order, n, sizeof(*order), cmp_row);
	rc = txn((struct db_store *)st, "create", create_txn, &a);
	create_reset(&a);
	free(order);
	return rc == SWEEP_STORE_NOT_FOUND ? SWEEP_STORE_ERROR : rc;
}

struct session_args {
	const char *sid;
	struct db_batch b;
};

/* A session is a batch in progress: one an admin retired or aborted is no session. */
static int session_txn(struct db_store *s, void *arg)
{
	struct session_args *a = arg;
	char *name = xasprintf("sweep:%s", a->sid);
	int rc = db_batch_lookup_name(s->db, name, &a->b);

	free(name);
	return rc == DB_OK && a->b.state != BATCH_STATE_IN_PROGRESS ? DB_NOT_FOUND : rc;
}

static int store_session(struct sweep_store *st, const char *sid, int64_t *session, char **spec)
{
	struct session_args a = { sid, { 0 } };
	int rc = txn((struct db_store *)st, "session", session_txn, &a);

	if (rc == SWEEP_STORE_OK) {
		*session = a.b.id;
		if (spec) {
			*spec = a.b.description && *a.b.description ? a.b.description : NULL;
			a.b.description = NULL;
		}
	}
	db_batch_release(&a.b);
	return rc;
}

/* ---- tickets ---------------------------------------------------------------------- */

static enum sweep_ticket_state ticket_state(const struct db_sweep_ticket *r)
{
	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		return SWEEP_TICKET_OUT;
	if (r->server_state != RESULT_SERVER_STATE_OVER)
		return SWEEP_TICKET_UNSENT;
	switch (r->outcome) {
	case RESULT_OUTCOME_SUCCESS:
		return r->validate_state == VALIDATE_STATE_VALID ? SWEEP_TICKET_VALID
			: r->validate_state == VALIDATE_STATE_INVALID ? SWEEP_TICKET_INVALID
			: SWEEP_TICKET_RETURNED;
	case RESULT_OUTCOME_CLIENT_ERROR:
		return SWEEP_TICKET_FAILED;
	case RESULT_OUTCOME_NO_REPLY:
		return SWEEP_TICKET_TIMED_OUT;
	case RESULT_OUTCOME_VALIDATE_ERROR:
		return SWEEP_TICKET_INVALID;
	default:
		return SWEEP_TICKET_CANCELLED;  /* not needed any more, never sent */
	}
}

/* A result as the store's ticket (its strings moved into out). */
static void ticket_from(struct db_sweep_ticket *r, struct sweep_ticket *out)
{
	memset(out, 0, sizeof(*out));
	out->id = r->id;
	out->task = r->workunitid;
	out->row = r->opaque > 0 ? (size_t)r->opaque : 0;
	out->state = ticket_state(r);
	if (out->state != SWEEP_TICKET_UNSENT) {
		out->name = r->name;
		r->name = NULL;
	}
	out->sent_time = r->sent_time;
	out->deadline = r->report_deadline < NO_DEADLINE ? r->report_deadline : 0;
	out->received_time = r->received_time;
	out->elapsed = r->elapsed_time;
	out->note = r->stderr_out ? r->stderr_out : xstrdup("");
	r->stderr_out = NULL;
	out->task_over = r->canonical_resultid || r->error_mask;
}

struct next_args {
	int64_t session, t;
	const char *ticket, *note;
	struct db_sweep_claim c;
};

static int next_txn(struct db_store *s, void *arg)
{
	struct next_args *a = arg;
	int rc = db_sweep_next(s->db, a->session, &a->c);

	/* due at its timeout: then the transitioner hands the task out again */
	if (rc == DB_OK)
		rc = db_sweep_send(s->db, &a->c, a->ticket, a->t,
				   a->c.delay_bound > 0 ? a->t + a->c.delay_bound : NO_DEADLINE,
				   a->note);
	return rc;
}

static int store_next(struct sweep_store *st, int64_t session, const char *ticket, int64_t t,
		      const char *note, struct sweep_claim *out)
{
	struct next_args a = { session, t, ticket, note, { 0 } };
	int rc = txn((struct db_store *)st, "next ticket", next_txn, &a);

	memset(out, 0, sizeof(*out));
	if (rc == SWEEP_STORE_OK) {
		out->ticket = a.c.id;
		out->task = a.c.workunitid;
		out->row = a.c.opaque > 0 ? (size_t)a.c.opaque : 0;
		out->timeout = a.c.delay_bound;
		out->body = a.c.xml_doc ? a.c.xml_doc : xstrdup("");
		a.c.xml_doc = NULL;
	}
	db_rec_release(&db_sweep_claim_table, &a.c);
	return rc;
}

struct ticket_args {
	int64_t session;
	const char *name;
	struct db_sweep_ticket r;
	struct db_workunit wu;
};

static int ticket_txn(struct db_store *s, void *arg)
{
	struct ticket_args *a = arg;
	int rc = db_sweep_ticket(s->db, a->session, a->name, &a->r);

	if (rc == DB_OK)
		rc = db_workunit_lookup_id(s->db, a->r.workunitid, &a->wu);
	return rc;
}

static int store_ticket(struct sweep_store *st, int64_t session, const char *name,
			struct sweep_ticket *out)
{
	struct ticket_args a = { session, name, { 0 }, { 0 } };
	int rc = txn((struct db_store *)st, "ticket", ticket_txn, &a);

	memset(out, 0, sizeof(*out));
	if (rc == SWEEP_STORE_OK) {
		ticket_from(&a.r, out);
		out->body = a.wu.xml_doc ? a.wu.xml_doc : xstrdup("");
		a.wu.xml_doc = NULL;
	}
	db_rec_release(&db_sweep_ticket_table, &a.r);
	db_workunit_release(&a.wu);
	return rc;
}

struct report_args {
	int64_t ticket, t;
	bool success;
	const char *note;
	bool taken;
};

static int report_txn(struct db_store *s, void *arg)
{
	struct report_args *a = arg;

	return db_sweep_report(s->db, a->ticket, a->success, a->t, a->note, &a->taken);
}

static int store_report(struct sweep_store *st, int64_t ticket, bool success, int64_t t,
			const char *note, bool *taken)
{
	struct report_args a = { ticket, t, success, note ? note : "", false };
	int rc = txn((struct db_store *)st, "report", report_txn, &a);

	*taken = rc == SWEEP_STORE_OK && a.taken;
	return rc;
}

/* The project's transitioner does it. */
static int store_tick(struct sweep_store *st, int64_t session, int64_t t, bool *changed)
{
	(void)st;
	(void)session;
	(void)t;
	*changed = false;
	return SWEEP_STORE_OK;
}

struct judge_args {
	const struct sweep_verdict *v;
	size_t n;
	int64_t t;
};

static int judge_txn(struct db_store *s, void *arg)
{
	struct judge_args *a = arg;
	size_t i;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < a->n; i++)
		rc = db_sweep_judge(s->db, a->v[i].ticket, a->v[i].valid, a->t);
	return rc;
}

static int store_judge(struct sweep_store *st, const struct sweep_verdict *v, size_t n, int64_t t)
{
	struct judge_args a = { v, n, t };

	return n ? txn((struct db_store *)st, "judge", judge_txn, &a) : SWEEP_STORE_OK;
}

/* ---- lists and counts ----------------------------------------------------------------- */

enum rows_kind { ROWS_RETURNED, ROWS_ENDED, ROWS_TASKS };

/* The rows of one enumeration, read whole (db_rows_take) before anyone sees them. */
struct rows_args {
	int64_t session;
	enum rows_kind kind;
	const struct db_table *table;
	void *v;
	size_t n;
};

DB_ROWS_TAKER(take_ticket_row, struct db_sweep_ticket)
DB_ROWS_TAKER(take_task_row, struct db_sweep_task)

static void rows_reset(struct rows_args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		db_rec_release(a->table, (char *)a->v + i * a->table->size);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

static int rows_txn(struct db_store *s, void *arg)
{
	struct rows_args *a = arg;
	struct db_rows rows = { &a->v, &a->n, a->table->size, 0 };

	rows_reset(a);
	switch (a->kind) {
	case ROWS_RETURNED:
		return db_sweep_returned(s->db, a->session, take_ticket_row, &rows);
	case ROWS_ENDED:
		return db_sweep_ended(s->db, a->session, take_ticket_row, &rows);
	default:
		return db_sweep_tasks(s->db, a->session, take_task_row, &rows);
	}
}

/* Who is handed an enumeration's rows, one by one, as the store's records. */
struct each_args {
	int (*ticket_fn)(const struct sweep_ticket *, void *);
	int (*task_fn)(const struct sweep_task_state *, void *);
	void *arg;
};

static int visit_ticket(void *row, const struct each_args *e)
{
	struct sweep_ticket t;
	int stop;

	ticket_from(row, &t);
	stop = e->ticket_fn(&t, e->arg);
	sweep_ticket_release(&t);
	return stop;
}

static int visit_task(void *row, const struct each_args *e)
{
	const struct db_sweep_task *v = row;
	struct sweep_task_state t = {
		.id = v->id,
		.row = v->opaque > 0 ? (size_t)v->opaque : 0,
		.canonical = v->canonical_resultid && v->canonical && *v->canonical
			? v->canonical : NULL,
		.failed = !v->canonical_resultid && v->error_mask,
		.nout = v->nrunning,
		.nunsent = v->nunsent,
	};

	return e->task_fn(&t, e->arg);
}

/* The rows an enumeration of db_sweep.c gives, read whole, then one by one to e. */
static int each_row(struct sweep_store *st, const char *what, enum rows_kind kind,
		    int64_t session, struct each_args e)
{
	bool tasks = kind == ROWS_TASKS;
	int (*visit)(void *, const struct each_args *) = tasks ? visit_task : visit_ticket;
	const struct db_table *table = tasks ? &db_sweep_task_table : &db_sweep_ticket_table;
	struct rows_args a = { session, kind, table, NULL, 0 };
	int rc = txn((struct db_store *)st, what, rows_txn, &a);
	size_t i;

	for (i = 0; rc == SWEEP_STORE_OK && i < a.n; i++)
		if (visit((char *)a.v + i * table->size, &e))
			break;
	rows_reset(&a);
	return rc == SWEEP_STORE_NOT_FOUND ? SWEEP_STORE_OK : rc;
}

static int store_returned(struct sweep_store *st, int64_t session,
			  int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return each_row(st, "returned tickets", ROWS_RETURNED, session,
			(struct each_args){ .ticket_fn = fn, .arg = arg });
}

static int store_ended(struct sweep_store *st, int64_t session,
		       int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return each_row(st, "ended tickets", ROWS_ENDED, session,
			(struct each_args){ .ticket_fn = fn, .arg = arg });
}

static int store_tasks(struct sweep_store *st, int64_t session,
		       int (*fn)(const struct sweep_task_state *, void *), void *arg)
{
	return each_row(st, "tasks", ROWS_TASKS, session,
			(struct each_args){ .task_fn = fn, .arg = arg });
}

struct counts_args {
	int64_t session;
	struct db_sweep_counts c;
};

static int counts_txn(struct db_store *s, void *arg)
{
	struct counts_args *a = arg;

	return db_sweep_counts(s->db, a->session, &a->c);
}

static int store_counts(struct sweep_store *st, int64_t session, struct sweep_counts *c)
{
	struct counts_args a = { session, { 0 } };
	int rc = txn((struct db_store *)st, "counts", counts_txn, &a);

	memset(c, 0, sizeof(*c));
	if (rc == SWEEP_STORE_OK) {
		c->total = a.c.total;
		c->done = a.c.done;
		c->failed = a.c.failed;
		c->running = a.c.running;
		c->waiting = a.c.waiting_ticket != 0;
	}
	return rc;
}

/* ---- opening ---------------------------------------------------------------------- */

static void store_close(struct sweep_store *st)
{
	struct db_store *s = (struct db_store *)st;

	db_close(s->db);
	config_release(&s->cfg);
	free(s);
}

static const struct sweep_store_ops db_store_ops = {
	"project", store_close, store_create, store_session, store_next, store_ticket,
	store_report, store_tick, store_returned, store_judge, store_tasks, store_ended,
	store_counts,
};

struct sweep_store *sweep_store_open_project(const char *project_config, struct sbuf *err)
{
	struct db_store *s = xcalloc(1, sizeof(*s));

	s->base.ops = &db_store_ops;
	if (config_load(&s->cfg, project_config, NULL, NULL) < 0) {
		sbuf_addf(err, "cannot read the project's configuration %s", project_config);
		free(s);
		return NULL;
	}
	db_params_from_config(&s->dp, &s->cfg);
	if (db_open(&s->db, &s->dp, 0) != DB_OK) {
		sbuf_addstr(err, "the project database is unavailable");
		s->db = NULL;
		store_close(&s->base);
		return NULL;
	}
	return &s->base;
}
