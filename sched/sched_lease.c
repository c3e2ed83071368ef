/*
 * Results claimed ahead (issue 34): a FastCGI scheduler process that runs
 * out of candidates reads a batch of unsent results in the statement it
 * reads its own candidates with, leases those it does not send
 * (result.lease_until), and hands them to the requests it serves next from
 * memory -- each checked against the host as any candidate, and claimed by
 * the same conditional UPDATE (server_state=2), so a result is never sent
 * twice, whoever holds a lease. Other processes pass leased results over
 * while they have other work, and take them when they have none. A process
 * killed with results in hand gives nothing back: the lease ends and others
 * take them. How many a process claims ahead follows its rate of sending:
 * half a second's worth, within sched_claim_ahead_min and sched_claim_ahead,
 * and none below 16 (32 jobs a second): a process that sends less reads
 * what it sends, as without a pool, so that where one client at a time
 * calls, work added later with a higher priority is never held up behind
 * results in hand. The lease is short (5 s by
 * default), so what a process holds is sent in its priority order within a
 * few seconds or returns to all.
 */
#include "sched_policy.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

/* A leased result: at its end, or this close to it, it is no longer handed out. */
#define LEASE_MARGIN 2
#define AHEAD_LEAST 16

struct pool_entry {
	struct db_result r;     /* id 0: sent -- the slot is dropped at the request's end */
	int64_t until;          /* the lease's end */
	bool fresh;             /* leased by the open transaction: gone if it rolls back */
};

struct sched_pool {
	struct pool_entry *v;   /* in the order they are sent */
	size_t n;
	size_t lent;            /* v[0..lent) were lent to the request being served */
	struct sched_rate sent;         /* jobs sent a second */
	sched_lease_fn *lease;          /* db_result_lease, or a unit test's */
};

struct sched_pool *sched_pool_new_leasing(sched_lease_fn *lease)
{
	struct sched_pool *p = xcalloc(1, sizeof(struct sched_pool));

	p->lease = lease;
	return p;
}

struct sched_pool *sched_pool_new(void)
{
	return sched_pool_new_leasing(db_result_lease);
}

size_t sched_pool_size(const struct sched_pool *p)
{
	return p->n;
}

bool sched_pool_used(const struct sched_pool *p)
{
	return p->lent > 0;
}

bool sched_pool_has(const struct sched_pool *p, int64_t id)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].r.id == id)
			return true;
	return false;
}

/* Drop slot i (sent, rolled back or near its lease's end). */
static void drop(struct sched_pool *p, size_t i)
{
	db_result_release(&p->v[i].r);
	memset(&p->v[i].r, 0, sizeof(p->v[i].r));
}

/* Drop what is near its lease's end (logged), and the empty slots. */
static void compact(struct sched_pool *p, int64_t t)
{
	size_t i, k = 0;

	for (i = 0; i < p->n; i++) {
		struct pool_entry *e = &p->v[i];

		if (e->r.id != 0 && e->until - LEASE_MARGIN < t) {
			log_debug("result %s: claimed ahead until %" PRId64 ", no longer handed out",
				  e->r.name, e->until);
			drop(p, i);
		}
		if (e->r.id != 0)
			p->v[k++] = *e;
	}
	p->n = k;
}

size_t sched_pool_lend(struct sched_pool *p, int64_t t, size_t max, struct db_result_list *c)
{
	size_t first;

	if (p->lent == 0)
		compact(p, t);
	first = p->lent;
	while (max-- > 0 && p->lent < p->n) {
		struct pool_entry *e = &p->v[p->lent++];

		ARRAY_GROW(c->v, c->n);
		c->v[c->n++] = e->r;
		memset(&e->r, 0, sizeof(e->r));
	}
	return first;
}

void sched_pool_settle(struct sched_pool *p, struct db_result_list *c, size_t first)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		p->v[first + i].r = c->v[i];    /* id 0 when the request sent it */
		memset(&c->v[i], 0, sizeof(c->v[i]));
	}
}

/* The lease statement over the slots from on, DB_SEQ_BATCH ids at a time (until 0: given back). */
static int lease_slots(struct sched_pool *p, struct db *db, size_t from, int64_t until)
{
	int64_t ids[DB_SEQ_BATCH];
	size_t i, n = 0;
	int rc = DB_OK;

	for (i = from; rc == DB_OK && i < p->n; i++) {
		ids[n++] = p->v[i].r.id;
		if (n == DB_SEQ_BATCH || i + 1 == p->n) {
			rc = p->lease(db, ids, n, until);
			n = 0;
		}
	}
	return rc;
}

int sched_pool_lease(struct sched_pool *p, struct db *db, struct db_result_list *c, size_t max,
		     int64_t until)
{
	size_t i, first = p->n;
	int rc;

	for (i = 0; i < c->n && p->n - first < max; i++) {
		struct pool_entry *e;

		if (c->v[i].id == 0)
			continue;       /* sent by this request */
		ARRAY_GROW(p->v, p->n);
		e = &p->v[p->n++];
		e->r = c->v[i];
		e->until = until;
		e->fresh = true;
		memset(&c->v[i], 0, sizeof(c->v[i]));
	}
	rc = lease_slots(p, db, first, until);
	if (p->n > first)
		log_debug("claimed %zu results ahead until %" PRId64 " (%zu in hand)", p->n - first,
			  until, p->n);
	return rc;
}

void sched_pool_count(struct sched_pool *p, int64_t t, size_t sent)
{
	sched_rate_count(&p->sent, t, (long)sent);
}

size_t sched_pool_ahead(const struct sched_pool *p, const struct sched_settings *set, int64_t t)
{
	long rate = sched_rate_at(&p->sent, t);
	/* fewer than AHEAD_LEAST are not worth a lease: a slow process reads what it sends */
	long ahead = rate / 2 >= AHEAD_LEAST ? rate / 2 : 0;

	if (ahead < set->claim_ahead_min)
		ahead = set->claim_ahead_min;
	if (ahead > set->claim_ahead)
		ahead = set->claim_ahead;
	return (size_t)ahead;
}

void sched_pool_end(struct sched_pool *p, bool committed, int64_t t)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->v[i].fresh && !committed)
			drop(p, i);
		p->v[i].fresh = false;
	}
	compact(p, t);
	p->lent = 0;
}

void sched_pool_forget(struct sched_pool *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		drop(p, i);
	p->n = 0;
	p->lent = 0;
}

void sched_pool_free(struct sched_pool *p, struct db *db)
{
	int rc;

	if (!p)
		return;
	compact(p, now());      /* what is near its lease's end may be another's by now */
	if (db && p->n > 0) {
		rc = db_begin(db);
		if (rc == DB_OK)
			rc = lease_slots(p, db, 0, 0);
		if (rc == DB_OK)
			rc = db_commit(db);
		if (rc == DB_OK) {
			log_info("gave back %zu results claimed ahead", p->n);
		} else {
			if (db_in_transaction(db))
				db_rollback(db);
			log_warn("could not give back %zu results claimed ahead (their lease ends "
				 "by itself): %s", p->n, db_error(db));
		}
	}
	sched_pool_forget(p);
	free(p->v);
	free(p);
}
