/*
 * wseq_sim's pictures (sim_plot.h). The program decides which rows make a
 * series, the colours and what the axes say; gnuplot reads the rows from
 * the CSV files itself, so the scripts stay short and the data has one
 * copy. A series picks its rows by the strategy, N, M and segment columns
 * of runs.csv as written there (strings: no rounding to disagree on), and
 * a finish curve its lines of finish.csv by their numbers.
 */
#include "sim_plot.h"

#include "fileutil.h"
#include "log.h"

#include <math.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

/* runs.csv's columns the plots read (sim_report_csv) */
#define COL_STRATEGY 1
#define COL_BYTES_UP 7
#define COL_WASTED 11
#define COL_N 16
#define COL_M 17
#define COL_SEG 18
#define COL_PERIODS 19          /* with state levels: "12/3" */

/* Dark2 (colorbrewer): told apart in colour and in grey */
static const char *const colours[] = { "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
				       "#e6ab02", "#a6761d", "#666666" };

/* A segment length for people: "6 h", "1.5 d". */
static void seg_label(char *buf, size_t len, double days)
{
	if (days < 1)
		snprintf(buf, len, "%.4g h", days * 24);
	else
		snprintf(buf, len, "%.4g d", days);
}

static bool usable(const struct sim_row *r)
{
	return !r->unavailable && !r->repeat;
}

/* A run's N, M and segment length, for gnuplot to compare with its columns. */
static void filter(FILE *fp, const struct sim_row *r, bool with_m)
{
	fprintf(fp, "strcol(%d) eq \"%s\" && strcol(%d) eq \"%ld\"", COL_STRATEGY, r->strategy, COL_N,
		r->answer_every);
	if (with_m)
		fprintf(fp, " && strcol(%d) eq \"%ld\"", COL_M, r->state_every);
	fprintf(fp, " && strcol(%d) eq \"%.6g\"", COL_SEG, r->segment_days);
}

/* A series of the trade-off plot: a strategy at one N and segment length (giant: one). */
struct series {
	const struct sim_row *first;  /* its first row */
	size_t colour;                /* the same for chunk and seq at one N and segment */
};

static bool same_pair(const struct sim_row *a, const struct sim_row *b)
{
	return a->answer_every == b->answer_every && a->segment_days == b->segment_days;
}

/* The series of rows[0..n) in the order of their first rows; their number. */
static size_t series_of(const struct sim_row *rows, size_t n, struct series *out)
{
	size_t i, k, ns = 0, ncolours = 0;

	for (i = 0; i < n; i++) {
		const struct sim_row *r = &rows[i];
		bool giant = !strcmp(r->strategy, "giant");

		if (!usable(r))
			continue;
		for (k = 0; k < ns; k++)
			if (!strcmp(out[k].first->strategy, r->strategy) &&
			    (giant || same_pair(out[k].first, r)))
				break;
		if (k < ns)
			continue;
		out[ns].first = r;
		for (k = 0; k < ns && !giant; k++)
			if (strcmp(out[k].first->strategy, "giant") && same_pair(out[k].first, r))
				break;
		out[ns].colour = giant ? 0 : k < ns ? out[k].colour : ncolours++;
		ns++;
	}
	return ns;
}

static void header(FILE *fp, const char *what, const char *png, const char *data,
		   const struct sim_scenario *sc)
{
	fprintf(fp, "# wseq_sim --plot: %s, from %s (doc/wseq_sim.md).\n"
		    "# Draw again after editing: gnuplot %.*s.gp\n"
		    "reset\n"
		    "set terminal pngcairo size 960,560 font \"sans,10\" noenhanced\n"
		    "set output \"%s\"\n"
		    "set datafile separator \",\"\n"
		    "set grid\n"
		    "set title \"%s\\n%ld hosts, %ld components x %.6g CPU-days, "
		    "state %.6g MB, horizon %.6g d, seed %" PRIu64 "\"\n",
		what, data, (int)(strlen(png) - 4), png, png, what, sc->hosts, sc->sequences,
		sc->length_days, sim_scenario_state_mb(sc), sc->horizon_days, sc->seed);
}

/* Log scale when every value is positive and they span a factor of 10 or more. */
static void axis_scale(FILE *fp, const char *axis, double lo, double hi)
{
	if (lo > 0 && hi >= 10 * lo)
		fprintf(fp, "set logscale %s\n", axis);
	else
		fprintf(fp, "set %srange [0:*]\n", axis);
}

static void write_tradeoff(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
			   size_t n)
{
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	struct series *series = xcalloc(n ? n : 1, sizeof(*series));
	bool several_n = false;
	const char *sep = "plot ";
	size_t i, ns;

	header(fp, "bytes uploaded against CPU wasted", "tradeoff.png", "runs.csv", sc);
	for (i = 0; i < n; i++) {
		const struct sim_stats *t = &rows[i].stats;

		if (!usable(&rows[i]))
			continue;
		xlo = fmin(xlo, t->cpu_wasted / 86400);
		xhi = fmax(xhi, t->cpu_wasted / 86400);
		ylo = fmin(ylo, t->bytes_up / 1e9);
		yhi = fmax(yhi, t->bytes_up / 1e9);
		several_n |= rows[i].answer_every != rows[0].answer_every;
	}
	fprintf(fp, "set xlabel \"CPU wasted (reference-CPU days, all components)\"\n"
		    "set ylabel \"uploaded (GB, 10^9 bytes)\"\n");
	axis_scale(fp, "x", xlo, xhi);
	axis_scale(fp, "y", ylo, yhi);
	if (sc->nlevels)
		fprintf(fp, "set key outside right top title \"seq: L1/L2/... beside a point,\\nthe "
			    "state levels' periods (segments)\"\n");
	else
		fprintf(fp, "set key outside right top title \"seq: Mk beside a point,\\nthe state "
			    "uploaded every k segments\"\n");
	ns = series_of(rows, n, series);
	for (i = 0; i < ns; i++) {
		const struct sim_row *r = series[i].first;
		const char *colour = colours[series[i].colour % ARRAY_SIZE(colours)];
		bool seq = !strcmp(r->strategy, "seq");
		char seg[32], title[160];

		seg_label(seg, sizeof(seg), r->segment_days);
		if (!strcmp(r->strategy, "giant"))
			snprintf(title, sizeof(title), "giant");
		else if (several_n)
			snprintf(title, sizeof(title), "%s, N %ld, segment %s", r->strategy,
				 r->answer_every, seg);
		else
			snprintf(title, sizeof(title), "%s, segment %s", r->strategy, seg);
		if (!seq && r->stats.finished < sc->sequences)
			snprintf(title + strlen(title), sizeof(title) - strlen(title),
				 " (%ld of %ld finished)", r->stats.finished, sc->sequences);
		fprintf(fp, "%s\"runs.csv\" skip 1 using (", sep);
		filter(fp, r, !seq);
		fprintf(fp, " ? $%d : NaN):($%d/1e9) with points ", COL_WASTED, COL_BYTES_UP);
		if (!strcmp(r->strategy, "giant"))
			fprintf(fp, "pt 9 ps 2 lc rgb \"black\"");
		else
			fprintf(fp, "pt %d ps %s lc rgb \"%s\"", seq ? 7 : 4, seq ? "1.2" : "1.6",
				colour);
		fprintf(fp, " title \"%s\"", title);
		if (seq) {
			fprintf(fp, ", \\\n     \"runs.csv\" skip 1 using (");
			filter(fp, r, false);
			/* labelled Mk, or with state levels their periods */
			fprintf(fp, " ? $%d : NaN):($%d/1e9):(%sstrcol(%d)) with labels offset 1,0.5 "
				    "left tc rgb \"%s\" notitle", COL_WASTED, COL_BYTES_UP,
				    r->nlevels ? "" : "\"M\".", r->nlevels ? COL_PERIODS : COL_M, colour);
		}
		sep = ", \\\n     ";
	}
	if (ns == 0)
		fprintf(fp, "set label 1 \"no run\" at graph 0.5, graph 0.5 center\nplot NaN notitle");
	free(series);
	fputc('\n', fp);
}

/* The runs of finish.csv, a line a component each: where each row's are, or -1. */
static long *finish_lines(const struct sim_row *rows, size_t n, long components)
{
	long *at = xcalloc(n ? n : 1, sizeof(*at)), next = 0;
	size_t i, k;

	for (i = 0; i < n; i++) {
		at[i] = -1;
		if (rows[i].unavailable || !rows[i].finish)
			continue;
		if (!rows[i].repeat) {
			at[i] = next;
			next += components;
			continue;
		}
		for (k = 0; k < i; k++)         /* a repeat's finish is its first run's */
			if (!rows[k].repeat && rows[k].finish == rows[i].finish)
				at[i] = at[k];
	}
	return at;
}

static bool same_run(const struct sim_row *a, const struct sim_row *b)
{
	return a->answer_every == b->answer_every && a->state_every == b->state_every &&
	       a->segment_days == b->segment_days &&
	       !memcmp(a->periods, b->periods, sizeof(a->periods));
}

/*
 * One curve a strategy, at the scenario's own N, M and segment length when
 * the grid has them, else at its first run's: a grid's every run in one
 * picture is a tangle. The comments list every run's lines for an admin
 * drawing others.
 */
static void write_finish(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
			 size_t n)
{
	struct sim_row own = { 0 };
	const struct sim_row *at = n ? &rows[0] : &own;
	long *lines = finish_lines(rows, n, sc->sequences);
	const char *sep = "plot ";
	char what[160], seg[32];
	size_t i;

	sim_row_params(&own, sc);
	for (i = 0; i < n; i++)
		if (same_run(&rows[i], &own)) {
			at = &rows[i];
			break;
		}
	seg_label(seg, sizeof(seg), at->segment_days);
	snprintf(what, sizeof(what), "time to finish a component (N %ld, M %ld, segment %s)",
		 at->answer_every, at->state_every, seg);
	header(fp, what, "finish.png", "finish.csv", sc);
	fprintf(fp, "# The lines of finish.csv (from 0, after its header) of each run, the finished first:\n");
	for (i = 0; i < n; i++)
		if (lines[i] >= 0 && !rows[i].repeat)
			fprintf(fp, "#   run %zu, %s, N %ld, M %ld, segment %.6g d: every ::%ld::%ld "
				    "(%ld finished)\n", i + 1, rows[i].strategy, rows[i].answer_every,
				rows[i].state_every, rows[i].segment_days, lines[i],
				lines[i] + sc->sequences - 1, rows[i].stats.finished);
	fprintf(fp, "set xlabel \"days from the start\"\n"
		    "set ylabel \"fraction of the components finished\"\n"
		    "set xrange [0:%.6g]\n"
		    "set yrange [0:1]\n"
		    "set key right bottom box opaque\n", sc->horizon_days);
	for (i = 0; i < n; i++) {
		const struct sim_row *r = &rows[i];
		bool giant = !strcmp(r->strategy, "giant"), chunk = !strcmp(r->strategy, "chunk");
		char title[160];

		if (lines[i] < 0 || !same_run(r, at) || r->stats.finished == 0)
			continue;
		snprintf(title, sizeof(title), "%s: median %.3g d, p90 %.3g d", r->strategy,
			 r->stats.median_days, r->stats.p90_days);
		if (r->stats.finished < sc->sequences)
			snprintf(title + strlen(title), sizeof(title) - strlen(title), ", %ld never",
				 sc->sequences - r->stats.finished);
		fprintf(fp, "%s\"finish.csv\" skip 1 every ::%ld::%ld using 7:8 with steps lw 2 "
			    "lc rgb \"%s\" dt %d title \"%s\"", sep, lines[i],
			lines[i] + r->stats.finished - 1,
			giant ? "black" : colours[chunk ? 1 : 0], chunk ? 2 : 1, title);
		sep = ", \\\n     ";
	}
	if (!strcmp(sep, "plot "))
		fprintf(fp, "set label 1 \"no component finished within the horizon\" at graph 0.5, "
			    "graph 0.5 center\nplot NaN notitle");
	fputc('\n', fp);
	free(lines);
}

typedef void (*writer)(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
		       size_t n);

static int write_one(const char *dir, const char *name, writer fn, const struct sim_scenario *sc,
		     const struct sim_row *rows, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	int rc = 0;

	if (!fp) {
		rc = log_error("%s: %s", path, strerror(errno));
	} else {
		fn(fp, sc, rows, n);
		if (fclose(fp) != 0)
			rc = log_error("%s: %s", path, strerror(errno));
	}
	free(path);
	return rc;
}

static void runs_csv(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows, size_t n)
{
	sim_report_csv(fp, rows, n);
}

static void finish_csv(FILE *fp, const struct sim_scenario *sc, const struct sim_row *rows,
		       size_t n)
{
	sim_report_finish_csv(fp, rows, n, sc->sequences);
}

int sim_plot_write(const char *dir, const struct sim_scenario *sc, const struct sim_row *rows,
		   size_t n)
{
	if (mkdir_p(dir, 0777) != 0 ||
	    write_one(dir, "runs.csv", runs_csv, sc, rows, n) != 0 ||
	    write_one(dir, "finish.csv", finish_csv, sc, rows, n) != 0 ||
	    write_one(dir, "tradeoff.gp", write_tradeoff, sc, rows, n) != 0 ||
	    write_one(dir, "finish.gp", write_finish, sc, rows, n) != 0)
		return -1;
	return 0;
}

int sim_plot_draw(const char *dir)
{
	char prog[] = "gnuplot", a1[] = "tradeoff.gp", a2[] = "finish.gp";
	char *argv[] = { prog, a1, a2, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return 1;
	if (rc != 0)
		return log_error("gnuplot: %s", strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return log_error("gnuplot: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error("gnuplot failed over %s/tradeoff.gp and finish.gp (its messages "
				 "are above)", dir);
	return 0;
}
