/*
 * Strategy (b): independent segments. Segment k is a job of its own, sent
 * to any host once segment k-1 is accepted; it downloads the state, computes
 * one segment and uploads the state (and the answer every N segments).
 */
#include "sim_strategy.h"

static void add_segment(struct sim *s, int32_t comp, int32_t k)
{
	const struct sim_scenario *sc = s->sc;
	long nseg = sim_scenario_segments(sc);
	double done = k * sc->segment_days;
	struct sim_job j = { 0 };

	j.comp = comp;
	j.seg = k;
	j.cpu = (sc->length_days - done < sc->segment_days ? sc->length_days - done : sc->segment_days) *
		86400.0;
	sim_job_whole_state(&j, sc);
	j.up_answer = ((k + 1) % sc->answer_every == 0 || k + 1 == nseg) ? sc->answer_mb * 1e6 : 0;
	j.frees = j.down;
	j.deadline = sc->segment_deadline_days * 86400.0;
	sim_job_add(s, &j);
}

static int chunk_setup(struct sim *s, char *why, size_t whylen)
{
	long c;

	(void)why;
	(void)whylen;
	for (c = 0; c < s->sc->sequences; c++)
		add_segment(s, (int32_t)c, 0);
	return 0;
}

static void chunk_accepted(struct sim *s, int32_t job)
{
	const struct sim_job *j = &s->jobs[job];
	int32_t comp = j->comp, k = j->seg;

	/* j may move: sim_job_add() grows the array */
	if (k + 1 < sim_scenario_segments(s->sc))
		add_segment(s, comp, k + 1);
	else
		sim_comp_done(s, comp);
}

const struct sim_strategy sim_strategy_chunk = {
	.name = "chunk",
	.summary = "independent segments, the state uploaded and downloaded every segment",
	.uses = SIM_USES_N | SIM_USES_SEGMENT,
	.setup = chunk_setup,
	.accepted = chunk_accepted,
};
