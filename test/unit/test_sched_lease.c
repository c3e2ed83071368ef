/*
 * Unit tests for the results a scheduler process claims ahead
 * (sched/sched_lease.c), with the lease statement faked: what is leased
 * (only the rows a request did not send, at most max), lent and settled
 * back in order, dropped on a rollback and near its lease's end, forgotten,
 * and how many a process claims ahead at its rate.
 */
#include "unit.h"
#include "sched_policy.h"

/* The fake lease statement: the calls and the ids it was given. */
static struct {
	int calls;
	int64_t ids[64], until;
	size_t n;
} leased;

static int fake_lease(struct db *db, const int64_t *ids, size_t n, int64_t until)
{
	(void)db;
	memcpy(leased.ids + leased.n, ids, n * sizeof(*ids));
	leased.n += n;
	leased.until = until;
	leased.calls++;
	return DB_OK;
}

/* A request's rows: ids first..first+n-1, each with a name. */
static void rows(struct db_result_list *c, int64_t first, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ARRAY_GROW(c->v, c->n);
		memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
		c->v[c->n].id = first + (int64_t)i;
		c->v[c->n].name = xasprintf("r%lld", (long long)(first + (int64_t)i));
		c->n++;
	}
}

static void rows_release(struct db_result_list *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		db_result_release(&c->v[i]);
	c->n = 0;
}

/* The request sent c->v[i]: its row is taken over (as sched_job_append does). */
static void sent(struct db_result_list *c, size_t i)
{
	db_result_release(&c->v[i]);
	memset(&c->v[i], 0, sizeof(c->v[i]));
}

static void test_lease_what_is_left(void **state)
{
	struct sched_pool *p = sched_pool_new_leasing(fake_lease);
	struct db_result_list c = { NULL, 0 };

	(void)state;
	memset(&leased, 0, sizeof(leased));
	rows(&c, 10, 6);
	sent(&c, 0);
	sent(&c, 2);
	assert_int_equal(sched_pool_lease(p, NULL, &c, 3, 1005), DB_OK);
	assert_int_equal(sched_pool_size(p), 3);
	assert_int_equal(leased.calls, 1);
	assert_int_equal(leased.n, 3);
	assert_int_equal(leased.ids[0], 11);
	assert_int_equal(leased.ids[1], 13);
	assert_int_equal(leased.ids[2], 14);
	assert_int_equal(leased.until, 1005);
	assert_true(sched_pool_has(p, 13) && !sched_pool_has(p, 15) && !sched_pool_has(p, 10));
	/* the rolled-back request's leases are gone with it */
	sched_pool_end(p, false, 1000);
	assert_int_equal(sched_pool_size(p), 0);
	rows_release(&c);
	/* committed, they stay */
	rows(&c, 20, 40);
	assert_int_equal(sched_pool_lease(p, NULL, &c, 40, 1005), DB_OK);
	assert_int_equal(leased.calls, 3);      /* 32 ids a statement */
	sched_pool_end(p, true, 1000);
	assert_int_equal(sched_pool_size(p), 40);
	sched_pool_end(p, false, 1000);         /* a later rollback: they were committed before */
	assert_int_equal(sched_pool_size(p), 40);
	rows_release(&c);
	free(c.v);
	sched_pool_free(p, NULL);
}

static void test_lend_settle(void **state)
{
	struct sched_pool *p = sched_pool_new_leasing(fake_lease);
	struct db_result_list c = { NULL, 0 };
	size_t first;

	(void)state;
	rows(&c, 1, 5);
	sched_pool_lease(p, NULL, &c, 5, 1010);
	sched_pool_end(p, true, 1000);
	rows_release(&c);
	assert_false(sched_pool_used(p));
	first = sched_pool_lend(p, 1000, 2, &c);
	assert_int_equal(first, 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[0].id, 1);
	assert_true(sched_pool_used(p));
	sent(&c, 0);
	sched_pool_settle(p, &c, first);
	c.n = 0;
	first = sched_pool_lend(p, 1000, 2, &c);       /* the next two, in order */
	assert_int_equal(first, 2);
	assert_int_equal(c.v[0].id, 3);
	assert_int_equal(c.v[1].id, 4);
	sched_pool_settle(p, &c, first);
	c.n = 0;
	sched_pool_end(p, true, 1000);
	assert_int_equal(sched_pool_size(p), 4);
	assert_false(sched_pool_used(p));
	first = sched_pool_lend(p, 1000, 10, &c);      /* the one sent is gone; 2 first again */
	assert_int_equal(c.n, 4);
	assert_int_equal(c.v[0].id, 2);
	assert_string_equal(c.v[0].name, "r2");
	sched_pool_settle(p, &c, first);
	c.n = 0;
	sched_pool_end(p, true, 1000);
	/* near the lease's end (under 2 s before it) nothing is handed out */
	assert_int_equal(sched_pool_lend(p, 1008, 1, &c), 0);
	assert_int_equal(c.n, 1);
	sched_pool_settle(p, &c, 0);
	c.n = 0;
	sched_pool_end(p, true, 1008);
	assert_int_equal(sched_pool_size(p), 4);
	assert_int_equal(sched_pool_lend(p, 1009, 10, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(sched_pool_size(p), 0);
	free(c.v);
	sched_pool_free(p, NULL);
}

static void test_forget(void **state)
{
	struct sched_pool *p = sched_pool_new_leasing(fake_lease);
	struct db_result_list c = { NULL, 0 };

	(void)state;
	rows(&c, 1, 3);
	sched_pool_lease(p, NULL, &c, 3, 1010);
	sched_pool_end(p, true, 1000);
	sched_pool_forget(p);
	assert_int_equal(sched_pool_size(p), 0);
	assert_false(sched_pool_has(p, 1));
	free(c.v);
	sched_pool_free(p, NULL);
}

static void test_ahead_by_rate(void **state)
{
	struct sched_pool *p = sched_pool_new_leasing(fake_lease);
	struct sched_settings set = { 0 };

	(void)state;
	set.claim_ahead = 32;
	assert_int_equal(sched_pool_ahead(p, &set, 1000), 0);
	sched_pool_count(p, 1000, 40);
	assert_int_equal(sched_pool_ahead(p, &set, 1000), 20);  /* half a second */
	assert_int_equal(sched_pool_ahead(p, &set, 1001), 20);  /* the second before */
	assert_int_equal(sched_pool_ahead(p, &set, 1002), 0);   /* idle since */
	sched_pool_count(p, 1001, 100);
	assert_int_equal(sched_pool_ahead(p, &set, 1001), 32);  /* at most sched_claim_ahead */
	sched_pool_count(p, 1005, 20);
	assert_int_equal(sched_pool_ahead(p, &set, 1005), 0);   /* 10 is not worth a lease */
	set.claim_ahead_min = 5;
	assert_int_equal(sched_pool_ahead(p, &set, 1005), 5);
	set.claim_ahead = 0;                                    /* off */
	assert_int_equal(sched_pool_ahead(p, &set, 1005), 0);
	sched_pool_free(p, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lease_what_is_left),
		cmocka_unit_test(test_lend_settle),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_ahead_by_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
