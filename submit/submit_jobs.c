/*
 * The submit RPCs about jobs already made: a job found by name (an
 * ordinary app's workunit or a sequence app's sequence) and its owner,
 * get_templates, query_batch2, query_batches, query_completed_job and
 * abort_jobs.
 */
#include "submit_int.h"
#include "cancel.h"
#include "db.h"
#include "db_queries.h"
#include "db_sched.h"
#include "fileutil.h"
#include "log.h"
#include "sequence.h"
#include "wtime.h"
#include "work.h"
#include "xml_write.h"

/* ---- jobs ---------------------------------------------------------------------------- */

void submit_job_release(struct job *j)
{
	db_workunit_release(&j->wu);
	db_sequence_release(&j->seq);
}

enum job_rc submit_job_find(struct db *db, int64_t user_id, const char *name, struct job *j)
{
	struct db_batch b = { 0 };
	enum job_rc jr;
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
	if (rc == DB_OK) {
		batch = j->is_seq ? j->seq.batch : j->wu.batch;
		rc = batch ? db_batch_lookup_id(db, batch, &b) : DB_NOT_FOUND;
		db_batch_release(&b);
		jr = rc == DB_NOT_FOUND ? JOB_NO_BATCH : rc != DB_OK ? JOB_DB_ERROR
		   : b.user_id == user_id ? JOB_OK : JOB_NOT_OWNER;
	} else {
		jr = rc == DB_NOT_FOUND ? JOB_NONE : JOB_DB_ERROR;
	}
	/* a job found but not the user's is not theirs to see either */
	if (jr != JOB_OK)
		submit_job_release(j);
	return jr;
}

int submit_owned_job(struct rpc *r, const char *name, struct job *j)
{
	switch (submit_job_find(r->c->db, r->user.id, name, j)) {
	case JOB_OK: return 0;
	case JOB_NONE: return submit_fail(r, "no job named %s", name ? name : "");
	case JOB_NOT_OWNER: return submit_fail(r, "not owner of %s", name);
	case JOB_NO_BATCH: return submit_fail(r, "job %s is not in a batch", name);
	default: return submit_db_fail(r);
	}
}

size_t submit_seq_outputs(const struct project_config *cfg, const struct db_sequence *s,
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
	seq_layout_release(&l);
	return n;
}

/* get_templates of a sequence job: the outputs the submitter gets back, by open name. */
static void seq_templates(struct rpc *r, const struct db_sequence *s)
{
	char *files[2 * SEQ_MAX_FILES], *open[2 * SEQ_MAX_FILES];
	size_t n = submit_seq_outputs(r->c->cfg, s, files, open), i;

	sbuf_addstr(r->body, "<templates>\n<input_template>\n</input_template>\n<output_template>\n");
	for (i = 0; i < n; i++)
		sbuf_addf(r->body, "<file_info>\n    <name><OUTFILE_%zu/></name>\n</file_info>\n", i);
	sbuf_addstr(r->body, "<result>\n");
	for (i = 0; i < n; i++) {
		sbuf_addf(r->body, "    <file_ref>\n        <file_name><OUTFILE_%zu/></file_name>\n"
			  "        <open_name>", i);
		xml_add_text(r->body, open[i]);
		sbuf_addstr(r->body, "</open_name>\n    </file_ref>\n");
		free(files[i]);
		free(open[i]);
	}
	sbuf_addstr(r->body, "</result>\n</output_template>\n</templates>\n");
}


/* ---- get_templates -------------------------------------------------------------- */

int submit_do_get_templates(struct rpc *r)
{
	char *app_name = NULL, *job_name = NULL;
	struct db_app app = { 0 };
	struct sbuf in = SBUF_INIT(TEMPLATE_MAX), out = SBUF_INIT(TEMPLATE_MAX);
	char *pin = NULL, *pout = NULL;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_str(r, r->root, "app_name", FIELD_COLUMN_CHARS, &app_name);
	if (!rc)
		rc = submit_str(r, r->root, "job_name", FIELD_COLUMN_CHARS, &job_name);
	if (!rc && job_name && *job_name) {
		struct job j;

		rc = submit_owned_job(r, job_name, &j);
		if (!rc && j.is_seq) {
			seq_templates(r, &j.seq);
			submit_job_release(&j);
			goto out;
		}
		if (!rc && db_app_lookup_id(r->c->db, j.wu.appid, &app) != DB_OK)
			rc = submit_db_fail(r);
		if (!rc)
			submit_job_release(&j);
	} else if (!rc) {
		rc = submit_app_by_name(r, app_name, &app);
	}
	/* an app's templates are for those who may submit to it */
	if (!rc)
		rc = submit_may_submit(r, app.id);
	if (!rc) {
		pin = xasprintf("%s/templates/%s_in", r->c->cfg->project_dir, app.name);
		pout = xasprintf("%s/templates/%s_out", r->c->cfg->project_dir, app.name);
		if (read_file(pin, TEMPLATE_MAX, &in) || read_file(pout, TEMPLATE_MAX, &out))
			rc = submit_fail(r, "template file missing");
	}
	if (!rc) {
		sbuf_addstr(r->body, "<templates>\n");
		sbuf_add(r->body, in.buf, in.len);
		sbuf_add(r->body, out.buf, out.len);
		if (app.any_executable)         /* wseq's: the jobs bring their own executable */
			sbuf_addstr(r->body, "<any_executable>1</any_executable>\n");
		sbuf_addstr(r->body, "</templates>\n");
	}
out:
	free(pin);
	free(pout);
	free(app_name);
	free(job_name);
	sbuf_release(&in);
	sbuf_release(&out);
	db_app_release(&app);
	return rc;
}

/* ---- query_batch2, query_completed_job ---------------------------------------------- */

static int add_job_status(struct db_job_status *s, void *arg)
{
	struct rpc *r = arg;
	const char *status = s->canonical_resultid ? "DONE" : s->error_mask ? "ERROR"
			   : s->nsent ? "IN_PROGRESS" : "UNSENT";

	sbuf_addstr(r->body, "<job><job_name>");
	xml_add_text(r->body, s->name);
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
	xml_add_text(r->body, s->name);
	sbuf_addf(r->body, "</job_name><status>%s</status></job>\n", status);
	r->njobs++;
	return 0;
}

int submit_do_query_batch2(struct rpc *r)
{
	double t = 0, server_time = dnow();
	struct sbuf jobs = SBUF_INIT(1L << 30);
	struct sbuf *body = r->body;
	xmlNode *n;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_num(r, r->root, "min_mod_time", 0, SUBMIT_TIME_MAX, &t);
	if (!rc)
		sbuf_addf(body, "<server_time>%f</server_time>\n", server_time);
	xml_for_each(n, r->root, "batch_name") {
		char *text = xml_text(n), *name = NULL;
		struct db_batch b = { 0 };

		if (!rc)
			rc = submit_text(r, "batch_name", text, FIELD_COLUMN_CHARS, &name);
		if (!rc && (rc = db_batch_lookup_name(r->c->db, name, &b)) == DB_NOT_FOUND)
			rc = submit_fail(r, "no batch named %s", name);
		else if (!rc && rc != DB_OK)
			rc = submit_db_fail(r);
		else if (!rc && b.user_id != r->user.id)
			rc = submit_fail(r, "not owner of %s", name);
		if (!rc) {
			/* the jobs first, to count them */
			sbuf_reset(&jobs);
			r->body = &jobs;
			r->njobs = 0;
			if (db_job_status_enum_batch(r->c->db, b.id, t, add_job_status, r) != DB_OK ||
			    db_sequence_enum_batch(r->c->db, b.id, t, add_seq_status, r) != DB_OK)
				rc = submit_db_fail(r);
			r->body = body;
			sbuf_addf(body, "<batch_size>%zu</batch_size>\n", r->njobs);
			sbuf_add(body, jobs.buf, jobs.len);
		}
		db_batch_release(&b);
		free(name);
		free(text);
	}
	sbuf_release(&jobs);
	return rc;
}

int submit_batch_progress(struct rpc *r, const struct db_batch *b, int64_t *done, int64_t *err)
{
	struct db_val v[] = { DBV_INT(b->id) };
	int64_t sdone = 0, serr = 0;

	*done = *err = 0;
	if (db_workunit_count(r->c->db, "WHERE batch=? AND seq_id=0 AND canonical_resultid>0", v, 1,
			      done) != DB_OK ||
	    db_workunit_count(r->c->db, "WHERE batch=? AND seq_id=0 AND canonical_resultid=0 "
			      "AND error_mask<>0", v, 1, err) != DB_OK ||
	    db_sequence_count(r->c->db, "WHERE batch=? AND state=1", v, 1, &sdone) != DB_OK ||
	    db_sequence_count(r->c->db, "WHERE batch=? AND state=2", v, 1, &serr) != DB_OK)
		return submit_db_fail(r);
	*done += sdone;
	*err += serr;
	return 0;
}

/* stderr_out goes entity-escaped inside CDATA: the clients unescape after reading the CDATA. */
int submit_do_query_completed_job(struct rpc *r)
{
	char *name = NULL;
	struct job j;
	struct db_result res = { 0 };
	int rc = submit_authenticate(r), got = DB_NOT_FOUND, mask;

	if (!rc)
		rc = submit_str(r, r->root, "job_name", FIELD_COLUMN_CHARS, &name);
	if (!rc)
		rc = submit_owned_job(r, name, &j);
	if (!rc) {
		/*
		 * A sequence is done when it has ended: its last segment was
		 * reported with its files uploaded, whether or not the validator
		 * has looked at it yet (query_batch2 says DONE from then on). Until
		 * it ends or fails no result is named, so the job reads not done.
		 */
		bool done = j.is_seq ? j.seq.state == SEQ_STATE_ENDED : j.wu.canonical_resultid != 0;
		bool over = !j.is_seq || j.seq.state != SEQ_STATE_ACTIVE;

		mask = j.is_seq ? (j.seq.state == SEQ_STATE_ERROR ? WU_ERROR_NO_CANONICAL_RESULT : 0)
				: j.wu.error_mask;
		if (over && j.wu.canonical_resultid)
			got = db_result_lookup_id(r->c->db, j.wu.canonical_resultid, &res);
		else if (over && j.wu.id)
			got = db_result_chosen(r->c->db, j.wu.id, &res);
		if (got != DB_OK && got != DB_NOT_FOUND)
			rc = submit_db_fail(r);
		sbuf_addf(r->body, "<completed_job>\n<error_mask>%d</error_mask>\n", mask);
		if (!rc && got == DB_OK) {
			const char *tag = done ? "canonical_resultid" : "error_resultid";

			xml_elem_i64(r->body, 0, tag, res.id);
			sbuf_addf(r->body, "<exit_status>%d</exit_status>\n<elapsed_time>%f"
				  "</elapsed_time>\n<cpu_time>%f</cpu_time>\n<stderr_out><![CDATA[",
				  res.exit_status, res.elapsed_time, res.cpu_time);
			xml_add_text(r->body, res.stderr_out ? res.stderr_out : "");
			sbuf_addstr(r->body, "]]></stderr_out>\n");
		}
		sbuf_addstr(r->body, "</completed_job>\n");
		submit_job_release(&j);
	}
	free(name);
	db_result_release(&res);
	return rc;
}

/* ---- abort_jobs, retire_batch, set_expire_time -------------------------------------- */

/* Abort a job (cancel.h): a sequence ends in error and its host is told; a workunit is cancelled. */
static int abort_job(struct rpc *r, struct job *j, struct cancel_count *n)
{
	int rc = j->is_seq
		? cancel_sequence_in(r->c->db, j->seq.id, "aborted by its submitter", now(), n)
		: cancel_workunit_in(r->c->db, j->wu.id, "aborted by its submitter", now(), n);

	return rc == DB_OK || rc == DB_NOT_FOUND ? 0 : submit_db_fail(r);
}

int submit_do_abort_jobs(struct rpc *r)
{
	xmlNode *n;
	struct cancel_count cn = { 0 };
	int rc = submit_authenticate(r), naborted = 0;

	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	xml_for_each(n, r->root, "job_name") {
		char *text = xml_text(n), *name = NULL;
		struct job j;

		if (!rc)
			rc = submit_text(r, "job_name", text, FIELD_COLUMN_CHARS, &name);
		if (!rc && !(rc = submit_owned_job(r, name, &j))) {
			rc = abort_job(r, &j, &cn);
			naborted++;
			submit_job_release(&j);
		}
		free(name);
		free(text);
	}
	if (!rc && db_commit(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	if (rc && r->c->db)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("%d jobs aborted by user %lld: %" PRId64 " workunits and %" PRId64
			 " sequences cancelled, %" PRId64 " finished before", naborted,
			 (long long)r->user.id, cn.workunits, cn.sequences, cn.already);
		sbuf_addstr(r->body, "<success>1</success>\n");
	}
	return rc;
}
