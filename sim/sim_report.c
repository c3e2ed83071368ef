/*
 * wseq_sim's outputs (sim_report.h). Bytes in GB (10^9), CPU in
 * reference-CPU days, times in days from the start.
 */
#include "sim_report.h"

#include <math.h>

void sim_report_table(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n)
{
	size_t i;

	fprintf(fp, "wseq_sim: %ld hosts, %ld components of %ld segments (%.6g reference-CPU days), "
		    "horizon %.6g days, seed %" PRIu64 "\n\n",
		sc->hosts, sc->sequences, sim_scenario_segments(sc), sc->length_days, sc->horizon_days,
		sc->seed);
	fprintf(fp, "%-8s %8s %8s %10s %10s %12s %12s %12s %12s %9s %7s\n", "strategy", "finished",
		"never", "median_d", "p90_d", "up_GB", "down_GB", "store_pk_GB", "cpu_waste_d",
		"restarts", "wrong");
	for (i = 0; i < n; i++) {
		const struct sim_stats *t = &rows[i].stats;

		if (rows[i].unavailable) {
			fprintf(fp, "%-8s %s\n", rows[i].strategy, rows[i].unavailable);
			continue;
		}
		fprintf(fp, "%-8s %8ld %8ld %10.2f %10.2f %12.3f %12.3f %12.3f %12.2f %9ld %7ld\n",
			rows[i].strategy, t->finished, t->unfinished, t->median_days, t->p90_days,
			t->bytes_up / 1e9, t->bytes_down / 1e9, t->storage_peak / 1e9,
			t->cpu_wasted / 86400, t->restarts, t->wrong_accepted);
	}
	for (i = 0; i < n; i++)
		if (!rows[i].unavailable && rows[i].stats.finished == 0)
			fprintf(fp, "\n%s: no component finished within the horizon (%.6g days)\n",
				rows[i].strategy, sc->horizon_days);
}

void sim_report_csv(FILE *fp, const struct sim_row *rows, size_t n)
{
	size_t i;

	fprintf(fp, "strategy,available,finished,unfinished,median_days,p90_days,bytes_up,bytes_down,"
		    "storage_peak_bytes,cpu_used_days,cpu_wasted_days,restarts,wrong_detected,"
		    "wrong_accepted\n");
	for (i = 0; i < n; i++) {
		const struct sim_stats *t = &rows[i].stats;

		if (rows[i].unavailable) {
			fprintf(fp, "%s,0,,,,,,,,,,,,\n", rows[i].strategy);
			continue;
		}
		fprintf(fp, "%s,1,%ld,%ld,", rows[i].strategy, t->finished, t->unfinished);
		if (t->finished)
			fprintf(fp, "%.6f,%.6f,", t->median_days, t->p90_days);
		else
			fputs(",,", fp);
		fprintf(fp, "%.0f,%.0f,%.0f,%.6f,%.6f,%ld,%ld,%ld\n", t->bytes_up, t->bytes_down,
			t->storage_peak, t->cpu_used / 86400, t->cpu_wasted / 86400, t->restarts,
			t->wrong_detected, t->wrong_accepted);
	}
}
