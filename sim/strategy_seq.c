/*
 * Strategy (c): work sequences, every decision made by the server's own
 * policy functions (backend/seq_policy.h, linked from backend/): the
 * simulator keeps the state the server keeps (a seq_view a sequence) and
 * asks, never decides. A component is a group of `replicas` member
 * sequences (one member with replicas 1; a group's members are compared
 * segment by segment, a wrong one is outvoted).
 *
 * - At a host's RPC: a host holding fewer sequences than its allowance
 *   (seq_policy_allowance: max_sequences_per_cpu a CPU -- the sim's host
 *   has one -- plus max_sequences_per_gpu a GPU, or with neither set the
 *   scheduler's default of one a host) is offered the unassigned members
 *   lowest id first, 20 of them, as sched_seq.c's assign_new, and takes the
 *   first seq_policy_may_take allows at the speed of the app's fastest
 *   version on the host. As sched_seq.c's top_up, a new sequence starts on
 *   the fastest lane the app has a version for that holds no sequence (a
 *   resource the request asks work for), else on the fastest such lane;
 *   then its sequences are topped up (seq_policy_segments_to_send) on
 *   their lane: a sequence stays on its device until relocated. The first
 *   segment sent to a host downloads the sequence's last uploaded state;
 *   the next ones read the state the one before leaves on the host.
 * - Segment k uploads what seq_policy_uploads says (answer every N, state
 *   every M, both at the last); with state levels, the levels
 *   seq_policy_state_mask names (level i every its period), each at the
 *   size sim_level_mb_at gives (a growing level's grows with the segments
 *   since the level before it), and a segment uploading the finest level
 *   is a restart point.
 * - A reported, late (seq_policy_segment_late) or outvoted segment goes
 *   through seq_policy_after_segment: go on, end, or relocate. A relocation
 *   restarts where seq_policy_restart_from says (after the last uploaded
 *   state, the latest restart point; each level's input is its version
 *   seq_policy_state_source names) on a new branch; the old branch's segments in flight are aborted,
 *   and the CPU of its segments after that state is wasted.
 * - Storage: a member's state (each level's) is deleted from the server
 *   once a newer one of it is there (a relocation only ever reads the last),
 *   the initial state once every member has uploaded one; answers stay.
 */
#include "sim_strategy.h"
#include "seq_policy.h"

#include <math.h>

#define DAY 86400.0
_Static_assert(SIM_MAX_LEVELS <= SEQ_MAX_FILES, "a state level is one of a segment's state files");
/* the scheduler's defaults: max_sequences_per_host, and assign_new's candidates */
#define SEQS_PER_HOST 1
#define CANDIDATES 20

struct member {
	struct seq_view v;              /* the sequence row, as the policy sees it */
	int32_t comp;
	int32_t host;                   /* -1: unassigned */
	int32_t slot;                   /* of ss->held, while assigned */
	int32_t lane;                   /* of its host, while assigned */
	bool fresh;                     /* its next segment is the first on its host */
	double unsaved;                 /* CPU of accepted segments after the last restart point */
	unsigned saved;                 /* bit i: it uploaded state level i at least once */
	double ver_b[SIM_MAX_LEVELS];   /* the size of its latest version of each level */
	int64_t *fl;                    /* its instances in flight on the live branch, oldest first */
	int nfl, capfl;
	int32_t *failed;                /* hosts whose segment of it was invalid or too slow */
	int nfailed, capfailed;
};

struct seq_sim {
	struct member *m;
	long nm;
	int32_t *held;                  /* per slot: the member it holds, or -1 */
	int32_t *first_slot;            /* per host, and one past the last: its slots */
	int32_t *heap;                  /* unassigned members: a min-heap of ids */
	long nheap;
	int *reading_initial;           /* per component and level: members whose last version of
					   the level is the initial one */
	int *left;                      /* per component: members not ended */
	int *send;                      /* seq_policy_segments_to_send's out[] */
	int nlev;                       /* state files: the scenario's levels, or one */
	double level_b[SIM_MAX_LEVELS]; /* their sizes (a growing level's initial one) */
	double answer_b, segment_s, length_s;
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

/*
 * The fastest lane of host hi the app has a version for, among those that
 * hold no sequence if idle (else any); -1: none.
 */
static int fastest_lane(const struct sim *s, const struct seq_sim *ss, int32_t hi, bool idle)
{
	const struct sim_host *h = &s->hosts[hi];
	int k, best = -1;
	int32_t slot;

	for (k = 0; k < h->nlanes; k++) {
		bool held = false;

		for (slot = ss->first_slot[hi]; idle && slot < ss->first_slot[hi + 1]; slot++)
			held |= ss->held[slot] >= 0 && ss->m[ss->held[slot]].lane == k;
		if (h->lane[k].usable && !held && (best < 0 || h->lane[k].speed > h->lane[best].speed))
			best = k;
	}
	return best;
}

/*
 * The host as the policy sees it: one CPU, its GPUs, and the speed of the
 * app's fastest version on it (sched_app_flops).
 */
static void host_view_of(const struct sim *s, const struct seq_sim *ss, int32_t hi,
			 struct host_view *hv)
{
	const struct sim_host *h = &s->hosts[hi];
	int best = ss ? fastest_lane(s, ss, hi, false) : 0;

	*hv = (struct host_view){ hi, h->lane[best < 0 ? 0 : best].speed * SIM_REF_FLOPS, 0, 1, 0,
				  h->nlanes - 1 };
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

/*
 * With state levels a relocation also says, level by level, the segment
 * whose version the new branch reads (seq_policy_state_source; 0: the
 * initial state): "seq 1 relocated branch 1 from 16 states 12,15".
 */
static void dlog_seq(const struct sim *s, const struct seq_sim *ss, const struct member *m,
		     const char *what, int from)
{
	int i;

	if (!s->dlog)
		return;
	fprintf(s->dlog, "seq %ld %s", (long)(m - ss->m) + 1, what);
	if (from > 0)
		fprintf(s->dlog, " branch %d from %d", m->v.branch, from);
	for (i = 0; from > 0 && i < s->sc->nlevels; i++)
		fprintf(s->dlog, "%s%d", i ? "," : " states ",
			seq_policy_state_source(&m->v, (size_t)i, from - 1));
	fputc('\n', s->dlog);
}

static void release(struct seq_sim *ss, struct member *m)
{
	if (m->host >= 0)
		ss->held[m->slot] = -1;
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
	/* every level's latest version is kept until a newer one is there: all found */
	seq_policy_restart_from(&m->v, (size_t)ss->nlev, (size_t)ss->nlev, (size_t)ss->nlev, &r);
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

/* assign_new: the first of the lowest-id unassigned members the host's slot may take */
static void assign(struct sim *s, struct seq_sim *ss, int32_t hi, int32_t slot)
{
	int32_t cand[CANDIDATES], k;
	struct seq_view held[SIM_MAX_SEQS_PER_RSC * (1 + SIM_MAX_GPUS)];
	struct host_view hv;
	int n = 0, i, took = -1;
	size_t nheld = 0;

	host_view_of(s, ss, hi, &hv);
	/* what the host holds: no two members of a group on one host */
	for (k = ss->first_slot[hi]; k < ss->first_slot[hi + 1]; k++)
		if (ss->held[k] >= 0 && nheld < ARRAY_SIZE(held))
			held[nheld++] = ss->m[ss->held[k]].v;
	while (n < CANDIDATES && ss->nheap > 0)
		cand[n++] = heap_pop(ss);
	for (i = 0; i < n && took < 0; i++) {
		struct member *m = &ss->m[cand[i]];

		hv.failures = failures(m, hi);
		if (seq_policy_may_take(&hv, &m->v, held, nheld))
			took = i;
	}
	for (i = 0; i < n; i++)
		if (i != took)
			heap_push(ss, cand[i]);
	if (took >= 0) {
		struct member *m = &ss->m[cand[took]];
		int lane = fastest_lane(s, ss, hi, true);

		m->host = hi;
		m->slot = slot;
		m->lane = lane >= 0 ? lane : fastest_lane(s, ss, hi, false);
		ss->held[slot] = cand[took];
	}
}

/* the bytes of level l's version uploaded by segment k of m (0: the initial one) */
static double level_bytes(const struct sim *s, const struct seq_sim *ss, const struct member *m,
			  int l, int k)
{
	return s->sc->nlevels ? sim_level_mb_at(s->sc, &m->v, l, k) * 1e6 : ss->level_b[0];
}

/* what a host taking m before segment k downloads: each level's version a restart reads */
static double state_down(const struct sim *s, const struct seq_sim *ss, const struct member *m,
			 int k)
{
	double b = 0;
	int l;

	for (l = 0; l < ss->nlev; l++)
		b += level_bytes(s, ss, m, l, seq_policy_state_source(&m->v, (size_t)l, k - 1));
	return b;
}

/* top_up: the host's segments of m up to the high-water mark */
static void top_up(struct sim *s, struct seq_sim *ss, int32_t mi, int32_t hi)
{
	struct member *m = &ss->m[mi];
	size_t i, n = seq_policy_segments_to_send(&m->v, m->nfl, ss->send, (size_t)m->v.high_water);

	for (i = 0; i < n; i++) {
		int k = ss->send[i];
		unsigned up = seq_policy_uploads(&m->v, k), mask = seq_policy_state_mask(&m->v, k);
		double done = (k - 1) * ss->segment_s;
		int l;
		struct sim_job j = { 0 };

		j.comp = m->comp;
		j.seq = mi;
		j.seg = k;
		j.branch = m->v.branch;
		j.cpu = ss->length_s - done < ss->segment_s ? ss->length_s - done : ss->segment_s;
		j.down = m->fresh ? state_down(s, ss, m, k) : 0;
		for (l = 0; l < ss->nlev; l++) {
			j.up_level[l] = mask & (1u << l) ? level_bytes(s, ss, m, l, k) : 0;
			j.up_state += j.up_level[l];
		}
		j.up_answer = up & SEQ_UPLOAD_ANSWER ? ss->answer_b : 0;
		j.deadline = s->sc->segment_deadline_days * DAY;
		if (m->nfl == m->capfl) {
			m->capfl = m->capfl ? 2 * m->capfl : 2;
			m->fl = xrealloc(m->fl, (size_t)m->capfl * sizeof(*m->fl));
		}
		m->fl[m->nfl++] = sim_send(s, hi, m->lane, sim_job_new(s, &j));
		dlog_seg(s, m->fl[m->nfl - 1], "sent");
		m->v.first_unsent = k + 1;
		m->fresh = false;
	}
}

/* the host's empty slots (if the app has a version for it), then its top-ups */
static void seq_rpc(struct sim *s, int32_t hi)
{
	struct seq_sim *ss = s->priv;
	int32_t slot;

	for (slot = ss->first_slot[hi]; slot < ss->first_slot[hi + 1]; slot++)
		if (ss->held[slot] < 0 && fastest_lane(s, ss, hi, false) >= 0)
			assign(s, ss, hi, slot);
	for (slot = ss->first_slot[hi]; slot < ss->first_slot[hi + 1]; slot++)
		if (ss->held[slot] >= 0)
			top_up(s, ss, ss->held[slot], hi);
}

/*
 * Segment k's states are on the server: k is the latest restart point, and
 * each level it uploaded replaces that level's older version, which no
 * restart needs any more (the initial one once every member of the group
 * has a newer one).
 */
static void state_saved(struct sim *s, struct seq_sim *ss, struct member *m, int k)
{
	unsigned mask = seq_policy_state_mask(&m->v, k);
	int l;

	for (l = 0; l < ss->nlev; l++) {
		if (!(mask & (1u << l)))
			continue;
		if ((m->saved & (1u << l)) || --ss->reading_initial[m->comp * ss->nlev + l] == 0)
			sim_storage_add(s, -m->ver_b[l]);
		m->saved |= 1u << l;
		m->ver_b[l] = level_bytes(s, ss, m, l, k);
	}
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
			      j->cpu / s->hosts[m->host].lane[m->lane].speed };

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
	free(ss->first_slot);
	free(ss->heap);
	free(ss->reading_initial);
	free(ss->left);
	free(ss->send);
	free(ss);
	s->priv = NULL;
}

/* host i's allowance: the sequences it may hold (its slots) */
static long slots_of(const struct sim *s, long i)
{
	struct host_view hv;

	host_view_of(s, NULL, (int32_t)i, &hv);
	return (long)seq_policy_allowance(&hv, SEQS_PER_HOST, s->sc->max_sequences_per_cpu,
					  s->sc->max_sequences_per_gpu);
}

/* every host's slots, empty (the hosts' lanes are made by then) */
static void slots_create(struct sim *s, struct seq_sim *ss)
{
	const struct sim_scenario *sc = s->sc;
	long i, n = 0;

	ss->first_slot = xmalloc((size_t)(sc->hosts + 1) * sizeof(*ss->first_slot));
	for (i = 0; i < sc->hosts; i++) {
		ss->first_slot[i] = (int32_t)n;
		n += slots_of(s, i);
	}
	ss->first_slot[sc->hosts] = (int32_t)n;
	ss->held = xmalloc((size_t)n * sizeof(*ss->held));
	for (i = 0; i < n; i++)
		ss->held[i] = -1;
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
	ss->nlev = sc->nlevels ? sc->nlevels : 1;
	for (i = 0; i < ss->nlev; i++)
		ss->level_b[i] = (sc->nlevels ? sc->levels[i].mb : sc->state_mb) * 1e6;
	ss->answer_b = sc->answer_mb * 1e6;
	ss->segment_s = sc->segment_days * DAY;
	ss->length_s = sc->length_days * DAY;
	ss->nm = sc->sequences * r;
	ss->m = xcalloc((size_t)ss->nm, sizeof(*ss->m));
	ss->heap = xmalloc((size_t)ss->nm * sizeof(*ss->heap));
	slots_create(s, ss);
	ss->reading_initial = xmalloc((size_t)sc->sequences * (size_t)ss->nlev * sizeof(int));
	ss->left = xmalloc((size_t)sc->sequences * sizeof(int));
	ss->send = xmalloc((size_t)sc->high_water * sizeof(*ss->send));
	for (i = 0; i < sc->sequences * ss->nlev; i++)
		ss->reading_initial[i] = r;
	for (i = 0; i < sc->sequences; i++)
		ss->left[i] = r;
	for (i = 0; i < ss->nm; i++) {
		struct member *m = &ss->m[i];

		m->comp = (int32_t)(i / r);
		m->host = -1;
		m->fresh = true;
		memcpy(m->ver_b, ss->level_b, sizeof(m->ver_b));
		m->v = (struct seq_view){
			.groupid = r > 1 ? m->comp + 1 : 0,
			.active = true,
			.nsegments = nseg,
			.target_nsegments = nseg,
			.first_unsent = 1,
			.high_water = (int)sc->high_water,
			.answer_every = (int)sc->answer_every,
			/* M, and the state levels: sim_scenario_view_levels below */
			/* create_sequence's default: a deadline of twice max_result_time */
			.max_result_time = sc->segment_deadline_days * DAY / 2,
			.rsc_fpops_est = ss->segment_s * SIM_REF_FLOPS,
		};
		sim_scenario_view_levels(sc, &m->v);
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
