/*
 * transitioner: moves each workunit whose transition_time has come to its
 * next state, as BOINC's transitioner does. It times out results past their
 * deadline, creates results until enough are unsent, in progress or
 * successful (target_nresults, never beyond max_total_results), sets the
 * error bits when the limits are passed, flags the workunit for the
 * validator (need_validate) and the assimilator (assimilate_state READY),
 * and after assimilation releases input and output files to the file
 * deleter. It sets the next transition_time to the earliest deadline of a
 * result in progress.
 *
 * Each workunit is one transaction under the workunit's and its results'
 * row locks: killed at any point, the transaction rolls back and the next
 * run decides again from the rows as they are.
 */
#include "daemon.h"
#include "db_sched.h"
#include "db_daemons.h"
#include "log.h"
#include "sequence.h"
#include "work.h"
#include "wtime.h"

#include <signal.h>

/* Far future: a workunit with nothing pending is never looked at by time. */
#define TRANSITION_NEVER ((int64_t)1 << 62)
/* A workunit whose transition failed (say, a missing template) waits this long. */
#define FAILED_DELAY 3600
/* workunit.transitioner_flags: BOINC's TRANSITION_NO_NEW_RESULTS (assigned jobs). */
#define TRANSITION_NO_NEW_RESULTS 1

struct tr_settings {
	long batch;
	long daily_result_quota;
};

static struct tr_settings settings;

static const struct param tr_params[] = {
	{ "batch", PARAM_INT, offsetof(struct tr_settings, batch), "500", PARAM_BOUNDED, 1, 100000,
	  "N", "workunits read per query" },
	{ "daily_result_quota", PARAM_INT, offsetof(struct tr_settings, daily_result_quota), "0",
	  PARAM_BOUNDED, 0, 1e6, "N",
	  "the scheduler's daily quota per CPU (config.xml): a host whose job times out has its "
	  "own halved, as an error reported does (0: no quota)" },
	PARAM_TABLE_END
};


/* One workunit's transition: what db_txn_run passes around. */
struct tr_job {
	const struct daemon_ctx *ctx;
	int64_t wuid;
	int64_t t;              /* now() for this workunit */
	int ncreated;
	bool failed;            /* a failure that is not the database's (logged) */
};

/* Counts of a workunit's results (BOINC's names). */
struct tr_counts {
	int ntotal, nunsent, ninprogress, nover, nsuccess, nerrors, ncouldnt_send, nno_reply,
		ndidnt_need;
	bool have_new;          /* a successful result waits for the validator */
	bool canon_missing;     /* nothing to validate against: don't ask the validator */
};

/*
 * Tests kill the transitioner between two statements of a transaction:
 * WSEQ_TEST_TRANSITIONER_KILL=N sends it SIGKILL after its Nth new result.
 */
static void test_kill_point(void)
{
	daemon_test_kill_point("WSEQ_TEST_TRANSITIONER_KILL");
}


/* Count the results, timing out those past their deadline (changed[i], timed_out[i] set). */
static void count_results(const struct db_workunit *wu, struct db_result_list *rs, bool *changed,
			  bool *timed_out, int64_t t, struct tr_counts *c)
{
	const struct db_result *canon = NULL;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < rs->n; i++)
		if (wu->canonical_resultid && rs->v[i].id == wu->canonical_resultid)
			canon = &rs->v[i];
	if (wu->canonical_resultid && !canon) {
		log_error("[WU#%" PRId64 " %s] canonical result %" PRId64 " not found", wu->id,
			  wu->name, wu->canonical_resultid);
		c->canon_missing = true;
	}
	for (i = 0; i < rs->n; i++) {
		struct db_result *r = &rs->v[i];

		c->ntotal++;
		switch (r->server_state) {
		case RESULT_SERVER_STATE_INACTIVE:
		case RESULT_SERVER_STATE_UNSENT:
			c->nunsent++;
			break;
		case RESULT_SERVER_STATE_IN_PROGRESS:
			/* any result times out by the rule of a late segment (seq_policy.h) */
			if (seq_policy_segment_late(&(struct seg_view){ .status = SEG_IN_PROGRESS,
					.deadline = (double)r->report_deadline }, (double)t)) {
				log_info("[WU#%" PRId64 " %s] [RESULT#%" PRId64 " %s] timed out: "
					 "server_state IN_PROGRESS=>OVER, outcome NO_REPLY",
					 wu->id, wu->name, r->id, r->name);
				r->server_state = RESULT_SERVER_STATE_OVER;
				r->outcome = RESULT_OUTCOME_NO_REPLY;
				changed[i] = true;
				timed_out[i] = true;
				c->nover++;
				c->nno_reply++;
			} else {
				c->ninprogress++;
			}
			break;
		case RESULT_SERVER_STATE_OVER:
			c->nover++;
			switch (r->outcome) {
			case RESULT_OUTCOME_COULDNT_SEND:
				c->ncouldnt_send++;
				break;
			case RESULT_OUTCOME_SUCCESS:
				if (r->validate_state == VALIDATE_STATE_INIT) {
					if (canon && canon->file_delete_state == FILE_DELETE_DONE) {
						/* nothing left to compare it with */
						r->validate_state = VALIDATE_STATE_TOO_LATE;
						changed[i] = true;
					} else {
						c->have_new = true;
					}
				}
				if (r->validate_state != VALIDATE_STATE_INVALID)
					c->nsuccess++;
				break;
			case RESULT_OUTCOME_CLIENT_ERROR:
			case RESULT_OUTCOME_VALIDATE_ERROR:
				c->nerrors++;
				break;
			case RESULT_OUTCOME_CLIENT_DETACHED:
			case RESULT_OUTCOME_NO_REPLY:
				c->nno_reply++;
				break;
			case RESULT_OUTCOME_DIDNT_NEED:
				c->ndidnt_need++;
				break;
			}
			break;
		}
	}
}

/* Set the error bits; returns how many new results are needed. */
static int check_limits(struct db_workunit *wu, const struct tr_counts *c)
{
	int needed = wu->target_nresults - c->nunsent - c->ninprogress - c->nsuccess;
	int allowed = wu->max_total_results - c->ntotal;

	if (c->ncouldnt_send > 0)
		wu->error_mask |= WU_ERROR_COULDNT_SEND_RESULT;
	if (c->nerrors > wu->max_error_results) {
		log_info("[WU#%" PRId64 " %s] too many errors (%d errors of %d results)", wu->id,
			 wu->name, c->nerrors, c->ntotal);
		wu->error_mask |= WU_ERROR_TOO_MANY_ERROR_RESULTS;
	}
	/* the validator has judged every success and still found no consensus */
	if (!wu->canonical_resultid && !c->have_new && c->nsuccess > wu->max_success_results) {
		log_info("[WU#%" PRId64 " %s] too many successful results (%d) without consensus",
			 wu->id, wu->name, c->nsuccess);
		wu->error_mask |= WU_ERROR_TOO_MANY_SUCCESS_RESULTS;
	}
	if (needed < 0)
		needed = 0;
	if (wu->canonical_resultid)
		return 0;
	if (allowed < 0 || (allowed == 0 && needed > 0)) {
		log_info("[WU#%" PRId64 " %s] too many total results (%d)", wu->id, wu->name,
			 c->ntotal);
		wu->error_mask |= WU_ERROR_TOO_MANY_TOTAL_RESULTS;
		return 0;
	}
	return needed < allowed ? needed : allowed;
}

/* The workunit is over (error or canonical result): no more sending, no more validating. */
static void close_results(const struct db_workunit *wu, struct db_result_list *rs, bool *changed)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct db_result *r = &rs->v[i];

		if (r->server_state == RESULT_SERVER_STATE_UNSENT ||
		    r->server_state == RESULT_SERVER_STATE_INACTIVE) {
			log_info("[WU#%" PRId64 " %s] [RESULT#%" PRId64 " %s] server_state "
				 "UNSENT=>OVER, outcome DIDNT_NEED", wu->id, wu->name, r->id, r->name);
			r->server_state = RESULT_SERVER_STATE_OVER;
			r->outcome = RESULT_OUTCOME_DIDNT_NEED;
			changed[i] = true;
		} else if (wu->error_mask && r->server_state == RESULT_SERVER_STATE_OVER &&
			   r->outcome == RESULT_OUTCOME_SUCCESS &&
			   (r->validate_state == VALIDATE_STATE_INIT ||
			    r->validate_state == VALIDATE_STATE_INCONCLUSIVE)) {
			r->validate_state = VALIDATE_STATE_NO_CHECK;
			changed[i] = true;
		}
	}
}

/* Every result over, and every success judged by the validator. */
static bool all_over_and_validated(const struct db_result_list *rs, int64_t t)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct db_result *r = &rs->v[i];

		if (r->server_state != RESULT_SERVER_STATE_OVER)
			return false;
		if (r->outcome == RESULT_OUTCOME_SUCCESS && r->validate_state == VALIDATE_STATE_INIT)
			return false;
		if (r->outcome == RESULT_OUTCOME_NO_REPLY && t < r->report_deadline)
			return false;
	}
	return true;
}

/*
 * After assimilation: the inputs go when every result is over and judged;
 * outputs of errors, of judged successes and of results that timed out (a
 * host that vanished between upload and report leaves its files) go at
 * once, the canonical result's only with the inputs (a late result is
 * compared with it). A result never sent has no files. A job
 * of a live remote-submission batch keeps its inputs and canonical outputs
 * until the batch is retired: its submitter fetches them (get_output.php).
 */
static void release_files(struct db_workunit *wu, struct db_result_list *rs, bool *changed, bool all_over,
			  bool keep)
{
	size_t i;

	if (keep)
		all_over = false;
	if (all_over && wu->file_delete_state == FILE_DELETE_INIT) {
		log_debug("[WU#%" PRId64 " %s] file_delete_state =>READY", wu->id, wu->name);
		wu->file_delete_state = FILE_DELETE_READY;
	}
	for (i = 0; i < rs->n; i++) {
		struct db_result *r = &rs->v[i];
		bool del = false;

		if (r->id == wu->canonical_resultid && !all_over)
			continue;
		switch (r->outcome) {
		case RESULT_OUTCOME_CLIENT_ERROR:
		case RESULT_OUTCOME_VALIDATE_ERROR:
		case RESULT_OUTCOME_NO_REPLY:
		case RESULT_OUTCOME_CLIENT_DETACHED:
			del = true;
			break;
		case RESULT_OUTCOME_SUCCESS:
			del = r->validate_state != VALIDATE_STATE_INIT;
			break;
		}
		if (del && r->server_state == RESULT_SERVER_STATE_OVER &&
		    r->file_delete_state == FILE_DELETE_INIT) {
			r->file_delete_state = FILE_DELETE_READY;
			changed[i] = true;
		}
	}
}

static int64_t next_transition(const struct db_workunit *wu, const struct db_result_list *rs, int64_t t)
{
	int64_t next;
	size_t i;

	if (wu->canonical_resultid || wu->error_mask)
		next = TRANSITION_NEVER;
	else
		next = work_safety_net(wu, t);
	for (i = 0; i < rs->n; i++) {
		const struct db_result *r = &rs->v[i];

		/* one second past the deadline, so the next look finds it passed */
		if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS && r->report_deadline + 1 < next)
			next = r->report_deadline + 1;
	}
	return next;
}

static int create_results(struct db *db, struct tr_job *j, const struct db_workunit *wu, int n,
			  const struct tr_counts *c)
{
	int k, rc;

	if (n <= 0 || wu->transitioner_flags == TRANSITION_NO_NEW_RESULTS)
		return DB_OK;
	log_info("[WU#%" PRId64 " %s] creating %d result%s (target %d - unsent %d - in progress %d "
		 "- success %d)", wu->id, wu->name, n, n == 1 ? "" : "s", wu->target_nresults,
		 c->nunsent, c->ninprogress, c->nsuccess);
	for (k = 0; k < n; k++) {
		struct db_result r = { 0 };

		rc = work_create_result(db, j->ctx->cfg, wu, &r);
		if (rc == 0)
			log_debug("[WU#%" PRId64 " %s] created result %s", wu->id, wu->name, r.name);
		db_result_release(&r);
		if (rc == DB_RETRY)
			return DB_RETRY;
		if (rc != 0) {
			/* logged; a database that failed fails the delay as well */
			j->failed = true;
			return DB_NOT_FOUND;
		}
		j->ncreated++;
		test_kill_point();
	}
	return DB_OK;
}

/* Does this segment result, just changed, move its sequence (seq_policy_after_segment)? */
static bool segment_moves_sequence(const struct db_workunit *wu, const struct db_result *r,
				   enum seq_reason *why)
{
	struct seq_view v = { .active = true, .branch = wu->branch };
	struct seg_view g;

	seg_view_of(r, wu->seqno, wu->branch, &g);
	/* only a timeout is the transitioner's to act on; reports are the scheduler's */
	return g.status == SEG_LATE && seq_policy_after_segment(&v, &g, why) == SEQ_NEXT_RELOCATE;
}

/* Set need_validate, close a workunit that is over, or create the results it needs. */
static int settle_workunit(struct db *db, struct tr_job *j, struct db_workunit *wu,
			   struct db_result_list *rs, bool *changed, const struct tr_counts *c)
{
	int needed;

	if (c->have_new && c->nsuccess >= wu->min_quorum && !wu->error_mask && !wu->need_validate &&
	    !c->canon_missing) {
		log_info("[WU#%" PRId64 " %s] need_validate =>1", wu->id, wu->name);
		wu->need_validate = 1;
	}
	needed = check_limits(wu, c);
	if (!wu->error_mask && !wu->canonical_resultid)
		return create_results(db, j, wu, needed, c);
	close_results(wu, rs, changed);
	if (wu->error_mask)
		wu->need_validate = 0;
	if (wu->assimilate_state == ASSIMILATE_INIT) {
		log_info("[WU#%" PRId64 " %s] error_mask %d, canonical result %" PRId64
			 ": assimilate_state =>READY", wu->id, wu->name, wu->error_mask,
			 wu->canonical_resultid);
		wu->assimilate_state = ASSIMILATE_READY;
	}
	return DB_OK;
}

/* Does the workunit's batch still want its files (a batch not retired or aborted)? */
static int batch_keeps_files(struct db *db, const struct db_workunit *wu, bool *keep)
{
	struct db_batch b = { 0 };
	int rc;

	*keep = false;
	if (!wu->batch || wu->seq_id)
		return DB_OK;
	rc = db_batch_lookup_id(db, wu->batch, &b);
	*keep = rc == DB_OK && b.state != BATCH_STATE_RETIRED && b.state != BATCH_STATE_ABORTED;
	db_batch_release(&b);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

/*
 * Write one changed result; if it timed out, halve its host's quota and
 * count an error against its version's reliability (turnaround: the delay
 * bound); flag its sequence.
 */
static int update_result(struct db *db, const struct db_workunit *wu, struct db_result *r,
			 bool timed_out)
{
	enum seq_reason why;
	int rc;

	rc = db_result_update_state(db, r);
	/* no reply counts against the host as an error does (upstream's rule) */
	if (rc == DB_OK && timed_out && r->hostid && settings.daily_result_quota > 0)
		rc = db_host_quota_halve(db, r->hostid, settings.daily_result_quota);
	if (rc == DB_OK && timed_out && r->hostid && r->app_version_id > 0)
		rc = db_hav_outcome(db, r->hostid, r->app_version_id, HAV_ERROR,
				    (double)wu->delay_bound);
	if (rc != DB_OK)
		return rc;
	/*
	 * A segment that missed its deadline: its sequence must move (the
	 * relocator). The policy is asked as if the segment's branch were
	 * live; the flag's UPDATE checks that it is, and that the sequence
	 * is active.
	 */
	if (wu->seq_id && segment_moves_sequence(wu, r, &why)) {
		rc = db_sequence_flag_relocate(db, wu->seq_id, wu->branch, (int)why);
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	return rc;
}

static int transition(struct db *db, void *arg)
{
	struct tr_job *j = arg;
	struct db_workunit wu = { 0 };
	struct db_result_list rs = { NULL, 0 };
	struct tr_counts c;
	bool *changed = NULL, *timed_out = NULL, all_over, keep;
	int rc;
	size_t i;

	j->ncreated = 0;
	j->failed = false;
	rc = db_workunit_lock(db, j->wuid, &wu);
	if (rc != DB_OK)
		goto out;
	if (wu.transition_time > j->t) {
		rc = DB_NOT_FOUND;      /* someone (an earlier try) did it */
		goto out;
	}
	rc = db_result_enum_workunit_lock(db, wu.id, db_result_list_take, &rs);
	if (rc != DB_OK)
		goto out;
	changed = xcalloc(rs.n + 1, sizeof(*changed));
	timed_out = xcalloc(rs.n + 1, sizeof(*timed_out));
	count_results(&wu, &rs, changed, timed_out, j->t, &c);
	log_debug("[WU#%" PRId64 " %s] %d results: unsent %d, in progress %d, over %d (success %d, "
		  "error %d, no reply %d, didn't need %d)", wu.id, wu.name, c.ntotal, c.nunsent,
		  c.ninprogress, c.nover, c.nsuccess, c.nerrors, c.nno_reply, c.ndidnt_need);
	rc = settle_workunit(db, j, &wu, &rs, changed, &c);
	if (rc != DB_OK)
		goto out;
	all_over = j->ncreated == 0 && all_over_and_validated(&rs, j->t);
	if (wu.assimilate_state == ASSIMILATE_DONE) {
		if ((rc = batch_keeps_files(db, &wu, &keep)) != DB_OK)
			goto out;
		release_files(&wu, &rs, changed, all_over, keep);
	}
	for (i = 0; i < rs.n; i++)
		if (changed[i] && (rc = update_result(db, &wu, &rs.v[i], timed_out[i])) != DB_OK)
			goto out;
	wu.transition_time = next_transition(&wu, &rs, j->t);
	rc = db_workunit_update_state(db, &wu);
out:
	free(changed);
	free(timed_out);
	db_result_list_release(&rs);
	db_workunit_release(&wu);
	return rc;
}

/* After a failure that retrying at once will not mend: look again later. */
static int delay_workunit(struct db *db, const struct db_workunit *wu, int64_t t)
{
	log_error("[WU#%" PRId64 " %s] transition failed; trying again in %d s", wu->id, wu->name,
		  FAILED_DELAY);
	return db_workunit_set_transition(db, wu->id, t + FAILED_DELAY);
}

struct tr_batch {
	struct db_workunit *v;
	size_t n;
};

static int take_wu(struct db_workunit *wu, void *arg)
{
	struct tr_batch *b = arg;
	struct db_rows rows = DB_ROWS(b->v, b->n, 0);

	return db_rows_take(wu, &rows);
}

static int tr_pass(struct daemon_ctx *ctx)
{
	struct tr_batch b = { NULL, 0 };
	int64_t t = now();
	int rc, ret = DAEMON_PASS_IDLE;
	size_t i;

	rc = db_workunit_enum_transition_mod(ctx->db, t, ctx->mod_n, ctx->mod_i,
					     (int)settings.batch, take_wu, &b);
	if (rc != DB_OK)
		ret = DAEMON_PASS_ERROR;
	for (i = 0; i < b.n && ret != DAEMON_PASS_ERROR; i++) {
		struct tr_job j = { ctx, b.v[i].id, now(), 0, false };

		if (daemon_stopping(ctx))
			break;
		rc = db_txn_run(ctx->db, transition, &j);
		if (rc == DB_OK) {
			ret = DAEMON_PASS_WORKED;
		} else if (rc == DB_NOT_FOUND && j.failed) {
			if (delay_workunit(ctx->db, &b.v[i], j.t) != DB_OK)
				ret = DAEMON_PASS_ERROR;
		} else if (rc != DB_NOT_FOUND) {
			ret = DAEMON_PASS_ERROR;
		}
	}
	for (i = 0; i < b.n; i++)
		db_workunit_release(&b.v[i]);
	free(b.v);
	return ret;
}

static const struct daemon_spec tr_spec = {
	.name = "transitioner",
	.summary = "Move workunits to their next state: create, time out and close results.",
	.params = tr_params,
	.settings = &settings,
	.needs_db = true,
	.pass = tr_pass,
};

int main(int argc, char **argv)
{
	return daemon_main(&tr_spec, argc, argv);
}
