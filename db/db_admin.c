/*
 * Project bootstrap records: the administrator account make_project
 * creates, with the right to submit jobs for every app and to administer
 * the project (ops_admin) -- two rights, granted one by one.
 */
#include "db_records.h"
#include "db_ops.h"
#include "fileutil.h"
#include "log.h"
#include "wtime.h"

#include <ctype.h>

int db_make_admin(struct db *db, const char *name, const char *email_addr,
		  const char *authenticator)
{
	struct db_user u = { 0 };
	struct db_user_submit us = { 0 };
	char cpid[33], *email = xstrdup(email_addr), *p;
	int rc, tries;

	/* as every account: the address lower-cased, a cross-project id */
	for (p = email; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (random_hex(cpid, 16) < 0) {
		free(email);
		return DB_ERROR;
	}
	u.create_time = now();
	u.name = (char *)name;
	u.email_addr = email;
	u.cross_project_id = cpid;
	u.authenticator = (char *)authenticator;
	us.submit_all = 1;
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
			rc = db_ops_admin_grant(db, u.id, now());
		if (rc == DB_OK)
			rc = db_commit(db);
		else
			db_rollback(db);
		if (rc != DB_RETRY)
			break;
	}
	free(email);
	if (rc != DB_OK)
		return log_error("cannot create the admin account %s: %s", name, db_error(db));
	return DB_OK;
}
