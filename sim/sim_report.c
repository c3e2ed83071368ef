/*
 * wseq_sim's outputs (sim_report.h). Bytes in GB (10^9), CPU in
 * reference-CPU days, times in days from the start.
 */
#include "sim_report.h"

#include <math.h>

void sim_row_params(struct sim_row *r, const struct sim_scenario *sc)
{
	int i;

	r->answer_every = sc->answer_every;
	r->state_every = sc->state_every;
	r->segment_days = sc->segment_days;
	r->nlevels = sc->nlevels;
	for (i = 0; i < sc->nlevels; i++)
		r->periods[i] = sim_level_period(sc, i);
}

const char *sim_row_periods(const struct sim_row *r, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->nlevels && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%ld", i ? "/" : "", r->periods[i]);
	return buf;
}

void sim_report_levels(FILE *fp, const struct sim_scenario *sc, bool grid)
{
	int i;

	for (i = 0; i < sc->nlevels; i++) {
		fprintf(fp, "%s%.6g MB%s", i ? ", " : "; state levels ", sc->levels[i].mb,
			sc->levels_grow & (1u << i) ? " a segment" : "");
		if (!grid)
			fprintf(fp, " every %ld", sim_level_period(sc, i));
	}
}

void sim_report_gpus(FILE *fp, const struct sim_scenario *sc)
{
	long i, n = 0;

	if (sc->gpu_share <= 0 && sc->app_versions == SIM_VERSION_CPU)
		return;
	for (i = 0; i < sc->hosts; i++)
		n += sim_host_has_gpu(sc, i);
	fprintf(fp, "GPUs: %ld hosts with %ld of %.6g FLOPS (%.6g reference CPUs) each; app versions:%s%s",
		n, sc->gpus_per_host, sc->gpu_flops, sc->gpu_flops / SIM_REF_FLOPS,
		sc->app_versions & SIM_VERSION_CPU ? " cpu" : "",
		sc->app_versions & SIM_VERSION_GPU ? " gpu" : "");
	if (sc->max_sequences_per_cpu > 0 || sc->max_sequences_per_gpu > 0)
		fprintf(fp, "; seq: %ld a CPU, %ld a GPU\n", sc->max_sequences_per_cpu,
			sc->max_sequences_per_gpu);
	else
		fprintf(fp, "; seq: one a host\n");
}

void sim_report_table(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n,
		      bool grid)
{
	size_t i;
	char per[SIM_MAX_LEVELS * 12];
	int l;

	fprintf(fp, "wseq_sim: %ld hosts, %ld components of %.6g reference-CPU days, ", sc->hosts,
		sc->sequences, sc->length_days);
	if (grid)
		fprintf(fp, "a grid of %zu runs", n);
	else
		fprintf(fp, "%ld segments, N %ld, M %ld", sim_scenario_segments(sc), sc->answer_every,
			sc->state_every);
	sim_report_levels(fp, sc, grid);
	fprintf(fp, ", horizon %.6g days, seed %" PRIu64 "\n", sc->horizon_days, sc->seed);
	sim_report_gpus(fp, sc);
	fputc('\n', fp);
	if (grid)
		fprintf(fp, "%6s %6s %8s ", "N", "M", "seg_d");
	if (grid && sc->nlevels)
		fprintf(fp, "%-10s ", "periods");
	fprintf(fp, "%-8s %8s %8s %10s %10s %12s %12s %12s %12s %9s %7s %7s", "strategy", "finished",
		"never", "median_d", "p90_d", "up_GB", "down_GB", "store_pk_GB", "cpu_waste_d",
		"restarts", "reloc", "wrong");
	for (l = 0; l < sc->nlevels; l++)
		fprintf(fp, "   up_L%d_GB", l + 1);
	fputc('\n', fp);
	for (i = 0; i < n; i++) {
		const struct sim_stats *t = &rows[i].stats;

		if (grid)
			fprintf(fp, "%6ld %6ld %8.4g ", rows[i].answer_every, rows[i].state_every,
				rows[i].segment_days);
		if (grid && sc->nlevels)
			fprintf(fp, "%-10s ", sim_row_periods(&rows[i], per, sizeof(per)));
		if (rows[i].unavailable) {
			fprintf(fp, "%-8s %s\n", rows[i].strategy, rows[i].unavailable);
			continue;
		}
		fprintf(fp, "%-8s %8ld %8ld %10.2f %10.2f %12.3f %12.3f %12.3f %12.2f %9ld %7ld %7ld",
			rows[i].strategy, t->finished, t->unfinished, t->median_days, t->p90_days,
			t->bytes_up / 1e9, t->bytes_down / 1e9, t->storage_peak / 1e9,
			t->cpu_wasted / 86400, t->restarts, t->relocations, t->wrong_accepted);
		for (l = 0; l < sc->nlevels; l++)
			fprintf(fp, " %11.3f", t->bytes_up_level[l] / 1e9);
		fputc('\n', fp);
	}
	for (i = 0; i < n; i++) {
		if (rows[i].unavailable || rows[i].stats.finished != 0)
			continue;
		fprintf(fp, "\n%s", rows[i].strategy);
		if (grid)
			fprintf(fp, " (N %ld, M %ld, segment %.6g days)", rows[i].answer_every,
				rows[i].state_every, rows[i].segment_days);
		fprintf(fp, ": no component finished within the horizon (%.6g days)\n", sc->horizon_days);
	}
}

/*
 * With state levels the rows go on with the periods ("12/3") and each
 * level's bytes uploaded; without, the columns are those before levels.
 */
void sim_report_csv(FILE *fp, const struct sim_row *rows, size_t n)
{
	int l, nlev = n ? rows[0].nlevels : 0;
	char per[SIM_MAX_LEVELS * 12];
	size_t i;

	fprintf(fp, "strategy,available,finished,unfinished,median_days,p90_days,bytes_up,bytes_down,"
		    "storage_peak_bytes,cpu_used_days,cpu_wasted_days,restarts,wrong_detected,"
		    "wrong_accepted,relocations,answer_every,state_every,segment_days");
	if (nlev)
		fputs(",periods", fp);
	for (l = 0; l < nlev; l++)
		fprintf(fp, ",bytes_up_L%d", l + 1);
	fputc('\n', fp);
	for (i = 0; i < n; i++) {
		const struct sim_row *r = &rows[i];
		const struct sim_stats *t = &r->stats;

		if (r->unavailable) {
			fprintf(fp, "%s,0,,,,,,,,,,,,,,", r->strategy);
		} else {
			fprintf(fp, "%s,1,%ld,%ld,", r->strategy, t->finished, t->unfinished);
			if (t->finished)
				fprintf(fp, "%.6f,%.6f,", t->median_days, t->p90_days);
			else
				fputs(",,", fp);
			fprintf(fp, "%.0f,%.0f,%.0f,%.6f,%.6f,%ld,%ld,%ld,%ld,", t->bytes_up,
				t->bytes_down, t->storage_peak, t->cpu_used / 86400,
				t->cpu_wasted / 86400, t->restarts, t->wrong_detected,
				t->wrong_accepted, t->relocations);
		}
		fprintf(fp, "%ld,%ld,%.6g", r->answer_every, r->state_every, r->segment_days);
		if (nlev)
			fprintf(fp, ",%s", sim_row_periods(r, per, sizeof(per)));
		for (l = 0; l < nlev; l++)
			if (r->unavailable)
				fputc(',', fp);
			else
				fprintf(fp, ",%.0f", t->bytes_up_level[l]);
		fputc('\n', fp);
	}
}

struct finish_at {
	double days;
	long comp;
};

/* by time to finish, the never finished (-1) last, then by component */
static int cmp_finish(const void *a, const void *b)
{
	const struct finish_at *x = a, *y = b;

	if ((x->days < 0) != (y->days < 0))
		return x->days < 0 ? 1 : -1;
	if (x->days != y->days)
		return x->days < y->days ? -1 : 1;
	return x->comp < y->comp ? -1 : x->comp > y->comp;
}

void sim_report_finish_csv(FILE *fp, const struct sim_row *rows, size_t n, long components)
{
	struct finish_at *f = xcalloc((size_t)components, sizeof(*f));
	size_t i;
	long c;

	fprintf(fp, "run,strategy,answer_every,state_every,segment_days,component,finish_days,"
		    "finished_fraction\n");
	for (i = 0; i < n; i++) {
		const struct sim_row *r = &rows[i];

		if (r->unavailable || r->repeat || !r->finish)
			continue;
		for (c = 0; c < components; c++) {
			f[c].days = r->finish[c];
			f[c].comp = c;
		}
		qsort(f, (size_t)components, sizeof(*f), cmp_finish);
		for (c = 0; c < components; c++) {
			fprintf(fp, "%zu,%s,%ld,%ld,%.6g,%ld,", i + 1, r->strategy, r->answer_every,
				r->state_every, r->segment_days, f[c].comp + 1);
			if (f[c].days >= 0)
				fprintf(fp, "%.6f,%.6f\n", f[c].days, (double)(c + 1) / (double)components);
			else
				fputs(",\n", fp);
		}
	}
	free(f);
}
