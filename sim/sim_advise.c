/* wseq_sim advise's choice and its report (sim_advise.h). */
#include "sim_advise.h"

#include "log.h"
#include "sim_strategy.h"

#include <math.h>

#define DAY 86400.0

static bool usable(const struct sim_row *r, long most)
{
	return !r->unavailable && r->stats.finished == most && most > 0;
}

void sim_advise(const struct sim_row *rows, size_t n, double waste_within_pct,
		double finish_within_pct, struct sim_advice *a, bool *eligible)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->pick = -1;
	a->best_waste = a->best_median = INFINITY;
	for (i = 0; i < n; i++)
		if (!rows[i].unavailable && rows[i].stats.finished > a->most_finished)
			a->most_finished = rows[i].stats.finished;
	for (i = 0; i < n; i++) {
		if (!usable(&rows[i], a->most_finished))
			continue;
		a->best_waste = fmin(a->best_waste, rows[i].stats.cpu_wasted);
		a->best_median = fmin(a->best_median, rows[i].stats.median_days);
	}
	/* a millisecond's slack, so a run equal to the best is within its limit however rounded */
	a->waste_limit = a->best_waste * (1 + waste_within_pct / 100) + 1e-3;
	a->median_limit = a->best_median * (1 + finish_within_pct / 100) + 1e-3 / DAY;
	for (i = 0; i < n; i++) {
		const struct sim_stats *t = &rows[i].stats, *p;
		bool ok = usable(&rows[i], a->most_finished) && t->cpu_wasted <= a->waste_limit &&
			  t->median_days <= a->median_limit;

		if (eligible)
			eligible[i] = ok;
		if (!ok)
			continue;
		a->neligible++;
		p = a->pick >= 0 ? &rows[a->pick].stats : NULL;
		if (!p || t->bytes_up < p->bytes_up ||
		    (t->bytes_up == p->bytes_up &&
		     (t->cpu_wasted < p->cpu_wasted ||
		      (t->cpu_wasted == p->cpu_wasted && t->median_days < p->median_days))))
			a->pick = (long)i;
	}
}

static void row_line(FILE *fp, const struct sim_row *r, const char *mark)
{
	const struct sim_stats *t = &r->stats;
	char per[SIM_MAX_LEVELS * 12];

	fprintf(fp, "%6ld %6ld %8.4g ", r->answer_every, r->state_every, r->segment_days);
	if (r->nlevels)
		fprintf(fp, "%-10s ", sim_row_periods(r, per, sizeof(per)));
	fprintf(fp, "%8ld %8ld %10.2f %10.2f %12.3f %12.2f %7ld  %s\n",
		t->finished, t->unfinished,
		t->median_days, t->p90_days, t->bytes_up / 1e9, t->cpu_wasted / DAY, t->relocations,
		mark);
}

void sim_advise_report(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
		       size_t n, const bool *eligible, const struct sim_advice *a,
		       double waste_within_pct, double finish_within_pct,
		       const struct sim_row *ref)
{
	const struct sim_row *p = a->pick >= 0 ? &rows[a->pick] : NULL;
	char per[SIM_MAX_LEVELS * 12];
	size_t i;

	fprintf(fp, "wseq_sim advise: %ld hosts, %ld components of %.6g reference-CPU days, "
		    "%zu runs of seq, horizon %.6g days, seed %" PRIu64,
		sc->hosts, sc->sequences, sc->length_days, n, sc->horizon_days, sc->seed);
	sim_report_levels(fp, sc, true);
	fputc('\n', fp);
	sim_report_gpus(fp, sc);
	fputc('\n', fp);
	fprintf(fp, "%6s %6s %8s ", "N", "M", "seg_d");
	if (sc->nlevels)
		fprintf(fp, "%-10s ", "periods");
	fprintf(fp, "%8s %8s %10s %10s %12s %12s %7s\n", "finished", "never", "median_d", "p90_d",
		"up_GB", "cpu_waste_d", "reloc");
	for (i = 0; i < n; i++) {
		if (rows[i].unavailable)
			continue;
		row_line(fp, &rows[i], (long)i == a->pick ? "<- advised"
				       : eligible && eligible[i] ? "ok" : "");
	}
	fputc('\n', fp);
	if (a->most_finished == 0) {
		fprintf(fp, "advice: none -- no run finished a component within the horizon (%.6g days)\n",
			sc->horizon_days);
		return;
	}
	fprintf(fp, "candidates: the runs finishing %ld of %ld components; the least CPU wasted "
		    "%.2f days (limit +%.6g %%: %.2f), the soonest median %.2f days (limit +%.6g %%: "
		    "%.2f); %zu within both (ok)\n",
		a->most_finished, sc->sequences, a->best_waste / DAY, waste_within_pct,
		a->waste_limit / DAY, a->best_median, finish_within_pct, a->median_limit, a->neligible);
	if (!p) {
		fprintf(fp, "advice: none -- no run is within both limits (widen --waste_within or "
			    "--finish_within)\n");
		return;
	}
	fprintf(fp, "advice: N %ld, M %ld, segment %.6g days", p->answer_every, p->state_every,
		p->segment_days);
	if (p->nlevels)
		fprintf(fp, ", periods %s", sim_row_periods(p, per, sizeof(per)));
	fprintf(fp, ": uploads %.3f GB, wastes %.2f "
		    "reference-CPU days, median %.2f days, p90 %.2f days, %ld relocations\n",
		p->stats.bytes_up / 1e9,
		p->stats.cpu_wasted / DAY, p->stats.median_days, p->stats.p90_days,
		p->stats.relocations);
	if (!ref || ref->unavailable)
		return;
	fprintf(fp, "compared: chunk (N %ld, segment %.6g days) uploads %.3f GB, wastes %.2f "
		    "reference-CPU days, finishes %ld of %ld components", ref->answer_every,
		ref->segment_days, ref->stats.bytes_up / 1e9, ref->stats.cpu_wasted / DAY,
		ref->stats.finished, sc->sequences);
	if (ref->stats.finished)
		fprintf(fp, ", median %.2f days", ref->stats.median_days);
	fputc('\n', fp);
}

static bool has_axis(const struct sim_grid *w, enum sim_grid_param p)
{
	size_t k;

	for (k = 0; k < w->naxes; k++)
		if (w->axis[k].param == p)
			return true;
	return false;
}

/*
 * The axes advise sweeps when w has none: the segment length, and M or --
 * with state levels -- each level's period (its own among them).
 */
static int default_axes(const struct sim_scenario *sc, struct sim_grid *w, char *err,
			size_t errlen)
{
	char axis[64];
	int i;

	if (!has_axis(w, SIM_GRID_SEGMENT) && sim_grid_add(w, SIM_ADVISE_SEGMENT, err, errlen) != 0)
		return -1;
	if (sc->nlevels == 0)
		return has_axis(w, SIM_GRID_M) ? 0 : sim_grid_add(w, SIM_ADVISE_M, err, errlen);
	for (i = 0; i < sc->nlevels; i++) {
		if (has_axis(w, (enum sim_grid_param)(SIM_GRID_L1 + i)))
			continue;
		snprintf(axis, sizeof(axis), "L%d=%s", i + 1, SIM_ADVISE_PERIODS);
		if (sim_grid_add(w, axis, err, errlen) != 0 ||
		    sim_grid_include(w, (enum sim_grid_param)(SIM_GRID_L1 + i),
				     (double)sim_level_period(sc, i), err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* seq over every run of w whose levels nest, into rows (*n of them). 0, or -1 (logged) */
static int run_grid(const struct sim_scenario *sc, const struct sim_grid *w,
		    struct sim_row *rows, size_t *n)
{
	size_t runs = sim_grid_runs(w), i;
	char err[256];

	*n = 0;
	for (i = 0; i < runs; i++) {
		struct sim_scenario one = *sc;
		struct sim_row *r = &rows[*n];
		int applied = sim_grid_apply(w, i, &one, err, sizeof(err));

		if (applied < 0)
			return log_error("%s", err);
		if (applied > 0)
			continue;
		r->strategy = sim_strategy_seq.name;
		if (sim_run(&one, &sim_strategy_seq, &r->stats, err, sizeof(err)) != 0)
			return log_error("seq: %s", err);
		sim_row_params(r, &one);
		(*n)++;
	}
	return 0;
}

int sim_advise_run(const struct sim_scenario *sc, struct sim_grid *w, double waste_within_pct,
		   double finish_within_pct, FILE *fp, struct sim_row **rowsp, size_t *nrows,
		   struct sim_advice *a)
{
	struct sim_row *rows, ref;
	bool *eligible;
	char err[256];
	size_t runs, n = 0;
	int rc;

	*rowsp = NULL;
	*nrows = 0;
	memset(a, 0, sizeof(*a));
	a->pick = -1;
	if (default_axes(sc, w, err, sizeof(err)) != 0)
		return log_error("%s", err);
	runs = sim_grid_runs(w);
	rows = xcalloc(runs, sizeof(*rows));
	eligible = xcalloc(runs, sizeof(*eligible));
	rc = run_grid(sc, w, rows, &n);
	if (rc == 0) {
		sim_advise(rows, n, waste_within_pct, finish_within_pct, a, eligible);
		memset(&ref, 0, sizeof(ref));
		if (a->pick >= 0) {
			struct sim_scenario one = *sc;

			one.answer_every = rows[a->pick].answer_every;
			one.segment_days = rows[a->pick].segment_days;
			ref.strategy = sim_strategy_chunk.name;
			sim_row_params(&ref, &one);
			if (sim_run(&one, &sim_strategy_chunk, &ref.stats, err, sizeof(err)) != 0)
				ref.unavailable = "not available";
		}
		sim_advise_report(fp, sc, rows, n, eligible, a, waste_within_pct,
				  finish_within_pct, a->pick >= 0 ? &ref : NULL);
	}
	free(eligible);
	if (rc != 0) {
		free(rows);
		return -1;
	}
	*rowsp = rows;
	*nrows = n;
	return 0;
}
