/*
 * create_sequence: create a work sequence -- a long computation cut into
 * segments that run one after the other on one host, keeping their state
 * there (see doc/sequences-design.md and the README's work-sequence guide).
 * --advise creates nothing: it asks wseq_sim's advisor (sim/sim_advise.h)
 * about these arguments.
 */
#include "common.h"
#include "config.h"
#include "db_daemons.h"
#include "db_records.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "sequence.h"
#include "sim_advise.h"
#include "wtime.h"

#include <math.h>
#include <sys/stat.h>

struct options {
	char *appname, *seq_name, *command_line, *group, *seq_template, *advise_scenario;
	long replicas, min_quorum;
	long segments, answer_every, state_upload_every, high_water, delay_bound, priority;
	double max_result_time, rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	double state_max_nbytes;
	double advise_waste_within, advise_finish_within;
	bool open_ended, use_stdin, advise;
};

#define OS(n, f, def, fl, arg, help) { n, PARAM_STR, offsetof(struct options, f), def, fl, 0, 0, arg, help }
#define OI(n, f, def, lo, hi, arg, help) \
	{ n, PARAM_INT, offsetof(struct options, f), def, PARAM_BOUNDED, lo, hi, arg, help }
#define OD(n, f, def, lo, hi, arg, help) \
	{ n, PARAM_DOUBLE, offsetof(struct options, f), def, PARAM_BOUNDED, lo, hi, arg, help }

static const struct param options[] = {
	OS("appname", appname, NULL, PARAM_REQUIRED | PARAM_NOCONFIG, "APP", "the application"),
	OS("seq_name", seq_name, NULL, PARAM_NOCONFIG, "NAME", "the sequence's name (required)"),
	OI("segments", segments, NULL, 1, 1e6, "K", "segments to create (the length of a known-length run)"),
	OI("answer_every", answer_every, "1", 1, 1e6, "N", "every Nth segment uploads its answer file"),
	OI("state_upload_every", state_upload_every, "1", 1, 1e6, "M",
	   "every Mth segment uploads its state file (the last one always does)"),
	OI("high_water", high_water, "2", 1, 100, "H", "segments in flight on the host"),
	OD("max_result_time", max_result_time, "86400", 1, 1e9, "S",
	   "a host gets the sequence only if it can finish a segment in S seconds"),
	OI("delay_bound", delay_bound, "0", 0, 1e9, "S", "a segment's deadline (default: 2 x max_result_time)"),
	OD("rsc_fpops_est", rsc_fpops_est, "3.6e12", 1, 1e30, "F", "estimated FLOPs of a segment"),
	OD("rsc_fpops_bound", rsc_fpops_bound, "8.64e13", 1, 1e30, "F", "FLOPs after which a segment is aborted"),
	OD("rsc_memory_bound", rsc_memory_bound, "5e8", 0, 1e15, "B", "memory a segment needs"),
	OD("rsc_disk_bound", rsc_disk_bound, "1e9", 0, 1e15, "B", "disk a segment needs"),
	OD("state_max_nbytes", state_max_nbytes, "1e9", 1, 1e15, "B", "largest state file"),
	OS("command_line", command_line, "", PARAM_NOCONFIG, "ARGS", "the app's arguments for every segment"),
	OS("seq_template", seq_template, NULL, PARAM_NOCONFIG, "FILE",
	   "sequence template (relative to the project): the state and answer files of a segment "
	   "(default: state_in -> state_out, and answer)"),
	OI("priority", priority, "0", -1e6, 1e6, "P", "priority of its segments"),
	OS("group", group, NULL, PARAM_NOCONFIG, "GROUP",
	   "make a sequence group GROUP of --replicas sequences NAME_r0 (the master) .. NAME_r<R-1>"),
	OI("replicas", replicas, "1", 1, 100, "R",
	   "sequences with the same initial state, compared segment by segment (default group: NAME)"),
	OI("min_quorum", min_quorum, "0", 0, 100, "Q",
	   "a group's segment is valid when Q members agree (default: a majority of R)"),
	{ "open_ended", PARAM_BOOL, offsetof(struct options, open_ended), "0", 0, 0, 0, NULL,
	  "the length is not known: K segments now, extend_sequence adds more" },
	{ "stdin", PARAM_BOOL, offsetof(struct options, use_stdin), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "many sequences: one a line of standard input, '--seq_name NAME [options] INITIAL_STATE'; "
	  "the command line's options are every line's defaults; all or none are created" },
	{ "advise", PARAM_BOOL, offsetof(struct options, advise), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "create nothing: simulate these arguments with wseq_sim's advisor and print the N, M and "
	  "segment length it advises (no database needed; INITIAL_STATE optional, its size is the "
	  "state's; with --seq_template's state levels, their periods instead of M)" },
	{ "advise_scenario", PARAM_STR, offsetof(struct options, advise_scenario), NULL,
	  PARAM_NOCONFIG, 0, 0, "FILE",
	  "with --advise: a wseq_sim scenario for the hosts, the number of sequences and the "
	  "horizon (default: wseq_sim's; doc/wseq_sim.md)" },
	{ "advise_waste_within", PARAM_DOUBLE, offsetof(struct options, advise_waste_within), "100",
	  PARAM_BOUNDED | PARAM_NOCONFIG, 0, 1e6, "PCT",
	  "with --advise: CPU wasted at most PCT % over the least of any run" },
	{ "advise_finish_within", PARAM_DOUBLE, offsetof(struct options, advise_finish_within), "20",
	  PARAM_BOUNDED | PARAM_NOCONFIG, 0, 1e6, "PCT",
	  "with --advise: median time to finish at most PCT % over the soonest" },
	PARAM_TABLE_END
};

/* Options a --stdin line may not give. */
static const char *const global_only[] = { "appname", "stdin", "advise", "advise_scenario",
					   "advise_waste_within", "advise_finish_within" };

/* One line of what was created, printed once it is committed. */
static struct sbuf report = SBUF_INIT(1 << 24);

/* The sequence, or the group of replicas, in the caller's transaction. */
static int create(struct db *db, const struct project_config *cfg, const struct options *o,
		  int64_t appid, char *const *initial_states, size_t ninitial)
{
	struct db_sequence_group g = { 0 };
	struct db_sequence s = { 0 };
	struct seq_spec spec = { 0 };
	int r, rc = 0;

	if (!o->seq_name || !*o->seq_name)
		return log_error("--seq_name is missing");
	if (!o->segments)
		return log_error("--segments is missing");
	if (o->min_quorum > o->replicas)
		return log_error("--min_quorum %ld is more than --replicas %ld", o->min_quorum,
				 o->replicas);
	if (o->group && o->replicas < 2)
		return log_error("a group needs --replicas 2 or more");
	spec.appid = appid;
	spec.seq_template = o->seq_template;
	spec.segments = (int)o->segments;
	spec.answer_every = (int)o->answer_every;
	spec.state_upload_every = (int)o->state_upload_every;
	spec.high_water = (int)o->high_water;
	spec.max_result_time = o->max_result_time;
	spec.delay_bound = o->delay_bound ? (int)o->delay_bound : (int)(2 * o->max_result_time);
	spec.rsc_fpops_est = o->rsc_fpops_est;
	spec.rsc_fpops_bound = o->rsc_fpops_bound;
	spec.rsc_memory_bound = o->rsc_memory_bound;
	spec.rsc_disk_bound = o->rsc_disk_bound;
	spec.state_max_nbytes = o->state_max_nbytes;
	spec.command_line = o->command_line;
	spec.priority = (int)o->priority;
	spec.open_ended = o->open_ended;
	if (o->replicas > 1 || o->group) {
		g.create_time = now();
		g.name = xstrdup(o->group ? o->group : o->seq_name);
		g.nmembers = (int)o->replicas;
		g.min_quorum = o->min_quorum ? (int)o->min_quorum : (int)o->replicas / 2 + 1;
		g.state = SEQ_STATE_ACTIVE;
		if (db_sequence_group_insert(db, &g) != DB_OK)
			rc = -1;
	}
	for (r = 0; rc == 0 && r < o->replicas; r++) {
		char *name = g.id ? xasprintf("%s_r%d", o->seq_name, r) : xstrdup(o->seq_name);

		spec.name = name;
		rc = seq_create(db, cfg, &spec, initial_states, ninitial, &s);
		if (rc == 0 && g.id) {
			s.groupid = g.id;
			s.is_master = r == 0;
			if (r == 0)
				g.master_seqid = s.id;
			if (db_sequence_update(db, &s) != DB_OK)
				rc = -1;
		}
		if (rc == 0)
			sbuf_addf(&report, "sequence %s: %d segments\n", s.name, s.nsegments);
		db_sequence_release(&s);
		free(name);
	}
	if (rc == 0 && g.id) {
		if (db_sequence_group_update(db, &g) != DB_OK)
			rc = -1;
		else
			sbuf_addf(&report, "group %s: %d sequences, quorum %d\n", g.name, g.nmembers,
				  g.min_quorum);
	}
	db_sequence_group_release(&g);
	return rc ? -1 : 0;
}

struct run {
	struct db *db;
	const struct project_config *cfg;
	int64_t appid;
	int argc;               /* the command line: every line's defaults */
	char **argv;
};

static int do_line(int argc, char **argv, long lineno, void *arg)
{
	struct run *run = arg;
	struct options lo = { 0 };
	int first, rc = -1;

	param_set_defaults(options, &lo);
	param_parse_args(options, &lo, run->argc, run->argv);
	first = param_parse_args(options, &lo, argc, argv);
	if (first == -2)
		log_error("stdin line %ld: --help is not a sequence", lineno);
	else if (first >= argc)
		log_error("stdin line %ld: the initial state file is missing", lineno);
	else if (first >= 0 && (rc = create(run->db, run->cfg, &lo, run->appid, argv + first,
					    (size_t)(argc - first))) < 0)
		log_error("stdin line %ld: sequence not created", lineno);
	param_free(options, &lo);
	return rc;
}

/* FLOPS of the simulator's reference host: a segment of F FLOPs is F / 1e9 reference-CPU s */
#define REF_FLOPS 1e9
#define DAY 86400.0

/*
 * The state's size: the initial state files', or without them
 * --state_max_nbytes (the most it may be). -1 (logged) if one is missing.
 */
static double state_bytes(const struct options *o, char *const *files, size_t nfiles)
{
	double sum = 0;
	struct stat st;
	size_t i;

	if (nfiles == 0)
		return o->state_max_nbytes;
	for (i = 0; i < nfiles; i++) {
		if (stat(files[i], &st) != 0)
			return log_error("%s: %s", files[i], strerror(errno));
		sum += (double)st.st_size;
	}
	return sum;
}

/* A state file's size: its initial state's, else the template's max_nbytes, else --state_max_nbytes */
static int level_bytes(const struct options *o, const struct seq_layout *l, size_t i,
		       char *const *files, size_t nfiles, double *bytes)
{
	struct stat st;

	if (nfiles && stat(files[i], &st) != 0)
		return log_error("%s: %s", files[i], strerror(errno));
	*bytes = nfiles ? (double)st.st_size
			: l->state[i].max_nbytes > 0 ? l->state[i].max_nbytes : o->state_max_nbytes;
	return 0;
}

/*
 * The state levels of --seq_template (relative to the current directory,
 * as to the project's) into sc: a level a state file, its size
 * (level_bytes) and its period (0: M). A template with no period of its
 * own leaves sc without levels: its states add up to one, every M-th.
 */
static int advise_levels(const struct options *o, char *const *files, size_t nfiles,
			 struct sim_scenario *sc)
{
	struct seq_layout l;
	double bytes = 0;
	size_t i, own = 0;
	int rc = 0;

	if (!o->seq_template || !*o->seq_template)
		return 0;
	if (seq_layout_load(".", o->seq_template, &l) != 0)
		return -1;
	for (i = 0; i < l.nstate; i++)
		own += l.state[i].upload_every > 0;
	if (own && nfiles && nfiles != l.nstate)
		rc = log_error("--advise: %s has %zu state files, and %zu initial states are given",
			       o->seq_template, l.nstate, nfiles);
	for (i = 0; own && rc == 0 && i < l.nstate && i < SIM_MAX_LEVELS; i++) {
		rc = level_bytes(o, &l, i, files, nfiles, &bytes);
		if (rc == 0) {
			sc->levels[i] = (struct sim_level){ bytes / 1e6, l.state[i].upload_every };
			sc->nlevels = (int)i + 1;
		}
	}
	seq_layout_release(&l);
	return rc;
}

/* "yours" and the advice as options (with levels: the template's periods too) */
static void advise_options(const struct options *o, const struct sim_scenario *sc,
			   const struct sim_row *mine, const struct sim_row *p, double seg)
{
	struct sim_scenario one;
	char per[SIM_MAX_LEVELS * 12];

	if (mine && mine->stats.finished > 0)
		printf("yours: N %ld, M %ld, segment %.6g days: uploads %.3f GB, wastes %.2f "
		       "reference-CPU days, median %.2f days, finishes %ld of %ld components\n",
		       mine->answer_every, mine->state_every, mine->segment_days,
		       mine->stats.bytes_up / 1e9, mine->stats.cpu_wasted / DAY,
		       mine->stats.median_days, mine->stats.finished, sc->sequences);
	else if (mine)
		printf("yours: N %ld, M %ld, segment %.6g days: no component finished within the "
		       "horizon\n", mine->answer_every, mine->state_every, mine->segment_days);
	if (p && p == mine) {
		printf("these arguments are the advice\n");
	} else if (p) {
		one = *sc;
		one.segment_days = p->segment_days;
		printf("the advice as options: --segments %ld --rsc_fpops_est %.6g --rsc_fpops_bound "
		       "%.6g --state_upload_every %ld (--answer_every %ld)\n",
		       sim_scenario_segments(&one), p->segment_days * DAY * REF_FLOPS,
		       o->rsc_fpops_bound * p->segment_days / seg, p->state_every, p->answer_every);
		if (p->nlevels)
			printf("and in %s, the state files' <upload_every> (their levels' periods, "
			       "in order): %s\n", o->seq_template, sim_row_periods(p, per, sizeof(per)));
	}
}

/*
 * --advise: the component these arguments describe -- K segments of
 * rsc_fpops_est FLOPs, the state, N, M, the high-water mark, the replicas,
 * the deadline, the template's state levels -- on the hosts of
 * --advise_scenario or wseq_sim's default model, through the advisor over
 * M (with levels: each level's period) and the segment length (the
 * defaults' values and these arguments' own). Prints the report, these arguments'
 * own figures, and the options the advice means. The horizon, unless the
 * scenario gives one, is 180 days or 4 times the component's length.
 */
static int advise(const struct options *o, char *const *files, size_t nfiles)
{
	double state = state_bytes(o, files, nfiles), seg = o->rsc_fpops_est / REF_FLOPS / DAY;
	struct sim_scenario sc;
	struct sim_advice a;
	struct sim_grid w;
	struct sim_row *rows = NULL, *mine = NULL, own;
	char err[256];
	size_t n = 0, i;
	int scenario_levels;

	if (state < 0)
		return -1;
	if (!o->segments)
		return log_error("--segments is missing");
	sim_scenario_defaults(&sc);
	if (o->advise_scenario && sim_scenario_load(&sc, o->advise_scenario, err, sizeof(err)) != 0)
		return log_error("%s", err);
	else if (!o->advise_scenario)
		sc.horizon_days = fmax(sc.horizon_days, 4 * o->segments * seg);
	sc.segment_days = seg;
	sc.length_days = o->segments * seg;
	sc.state_mb = state / 1e6;
	sc.answer_every = o->answer_every;
	sc.state_every = o->state_upload_every;
	sc.high_water = o->high_water;
	sc.replicas = o->replicas;
	sc.segment_deadline_days = (o->delay_bound ? (double)o->delay_bound
						   : 2 * o->max_result_time) / DAY;
	scenario_levels = sc.nlevels;
	sc.nlevels = 0;
	if (advise_levels(o, files, nfiles, &sc) < 0)
		return -1;
	if (scenario_levels && !sc.nlevels)
		return log_error("--advise: a sequence's state levels are its template's (--seq_template, "
				 "<upload_every>), not --advise_scenario's state_levels");
	if (sim_scenario_check(&sc, err, sizeof(err)) != 0)
		return log_error("--advise: the simulator cannot take these arguments: %s", err);
	sim_grid_init(&w);
	/* with levels, sim_advise_run sweeps each level's period, its own among them */
	if ((sc.nlevels == 0 &&
	     (sim_grid_add(&w, SIM_ADVISE_M, err, sizeof(err)) != 0 ||
	      sim_grid_include(&w, SIM_GRID_M, (double)sc.state_every, err, sizeof(err)) != 0)) ||
	    sim_grid_add(&w, SIM_ADVISE_SEGMENT, err, sizeof(err)) != 0 ||
	    sim_grid_include(&w, SIM_GRID_SEGMENT, seg, err, sizeof(err)) != 0)
		return log_error("--advise: %s", err);
	printf("create_sequence --advise: %ld segments of %.6g FLOPs (%.6g reference-CPU days at "
	       "10^9 FLOPS) a component, state %.6g MB%s", o->segments, o->rsc_fpops_est, seg,
	       sim_scenario_state_mb(&sc), nfiles ? " (the initial state)"
			: sc.nlevels ? " (the template's <max_nbytes>, else --state_max_nbytes)"
				     : " (--state_max_nbytes)");
	sim_report_levels(stdout, &sc, false);
	printf("; %s\n\n", o->advise_scenario ? o->advise_scenario : "wseq_sim's default hosts");
	if (sim_advise_run(&sc, &w, o->advise_waste_within, o->advise_finish_within, stdout, &rows,
			   &n, &a) != 0)
		return -1;
	memset(&own, 0, sizeof(own));
	sim_row_params(&own, &sc);
	for (i = 0; i < n; i++)
		if (rows[i].state_every == sc.state_every && rows[i].segment_days == seg &&
		    !memcmp(rows[i].periods, own.periods, sizeof(own.periods)))
			mine = &rows[i];
	advise_options(o, &sc, mine, a.pick >= 0 ? &rows[a.pick] : NULL, seg);
	if (o->open_ended)
		printf("open-ended: the advice takes a component to be the %ld segments given; give "
		       "--segments the length you expect it to run\n", o->segments);
	free(rows);
	return 0;
}

static const char usage[] =
	"usage: create_sequence --appname APP --seq_name NAME --segments K [options] INITIAL_STATE...\n"
	"       create_sequence --appname APP [options] --stdin < LINES\n"
	"\n"
	"Create a work sequence of K segments of APP starting from the state file\n"
	"INITIAL_STATE (one per state file of --seq_template, in its order). Run it\n"
	"in the project directory. With --replicas R (and\n"
	"optionally --group), R sequences NAME_r0 .. NAME_r<R-1> with that initial\n"
	"state form a group whose corresponding segments the validator compares.\n"
	"With --stdin, one sequence a line: '--seq_name NAME [options] INITIAL_STATE...'.\n"
	"Everything is created in one transaction: all of it, or nothing.\n"
	"With --advise, nothing is created and no database is needed: wseq_sim's\n"
	"advisor simulates these arguments on volunteer hosts and prints the N, M and\n"
	"segment length that upload least within its limits (doc/wseq_sim.md).\n";

static int check_args(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (o->advise)
		return o->use_stdin ? tool_usage_error("--advise takes one sequence's arguments, not "
						       "--stdin") : 0;
	if (param_check_required(options, o, "create_sequence") < 0)
		return TOOL_USAGE;
	if (o->use_stdin && ctx->argc)
		return tool_usage_error("with --stdin, initial states go on the lines ('%s')",
					ctx->argv[0]);
	if (!o->use_stdin && !ctx->argc)
		return tool_usage_error("the initial state file is missing");
	return 0;
}

/* Every sequence of the command line or the lines, in one transaction. */
static int create_all(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct run run = { ctx->db, &ctx->cfg, 0, ctx->opt_argc, ctx->opt_argv };
	int rc;

	if (db_app_id(run.db, o->appname, &run.appid) != DB_OK || db_begin(run.db) != DB_OK)
		return -1;
	rc = o->use_stdin ? param_read_lines(stdin, "create_sequence", options, global_only,
					     ARRAY_SIZE(global_only), do_line, &run)
			  : create(run.db, run.cfg, o, run.appid, ctx->argv, (size_t)ctx->argc);
	if (rc == 0 && db_commit(run.db) == DB_OK) {
		fputs(sbuf_str(&report), stdout);
		return 0;
	}
	db_rollback(run.db);
	return log_error(o->use_stdin ? "no sequence created" : "sequence %s not created",
			 o->seq_name);
}

/* --advise needs neither config.xml nor the database. */
static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (o->advise)
		return advise(o, ctx->argv, (size_t)ctx->argc);
	if (tool_load_config(ctx) < 0 || db_tool_open(ctx) < 0)
		return -1;
	return create_all(ctx);
}

static void fini(struct tool_ctx *ctx)
{
	(void)ctx;
	sbuf_release(&report);
}

static struct options opts;

static const struct tool_spec create_sequence_spec = {
	.name = "create_sequence",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.max_args = -1,
	.check = check_args,
	.run = run,
	.fini = fini,
};

int main(int argc, char **argv)
{
	return tool_main(&create_sequence_spec, argc, argv);
}
