/*
 * The decisions of work sequences as pure functions (seq_policy.h): no
 * database, no clock, nothing but their arguments.
 */
#include "seq_policy.h"

static bool is_last(const struct seq_view *s, int seqno)
{
	return s->target_nsegments > 0 && seqno == s->target_nsegments;
}

unsigned seq_policy_uploads(const struct seq_view *s, int seqno)
{
	unsigned f = 0;

	if ((s->answer_every > 0 && seqno % s->answer_every == 0) || is_last(s, seqno))
		f |= SEQ_UPLOAD_ANSWER;
	if (seq_policy_state_mask(s, seqno))
		f |= SEQ_UPLOAD_STATE;
	return f;
}

int seq_policy_state_period(const struct seq_view *s, size_t i)
{
	if (i < s->nstate && i < SEQ_MAX_FILES && s->state_every[i] > 0)
		return s->state_every[i];
	return s->state_upload_every > 0 ? s->state_upload_every : 0;
}

int seq_policy_finest_period(const struct seq_view *s)
{
	size_t i, n = s->nstate ? s->nstate : 1;
	int best = 0, p;

	for (i = 0; i < n; i++) {
		p = seq_policy_state_period(s, i);
		if (p > 0 && (best == 0 || p < best))
			best = p;
	}
	return best;
}

unsigned seq_policy_state_mask(const struct seq_view *s, int seqno)
{
	size_t i, n = s->nstate ? s->nstate : 1;
	unsigned m = 0;
	int p;

	for (i = 0; i < n && i < SEQ_MAX_FILES; i++) {
		p = seq_policy_state_period(s, i);
		if ((p > 0 && seqno % p == 0) || is_last(s, seqno))
			m |= 1u << i;
	}
	return m;
}

bool seq_policy_levels_nest(const int *p, size_t n, size_t *bad)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (p[i] <= 0 || (p[j] > p[i] && p[j] % p[i] != 0)) {
				*bad = p[i] <= 0 ? i : j;
				return false;
			}
		}
	}
	return true;
}

int seq_policy_state_source(const struct seq_view *s, size_t i, int k)
{
	int p = seq_policy_state_period(s, i);

	if (p <= 0 || k < 1)
		return 0;
	return k - k % p;
}

/* The newest branch with a row at seqno (-1: none). */
static int newest_branch(const struct seq_state_row *rows, size_t n, int seqno)
{
	int b = -1;
	size_t j;

	for (j = 0; j < n; j++)
		if (rows[j].seqno == seqno && rows[j].branch > b)
			b = rows[j].branch;
	return b;
}

int seq_policy_restart_input(const struct seq_state_row *rows, size_t n, size_t i, int k)
{
	int best = -1;
	size_t j;

	for (j = 0; j < n; j++) {
		const struct seq_state_row *r = &rows[j];

		if (r->file != i || !r->uploaded || r->seqno > k || r->seqno < 0 ||
		    (best >= 0 && r->seqno <= rows[best].seqno))
			continue;
		if (r->branch == newest_branch(rows, n, r->seqno))
			best = (int)j;
	}
	return best;
}

bool seq_policy_restart_point(const struct seq_view *s, const struct seq_state_row *rows,
			      size_t n, int k)
{
	size_t j, i, nstate = s->nstate ? s->nstate : 1, nup = 0;
	int b = newest_branch(rows, n, k), v;

	if (k < 1 || b < 0)
		return false;
	for (j = 0; j < n; j++) {
		if (rows[j].seqno != k || rows[j].branch != b || !rows[j].upload)
			continue;
		if (!rows[j].uploaded)
			return false;
		nup++;
	}
	for (i = 0; nup && i < nstate; i++) {
		v = seq_policy_restart_input(rows, n, i, k);
		if (v < 0 || rows[v].seqno < seq_policy_state_source(s, i, k))
			return false;
	}
	return nup > 0;
}

size_t seq_policy_restart_seqnos(const struct seq_view *s, int k, int out[])
{
	size_t i, j, n = 0, nstate = s->nstate ? s->nstate : 1;
	int want[SEQ_MAX_FILES + 2];

	want[0] = 0;
	want[1] = k;
	for (i = 0; i < nstate && i < SEQ_MAX_FILES; i++)
		want[2 + i] = seq_policy_state_source(s, i, k);
	for (i = 0; i < nstate + 2 && i < SEQ_MAX_FILES + 2; i++) {
		for (j = 0; j < n && out[j] != want[i]; j++)
			;
		if (j == n)
			out[n++] = want[i];
	}
	return n;
}

size_t seq_policy_segments_to_send(const struct seq_view *s, int in_flight, int out[],
				   size_t max)
{
	size_t n = 0;
	int k;

	for (k = s->first_unsent; n < max && in_flight < s->high_water && k <= s->nsegments; k++) {
		out[n++] = k;
		in_flight++;
	}
	return n;
}

int seq_policy_oldest_needed_state(const struct seq_view *s, int lowest_in_flight)
{
	return (lowest_in_flight ? lowest_in_flight : s->first_unsent) - 1;
}

bool seq_policy_state_lost(const struct seq_view *s, const struct seg_view *prev,
			   int64_t hostid, size_t nstate, size_t nheld)
{
	if (s->first_unsent - 1 < 1 || !prev || prev->branch != s->branch)
		return false;
	if (prev->status == SEG_INACTIVE || prev->status == SEG_IN_PROGRESS ||
	    prev->hostid != hostid)
		return false;
	return nheld < nstate;
}

bool seq_policy_segment_lost(bool resend_lost_results, bool lists_results, const bool listed[],
			     size_t n)
{
	size_t i;

	if (!resend_lost_results || !lists_results)
		return false;
	for (i = 0; i < n; i++)
		if (!listed[i])
			return true;
	return false;
}

size_t seq_policy_allowance(const struct host_view *h, long seqs_per_host, long seqs_per_cpu,
			    long seqs_per_gpu)
{
	if (seqs_per_cpu > 0 || seqs_per_gpu > 0)
		return (size_t)(seqs_per_cpu * (h->ncpus > 0 ? h->ncpus : 1) +
				seqs_per_gpu * (h->ngpus > 0 ? h->ngpus : 0));
	return seqs_per_host > 0 ? (size_t)seqs_per_host : 0;
}

bool seq_policy_may_take(const struct host_view *h, const struct seq_view *s,
			 const struct seq_view *held, size_t nheld)
{
	double flops = h->p_fpops > 0 ? h->p_fpops : 1e9;
	size_t i;

	/* a segment's time: from the benchmarks, or the measured turnaround if longer */
	if (s->rsc_fpops_est / flops > s->max_result_time || h->avg_turnaround > s->max_result_time)
		return false;
	for (i = 0; i < nheld; i++)
		if (s->groupid && held[i].groupid == s->groupid)
			return false;
	return h->failures == 0;
}

bool seq_policy_segment_late(const struct seg_view *g, double now)
{
	return g->status == SEG_IN_PROGRESS && g->deadline < now;
}

enum seq_next seq_policy_after_segment(const struct seq_view *s, const struct seg_view *g,
				       enum seq_reason *reason)
{
	*reason = SEQ_REASON_NONE;
	if (!s->active || g->branch != s->branch || g->seqno < 1)
		return SEQ_NEXT_GO_ON;
	/*
	 * A segment of the branch failed or missed its deadline: its output
	 * will never be the sequence's, so the relocator recomputes it, and
	 * what comes in meanwhile neither ends nor moves the sequence again.
	 * (Too slow is not a failure: every segment is good, and a last one
	 * arriving before the relocator ends the sequence.)
	 */
	if (s->relocating == SEQ_REASON_DEADLINE || s->relocating == SEQ_REASON_ERROR)
		return SEQ_NEXT_GO_ON;
	switch (g->status) {
	case SEG_ERROR:
	case SEG_INVALID:
		*reason = SEQ_REASON_ERROR;
		return SEQ_NEXT_RELOCATE;
	case SEG_LATE:
		*reason = SEQ_REASON_DEADLINE;
		return SEQ_NEXT_RELOCATE;
	case SEG_SUCCESS:
		if (s->target_nsegments > 0 && g->seqno >= s->target_nsegments)
			return SEQ_NEXT_END;
		if (s->max_result_time > 0 && g->elapsed > s->max_result_time) {
			*reason = SEQ_REASON_SLOW;
			return SEQ_NEXT_RELOCATE;
		}
		return SEQ_NEXT_GO_ON;
	default:
		return SEQ_NEXT_GO_ON;
	}
}

void seq_policy_restart_from(const struct seq_view *s, size_t nstate, size_t nlast,
			     size_t ninitial, struct seq_restart *r)
{
	r->seqno = s->last_state_seqno + 1;
	r->nfound = s->last_state_seqno > 0 ? nlast : ninitial;
	r->from_initial = r->seqno == 1;
	if (r->nfound != nstate && r->seqno > 1) {
		r->seqno = 1;
		r->nfound = ninitial;
		r->from_initial = true;
	}
	r->recompute = s->first_unsent > r->seqno ? s->first_unsent - r->seqno : 0;
	if (r->nfound != nstate)
		r->kind = SEQ_RESTART_IMPOSSIBLE;
	else if (r->seqno > s->nsegments)
		r->kind = SEQ_RESTART_NOTHING_LEFT;
	else
		r->kind = SEQ_RESTART_BRANCH;
}
