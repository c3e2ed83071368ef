/*
 * Project bootstrap records: the administrator account make_project
 * creates, with the right to submit jobs for every app.
 */
#include "db_records.h"
#include "log.h"
#include "wtime.h"

int db_make_admin(struct db *db, const char *name, const char *email_addr,
		  const char *authenticator)
{
	struct db_user u = { 0 };
	struct db_user_submit us = { 0 };
	int rc, tries;

	u.create_time = now();
	u.name = (char *)name;
	u.email_addr = (char *)email_addr;
	u.authenticator = (char *)authenticator;
	us.submit_all = 1;
	us.manage_all = 1;
	for (tries = 0; tries < 2; tries++) {
		u.id = 0;
		rc = db_begin(db);
		if (rc == DB_OK)
			rc = db_user_insert(db, &u);
		if (rc == DB_OK) {
			us.user_id = u.id;
			rc = db_user_submit_insert(db, &us);
		}
		if (rc == DB_OK)
			rc = db_commit(db);
		else
			db_rollback(db);
		if (rc != DB_RETRY)
			break;
	}
	if (rc != DB_OK)
		return log_error("cannot create the admin account %s: %s", name, db_error(db));
	return DB_OK;
}
