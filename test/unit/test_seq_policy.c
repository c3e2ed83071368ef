/*
 * Unit tests for the decisions of work sequences as pure functions
 * (backend/seq_policy.c): the cases the t40*-seq-* integration tests drive
 * through the server -- high-water mark, N/M uploads, late segment, error,
 * invalid result, too slow host, lost state, groups, relocation restarts.
 */
#include "unit.h"
#include "seq_policy.h"

/* A sequence of 10 segments, 2 in flight, answers every 2nd, states every 5th. */
static struct seq_view seq(void)
{
	return (struct seq_view){
		.groupid = 0, .active = true, .branch = 0, .nsegments = 10,
		.target_nsegments = 10, .first_unsent = 1, .high_water = 2, .answer_every = 2,
		.state_upload_every = 5, .last_state_seqno = 0, .max_result_time = 3600,
		.rsc_fpops_est = 1e12,
	};
}

static struct host_view host(void)
{
	return (struct host_view){ .id = 7, .p_fpops = 1e9, .avg_turnaround = 0, .ncpus = 4,
				   .failures = 0 };
}

static void test_uploads_n_m(void **state)
{
	struct seq_view s = seq();

	(void)state;
	assert_int_equal(seq_policy_uploads(&s, 1), 0);
	assert_int_equal(seq_policy_uploads(&s, 2), SEQ_UPLOAD_ANSWER);
	assert_int_equal(seq_policy_uploads(&s, 5), SEQ_UPLOAD_STATE);
	assert_int_equal(seq_policy_uploads(&s, 7), 0);
	/* the last segment of a known length uploads both */
	s.answer_every = 3;
	s.state_upload_every = 4;
	assert_int_equal(seq_policy_uploads(&s, 10), SEQ_UPLOAD_ANSWER | SEQ_UPLOAD_STATE);
	assert_int_equal(seq_policy_uploads(&s, 12), SEQ_UPLOAD_ANSWER | SEQ_UPLOAD_STATE);
	/* open-ended: no last segment */
	s.target_nsegments = 0;
	assert_int_equal(seq_policy_uploads(&s, 10), 0);
	/* 0: never */
	s.answer_every = 0;
	assert_int_equal(seq_policy_uploads(&s, 12), SEQ_UPLOAD_STATE);
}

/* Levels: full every 12, delta every 3 (the example), a 30-segment sequence. */
static void test_state_levels(void **state)
{
	struct seq_view s = seq();
	int p[3] = { 12, 3, 6 }, bad[2] = { 12, 8 }, zero[2] = { 4, 0 };
	size_t why = 99;

	(void)state;
	s.nsegments = s.target_nsegments = 30;
	s.nstate = 2;
	s.state_every[0] = 12;
	s.state_every[1] = 3;
	assert_int_equal(seq_policy_finest_period(&s), 3);
	assert_int_equal(seq_policy_state_mask(&s, 1), 0);
	assert_int_equal(seq_policy_state_mask(&s, 3), 2u);
	assert_int_equal(seq_policy_state_mask(&s, 12), 3u);
	assert_int_equal(seq_policy_state_mask(&s, 13), 0);
	/* the last segment uploads every level */
	assert_int_equal(seq_policy_state_mask(&s, 30), 3u);
	assert_int_equal(seq_policy_uploads(&s, 15), SEQ_UPLOAD_STATE);
	assert_int_equal(seq_policy_uploads(&s, 16), SEQ_UPLOAD_ANSWER);
	/* a restart after 17 reads delta_15 and full_12 (16 answers, 17 none) */
	assert_int_equal(seq_policy_state_source(&s, 1, 17), 15);
	assert_int_equal(seq_policy_state_source(&s, 0, 17), 12);
	assert_int_equal(seq_policy_state_source(&s, 0, 11), 0);
	/* a level without its own period takes the sequence's M (5 here) */
	s.state_every[1] = 0;
	assert_int_equal(seq_policy_state_period(&s, 1), 5);
	assert_int_equal(seq_policy_finest_period(&s), 5);
	/* nesting */
	assert_true(seq_policy_levels_nest(p, 3, &why));
	assert_false(seq_policy_levels_nest(bad, 2, &why));
	assert_int_equal(why, 0);
	assert_false(seq_policy_levels_nest(zero, 2, &why));
	assert_int_equal(why, 1);
}

static void test_uploads_m1(void **state)
{
	struct seq_view s = seq();
	int k;

	(void)state;
	s.state_upload_every = 1;
	s.answer_every = 1;
	for (k = 1; k <= 10; k++)
		assert_int_equal(seq_policy_uploads(&s, k), SEQ_UPLOAD_ANSWER | SEQ_UPLOAD_STATE);
}

static void test_high_water(void **state)
{
	struct seq_view s = seq();
	int out[8];

	(void)state;
	/* a new host: up to the mark */
	assert_int_equal(seq_policy_segments_to_send(&s, 0, out, 8), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	/* one in flight: one more */
	s.first_unsent = 3;
	assert_int_equal(seq_policy_segments_to_send(&s, 1, out, 8), 1);
	assert_int_equal(out[0], 3);
	/* at the mark: nothing */
	assert_int_equal(seq_policy_segments_to_send(&s, 2, out, 8), 0);
	/* none past the last segment made */
	s.first_unsent = 10;
	s.high_water = 5;
	assert_int_equal(seq_policy_segments_to_send(&s, 0, out, 8), 1);
	assert_int_equal(out[0], 10);
	s.first_unsent = 11;
	assert_int_equal(seq_policy_segments_to_send(&s, 0, out, 8), 0);
	/* never more than out[] holds */
	s.first_unsent = 1;
	assert_int_equal(seq_policy_segments_to_send(&s, 0, out, 3), 3);
	/* high_water 1: one segment at a time */
	s.high_water = 1;
	assert_int_equal(seq_policy_segments_to_send(&s, 0, out, 8), 1);
	assert_int_equal(seq_policy_segments_to_send(&s, 1, out, 8), 0);
}

static void test_sticky_states(void **state)
{
	struct seq_view s = seq();

	(void)state;
	s.first_unsent = 6;
	/* segments 4 and 5 in flight: state 3 (4's input) and later are needed */
	assert_int_equal(seq_policy_oldest_needed_state(&s, 4), 3);
	/* none in flight: the input of the next one, 5 */
	assert_int_equal(seq_policy_oldest_needed_state(&s, 0), 5);
}

static void test_lost_state(void **state)
{
	struct seq_view s = seq();
	struct seg_view prev = { .seqno = 3, .branch = 0, .hostid = 7, .status = SEG_SUCCESS };

	(void)state;
	s.first_unsent = 4;
	assert_true(seq_policy_state_lost(&s, &prev, 7, 1, 0));
	assert_false(seq_policy_state_lost(&s, &prev, 7, 1, 1));
	assert_true(seq_policy_state_lost(&s, &prev, 7, 2, 1));
	/* finished elsewhere (before a relocation): the host never had it */
	assert_false(seq_policy_state_lost(&s, &prev, 8, 1, 0));
	/* still computing here: its output does not exist yet */
	prev.status = SEG_IN_PROGRESS;
	assert_false(seq_policy_state_lost(&s, &prev, 7, 1, 0));
	/* an erroneous segment also left (or failed to leave) its state here */
	prev.status = SEG_ERROR;
	assert_true(seq_policy_state_lost(&s, &prev, 7, 1, 0));
	/* nothing before the first segment, or no such segment */
	s.first_unsent = 1;
	assert_false(seq_policy_state_lost(&s, &prev, 7, 1, 0));
	s.first_unsent = 4;
	assert_false(seq_policy_state_lost(&s, NULL, 7, 1, 0));
}

static void test_lost_segment(void **state)
{
	const bool all[] = { true, true }, one_gone[] = { true, false };

	(void)state;
	assert_false(seq_policy_segment_lost(true, true, all, 2));
	assert_true(seq_policy_segment_lost(true, true, one_gone, 2));
	/* resend_lost_results off, or a client that lists no results: nothing is lost */
	assert_false(seq_policy_segment_lost(false, true, one_gone, 2));
	assert_false(seq_policy_segment_lost(true, false, one_gone, 2));
	assert_false(seq_policy_segment_lost(true, true, NULL, 0));
}

static void test_allowance(void **state)
{
	struct host_view h = host();

	(void)state;
	assert_int_equal(seq_policy_allowance(&h, 1, 0, 0), 1);
	assert_int_equal(seq_policy_allowance(&h, 1, 2, 0), 8);
	h.ncpus = 0;
	assert_int_equal(seq_policy_allowance(&h, 3, 2, 0), 2);
	/* per GPU beside per CPU: a host without a GPU gets only its CPUs' */
	h.ncpus = 4;
	assert_int_equal(seq_policy_allowance(&h, 1, 0, 2), 0);
	h.ngpus = 2;
	assert_int_equal(seq_policy_allowance(&h, 1, 0, 2), 4);
	assert_int_equal(seq_policy_allowance(&h, 1, 1, 2), 8);
}

static void test_too_slow_host(void **state)
{
	struct seq_view s = seq();
	struct host_view h = host();

	(void)state;
	/* 1e12 flops at 1e9/s: 1000 s < 3600 s */
	assert_true(seq_policy_may_take(&h, &s, NULL, 0));
	h.p_fpops = 1e8;                /* 10000 s */
	assert_false(seq_policy_may_take(&h, &s, NULL, 0));
	h.p_fpops = 0;                  /* unknown: 1e9 assumed */
	assert_true(seq_policy_may_take(&h, &s, NULL, 0));
	h.avg_turnaround = 4000;        /* measured slower than its benchmark says */
	assert_false(seq_policy_may_take(&h, &s, NULL, 0));
}

static void test_failed_before(void **state)
{
	struct seq_view s = seq();
	struct host_view h = host();

	(void)state;
	h.failures = 1;
	assert_false(seq_policy_may_take(&h, &s, NULL, 0));
}

static void test_groups(void **state)
{
	struct seq_view master = seq(), member = seq(), other = seq();
	struct host_view h = host();

	(void)state;
	master.groupid = member.groupid = 3;
	other.groupid = 4;
	/* a host holding the master takes no member of its group, and the other way round */
	assert_false(seq_policy_may_take(&h, &member, &master, 1));
	assert_false(seq_policy_may_take(&h, &master, &member, 1));
	/* another group, or none, is fine */
	assert_true(seq_policy_may_take(&h, &other, &master, 1));
	other.groupid = 0;
	assert_true(seq_policy_may_take(&h, &other, &master, 1));
	/* sequences in no group never conflict */
	assert_true(seq_policy_may_take(&h, &other, &other, 1));
}

static void test_late_segment(void **state)
{
	struct seq_view s = seq();
	struct seg_view g = { .seqno = 5, .branch = 0, .hostid = 7, .status = SEG_IN_PROGRESS,
			      .deadline = 1000 };
	enum seq_reason why;

	(void)state;
	assert_false(seq_policy_segment_late(&g, 999));
	assert_false(seq_policy_segment_late(&g, 1000));
	assert_true(seq_policy_segment_late(&g, 1001));
	g.status = SEG_SUCCESS;
	assert_false(seq_policy_segment_late(&g, 2000));
	g.status = SEG_LATE;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	assert_int_equal(why, SEQ_REASON_DEADLINE);
	/* a late segment of a dead branch moves nothing */
	s.branch = 1;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
	assert_int_equal(why, SEQ_REASON_NONE);
}

static void test_error_and_invalid(void **state)
{
	struct seq_view s = seq();
	struct seg_view g = { .seqno = 3, .branch = 0, .hostid = 7, .status = SEG_ERROR };
	enum seq_reason why;

	(void)state;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	assert_int_equal(why, SEQ_REASON_ERROR);
	g.status = SEG_INVALID;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	assert_int_equal(why, SEQ_REASON_ERROR);
	/* even the last segment: a wrong end is no end */
	g.seqno = 10;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	/* an ended or failed sequence is not moved */
	s.active = false;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
}

static void test_success_end_slow(void **state)
{
	struct seq_view s = seq();
	struct seg_view g = { .seqno = 4, .branch = 0, .hostid = 7, .status = SEG_SUCCESS,
			      .elapsed = 100 };
	enum seq_reason why;

	(void)state;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
	g.elapsed = 3601;               /* too slow */
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	assert_int_equal(why, SEQ_REASON_SLOW);
	/* the last segment ends the sequence, however long it took */
	g.seqno = 10;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_END);
	assert_int_equal(why, SEQ_REASON_NONE);
	/* open-ended: no end, and no limit without max_result_time */
	s.target_nsegments = 0;
	s.max_result_time = 0;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
}

/*
 * Waiting for the relocator: after a failed or late segment nothing that
 * comes in ends or moves the sequence (the chaos test's race: segment 3 timed
 * out, segment 4, the last, came in before the relocator ran); after a
 * too-slow one, the last segment still ends it.
 */
static void test_pending_relocation(void **state)
{
	struct seq_view s = seq();
	struct seg_view g = { .seqno = 10, .branch = 0, .hostid = 7, .status = SEG_SUCCESS,
			      .elapsed = 100 };
	enum seq_reason why;

	(void)state;
	s.relocating = SEQ_REASON_DEADLINE;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
	s.relocating = SEQ_REASON_ERROR;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
	g.status = SEG_ERROR;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_GO_ON);
	assert_int_equal(why, SEQ_REASON_NONE);
	s.relocating = SEQ_REASON_SLOW;
	g.status = SEG_SUCCESS;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_END);
	g.status = SEG_ERROR;
	assert_int_equal(seq_policy_after_segment(&s, &g, &why), SEQ_NEXT_RELOCATE);
	assert_int_equal(why, SEQ_REASON_ERROR);
}

static void test_restart_from(void **state)
{
	struct seq_view s = seq();
	struct seq_restart r;

	(void)state;
	/* state of segment 5 on the server, 8 sent: a branch from 6, 3 computed again */
	s.last_state_seqno = 5;
	s.first_unsent = 9;
	seq_policy_restart_from(&s, 1, 1, 1, &r);
	assert_int_equal(r.kind, SEQ_RESTART_BRANCH);
	assert_int_equal(r.seqno, 6);
	assert_false(r.from_initial);
	assert_int_equal(r.recompute, 3);
	/* its states incomplete: from the initial ones */
	seq_policy_restart_from(&s, 2, 1, 2, &r);
	assert_int_equal(r.kind, SEQ_RESTART_BRANCH);
	assert_int_equal(r.seqno, 1);
	assert_true(r.from_initial);
	assert_int_equal(r.recompute, 8);
	/* neither: cannot be moved */
	seq_policy_restart_from(&s, 2, 1, 1, &r);
	assert_int_equal(r.kind, SEQ_RESTART_IMPOSSIBLE);
	assert_int_equal(r.nfound, 1);
	/* nothing uploaded yet: the initial states */
	s.last_state_seqno = 0;
	s.first_unsent = 3;
	seq_policy_restart_from(&s, 1, 0, 1, &r);
	assert_int_equal(r.kind, SEQ_RESTART_BRANCH);
	assert_int_equal(r.seqno, 1);
	assert_int_equal(r.recompute, 2);
	/* every state on the server (M=1, all done): nothing left to compute */
	s.last_state_seqno = 10;
	s.first_unsent = 11;
	seq_policy_restart_from(&s, 1, 1, 1, &r);
	assert_int_equal(r.kind, SEQ_RESTART_NOTHING_LEFT);
	/* M=1: a relocation loses only the segments in flight */
	s.last_state_seqno = 6;
	s.first_unsent = 9;
	seq_policy_restart_from(&s, 1, 1, 1, &r);
	assert_int_equal(r.seqno, 7);
	assert_int_equal(r.recompute, 2);
}

/* Rows: file 0 full every 6, file 1 delta every 2 (the test), branch 0. */
#define ROW(k, b, f, up, done) { k, b, f, up, done }

static struct seq_view levels_6_2(void)
{
	struct seq_view s = seq();

	s.nsegments = s.target_nsegments = 12;
	s.nstate = 2;
	s.state_every[0] = 6;
	s.state_every[1] = 2;
	return s;
}

/* The restart rule: a restart point needs its own uploads and every level's source. */
static void test_restart_point(void **state)
{
	struct seq_view s = levels_6_2();
	struct seq_state_row rows[] = {
		ROW(0, 0, 0, true, true), ROW(0, 0, 1, true, true),
		ROW(6, 0, 0, true, true), ROW(6, 0, 1, true, true),
		ROW(8, 0, 0, false, false), ROW(8, 0, 1, true, true),
		ROW(9, 0, 0, false, false), ROW(9, 0, 1, false, false),
		ROW(10, 0, 0, false, false), ROW(10, 0, 1, true, false),
	};
	size_t n = ARRAY_SIZE(rows);

	(void)state;
	assert_true(seq_policy_restart_point(&s, rows, n, 8));
	assert_true(seq_policy_restart_point(&s, rows, n, 6));
	/* 9 uploads nothing, 10 has not uploaded its delta */
	assert_false(seq_policy_restart_point(&s, rows, n, 9));
	assert_false(seq_policy_restart_point(&s, rows, n, 10));
	assert_false(seq_policy_restart_point(&s, rows, n, 0));
	/* a restart after 9 reads delta_8 and full_6 */
	assert_int_equal(seq_policy_restart_input(rows, n, 1, 9), 5);
	assert_int_equal(seq_policy_restart_input(rows, n, 0, 9), 2);
	assert_int_equal(seq_policy_restart_input(rows, n, 0, 5), 0);
	/* full_6 missing: 8 is no restart point any more (full_0 is older than its source) */
	rows[2].uploaded = false;
	assert_false(seq_policy_restart_point(&s, rows, n, 8));
	assert_int_equal(seq_policy_restart_input(rows, n, 0, 9), 0);
}

/* At a seqno only the newest branch counts: a dead branch's upload is no restart point. */
static void test_restart_point_branches(void **state)
{
	struct seq_view s = levels_6_2();
	struct seq_state_row rows[] = {
		ROW(0, 0, 0, true, true), ROW(0, 0, 1, true, true),
		ROW(2, 0, 0, false, false), ROW(2, 0, 1, true, true),
		ROW(4, 0, 0, false, false), ROW(4, 0, 1, true, true),     /* dead: branch 1 from 3 */
		ROW(4, 1, 0, false, false), ROW(4, 1, 1, true, false),
	};
	size_t n = ARRAY_SIZE(rows);

	(void)state;
	assert_false(seq_policy_restart_point(&s, rows, n, 4));
	assert_true(seq_policy_restart_point(&s, rows, n, 2));
	assert_int_equal(seq_policy_restart_input(rows, n, 1, 5), 3);
	rows[7].uploaded = true;
	assert_true(seq_policy_restart_point(&s, rows, n, 4));
	assert_int_equal(seq_policy_restart_input(rows, n, 1, 5), 7);
}

/* The seqnos the rule reads: 0, k and each level's source, each once. */
static void test_restart_seqnos(void **state)
{
	struct seq_view s = levels_6_2(), one = seq();
	int out[SEQ_MAX_FILES + 2];

	(void)state;
	assert_int_equal(seq_policy_restart_seqnos(&s, 9, out), 4);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 9);
	assert_int_equal(out[2], 6);
	assert_int_equal(out[3], 8);
	assert_int_equal(seq_policy_restart_seqnos(&s, 6, out), 2);
	assert_int_equal(seq_policy_restart_seqnos(&s, 0, out), 1);
	assert_int_equal(out[0], 0);
	/* one state at M */
	one.state_upload_every = 5;
	assert_int_equal(seq_policy_restart_seqnos(&one, 7, out), 3);
	assert_int_equal(out[2], 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uploads_n_m),
		cmocka_unit_test(test_restart_point),
		cmocka_unit_test(test_restart_point_branches),
		cmocka_unit_test(test_restart_seqnos),
		cmocka_unit_test(test_uploads_m1),
		cmocka_unit_test(test_high_water),
		cmocka_unit_test(test_sticky_states),
		cmocka_unit_test(test_lost_state),
		cmocka_unit_test(test_lost_segment),
		cmocka_unit_test(test_allowance),
		cmocka_unit_test(test_too_slow_host),
		cmocka_unit_test(test_failed_before),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_late_segment),
		cmocka_unit_test(test_error_and_invalid),
		cmocka_unit_test(test_success_end_slow),
		cmocka_unit_test(test_pending_relocation),
		cmocka_unit_test(test_restart_from),
		cmocka_unit_test(test_state_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
