/*
 * create_work: make workunits from templates and input files, with BOINC's
 * flags, so an admin's scripts carry over. One job from the command line,
 * or one job a line from --stdin. All jobs are created in one transaction:
 * any error leaves no workunit and no newly staged file behind.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_records.h"
#include "log.h"
#include "param.h"
#include "sbuf.h"
#include "template.h"
#include "work.h"
#include "wtime.h"

/* Numeric options start at NOT_GIVEN: the template's value, else BOINC's default, applies. */
#define NOT_GIVEN (-1)
#define PRIO_NOT_GIVEN LONG_MIN

struct options {
	char *appname;
	char *wu_name;
	char *wu_template;
	char *result_template;
	char *command_line;
	char *config_dir;
	double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	long delay_bound, min_quorum, target_nresults, max_error_results, max_total_results,
		max_success_results, priority, batch;
	bool use_stdin;
	bool verbose;
};

#define O(f) offsetof(struct options, f)
#define NUM(name, type, lo, hi, arg, help) \
	{ #name, type, O(name), NULL, PARAM_NOCONFIG | PARAM_BOUNDED, lo, hi, arg, help }
static const struct param options[] = {
	{ "appname", PARAM_STR, O(appname), NULL, PARAM_NOCONFIG, 0, 0, "NAME",
	  "the application (required)" },
	{ "wu_name", PARAM_STR, O(wu_name), NULL, PARAM_NOCONFIG, 0, 0, "NAME",
	  "the workunit's name (default: APP_PID_TIME; with --stdin the base of LINE names)" },
	{ "wu_template", PARAM_STR, O(wu_template), NULL, PARAM_NOCONFIG, 0, 0, "FILE",
	  "input template, relative to the project directory (default: templates/APP_in)" },
	{ "result_template", PARAM_STR, O(result_template), NULL, PARAM_NOCONFIG, 0, 0, "FILE",
	  "output template, relative to the project directory (default: templates/APP_out)" },
	{ "command_line", PARAM_STR, O(command_line), NULL, PARAM_NOCONFIG, 0, 0, "ARGS",
	  "the job's command line (replaces the template's <command_line>)" },
	NUM(rsc_fpops_est, PARAM_DOUBLE, 1, 1e30, "X",
	    "estimated floating-point operations (template, else 3.6e12)"),
	NUM(rsc_fpops_bound, PARAM_DOUBLE, 1, 1e30, "X",
	    "operations after which the job is aborted (template, else 8.64e13)"),
	NUM(rsc_memory_bound, PARAM_DOUBLE, 0, 1e30, "X",
	    "bytes of RAM the job needs (template, else 5e8)"),
	NUM(rsc_disk_bound, PARAM_DOUBLE, 0, 1e30, "X",
	    "bytes of disk the job may use (template, else 1e9)"),
	NUM(delay_bound, PARAM_INT, 1, INT_MAX, "S",
	    "seconds from sending to the report deadline (template, else 604800)"),
	NUM(min_quorum, PARAM_INT, 1, 1000, "N",
	    "successful results needed to validate (template, else 2)"),
	NUM(target_nresults, PARAM_INT, 1, 1000, "N",
	    "results created at first (template, else 2)"),
	NUM(max_error_results, PARAM_INT, 1, 1000, "N",
	    "error results before the job fails (template, else 3)"),
	NUM(max_total_results, PARAM_INT, 1, 1000, "N",
	    "results in all before the job fails (template, else 10)"),
	NUM(max_success_results, PARAM_INT, 1, 1000, "N",
	    "successes without consensus before the job fails (template, else 6)"),
	NUM(priority, PARAM_INT, -1e9, 1e9, "N", "higher is sent first (template, else 0)"),
	NUM(batch, PARAM_INT, 0, 9.2e18, "ID", "the batch the jobs belong to (default: none)"),
	{ "stdin", PARAM_BOOL, O(use_stdin), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "read one job a line: [--wu_name N] [--command_line \"A B\"] [job options] FILE..." },
	{ "config_dir", PARAM_STR, O(config_dir), NULL, PARAM_NOCONFIG, 0, 0, "DIR",
	  "the project directory (default: WSEQ_PROJECT_DIR, then . and ..)" },
	{ "verbose", PARAM_BOOL, O(verbose), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "print a line for each workunit created" },
	PARAM_TABLE_END
};

/* Options a --stdin line may not give. */
static const char *const global_only[] = { "appname", "stdin", "config_dir", "verbose", "batch" };

static void usage(FILE *fp)
{
	fprintf(fp, "usage: create_work --appname APP [options] [INPUT_FILE...]\n"
		    "       create_work --appname APP [options] --stdin < JOBS\n\n"
		    "Create workunits of APP from its templates. An INPUT_FILE is a local file,\n"
		    "copied into the download directory, or the name of a file already there.\n"
		    "Run it from the project directory. Nothing is created if anything fails.\n\n"
		    "options:\n");
	param_print_help(options, fp);
}

static void options_unset(struct options *o)
{
	o->rsc_fpops_est = o->rsc_fpops_bound = NOT_GIVEN;
	o->rsc_memory_bound = o->rsc_disk_bound = NOT_GIVEN;
	o->delay_bound = o->min_quorum = o->target_nresults = NOT_GIVEN;
	o->max_error_results = o->max_total_results = o->max_success_results = NOT_GIVEN;
	o->priority = PRIO_NOT_GIVEN;
	o->batch = 0;
}

/* ---- templates, read once per path --------------------------------------- */

struct tool {
	struct project_config cfg;
	struct db *db;
	struct options o;
	int64_t appid;
	struct {
		char *path;
		struct input_template t;
	} *in;
	size_t nin;
	char **out_checked;
	size_t nout;
	char **staged;          /* files this run copied in: removed if it fails */
	size_t nstaged;
	long njobs;
};

static char *project_path(const struct tool *tl, const char *file)
{
	return file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", tl->cfg.project_dir, file);
}

static const struct input_template *get_input_template(struct tool *tl, const char *file)
{
	char *path = project_path(tl, file);
	size_t i;

	for (i = 0; i < tl->nin; i++)
		if (strcmp(tl->in[i].path, path) == 0) {
			free(path);
			return &tl->in[i].t;
		}
	tl->in = xrealloc(tl->in, (tl->nin + 1) * sizeof(*tl->in));
	if (input_template_load(path, &tl->in[tl->nin].t)) {
		free(path);
		return NULL;
	}
	tl->in[tl->nin].path = path;
	return &tl->in[tl->nin++].t;
}

static int check_result_template(struct tool *tl, const char *file)
{
	struct result_template t;
	char *path = project_path(tl, file);
	size_t i;

	for (i = 0; i < tl->nout; i++)
		if (strcmp(tl->out_checked[i], path) == 0) {
			free(path);
			return 0;
		}
	if (result_template_load(path, &t)) {
		free(path);
		return -1;
	}
	if (t.noutfiles > 0 && !strstr(tl->cfg.upload_url ? tl->cfg.upload_url : "",
				       "file_upload_handler")) {
		result_template_free(&t);
		free(path);
		return log_error("config.xml: upload_url \"%s\" does not contain file_upload_handler",
				 tl->cfg.upload_url ? tl->cfg.upload_url : "");
	}
	result_template_free(&t);
	tl->out_checked = xrealloc(tl->out_checked, (tl->nout + 1) * sizeof(char *));
	tl->out_checked[tl->nout++] = path;
	return 0;
}

/* ---- one job ------------------------------------------------------------- */

/* The line's options where given, else the command line's. */
static void merge(struct options *job, const struct options *global)
{
#define DEF_STR(f) do { if (!job->f && global->f) job->f = xstrdup(global->f); } while (0)
#define DEF_NUM(f) do { if (job->f == NOT_GIVEN) job->f = global->f; } while (0)
	DEF_STR(wu_template);
	DEF_STR(result_template);
	DEF_STR(command_line);
	DEF_NUM(rsc_fpops_est);
	DEF_NUM(rsc_fpops_bound);
	DEF_NUM(rsc_memory_bound);
	DEF_NUM(rsc_disk_bound);
	DEF_NUM(delay_bound);
	DEF_NUM(min_quorum);
	DEF_NUM(target_nresults);
	DEF_NUM(max_error_results);
	DEF_NUM(max_total_results);
	DEF_NUM(max_success_results);
#undef DEF_STR
#undef DEF_NUM
	if (job->priority == PRIO_NOT_GIVEN)
		job->priority = global->priority;
	job->batch = global->batch;
}

static int create_job(struct tool *tl, const struct options *jo, const char *name,
		      char **files, int nfiles)
{
	const struct input_template *tpl;
	struct work_file *wf;
	struct work_params wp;
	struct db_workunit wu = { 0 };
	char *in_file = jo->wu_template ? xstrdup(jo->wu_template) :
		xasprintf("templates/%s_in", tl->o.appname);
	char *out_file = jo->result_template ? xstrdup(jo->result_template) :
		xasprintf("templates/%s_out", tl->o.appname);
	int i, rc = -1;

	wf = xcalloc(nfiles > 0 ? (size_t)nfiles : 1, sizeof(*wf));
	tpl = get_input_template(tl, in_file);
	if (!tpl || check_result_template(tl, out_file))
		goto out;
	if ((size_t)nfiles != tpl->nfiles) {
		log_error("workunit %s: template %s needs %zu input file%s, got %d", name, in_file,
			  tpl->nfiles, tpl->nfiles == 1 ? "" : "s", nfiles);
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		if (work_stage_input(&tl->cfg, files[i], NULL, &wf[i]))
			goto out;
		if (wf[i].staged) {
			tl->staged = xrealloc(tl->staged, (tl->nstaged + 1) * sizeof(char *));
			tl->staged[tl->nstaged++] = xstrdup(wf[i].path);
		}
	}
	work_params_init(&wp);
	wp.command_line = jo->command_line;
	wp.jp.rsc_fpops_est = jo->rsc_fpops_est;
	wp.jp.rsc_fpops_bound = jo->rsc_fpops_bound;
	wp.jp.rsc_memory_bound = jo->rsc_memory_bound;
	wp.jp.rsc_disk_bound = jo->rsc_disk_bound;
	wp.jp.delay_bound = (int)jo->delay_bound;
	wp.jp.min_quorum = (int)jo->min_quorum;
	wp.jp.target_nresults = (int)jo->target_nresults;
	wp.jp.max_error_results = (int)jo->max_error_results;
	wp.jp.max_total_results = (int)jo->max_total_results;
	wp.jp.max_success_results = (int)jo->max_success_results;
	wp.jp.priority = jo->priority == PRIO_NOT_GIVEN ? JOB_PRIORITY_UNSET : (int)jo->priority;
	wp.batch = jo->batch;
	if (work_create_wu(tl->db, name, tl->appid, tpl, wf, (size_t)nfiles, out_file, &wp, &wu))
		goto out;
	tl->njobs++;
	if (tl->o.verbose)
		printf("created workunit %s (id %" PRId64 ")\n", name, wu.id);
	rc = 0;
out:
	for (i = 0; i < nfiles; i++)
		work_file_free(&wf[i]);
	free(wf);
	db_workunit_free(&wu);
	free(in_file);
	free(out_file);
	return rc;
}

/* ---- --stdin ------------------------------------------------------------- */

struct line_ctx {
	struct tool *tl;
	const char *base;
};

static int do_line(int argc, char **argv, long lineno, void *arg)
{
	struct line_ctx *lc = arg;
	struct options jo = { 0 };
	char *name;
	int first, rc;

	param_set_defaults(options, &jo);
	options_unset(&jo);
	first = param_parse_args(options, &jo, argc, argv);
	if (first < 0) {
		if (first == -2)
			log_error("stdin line %ld: --help is not a job", lineno);
		param_free(options, &jo);
		return -1;
	}
	merge(&jo, &lc->tl->o);
	name = jo.wu_name ? xstrdup(jo.wu_name) : xasprintf("%s_%ld", lc->base, lineno - 1);
	rc = create_job(lc->tl, &jo, name, argv + first, argc - first);
	free(name);
	param_free(options, &jo);
	return rc;
}

static int run_stdin(struct tool *tl)
{
	char *base = tl->o.wu_name ? xstrdup(tl->o.wu_name) :
		xasprintf("%s_%d_%.0f", tl->o.appname, (int)getpid(), dnow() * 1e6);
	struct line_ctx lc = { tl, base };
	int rc = param_read_lines(stdin, "create_work", options, global_only,
				  ARRAY_SIZE(global_only), do_line, &lc);

	free(base);
	return rc;
}

/* ---- main ---------------------------------------------------------------- */

static void tool_free(struct tool *tl)
{
	size_t i;

	for (i = 0; i < tl->nin; i++) {
		free(tl->in[i].path);
		input_template_free(&tl->in[i].t);
	}
	free(tl->in);
	for (i = 0; i < tl->nout; i++)
		free(tl->out_checked[i]);
	free(tl->out_checked);
	for (i = 0; i < tl->nstaged; i++)
		free(tl->staged[i]);
	free(tl->staged);
	if (tl->db)
		db_close(tl->db);
	config_free(&tl->cfg);
	param_free(options, &tl->o);
}

static void unstage_all(struct tool *tl)
{
	struct work_file f = { 0 };
	size_t i;

	f.staged = true;
	for (i = 0; i < tl->nstaged; i++) {
		f.path = tl->staged[i];
		work_unstage_input(&f);
	}
}

static int run(struct tool *tl, char **files, int nfiles)
{
	struct db_params dp;
	struct db_app app = { 0 };
	char *path = NULL, *name;
	int rc;

	if (!tl->o.appname || !*tl->o.appname)
		return log_error("--appname is required (see --help)");
	if (tl->o.use_stdin && nfiles > 0)
		return log_error("with --stdin, input files go on the job lines");
	if (tl->o.config_dir)
		path = xasprintf("%s/config.xml", tl->o.config_dir);
	rc = config_load(&tl->cfg, path, NULL, NULL);
	free(path);
	if (rc)
		return -1;
	db_params_from_config(&dp, &tl->cfg);
	if (db_open(&tl->db, &dp, 0) != DB_OK)
		return -1;
	rc = db_app_lookup_name(tl->db, tl->o.appname, &app);
	tl->appid = app.id;
	db_app_free(&app);
	if (rc == DB_NOT_FOUND)
		return log_error("unknown app %s (add it to project.xml and run xadd)",
				 tl->o.appname);
	if (rc != DB_OK)
		return -1;
	if (db_begin(tl->db) != DB_OK)
		return -1;
	if (tl->o.use_stdin) {
		rc = run_stdin(tl);
	} else {
		struct options jo = { 0 };

		param_set_defaults(options, &jo);
		options_unset(&jo);
		merge(&jo, &tl->o);
		name = tl->o.wu_name ? xstrdup(tl->o.wu_name) :
			xasprintf("%s_%d_%.0f", tl->o.appname, (int)getpid(), dnow() * 1e6);
		rc = create_job(tl, &jo, name, files, nfiles);
		if (rc == 0 && !tl->o.wu_name && !tl->o.verbose)
			printf("%s\n", name);
		free(name);
		param_free(options, &jo);
	}
	if (rc == 0 && db_commit(tl->db) != DB_OK)
		rc = -1;
	if (rc) {
		db_rollback(tl->db);
		unstage_all(tl);
		return -1;
	}
	if (tl->o.verbose)
		printf("created %ld workunit%s\n", tl->njobs, tl->njobs == 1 ? "" : "s");
	return 0;
}

int main(int argc, char **argv)
{
	struct tool tl;
	int first, rc;

	memset(&tl, 0, sizeof(tl));
	log_init("create_work", NULL);
	param_set_defaults(options, &tl.o);
	options_unset(&tl.o);
	first = param_parse_args(options, &tl.o, argc, argv);
	if (first == -2) {
		usage(stdout);
		param_free(options, &tl.o);
		return 0;
	}
	if (first < 0) {
		param_free(options, &tl.o);
		return 1;
	}
	rc = run(&tl, argv + first, argc - first);
	tool_free(&tl);
	return rc ? 1 : 0;
}
