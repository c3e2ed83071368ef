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

struct options {
	char *appname, *seq_name, *command_line;
	long segments, answer_every, state_upload_every, high_water, delay_bound, priority;
	double max_result_time, rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	double state_max_nbytes;
	bool open_ended;
};

#define OS(n, f, def, fl, arg, help) { n, PARAM_STR, offsetof(struct options, f), def, fl, 0, 0, arg, help }
#define OI(n, f, def, lo, hi, arg, help) \
	{ n, PARAM_INT, offsetof(struct options, f), def, PARAM_BOUNDED, lo, hi, arg, help }
#define OD(n, f, def, lo, hi, arg, help) \
	{ n, PARAM_DOUBLE, offsetof(struct options, f), def, PARAM_BOUNDED, lo, hi, arg, help }

static const struct param options[] = {
	OS("appname", appname, NULL, PARAM_REQUIRED | PARAM_NOCONFIG, "APP", "the application"),
	OS("seq_name", seq_name, NULL, PARAM_REQUIRED | PARAM_NOCONFIG, "NAME", "the sequence's name"),
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
	OI("priority", priority, "0", -1e6, 1e6, "P", "priority of its segments"),
	{ "open_ended", PARAM_BOOL, offsetof(struct options, open_ended), "0", 0, 0, 0, NULL,
	  "the length is not known: K segments now, extend_sequence adds more" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: create_sequence --appname APP --seq_name NAME --segments K [options] INITIAL_STATE\n\n"
		    "Create a work sequence of K segments of APP starting from the state file\n"
		    "INITIAL_STATE. Run it in the project directory.\n\noptions:\n");
	param_print_help(options, fp);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	struct db_sequence s = { 0 };
	struct seq_spec spec = { 0 };
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
	} else if (!o.segments) {
		log_error("--segments is missing");
	} else if (i != argc - 1) {
		log_error(i >= argc ? "the initial state file is missing (see --help)"
				    : "too many arguments: '%s'", argv[argc - 1]);
	} else if (config_load(&cfg, NULL, NULL, NULL) == 0) {
		db_params_from_config(&dp, &cfg);
		if (db_open(&db, &dp, 5) == DB_OK && db_app_id(db, o.appname, &spec.appid) == DB_OK) {
			spec.name = o.seq_name;
			spec.segments = (int)o.segments;
			spec.answer_every = (int)o.answer_every;
			spec.state_upload_every = (int)o.state_upload_every;
			spec.high_water = (int)o.high_water;
			spec.max_result_time = o.max_result_time;
			spec.delay_bound = o.delay_bound ? (int)o.delay_bound : (int)(2 * o.max_result_time);
			spec.rsc_fpops_est = o.rsc_fpops_est;
			spec.rsc_fpops_bound = o.rsc_fpops_bound;
			spec.rsc_memory_bound = o.rsc_memory_bound;
			spec.rsc_disk_bound = o.rsc_disk_bound;
			spec.state_max_nbytes = o.state_max_nbytes;
			spec.command_line = o.command_line;
			spec.priority = (int)o.priority;
			spec.open_ended = o.open_ended;
			if (db_begin(db) == DB_OK) {
				rc = seq_create(db, &cfg, &spec, argv[i], &s);
				if (rc == 0 && db_commit(db) == DB_OK)
					printf("sequence %s: %d segments\n", s.name, s.nsegments);
				else {
					db_rollback(db);
					rc = -1;
					log_error("sequence %s not created", o.seq_name);
				}
			}
		}
	}
	if (db)
		db_close(db);
	db_sequence_free(&s);
	config_free(&cfg);
	param_free(options, &o);
	log_close();
	return rc == 0 ? 0 : 1;
}
