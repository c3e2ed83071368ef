/*
 * Revalidate a workunit (POST revalidate with id and the page's CSRF
 * token): its results that were judged but are not VALID go back to the
 * validator -- validate_state INIT, validate_why NONE, a check's
 * VALIDATE_ERROR back to SUCCESS -- and the workunit gets need_validate,
 * in one transaction under the workunit's and its results' row locks.
 * VALID results keep their verdict and their credit: the validator grants
 * credit only to a result that becomes VALID, so nothing is granted twice.
 * Upstream's html/ops/revalidate.php resets every judged result, VALID
 * ones too, for a more permissive validator; here the VALID ones are left
 * alone because the canonical result and its credit are already spent
 * (assimilation, the volunteers' totals). Refused for a workunit not
 * found, already assimilated, or failed or cancelled. Logged with the
 * admin's name.
 */
#include "ops.h"
#include "db_daemons.h"
#include "log.h"

enum reval_rc { REVAL_OK, REVAL_NOT_FOUND, REVAL_ASSIMILATED, REVAL_FAILED, REVAL_NOTHING };

struct reval_job {
	int64_t wuid;
	enum reval_rc rc;
	int nresults;           /* results put back */
	char *name;             /* the workunit's */
};

/* Was the result judged, and not VALID? Then it goes back to the validator. */
static bool reval_result(struct db_result *r)
{
	bool judged = r->validate_state == VALIDATE_STATE_INVALID ||
		      r->validate_state == VALIDATE_STATE_INCONCLUSIVE ||
		      r->validate_state == VALIDATE_STATE_TOO_LATE ||
		      (r->validate_state == VALIDATE_STATE_INIT &&
		       r->validate_why != VALIDATE_WHY_NONE);

	if (r->server_state != RESULT_SERVER_STATE_OVER || !judged ||
	    (r->outcome != RESULT_OUTCOME_SUCCESS &&
	     !(r->outcome == RESULT_OUTCOME_VALIDATE_ERROR &&
	       r->validate_state == VALIDATE_STATE_INVALID)))
		return false;
	r->outcome = RESULT_OUTCOME_SUCCESS;
	r->validate_state = VALIDATE_STATE_INIT;
	r->validate_why = VALIDATE_WHY_NONE;
	r->granted_credit = 0;  /* never granted: only VALID results are credited */
	return true;
}

static int reval_txn(struct db *db, void *arg)
{
	struct reval_job *j = arg;
	struct db_workunit wu = { 0 };
	struct db_result_list rs = { NULL, 0 };
	size_t i;
	int rc;

	j->nresults = 0;
	rc = db_workunit_lock(db, j->wuid, &wu);
	if (rc == DB_NOT_FOUND)
		j->rc = REVAL_NOT_FOUND;
	if (rc != DB_OK)
		goto out;
	free(j->name);
	j->name = xstrdup(wu.name);
	if (wu.assimilate_state == ASSIMILATE_DONE || wu.error_mask) {
		j->rc = wu.assimilate_state == ASSIMILATE_DONE ? REVAL_ASSIMILATED : REVAL_FAILED;
		rc = DB_NOT_FOUND;
		goto out;
	}
	rc = db_result_enum_workunit_lock(db, j->wuid, db_result_list_take, &rs);
	for (i = 0; rc == DB_OK && i < rs.n; i++)
		if (reval_result(&rs.v[i])) {
			j->nresults++;
			rc = db_result_update_state(db, &rs.v[i]);
		}
	if (rc == DB_OK && !j->nresults) {
		j->rc = REVAL_NOTHING;
		rc = DB_NOT_FOUND;
	}
	if (rc == DB_OK) {
		wu.need_validate = 1;
		rc = db_workunit_update_state(db, &wu);
		j->rc = REVAL_OK;
	}
out:
	db_result_list_release(&rs);
	db_workunit_release(&wu);
	return rc;
}

void ops_revalidate_form(struct ops *o, int64_t wuid)
{
	sbuf_addstr(o->b, "<form class=\"action\" method=\"post\" action=\"");
	ops_esc(o->b, o->base);
	sbuf_addstr(o->b, "revalidate\">");
	ops_csrf_field(o);
	sbuf_addf(o->b, "<input type=\"hidden\" name=\"id\" value=\"%" PRId64 "\"><button "
			"type=\"submit\" id=\"revalidate\">Revalidate its results</button> "
			"<span class=\"dim\">(those judged but not valid go back to the validator; "
			"valid ones keep their credit)</span></form>\n", wuid);
}

static void reval_done(struct ops *o, const struct reval_job *j)
{
	char rel[64];

	ops_start(o, "Revalidating");
	sbuf_addstr(o->b, "<p class=\"message\" id=\"outcome\">Workunit ");
	ops_esc(o->b, j->name);
	sbuf_addf(o->b, ": %d result%s put back to be validated; the validator judges them on its "
			"next pass.</p>\n<p>", j->nresults, j->nresults == 1 ? "" : "s");
	snprintf(rel, sizeof(rel), "wu?id=%" PRId64, j->wuid);
	ops_link(o, rel, "Back to it");
	sbuf_addstr(o->b, "</p>\n");
	ops_end(o);
}

void ops_revalidate_post(struct ops *o)
{
	struct reval_job j = { 0, REVAL_NOT_FOUND, 0, NULL };
	int rc;

	if (!ops_post_ok(o) || !ops_id_param(o, "id", &j.wuid))
		return;
	if (!o->c->db) {
		ops_db_failed(o, "revalidate");
		return;
	}
	rc = db_txn_run(o->c->db, reval_txn, &j);
	if (rc != DB_OK && rc != DB_NOT_FOUND) {
		ops_db_failed(o, "revalidate");
	} else if (j.rc == REVAL_NOT_FOUND) {
		ops_message(o, 404, "Not found", "There is no workunit with that id (it may have "
			    "been purged).");
	} else if (j.rc == REVAL_ASSIMILATED) {
		ops_message(o, 409, "Not revalidated", "This workunit is already assimilated: its "
			    "canonical result has been handed on and cannot change.");
	} else if (j.rc == REVAL_FAILED) {
		ops_message(o, 409, "Not revalidated", "This workunit failed or was cancelled "
			    "(error_mask): there is nothing to validate.");
	} else if (j.rc == REVAL_NOTHING) {
		ops_message(o, 409, "Not revalidated", "None of this workunit's results has been "
			    "judged invalid or inconclusive: there is nothing to revalidate.");
	} else {
		log_info("ops: admin %s revalidated workunit %" PRId64 " %s: %d results put back",
			 ops_who(o), j.wuid, j.name, j.nresults);
		reval_done(o, &j);
	}
	free(j.name);
}
