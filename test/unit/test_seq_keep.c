/*
 * Unit tests for the keep rule of state versions (backend/seq_keep.c): the
 * issue's levels -- full every 12, delta every 3 -- K the lesser of the
 * restart point and the last validated segment, the initial states and
 * every version after K kept, an older branch's version of the same
 * segment superseded by the newer branch's.
 */
#include "unit.h"
#include "seq_keep.h"
#include "sequence.h"

#define FULL 0
#define DELTA 1

struct versions {
	struct db_seq_file f[32];
	size_t n;
};

static void add(struct versions *v, int branch, int seqno, size_t file)
{
	struct db_seq_file *f = &v->f[v->n++];

	memset(f, 0, sizeof(*f));
	f->name = seq_state_name("seq", branch, seqno, file);
	f->branch = branch;
	f->seqno = seqno;
	f->kind = SEQ_FILE_STATE;
	f->uploaded = 1;
}

static void release(struct versions *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->f[i].name);
}

static struct db_sequence head(int last_state, int first_unvalidated)
{
	return (struct db_sequence){ .name = (char *)"seq", .last_state_seqno = last_state,
				     .first_unvalidated_seqno = first_unvalidated };
}

/* Versions of full and delta to segment 27, newest first (the relocator's order). */
static void levels(struct versions *v)
{
	int k;

	v->n = 0;
	for (k = 27; k >= 0; k--) {
		if (k % 3 == 0)
			add(v, 0, k, DELTA);
		if (k % 12 == 0)
			add(v, 0, k, FULL);
	}
}

/* The seqnos of file's versions with flag set, as "a,b,c". */
static void seqnos(const struct versions *v, const bool *flag, size_t file, char *out, size_t n)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < v->n; i++)
		if (flag[i] && seq_keep_file_index(&v->f[i]) == (int)file)
			len += (size_t)snprintf(out + len, n - len, "%s%d", len ? "," : "",
						v->f[i].seqno);
}

static void test_point(void **state)
{
	struct db_sequence s = head(27, 28);

	(void)state;
	assert_int_equal(seq_keep_point(&s), 27);
	s.first_unvalidated_seqno = 20;
	assert_int_equal(seq_keep_point(&s), 19);
	s.last_state_seqno = 0;
	assert_int_equal(seq_keep_point(&s), 0);
}

static void test_file_index(void **state)
{
	struct versions v = { .n = 0 };

	(void)state;
	add(&v, 2, 15, DELTA);
	add(&v, 0, 12, FULL);
	assert_int_equal(seq_keep_file_index(&v.f[0]), DELTA);
	assert_int_equal(seq_keep_file_index(&v.f[1]), FULL);
	v.f[1].kind = SEQ_FILE_ANSWER;
	assert_int_equal(seq_keep_file_index(&v.f[1]), -1);
	release(&v);
}

/* full_12 stays until full_24 is on the server and 24 <= K. */
static void test_levels(void **state)
{
	struct versions v;
	struct db_sequence s = head(21, 18);   /* K = 17 */
	bool need[32], gone[32];
	char buf[128];

	(void)state;
	levels(&v);
	seq_keep_classify(&s, seq_keep_point(&s), v.f, v.n, need, gone);
	seqnos(&v, need, FULL, buf, sizeof(buf));
	assert_string_equal(buf, "12");
	seqnos(&v, need, DELTA, buf, sizeof(buf));
	assert_string_equal(buf, "15");
	seqnos(&v, gone, FULL, buf, sizeof(buf));
	assert_string_equal(buf, "");   /* the initial full stays */
	seqnos(&v, gone, DELTA, buf, sizeof(buf));
	assert_string_equal(buf, "12,9,6,3");
	/* K = 24: full_24 on the server, full_12 goes */
	s = head(24, 26);
	seq_keep_classify(&s, seq_keep_point(&s), v.f, v.n, need, gone);
	seqnos(&v, gone, FULL, buf, sizeof(buf));
	assert_string_equal(buf, "12");
	seqnos(&v, need, FULL, buf, sizeof(buf));
	assert_string_equal(buf, "24");
	/* delta_27, after K, stays */
	seqnos(&v, gone, DELTA, buf, sizeof(buf));
	assert_string_equal(buf, "21,18,15,12,9,6,3");
	release(&v);
}

/* In a group, the member furthest behind holds every member's versions back. */
static void test_group(void **state)
{
	struct db_sequence s = head(24, 26), m[3] = { head(24, 26), head(21, 11), head(6, 7) };

	(void)state;
	assert_int_equal(seq_keep_group_point(&s, m, 3), 24);   /* not in a group */
	s.groupid = m[0].groupid = m[1].groupid = 5;
	m[2].groupid = 6;
	assert_int_equal(seq_keep_group_point(&s, m, 3), 10);
}

/* Of the same segment, the newer branch's version is read: the older one goes. */
static void test_branches(void **state)
{
	struct versions v = { .n = 0 };
	struct db_sequence s = head(9, 10);
	bool need[32], gone[32];

	(void)state;
	add(&v, 1, 9, DELTA);
	add(&v, 0, 9, DELTA);
	add(&v, 0, 6, DELTA);
	add(&v, 0, 0, DELTA);
	seq_keep_classify(&s, seq_keep_point(&s), v.f, v.n, need, gone);
	assert_true(need[0] && !gone[0]);
	assert_true(!need[1] && gone[1]);
	assert_true(!need[2] && gone[2]);
	assert_true(!need[3] && !gone[3]);
	release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_point),
		cmocka_unit_test(test_file_index),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_branches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
