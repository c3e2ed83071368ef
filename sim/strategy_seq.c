/*
 * Strategy (c): work sequences, every decision made by the server's own
 * policy functions (backend/seq_policy.h, linked from backend/): the
 * simulator keeps the state the server keeps (a seq_view a sequence) and
 * asks, never decides. A component is a group of `replicas` member
 * sequences (one member with replicas 1; a group's members are compared
 * segment by segment, a wrong one is outvoted).
 *
 * - At a host's RPC: a host holding fewer sequences than its allowance
 *   (seq_policy_allowance, the scheduler's default of one) is offered the
 *   unassigned members lowest id first, 20 of them, as sched_seq.c's
 *   assign_new, and takes the first seq_policy_may_take allows; then its
 *   sequences are topped up (seq_policy_segments_to_send). The first
 *   segment sent to a host downloads the sequence's last uploaded state;
 *   the next ones read the state the one before leaves on the host.
 * - Segment k uploads what seq_policy_uploads says (answer every N, state
 *   every M, both at the last).
 * - A reported, late (seq_policy_segment_late) or outvoted segment goes
 *   through seq_policy_after_segment: go on, end, or relocate. A relocation
 *   restarts where seq_policy_restart_from says (after the last uploaded
 *   state) on a new branch; the old branch's segments in flight are aborted,
 *   and the CPU of its segments after that state is wasted.
 * - Storage: a member's state is deleted from the server once a newer one of
 *   it is there (a relocation only ever reads the last), the initial state
 *   once every member has uploaded one; answers stay.
 */
#include "sim_strategy.h"
#include "seq_policy.h"

#include <math.h>

#define DAY 86400.0
/* the reference host of length_days: its p_fpops */
#define REF_FLOPS 1e9
/* the scheduler's defaults: max_sequences_per_host, and assign_new's candidates */
#define SEQS_PER_HOST 1
#define CANDIDATES 20
_Static_assert(SEQS_PER_HOST == 1, "held[] keeps one sequence a host");

struct member {
	struct seq_view v;              /* the sequence row, as the policy sees it */
	int32_t comp;
	int32_t host;                   /* -1: unassigned */
	bool fresh;                     /* its next segment is the first on its host */
	double unsaved;                 /* CPU of accepted segments after the last uploaded state */
	int64_t *fl;                    /* its instances in flight on the live branch, oldest first */
	int nfl, capfl;
	int32_t *failed;                /* hosts whose segment of it was invalid or too slow */
	int nfailed, capfailed;
};

struct seq_sim {
	struct member *m;
	long nm;
	int32_t *held;                  /* per host: the member it holds, or -1 */
	int32_t *heap;                  /* unassigned members: a min-heap of ids */
	long nheap;
	int *reading_initial;           /* per component: members whose last state is the initial one */
	int *left;                      /* per component: members not ended */
	int *send;                      /* seq_policy_segments_to_send's out[] */
	double state_b, answer_b, segment_s, length_s;
};

static void heap_push(struct seq_sim *ss, int32_t id)
{
	long i = ss->nheap++;

	while (i > 0 && ss->heap[(i - 1) / 2] > id) {
		ss->heap[i] = ss->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	ss->heap[i] = id;
}

static int32_t heap_pop(struct seq_sim *ss)
{
	int32_t top = ss->heap[0], last = ss->heap[--ss->nheap];
	long i = 0, c;

	while ((c = 2 * i + 1) < ss->nheap) {
		if (c + 1 < ss->nheap && ss->heap[c + 1] < ss->heap[c])
			c++;
		if (last <= ss->heap[c])
			break;
		ss->heap[i] = ss->heap[c];
		i = c;
	}
	if (ss->nheap > 0)
		ss->heap[i] = last;
	return top;
}

static void fl_remove(struct sim *s, struct member *m, int32_t job)
{
	int i;

	for (i = 0; i < m->nfl; i++)
		if (s->insts[m->fl[i]].job == job) {
			memmove(&m->fl[i], &m->fl[i + 1], (size_t)(m->nfl - i - 1) * sizeof(*m->fl));
			m->nfl--;
			return;
		}
}

static int failures(const struct member *m, int32_t host)
{
	int i, n = 0;

	for (i = 0; i < m->nfailed; i++)
		n += m->failed[i] == host;
	return n;
}

static void failed_add(struct member *m, int32_t host)
{
	if (m->nfailed == m->capfailed) {
		m->capfailed = m->capfailed ? 2 * m->capfailed : 4;
		m->failed = xrealloc(m->failed, (size_t)m->capfailed * sizeof(*m->failed));
	}
	m->failed[m->nfailed++] = host;
}

static void host_view_of(const struct sim *s, int32_t hi, struct host_view *hv)
{
	*hv = (struct host_view){ hi, s->hosts[hi].speed * REF_FLOPS, 0, 1, 0, 0 };
}

/*
 * The decision log (--decision_log): a line a segment sent, done, late,
 * invalid or retired, a relocation, an end; sequences and hosts counted
 * from 1, as t8010's driver writes the real server's.
 */
static void dlog_seg(const struct sim *s, int64_t inst, const char *what)
{
	const struct sim_inst *in = &s->insts[inst];
	const struct sim_job *j = &s->jobs[in->job];

	if (!s->dlog)
		return;
	fprintf(s->dlog, "seq %d branch %d seg %d host %d %s", j->seq + 1, j->branch, j->seg,
		in->host + 1, what);
	if (!strcmp(what, "done"))
		fprintf(s->dlog, " state %.0f answer %.0f", j->up_state, j->up_answer);
	else if (!strcmp(what, "sent"))
		fprintf(s->dlog, " at %.0f", floor(s->now / 60 + 0.5));      /* minutes */
	fputc('\n', s->dlog);
}

static void dlog_seq(const struct sim *s, const struct seq_sim *ss, const struct member *m,
		     const char *what, int from)
{
	if (!s->dlog)
		return;
	fprintf(s->dlog, "seq %ld %s", (long)(m - ss->m) + 1, what);
	if (from > 0)
		fprintf(s->dlog, " branch %d from %d", m->v.branch, from);
	fputc('\n', s->dlog);
}

static void release(struct seq_sim *ss, struct member *m)
{
	if (m->host >= 0)
		ss->held[m->host] = -1;
	m->host = -1;
}

/* the relocator: a new branch from the last uploaded state, elsewhere */
static void relocate(struct sim *s, struct seq_sim *ss, struct member *m)
{
	struct seq_restart r;

	sim_relocated(s, m->unsaved);
	m->unsaved = 0;
	/* the old branch is retired: newest first, so the host starts none of them */
	while (m->nfl > 0) {
		dlog_seg(s, m->fl[m->nfl - 1], "retired");
		sim_abort(s, m->fl[--m->nfl]);
	}
	release(ss, m);
	/* every state the sequence uploaded is kept until a newer one is there: all found */
	seq_policy_restart_from(&m->v, 1, 1, 1, &r);
	if (r.kind == SEQ_RESTART_IMPOSSIBLE) {
		m->v.active = false;    /* it ends in error: its component never finishes */
		dlog_seq(s, ss, m, "failed", 0);
		return;
	}
	if (r.kind == SEQ_RESTART_BRANCH) {
		m->v.branch++;
		m->v.first_unsent = r.seqno;
		dlog_seq(s, ss, m, "relocated", r.seqno);
	} else {
		dlog_seq(s, ss, m, "unassigned", 0);
	}
	m->fresh = true;
	heap_push(ss, (int32_t)(m - ss->m));
}

/* assign_new: the first of the lowest-id unassigned members the host may take */
static void assign(struct sim *s, struct seq_sim *ss, int32_t hi)
{
	int32_t cand[CANDIDATES];
	struct host_view hv;
	int n = 0, i, took = -1;

	host_view_of(s, hi, &hv);
	while (n < CANDIDATES && ss->nheap > 0)
		cand[n++] = heap_pop(ss);
	for (i = 0; i < n && took < 0; i++) {
		struct member *m = &ss->m[cand[i]];

		hv.failures = failures(m, hi);
		/* the host holds nothing yet: no other member of a group to compare with */
		if (seq_policy_may_take(&hv, &m->v, NULL, 0))
			took = i;
	}
	for (i = 0; i < n; i++)
		if (i != took)
			heap_push(ss, cand[i]);
	if (took >= 0) {
		ss->m[cand[took]].host = hi;
		ss->held[hi] = cand[took];
	}
}

/* top_up: the host's segments of m up to the high-water mark */
static void top_up(struct sim *s, struct seq_sim *ss, int32_t mi, int32_t hi)
{
	struct member *m = &ss->m[mi];
	size_t i, n = seq_policy_segments_to_send(&m->v, m->nfl, ss->send, (size_t)m->v.high_water);

	for (i = 0; i < n; i++) {
		int k = ss->send[i];
		unsigned up = seq_policy_uploads(&m->v, k);
		double done = (k - 1) * ss->segment_s;
		struct sim_job j = { 0 };

		j.comp = m->comp;
		j.seq = mi;
		j.seg = k;
		j.branch = m->v.branch;
		j.cpu = ss->length_s - done < ss->segment_s ? ss->length_s - done : ss->segment_s;
		j.down = m->fresh ? ss->state_b : 0;
		j.up_state = up & SEQ_UPLOAD_STATE ? ss->state_b : 0;
		j.up_answer = up & SEQ_UPLOAD_ANSWER ? ss->answer_b : 0;
		j.deadline = s->sc->segment_deadline_days * DAY;
		if (m->nfl == m->capfl) {
			m->capfl = m->capfl ? 2 * m->capfl : 2;
			m->fl = xrealloc(m->fl, (size_t)m->capfl * sizeof(*m->fl));
		}
		m->fl[m->nfl++] = sim_send(s, hi, sim_job_new(s, &j));
		dlog_seg(s, m->fl[m->nfl - 1], "sent");
		m->v.first_unsent = k + 1;
		m->fresh = false;
	}
}

static void seq_rpc(struct sim *s, int32_t hi)
{
	struct seq_sim *ss = s->priv;
	struct host_view hv;

	host_view_of(s, hi, &hv);
	if (ss->held[hi] < 0 && seq_policy_allowance(&hv, SEQS_PER_HOST, 0, 0) > 0)
		assign(s, ss, hi);
	if (ss->held[hi] >= 0)
		top_up(s, ss, ss->held[hi], hi);
}

/* the segment of k has its state on the server: the one before it can go */
static void state_saved(struct sim *s, struct seq_sim *ss, struct member *m, int k)
{
	if (m->v.last_state_seqno > 0 || --ss->reading_initial[m->comp] == 0)
		sim_storage_add(s, -ss->state_b);
	m->v.last_state_seqno = k;
	m->unsaved = 0;
}

static void follow(struct sim *s, struct seq_sim *ss, struct member *m, const struct seg_view *g)
{
	enum seq_reason why;

	switch (seq_policy_after_segment(&m->v, g, &why)) {
	case SEQ_NEXT_GO_ON:
		break;
	case SEQ_NEXT_END:
		dlog_seq(s, ss, m, "ended", 0);
		m->v.active = false;
		release(ss, m);
		if (--ss->left[m->comp] == 0)
			sim_comp_done(s, m->comp);
		break;
	case SEQ_NEXT_RELOCATE:
		/* what db_result_seq_host_failed counts: invalid, too slow (not late) */
		if (why != SEQ_REASON_DEADLINE)
			failed_add(m, (int32_t)g->hostid);
		relocate(s, ss, m);
		break;
	}
}

static void seq_accepted(struct sim *s, int32_t job)
{
	struct seq_sim *ss = s->priv;
	const struct sim_job *j = &s->jobs[job];
	struct member *m = &ss->m[j->seq];
	struct seg_view g = { j->seg, j->branch, m->host, SEG_SUCCESS, 0,
			      j->cpu / s->hosts[m->host].speed };

	if (s->dlog) {
		int i;

		for (i = 0; i < m->nfl && s->insts[m->fl[i]].job != job; i++)
			;
		if (i < m->nfl)
			dlog_seg(s, m->fl[i], "done");
	}
	fl_remove(s, m, job);
	/* sched_seq_reported: the state is recorded before the outcome is judged */
	if (seq_policy_uploads(&m->v, j->seg) & SEQ_UPLOAD_STATE)
		state_saved(s, ss, m, j->seg);
	else
		m->unsaved += j->cpu;
	follow(s, ss, m, &g);
}

/* the transitioner (late) or the validator (outvoted) */
static void seq_lost(struct sim *s, int64_t inst, enum sim_loss loss)
{
	struct seq_sim *ss = s->priv;
	const struct sim_inst *in = &s->insts[inst];
	const struct sim_job *j = &s->jobs[in->job];
	struct member *m = &ss->m[j->seq];
	struct seg_view g = { j->seg, j->branch, in->host, SEG_IN_PROGRESS, in->deadline, 0 };

	fl_remove(s, m, in->job);
	if (loss == SIM_LOSS_INVALID)
		g.status = SEG_INVALID;
	else if (seq_policy_segment_late(&g, s->now))
		g.status = SEG_LATE;
	dlog_seg(s, inst, loss == SIM_LOSS_INVALID ? "invalid" : "late");
	follow(s, ss, m, &g);
}

static void seq_cleanup(struct sim *s)
{
	struct seq_sim *ss = s->priv;
	long i;

	if (!ss)
		return;
	for (i = 0; i < ss->nm; i++) {
		free(ss->m[i].fl);
		free(ss->m[i].failed);
	}
	free(ss->m);
	free(ss->held);
	free(ss->heap);
	free(ss->reading_initial);
	free(ss->left);
	free(ss->send);
	free(ss);
	s->priv = NULL;
}

static int seq_setup(struct sim *s, char *why, size_t whylen)
{
	const struct sim_scenario *sc = s->sc;
	struct seq_sim *ss = xcalloc(1, sizeof(*ss));
	int nseg = (int)sim_scenario_segments(sc), r = (int)sc->replicas;
	long i;

	(void)why;
	(void)whylen;
	s->priv = ss;
	ss->state_b = sc->state_mb * 1e6;
	ss->answer_b = sc->answer_mb * 1e6;
	ss->segment_s = sc->segment_days * DAY;
	ss->length_s = sc->length_days * DAY;
	ss->nm = sc->sequences * r;
	ss->m = xcalloc((size_t)ss->nm, sizeof(*ss->m));
	ss->heap = xmalloc((size_t)ss->nm * sizeof(*ss->heap));
	ss->held = xmalloc((size_t)sc->hosts * sizeof(*ss->held));
	ss->reading_initial = xmalloc((size_t)sc->sequences * sizeof(int));
	ss->left = xmalloc((size_t)sc->sequences * sizeof(int));
	ss->send = xmalloc((size_t)sc->high_water * sizeof(*ss->send));
	for (i = 0; i < sc->hosts; i++)
		ss->held[i] = -1;
	for (i = 0; i < sc->sequences; i++)
		ss->reading_initial[i] = ss->left[i] = r;
	for (i = 0; i < ss->nm; i++) {
		struct member *m = &ss->m[i];

		m->comp = (int32_t)(i / r);
		m->host = -1;
		m->fresh = true;
		m->v = (struct seq_view){
			.groupid = r > 1 ? m->comp + 1 : 0,
			.active = true,
			.nsegments = nseg,
			.target_nsegments = nseg,
			.first_unsent = 1,
			.high_water = (int)sc->high_water,
			.answer_every = (int)sc->answer_every,
			.state_upload_every = (int)sc->state_every,
			/* create_sequence's default: a deadline of twice max_result_time */
			.max_result_time = sc->segment_deadline_days * DAY / 2,
			.rsc_fpops_est = ss->segment_s * REF_FLOPS,
		};
		heap_push(ss, (int32_t)i);
	}
	return 0;
}

const struct sim_strategy sim_strategy_seq = {
	.name = "seq",
	.summary = "work sequences, decided by the server's policy (backend/seq_policy.h)",
	.uses = SIM_USES_N | SIM_USES_M | SIM_USES_SEGMENT,
	.setup = seq_setup,
	.accepted = seq_accepted,
	.rpc = seq_rpc,
	.lost = seq_lost,
	.cleanup = seq_cleanup,
};
