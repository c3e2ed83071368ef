/*
 * The upload handler's database check (an upload_check_fn): a file is
 * taken only as an uploaded output of a result that is in progress -- or
 * past its deadline without a reply, whose late report the scheduler still
 * takes. A valid certificate says the server once gave the name out; this
 * says the result still wants it -- not a result that is over (reported,
 * aborted, on a dead branch), whose files the file deleter may already have
 * removed, so a late or replayed upload would leave an orphan.
 */
#include "upload.h"
#include "db.h"
#include "db_records.h"
#include "field.h"
#include "filelist.h"

enum upload_status upload_check_in_progress(void *arg, const char *name, struct sbuf *why)
{
	struct db *db = arg;
	struct db_result owner = { 0 };
	enum upload_status st = UPLOAD_OK;
	int rc;

	if (!db) {
		sbuf_addstr(why, "the project's database is unavailable; try later");
		return UPLOAD_TRANSIENT;
	}
	rc = filelist_output_owner(db, name, &owner);
	if (rc == DB_NOT_FOUND) {
		sbuf_addstr(why, "'");
		field_quote(why, name, 64);
		sbuf_addstr(why, "' is not an output of any result");
		st = UPLOAD_PERMANENT;
	} else if (rc != DB_OK) {
		sbuf_addstr(why, "the project's database is unavailable; try later");
		st = UPLOAD_TRANSIENT;
	} else if (owner.server_state != RESULT_SERVER_STATE_IN_PROGRESS &&
		   !(owner.server_state == RESULT_SERVER_STATE_OVER &&
		     owner.outcome == RESULT_OUTCOME_NO_REPLY)) {
		sbuf_addf(why, "'%s' belongs to result %s, which is not in progress", name, owner.name);
		st = UPLOAD_PERMANENT;
	}
	db_result_release(&owner);
	return st;
}
