/* The mailed links and the account changes they make (db_mail.h). */
#include "db_mail.h"
#include "db.h"

const struct db_query dbq_mail_token_use = {
	"mail_token_use", NULL, "UPDATE mail_token SET used_time=? WHERE id=? AND used_time=0", "ii"
};
const struct db_query dbq_mail_token_user = {
	"mail_token_user", NULL, "DELETE FROM mail_token WHERE userid=?", "i"
};
const struct db_query dbq_mail_token_expired = {
	"mail_token_expired", NULL, "DELETE FROM mail_token WHERE expire_time<?", "i"
};
const struct db_query dbq_user_set_email = {
	"user_set_email", NULL,
	"UPDATE user SET previous_email_addr=email_addr, email_addr=?, passwd_hash=?, "
	"email_addr_change_time=? WHERE id=?", "ssdi"
};
const struct db_query dbq_user_erase = {
	"user_erase", NULL,
	"UPDATE user SET email_addr=?, authenticator=?, name='deleted', passwd_hash='', country='', "
	"postal_code='', url='', signature='', cross_project_id='', global_prefs='', "
	"project_prefs='', venue='', send_email=0, show_hosts=0, has_profile=0, "
	"email_validated=0, login_token='', login_token_time=0, previous_email_addr='', "
	"email_addr_change_time=0 WHERE id=?", "ssi"
};
const struct db_query dbq_host_erase = {
	"host_erase", NULL,
	"UPDATE host SET domain_name='', last_ip_addr='', external_ip_addr='' WHERE userid=?", "i"
};
const struct db_query dbq_user_send_email = {
	"user_send_email", NULL, "UPDATE user SET send_email=? WHERE id=?", "ii"
};

int db_mail_token_find(struct db *db, const char *hash, struct db_mail_token *t)
{
	return db_rec_lookup_by(db, &db_mail_token_table, "token_hash", hash, t);
}

int db_mail_token_use(struct db *db, int64_t id, int64_t t)
{
	struct db_val v[2] = { DBV_INT(t), DBV_INT(id) };
	int64_t n = 0;
	int rc = db_query_exec(db, &dbq_mail_token_use, v, 2, &n);

	return rc == DB_OK && n != 1 ? DB_NOT_FOUND : rc;
}

int db_mail_token_forget(struct db *db, int64_t userid, int64_t before)
{
	struct db_val u[1] = { DBV_INT(userid) }, b[1] = { DBV_INT(before) };
	int rc = userid ? db_query_exec(db, &dbq_mail_token_user, u, 1, NULL) : DB_OK;

	return rc == DB_OK ? db_query_exec(db, &dbq_mail_token_expired, b, 1, NULL) : rc;
}

int db_user_set_email(struct db *db, int64_t id, const char *email, const char *stored_passwd,
		      double t)
{
	struct db_val v[4] = { DBV_STR(email), DBV_STR(stored_passwd), DBV_DBL(t), DBV_INT(id) };

	return db_query_exec(db, &dbq_user_set_email, v, 4, NULL);
}

int db_user_erase(struct db *db, int64_t id, const char *erased_email, const char *new_auth)
{
	struct db_val v[3] = { DBV_STR(erased_email), DBV_STR(new_auth), DBV_INT(id) };
	struct db_val h[1] = { DBV_INT(id) };
	int rc = db_query_exec(db, &dbq_user_erase, v, 3, NULL);

	return rc == DB_OK ? db_query_exec(db, &dbq_host_erase, h, 1, NULL) : rc;
}

int db_user_set_send_email(struct db *db, int64_t id, int send)
{
	struct db_val v[2] = { DBV_INT(send), DBV_INT(id) };

	return db_query_exec(db, &dbq_user_send_email, v, 2, NULL);
}

const struct db_query dbq_user_mailing = {
	"user_mailing", &db_user_table, "WHERE id>? AND send_email=1 ORDER BY id LIMIT ?", "ii"
};

int db_user_mailing(struct db *db, int64_t after, long limit,
		    int (*fn)(struct db_user *, void *), void *arg)
{
	struct db_val v[2] = { DBV_INT(after), DBV_INT(limit) };

	return db_user_query(db, &dbq_user_mailing, v, 2, fn, arg);
}
