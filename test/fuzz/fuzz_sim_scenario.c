/*
 * wseq_sim's scenario file (sim/sim_scenario.c), through
 * sim_scenario_parse(). The file is a user's, but a typo must give an error
 * naming the line, never a crash; and what parses must stay within the
 * bounds the engine relies on (state levels nested) and write back to text
 * that parses the same.
 */
#include "fuzz.h"
#include "sim_scenario.h"
#include "seq_policy.h"

static char *written(const struct sim_scenario *sc, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	FUZZ_CHECK(fp != NULL);
	sim_scenario_write(sc, fp);
	fclose(fp);
	return buf;
}

/* level i's size at a few segments: from its MB to the larger of its and the level before's */
static void level_sizes(const struct sim_scenario *sc, int i)
{
	struct seq_view v = { .nsegments = (int)sim_scenario_segments(sc) };
	double hi = sc->levels[i].mb > sc->levels[i - 1].mb ? sc->levels[i].mb : sc->levels[i - 1].mb;
	int k;

	sim_scenario_view_levels(sc, &v);
	for (k = 0; k <= 40 && k <= v.nsegments; k++) {
		double mb = sim_level_mb_at(sc, &v, i, k);

		FUZZ_CHECK(mb >= sc->levels[i].mb && mb <= hi);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_scenario sc, again;
	char err[256];
	char *a, *b;
	size_t alen, blen;
	int i;

	fuzz_setup();
	sim_scenario_defaults(&sc);
	if (sim_scenario_parse(&sc, (const char *)data, size, "fuzz", err, sizeof(err)) != 0) {
		FUZZ_CHECK(strncmp(err, "fuzz:", 5) == 0);
		return 0;
	}
	FUZZ_CHECK(sc.hosts >= 1 && sc.sequences >= 1);
	FUZZ_CHECK(sc.replicas >= 1 && sc.replicas <= SIM_MAX_REPLICAS);
	FUZZ_CHECK(sc.wrong_fraction >= 0 && sc.wrong_fraction <= 1);
	FUZZ_CHECK(sim_scenario_segments(&sc) >= 1 && sim_scenario_segments(&sc) <= 1000000);
	FUZZ_CHECK(sc.on_hours.kind != SIM_DIST_NONE && sc.off_hours.kind != SIM_DIST_NONE);
	FUZZ_CHECK(sc.app_versions >= 1 && sc.app_versions <= (SIM_VERSION_CPU | SIM_VERSION_GPU));
	FUZZ_CHECK(sc.gpu_share >= 0 && sc.gpu_share <= 1 && sc.gpu_flops > 0);
	/* state levels: within the bounds, their periods nested */
	FUZZ_CHECK(sc.nlevels >= 0 && sc.nlevels <= SIM_MAX_LEVELS);
	for (i = 0; i < sc.nlevels; i++)
		FUZZ_CHECK(sc.levels[i].mb >= 0 && sc.levels[i].mb <= 1e7 &&
			   sc.levels[i].every >= 0 && sc.levels[i].every <= 1000000);
	FUZZ_CHECK(sim_scenario_levels_nest(&sc, err, sizeof(err)));
	/* a growing level is never the first, and its size stays within its bounds */
	FUZZ_CHECK(!(sc.levels_grow & 1u));
	for (i = 1; i < sc.nlevels; i++)
		level_sizes(&sc, i);
	FUZZ_CHECK(sc.gpus_per_host >= 1 && sc.gpus_per_host <= SIM_MAX_GPUS);
	FUZZ_CHECK(sc.max_sequences_per_cpu >= 0 && sc.max_sequences_per_cpu <= SIM_MAX_SEQS_PER_RSC);
	FUZZ_CHECK(sc.max_sequences_per_gpu >= 0 && sc.max_sequences_per_gpu <= SIM_MAX_SEQS_PER_RSC);
	a = written(&sc, &alen);
	sim_scenario_defaults(&again);
	FUZZ_CHECK(sim_scenario_parse(&again, a, alen, "written", err, sizeof(err)) == 0);
	b = written(&again, &blen);
	FUZZ_CHECK(alen == blen && memcmp(a, b, alen) == 0);
	free(a);
	free(b);
	return 0;
}
