/*
 * The discrete-event loop (sim.h): virtual time, no sleeping. Hosts switch
 * on and off, leave for good, poll the server while on and idle, and run
 * one instance at a time: download the input, compute, upload the output,
 * each phase progressing only while the host is on; a host may hold a list
 * of instances (a sequence's segments up to its high-water mark) and runs
 * them in order. The server side is a queue of jobs wanting instances, a
 * deadline per instance, and replicas compared as they come back. A host
 * with GPUs runs a list on each of them beside its CPU's (struct sim_lane),
 * and takes work for each lane the app has a version for. Which
 * jobs exist, and which host a strategy sends its own to, is the
 * strategy's affair.
 */
#include "sim.h"
#include "sim_strategy.h"

#include <math.h>

enum { EV_ON, EV_OFF, EV_LEAVE, EV_RPC, EV_PHASE, EV_DEADLINE };

#define MB 1e6
#define HOUR 3600.0
#define DAY 86400.0

static double draw(struct sim_rng *r, const struct sim_dist *d)
{
	switch (d->kind) {
	case SIM_DIST_CONST: return d->p1;
	case SIM_DIST_EXP: return sim_rng_exp(r, d->p1);
	case SIM_DIST_WEIBULL: return sim_rng_weibull(r, d->p1, d->p2);
	case SIM_DIST_LOGNORMAL: return sim_rng_lognormal(r, d->p1, d->p2);
	case SIM_DIST_UNIFORM: return sim_rng_uniform_ab(r, d->p1, d->p2);
	case SIM_DIST_NONE: break;
	}
	return INFINITY;
}

/* a period of at least a second, so time always moves on */
static double period(struct sim_rng *r, const struct sim_dist *d, double unit)
{
	double p = draw(r, d) * unit;

	return p >= 1 ? p : 1;
}

void sim_job_whole_state(struct sim_job *j, const struct sim_scenario *sc)
{
	int i;

	j->down = j->up_state = sim_scenario_state_mb(sc) * MB;
	for (i = 0; i < sc->nlevels; i++)
		j->up_level[i] = sc->levels[i].mb * MB;
}

void sim_storage_add(struct sim *s, double bytes)
{
	s->stats.storage += bytes;
	if (s->stats.storage > s->stats.storage_peak)
		s->stats.storage_peak = s->stats.storage;
}

static double rate(const struct sim_host *h, const struct sim_lane *l)
{
	return l->phase == SIM_PH_DOWN ? h->down_bps : l->phase == SIM_PH_CPU ? l->speed : h->up_bps;
}

/* bring l->left up to now */
static void progress(struct sim *s, const struct sim_host *h, struct sim_lane *l)
{
	if (h->on && l->inst >= 0) {
		l->left -= (s->now - l->since) * rate(h, l);
		if (l->left < 0)
			l->left = 0;
	}
	l->since = s->now;
}

static void progress_all(struct sim *s, struct sim_host *h)
{
	int k;

	for (k = 0; k < h->nlanes; k++)
		progress(s, h, &h->lane[k]);
}

static void schedule_phase(struct sim *s, const struct sim_host *h, const struct sim_lane *l,
			   int32_t hi)
{
	sim_queue_push(&s->q, s->now + l->left / rate(h, l), EV_PHASE, hi, h->gen, l->inst);
}

/* One RPC pending a host at most: the earliest asked for. */
static void schedule_rpc(struct sim *s, struct sim_host *h, int32_t hi, double after)
{
	double t = s->now + after;

	if (t >= h->rpc_at)
		return;
	h->rpc_at = t;
	sim_queue_push(&s->q, t, EV_RPC, hi, h->gen, -1);
}

/* the host's events so far are void (it went off or away) */
static void host_stale(struct sim_host *h)
{
	h->gen++;
	h->rpc_at = INFINITY;
}

/* reference-CPU seconds the lane has put into its current instance */
static double cpu_spent(const struct sim *s, const struct sim_lane *l)
{
	const struct sim_job *j = &s->jobs[s->insts[l->inst].job];

	return l->phase == SIM_PH_DOWN ? 0 : l->phase == SIM_PH_CPU ? j->cpu - l->left : j->cpu;
}

/* the head of the lane's list starts: download its input (a sticky one: nothing) */
static void host_start(struct sim *s, struct sim_host *h, struct sim_lane *l, int32_t hi)
{
	l->phase = SIM_PH_DOWN;
	l->left = s->jobs[s->insts[l->inst].job].down;
	l->since = s->now;
	if (h->on)
		schedule_phase(s, h, l, hi);
}

/* the head leaves the lane's list; the next one starts */
static void host_pop(struct sim *s, struct sim_host *h, struct sim_lane *l, int32_t hi)
{
	struct sim_inst *in = &s->insts[l->inst];

	in->onhost = false;
	l->inst = in->next;
	in->next = -1;
	if (l->inst < 0)
		l->tail = -1;
	else
		host_start(s, h, l, hi);
}

/* instance i leaves its lane's list; what the host computed of it is wasted */
static void host_drop(struct sim *s, int64_t i)
{
	struct sim_inst *in = &s->insts[i];
	int32_t hi = in->host;
	struct sim_host *h = &s->hosts[hi];
	struct sim_lane *l = &h->lane[in->lane];
	int64_t p;

	if (l->inst == i) {
		progress(s, h, l);
		s->stats.cpu_wasted += cpu_spent(s, l);
		host_pop(s, h, l, hi);
		if (l->inst < 0 && h->on)
			schedule_rpc(s, h, hi, s->sc->rpc_hours * HOUR);
		return;
	}
	for (p = l->inst; s->insts[p].next != i; p = s->insts[p].next)
		;
	s->insts[p].next = in->next;
	if (l->tail == i)
		l->tail = p;
	in->next = -1;
	in->onhost = false;
}

void sim_abort(struct sim *s, int64_t i)
{
	struct sim_inst *in = &s->insts[i];

	if (!in->live)
		return;
	in->live = false;
	s->jobs[in->job].inflight--;
	if (in->onhost)
		host_drop(s, i);
}

static void ready_push(struct sim *s, int32_t job)
{
	if (s->rlen == s->rcap) {
		size_t i, ncap = s->rcap ? 2 * s->rcap : 1024;
		int32_t *n = xmalloc(ncap * sizeof(*n));

		for (i = 0; i < s->rlen; i++)
			n[i] = s->ready[(s->rhead + i) % s->rcap];
		free(s->ready);
		s->ready = n;
		s->rhead = 0;
		s->rcap = ncap;
	}
	s->ready[(s->rhead + s->rlen++) % s->rcap] = job;
}

static int32_t ready_pop(struct sim *s)
{
	int32_t j = s->ready[s->rhead];

	s->rhead = (s->rhead + 1) % s->rcap;
	s->rlen--;
	return j;
}

static bool job_has_host(const struct sim_job *j, int32_t host)
{
	int i;

	for (i = 0; i < j->nhosts; i++)
		if (j->hosts[i] == host)
			return true;
	return false;
}

int32_t sim_job_new(struct sim *s, const struct sim_job *j)
{
	struct sim_job *n;

	if (s->njobs == s->capjobs) {
		s->capjobs = s->capjobs ? 2 * s->capjobs : 1024;
		s->jobs = xrealloc(s->jobs, s->capjobs * sizeof(*s->jobs));
	}
	n = &s->jobs[s->njobs];
	*n = *j;
	n->need = 1;
	n->ok = n->inflight = n->nhosts = 0;
	n->done = false;
	return (int32_t)s->njobs++;
}

int32_t sim_job_add(struct sim *s, const struct sim_job *j)
{
	int32_t id = sim_job_new(s, j);
	long r;

	s->jobs[id].need = (int)s->sc->replicas;
	for (r = 0; r < s->sc->replicas; r++)
		ready_push(s, id);
	return id;
}

int64_t sim_send(struct sim *s, int32_t hi, int lane, int32_t ji)
{
	struct sim_host *h = &s->hosts[hi];
	struct sim_lane *l = &h->lane[lane];
	struct sim_job *j = &s->jobs[ji];
	int64_t i;

	if (s->ninsts == s->capinsts) {
		s->capinsts = s->capinsts ? 2 * s->capinsts : 1024;
		s->insts = xrealloc(s->insts, s->capinsts * sizeof(*s->insts));
	}
	i = (int64_t)s->ninsts++;
	s->insts[i] = (struct sim_inst){ ji, hi, lane, -1, s->now + j->deadline, true, true };
	j->inflight++;
	if (j->nhosts < (int)ARRAY_SIZE(j->hosts))
		j->hosts[j->nhosts++] = hi;
	/* late means past the deadline (seq_policy_segment_late): the check comes just after it */
	sim_queue_push(&s->q, nextafter(s->insts[i].deadline, INFINITY), EV_DEADLINE, hi, 0, i);
	if (l->inst < 0) {
		l->inst = l->tail = i;
		host_start(s, h, l, hi);
	} else {
		s->insts[l->tail].next = i;
		l->tail = i;
	}
	return i;
}

void sim_comp_done(struct sim *s, int32_t c)
{
	if (s->comps[c].finish < 0) {
		s->comps[c].finish = s->now;
		s->ndone++;
	}
}

void sim_relocated(struct sim *s, double cpu)
{
	s->stats.relocations++;
	s->stats.cpu_wasted += cpu;
}

void sim_host_leave_at(struct sim *s, int32_t hi, double t)
{
	sim_queue_push(&s->q, t, EV_LEAVE, hi, 0, -1);
}

/* an idle lane takes the first job of the shared queue its host may have: found? */
static bool send_work(struct sim *s, int32_t hi, int lane)
{
	size_t tries = s->rlen;

	while (tries-- > 0) {
		int32_t ji = ready_pop(s);
		struct sim_job *j = &s->jobs[ji];

		if (j->done || j->ok + j->inflight >= j->need)
			continue;
		/* as BOINC: one result of a job a host, even after a loss or a wrong one */
		if (job_has_host(j, hi)) {
			ready_push(s, ji);
			continue;
		}
		sim_send(s, hi, lane, ji);
		return true;
	}
	return false;
}

/*
 * A scheduler RPC: the strategy's own work first (a sequence's host), then
 * the queue for each idle lane the app has a version for; a lane left idle
 * asks again later. A host with no usable lane never asks.
 */
static void rpc(struct sim *s, struct sim_host *h, int32_t hi)
{
	bool idle = false;
	int k;

	if (s->st->rpc)
		s->st->rpc(s, hi);
	for (k = 0; k < h->nlanes; k++)
		if (h->lane[k].usable && h->lane[k].inst < 0 && !send_work(s, hi, k))
			idle = true;
	if (idle)
		schedule_rpc(s, h, hi, s->sc->rpc_hours * HOUR);
}

/* bytes_up_level: each level the job uploads */
static void count_levels(struct sim *s, const struct sim_job *j)
{
	int i;

	for (i = 0; i < s->sc->nlevels; i++)
		s->stats.bytes_up_level[i] += j->up_level[i];
}

/* the lane reports its head instance, uploaded */
static void report(struct sim *s, struct sim_host *h, struct sim_lane *l, int32_t hi)
{
	int64_t ii = l->inst;
	struct sim_inst *in = &s->insts[ii];
	int32_t ji = in->job;
	struct sim_job *j = &s->jobs[ji];
	double out = j->up_state + j->up_answer;

	host_pop(s, h, l, hi);
	s->stats.bytes_up += out;
	count_levels(s, j);
	s->stats.cpu_used += j->cpu;
	if (!in->live || j->done) {  /* the server gave up on it already */
		s->stats.cpu_wasted += j->cpu;
	} else {
		in->live = false;
		j->inflight--;
		sim_storage_add(s, out);
		if (h->wrong && s->sc->replicas > 1) {
			/* compared with the other replicas: thrown away */
			s->stats.wrong_detected++;
			s->stats.cpu_wasted += j->cpu;
			s->stats.storage -= out;
			if (s->st->lost)
				s->st->lost(s, ii, SIM_LOSS_INVALID);
			else
				ready_push(s, ji);
		} else {
			if (h->wrong)
				s->stats.wrong_accepted++;
			if (++j->ok >= j->need) {
				j->done = true;
				/* one copy of the output stays; what the job read may go */
				s->stats.storage -= (j->ok - 1) * out + j->frees;
				s->st->accepted(s, ji);
			}
		}
	}
	schedule_rpc(s, h, hi, 0);
}

static void on_phase(struct sim *s, struct sim_host *h, struct sim_lane *l, int32_t hi)
{
	const struct sim_job *j = &s->jobs[s->insts[l->inst].job];

	progress(s, h, l);
	if (l->phase == SIM_PH_DOWN) {
		s->stats.bytes_down += j->down;
		l->phase = SIM_PH_CPU;
		l->left = j->cpu;
	} else if (l->phase == SIM_PH_CPU) {
		l->phase = SIM_PH_UP;
		l->left = j->up_state + j->up_answer;
	} else {
		report(s, h, l, hi);
		return;
	}
	schedule_phase(s, h, l, hi);
}

/* the server gives up on instance ii: the strategy says what follows, else it is sent again */
static void on_deadline(struct sim *s, int64_t ii)
{
	if (!s->insts[ii].live)
		return;
	s->stats.restarts++;
	sim_abort(s, ii);
	if (s->st->lost)
		s->st->lost(s, ii, SIM_LOSS_LATE);
	else
		ready_push(s, s->insts[ii].job);
}

static void on_leave(struct sim *s, struct sim_host *h)
{
	int64_t i, next;
	int k;

	progress_all(s, h);
	for (k = 0; k < h->nlanes; k++) {
		struct sim_lane *l = &h->lane[k];

		if (l->inst >= 0)
			s->stats.cpu_wasted += cpu_spent(s, l);
		/* the server finds out at the deadlines */
		for (i = l->inst; i >= 0; i = next) {
			next = s->insts[i].next;
			s->insts[i].next = -1;
			s->insts[i].onhost = false;
		}
		l->inst = l->tail = -1;
	}
	h->gone = true;
	h->on = false;
	host_stale(h);
}

/* the host's lanes go on where they were; an idle usable one asks for work at once */
static void host_switched_on(struct sim *s, struct sim_host *h, int32_t hi)
{
	bool idle = false;
	int k;

	for (k = 0; k < h->nlanes; k++) {
		struct sim_lane *l = &h->lane[k];

		l->since = s->now;
		if (l->inst >= 0)
			schedule_phase(s, h, l, hi);
		else
			idle |= l->usable;
	}
	if (idle)
		schedule_rpc(s, h, hi, 0);
}

static void dispatch(struct sim *s, const struct sim_event *ev)
{
	struct sim_host *h = &s->hosts[ev->a];
	const struct sim_scenario *sc = s->sc;

	switch (ev->type) {
	case EV_ON:
		if (h->gone || h->on)
			break;
		h->on = true;
		host_switched_on(s, h, ev->a);
		if (!sc->nscript)
			sim_queue_push(&s->q, s->now + period(&h->rng, &sc->on_hours, HOUR), EV_OFF, ev->a,
				       0, -1);
		break;
	case EV_OFF:
		if (h->gone || !h->on)
			break;
		progress_all(s, h);
		h->on = false;
		host_stale(h);
		if (!sc->nscript)
			sim_queue_push(&s->q, s->now + period(&h->rng, &sc->off_hours, HOUR), EV_ON, ev->a,
				       0, -1);
		break;
	case EV_LEAVE:
		if (!h->gone)
			on_leave(s, h);
		break;
	case EV_RPC:
		if (h->on && !h->gone && ev->gen == h->gen && ev->t == h->rpc_at) {
			h->rpc_at = INFINITY;
			rpc(s, h, ev->a);
		}
		break;
	case EV_PHASE:
		if (h->on && !h->gone && ev->gen == h->gen &&
		    h->lane[s->insts[ev->b].lane].inst == ev->b)
			on_phase(s, h, &h->lane[s->insts[ev->b].lane], ev->a);
		break;
	case EV_DEADLINE:
		on_deadline(s, ev->b);
		break;
	}
}

/*
 * Every host's lanes: its CPU, and its GPUs if sim_host_has_gpu, each GPU
 * at gpu_flops; usable where the app has a version for the resource.
 */
static void lanes_create(struct sim *s)
{
	const struct sim_scenario *sc = s->sc;
	size_t n = 0, k;
	long i;

	s->hosts = xcalloc((size_t)sc->hosts, sizeof(*s->hosts));
	for (i = 0; i < sc->hosts; i++)
		n += 1 + (sim_host_has_gpu(sc, i) ? (size_t)sc->gpus_per_host : 0);
	s->lanes = xcalloc(n, sizeof(*s->lanes));
	for (i = 0, n = 0; i < sc->hosts; i++) {
		struct sim_host *h = &s->hosts[i];

		h->lane = &s->lanes[n];
		h->nlanes = 1 + (sim_host_has_gpu(sc, i) ? (int)sc->gpus_per_host : 0);
		for (k = 0; k < (size_t)h->nlanes; k++) {
			h->lane[k].inst = h->lane[k].tail = -1;
			h->lane[k].speed = sc->gpu_flops / SIM_REF_FLOPS;
			h->lane[k].usable = sc->app_versions & (k ? SIM_VERSION_GPU : SIM_VERSION_CPU);
		}
		n += (size_t)h->nlanes;
	}
}

static void hosts_create(struct sim *s)
{
	const struct sim_scenario *sc = s->sc;
	double mon = sim_dist_mean(&sc->on_hours), moff = sim_dist_mean(&sc->off_hours);
	double p_on = mon + moff > 0 ? mon / (mon + moff) : 1;
	long i;

	for (i = 0; i < sc->hosts; i++) {
		struct sim_host *h = &s->hosts[i];
		double life;

		sim_rng_seed(&h->rng, sc->seed, (uint64_t)i + 1);
		h->speed = fmax(draw(&h->rng, &sc->speed), 0.01);
		h->lane[0].speed = h->speed;
		h->up_bps = fmax(draw(&h->rng, &sc->upload_mbps), 0.001) * 1e6 / 8;
		h->down_bps = fmax(draw(&h->rng, &sc->download_mbps), 0.001) * 1e6 / 8;
		h->wrong = sim_rng_uniform(&h->rng) < sc->wrong_fraction;
		h->rpc_at = INFINITY;
		if (sc->nscript)
			continue;       /* on, off and gone as the script says (below) */
		life = sc->life_days.kind == SIM_DIST_NONE ? INFINITY : draw(&h->rng, &sc->life_days) * DAY;
		if (life <= s->horizon)
			sim_queue_push(&s->q, life, EV_LEAVE, (int32_t)i, 0, -1);
		/* start in the stationary mix of on and off */
		if (sim_rng_uniform(&h->rng) < p_on)
			sim_queue_push(&s->q, 0, EV_ON, (int32_t)i, 0, -1);
		else
			sim_queue_push(&s->q, period(&h->rng, &sc->off_hours, HOUR) * sim_rng_uniform(&h->rng),
				       EV_ON, (int32_t)i, 0, -1);
	}
	/* in the order of the lines: events at one time happen in that order */
	for (i = 0; i < sc->nscript; i++) {
		const struct sim_script_ev *e = &sc->script[i];
		int type = e->kind == SIM_SCRIPT_ON ? EV_ON : e->kind == SIM_SCRIPT_OFF ? EV_OFF : EV_LEAVE;

		sim_queue_push(&s->q, e->hours * HOUR, type, e->host, 0, -1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void finish_stats(struct sim *s)
{
	double *t = xmalloc((size_t)s->sc->sequences * sizeof(*t));
	long i, n = 0;

	for (i = 0; i < s->sc->sequences; i++)
		if (s->comps[i].finish >= 0)
			t[n++] = s->comps[i].finish / DAY;
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	s->stats.finished = n;
	s->stats.unfinished = s->sc->sequences - n;
	/* nearest rank */
	s->stats.median_days = n ? t[(size_t)ceil(0.5 * n) - 1] : NAN;
	s->stats.p90_days = n ? t[(size_t)ceil(0.9 * n) - 1] : NAN;
	free(t);
}

static int run(const struct sim_scenario *sc, const struct sim_strategy *st,
	       void (*hook)(struct sim *s, void *arg), void *arg, FILE *log, struct sim_stats *out,
	       double *finish, char *why, size_t whylen)
{
	struct sim s;
	struct sim_event ev;
	long i;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(out, 0, sizeof(*out));
	s.sc = sc;
	s.st = st;
	s.dlog = log;
	s.horizon = sc->horizon_days * DAY;
	sim_queue_init(&s.q);
	s.comps = xmalloc((size_t)sc->sequences * sizeof(*s.comps));
	for (i = 0; i < sc->sequences; i++)
		s.comps[i].finish = -1;
	lanes_create(&s);      /* before the strategy: a sequence's slots are on lanes */
	rc = st->setup(&s, why, whylen);
	if (rc == 0) {
		sim_storage_add(&s, sc->sequences * sim_scenario_state_mb(sc) * MB);  /* the initial states */
		hosts_create(&s);
		if (hook)
			hook(&s, arg);
		while (s.ndone < sc->sequences && sim_queue_pop(&s.q, &ev) && ev.t <= s.horizon) {
			s.now = ev.t;
			dispatch(&s, &ev);
		}
		finish_stats(&s);
		*out = s.stats;
		for (i = 0; finish && i < sc->sequences; i++)
			finish[i] = s.comps[i].finish >= 0 ? s.comps[i].finish / DAY : -1;
	}
	if (st->cleanup)
		st->cleanup(&s);
	sim_queue_release(&s.q);
	free(s.hosts);
	free(s.lanes);
	free(s.jobs);
	free(s.insts);
	free(s.comps);
	free(s.ready);
	return rc;
}

int sim_run_hooked(const struct sim_scenario *sc, const struct sim_strategy *st,
		   void (*hook)(struct sim *s, void *arg), void *arg, struct sim_stats *out,
		   char *why, size_t whylen)
{
	return run(sc, st, hook, arg, NULL, out, NULL, why, whylen);
}

int sim_run_finish(const struct sim_scenario *sc, const struct sim_strategy *st,
		   struct sim_stats *out, double *finish, char *why, size_t whylen)
{
	return run(sc, st, NULL, NULL, NULL, out, finish, why, whylen);
}

int sim_run(const struct sim_scenario *sc, const struct sim_strategy *st, struct sim_stats *out,
	    char *why, size_t whylen)
{
	return run(sc, st, NULL, NULL, NULL, out, NULL, why, whylen);
}

int sim_run_logged(const struct sim_scenario *sc, const struct sim_strategy *st, FILE *log,
		   struct sim_stats *out, double *finish, char *why, size_t whylen)
{
	return run(sc, st, NULL, NULL, log, out, finish, why, whylen);
}
