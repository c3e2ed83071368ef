/*
 * wseq_sim --grid's axes (sim/sim_grid.c), through sim_grid_add(): each
 * line of the input one --grid argument. A typo must give an error that
 * says --grid, never a crash; what is accepted stays within the bounds the
 * scenario keeps (N, M, segment_days, a level's period), the run count
 * within its limit, and every run applies, is left out because its levels
 * do not nest, or says why.
 */
#include "fuzz.h"
#include "sim_grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_grid w;
	struct sim_scenario sc;
	char *text = fuzz_cstr(data, size), *line = text, *nl, err[256];
	size_t k, i, runs;
	int rc;

	fuzz_setup();
	sim_grid_init(&w);
	for (; line; line = nl ? nl + 1 : NULL) {
		size_t before = w.naxes;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		err[0] = '\0';
		if (sim_grid_add(&w, line, err, sizeof(err)) != 0) {
			FUZZ_CHECK(strncmp(err, "--grid", 6) == 0);
			FUZZ_CHECK(w.naxes == before);
		} else {
			FUZZ_CHECK(w.naxes == before + 1);
		}
	}
	runs = sim_grid_runs(&w);
	FUZZ_CHECK(runs >= 1 && runs <= SIM_GRID_MAX_RUNS);
	for (k = 0; k < w.naxes; k++) {
		const struct sim_grid_axis *a = &w.axis[k];

		FUZZ_CHECK(a->n >= 1 && a->n <= SIM_GRID_MAX_VALUES);
		for (i = 0; i < a->n; i++) {
			if (a->param == SIM_GRID_SEGMENT)
				FUZZ_CHECK(a->v[i] >= 1e-6 && a->v[i] <= 1e5);
			else
				FUZZ_CHECK(a->v[i] >= 1 && a->v[i] <= 1000000 && a->v[i] == (long)a->v[i]);
		}
	}
	/* the first two and the last run: values set, or a reason */
	for (k = 0; k < 3; k++) {
		i = k == 2 ? runs - 1 : k < runs ? k : 0;
		sim_scenario_defaults(&sc);
		err[0] = '\0';
		/* two levels, so that L1 and L2 apply (and may not nest: 1, left out) */
		sc.nlevels = 2;
		sc.levels[0] = (struct sim_level){ 1000, 12 };
		sc.levels[1] = (struct sim_level){ 20, 3 };
		rc = sim_grid_apply(&w, i, &sc, err, sizeof(err));
		if (rc < 0)
			FUZZ_CHECK(strncmp(err, "--grid", 6) == 0);
		else if (rc == 0)
			FUZZ_CHECK(sc.answer_every >= 1 && sc.state_every >= 1 && sc.segment_days > 0 &&
				   sim_scenario_levels_nest(&sc, err, sizeof(err)));
		else
			FUZZ_CHECK(!sim_scenario_levels_nest(&sc, err, sizeof(err)));
	}
	free(text);
	return 0;
}
