/*
 * wseq_sim: compare ways of running long, large-state components on
 * volunteer hosts, by discrete-event simulation of a scenario file
 * (doc/wseq_sim.md). Deterministic: the same scenario and seed give the
 * same output, byte for byte.
 */
#include "common.h"
#include "log.h"
#include "param.h"
#include "sim_report.h"
#include "sim_strategy.h"

struct options {
	char *strategies;
	char *csv;
	long seed;
	bool print_scenario;
};

static const struct param options[] = {
	{ "strategy", PARAM_STR, offsetof(struct options, strategies), "giant,chunk,seq", 0, 0, 0,
	  "LIST", "strategies to run, comma-separated: giant, chunk, seq" },
	{ "csv", PARAM_STR, offsetof(struct options, csv), NULL, 0, 0, 0, "FILE",
	  "also write the results as CSV to FILE" },
	{ "seed", PARAM_INT, offsetof(struct options, seed), "-1", PARAM_BOUNDED, -1, 9e18, "N",
	  "the seed, over the scenario's (-1: the scenario's)" },
	{ "print_scenario", PARAM_BOOL, offsetof(struct options, print_scenario), "0", 0, 0, 0, NULL,
	  "print the scenario with every default filled in, and stop" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: wseq_sim [options] SCENARIO\n\n"
		    "Simulate long components on volunteer hosts under each strategy and print\n"
		    "bytes moved, server storage, wasted CPU, restarts and completion times.\n"
		    "SCENARIO is a file of `key value` lines (doc/wseq_sim.md); - reads stdin.\n\n"
		    "options:\n");
	param_print_help(options, fp);
}

static int load(struct sim_scenario *sc, const char *path)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL, err[256];
	size_t len = 0, cap = 0, n;
	int rc;

	if (!fp)
		return log_error("%s: %s", path, strerror(errno));
	do {
		if (len == cap)
			buf = xrealloc(buf, cap = cap ? 2 * cap : 4096);
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0 && len < (1 << 24));
	if (fp != stdin)
		fclose(fp);
	rc = sim_scenario_parse(sc, buf ? buf : "", len, path, err, sizeof(err));
	free(buf);
	if (rc != 0)
		return log_error("%s", err);
	return 0;
}

static int run(const struct options *o, const struct sim_scenario *sc)
{
	struct sim_row rows[8];
	char why[8][256], *list = xstrdup(o->strategies), *p = list, *name;
	size_t n = 0;
	int rc = 0;

	while ((name = p) != NULL && rc == 0) {
		const struct sim_strategy *st;

		p = strchr(p, ',');
		if (p)
			*p++ = '\0';
		st = sim_strategy_find(name);
		if (!st)
			rc = log_error("unknown strategy '%s' (giant, chunk, seq)", name);
		else if (n == ARRAY_SIZE(rows))
			rc = log_error("too many strategies");
		else {
			rows[n].strategy = st->name;
			rows[n].unavailable = NULL;
			if (sim_run(sc, st, &rows[n].stats, why[n], sizeof(why[n])) != 0)
				rows[n].unavailable = why[n];
			n++;
		}
	}
	free(list);
	if (rc != 0)
		return rc;
	sim_report_table(stdout, sc, rows, n);
	if (o->csv) {
		FILE *fp = fopen(o->csv, "w");

		if (!fp)
			return log_error("%s: %s", o->csv, strerror(errno));
		sim_report_csv(fp, rows, n);
		if (fclose(fp) != 0)
			return log_error("%s: %s", o->csv, strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct sim_scenario sc;
	int i, rc = -1;

	log_init("wseq_sim", NULL);
	param_set_defaults(options, &o);
	i = param_parse_args(options, &o, argc, argv);
	if (i == -2) {
		usage(stdout);
		param_free(options, &o);
		return 0;
	}
	sim_scenario_defaults(&sc);
	if (i >= 0 && i + 1 != argc)
		log_error("one scenario file expected (see --help)");
	else if (i >= 0 && load(&sc, argv[i]) == 0) {
		if (o.seed >= 0)
			sc.seed = (uint64_t)o.seed;
		if (o.print_scenario) {
			sim_scenario_write(&sc, stdout);
			rc = 0;
		} else {
			rc = run(&o, &sc);
		}
	}
	param_free(options, &o);
	log_close();
	return rc == 0 ? 0 : 1;
}
