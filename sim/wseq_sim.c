/*
 * wseq_sim: compare ways of running long, large-state components on
 * volunteer hosts, by discrete-event simulation of a scenario file
 * (doc/wseq_sim.md); `wseq_sim advise` picks N, M and the segment length
 * for work sequences. Deterministic: the same scenario and seed give the
 * same output, byte for byte.
 */
#include "common.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "sim_advise.h"
#include "sim_plot.h"
#include "sim_report.h"
#include "sim_strategy.h"
#include "sim_grid.h"

struct options {
	char *strategies;
	char *csv;
	char *finish_csv;
	char *plot;
	char *decision_log;
	char *state_levels;
	char *grid;    /* the last one: every --grid is read by take_grids() */
	long seed;
	bool print_scenario;
	double waste_within, finish_within;     /* advise */
};

static const struct param options[] = {
	{ "strategy", PARAM_STR, offsetof(struct options, strategies), "giant,chunk,seq", 0, 0, 0,
	  "LIST", "strategies to run, comma-separated: giant, chunk, seq" },
	{ "csv", PARAM_STR, offsetof(struct options, csv), NULL, 0, 0, 0, "FILE",
	  "also write the results as CSV to FILE" },
	{ "finish_csv", PARAM_STR, offsetof(struct options, finish_csv), NULL, 0, 0, 0, "FILE",
	  "also write each component's time to finish, a line a component of each run, as CSV" },
	{ "plot", PARAM_STR, offsetof(struct options, plot), NULL, 0, 0, 0, "DIR",
	  "write the runs and the times to finish as CSV into DIR with gnuplot scripts, and draw "
	  "DIR/tradeoff.png (bytes uploaded against CPU wasted) and DIR/finish.png (time to "
	  "finish) with gnuplot" },
	{ "decision_log", PARAM_STR, offsetof(struct options, decision_log), NULL, 0, 0, 0, "FILE",
	  "write the seq strategy's decisions to FILE, a line a segment sent, done, late or "
	  "retired, a relocation and an end (one run, no grid)" },
	{ "grid", PARAM_STR, offsetof(struct options, grid), NULL, 0, 0, 0, "NAME=V1,V2,...",
	  "run every combination of these values of N, M, segment or a state level's period L1, "
	  "L2, ... (repeatable; levels that do not nest are left out): "
	  "--grid M=1,2,4,8 --grid segment=6h,12h,1d" },
	{ "seed", PARAM_INT, offsetof(struct options, seed), "-1", PARAM_BOUNDED, -1, 9e18, "N",
	  "the seed, over the scenario's (-1: the scenario's)" },
	{ "state_levels", PARAM_STR, offsetof(struct options, state_levels), NULL, 0, 0, 0,
	  "MB:P,...", "state levels, over the scenario's: a state file of MB megabytes "
	  "uploaded every P-th segment a level, the periods nested (1000:12,20:3: a full state "
	  "of 1 GB every 12th, an increment of 20 MB every 3rd); a restart reads the finest "
	  "level. MB+ (not the first): an increment that grows, MB a segment since the level "
	  "before it last uploaded, at most that level's MB (1000:12,20+:3: 60, 120, 180 MB, "
	  "then 20 with the full state)" },
	{ "print_scenario", PARAM_BOOL, offsetof(struct options, print_scenario), "0", 0, 0, 0, NULL,
	  "print the scenario with every default filled in, and stop" },
	{ "waste_within", PARAM_DOUBLE, offsetof(struct options, waste_within), "100", PARAM_BOUNDED,
	  0, 1e6, "PCT", "advise: CPU wasted at most PCT % over the least of any run" },
	{ "finish_within", PARAM_DOUBLE, offsetof(struct options, finish_within), "20",
	  PARAM_BOUNDED, 0, 1e6, "PCT", "advise: median time to finish at most PCT % over the soonest" },
	PARAM_TABLE_END
};

static const char *const names[] = { "giant", "chunk", "seq" };

static const char usage[] =
	"usage: wseq_sim [options] SCENARIO\n"
	"       wseq_sim advise [options] SCENARIO\n"
	"\n"
	"Simulate long components on volunteer hosts under each strategy and print\n"
	"bytes moved, server storage, wasted CPU, restarts and completion times.\n"
	"advise: run seq over a grid (by default M 1,2,4,8,16 and segment\n"
	"6h,12h,1d,2d; with state levels, each level's period L1, L2, ... over\n"
	"1,2,4,8,16 and its own instead of M, nested periods only) and pick the N, M\n"
	"(or periods) and segment length uploading least within --waste_within and\n"
	"--finish_within of the best runs.\n"
	"SCENARIO is a file of `key value` lines (doc/wseq_sim.md); - reads stdin.\n";

/* --help after the options: the strategies and the columns. */
static void help_more(const struct tool_ctx *ctx, FILE *fp)
{
	size_t i;

	(void)ctx;
	fprintf(fp, "\nstrategies:\n");
	for (i = 0; i < ARRAY_SIZE(names); i++)
		fprintf(fp, "  %-8s %s\n", names[i], sim_strategy_find(names[i])->summary);
	fprintf(fp, "\ncolumns: finished and never (within the horizon), median_d and p90_d (days to\n"
		    "finish a component), up_GB and down_GB, store_pk_GB (server storage peak),\n"
		    "cpu_waste_d (reference-CPU days computed and thrown away), restarts (results\n"
		    "given up on at their deadline), reloc (sequences relocated), wrong (accepted).\n");
}

static int load(struct sim_scenario *sc, const char *path)
{
	char err[256];

	if (sim_scenario_load(sc, path, err, sizeof(err)) != 0)
		return log_error("%s", err);
	return 0;
}

/*
 * Every --grid of argv into w, read as param_parse_args() reads options
 * (param.h allows one value an option). 0, or -1 (logged).
 */
static int grids(int argc, char **argv, struct sim_grid *w)
{
	char err[256];
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = param_option_name(argv[i]), *eq, *value = NULL;
		const struct param *p = a ? param_find_option(options, a) : NULL;

		if (!p)
			continue;       /* "advise" or SCENARIO: the skeleton checked the rest */
		eq = strchr(a, '=');
		if (eq)
			value = eq + 1;
		else if (p->type != PARAM_BOOL && i + 1 < argc)
			value = argv[++i];
		if (p->offset == offsetof(struct options, grid) && value &&
		    sim_grid_add(w, value, err, sizeof(err)) != 0)
			return log_error("%s", err);
	}
	return 0;
}

/* The strategies of a comma-separated list into st[] (at most max): their number, or -1. */
static int strategies(const char *list, const struct sim_strategy **st, size_t max)
{
	char *copy = xstrdup(list), *p = copy, *name;
	int n = 0;

	while ((name = p) != NULL) {
		p = strchr(p, ',');
		if (p)
			*p++ = '\0';
		if (!(st[n] = sim_strategy_find(name)))
			n = log_error("unknown strategy '%s' (giant, chunk, seq)", name);
		else if ((size_t)++n == max && p)
			n = log_error("too many strategies");
		if (n < 0)
			break;
	}
	free(copy);
	return n;
}

/* An earlier row of the same strategy over the same values of what it uses, or NULL. */
static const struct sim_row *same_run(const struct sim_row *rows, size_t n,
				      const struct sim_strategy *st, const struct sim_row *r)
{
	while (n-- > 0) {
		const struct sim_row *o = &rows[n];

		if (strcmp(o->strategy, st->name) != 0)
			continue;
		if ((st->uses & SIM_USES_N) && o->answer_every != r->answer_every)
			continue;
		if ((st->uses & SIM_USES_M) && (o->state_every != r->state_every ||
						 memcmp(o->periods, r->periods, sizeof(r->periods))))
			continue;
		if ((st->uses & SIM_USES_SEGMENT) && o->segment_days != r->segment_days)
			continue;
		return o;
	}
	return NULL;
}

static int write_csv(const char *path, const struct sim_row *rows, size_t n, long finish_of)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return log_error("%s: %s", path, strerror(errno));
	if (finish_of)
		sim_report_finish_csv(fp, rows, n, finish_of);
	else
		sim_report_csv(fp, rows, n);
	if (fclose(fp) != 0)
		return log_error("%s: %s", path, strerror(errno));
	return 0;
}

/* --plot: the files, then the pictures if gnuplot is there (no gnuplot is no failure) */
static int plot(const char *dir, const struct sim_scenario *sc, const struct sim_row *rows,
		size_t n)
{
	int rc = sim_plot_write(dir, sc, rows, n);

	if (rc == 0)
		rc = sim_plot_draw(dir);
	if (rc == 0)
		printf("\nplots: %s/tradeoff.png (bytes uploaded against CPU wasted), %s/finish.png "
		       "(time to finish); their data and gnuplot scripts are beside them\n", dir, dir);
	if (rc == 1) {
		log_warn("gnuplot is needed to draw the plots and is not on PATH (Debian: apt-get "
			 "install gnuplot-nox); the data (runs.csv, finish.csv) and the scripts are in "
			 "%s: draw them with 'cd %s && gnuplot tradeoff.gp finish.gp'", dir, dir);
		rc = 0;
	}
	return rc;
}

static int run(const struct options *o, const struct sim_scenario *sc, const struct sim_grid *w)
{
	const struct sim_strategy *st[8];
	size_t runs = sim_grid_runs(w), nrows = 0, i, k, skipped = 0;
	int nst = strategies(o->strategies, st, ARRAY_SIZE(st)), rc = 0;
	bool finish = o->plot || o->finish_csv;
	struct sim_row *rows;
	bool *owned;    /* the row's unavailable (and finish) were allocated for it */
	FILE *dlog = NULL;
	char err[256];

	if (nst < 0)
		return -1;
	if (o->decision_log) {
		for (k = 0; k < (size_t)nst && strcmp(st[k]->name, "seq"); k++)
			;
		if (runs != 1 || k == (size_t)nst)
			return log_error("--decision_log is for one run of the seq strategy (no --grid)");
		dlog = fopen(o->decision_log, "w");
		if (!dlog)
			return log_error("%s: %s", o->decision_log, strerror(errno));
	}
	rows = xcalloc(runs * (size_t)nst, sizeof(*rows));
	owned = xcalloc(runs * (size_t)nst, sizeof(*owned));
	for (i = 0; i < runs && rc == 0; i++) {
		struct sim_scenario one = *sc;
		int applied = sim_grid_apply(w, i, &one, err, sizeof(err));

		if (applied < 0) {
			rc = log_error("%s", err);
			break;
		}
		if (applied > 0) {      /* levels that do not nest: no run */
			skipped++;
			continue;
		}
		for (k = 0; k < (size_t)nst; k++) {
			struct sim_row *r = &rows[nrows++];
			const struct sim_row *before;
			double *f = NULL;

			r->strategy = st[k]->name;
			sim_row_params(r, &one);
			/* a strategy that does not use what changed would run the same again */
			before = same_run(rows, nrows - 1, st[k], r);
			if (before) {
				r->unavailable = before->unavailable;
				r->stats = before->stats;
				r->finish = before->finish;
				r->repeat = true;
				continue;
			}
			owned[nrows - 1] = true;
			if (finish)
				r->finish = f = xcalloc((size_t)one.sequences, sizeof(*f));
			if (sim_run_logged(&one, st[k], strcmp(st[k]->name, "seq") ? NULL : dlog,
					   &r->stats, f, err, sizeof(err)) != 0)
				r->unavailable = xstrdup(err);
		}
	}
	if (dlog && fclose(dlog) != 0)
		rc = log_error("%s: %s", o->decision_log, strerror(errno));
	if (rc == 0)
		sim_report_table(stdout, sc, rows, nrows, w->naxes > 0);
	if (rc == 0 && skipped)
		printf("\n(%zu combinations of the grid left out: their state levels' periods do not "
		       "nest)\n", skipped);
	if (rc == 0 && o->csv)
		rc = write_csv(o->csv, rows, nrows, 0);
	if (rc == 0 && o->finish_csv)
		rc = write_csv(o->finish_csv, rows, nrows, sc->sequences);
	if (rc == 0 && o->plot)
		rc = plot(o->plot, sc, rows, nrows);
	for (i = 0; i < nrows; i++) {
		if (!owned[i])
			continue;
		free((char *)rows[i].unavailable);
		free((double *)rows[i].finish);
	}
	free(owned);
	free(rows);
	return rc;
}

/* advise: seq over the grid, the choice and its report (sim_advise.h) */
static int advise(const struct options *o, const struct sim_scenario *sc, struct sim_grid *w)
{
	struct sim_advice a;
	struct sim_row *rows;
	size_t n;
	int rc;

	if (o->plot || o->finish_csv)
		return log_error("--plot and --finish_csv are for runs and grids (wseq_sim --grid "
				 "... --plot DIR), not advise");
	rc = sim_advise_run(sc, w, o->waste_within, o->finish_within, stdout, &rows, &n, &a);
	if (rc == 0 && o->csv)
		rc = write_csv(o->csv, rows, n, 0);
	free(rows);
	return rc;
}

static struct options opts;
static struct sim_grid grid_set;

/* Every --grid of the command line: param.h keeps only the last. */
static int take_grids(struct tool_ctx *ctx)
{
	sim_grid_init(&grid_set);
	return grids(ctx->all_argc, ctx->all_argv, &grid_set) < 0 ? TOOL_USAGE : 0;
}

/* --state_levels over the scenario's: its syntax, nested with the scenario's M */
static int levels(struct sim_scenario *sc, const char *text)
{
	char err[256];

	if (sim_levels_parse(sc, text, err, sizeof(err)) != 0 ||
	    !sim_scenario_levels_nest(sc, err, sizeof(err)))
		return log_error("--%s", err);
	return 0;
}

/* The scenario, then the runs or (advise) the advice. */
static int simulate(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct sim_scenario sc;

	sim_scenario_defaults(&sc);
	if (load(&sc, ctx->argv[0]) < 0)
		return -1;
	if (o->seed >= 0)
		sc.seed = (uint64_t)o->seed;
	if (o->state_levels && levels(&sc, o->state_levels) < 0)
		return -1;
	if (o->print_scenario) {
		sim_scenario_write(&sc, stdout);
		return 0;
	}
	return ctx->cmd ? advise(o, &sc, &grid_set) : run(o, &sc, &grid_set);
}

static const struct tool_cmd commands[] = {
	{ "advise", simulate, NULL, 1, 1, NULL },     /* in usage[] */
	{ NULL, NULL, NULL, 0, 0, NULL }
};

static const struct tool_spec wseq_sim_spec = {
	.name = "wseq_sim",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.flags = TOOL_NO_PROJECT_DIR | TOOL_CMD_OPTIONAL,
	.min_args = 1,
	.max_args = 1,
	.cmds = commands,
	.check = take_grids,
	.run = simulate,
	.help = help_more,
};

int main(int argc, char **argv)
{
	return tool_main(&wseq_sim_spec, argc, argv);
}
