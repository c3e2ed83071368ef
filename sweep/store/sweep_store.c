/*
 * The sweep store's calls (sweep_store.h): each goes to the implementation
 * the store was opened with. Nothing here knows SQLite or MariaDB.
 */
#include "sweep_store.h"

void sweep_ticket_release(struct sweep_ticket *t)
{
	free(t->name);
	free(t->note);
	free(t->body);
	memset(t, 0, sizeof(*t));
}

void sweep_claim_release(struct sweep_claim *c)
{
	free(c->body);
	memset(c, 0, sizeof(*c));
}

void sweep_store_close(struct sweep_store *st)
{
	if (st)
		st->ops->close(st);
}

int sweep_store_create(struct sweep_store *st, const char *sid, const char *spec,
		       const struct sweep_task_new *tasks, size_t ntasks)
{
	return st->ops->create(st, sid, spec, tasks, ntasks);
}

int sweep_store_session(struct sweep_store *st, const char *sid, int64_t *session, char **spec)
{
	return st->ops->session(st, sid, session, spec);
}

int sweep_store_next(struct sweep_store *st, int64_t session, const char *ticket, int64_t t,
		     const char *note, struct sweep_claim *out)
{
	return st->ops->next(st, session, ticket, t, note, out);
}

int sweep_store_ticket(struct sweep_store *st, int64_t session, const char *name,
		       struct sweep_ticket *out)
{
	return st->ops->ticket(st, session, name, out);
}

int sweep_store_report(struct sweep_store *st, int64_t ticket, bool success, int64_t t,
		       const char *note, bool *taken)
{
	return st->ops->report(st, ticket, success, t, note, taken);
}

int sweep_store_tick(struct sweep_store *st, int64_t session, int64_t t, bool *changed)
{
	bool dummy;

	return st->ops->tick(st, session, t, changed ? changed : &dummy);
}

int sweep_store_returned(struct sweep_store *st, int64_t session,
			 int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return st->ops->returned(st, session, fn, arg);
}

int sweep_store_judge(struct sweep_store *st, const struct sweep_verdict *v, size_t n, int64_t t)
{
	return st->ops->judge(st, v, n, t);
}

int sweep_store_tasks(struct sweep_store *st, int64_t session,
		      int (*fn)(const struct sweep_task_state *, void *), void *arg)
{
	return st->ops->tasks(st, session, fn, arg);
}

int sweep_store_ended(struct sweep_store *st, int64_t session,
		      int (*fn)(const struct sweep_ticket *, void *), void *arg)
{
	return st->ops->ended(st, session, fn, arg);
}

int sweep_store_counts(struct sweep_store *st, int64_t session, struct sweep_counts *c)
{
	return st->ops->counts(st, session, c);
}
