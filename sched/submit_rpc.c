/*
 * The remote job submission RPCs: authentication, batches, content-addressed
 * job files, job creation in one transaction, status, results and output
 * files (see submit.h). Every handler writes the inside of the reply's root;
 * a failure replaces it with BOINC's error element.
 */
#include "submit.h"
#include "db.h"
#include "db_queries.h"
#include "db_sched.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sequence.h"
#include "wtime.h"
#include "work.h"
#include "xml.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>

struct rpc {
	const struct submit_ctx *c;
	const struct form *form;
	xmlNode *root;
	struct sbuf *body;              /* the reply's content inside the root */
	struct sbuf err;                /* the error message, when one */
	struct db_user user;
	size_t njobs;                   /* query_batch2: jobs listed for the current batch */
};

static int fail(struct rpc *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int fail(struct rpc *r, const char *fmt, ...)
{
	va_list ap;

	if (r->err.len)
		return -1;      /* the first reason stands */
	va_start(ap, fmt);
	sbuf_vaddf(&r->err, fmt, ap);
	va_end(ap);
	return -1;
}

static double child_double(const xmlNode *n, const char *name, double dflt)
{
	char *t = xml_child_text(n, name), *end;
	double v = dflt;

	if (t && *t) {
		v = strtod(t, &end);
		if (*end || !isfinite(v))
			v = dflt;
	}
	free(t);
	return v;
}

static int64_t child_id(const xmlNode *n, const char *name)
{
	char *t = xml_child_text(n, name);
	long v = 0;

	if (t && parse_long(t, &v) < 0)
		v = -1;
	free(t);
	return v;
}

/* ---- authentication -------------------------------------------------------------- */

static int need_db(struct rpc *r)
{
	if (!r->c->db)
		return fail(r, "the project database is unavailable; try again later");
	return 0;
}

static int authenticate(struct rpc *r)
{
	char *auth = xml_child_text(r->root, "authenticator");
	int rc;

	if (need_db(r))
		rc = -1;
	else if (!auth || !*auth)
		rc = fail(r, "no authenticator");
	else if ((rc = db_user_lookup_auth(r->c->db, auth, &r->user)) == DB_NOT_FOUND)
		rc = fail(r, "bad authenticator");
	else if (rc != DB_OK)
		rc = fail(r, "database error");
	free(auth);
	return rc ? -1 : 0;
}

/* May the user submit (appid 0: handle files at all)? */
static int may_submit(struct rpc *r, int64_t appid)
{
	struct db_user_submit us = { .user_id = r->user.id };
	struct db_user_submit_app usa = { .user_id = r->user.id, .app_id = appid };
	int rc = db_user_submit_lookup(r->c->db, &us);

	if (rc == DB_NOT_FOUND)
		return fail(r, appid ? "no submit access" : "no file access");
	if (rc != DB_OK)
		return fail(r, "database error");
	if (!appid || us.submit_all)
		return 0;
	rc = db_user_submit_app_lookup(r->c->db, &usa);
	if (rc == DB_NOT_FOUND)
		return fail(r, "no submit access");
	return rc == DB_OK ? 0 : fail(r, "database error");
}

static int app_by_name(struct rpc *r, const char *name, struct db_app *app)
{
	int rc;

	if (!name || !*name)
		return fail(r, "no app name");
	rc = db_app_lookup_name(r->c->db, name, app);
	if (rc == DB_NOT_FOUND)
		return fail(r, "no app named %s", name);
	return rc == DB_OK ? 0 : fail(r, "database error");
}

/* The batch named by <batch_id> or <batch_name> of node, owned by the user. */
static int owned_batch(struct rpc *r, const xmlNode *node, struct db_batch *b)
{
	int64_t id = child_id(node, "batch_id");
	char *name = xml_child_text(node, "batch_name");
	int rc;

	if (id <= 0 && (!name || !*name)) {
		free(name);
		return fail(r, "batch not specified");
	}
	rc = id > 0 ? db_batch_lookup_id(r->c->db, id, b) : db_batch_lookup_name(r->c->db, name, b);
	if (rc == DB_NOT_FOUND)
		rc = id > 0 ? fail(r, "no such batch") : fail(r, "no batch named %s", name);
	else if (rc != DB_OK)
		rc = fail(r, "database error");
	else if (b->user_id != r->user.id)
		rc = fail(r, "not owner of batch");
	free(name);
	return rc ? -1 : 0;
}

/* ---- jobs ---------------------------------------------------------------------------- */

/*
 * A job: an ordinary app's workunit, or a sequence app's work sequence (same
 * name), and then wu is the segment that speaks for it -- the last one once
 * the sequence has ended, else the newest sent.
 */
struct job {
	struct db_workunit wu;
	struct db_sequence seq;
	bool is_seq;
};

enum job_rc { JOB_OK, JOB_NONE, JOB_NOT_OWNER, JOB_NO_BATCH, JOB_DB_ERROR };

static void job_free(struct job *j)
{
	db_workunit_free(&j->wu);
	db_sequence_free(&j->seq);
}

static enum job_rc job_find(struct db *db, int64_t user_id, const char *name, struct job *j)
{
	struct db_batch b = { 0 };
	int64_t batch;
	int rc;

	memset(j, 0, sizeof(*j));
	if (!name || !*name)
		return JOB_NONE;
	rc = db_workunit_lookup_name(db, name, &j->wu);
	if (rc == DB_OK && j->wu.seq_id)
		rc = DB_NOT_FOUND;      /* a segment is not a job of its own */
	if (rc == DB_NOT_FOUND) {
		rc = db_sequence_lookup_name(db, name, &j->seq);
		if (rc == DB_OK) {
			int k = j->seq.state == SEQ_STATE_ENDED ? j->seq.nsegments
				: j->seq.first_unsent_seqno - 1;

			j->is_seq = true;
			rc = db_workunit_lookup_segment(db, j->seq.id, j->seq.branch, k > 0 ? k : 1,
							&j->wu);
			if (rc == DB_NOT_FOUND)
				rc = DB_OK;
		}
	}
	if (rc == DB_NOT_FOUND)
		return JOB_NONE;
	if (rc != DB_OK)
		return JOB_DB_ERROR;
	batch = j->is_seq ? j->seq.batch : j->wu.batch;
	rc = batch ? db_batch_lookup_id(db, batch, &b) : DB_NOT_FOUND;
	db_batch_free(&b);
	if (rc == DB_NOT_FOUND)
		return JOB_NO_BATCH;
	if (rc != DB_OK)
		return JOB_DB_ERROR;
	return b.user_id == user_id ? JOB_OK : JOB_NOT_OWNER;
}

/* The job called name, in a batch of the user's. */
static int owned_job(struct rpc *r, const char *name, struct job *j)
{
	switch (job_find(r->c->db, r->user.id, name, j)) {
	case JOB_OK: return 0;
	case JOB_NONE: return fail(r, "no job named %s", name ? name : "");
	case JOB_NOT_OWNER: return fail(r, "not owner of %s", name);
	case JOB_NO_BATCH: return fail(r, "job %s is not in a batch", name);
	default: return fail(r, "database error");
	}
}

/*
 * The output files of a sequence job: the answers, then the states, of its
 * last segment on the live branch; with their open names when names is set.
 */
static size_t seq_outputs(const struct project_config *cfg, const struct db_sequence *s,
			  char **files, char **open_names)
{
	struct seq_layout l;
	size_t i, n = 0;

	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return 0;
	for (i = 0; i < l.nanswer; i++, n++) {
		files[n] = seq_answer_name(s->name, s->branch, s->nsegments, i);
		if (open_names)
			open_names[n] = xstrdup(l.answer[i].open_name);
	}
	for (i = 0; i < l.nstate; i++, n++) {
		files[n] = seq_state_name(s->name, s->branch, s->nsegments, i);
		if (open_names)
			open_names[n] = xstrdup(l.state[i].open_out);
	}
	seq_layout_free(&l);
	return n;
}

/* get_templates of a sequence job: the outputs the submitter gets back, by open name. */
static void seq_templates(struct rpc *r, const struct db_sequence *s)
{
	char *files[2 * SEQ_MAX_FILES], *open[2 * SEQ_MAX_FILES];
	size_t n = seq_outputs(r->c->cfg, s, files, open), i;

	sbuf_addstr(r->body, "<templates>\n<input_template>\n</input_template>\n<output_template>\n");
	for (i = 0; i < n; i++)
		sbuf_addf(r->body, "<file_info>\n    <name><OUTFILE_%zu/></name>\n</file_info>\n", i);
	sbuf_addstr(r->body, "<result>\n");
	for (i = 0; i < n; i++) {
		sbuf_addf(r->body, "    <file_ref>\n        <file_name><OUTFILE_%zu/></file_name>\n"
			  "        <open_name>", i);
		sbuf_add_xml_escaped(r->body, open[i]);
		sbuf_addstr(r->body, "</open_name>\n    </file_ref>\n");
		free(files[i]);
		free(open[i]);
	}
	sbuf_addstr(r->body, "</result>\n</output_template>\n</templates>\n");
}

/* ---- ping, get_templates, create_batch ------------------------------------------- */

static int do_ping(struct rpc *r)
{
	if (need_db(r))
		return -1;
	sbuf_addstr(r->body, "<success>1</success>\n");
	return 0;
}

static int do_get_templates(struct rpc *r)
{
	char *app_name = xml_child_text(r->root, "app_name");
	char *job_name = xml_child_text(r->root, "job_name");
	struct db_app app = { 0 };
	struct sbuf in = SBUF_INIT(TEMPLATE_MAX), out = SBUF_INIT(TEMPLATE_MAX);
	char *pin = NULL, *pout = NULL;
	int rc = authenticate(r);

	if (!rc && job_name && *job_name) {
		struct job j;

		rc = owned_job(r, job_name, &j);
		if (!rc && j.is_seq) {
			seq_templates(r, &j.seq);
			job_free(&j);
			goto out;
		}
		if (!rc && db_app_lookup_id(r->c->db, j.wu.appid, &app) != DB_OK)
			rc = fail(r, "database error");
		if (!rc)
			job_free(&j);
	} else if (!rc) {
		rc = app_by_name(r, app_name, &app);
	}
	if (!rc) {
		pin = xasprintf("%s/templates/%s_in", r->c->cfg->project_dir, app.name);
		pout = xasprintf("%s/templates/%s_out", r->c->cfg->project_dir, app.name);
		if (read_file(pin, TEMPLATE_MAX, &in) || read_file(pout, TEMPLATE_MAX, &out))
			rc = fail(r, "template file missing");
	}
	if (!rc) {
		sbuf_addstr(r->body, "<templates>\n");
		sbuf_add(r->body, in.buf, in.len);
		sbuf_add(r->body, out.buf, out.len);
		sbuf_addstr(r->body, "</templates>\n");
	}
out:
	free(pin);
	free(pout);
	free(app_name);
	free(job_name);
	sbuf_free(&in);
	sbuf_free(&out);
	db_app_free(&app);
	return rc;
}

/* Insert a batch in state INIT; name NULL or "": user:app:date. */
static int new_batch(struct rpc *r, const struct db_app *app, const char *name, double expire,
		     struct db_batch *b)
{
	int rc;

	memset(b, 0, sizeof(*b));
	b->user_id = r->user.id;
	b->app_id = app->id;
	b->create_time = now();
	b->state = BATCH_STATE_INIT;
	b->expire_time = expire;
	if (name && *name)
		b->name = xstrdup(name);
	else
		b->name = xasprintf("%lld:%s:%lld", (long long)r->user.id, app->name,
				    (long long)b->create_time);
	rc = db_batch_lookup_name(r->c->db, b->name, &(struct db_batch){ 0 });
	if (rc == DB_OK)
		return fail(r, "batch name %s is already in use", b->name);
	if (rc != DB_NOT_FOUND || db_batch_insert(r->c->db, b) != DB_OK)
		return fail(r, "database error");
	return 0;
}

static int do_create_batch(struct rpc *r)
{
	char *app_name = xml_child_text(r->root, "app_name");
	char *name = xml_child_text(r->root, "batch_name");
	struct db_app app = { 0 };
	struct db_batch b = { 0 };
	int rc = authenticate(r);

	if (!rc)
		rc = app_by_name(r, app_name, &app);
	if (!rc)
		rc = may_submit(r, app.id);
	if (!rc)
		rc = new_batch(r, &app, name, child_double(r->root, "expire_time", 0), &b);
	if (!rc) {
		log_info("batch %s (%lld) created for app %s", b.name, (long long)b.id, app.name);
		sbuf_addf(r->body, "<batch_id>%lld</batch_id>\n", (long long)b.id);
	}
	free(app_name);
	free(name);
	db_app_free(&app);
	db_batch_free(&b);
	return rc;
}

/* ---- job files (job_file.php) ------------------------------------------------------ */

/* ^[A-Za-z0-9_. -]{1,255}$, and never "." or ".." (it would name a directory). */
static bool job_file_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n > 255 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_. -", s[i]))
			return false;
	return dirhier_name_ok(s);
}

/* Record the file as known until delete_time (raised, never lowered), tied to batch. */
static int note_job_file(struct rpc *r, const char *name, double delete_time, int64_t batch)
{
	struct db_job_file jf = { 0 };
	int rc = db_job_file_lookup_name(r->c->db, name, &jf);

	if (rc == DB_NOT_FOUND) {
		jf.name = xstrdup(name);
		jf.create_time = (double)now();
		jf.delete_time = delete_time;
		rc = db_job_file_insert(r->c->db, &jf);
	} else if (rc == DB_OK && delete_time > jf.delete_time) {
		jf.delete_time = delete_time;
		rc = db_job_file_update(r->c->db, &jf);
	}
	if (rc == DB_OK && batch > 0)
		rc = db_batch_file_assoc_add(r->c->db, jf.id, batch);
	db_job_file_free(&jf);
	return rc == DB_OK ? 0 : fail(r, "database error");
}

/* Common to query_files and upload_files: auth, batch, lease and names. */
struct file_req {
	int64_t batch;
	double delete_time;
	char **names;
	size_t n;
};

static void file_req_free(struct file_req *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q->names[i]);
	free(q->names);
}

static int file_req_parse(struct rpc *r, struct file_req *q)
{
	struct db_batch b = { 0 };
	xmlNode *n;
	int rc = authenticate(r);

	memset(q, 0, sizeof(*q));
	if (!rc)
		rc = may_submit(r, 0);
	if (!rc && child_id(r->root, "batch_id") > 0) {
		rc = owned_batch(r, r->root, &b);
		q->batch = b.id;
	}
	q->delete_time = child_double(r->root, "delete_time", 0);
	xml_for_each(n, r->root, "phys_name") {
		char *name = xml_text(n);

		q->names = xrealloc(q->names, (q->n + 1) * sizeof(*q->names));
		q->names[q->n++] = name;
		if (!rc && !job_file_name_ok(name))
			rc = fail(r, "bad filename");
	}
	db_batch_free(&b);
	return rc;
}

static int do_query_files(struct rpc *r)
{
	struct file_req q;
	struct sbuf path = SBUF_INIT(PATH_MAX);
	size_t i;
	int rc = file_req_parse(r, &q);

	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (!rc)
		sbuf_addstr(r->body, "<absent_files>\n");
	for (i = 0; !rc && i < q.n; i++) {
		struct stat st;
		struct db_job_file jf = { 0 };

		sbuf_reset(&path);
		if (dirhier_path(q.names[i], r->c->cfg->download_dir, r->c->cfg->uldl_dir_fanout,
				 false, &path) == 0 && stat(sbuf_str(&path), &st) == 0) {
			rc = note_job_file(r, q.names[i], q.delete_time, q.batch);
			continue;
		}
		/* A stale row whose file is gone goes with it. */
		if (db_job_file_lookup_name(r->c->db, q.names[i], &jf) == DB_OK &&
		    db_job_file_delete(r->c->db, &jf) != DB_OK)
			rc = fail(r, "database error");
		db_job_file_free(&jf);
		sbuf_addf(r->body, "    <file>%zu</file>\n", i);
	}
	if (!rc)
		sbuf_addstr(r->body, "</absent_files>\n");
	if (r->c->db && !rc && db_commit(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (rc && r->c->db)
		db_rollback(r->c->db);
	sbuf_free(&path);
	file_req_free(&q);
	return rc;
}

/* A name "<32 hex digits>..." promises its content's MD5 (boinc_gahp names files so). */
static bool md5_named(const char *name, const char *md5)
{
	size_t i;

	for (i = 0; i < MD5_HEX_LEN; i++)
		if (!isxdigit((unsigned char)name[i]))
			return false;
	return name[i] == 0 || name[i] == '.' ? strncasecmp(name, md5, MD5_HEX_LEN) != 0 : false;
}

static int do_upload_files(struct rpc *r)
{
	struct file_req q;
	size_t i, nparts = 0;
	int rc = file_req_parse(r, &q);

	for (i = 0; i < r->form->n; i++)
		if (!strncmp(r->form->parts[i].name, "file_", 5))
			nparts++;
	if (!rc && nparts != q.n)
		rc = fail(r, "# of uploaded files (%zu) does not agree with the request (%zu)", nparts,
			  q.n);
	for (i = 0; !rc && i < q.n; i++) {
		char field[32];
		const struct form_part *p;
		struct work_file wf;
		char md5[MD5_HEX_LEN + 1];
		int s;

		snprintf(field, sizeof(field), "file_%zu", i);
		if (!(p = form_get(r->form, field))) {
			rc = fail(r, "no form field %s", field);
			break;
		}
		md5_buf(p->data, p->len, md5);
		if (md5_named(q.names[i], md5)) {
			rc = fail(r, "content of %s does not match its name (truncated upload?)",
				  q.names[i]);
			break;
		}
		s = work_stage_buffer(r->c->cfg, q.names[i], p->data, p->len, &wf);
		if (s > 0)
			rc = fail(r, "file immutability violation for %s", q.names[i]);
		else if (s < 0)
			rc = fail(r, "cannot store %s", q.names[i]);
		work_file_free(&wf);
	}
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	for (i = 0; !rc && i < q.n; i++)
		rc = note_job_file(r, q.names[i], q.delete_time, q.batch);
	if (!rc && db_commit(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (rc && r->c->db)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("%zu job files uploaded", q.n);
		sbuf_addstr(r->body, "<success/>\n");
	}
	file_req_free(&q);
	return rc;
}

/* ---- submit_batch ------------------------------------------------------------------ */

struct staged {
	struct work_file *files;
	size_t n;
};

/* The staged file called name, looked up once per request. */
static const struct work_file *staged_file(struct rpc *r, struct staged *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->files[i].name, name))
			return &st->files[i];
	if (!job_file_name_ok(name)) {
		fail(r, "bad filename");
		return NULL;
	}
	st->files = xrealloc(st->files, (st->n + 1) * sizeof(*st->files));
	if (work_staged_file(r->c->cfg, name, &st->files[st->n]) < 0) {
		fail(r, "input file %s is not on the server", name);
		return NULL;
	}
	return &st->files[st->n++];
}

static void job_params_read(const xmlNode *n, struct job_params *jp)
{
	double v;

	if (!n)
		return;
	if ((v = child_double(n, "rsc_fpops_est", 0)) > 0)
		jp->rsc_fpops_est = v;
	if ((v = child_double(n, "rsc_fpops_bound", 0)) > 0)
		jp->rsc_fpops_bound = v;
	if ((v = child_double(n, "rsc_memory_bound", 0)) > 0)
		jp->rsc_memory_bound = v;
	if ((v = child_double(n, "rsc_disk_bound", 0)) > 0)
		jp->rsc_disk_bound = v;
	if ((v = child_double(n, "delay_bound", 0)) > 0 && v < 1e9)
		jp->delay_bound = (int)v;
}

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
		rc = fail(r, "the sequence plan of app %s is wrong: %s", k->app.name, sbuf_str(&err));
	} else if (rc > 0) {
		k->is_seq = true;
		rc = 0;
		if (seq_layout_load(r->c->cfg->project_dir, k->plan.seq_template, &l) < 0)
			rc = fail(r, "the sequence template of app %s is wrong", k->app.name);
		else
			k->nstate = l.nstate;
		if (!rc)
			seq_layout_free(&l);
	} else {
		path = xasprintf("%s/templates/%s_in", r->c->cfg->project_dir, k->app.name);
		k->out_tpl = xasprintf("templates/%s_out", k->app.name);
		if (input_template_load(path, &k->tpl) < 0)
			rc = fail(r, "template file missing");
	}
	free(path);
	sbuf_free(&err);
	return rc;
}

static void job_kind_free(struct job_kind *k)
{
	db_app_free(&k->app);
	input_template_free(&k->tpl);
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
	db_sequence_free(&s);
	return rc == 0 ? 0 : fail(r, "cannot create job %s (a job of that name exists, or see the "
				     "server log)", name);
}

static int make_job(struct rpc *r, const xmlNode *job, size_t index, const struct job_kind *k,
		    struct staged *st)
{
	char *name = xml_child_text(job, "name"), *cmd = xml_child_text(job, "command_line");
	size_t want = k->is_seq ? k->nstate : k->tpl.nfiles, nf = 0;
	struct work_file *wf = xcalloc(want + 1, sizeof(*wf));
	struct work_params wp = k->wp;
	struct db_workunit wu = { 0 };
	xmlNode *in;
	int rc = 0;

	if (!name || !*name)
		rc = fail(r, "job %zu has no name", index);
	xml_for_each(in, job, "input_file") {
		char *mode = xml_child_text(in, "mode"), *src = xml_child_text(in, "source");
		const struct work_file *f = NULL;

		if (!rc && mode && strcmp(mode, "local_staged"))
			rc = fail(r, "input file mode %s is not supported", mode);
		else if (!rc && (f = staged_file(r, st, src ? src : "")) == NULL)
			rc = -1;
		if (!rc && nf < want)
			wf[nf] = *f;    /* borrowed: st owns the strings */
		nf++;
		free(mode);
		free(src);
	}
	if (!rc && nf != want)
		rc = fail(r, "wrong # of input files for job %zu: need %zu, got %zu", index, want, nf);
	job_params_unset(&wp.jp);
	job_params_read(job, &wp.jp);
	if (!rc && k->is_seq) {
		rc = make_seq_job(r, k, name, cmd, &wp.jp, wf, nf);
	} else if (!rc) {
		int w;

		wp = k->wp;
		job_params_read(job, &wp.jp);
		wp.command_line = cmd;
		w = work_create_wu(r->c->db, name, k->app.id, &k->tpl, wf, nf, k->out_tpl, &wp, &wu);
		if (w == DB_RETRY || w < 0)
			rc = fail(r, "cannot create job %s (a job of that name exists, or see the "
				     "server log)", name);
	}
	db_workunit_free(&wu);
	free(wf);
	free(name);
	free(cmd);
	return rc;
}

static int do_submit_batch(struct rpc *r)
{
	xmlNode *bn = xml_child(r->root, "batch"), *job;
	char *app_name = bn ? xml_child_text(bn, "app_name") : NULL;
	struct job_kind k = { 0 };
	struct db_batch b = { 0 };
	struct staged st = { NULL, 0 };
	size_t njobs = 0, i;
	bool in_txn = false;
	int rc = authenticate(r);

	if (!rc && !bn)
		rc = fail(r, "no <batch> in the request");
	if (!rc)
		rc = app_by_name(r, app_name, &k.app);
	if (!rc)
		rc = may_submit(r, k.app.id);
	if (!rc)
		rc = job_kind_load(r, &k);
	if (!rc && db_begin(r->c->db) == DB_OK)
		in_txn = true;
	else if (!rc)
		rc = fail(r, "database error");
	if (!rc && child_id(bn, "batch_id") > 0) {
		rc = owned_batch(r, bn, &b);
		if (!rc && b.state != BATCH_STATE_INIT)
			rc = fail(r, "batch %s is not in the INIT state", b.name);
		if (!rc && b.app_id != k.app.id)
			rc = fail(r, "batch %s is not for app %s", b.name, k.app.name);
	} else if (!rc) {
		char *bname = xml_child_text(bn, "batch_name");

		rc = new_batch(r, &k.app, bname, 0, &b);
		free(bname);
	}
	work_params_init(&k.wp);
	k.wp.batch = b.id;
	k.wp.app_version_num = (int)child_double(bn, "app_version_num", 0);
	job_params_read(xml_child(bn, "job_params"), &k.wp.jp);
	xml_for_each(job, bn, "job") {
		if (!rc)
			rc = make_job(r, job, njobs, &k, &st);
		njobs++;
	}
	if (!rc && !njobs)
		rc = fail(r, "no jobs in the batch");
	if (!rc) {
		b.state = BATCH_STATE_IN_PROGRESS;
		b.njobs += (int)njobs;
		if (db_batch_update(r->c->db, &b) != DB_OK || db_commit(r->c->db) != DB_OK)
			rc = fail(r, "database error");
	}
	if (rc && in_txn)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("batch %s (%lld): %zu %sjobs of %s submitted", b.name, (long long)b.id,
			 njobs, k.is_seq ? "sequence " : "", k.app.name);
		sbuf_addf(r->body, "<batch_id>%lld</batch_id>\n", (long long)b.id);
	}
	for (i = 0; i < st.n; i++)
		work_file_free(&st.files[i]);
	free(st.files);
	job_kind_free(&k);
	free(app_name);
	db_batch_free(&b);
	return rc;
}

/* ---- query_batch2, query_completed_job ---------------------------------------------- */

static int add_job_status(struct db_job_status *s, void *arg)
{
	struct rpc *r = arg;
	const char *status = s->canonical_resultid ? "DONE" : s->error_mask ? "ERROR"
			   : s->nsent ? "IN_PROGRESS" : "UNSENT";

	sbuf_addstr(r->body, "<job><job_name>");
	sbuf_add_xml_escaped(r->body, s->name);
	sbuf_addf(r->body, "</job_name><status>%s</status></job>\n", status);
	r->njobs++;
	return 0;
}

/* A sequence app's job: IN_PROGRESS from its first segment sent until it ends. */
static int add_seq_status(struct db_sequence *s, void *arg)
{
	struct rpc *r = arg;
	const char *status = s->state == SEQ_STATE_ENDED ? "DONE"
			   : s->state == SEQ_STATE_ERROR ? "ERROR"
			   : s->hostid || s->first_unsent_seqno > 1 || s->nrelocations ? "IN_PROGRESS"
			   : "UNSENT";

	sbuf_addstr(r->body, "<job><job_name>");
	sbuf_add_xml_escaped(r->body, s->name);
	sbuf_addf(r->body, "</job_name><status>%s</status></job>\n", status);
	r->njobs++;
	return 0;
}

static int do_query_batch2(struct rpc *r)
{
	double t = child_double(r->root, "min_mod_time", 0), server_time = dnow();
	struct sbuf jobs = SBUF_INIT(1L << 30);
	struct sbuf *body = r->body;
	xmlNode *n;
	int rc = authenticate(r);

	if (!rc)
		sbuf_addf(body, "<server_time>%f</server_time>\n", server_time);
	xml_for_each(n, r->root, "batch_name") {
		char *name = xml_text(n);
		struct db_batch b = { 0 };

		if (!rc && (rc = db_batch_lookup_name(r->c->db, name, &b)) == DB_NOT_FOUND)
			rc = fail(r, "no batch named %s", name);
		else if (!rc && rc != DB_OK)
			rc = fail(r, "database error");
		else if (!rc && b.user_id != r->user.id)
			rc = fail(r, "not owner of %s", name);
		if (!rc) {
			/* the jobs first, to count them */
			sbuf_reset(&jobs);
			r->body = &jobs;
			r->njobs = 0;
			if (db_job_status_enum_batch(r->c->db, b.id, t, add_job_status, r) != DB_OK ||
			    db_sequence_enum_batch(r->c->db, b.id, t, add_seq_status, r) != DB_OK)
				rc = fail(r, "database error");
			r->body = body;
			sbuf_addf(body, "<batch_size>%zu</batch_size>\n", r->njobs);
			sbuf_add(body, jobs.buf, jobs.len);
		}
		db_batch_free(&b);
		free(name);
	}
	sbuf_free(&jobs);
	return rc;
}

/* query_batches: the user's batches, with their progress counted now. */
struct batch_list {
	struct rpc *r;
	int rc;
};

static int add_batch(struct db_batch *b, void *arg)
{
	struct batch_list *l = arg;
	struct rpc *r = l->r;
	struct db_val v[] = { DBV_INT(b->id) };
	struct db_app app = { 0 };
	int64_t done = 0, err = 0, sdone = 0, serr = 0;

	if (db_workunit_count(r->c->db, "WHERE batch=? AND seq_id=0 AND canonical_resultid>0", v, 1,
			      &done) != DB_OK ||
	    db_workunit_count(r->c->db, "WHERE batch=? AND seq_id=0 AND canonical_resultid=0 "
			      "AND error_mask<>0", v, 1, &err) != DB_OK ||
	    db_sequence_count(r->c->db, "WHERE batch=? AND state=1", v, 1, &sdone) != DB_OK ||
	    db_sequence_count(r->c->db, "WHERE batch=? AND state=2", v, 1, &serr) != DB_OK) {
		l->rc = fail(r, "database error");
		return 1;
	}
	done += sdone;
	err += serr;
	db_app_lookup_id(r->c->db, b->app_id, &app);
	sbuf_addf(r->body, "<batch>\n    <id>%lld</id>\n    <create_time>%lld</create_time>\n"
		  "    <expire_time>%f</expire_time>\n    <njobs>%d</njobs>\n"
		  "    <fraction_done>%f</fraction_done>\n    <nerror_jobs>%lld</nerror_jobs>\n"
		  "    <state>%d</state>\n    <completion_time>%f</completion_time>\n"
		  "    <credit_canonical>%f</credit_canonical>\n    <name>",
		  (long long)b->id, (long long)b->create_time, b->expire_time, b->njobs,
		  b->njobs ? (double)(done + err) / b->njobs : 0.0, (long long)err, b->state,
		  b->completion_time, b->credit_canonical);
	sbuf_add_xml_escaped(r->body, b->name);
	sbuf_addstr(r->body, "</name>\n    <app_name>");
	sbuf_add_xml_escaped(r->body, app.name ? app.name : "");
	sbuf_addstr(r->body, "</app_name>\n</batch>\n");
	db_app_free(&app);
	return 0;
}

static int do_query_batches(struct rpc *r)
{
	struct batch_list l = { r, 0 };
	int rc = authenticate(r);

	if (!rc && db_batch_enum_user(r->c->db, r->user.id, add_batch, &l) != DB_OK)
		rc = fail(r, "database error");
	return rc ? rc : l.rc;
}

/* stderr_out goes entity-escaped inside CDATA: the clients unescape after reading the CDATA. */
static int do_query_completed_job(struct rpc *r)
{
	char *name = xml_child_text(r->root, "job_name");
	struct job j;
	struct db_result res = { 0 };
	int rc = authenticate(r), got = DB_NOT_FOUND, mask;

	if (!rc)
		rc = owned_job(r, name, &j);
	if (!rc) {
		mask = j.is_seq ? (j.seq.state == SEQ_STATE_ERROR ? WU_ERROR_NO_CANONICAL_RESULT : 0)
				: j.wu.error_mask;
		if (j.wu.canonical_resultid)
			got = db_result_lookup_id(r->c->db, j.wu.canonical_resultid, &res);
		else if (j.wu.id)
			got = db_result_chosen(r->c->db, j.wu.id, &res);
		if (got != DB_OK && got != DB_NOT_FOUND)
			rc = fail(r, "database error");
		sbuf_addf(r->body, "<completed_job>\n<error_mask>%d</error_mask>\n", mask);
		if (!rc && got == DB_OK) {
			const char *tag = j.wu.canonical_resultid ? "canonical_resultid"
								  : "error_resultid";

			sbuf_addf(r->body, "<%s>%lld</%s>\n", tag, (long long)res.id, tag);
			sbuf_addf(r->body, "<exit_status>%d</exit_status>\n<elapsed_time>%f"
				  "</elapsed_time>\n<cpu_time>%f</cpu_time>\n<stderr_out><![CDATA[",
				  res.exit_status, res.elapsed_time, res.cpu_time);
			sbuf_add_xml_escaped(r->body, res.stderr_out ? res.stderr_out : "");
			sbuf_addstr(r->body, "]]></stderr_out>\n");
		}
		sbuf_addstr(r->body, "</completed_job>\n");
		job_free(&j);
	}
	free(name);
	db_result_free(&res);
	return rc;
}

/* ---- abort_jobs, retire_batch, set_expire_time -------------------------------------- */

/*
 * Abort a job: an ordinary one loses what was not sent and is cancelled; a
 * sequence ends in error and its live results are retired, so its host is
 * told to abort them at its next scheduler request.
 */
static int abort_job(struct rpc *r, struct job *j)
{
	if (j->is_seq) {
		if (j->seq.state != SEQ_STATE_ACTIVE)
			return 0;
		j->seq.state = SEQ_STATE_ERROR;
		j->seq.need_relocate = 0;
		free(j->seq.error_msg);
		j->seq.error_msg = xstrdup("aborted by its submitter");
		if (db_result_retire_live(r->c->db, &j->seq.id, 1) != DB_OK ||
		    db_sequence_update(r->c->db, &j->seq) != DB_OK)
			return fail(r, "database error");
		return 0;
	}
	if (j->wu.canonical_resultid)
		return 0;
	j->wu.error_mask |= WU_ERROR_CANCELLED;
	j->wu.transition_time = now();
	if (db_result_cancel_unsent(r->c->db, j->wu.id) != DB_OK ||
	    db_workunit_update(r->c->db, &j->wu) != DB_OK)
		return fail(r, "database error");
	return 0;
}

static int do_abort_jobs(struct rpc *r)
{
	xmlNode *n;
	int rc = authenticate(r), naborted = 0;

	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	xml_for_each(n, r->root, "job_name") {
		char *name = xml_text(n);
		struct job j;

		if (!rc && !(rc = owned_job(r, name, &j))) {
			rc = abort_job(r, &j);
			naborted++;
			job_free(&j);
		}
		free(name);
	}
	if (!rc && db_commit(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (rc && r->c->db)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("%d jobs aborted by user %lld", naborted, (long long)r->user.id);
		sbuf_addstr(r->body, "<success>1</success>\n");
	}
	return rc;
}

static int do_retire_batch(struct rpc *r)
{
	struct db_batch b = { 0 };
	int rc = authenticate(r);

	if (!rc)
		rc = owned_batch(r, r->root, &b);
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (!rc) {
		b.state = BATCH_STATE_RETIRED;
		if (db_batch_retire_jobs(r->c->db, b.id, now()) != DB_OK ||
		    db_batch_update(r->c->db, &b) != DB_OK || db_commit(r->c->db) != DB_OK) {
			db_rollback(r->c->db);
			rc = fail(r, "database error");
		}
	}
	if (!rc) {
		log_info("batch %s (%lld) retired", b.name, (long long)b.id);
		sbuf_addstr(r->body, "<success>1</success>\n");
	}
	db_batch_free(&b);
	return rc;
}

static int do_set_expire_time(struct rpc *r)
{
	struct db_batch b = { 0 };
	double t = child_double(r->root, "expire_time", -1);
	int rc = authenticate(r);

	if (!rc && t < 0)
		rc = fail(r, "no expire_time");
	if (!rc)
		rc = owned_batch(r, r->root, &b);
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = fail(r, "database error");
	if (!rc) {
		/* The lease covers the batch's files too. */
		b.expire_time = t;
		if (db_batch_update(r->c->db, &b) != DB_OK ||
		    db_job_file_lease_batch(r->c->db, b.id, t) != DB_OK ||
		    db_commit(r->c->db) != DB_OK) {
			db_rollback(r->c->db);
			rc = fail(r, "database error");
		}
	}
	if (!rc)
		sbuf_addstr(r->body, "<success>1</success>\n");
	db_batch_free(&b);
	return rc;
}

/* ---- dispatch ---------------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(struct rpc *);
} ops[] = {
	{ "ping", do_ping },
	{ "get_templates", do_get_templates },
	{ "create_batch", do_create_batch },
	{ "query_files", do_query_files },
	{ "upload_files", do_upload_files },
	{ "submit_batch", do_submit_batch },
	{ "query_batch2", do_query_batch2 },
	{ "query_batches", do_query_batches },
	{ "query_completed_job", do_query_completed_job },
	{ "abort_jobs", do_abort_jobs },
	{ "retire_batch", do_retire_batch },
	{ "set_expire_time", do_set_expire_time },
};

static void error_element(struct sbuf *out, const char *msg)
{
	sbuf_addstr(out, "<error>\n    <error_num>-1</error_num>\n    <error_msg>");
	sbuf_add_xml_escaped(out, msg);
	sbuf_addstr(out, "</error_msg>\n</error>\n");
}

void submit_rpc(const struct submit_ctx *c, const struct form *f, struct sbuf *out)
{
	struct sbuf perr = SBUF_INIT(1024), body = SBUF_INIT(1L << 30);
	struct rpc r = { .c = c, .form = f, .body = &body };
	const struct form_part *req = form_get(f, "request");
	xmlDoc *doc = NULL;
	size_t i;
	int rc = -1;

	sbuf_init(&r.err, 4096);
	sbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n");
	if (!req) {
		log_warn("[%s] request without the form field 'request'",
			 c->remote_addr ? c->remote_addr : "?");
		error_element(out, "no request");
		goto out;
	}
	doc = xml_read_memory(req->data, req->len, "request", &perr);
	r.root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!r.root) {
		log_warn("[%s] unparsable request: %s", c->remote_addr ? c->remote_addr : "?",
			 sbuf_str(&perr));
		error_element(out, "cannot parse the request");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (xml_is(r.root, ops[i].name))
			break;
	sbuf_addf(out, "<%s>\n", (const char *)r.root->name);
	if (i == ARRAY_SIZE(ops)) {
		if (xmlStrlen(r.root->name) > 64 || strspn((const char *)r.root->name,
		    "abcdefghijklmnopqrstuvwxyz_0123456789") != (size_t)xmlStrlen(r.root->name)) {
			sbuf_reset(out);
			sbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n");
			error_element(out, "bad command");
			goto out;
		}
		fail(&r, "bad command");
	} else {
		rc = ops[i].fn(&r);
	}
	if (rc) {
		if (!r.err.len)
			fail(&r, "internal error");
		log_warn("[%s] %s: %s", c->remote_addr ? c->remote_addr : "?",
			 (const char *)r.root->name, sbuf_str(&r.err));
		error_element(out, sbuf_str(&r.err));
	} else {
		sbuf_add(out, body.buf, body.len);
	}
	sbuf_addf(out, "</%s>\n", (const char *)r.root->name);
out:
	if (doc)
		xmlFreeDoc(doc);
	db_user_free(&r.user);
	sbuf_free(&r.err);
	sbuf_free(&perr);
	sbuf_free(&body);
}

/* ---- get_output.php ------------------------------------------------------------------ */

static void http_error(FILE *fp, int status, const char *msg)
{
	fprintf(fp, "Status: %d\r\nContent-Type: text/plain\r\n\r\nERROR: %s\n", status, msg);
}

/* The name of output file i of result res (its file_infos in order), allocated. */
static char *output_name(const struct db_result *res, long i)
{
	/* xml_doc_in is a list of elements (file_infos, then <result>): wrap it */
	char *text = xasprintf("<r>%s</r>", res->xml_doc_in ? res->xml_doc_in : "");
	xmlDoc *doc = xml_read_memory(text, strlen(text), "xml_doc_in", NULL);
	char *name = NULL;
	xmlNode *n;

	free(text);
	if (!doc)
		return NULL;
	xml_for_each(n, xmlDocGetRootElement(doc), "file_info") {
		if (i-- == 0) {
			name = xml_child_text(n, "name");
			break;
		}
	}
	xmlFreeDoc(doc);
	return name;
}

/* Output file i of a job, allocated: the canonical result's, or a sequence's (seq_outputs). */
static char *job_output_name(const struct submit_ctx *c, const struct job *j, long i, int *status,
			     const char **why)
{
	struct db_result res = { 0 };
	char *name = NULL;

	*status = 404;
	if (j->is_seq) {
		char *files[2 * SEQ_MAX_FILES];
		size_t n = j->seq.state == SEQ_STATE_ENDED ? seq_outputs(c->cfg, &j->seq, files, NULL)
							   : 0, k;

		*why = j->seq.state == SEQ_STATE_ENDED ? "no such output file" : "job not done";
		for (k = 0; k < n; k++) {
			if ((long)k == i)
				name = files[k];
			else
				free(files[k]);
		}
		return name;
	}
	*why = "job has no canonical result";
	if (!j->wu.canonical_resultid ||
	    db_result_lookup_id(c->db, j->wu.canonical_resultid, &res) != DB_OK)
		return NULL;
	*why = "no such output file";
	name = output_name(&res, i);
	db_result_free(&res);
	return name;
}

void submit_get_output(const struct submit_ctx *c, const struct form *q, FILE *fp)
{
	char *cmd = form_value(q, "cmd"), *auth = form_value(q, "auth_str");
	char *wu_name = form_value(q, "wu_name"), *num = form_value(q, "file_num"), *name = NULL;
	struct db_user user = { 0 };
	struct job j = { 0 };
	struct sbuf path = SBUF_INIT(PATH_MAX);
	long file_num = -1;
	FILE *in = NULL;
	struct stat st;
	const char *why = NULL;
	int status = 0;

	if (!cmd || strcmp(cmd, "workunit_file")) {
		http_error(fp, 400, "unknown or missing cmd");
	} else if (!auth || !wu_name || !num || parse_long(num, &file_num) < 0 || file_num < 0) {
		http_error(fp, 400, "missing or bad auth_str, wu_name or file_num");
	} else if (!c->db) {
		http_error(fp, 503, "the project database is unavailable; try again later");
	} else if (db_user_lookup_auth(c->db, auth, &user) != DB_OK) {
		log_warn("[%s] get_output: bad authenticator", c->remote_addr ? c->remote_addr : "?");
		http_error(fp, 403, "bad authenticator");
	} else if ((status = (int)job_find(c->db, user.id, wu_name, &j)) != JOB_OK) {
		http_error(fp, status == JOB_NOT_OWNER ? 403 : status == JOB_DB_ERROR ? 503 : 404,
			   status == JOB_NOT_OWNER ? "not owner" : status == JOB_DB_ERROR
			   ? "database error" : "no such job");
	} else if (!(name = job_output_name(c, &j, file_num, &status, &why))) {
		http_error(fp, status, why);
	} else if (dirhier_path(name, c->cfg->upload_dir, c->cfg->uldl_dir_fanout, false, &path) ||
		   !(in = fopen(sbuf_str(&path), "rb")) || fstat(fileno(in), &st) < 0) {
		log_error("get_output: output file %s of %s missing", name, wu_name);
		http_error(fp, 404, "output file missing on the server");
	} else {
		char buf[65536];
		size_t n;

		fprintf(fp, "Content-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
			    "Content-Disposition: attachment; filename=\"%s\"\r\n\r\n",
			(long long)st.st_size, name);
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, fp);
	}
	if (in)
		fclose(in);
	fflush(fp);
	sbuf_free(&path);
	free(cmd);
	free(auth);
	free(wu_name);
	free(num);
	free(name);
	db_user_free(&user);
	job_free(&j);
}
