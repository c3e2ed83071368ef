/*
 * The submit RPCs that make and end batches: create_batch, submit_batch
 * (every job of a batch in one transaction, ordinary or sequence app),
 * retire_batch and set_expire_time.
 */
#include "submit_int.h"
#include "cancel.h"
#include "db.h"
#include "db_cancel.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "sequence.h"
#include "wtime.h"
#include "work.h"

/* ---- create_batch ------------------------------------------------------------------ */

/* The name the sweep's sessions use: a submitter's batch must not pass for one. */
#define SWEEP_BATCH_PREFIX "sweep:"
/* How many names a batch submitted without one may try before giving up. */
#define BATCH_NAME_TRIES 1000

/*
 * Has a submit that failed half way left this batch behind: the user's own,
 * for app, in INIT, without a job? Then a BOINC_SUBMIT retried under the
 * same batch name may make it again.
 */
static int leftover(struct rpc *r, const struct db_batch *old, const struct db_app *app,
		    bool *yes)
{
	int64_t n = 0;

	*yes = false;
	if (old->user_id != r->user.id || old->app_id != app->id ||
	    old->state != BATCH_STATE_INIT || old->njobs != 0)
		return 0;
	if (db_batch_count_jobs(r->c->db, old->id, &n) != DB_OK)
		return submit_db_fail(r);
	*yes = n == 0;
	return 0;
}

/*
 * The batch create_batch (or submit_batch without a batch_id) makes, in the
 * caller's transaction: a new one in state INIT (name NULL or "":
 * user:app:date), or the user's own leftover of that name, which starts
 * afresh -- its ties to the failed attempt's files dropped (they go with
 * their lease), its expire time the new one.
 */
static int new_batch(struct rpc *r, const struct db_app *app, const char *name, double expire,
		     struct db_batch *b)
{
	struct db_batch old = { 0 };
	bool reuse = false;
	int rc;

	memset(b, 0, sizeof(*b));
	b->user_id = r->user.id;
	b->app_id = app->id;
	b->create_time = now();
	b->state = BATCH_STATE_INIT;
	b->expire_time = expire;
	if (name && *name) {
		b->name = xstrdup(name);
		if (!strncmp(b->name, SWEEP_BATCH_PREFIX, strlen(SWEEP_BATCH_PREFIX)))
			return submit_fail(r, "batch names beginning with '%s' are the parameter "
					   "sweep's", SWEEP_BATCH_PREFIX);
		rc = db_batch_lookup_name_lock(r->c->db, b->name, &old);
	} else {
		/*
		 * Named for the submitter: user:app:time, then :2, :3... while
		 * the name is taken (two batches in one second), each looked up
		 * locked so that no concurrent submit takes it meanwhile.
		 */
		int k;

		rc = DB_OK;
		for (k = 1; rc == DB_OK && k <= BATCH_NAME_TRIES; k++) {
			free(b->name);
			db_batch_release(&old);
			b->name = k == 1 ? xasprintf("%lld:%s:%lld", (long long)r->user.id,
						     app->name, (long long)b->create_time)
				: xasprintf("%lld:%s:%lld:%d", (long long)r->user.id, app->name,
					    (long long)b->create_time, k);
			rc = db_batch_lookup_name_lock(r->c->db, b->name, &old);
		}
		if (rc == DB_OK) {
			db_batch_release(&old);
			return submit_fail(r, "no free batch name for %s: give one", b->name);
		}
	}
	if (rc == DB_OK) {
		rc = leftover(r, &old, app, &reuse);
		if (!rc && !reuse)
			rc = submit_fail(r, "batch name %s is already in use", b->name);
		if (!rc) {
			old.create_time = b->create_time;
			old.expire_time = expire;
			if (db_batch_file_assoc_drop_batch(r->c->db, old.id) != DB_OK ||
			    db_batch_update(r->c->db, &old) != DB_OK)
				rc = submit_db_fail(r);
		}
		if (!rc) {
			log_info("batch %s (%lld): made again (a submit under its name never "
				 "completed)", old.name, (long long)old.id);
			db_batch_release(b);
			*b = old;
			memset(&old, 0, sizeof(old));
		}
		db_batch_release(&old);
		return rc;
	}
	db_batch_release(&old);
	if (rc != DB_NOT_FOUND || db_batch_insert(r->c->db, b) != DB_OK)
		return submit_db_fail(r);
	return 0;
}

int submit_do_create_batch(struct rpc *r)
{
	char *app_name = NULL, *name = NULL;
	struct db_app app = { 0 };
	struct db_batch b = { 0 };
	double expire = 0;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_str(r, r->root, "app_name", FIELD_COLUMN_CHARS, &app_name);
	if (!rc)
		rc = submit_str(r, r->root, "batch_name", FIELD_COLUMN_CHARS, &name);
	if (!rc)
		rc = submit_num(r, r->root, "expire_time", 0, SUBMIT_TIME_MAX, &expire);
	if (!rc)
		rc = submit_app_by_name(r, app_name, &app);
	if (!rc)
		rc = submit_may_submit(r, app.id);
	if (!rc)
		rc = submit_may_bring_executable(r, &app);
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	else if (!rc) {
		rc = new_batch(r, &app, name, expire, &b);
		if (!rc && db_commit(r->c->db) != DB_OK)
			rc = submit_db_fail(r);
		if (rc)
			db_rollback(r->c->db);
	}
	if (!rc) {
		log_info("batch %s (%lld) created for app %s", b.name, (long long)b.id, app.name);
		sbuf_addf(r->body, "<batch_id>%lld</batch_id>\n", (long long)b.id);
	}
	free(app_name);
	free(name);
	db_app_release(&app);
	db_batch_release(&b);
	return rc;
}

/* ---- submit_batch ------------------------------------------------------------------ */

#define BYTES_MAX 1e18
#define DELAY_BOUND_MAX 1e9

/* <job_params> (or a <job>'s own): 0 or absent leaves a value unset (the template's). */
static int job_params_read(struct rpc *r, const xmlNode *n, struct job_params *jp)
{
	const struct {
		const char *name;
		double max;
		double *to;
	} fields[] = {
		{ "rsc_fpops_est", FPOPS_MAX, &jp->rsc_fpops_est },
		{ "rsc_fpops_bound", FPOPS_MAX, &jp->rsc_fpops_bound },
		{ "rsc_memory_bound", BYTES_MAX, &jp->rsc_memory_bound },
		{ "rsc_disk_bound", BYTES_MAX, &jp->rsc_disk_bound },
	};
	double v;
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		v = 0;
		if (submit_num(r, n, fields[i].name, 0, fields[i].max, &v))
			return -1;
		if (v > 0)
			*fields[i].to = v;
	}
	v = 0;
	if (submit_num(r, n, "delay_bound", 0, DELAY_BOUND_MAX, &v))
		return -1;
	if (v >= 1)
		jp->delay_bound = (int)v;
	return 0;
}

/* A <priority> (the batch's or a job's): higher is sent first. */
#define PRIORITY_MAX 1000000000
static int priority_read(struct rpc *r, const xmlNode *n, struct job_params *jp)
{
	int64_t v = JOB_PRIORITY_UNSET;

	if (!xml_child(n, "priority"))
		return 0;
	if (submit_int(r, n, "priority", -PRIORITY_MAX, PRIORITY_MAX, &v))
		return -1;
	if (v != JOB_PRIORITY_UNSET)
		jp->priority = (int)v;
	return 0;
}

/* The most results a job may ask for: replication, not a flood. */
#define JOB_RESULTS_MAX 20
#define JOB_TOTAL_RESULTS_MAX 100
#define CREDIT_MAX 1e12

/* What the jobs of a batch are made from: an ordinary app's templates, or a sequence app's plan. */
struct job_kind {
	struct db_app app;
	struct input_template tpl;      /* ordinary apps */
	char *out_tpl;
	bool is_seq;
	struct seq_spec plan;           /* sequence apps */
	size_t nstate;
	struct work_params wp;          /* the batch's */
};

static int job_kind_load(struct rpc *r, struct job_kind *k)
{
	struct sbuf err = SBUF_INIT(1024);
	struct seq_layout l;
	char *path = NULL;
	int rc = seq_app_plan_load(r->c->cfg->project_dir, k->app.name, &k->plan, &err);

	if (rc < 0) {
		rc = submit_fail(r, "the sequence plan of app %s is wrong: %s", k->app.name, sbuf_str(&err));
	} else if (rc > 0) {
		k->is_seq = true;
		rc = 0;
		if (seq_layout_load(r->c->cfg->project_dir, k->plan.seq_template, &l) < 0)
			rc = submit_fail(r, "the sequence template of app %s is wrong", k->app.name);
		else
			k->nstate = l.nstate;
		if (!rc && seq_layout_check_every(&l, k->plan.state_upload_every, k->app.name) < 0)
			rc = submit_fail(r, "the state levels of app %s do not nest with its "
					 "state_upload_every", k->app.name);
		seq_layout_release(&l);         /* zeroed when it could not be read */
	} else {
		path = xasprintf("%s/templates/%s_in", r->c->cfg->project_dir, k->app.name);
		k->out_tpl = xasprintf("templates/%s_out", k->app.name);
		if (input_template_load(path, &k->tpl) < 0)
			rc = access(path, R_OK) ? submit_fail(r, "template file missing") :
				submit_fail(r, "the input template of app %s is wrong (see the server "
					    "log)", k->app.name);
	}
	if (!rc && k->is_seq && k->app.any_executable)
		rc = submit_fail(r, "app %s is a sequence app and runs the submitter's executable: "
				 "wseq does not do both", k->app.name);
	free(path);
	sbuf_release(&err);
	return rc;
}

static void job_kind_release(struct job_kind *k)
{
	db_app_release(&k->app);
	input_template_release(&k->tpl);
	free(k->out_tpl);
	free((char *)k->plan.seq_template);
}

/* A job of a sequence app: a work sequence named like the job, its inputs the initial states. */
static int make_seq_job(struct rpc *r, const struct job_kind *k, const char *name,
			const char *cmd, const struct job_params *job_jp,
			const struct work_file *wf, size_t nf)
{
	struct seq_spec spec = k->plan;
	struct job_params jp;
	struct db_sequence s = { 0 };
	char *paths[SEQ_MAX_FILES];
	size_t i;
	int rc;

	job_params_boinc_defaults(&jp);
	job_params_override(&jp, &k->wp.jp);
	job_params_override(&jp, job_jp);
	spec.name = name;
	spec.appid = k->app.id;
	spec.command_line = cmd ? cmd : "";
	spec.rsc_fpops_est = jp.rsc_fpops_est;
	spec.rsc_fpops_bound = jp.rsc_fpops_bound;
	spec.rsc_memory_bound = jp.rsc_memory_bound;
	spec.rsc_disk_bound = jp.rsc_disk_bound;
	spec.batch = k->wp.batch;
	for (i = 0; i < nf; i++)
		paths[i] = wf[i].path;
	rc = seq_create(r->c->db, r->c->cfg, &spec, paths, nf, &s);
	db_sequence_release(&s);
	return rc == 0 ? 0 : submit_fail(r, "cannot create job %s (a job of that name exists, or see the "
				     "server log)", name);
}

/*
 * A job's name: its results, their files and (for a sequence app) its
 * segments are named after it, so it must be a file name with room left.
 */
#define JOB_NAME_MAX 200        /* backend/work.c's bound on a workunit's name */
#define SEQ_JOB_NAME_MAX 176    /* a segment's workunit adds "_b<branch>_s<seqno>" */
#define COMMAND_LINE_MAX 8192
#define SEQ_COMMAND_LINE_MAX FIELD_COLUMN_CHARS /* sequence.command_line */

/*
 * A job without a name is named as upstream's create_work names it,
 * APP_ID_TIME_INDEX, with the batch's id where create_work has its process
 * id: unique, as no other submit_batch makes jobs of this batch.
 */
static int job_name_cmd(struct rpc *r, const xmlNode *job, size_t index,
			const struct db_app *app, int64_t batch, bool is_seq, char **name,
			char **cmd)
{
	size_t max = is_seq ? SEQ_JOB_NAME_MAX : JOB_NAME_MAX;
	char *q;
	int rc;

	*cmd = NULL;
	if (submit_str(r, job, "name", FIELD_COLUMN_CHARS, name))
		return -1;
	if (!*name || !**name) {
		free(*name);
		*name = xasprintf("%.64s_%lld_%f_%zu", app->name, (long long)batch, dnow(), index);
	}
	if (strlen(*name) > max || !dirhier_name_ok(*name)) {
		q = submit_quoted(*name);
		rc = submit_fail(r, "name: %s (job %zu) is not a job name: a file name of at most "
				 "%zu bytes, without /, \\, .. or a leading . or -, as its results "
				 "and files are named after it", q, index, max);
		free(q);
		return rc;
	}
	return submit_str(r, job, "command_line", is_seq ? SEQ_COMMAND_LINE_MAX : COMMAND_LINE_MAX,
			  cmd);
}

/* Do two template fragments (extra XML) say the same, an empty one saying nothing? */
static bool same_extra(const char *job, const char *app)
{
	return !job || !*job || (app && !strcmp(job, app));
}

/*
 * A job's own <input_template> (upstream's per-job template): wseq takes
 * its workunit's parameters (rsc_*, delay_bound, quorum and result counts,
 * priority) and <credit> over the app's; its files must be the app's as
 * they are (the same file_infos and open names), anything else in it is
 * refused with the reason, never ignored.
 */
static int job_template(struct rpc *r, const xmlNode *job, size_t index, const struct job_kind *k,
			struct job_params *own, double *credit)
{
	const xmlNode *t = xml_child(job, "input_template"), *wu, *c;
	struct sbuf text = SBUF_INIT(TEMPLATE_MAX);
	struct input_template jt = { 0 };
	char name[64];
	size_t i;
	int rc = 0;

	if (!t)
		return 0;
	if (xml_child(job, "output_template"))
		return submit_fail(r, "job %zu: a job's own output_template is not taken: wseq makes "
				   "every job's results from the app's (templates/%s_out)", index,
				   k->app.name);
	if (k->is_seq || k->app.any_executable)
		return submit_fail(r, "job %zu: a job's own input_template is not taken for app %s "
				   "(%s)", index, k->app.name, k->is_seq ? "a sequence app"
				   : "its jobs bring their own executable");
	snprintf(name, sizeof(name), "job %zu's input_template", index);
	if (xml_serialize(t, &text) || input_template_parse(text.buf, text.len, name, &jt) < 0) {
		rc = submit_fail(r, "job %zu's input_template does not parse as an input template "
				 "(see the server log)", index);
		goto out;
	}
	xml_for_each(c, t, NULL)
		if (!xml_is(c, "file_info") && !xml_is(c, "workunit")) {
			rc = submit_fail(r, "job %zu's input_template: <%s> is not taken from a job's "
					 "template", index, (const char *)c->name);
			goto out;
		}
	if (jt.nfiles != k->tpl.nfiles || jt.nrefs != k->tpl.nrefs)
		rc = -1;
	for (i = 0; !rc && i < jt.nfiles; i++)
		if (!same_extra(jt.files[i].extra_xml, k->tpl.files[i].extra_xml))
			rc = -1;
	for (i = 0; !rc && i < jt.nrefs; i++) {
		const struct input_template_ref *a = &jt.refs[i], *b = &k->tpl.refs[i];

		if (a->file_number != b->file_number || !a->open_name != !b->open_name ||
		    (a->open_name && strcmp(a->open_name, b->open_name)) ||
		    !same_extra(a->extra_xml, b->extra_xml))
			rc = -1;
	}
	if (rc) {
		rc = submit_fail(r, "job %zu's input_template: its files are not app %s's (the same "
				 "file_infos, file_refs and open names): wseq takes a job's parameters "
				 "from it, its files from the app's template", index, k->app.name);
		goto out;
	}
	wu = xml_child(t, "workunit");
	xml_for_each(c, wu, NULL) {
		if (xml_is(c, "file_ref"))
			continue;
		if (xml_is(c, "credit")) {
			if (submit_num(r, wu, "credit", 0, CREDIT_MAX, credit)) {
				rc = -1;
				goto out;
			}
			continue;
		}
		if (strstr(jt.extra_xml ? jt.extra_xml : "", (const char *)c->name) ||
		    xml_is(c, "command_line")) {
			rc = submit_fail(r, "job %zu's input_template: <%s> is not taken from a job's "
					 "template%s", index, (const char *)c->name,
					 xml_is(c, "command_line") ? " (give the job's <command_line>)"
					 : "");
			goto out;
		}
	}
	job_params_override(own, &jt.params);
out:
	input_template_release(&jt);
	sbuf_release(&text);
	return rc;
}

/*
 * A job's parameters as they will be, within what the app allows: the
 * quorum not below the app's (its template's, else BOINC's default), a
 * bounded number of results, an estimate within its bound.
 */
static int job_limits(struct rpc *r, size_t index, const struct job_kind *k,
		      const struct job_params *own)
{
	struct job_params app, eff;

	job_params_boinc_defaults(&app);
	job_params_override(&app, &k->tpl.params);
	eff = app;
	job_params_override(&eff, &k->wp.jp);
	job_params_override(&eff, own);
	if (eff.min_quorum < app.min_quorum)
		return submit_fail(r, "job %zu: min_quorum %d is below app %s's, %d", index,
				   eff.min_quorum, k->app.name, app.min_quorum);
	if (eff.min_quorum > JOB_RESULTS_MAX || eff.target_nresults > JOB_RESULTS_MAX ||
	    eff.max_success_results > JOB_TOTAL_RESULTS_MAX ||
	    eff.max_error_results > JOB_TOTAL_RESULTS_MAX ||
	    eff.max_total_results > JOB_TOTAL_RESULTS_MAX)
		return submit_fail(r, "job %zu: at most %d results for a quorum (min_quorum, "
				   "target_nresults) and %d in all (max_*_results)", index,
				   JOB_RESULTS_MAX, JOB_TOTAL_RESULTS_MAX);
	if (eff.rsc_fpops_est > eff.rsc_fpops_bound)
		return submit_fail(r, "job %zu: rsc_fpops_est %g is above its rsc_fpops_bound %g",
				   index, eff.rsc_fpops_est, eff.rsc_fpops_bound);
	if (eff.delay_bound > DELAY_BOUND_MAX)
		return submit_fail(r, "job %zu: delay_bound %d is above %g", index, eff.delay_bound,
				   DELAY_BOUND_MAX);
	return 0;
}

static int make_job(struct rpc *r, const xmlNode *job, size_t index, const struct job_kind *k,
		    struct staged *st)
{
	char *name = NULL, *cmd = NULL, **open = NULL;
	size_t want = k->is_seq ? k->nstate : k->tpl.nfiles, nf = 0, i;
	struct work_file *wf;
	struct work_params wp = k->wp;
	struct job_params own;
	double credit = 0;
	struct input_template exec_tpl = { 0 };
	struct db_workunit wu = { 0 };
	xmlNode *in;
	int rc = job_name_cmd(r, job, index, &k->app, k->wp.batch, k->is_seq, &name, &cmd);

	if (!rc)
		rc = submit_exec_check_cmdline(r, &k->app, cmd, index);

	if (k->app.any_executable) {    /* as many files as the job names */
		want = 0;
		xml_for_each(in, job, "input_file")
			want++;
		open = xcalloc(want + 1, sizeof(*open));
	}
	wf = xcalloc(want + 1, sizeof(*wf));
	job_params_unset(&own);
	if (!rc)
		rc = job_template(r, job, index, k, &own, &credit);
	if (!rc)
		rc = job_params_read(r, job, &own);
	if (!rc)
		rc = priority_read(r, job, &own);
	if (!rc && !k->is_seq)
		rc = job_limits(r, index, k, &own);
	xml_for_each(in, job, "input_file") {
		const struct work_file *f = NULL;

		if (!rc && (f = submit_input_file(r, st, in, index)) == NULL)
			rc = -1;
		if (!rc && nf < want)
			wf[nf] = *f;    /* borrowed: st owns the strings */
		if (open && nf < want)
			open[nf] = xml_child_text(in, "open_name");
		nf++;
	}
	if (!rc && nf != want)
		rc = submit_fail(r, "wrong # of input files for job %zu: need %zu, got %zu", index,
				 want, nf);
	if (!rc && open)
		rc = submit_exec_template(r, &k->tpl, open, nf, index, &exec_tpl);
	if (!rc && k->is_seq) {
		rc = make_seq_job(r, k, name, cmd, &own, wf, nf);
	} else if (!rc) {
		int w;

		job_params_override(&wp.jp, &own);
		wp.command_line = cmd;
		wp.credit = credit;
		w = work_create_wu(r->c->db, name, k->app.id, open ? &exec_tpl : &k->tpl, wf, nf,
				   k->out_tpl, &wp, &wu);
		if (w == DB_RETRY || w < 0)
			rc = submit_fail(r, "cannot create job %s (a job of that name exists, or see the "
				     "server log)", name);
		else
			rc = submit_exec_check_wu(r, &k->app, wu.xml_doc, index);
	}
	for (i = 0; open && i < want; i++)
		free(open[i]);
	free(open);
	submit_exec_template_release(&exec_tpl);
	db_workunit_release(&wu);
	free(wf);
	free(name);
	free(cmd);
	return rc;
}

/* submit_batch's batch: the INIT one of <batch_id>, or one made (or made again) by name. */
static int submit_batch_of(struct rpc *r, const xmlNode *bn, const struct db_app *app,
			   struct db_batch *b)
{
	int64_t id = 0;
	char *name = NULL;
	int rc = submit_int(r, bn, "batch_id", 0, INT64_MAX, &id);

	if (!rc && id > 0) {
		rc = submit_owned_batch(r, bn, b);
		if (!rc && b->state != BATCH_STATE_INIT)
			rc = submit_fail(r, "batch %s is not in the INIT state", b->name);
		if (!rc && b->app_id != app->id)
			rc = submit_fail(r, "batch %s is not for app %s", b->name, app->name);
	} else if (!rc && !(rc = submit_str(r, bn, "batch_name", FIELD_COLUMN_CHARS, &name))) {
		rc = new_batch(r, app, name, 0, b);
	}
	free(name);
	return rc;
}

/* The batch-wide part of <batch>: the app version and the job parameters. */
static int batch_params(struct rpc *r, const xmlNode *bn, struct job_kind *k, int64_t batch)
{
	int64_t avn = 0;

	work_params_init(&k->wp);
	k->wp.batch = batch;
	if (submit_int(r, bn, "app_version_num", 0, INT_MAX, &avn))
		return -1;
	k->wp.app_version_num = (int)avn;
	if (xml_child(bn, "allocation_priority"))
		return submit_fail(r, "allocation_priority: wseq keeps no per-submitter allocation "
				   "(upstream's logical end times); give the batch a <priority>");
	if (xml_child(bn, "input_template_filename") || xml_child(bn, "output_template_filename"))
		return submit_fail(r, "input_template_filename, output_template_filename: a batch "
				   "uses its app's templates; give a job its own input_template");
	if (priority_read(r, bn, &k->wp.jp))
		return -1;
	return job_params_read(r, xml_child(bn, "job_params"), &k->wp.jp);
}

int submit_do_submit_batch(struct rpc *r)
{
	xmlNode *bn = xml_child(r->root, "batch"), *job;
	char *app_name = NULL;
	struct job_kind k = { 0 };
	struct db_batch b = { 0 };
	struct staged st = { 0 };
	size_t njobs = 0;
	bool in_txn = false;
	int rc = submit_authenticate(r);

	if (!rc && !bn)
		rc = submit_fail(r, "no <batch> in the request");
	if (!rc)
		rc = submit_str(r, bn, "app_name", FIELD_COLUMN_CHARS, &app_name);
	if (!rc)
		rc = submit_app_by_name(r, app_name, &k.app);
	if (!rc)
		rc = submit_may_submit(r, k.app.id);
	if (!rc)
		rc = submit_may_bring_executable(r, &k.app);
	if (!rc)
		rc = job_kind_load(r, &k);
	if (!rc && db_begin(r->c->db) == DB_OK)
		in_txn = true;
	else if (!rc)
		rc = submit_db_fail(r);
	if (!rc)
		rc = submit_batch_of(r, bn, &k.app, &b);
	if (!rc)
		rc = batch_params(r, bn, &k, b.id);
	st.batch = b.id;
	if (bn) {
		xml_for_each(job, bn, "job") {
			if (!rc)
				rc = make_job(r, job, njobs, &k, &st);
			njobs++;
		}
	}
	if (!rc && !njobs)
		rc = submit_fail(r, "no jobs in the batch");
	if (!rc) {
		b.state = BATCH_STATE_IN_PROGRESS;
		b.njobs += (int)njobs;
		if (db_batch_update(r->c->db, &b) != DB_OK || db_commit(r->c->db) != DB_OK)
			rc = submit_db_fail(r);
	}
	if (rc && in_txn)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("batch %s (%lld): %zu %sjobs of %s submitted", b.name, (long long)b.id,
			 njobs, k.is_seq ? "sequence " : "", k.app.name);
		sbuf_addf(r->body, "<batch_id>%lld</batch_id>\n", (long long)b.id);
	}
	submit_staged_release(&st, rc != 0);
	job_kind_release(&k);
	free(app_name);
	db_batch_release(&b);
	return rc;
}

/* ---- retire_batch, set_expire_time -------------------------------------------------- */


/*
 * Retire a batch; one that never had a job (a submit that failed half way,
 * retired by boinc_gahp as it gives up) has nothing to keep and goes
 * altogether, with its ties to files.
 */
static int retire(struct rpc *r, struct db_batch *b, bool *discarded)
{
	struct cancel_count n_cancelled = { 0 };
	int64_t n = 1;

	*discarded = false;
	/* the row as it is now, locked: what is written back is not a stale copy */
	if (db_batch_lock(r->c->db, b->id, b) != DB_OK)
		return DB_ERROR;
	if (b->state == BATCH_STATE_INIT && b->njobs == 0 &&
	    db_batch_count_jobs(r->c->db, b->id, &n) != DB_OK)
		return DB_ERROR;
	if (n == 0) {
		*discarded = true;
		if (db_batch_file_assoc_drop_batch(r->c->db, b->id) != DB_OK)
			return DB_ERROR;
		return db_batch_delete(r->c->db, b);
	}
	b->state = BATCH_STATE_RETIRED;
	if (cancel_batch_in(r->c->db, b->id, "its batch was retired", now(), &n_cancelled) != DB_OK)
		return DB_ERROR;
	/* its counts as it ends, kept */
	if (submit_batch_count(r, b) < 0)
		return DB_ERROR;
	return db_batch_update(r->c->db, b);
}

int submit_do_retire_batch(struct rpc *r)
{
	struct db_batch b = { 0 };
	bool discarded = false;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_owned_batch(r, r->root, &b);
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	else if (!rc && (retire(r, &b, &discarded) != DB_OK || db_commit(r->c->db) != DB_OK)) {
		db_rollback(r->c->db);
		rc = submit_db_fail(r);
	}
	if (!rc) {
		log_info("batch %s (%lld) %s", b.name, (long long)b.id,
			 discarded ? "discarded: it never had a job" : "retired");
		sbuf_addstr(r->body, "<success>1</success>\n");
	}
	db_batch_release(&b);
	return rc;
}

int submit_do_set_expire_time(struct rpc *r)
{
	struct db_batch b = { 0 };
	double t = -1;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_num(r, r->root, "expire_time", 0, SUBMIT_TIME_MAX, &t);
	if (!rc && t < 0)
		rc = submit_fail(r, "no expire_time");
	if (!rc)
		rc = submit_owned_batch(r, r->root, &b);
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	if (!rc) {
		/* The lease covers the batch's files too. */
		b.expire_time = t;
		if (db_batch_update(r->c->db, &b) != DB_OK ||
		    db_job_file_lease_batch(r->c->db, b.id, t) != DB_OK ||
		    db_commit(r->c->db) != DB_OK) {
			db_rollback(r->c->db);
			rc = submit_db_fail(r);
		}
	}
	if (!rc)
		sbuf_addstr(r->body, "<success>1</success>\n");
	db_batch_release(&b);
	return rc;
}
