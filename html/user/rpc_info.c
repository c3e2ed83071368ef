/*
 * The account RPCs account managers and stats tools call: am_set_info.php
 * (change an account), show_user.php?format=xml and team_lookup.php.
 */
#include "rpc_int.h"
#include "xml_write.h"
#include "db.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_web.h"
#include "field.h"
#include "log.h"
#include "passwd.h"
#include "prefs.h"
#include "wtime.h"
#include "xml.h"

#define TEAMS_MAX 100

/* The changes am_set_info asks for; NULL: leave as it is. */
struct set_info {
	const char *name, *country, *postal_code, *url, *venue, *global_prefs, *project_prefs;
	const char *email, *passwd_hash;
	int send_email, show_hosts;     /* -1: unchanged */
	int64_t teamid;                 /* -1: unchanged */
	int64_t userid;
	char stored[PASSWD_STORED_MAX];
	struct account_error *e;
};

static char *swap(char *old, const char *v)
{
	if (!v)
		return old;
	free(old);
	return xstrdup(v);
}

static int set_info_txn(struct db *db, void *arg)
{
	struct set_info *s = arg;
	struct db_user u = { 0 }, other = { 0 };
	int rc = db_user_lock(db, s->userid, &u);

	if (rc == DB_OK && s->email && strcmp(s->email, u.email_addr)) {
		rc = db_user_lookup_email(db, s->email, &other);
		if (rc == DB_OK) {
			account_fail(s->e, ACCT_ERR_NOT_UNIQUE, "Email address is already in use");
			rc = DB_NOT_FOUND;
		} else if (rc == DB_NOT_FOUND) {
			u.previous_email_addr = swap(u.previous_email_addr, u.email_addr);
			u.email_addr_change_time = dnow();
			u.email_addr = swap(u.email_addr, s->email);
			u.passwd_hash = swap(u.passwd_hash, s->stored);
			/* a new address and password: the sessions signed in with the old end */
			rc = db_web_session_end_user(db, u.id);
		}
	}
	if (rc == DB_OK && s->teamid >= 0 && s->teamid != u.teamid) {
		/* the join form's rule: a team that takes no members is not joined */
		rc = team_may_join(db, s->teamid, s->e);
		if (rc == DB_OK)
			rc = db_user_set_team(db, u.id, s->teamid);
		if (rc == DB_NOT_FOUND && !s->e->num)
			account_fail(s->e, ACCT_ERR_NOT_FOUND, "No such team");
		u.teamid = s->teamid;
	}
	if (rc == DB_OK) {
		u.name = swap(u.name, s->name);
		u.country = swap(u.country, s->country);
		u.postal_code = swap(u.postal_code, s->postal_code);
		u.url = swap(u.url, s->url);
		u.venue = swap(u.venue, s->venue);
		u.global_prefs = swap(u.global_prefs, s->global_prefs);
		u.project_prefs = swap(u.project_prefs, s->project_prefs);
		if (s->send_email >= 0)
			u.send_email = s->send_email;
		if (s->show_hosts >= 0)
			u.show_hosts = s->show_hosts;
		rc = db_user_update(db, &u);
	}
	db_user_release(&u);
	db_user_release(&other);
	return rc;
}

/* A short text parameter: absent, or at most a column's characters of text. */
static bool text_param(const struct web_req *r, struct web_reply *o, const char *name,
		       const char **out)
{
	const char *v = web_param(r, name);
	char msg[128], *ok = NULL;
	int rc = v ? field_str(name, v, FIELD_COLUMN_CHARS, 0, &ok, NULL) : FIELD_OK;

	free(ok);
	*out = v;
	if (rc == FIELD_OK)
		return true;
	snprintf(msg, sizeof(msg), "missing or bad parameter: %s", name);
	rpc_error(r, o, ACCT_ERR_GENERIC, msg);
	return false;
}

static bool flag_param(const struct web_req *r, struct web_reply *o, const char *name, int *out)
{
	const char *v = web_param(r, name);
	char msg[128];

	*out = -1;
	if (!v || field_int(name, v, 0, 1, 0, out, NULL) == FIELD_OK)
		return true;
	snprintf(msg, sizeof(msg), "missing or bad parameter: %s", name);
	rpc_error(r, o, ACCT_ERR_GENERIC, msg);
	return false;
}

static bool prefs_param(const struct web_req *r, struct web_reply *o, const char *name,
			const char **out)
{
	const char *v = web_param(r, name);
	struct account_error e;

	*out = v;
	if (!v)
		return true;
	if (account_check_prefs(v, name, &e) != ACCT_OK) {
		acct_error(r, o, &e);
		return false;
	}
	/* project prefs the scheduler reads: upstream's elements with sound values */
	if (!strcmp(name, "project_prefs") && *v) {
		struct sbuf err = SBUF_INIT(300);
		bool ok = prefs_project_check(v, &err) == 0;

		if (!ok) {
			account_fail(&e, ACCT_ERR_XML_PARSE, "Invalid XML: %s", sbuf_str(&err));
			acct_error(r, o, &e);
		}
		sbuf_release(&err);
		return ok;
	}
	return true;
}

/* <venue>: "" (the default), home, school or work, as upstream's hosts have. */
static bool venue_param(const struct web_req *r, struct web_reply *o, const char **out)
{
	*out = web_param(r, "venue");
	if (!*out || prefs_venue_ok(*out))
		return true;
	rpc_error(r, o, ACCT_ERR_GENERIC, "bad parameter: venue must be home, school, work or empty");
	return false;
}

/* am_set_info.php?account_key=K[&name=..][&teamid=..]...: GET or POST. */
void am_set_info(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	struct account_error e = { 0, "", false };
	struct set_info s = { .e = &e };
	struct db_user u = { 0 };
	const char *team = web_param(r, "teamid");
	char *email = NULL;
	int rc;

	if (!usable(c, r, o) || !by_key(c, r, o, "account_key", &u))
		goto out;
	s.userid = u.id;
	s.name = web_param(r, "name");
	if (s.name && account_check_name(s.name, "The user name", &e) != ACCT_OK) {
		acct_error(r, o, &e);
		goto out;
	}
	if (!text_param(r, o, "country", &s.country) ||
	    !text_param(r, o, "postal_code", &s.postal_code) || !text_param(r, o, "url", &s.url) ||
	    !venue_param(r, o, &s.venue) || !flag_param(r, o, "send_email", &s.send_email) ||
	    !flag_param(r, o, "show_hosts", &s.show_hosts) ||
	    !prefs_param(r, o, "global_prefs", &s.global_prefs) ||
	    !prefs_param(r, o, "project_prefs", &s.project_prefs))
		goto out;
	s.teamid = -1;
	if (team && field_int64("teamid", team, 0, INT64_MAX, 0, &s.teamid, NULL) != FIELD_OK) {
		rpc_error(r, o, ACCT_ERR_GENERIC, "missing or bad parameter: teamid");
		goto out;
	}
	if (web_param(r, "email_addr")) {
		if (account_check_email(web_param(r, "email_addr"), &e) != ACCT_OK) {
			acct_error(r, o, &e);
			goto out;
		}
		/* a new address needs a new password hash: the old one was made with the old address */
		s.passwd_hash = web_param(r, "password_hash");
		if (!s.passwd_hash || passwd_store(s.passwd_hash, s.stored) < 0) {
			rpc_error(r, o, ACCT_ERR_GENERIC, "missing or bad parameter: password_hash");
			goto out;
		}
		s.email = email = account_lowercase(web_param(r, "email_addr"));
	}
	rc = db_txn_run(c->db, set_info_txn, &s);
	if (rc == DB_NOT_FOUND)
		acct_error(r, o, &e);
	else if (rc != DB_OK)
		rpc_error(r, o, ACCT_ERR_DB, "Can't access database");
	else {
		log_info("am_set_info [%s]: account %" PRId64 " changed", r->remote_addr, u.id);
		start_xml(o);
		sbuf_addstr(&o->body, "<am_set_info_reply>\n    <success/>\n</am_set_info_reply>\n");
	}
out:
	free(email);
	db_user_release(&u);
}

static int host_xml(struct db_host *h, void *arg)
{
	struct sbuf *b = arg;

	sbuf_addstr(b, "<host>\n");
	xml_elem_i64(b, 4, "id", h->id);
	xml_elem_i64(b, 4, "create_time", h->create_time);
	xml_elem_i64(b, 4, "rpc_seqno", h->rpc_seqno);
	xml_elem_i64(b, 4, "rpc_time", h->rpc_time);
	xml_elem_str(b, 4, "host_cpid", h->host_cpid);
	xml_elem_f(b, 4, "total_credit", h->total_credit);
	xml_elem_f(b, 4, "expavg_credit", h->expavg_credit);
	xml_elem_f(b, 4, "expavg_time", h->expavg_time);
	xml_elem_str(b, 4, "domain_name", h->domain_name);
	xml_elem_i64(b, 4, "p_ncpus", h->p_ncpus);
	xml_elem_str(b, 4, "p_vendor", h->p_vendor);
	xml_elem_str(b, 4, "p_model", h->p_model);
	xml_elem_f(b, 4, "p_fpops", h->p_fpops);
	xml_elem_f(b, 4, "p_iops", h->p_iops);
	xml_elem_str(b, 4, "os_name", h->os_name);
	xml_elem_str(b, 4, "os_version", h->os_version);
	xml_elem_f(b, 4, "m_nbytes", h->m_nbytes);
	xml_elem_f(b, 4, "d_free", h->d_free);
	xml_elem_f(b, 4, "d_total", h->d_total);
	xml_elem_str(b, 4, "venue", h->venue);
	sbuf_addstr(b, "</host>\n");
	return 0;
}

/* show_user.php?userid=N&format=xml, or auth=K (then also the venue and the hosts). */
void show_user_xml(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	struct db_user u = { 0 };
	struct sbuf *b = &o->body;
	const char *id = web_param(r, "userid");
	bool own = web_param(r, "auth") != NULL;
	char cpid[33];
	int64_t uid = 0;
	int rc;

	if (!usable(c, r, o))
		return;
	if (own) {
		if (!by_key(c, r, o, "auth", &u))
			return;
	} else {
		if (!id || field_int64("userid", id, 1, INT64_MAX, 0, &uid, NULL) != FIELD_OK) {
			rpc_error(r, o, ACCT_ERR_GENERIC, "missing or bad parameter: userid");
			return;
		}
		rc = db_user_lookup_id(c->db, uid, &u);
		if (rc != DB_OK) {
			rpc_error(r, o, rc == DB_NOT_FOUND ? ACCT_ERR_NOT_FOUND : ACCT_ERR_DB,
				  rc == DB_NOT_FOUND ? "No such user found" : "Can't access database");
			db_user_release(&u);
			return;
		}
	}
	start_xml(o);
	sbuf_addstr(b, "<user>\n");
	xml_elem_i64(b, 4, "id", u.id);
	account_external_cpid(&u, cpid);
	xml_elem_str(b, 4, "cpid", cpid);
	xml_elem_i64(b, 4, "create_time", u.create_time);
	xml_elem_str(b, 4, "name", u.name);
	xml_elem_f(b, 4, "total_credit", u.total_credit);
	xml_elem_f(b, 4, "expavg_credit", u.expavg_credit);
	xml_elem_f(b, 4, "expavg_time", u.expavg_time);
	xml_elem_i64(b, 4, "teamid", u.teamid);
	xml_elem_i64(b, 4, "has_profile", u.has_profile);
	if (*u.country)
		xml_elem_str(b, 4, "country", u.country);
	if (*u.url)
		xml_elem_str(b, 4, "url", u.url);
	if (own) {
		xml_elem_str(b, 4, "venue", u.venue);
		if (db_host_enum_user(c->db, u.id, host_xml, b) != DB_OK)
			log_warn("show_user: the hosts of user %" PRId64 " cannot be read", u.id);
	}
	sbuf_addstr(b, "</user>\n");
	db_user_release(&u);
}

void team_xml(struct sbuf *b, const struct db_team *t)
{
	sbuf_addstr(b, "<team>\n");
	xml_elem_i64(b, 4, "id", t->id);
	xml_elem_i64(b, 4, "create_time", t->create_time);
	xml_elem_i64(b, 4, "userid", t->userid);
	xml_elem_str(b, 4, "name", t->name);
	xml_elem_str(b, 4, "url", t->url);
	xml_elem_i64(b, 4, "type", t->type);
	xml_elem_str(b, 4, "country", t->country);
	xml_elem_f(b, 4, "total_credit", t->total_credit);
	xml_elem_f(b, 4, "expavg_credit", t->expavg_credit);
	xml_elem_f(b, 4, "expavg_time", t->expavg_time);
	sbuf_addstr(b, "</team>\n");
}

static int add_team(struct db_team *t, void *arg)
{
	team_xml(arg, t);
	return 0;
}

/* team_lookup.php?team_id=N | team_ids=1,2,.. | team_name=SUBSTRING[&format=xml] */
void team_lookup(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	const char *id = web_param(r, "team_id"), *ids = web_param(r, "team_ids");
	const char *name = web_param(r, "team_name");
	struct sbuf *b = &o->body;
	struct db_team t = { 0 };
	int64_t n = 0;
	int rc = DB_OK;

	if (!usable(c, r, o))
		return;
	if (id) {
		if (field_int64("team_id", id, 1, INT64_MAX, 0, &n, NULL) != FIELD_OK) {
			rpc_error(r, o, ACCT_ERR_GENERIC, "missing or bad parameter: team_id");
			return;
		}
		rc = db_team_lookup_id(c->db, n, &t);
		if (rc == DB_OK) {
			start_xml(o);
			team_xml(b, &t);
		}
	} else if (ids) {
		char *list = xstrdup(ids), *save = NULL, *tok;
		int k = 0;

		start_xml(o);
		sbuf_addstr(b, "<teams>\n");
		for (tok = strtok_r(list, ",", &save); tok && k < TEAMS_MAX && rc != DB_ERROR;
		     tok = strtok_r(NULL, ",", &save), k++) {
			if (field_int64("team_ids", tok, 1, INT64_MAX, 0, &n, NULL) != FIELD_OK)
				continue;
			rc = db_team_lookup_id(c->db, n, &t);
			if (rc == DB_OK)
				team_xml(b, &t);
		}
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
		sbuf_addstr(b, "</teams>\n");
		free(list);
	} else if (name && *name && strlen(name) <= 4 * FIELD_COLUMN_CHARS) {
		start_xml(o);
		sbuf_addstr(b, "<teams>\n");
		rc = db_web_teams(c->db, name, 0, TEAMS_MAX, add_team, b);
		sbuf_addstr(b, "</teams>\n");
	} else {
		rpc_error(r, o, ACCT_ERR_GENERIC, "missing or bad parameter: team_id, team_ids or "
			  "team_name");
		return;
	}
	if (rc == DB_NOT_FOUND)
		rpc_error(r, o, ACCT_ERR_NOT_FOUND, "no such team");
	else if (rc != DB_OK)
		rpc_error(r, o, ACCT_ERR_DB, "Can't access database");
	db_team_release(&t);
}
