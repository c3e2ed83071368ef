/*
 * The submit RPCs of lib/submit_api.py that boinc_gahp does not make:
 * query_batch (a batch's parameters and its jobs, with details on asking),
 * query_job (a job's instances and their output files), abort_batch (one
 * cancel mechanism, backend/cancel.h) and estimate_batch (how long a
 * batch would take on the hosts that contact the project now).
 */
#include "submit_int.h"
#include "cancel.h"
#include "db.h"
#include "db_cancel.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "sequence.h"
#include "template.h"
#include "wtime.h"
#include "xml_write.h"

#include <sys/stat.h>

/* ---- query_batch ---------------------------------------------------------------------- */

struct qb {
	struct rpc *r;
	bool details;
	int rc;
};

/* get_job_details of an ordinary job: its errors, instances' exit codes and CPU time, status. */
static int job_details(struct rpc *r, const struct db_job_status *s)
{
	struct db_result_list l = { 0 };
	int in_progress = 0, bit;
	size_t i;

	for (bit = 1; bit <= WU_ERROR_LAST; bit <<= 1)
		if (s->error_mask & bit)
			sbuf_addf(r->body, "        <error>%s</error>\n", wu_error_name(bit));
	if (db_result_enum_workunit(r->c->db, s->id, db_result_list_take, &l) != DB_OK)
		return submit_db_fail(r);
	for (i = 0; i < l.n; i++) {
		const struct db_result *res = &l.v[i];

		in_progress += res->server_state == RESULT_SERVER_STATE_IN_PROGRESS;
		if (s->error_mask && res->outcome == RESULT_OUTCOME_CLIENT_ERROR)
			sbuf_addf(r->body, "        <exit_status>%d</exit_status>\n", res->exit_status);
		if (res->id == s->canonical_resultid)
			sbuf_addf(r->body, "        <cpu_time>%f</cpu_time>\n", res->cpu_time);
	}
	db_result_list_release(&l);
	sbuf_addf(r->body, "        <status>%s</status>\n", s->error_mask ? "error"
		  : s->canonical_resultid ? "done" : in_progress ? "in_progress" : "queued");
	return 0;
}

static int add_job(struct db_job_status *s, void *arg)
{
	struct qb *q = arg;
	struct rpc *r = q->r;

	sbuf_addf(r->body, "    <job>\n        <id>%lld</id>\n        <name>", (long long)s->id);
	xml_add_text(r->body, s->name);
	sbuf_addf(r->body, "</name>\n        <canonical_instance_id>%lld</canonical_instance_id>\n",
		  (long long)s->canonical_resultid);
	if (q->details && job_details(r, s)) {
		q->rc = -1;
		return 1;
	}
	sbuf_addstr(r->body, "    </job>\n");
	return 0;
}

/*
 * A sequence app's job: its id is that of the segment that speaks for it
 * (as query_completed_job's), its instance that segment's canonical one
 * once the sequence has ended.
 */
static int add_seq_job(struct db_sequence *s, void *arg)
{
	struct qb *q = arg;
	struct rpc *r = q->r;
	struct db_workunit wu = { 0 };
	int k = s->state == SEQ_STATE_ENDED ? s->nsegments : s->first_unsent_seqno - 1;
	int rc = db_workunit_lookup_segment(r->c->db, s->id, s->branch, k > 0 ? k : 1, &wu);

	if (rc != DB_OK && rc != DB_NOT_FOUND) {
		q->rc = submit_db_fail(r);
		return 1;
	}
	sbuf_addf(r->body, "    <job>\n        <id>%lld</id>\n        <name>", (long long)wu.id);
	xml_add_text(r->body, s->name);
	sbuf_addf(r->body, "</name>\n        <canonical_instance_id>%lld</canonical_instance_id>\n",
		  s->state == SEQ_STATE_ENDED ? (long long)wu.canonical_resultid : 0LL);
	if (q->details)
		sbuf_addf(r->body, "        <status>%s</status>\n",
			  s->state == SEQ_STATE_ENDED ? "done" : s->state == SEQ_STATE_ERROR ? "error"
			  : s->hostid || s->first_unsent_seqno > 1 ? "in_progress" : "queued");
	sbuf_addstr(r->body, "    </job>\n");
	db_workunit_release(&wu);
	return 0;
}

/* A flag of the request: <get_cpu_time>1</get_cpu_time>; absent or 0 is no. */
static int flag(struct rpc *r, const char *name, bool *on)
{
	int64_t v = 0;

	if (submit_int(r, r->root, name, 0, INT32_MAX, &v))
		return -1;
	*on = v != 0;
	return 0;
}

/*
 * The batch's counts now (fraction_done, nerror_jobs) in b; a batch in
 * progress whose every job is over becomes COMPLETE, with its completion
 * time now (upstream's get_batch_params: when it is queried). Returns 1
 * when b became COMPLETE, so the caller writes it.
 */
int submit_batch_count(struct rpc *r, struct db_batch *b)
{
	int64_t done = 0, err = 0;

	if (b->state == BATCH_STATE_INIT)
		return 0;
	if (submit_batch_progress(r, b, &done, &err))
		return -1;
	b->fraction_done = b->njobs ? (double)(done + err) / b->njobs : 0;
	b->nerror_jobs = (int)err;
	if (b->state == BATCH_STATE_IN_PROGRESS && b->njobs > 0 && done + err >= b->njobs) {
		b->state = BATCH_STATE_COMPLETE;
		b->completion_time = (double)now();
		return 1;
	}
	return 0;
}

int submit_batch_settle(struct rpc *r, struct db_batch *b)
{
	int64_t id = b->id;
	int rc = 0;

	if (db_begin(r->c->db) != DB_OK)
		return submit_db_fail(r);
	/* the row as it is now, locked: what is written back is not a stale copy */
	if (db_batch_lock(r->c->db, id, b) != DB_OK || submit_batch_count(r, b) < 0 ||
	    db_batch_update(r->c->db, b) != DB_OK || db_commit(r->c->db) != DB_OK)
		rc = -1;
	if (rc) {
		db_rollback(r->c->db);
		return r->err.len ? -1 : submit_db_fail(r);
	}
	if (b->state == BATCH_STATE_COMPLETE)
		log_info("batch %s (%lld): complete", b->name, (long long)b->id);
	return 0;
}

/*
 * A batch as query_batch and query_batches report it (upstream's
 * print_batch_params): one in progress counted now (and COMPLETE, written,
 * once all its jobs are over); a finished one as it was when it ended.
 */
int submit_batch_params(struct rpc *r, struct db_batch *b, bool cpu)
{
	struct db_app app = { 0 };
	int rc = 0;

	if (b->state == BATCH_STATE_IN_PROGRESS) {
		rc = submit_batch_count(r, b);
		if (rc > 0)
			rc = submit_batch_settle(r, b);
		if (rc < 0)
			return -1;
	}
	if (db_app_lookup_id(r->c->db, b->app_id, &app) == DB_ERROR)
		return submit_db_fail(r);
	sbuf_addf(r->body, "    <id>%lld</id>\n    <create_time>%lld</create_time>\n"
		  "    <expire_time>%f</expire_time>\n"
		  "    <est_completion_time>%f</est_completion_time>\n"
		  "    <njobs>%d</njobs>\n    <fraction_done>%f</fraction_done>\n"
		  "    <nerror_jobs>%d</nerror_jobs>\n    <state>%d</state>\n"
		  "    <completion_time>%f</completion_time>\n"
		  "    <credit_estimate>%f</credit_estimate>\n"
		  "    <credit_canonical>%f</credit_canonical>\n    <name>",
		  (long long)b->id, (long long)b->create_time, b->expire_time,
		  b->est_completion_time, b->njobs, b->fraction_done, b->nerror_jobs, b->state,
		  b->completion_time, b->credit_estimate, b->credit_canonical);
	xml_add_text(r->body, b->name ? b->name : "");
	sbuf_addstr(r->body, "</name>\n    <app_name>");
	xml_add_text(r->body, app.name ? app.name : "none");
	sbuf_addstr(r->body, "</app_name>\n");
	db_app_release(&app);
	if (cpu) {
		struct db_sum s;

		if (db_batch_cpu_time(r->c->db, b->id, &s) != DB_OK)
			return submit_db_fail(r);
		sbuf_addf(r->body, "    <total_cpu_time>%f</total_cpu_time>\n", s.sum);
	}
	return 0;
}

int submit_do_query_batch(struct rpc *r)
{
	struct db_batch b = { 0 };
	struct qb q = { .r = r };
	bool cpu = false;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = flag(r, "get_cpu_time", &cpu);
	if (!rc)
		rc = flag(r, "get_job_details", &q.details);
	if (!rc)
		rc = submit_owned_batch(r, r->root, &b);
	if (!rc)
		rc = submit_batch_params(r, &b, cpu);
	if (!rc && (db_job_status_enum_batch(r->c->db, b.id, 0, add_job, &q) != DB_OK ||
		    (!q.rc && db_sequence_enum_batch(r->c->db, b.id, 0, add_seq_job, &q) != DB_OK)))
		rc = submit_db_fail(r);
	db_batch_release(&b);
	return rc ? rc : q.rc;
}

/* query_batches: the user's batches but retired ones, as query_batch reports them. */
struct batch_list {
	struct rpc *r;
	bool cpu;
	int rc;
};

static int add_batch(struct db_batch *b, void *arg)
{
	struct batch_list *l = arg;

	if (b->state == BATCH_STATE_RETIRED)
		return 0;
	sbuf_addstr(l->r->body, "<batch>\n");
	if (submit_batch_params(l->r, b, l->cpu)) {
		l->rc = -1;
		return 1;
	}
	sbuf_addstr(l->r->body, "</batch>\n");
	return 0;
}

int submit_do_query_batches(struct rpc *r)
{
	struct batch_list l = { r, false, 0 };
	int rc = submit_authenticate(r);

	if (!rc)
		rc = flag(r, "get_cpu_time", &l.cpu);
	if (!rc && db_batch_enum_user(r->c->db, r->user.id, add_batch, &l) != DB_OK)
		rc = l.rc ? l.rc : submit_db_fail(r);
	return rc ? rc : l.rc;
}

/* ---- query_job ------------------------------------------------------------------------ */

/* upstream's words for an instance's state (the web pages' too) */
static const char *instance_state(const struct db_result *res)
{
	switch (res->server_state) {
	case RESULT_SERVER_STATE_INACTIVE: return "Inactive";
	case RESULT_SERVER_STATE_UNSENT: return "Unsent";
	case RESULT_SERVER_STATE_IN_PROGRESS: return "In progress";
	case RESULT_SERVER_STATE_OVER: break;
	default: return "Unknown";
	}
	switch (res->outcome) {
	case RESULT_OUTCOME_SUCCESS:
		switch (res->validate_state) {
		case VALIDATE_STATE_INIT: return "Completed, waiting for validation";
		case VALIDATE_STATE_VALID: return "Completed and validated";
		case VALIDATE_STATE_INVALID: return "Completed, marked as invalid";
		case VALIDATE_STATE_NO_CHECK: return "Completed, can't validate";
		case VALIDATE_STATE_INCONCLUSIVE: return "Completed, validation inconclusive";
		case VALIDATE_STATE_TOO_LATE: return "Completed, too late to validate";
		default: return "Completed";
		}
	case RESULT_OUTCOME_COULDNT_SEND: return "Couldn't send";
	case RESULT_OUTCOME_CLIENT_ERROR:
		if (res->exit_status == -221 || res->exit_status == 202)
			return "Cancelled by server";
		if (res->exit_status == -233 || res->exit_status == 200)
			return "Not started by deadline - canceled";
		switch (res->client_state) {
		case RESULT_FILES_DOWNLOADING: return "Error while downloading";
		case RESULT_FILES_DOWNLOADED:
		case RESULT_COMPUTE_ERROR: return "Error while computing";
		case RESULT_FILES_UPLOADING: return "Error while uploading";
		case RESULT_ABORTED: return "Aborted";
		case RESULT_UPLOAD_FAILED: return "Upload failed";
		default: return "Error";
		}
	case RESULT_OUTCOME_NO_REPLY: return "Timed out - no response";
	case RESULT_OUTCOME_DIDNT_NEED: return "Didn't need";
	case RESULT_OUTCOME_VALIDATE_ERROR: return "Validate error";
	case RESULT_OUTCOME_CLIENT_DETACHED: return "Abandoned";
	default: return "Unknown";
	}
}

/* The sizes of an ended instance's output files that are on the server. */
static void instance_outfiles(struct rpc *r, const struct db_result *res)
{
	struct outfiles o;
	size_t i;

	if (submit_result_outfiles(res, &o) < 0)
		return;
	for (i = 0; i < o.n; i++) {
		struct sbuf path = SBUF_INIT(PATH_MAX);
		struct stat st;

		if (!dirhier_path(o.v[i].phys, r->c->cfg->upload_dir, r->c->cfg->uldl_dir_fanout,
				  false, &path) && stat(sbuf_str(&path), &st) == 0 && S_ISREG(st.st_mode))
			sbuf_addf(r->body, "        <outfile>\n            <size>%lld</size>\n"
				  "        </outfile>\n", (long long)st.st_size);
		sbuf_release(&path);
	}
	submit_outfiles_release(&o);
}

int submit_do_query_job(struct rpc *r)
{
	struct db_workunit wu = { 0 };
	struct db_batch b = { 0 };
	struct db_result_list l = { 0 };
	int64_t id = 0;
	size_t i;
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_int(r, r->root, "job_id", 1, INT64_MAX, &id);
	if (!rc && id <= 0)
		rc = submit_fail(r, "job not specified");
	if (!rc && (rc = db_workunit_lookup_id(r->c->db, id, &wu)) == DB_NOT_FOUND)
		rc = submit_fail(r, "no such job");
	else if (!rc && rc != DB_OK)
		rc = submit_db_fail(r);
	if (!rc && (rc = wu.batch ? db_batch_lookup_id(r->c->db, wu.batch, &b) : DB_NOT_FOUND) ==
	    DB_NOT_FOUND)
		rc = submit_fail(r, "not owner");       /* a job outside batches is nobody's */
	else if (!rc && rc != DB_OK)
		rc = submit_db_fail(r);
	else if (!rc && b.user_id != r->user.id)
		rc = submit_fail(r, "not owner");
	if (!rc && db_result_enum_workunit(r->c->db, wu.id, db_result_list_take, &l) != DB_OK)
		rc = submit_db_fail(r);
	for (i = 0; !rc && i < l.n; i++) {
		const struct db_result *res = &l.v[i];

		sbuf_addstr(r->body, "    <instance>\n        <name>");
		xml_add_text(r->body, res->name);
		sbuf_addf(r->body, "</name>\n        <id>%lld</id>\n        <state>",
			  (long long)res->id);
		xml_add_text(r->body, instance_state(res));
		sbuf_addstr(r->body, "</state>\n");
		if (res->server_state == RESULT_SERVER_STATE_OVER)
			instance_outfiles(r, res);
		sbuf_addstr(r->body, "    </instance>\n");
	}
	db_result_list_release(&l);
	db_workunit_release(&wu);
	db_batch_release(&b);
	return rc;
}

/* ---- abort_batch ---------------------------------------------------------------------- */

/* abort_batch: its counts as it ends are kept (query_batch reports them from then on). */
int submit_do_abort_batch(struct rpc *r)
{
	struct db_batch b = { 0 };
	struct cancel_count n = { 0 };
	int rc = submit_authenticate(r);

	if (!rc)
		rc = submit_owned_batch(r, r->root, &b);
	if (!rc) {
		switch (cancel_batch(r->c->db, b.id, "its batch was aborted by its submitter", &n)) {
		case CANCEL_OK:
		case CANCEL_ALREADY:
			log_info("batch %s (%lld) aborted by its submitter: %" PRId64 " workunits and %"
				 PRId64 " sequences cancelled, %" PRId64 " results not sent",
				 b.name, (long long)b.id, n.workunits, n.sequences, n.results);
			if (submit_batch_settle(r, &b) == 0)
				sbuf_addstr(r->body, "<success>1</success>\n");
			else
				rc = -1;
			break;
		case CANCEL_NOT_FOUND:
			rc = submit_fail(r, "no such batch");
			break;
		default:
			rc = submit_db_fail(r);
		}
	}
	db_batch_release(&b);
	return rc;
}

/* ---- estimate_batch ------------------------------------------------------------------- */

/*
 * Hosts count as the project's when their last scheduler RPC is this
 * recent and they have a track record (credit); their speed is the median
 * host's (db_host_capacity), so no host's own claim sets the estimate.
 */
#define ESTIMATE_HOST_WINDOW (24 * 3600)
/* With no such host: one of 1 GFLOPS, as upstream assumes for a project without credit. */
#define ESTIMATE_MIN_FLOPS 1e9

/*
 * The FLOPs a job of the app takes when the request does not say: the
 * input template's rsc_fpops_est, or for a sequence app the plan's times
 * its segments. *per_job 0: neither says.
 */
static int app_fpops(struct rpc *r, const struct db_app *app, double *per_job, int *segments)
{
	struct sbuf err = SBUF_INIT(1024);
	struct seq_spec plan;
	struct input_template t;
	char *path;
	int rc;

	*per_job = 0;
	*segments = 1;
	memset(&plan, 0, sizeof(plan));
	rc = seq_app_plan_load(r->c->cfg->project_dir, app->name, &plan, &err);
	if (rc < 0) {
		rc = submit_fail(r, "the sequence plan of app %s is wrong: %s", app->name,
				 sbuf_str(&err));
	} else if (rc > 0) {
		*per_job = plan.rsc_fpops_est > 0 ? plan.rsc_fpops_est : 0;
		*segments = plan.segments > 0 ? plan.segments : 1;
		free((char *)plan.seq_template);
		rc = 0;
	} else {
		path = xasprintf("%s/templates/%s_in", r->c->cfg->project_dir, app->name);
		if (input_template_load(path, &t) < 0) {
			rc = submit_fail(r, "template file missing");
		} else {
			*per_job = t.params.rsc_fpops_est > 0 ? t.params.rsc_fpops_est : 0;
			input_template_release(&t);
		}
		free(path);
	}
	sbuf_release(&err);
	return rc;
}

int submit_do_estimate_batch(struct rpc *r)
{
	const xmlNode *bn = xml_child(r->root, "batch"), *job;
	struct db_app app = { 0 };
	struct db_sum hosts;
	char *app_name = NULL;
	double tpl = 0, batch_jp = 0, total = 0, flops;
	int segments = 1, rc = submit_authenticate(r);
	size_t njobs = 0;

	if (!rc && !bn)
		rc = submit_fail(r, "no batch in the request");
	if (!rc)
		rc = submit_str(r, bn, "app_name", FIELD_COLUMN_CHARS, &app_name);
	if (!rc)
		rc = submit_app_by_name(r, app_name, &app);
	if (!rc)
		rc = submit_may_submit(r, app.id);
	if (!rc)
		rc = app_fpops(r, &app, &tpl, &segments);
	if (!rc && xml_child(bn, "job_params"))
		rc = submit_num(r, xml_child(bn, "job_params"), "rsc_fpops_est", 0, FPOPS_MAX,
				&batch_jp);
	xml_for_each(job, bn, "job") {
		double own = 0;

		if (!rc)
			rc = submit_num(r, job, "rsc_fpops_est", 0, FPOPS_MAX, &own);
		if (!rc && own <= 0)
			own = batch_jp > 0 ? batch_jp : tpl;
		if (!rc && own <= 0)
			rc = submit_fail(r, "no rsc_fpops_est given for job %zu", njobs);
		total += own * segments;
		njobs++;
	}
	if (!rc && db_host_capacity(r->c->db, (int64_t)now() - ESTIMATE_HOST_WINDOW, &hosts) != DB_OK)
		rc = submit_db_fail(r);
	if (!rc) {
		flops = hosts.n > 0 && hosts.sum > 0 ? hosts.sum : ESTIMATE_MIN_FLOPS;
		log_info("estimate_batch of user %lld: %zu jobs, %g FLOPs, %lld tracked hosts of %g "
			 "FLOPS",
			 (long long)r->user.id, njobs, total, (long long)hosts.n, hosts.sum);
		sbuf_addf(r->body, "<seconds>%f</seconds>\n", total / flops);
	}
	free(app_name);
	db_app_release(&app);
	return rc;
}
