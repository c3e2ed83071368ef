/*
 * Strategy (a): one workunit a component, the whole length in one job. It
 * runs only while its host is on; if the host leaves, the server learns at
 * the deadline and the component starts again from scratch elsewhere.
 */
#include "sim_strategy.h"

static int giant_setup(struct sim *s, char *why, size_t whylen)
{
	const struct sim_scenario *sc = s->sc;
	long c;

	(void)why;
	(void)whylen;
	for (c = 0; c < sc->sequences; c++) {
		struct sim_job j = { 0 };

		j.comp = (int32_t)c;
		j.cpu = sc->length_days * 86400.0;
		sim_job_whole_state(&j, sc);
		j.up_answer = sc->answer_mb * 1e6;
		j.frees = j.down;
		j.deadline = sc->component_deadline_days * 86400.0;
		sim_job_add(s, &j);
	}
	return 0;
}

static void giant_accepted(struct sim *s, int32_t job)
{
	sim_comp_done(s, s->jobs[job].comp);
}

const struct sim_strategy sim_strategy_giant = {
	.name = "giant",
	.summary = "one workunit a component, restarted from scratch when lost",
	.uses = 0,
	.setup = giant_setup,
	.accepted = giant_accepted,
};
