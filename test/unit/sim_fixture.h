/*
 * What the simulator's unit tests share: a scenario with few hosts and
 * sequences, no churn on request, one strategy's run, and the three
 * strategies' report as one string. Included by test_sim_*.c only.
 */
#ifndef WSEQ_TEST_SIM_FIXTURE_H
#define WSEQ_TEST_SIM_FIXTURE_H

#include "unit.h"
#include "sim_report.h"
#include "sim_strategy.h"

#define DAY 86400.0

/* hosts always on, never leaving, never wrong, every speed 1, transfers all but instant */
#define SIM_NO_CHURN \
	"host_on_hours const 1000000\nhost_off_hours const 0.001\nhost_life_days none\n" \
	"host_speed const 1\nhost_upload_mbps const 1000000\nhost_download_mbps const 1000000\n" \
	"wrong_fraction 0\n"

/* 200 hosts, 10 sequences of 12 one-day segments, then scenario texts a and b. */
static inline void scenario(struct sim_scenario *sc, const char *a, const char *b)
{
	char err[256];

	sim_scenario_defaults(sc);
	sc->hosts = 200;
	sc->sequences = 10;
	sc->length_days = 12;
	sc->segment_days = 1;
	sc->horizon_days = 200;
	if (sim_scenario_parse(sc, a, strlen(a), "test", err, sizeof(err)) != 0 ||
	    sim_scenario_parse(sc, b, strlen(b), "test", err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static inline void run(const struct sim_scenario *sc, const struct sim_strategy *st,
		       struct sim_stats *out)
{
	char why[256] = "";

	assert_int_equal(sim_run(sc, st, out, why, sizeof(why)), 0);
}

/* the three strategies' table and CSV, as one string (free it) */
static inline char *output(const struct sim_scenario *sc)
{
	const struct sim_strategy *st[] = { &sim_strategy_giant, &sim_strategy_chunk,
					    &sim_strategy_seq };
	struct sim_row rows[3];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 3; i++) {
		rows[i].strategy = st[i]->name;
		sim_row_params(&rows[i], sc);
		run(sc, st[i], &rows[i].stats);
	}
	fp = open_memstream(&buf, &len);
	sim_report_table(fp, sc, rows, 3, false);
	sim_report_csv(fp, rows, 3);
	fclose(fp);
	return buf;
}

#endif
