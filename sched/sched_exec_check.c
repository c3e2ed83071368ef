/*
 * The scheduler's second look at what a job may choose on a host
 * (lib/exec_rule.h), as it is about to send a workunit: one whose command
 * line or inputs break the rule -- made before the rule, forged in the
 * database, or of an any_executable app whose submitter does not hold that
 * right (any more) -- is not sent but cancelled, its reason logged, so it
 * is not looked at again at every request. The submit RPCs check the same
 * rule before they make a job.
 */
#include "sched_policy.h"
#include "cancel.h"
#include "exec_rule.h"
#include "log.h"
#include "wtime.h"

/*
 * May wu's submitter bring an executable? A job of a batch: its owner holds
 * the right (user_submit.any_executable). A job without a batch was made by
 * the project's own tools (create_work), not through a submitter's door.
 */
static int may_bring(struct db *db, const struct db_workunit *wu, bool *yes)
{
	struct db_batch b = { 0 };
	struct db_user_submit us = { 0 };
	int rc = DB_OK;

	*yes = wu->batch == 0;
	if (*yes)
		return DB_OK;
	rc = db_batch_lookup_id(db, wu->batch, &b);
	if (rc == DB_OK) {
		us.user_id = b.user_id;
		rc = db_user_submit_lookup(db, &us);
		*yes = rc == DB_OK && us.any_executable;
	}
	db_batch_release(&b);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

int sched_exec_check(const struct sched_ctx *ctx, const struct db_app *app,
		     const struct db_workunit *wu)
{
	struct sbuf why = SBUF_INIT(1024);
	struct cancel_count n = { 0 };
	bool any_exec = false;
	int rc = DB_OK;

	if (app->any_executable)
		rc = may_bring(ctx->db, wu, &any_exec);
	if (rc != DB_OK || exec_rule_wu_doc(wu->xml_doc, any_exec, &why) == 0)
		goto out;
	if (app->any_executable && !any_exec)
		sbuf_addstr(&why, " (its app runs the submitter's executable, and its submitter "
			    "does not hold that right)");
	log_warn("workunit %s (%" PRId64 ") not sent but cancelled: %s", wu->name, wu->id,
		 sbuf_str(&why));
	rc = cancel_workunit_in(ctx->db, wu->id, "refused by the scheduler", now(), &n);
	if (rc == DB_OK || rc == DB_NOT_FOUND)
		rc = DB_NOT_FOUND;
out:
	sbuf_release(&why);
	return rc;
}
