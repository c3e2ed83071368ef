/*
 * create_sequence: create a work sequence -- a long computation cut into
 * segments that run one after the other on one host, keeping their state
 * there (see doc/sequences-design.md and the README's work-sequence guide).
 */
#include "common.h"
#include "config.h"
#include "db_daemons.h"
#include "db_records.h"
#include "log.h"
#include "param.h"
#include "sequence.h"
#include "wtime.h"

struct options {
	char *appname, *seq_name, *command_line, *group, *seq_template;
	long replicas, min_quorum;
	long segments, answer_every, state_upload_every, high_water, delay_bound, priority;
	double max_result_time, rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	double state_max_nbytes;
	bool open_ended, use_stdin;
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
	PARAM_TABLE_END
};

/* Options a --stdin line may not give. */
static const char *const global_only[] = { "appname", "stdin" };

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
		db_sequence_free(&s);
		free(name);
	}
	if (rc == 0 && g.id) {
		if (db_sequence_group_update(db, &g) != DB_OK)
			rc = -1;
		else
			sbuf_addf(&report, "group %s: %d sequences, quorum %d\n", g.name, g.nmembers,
				  g.min_quorum);
	}
	db_sequence_group_free(&g);
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

static void usage(FILE *fp)
{
	fprintf(fp, "usage: create_sequence --appname APP --seq_name NAME --segments K [options] INITIAL_STATE...\n"
		    "       create_sequence --appname APP [options] --stdin < LINES\n\n"
		    "Create a work sequence of K segments of APP starting from the state file\n"
		    "INITIAL_STATE (one per state file of --seq_template, in its order). Run it\n"
		    "in the project directory. With --replicas R (and\n"
		    "optionally --group), R sequences NAME_r0 .. NAME_r<R-1> with that initial\n"
		    "state form a group whose corresponding segments the validator compares.\n"
		    "With --stdin, one sequence a line: '--seq_name NAME [options] INITIAL_STATE...'.\n"
		    "Everything is created in one transaction: all of it, or nothing.\n"
		    "\noptions:\n");
	param_print_help(options, fp);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	int64_t appid = 0;
	int i, rc = -1;

	log_init("create_sequence", NULL);
	param_set_defaults(options, &o);
	i = param_parse_args(options, &o, argc, argv);
	if (i == -2) {
		usage(stdout);
		param_free(options, &o);
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	if (i < 0 || param_check_required(options, &o, "create_sequence") < 0) {
		;
	} else if (o.use_stdin && i < argc) {
		log_error("with --stdin, initial states go on the lines ('%s')", argv[i]);
	} else if (!o.use_stdin && i >= argc) {
		log_error("the initial state file is missing (see --help)");
	} else if (config_load(&cfg, NULL, NULL, NULL) == 0) {
		db_params_from_config(&dp, &cfg);
		if (db_open(&db, &dp, 5) == DB_OK && db_app_id(db, o.appname, &appid) == DB_OK &&
		    db_begin(db) == DB_OK) {
			struct run run = { db, &cfg, appid, i, argv };

			rc = o.use_stdin ? param_read_lines(stdin, "create_sequence", options,
							    global_only, ARRAY_SIZE(global_only),
							    do_line, &run)
					 : create(db, &cfg, &o, appid, argv + i, (size_t)(argc - i));
			if (rc == 0 && db_commit(db) == DB_OK) {
				fputs(sbuf_str(&report), stdout);
			} else {
				db_rollback(db);
				rc = -1;
				log_error(o.use_stdin ? "no sequence created" : "sequence %s not created",
					  o.seq_name);
			}
		}
	}
	if (db)
		db_close(db);
	sbuf_free(&report);
	config_free(&cfg);
	param_free(options, &o);
	log_close();
	return rc == 0 ? 0 : 1;
}
