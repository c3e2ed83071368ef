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
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "sbuf.h"
#include "template.h"
#include "tool.h"
#include "work.h"
#include "wtime.h"

#include <ctype.h>

/* Numeric options start at NOT_GIVEN: the template's value, else BOINC's default, applies. */
#define NOT_GIVEN (-1)
#define PRIO_NOT_GIVEN LONG_MIN

struct options {
	char *appname;
	char *wu_name;
	char *wu_template;
	char *result_template;
	char *command_line;
	double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	long delay_bound, min_quorum, target_nresults, max_error_results, max_total_results,
		max_success_results, priority, batch;
	double credit;
	long app_version_num, hr_class, size_class, wu_id;
	long target_host, target_user, target_team;
	char *keywords;
	char *remote_file;      /* never set: PARAM_IN_ARGS leaves it among the inputs */
	bool use_stdin;
	bool continue_on_error;
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
	NUM(credit, PARAM_DOUBLE, 0, 1e12, "X",
	    "credit granted for each valid result (default: the validator's rule)"),
	NUM(app_version_num, PARAM_INT, 1, INT_MAX, "N", "only version N of the app runs the job"),
	{ "keywords", PARAM_STR, O(keywords), NULL, PARAM_NOCONFIG, 0, 0, "'K1 K2'",
	  "the job's keywords (stored in workunit.keywords)" },
	NUM(hr_class, PARAM_INT, 0, INT_MAX, "N",
	    "stored in workunit.hr_class (wseq has no homogeneous redundancy: a warning)"),
	NUM(size_class, PARAM_INT, 0, 1000, "N",
	    "stored in workunit.size_class (wseq has no job size matching: a warning)"),
	NUM(wu_id, PARAM_INT, 1, 9.2e18, "ID",
	    "the workunit's id (default: the database's next); refused if taken"),
	NUM(target_host, PARAM_INT, 1, 9.2e18, "ID", "only host ID may run the job (upstream's assigned jobs)"),
	NUM(target_user, PARAM_INT, 1, 9.2e18, "ID", "only a host of user ID may run the job"),
	NUM(target_team, PARAM_INT, 1, 9.2e18, "ID", "only a host of a member of team ID may run the job"),
	{ "remote_file", PARAM_STR, O(remote_file), NULL, PARAM_NOCONFIG | PARAM_IN_ARGS, 0, 0,
	  "URL NBYTES MD5",
	  "an input file served from URL (not copied here), in its place among the input files" },
	{ "continue_on_error", PARAM_BOOL, O(continue_on_error), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "with --stdin: a job line that fails is reported and skipped, the others are created" },
	{ "stdin", PARAM_BOOL, O(use_stdin), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "read one job a line: [--wu_name N] [--command_line \"A B\"] [job options] FILE..." },
	{ "verbose", PARAM_BOOL, O(verbose), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "print a line for each workunit created" },
	PARAM_TABLE_END
};

/* Options a --stdin line may not give. */
static const char *const global_only[] = { "appname", "stdin", "verbose", "batch",
					   "continue_on_error" };

static const char usage[] =
	"usage: create_work --appname APP [options] [INPUT_FILE...]\n"
	"       create_work --appname APP [options] --stdin < JOBS\n\n"
	"Create workunits of APP from its templates. An INPUT_FILE is a local file,\n"
	"copied into the download directory, or the name of a file already there.\n"
	"Run it from the project directory. Nothing is created if anything fails\n"
	"(with --continue_on_error, a job line that fails is skipped). Options and\n"
	"input files may come in any order; upstream's -name spelling works too.\n";

static void options_unset(struct options *o)
{
	o->rsc_fpops_est = o->rsc_fpops_bound = NOT_GIVEN;
	o->rsc_memory_bound = o->rsc_disk_bound = NOT_GIVEN;
	o->delay_bound = o->min_quorum = o->target_nresults = NOT_GIVEN;
	o->max_error_results = o->max_total_results = o->max_success_results = NOT_GIVEN;
	o->priority = PRIO_NOT_GIVEN;
	o->batch = 0;
	o->credit = NOT_GIVEN;
	o->app_version_num = o->hr_class = o->size_class = o->wu_id = NOT_GIVEN;
	o->target_host = o->target_user = o->target_team = NOT_GIVEN;
}

/* ---- arguments: options, local input files and --remote_file URL NBYTES MD5 ---- */

/* An input file, in template order: a local file (or one staged already), or remote. */
struct job_input {
	const char *local;
	const char *url;
	double nbytes;
	const char *md5;
};

static bool md5_hex(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return i == 32;
}

static int take_remote(struct job_input *in, char **v, int left)
{
	char *end;

	if (left < 3)
		return log_error("--remote_file needs URL NBYTES MD5");
	in->url = v[0];
	in->nbytes = strtod(v[1], &end);
	in->md5 = v[2];
	if (strncmp(in->url, "http://", 7) && strncmp(in->url, "https://", 8))
		return log_error("--remote_file: '%s' is not an http:// or https:// URL", in->url);
	if (end == v[1] || *end || !(in->nbytes > 0) || in->nbytes > 1e15)
		return log_error("--remote_file %s: '%s' is not a size in bytes", in->url, v[1]);
	if (!md5_hex(in->md5))
		return log_error("--remote_file %s: '%s' is not an MD5 (32 hex digits)", in->url, v[2]);
	return 0;
}

/*
 * The input files of a job, in template order: local ones and --remote_file's;
 * argv[files_only..] came after "--": files, whatever they look like.
 */
static int take_inputs(int argc, char **argv, int files_only, struct job_input **in, int *nin)
{
	const struct param *remote = param_find(options, "remote_file");
	int i;

	*in = xcalloc((size_t)argc + 1, sizeof(**in));
	*nin = 0;
	for (i = 0; i < argc; i++) {
		if (i >= files_only || !param_option_name(argv[i]) ||
			   param_find_option(options, param_option_name(argv[i])) != remote) {
			(*in)[(*nin)++].local = argv[i];
		} else if (take_remote(&(*in)[(*nin)++], argv + i + 1, argc - i - 1)) {
			return -1;
		} else {
			i += 3;
		}
	}
	return 0;
}

/*
 * A --stdin line into jo (not-given values unset) and its inputs, split as
 * tool_main() splits the command line (options anywhere, --remote_file in
 * its place among the files); 0, 1 for --help, or -1 (logged).
 */
static int parse_line(int argc, char **argv, struct options *jo, struct job_input **in, int *nin)
{
	char **v = xcalloc(2 * ((size_t)argc + 1), sizeof(char *));
	struct param_argv out[] = { { .t = options, .v = v, .unknown = true },
				    { .v = v + argc + 1, .drop_dashdash = true } };
	int rc, first;

	param_set_defaults(options, jo);
	options_unset(jo);
	*in = NULL;
	rc = param_split_args(argc, argv, out, ARRAY_SIZE(out), NULL, NULL);
	if (rc == 0) {
		first = param_parse_args(options, jo, out[0].n, out[0].v);
		if (first >= 0 && first < out[0].n)
			first = log_error("unexpected argument '%s'", out[0].v[first]);
		rc = first < 0 ? -1 : take_inputs(out[1].n - 1, out[1].v + 1, out[1].after_dashdash - 1, in,
						   nin);
	}
	free(v);
	return rc;
}

/* ---- templates, read once per path --------------------------------------- */

/* The run: tool_main()'s config.xml and database, the options, what was read and staged. */
struct tool {
	const struct project_config *cfg;
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
	long nskipped;          /* --continue_on_error: lines that failed */
	bool warned_hr, warned_size;
};

static char *project_path(const struct tool *tl, const char *file)
{
	return file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", tl->cfg->project_dir, file);
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
	ARRAY_GROW(tl->in, tl->nin);
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
	if (t.noutfiles > 0 && !strstr(tl->cfg->upload_url ? tl->cfg->upload_url : "",
				       "file_upload_handler")) {
		result_template_release(&t);
		free(path);
		return log_error("config.xml: upload_url \"%s\" does not contain file_upload_handler",
				 tl->cfg->upload_url ? tl->cfg->upload_url : "");
	}
	result_template_release(&t);
	ARRAY_GROW(tl->out_checked, tl->nout);
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
	DEF_STR(keywords);
	DEF_NUM(credit);
	DEF_NUM(app_version_num);
	DEF_NUM(hr_class);
	DEF_NUM(size_class);
	if (job->target_host == NOT_GIVEN && job->target_user == NOT_GIVEN &&
	    job->target_team == NOT_GIVEN) {
		job->target_host = global->target_host;
		job->target_user = global->target_user;
		job->target_team = global->target_team;
	}
	if (job->priority == PRIO_NOT_GIVEN)
		job->priority = global->priority;
	job->batch = global->batch;
#undef DEF_STR
#undef DEF_NUM
}

/* A file served from elsewhere: named after its content, as upstream names them. */
static void remote_file(const struct job_input *in, struct work_file *wf)
{
	memset(wf, 0, sizeof(*wf));
	wf->name = xasprintf("jf_%s", in->md5);
	wf->url = xstrdup(in->url);
	wstrlcpy(wf->md5, in->md5, sizeof(wf->md5));
	wf->nbytes = in->nbytes;
}

static void warn_unimplemented(struct tool *tl, const struct options *jo)
{
	if (jo->hr_class != NOT_GIVEN && !tl->warned_hr) {
		tl->warned_hr = true;
		log_warn("--hr_class is stored in workunit.hr_class; wseq has no homogeneous "
			 "redundancy, so the scheduler ignores it");
	}
	if (jo->size_class != NOT_GIVEN && !tl->warned_size) {
		tl->warned_size = true;
		log_warn("--size_class is stored in workunit.size_class; wseq has no job size "
			 "matching, so the scheduler ignores it");
	}
}

/* The job's target, which must exist: one host, user or team, or none (0). */
static int job_target(struct tool *tl, const struct options *jo, int *type, int64_t *id)
{
	int n = (jo->target_host != NOT_GIVEN) + (jo->target_user != NOT_GIVEN) +
		(jo->target_team != NOT_GIVEN);
	int rc;

	*type = 0;
	*id = 0;
	if (n > 1)
		return log_error("give one of --target_host, --target_user, --target_team");
	if (n == 0)
		return 0;
	if (jo->target_host != NOT_GIVEN) {
		struct db_host h = { 0 };

		*type = ASSIGN_HOST;
		*id = jo->target_host;
		rc = db_host_lookup_id(tl->db, *id, &h);
		db_host_release(&h);
	} else if (jo->target_user != NOT_GIVEN) {
		struct db_user u = { 0 };

		*type = ASSIGN_USER;
		*id = jo->target_user;
		rc = db_user_lookup_id(tl->db, *id, &u);
		db_user_release(&u);
	} else {
		struct db_team t = { 0 };

		*type = ASSIGN_TEAM;
		*id = jo->target_team;
		rc = db_team_lookup_id(tl->db, *id, &t);
		db_team_release(&t);
	}
	if (rc == DB_NOT_FOUND)
		return log_error("no %s with id %" PRId64, *type == ASSIGN_HOST ? "host" :
				 *type == ASSIGN_USER ? "user" : "team", *id);
	return rc == DB_OK ? 0 : -1;
}

static int create_job(struct tool *tl, const struct options *jo, const char *name,
		      const struct job_input *files, int nfiles)
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
	warn_unimplemented(tl, jo);
	work_params_init(&wp);
	if (job_target(tl, jo, &wp.target_type, &wp.target_id))
		goto out;
	/* one host can run a job once: a job for one host is not replicated (as upstream's) */
	if (wp.target_type == ASSIGN_HOST && ((jo->min_quorum != NOT_GIVEN && jo->min_quorum > 1) ||
					      (jo->target_nresults != NOT_GIVEN && jo->target_nresults > 1))) {
		log_error("workunit %s: a job for one host has one result (--min_quorum and "
			  "--target_nresults 1)", name);
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		if (files[i].url) {
			remote_file(&files[i], &wf[i]);
			continue;
		}
		if (work_stage_input(tl->cfg, files[i].local, NULL, &wf[i]))
			goto out;
		if (wf[i].staged) {
			ARRAY_GROW(tl->staged, tl->nstaged);
			tl->staged[tl->nstaged++] = xstrdup(wf[i].path);
		}
	}
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
	if (wp.target_type == ASSIGN_HOST)
		wp.jp.min_quorum = wp.jp.target_nresults = 1;
	wp.jp.priority = jo->priority == PRIO_NOT_GIVEN ? JOB_PRIORITY_UNSET : (int)jo->priority;
	wp.batch = jo->batch;
	wp.credit = jo->credit == NOT_GIVEN ? 0 : jo->credit;
	wp.app_version_num = jo->app_version_num == NOT_GIVEN ? 0 : (int)jo->app_version_num;
	wp.keywords = jo->keywords;
	wp.hr_class = jo->hr_class == NOT_GIVEN ? 0 : (int)jo->hr_class;
	wp.size_class = jo->size_class == NOT_GIVEN ? -1 : (int)jo->size_class;
	wp.wu_id = jo->wu_id == NOT_GIVEN ? 0 : jo->wu_id;
	if (work_create_wu(tl->db, name, tl->appid, tpl, wf, (size_t)nfiles, out_file, &wp, &wu))
		goto out;
	tl->njobs++;
	if (tl->o.verbose)
		printf("created workunit %s (id %" PRId64 ")\n", name, wu.id);
	rc = 0;
out:
	for (i = 0; i < nfiles; i++)
		work_file_release(&wf[i]);
	free(wf);
	db_workunit_release(&wu);
	free(in_file);
	free(out_file);
	return rc;
}

/* ---- --stdin ------------------------------------------------------------- */

struct line_ctx {
	struct tool *tl;
	const char *base;
};

/* Remove the files staged since the first n (a line that failed). */
static void unstage_since(struct tool *tl, size_t n)
{
	struct work_file f = { 0 };

	f.staged = true;
	while (tl->nstaged > n) {
		f.path = tl->staged[--tl->nstaged];
		work_unstage_input(&f);
		free(f.path);
	}
}

static int do_line(int argc, char **argv, long lineno, void *arg)
{
	struct line_ctx *lc = arg;
	struct tool *tl = lc->tl;
	struct options jo = { 0 };
	struct job_input *in = NULL;
	size_t staged = tl->nstaged;
	char *name = NULL;
	int nin = 0, rc;

	rc = parse_line(argc, argv, &jo, &in, &nin);
	if (rc == 1)
		rc = log_error("stdin line %ld: --help is not a job", lineno);
	if (rc == 0) {
		merge(&jo, &tl->o);
		name = jo.wu_name ? xstrdup(jo.wu_name) : xasprintf("%s_%ld", lc->base, lineno - 1);
		if (tl->o.continue_on_error)
			rc = db_savepoint(tl->db, "job_line") == DB_OK ? 0 : -1;
		if (rc == 0)
			rc = create_job(tl, &jo, name, in, nin);
	}
	if (rc && tl->o.continue_on_error && db_in_transaction(tl->db) &&
	    (!name || db_rollback_to(tl->db, "job_line") == DB_OK)) {
		log_error("stdin line %ld skipped (--continue_on_error)", lineno);
		unstage_since(tl, staged);
		tl->nskipped++;
		rc = 0;
	}
	free(name);
	free(in);
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

static struct tool tl;
static struct job_input *cmd_files;     /* the command line's input files */
static int ncmd_files;

static void tool_release(struct tool_ctx *ctx)
{
	size_t i;

	(void)ctx;
	free(cmd_files);
	for (i = 0; i < tl.nin; i++) {
		free(tl.in[i].path);
		input_template_release(&tl.in[i].t);
	}
	free(tl.in);
	for (i = 0; i < tl.nout; i++)
		free(tl.out_checked[i]);
	free(tl.out_checked);
	for (i = 0; i < tl.nstaged; i++)
		free(tl.staged[i]);
	free(tl.staged);
}

static void unstage_all(struct tool *t)
{
	struct work_file f = { 0 };
	size_t i;

	f.staged = true;
	for (i = 0; i < t->nstaged; i++) {
		f.path = t->staged[i];
		work_unstage_input(&f);
	}
}

/* Numeric options start "not given": the template's value, else BOINC's default, applies. */
static void init(struct tool_ctx *ctx)
{
	options_unset(ctx->settings);
}

/* What the options say together, before config.xml is read. */
static int check(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (!o->appname || !*o->appname)
		return log_error("--appname is required (see --help)");
	if (o->use_stdin && ctx->argc > 0)
		return log_error("with --stdin, input files go on the job lines");
	if (o->use_stdin && o->wu_id != NOT_GIVEN)
		return log_error("with --stdin, --wu_id goes on a job line (one id a job)");
	if (!o->use_stdin && o->continue_on_error)
		return log_error("--continue_on_error is for --stdin (one job either is made or not)");
	return take_inputs(ctx->argc, ctx->argv, ctx->after_dashdash, &cmd_files, &ncmd_files);
}

/* The command line's job, or --stdin's. */
static int create(struct tool *t, const struct job_input *files, int nfiles)
{
	struct options jo = { 0 };
	char *name;
	int rc;

	if (t->o.use_stdin)
		return run_stdin(t);
	param_set_defaults(options, &jo);
	options_unset(&jo);
	merge(&jo, &t->o);
	jo.wu_id = t->o.wu_id;
	name = t->o.wu_name ? xstrdup(t->o.wu_name) :
		xasprintf("%s_%d_%.0f", t->o.appname, (int)getpid(), dnow() * 1e6);
	rc = create_job(t, &jo, name, files, nfiles);
	if (rc == 0 && !t->o.wu_name && !t->o.verbose)
		printf("%s\n", name);
	free(name);
	param_free(options, &jo);
	return rc;
}

/* Every job in one transaction: any failure leaves nothing behind. */
static int run(struct tool_ctx *ctx)
{
	struct db_app app = { 0 };
	int rc;

	tl.cfg = &ctx->cfg;
	tl.db = ctx->db;
	rc = db_app_lookup_name(tl.db, tl.o.appname, &app);
	tl.appid = app.id;
	db_app_release(&app);
	if (rc == DB_NOT_FOUND)
		rc = log_error("unknown app %s (add it to project.xml and run xadd)", tl.o.appname);
	else if (rc != DB_OK || db_begin(tl.db) != DB_OK)
		rc = -1;
	else if ((rc = create(&tl, cmd_files, ncmd_files)) != 0 || db_commit(tl.db) != DB_OK) {
		db_rollback(tl.db);
		unstage_all(&tl);
		rc = -1;
	}
	if (rc)
		return -1;
	if (tl.o.verbose)
		printf("created %ld workunit%s\n", tl.njobs, tl.njobs == 1 ? "" : "s");
	if (tl.nskipped)
		printf("%ld job line%s failed and %s skipped\n", tl.nskipped,
		       tl.nskipped == 1 ? "" : "s", tl.nskipped == 1 ? "was" : "were");
	return 0;
}

static const struct tool_spec create_work_spec = {
	.name = "create_work",
	.usage = usage,
	.params = options,
	.settings = &tl.o,
	/* options and input files in any order, as upstream's create_work takes them */
	.flags = TOOL_OPTIONS_ANYWHERE,
	.min_args = 0, .max_args = -1,
	.init = init,
	.check = check,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.run = run,
	.fini = tool_release,
	/* upstream's create_work exits 1 on a usage error; scripts may test for it */
	.usage_status = 1,
};

int main(int argc, char **argv)
{
	return tool_main(&create_work_spec, argc, argv);
}
