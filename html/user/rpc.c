/*
 * The account RPCs of a BOINC project, at the names real clients, the BOINC
 * Manager, account managers and stats tools call (boinc-account-rpc.md):
 * get_project_config.php, create_account.php, lookup_account.php,
 * am_get_info.php, am_set_info.php, show_user.php?format=xml and
 * team_lookup.php?format=xml. Every reply is XML: an error is
 * <error><error_num>N</error_num><error_msg>..</error_msg></error> --
 * except get_project_config's, which always stays inside <project_config>
 * (a client that gets anything else spins). Nothing secret is logged: not
 * the password hash, not the authenticator, not the e-mail address.
 */
#include "rpc_int.h"
#include "xml_write.h"
#include "config.h"
#include "db.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "passwd.h"
#include "xml.h"

#include <sys/stat.h>

#define TERMS_MAX (64L << 10)

void start_xml(struct web_reply *o)
{
	o->content_type = "text/xml; charset=utf-8";
	sbuf_reset(&o->body);
	sbuf_addstr(&o->body, XML_HEAD);
}

/* The error document; logged with the page and the client's address. */
void rpc_error(const struct web_req *r, struct web_reply *o, int num, const char *msg)
{
	log_info("%s [%s]: error %d: %s", r->page, r->remote_addr, num, msg);
	start_xml(o);
	sbuf_addf(&o->body, "<error>\n    <error_num>%d</error_num>\n", num);
	xml_elem_str(&o->body, 4, "error_msg", msg);
	sbuf_addstr(&o->body, "</error>\n");
}

void acct_error(const struct web_req *r, struct web_reply *o, const struct account_error *e)
{
	rpc_error(r, o, e->num, e->msg);
}

static bool project_file(const struct web_ctx *c, const char *name)
{
	char *p = xasprintf("%s/%s", c->cfg->project_dir, name);
	bool there = access(p, F_OK) == 0;

	free(p);
	return there;
}

/* Stopped with the stop_web file: -183, as upstream. */
static bool web_stopped(const struct web_ctx *c)
{
	return project_file(c, "stop_web");
}

/* A required parameter, or an error reply naming it. */
const char *need(const struct web_req *r, struct web_reply *o, const char *name)
{
	const char *v = web_param(r, name);
	char msg[128];

	if (v && *v)
		return v;
	snprintf(msg, sizeof(msg), "missing or bad parameter: %s", name);
	rpc_error(r, o, ACCT_ERR_GENERIC, msg);
	return NULL;
}

/* The database, or -138 / -183 in the reply. */
bool usable(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	if (web_stopped(c)) {
		rpc_error(r, o, ACCT_ERR_PROJECT_DOWN, "Project is temporarily offline");
		return false;
	}
	if (!c->db) {
		rpc_error(r, o, ACCT_ERR_DB, "Can't access database");
		return false;
	}
	return true;
}

struct platforms {
	struct sbuf *b;
};

static int add_platform(struct db_platform *p, void *arg)
{
	struct sbuf *b = arg;

	sbuf_addstr(b, "        <platform>\n");
	xml_elem_str(b, 12, "platform_name", p->name);
	xml_elem_str(b, 12, "user_friendly_name", p->user_friendly_name);
	sbuf_addstr(b, "        </platform>\n");
	return 0;
}

/* get_project_config.php: works without the database (then without platforms). */
static void get_project_config(const struct web_ctx *c, const struct web_req *r,
			       struct web_reply *o)
{
	const struct project_config *cfg = c->cfg;
	const struct account_settings *a = c->acct;
	bool invite = a->invite_code && *a->invite_code;
	struct sbuf *b = &o->body, terms = SBUF_INIT(TERMS_MAX + 1);
	char *tp;

	start_xml(o);
	sbuf_addstr(b, "<project_config>\n");
	xml_elem_str(b, 4, "name", cfg->long_name);
	xml_elem_str(b, 4, "master_url", cfg->master_url);
	xml_elem_str(b, 4, "web_rpc_url_base", cfg->master_url);
	xml_elem_str(b, 4, "server_version", PACKAGE_VERSION);
	if (web_stopped(c))
		sbuf_addstr(b, "    <web_stopped>1</web_stopped>\n    <error_num>-183</error_num>\n");
	else
		sbuf_addstr(b, "    <web_stopped>0</web_stopped>\n");
	if (cfg->disable_account_creation || invite)
		sbuf_addstr(b, "    <account_creation_disabled/>\n");
	if (invite)
		sbuf_addstr(b, "    <invite_code_required/>\n");
	if (a->disable_account_creation_rpc)
		sbuf_addstr(b, "    <client_account_creation_disabled/>\n");
	sbuf_addf(b, "    <min_passwd_length>%ld</min_passwd_length>\n", a->min_passwd_length);
	sbuf_addf(b, "    <sched_stopped>%d</sched_stopped>\n", project_file(c, "stop_sched"));
	if (c->db) {
		sbuf_addstr(b, "    <platforms>\n");
		if (db_platform_enum(c->db, "WHERE deprecated=0 AND id IN (SELECT platformid FROM "
				     "app_version WHERE deprecated=0) ORDER BY name", NULL, 0,
				     add_platform, b) != DB_OK)
			log_warn("get_project_config: the platforms cannot be read");
		sbuf_addstr(b, "    </platforms>\n");
	}
	tp = xasprintf("%s/terms_of_use.txt", cfg->project_dir);
	if (access(tp, F_OK) == 0 && read_file(tp, TERMS_MAX, &terms) == 0 && terms.len &&
	    field_text_ok(terms.buf, terms.len, true))
		xml_elem_str(b, 4, "terms_of_use", sbuf_str(&terms));
	free(tp);
	sbuf_release(&terms);
	sbuf_addstr(b, "</project_config>\n");
}

static void account_out(struct web_reply *o, const char *authenticator)
{
	start_xml(o);
	sbuf_addstr(&o->body, "<account_out>\n");
	xml_elem_str(&o->body, 4, "authenticator", authenticator);
	sbuf_addstr(&o->body, "</account_out>\n");
}

/* create_account.php?email_addr=E&passwd_hash=H&user_name=N[&team_name=T][&invite_code=C] */
static void create_account(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	struct account_new a = { 0 };
	struct account_error e;
	struct db_user u = { 0 };

	if (!usable(c, r, o) || !(a.email = need(r, o, "email_addr")) ||
	    !(a.passwd_hash = need(r, o, "passwd_hash")))
		return;
	/* an empty name is a bad name (-188), as upstream */
	if (!(a.name = web_param(r, "user_name"))) {
		need(r, o, "user_name");
		return;
	}
	a.passwd_len = -1;
	a.team_name = web_param(r, "team_name");
	a.invite_code = web_param(r, "invite_code");
	a.door = ACCT_DOOR_RPC;
	a.addr = r->remote_addr;
	if (account_create(c->db, c->cfg, c->acct, &a, &u, &e) != ACCT_OK)
		acct_error(r, o, &e);
	else
		account_out(o, u.authenticator);
	db_user_release(&u);
}

/* lookup_account.php?email_addr=E[&passwd_hash=H]; no hash: does it exist? */
static void lookup_account(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	const char *email, *hash = web_param(r, "passwd_hash");
	struct account_error e;
	struct db_user u = { 0 };

	if (!usable(c, r, o))
		return;
	if (web_param(r, "ldap_auth") || web_param(r, "server_assigned_cookie")) {
		rpc_error(r, o, ACCT_ERR_GENERIC, "This project does not support LDAP or cookie "
			  "logins");
		return;
	}
	if (!(email = need(r, o, "email_addr")))
		return;
	if (hash && !*hash)
		hash = NULL;
	if (account_lookup(c->db, c->acct, r->remote_addr, email, hash, &u, &e) != ACCT_OK) {
		acct_error(r, o, &e);
	} else if (!hash) {
		start_xml(o);
		sbuf_addstr(&o->body, "<account_out>\n    <success/>\n</account_out>\n");
	} else {
		account_out(o, u.authenticator);
	}
	db_user_release(&u);
}

/* The account of an authenticator given as name (throttled), or an error reply (-136). */
bool by_key(const struct web_ctx *c, const struct web_req *r, struct web_reply *o,
	    const char *name, struct db_user *u)
{
	const char *key = need(r, o, name);
	struct account_error e;

	if (!key)
		return false;
	if (account_lookup_auth(c->db, c->acct, r->remote_addr, key, u, &e) == ACCT_OK)
		return true;
	if (e.num == ACCT_ERR_NOT_FOUND)
		account_fail(&e, ACCT_ERR_NOT_FOUND, "Not found");
	acct_error(r, o, &e);
	return false;
}

static void weak_auth(const struct db_user *u, struct sbuf *b)
{
	char h[33];

	passwd_hash_of(u->authenticator, u->passwd_hash ? u->passwd_hash : "", h);
	sbuf_addf(b, "%" PRId64 "_%s", u->id, h);
}

void elem_url(struct sbuf *b, const char *name, const char *v)
{
	sbuf_addf(b, "    <%s>", name);
	web_urlencode(b, v);
	sbuf_addf(b, "</%s>\n", name);
}

/* am_get_info.php?account_key=K: what an account manager may know of the account. */
static void am_get_info(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	struct db_user u = { 0 };
	struct db_team t = { 0 };
	struct sbuf *b = &o->body, w = SBUF_INIT(128);
	char cpid[33];

	if (!usable(c, r, o) || !by_key(c, r, o, "account_key", &u))
		goto out;
	start_xml(o);
	sbuf_addstr(b, "<am_get_info_reply>\n    <success/>\n");
	xml_elem_i64(b, 4, "id", u.id);
	elem_url(b, "name", u.name);
	elem_url(b, "country", u.country);
	weak_auth(&u, &w);
	xml_elem_str(b, 4, "weak_auth", sbuf_str(&w));
	account_external_cpid(&u, cpid);
	xml_elem_str(b, 4, "cpid", cpid);
	xml_elem_i64(b, 4, "has_profile", u.has_profile);
	xml_elem_i64(b, 4, "create_time", u.create_time);
	sbuf_addf(b, "    <global_prefs>\n%s\n    </global_prefs>\n", u.global_prefs ? u.global_prefs : "");
	sbuf_addf(b, "    <project_prefs>\n%s\n    </project_prefs>\n", u.project_prefs ? u.project_prefs : "");
	elem_url(b, "url", u.url);
	xml_elem_i64(b, 4, "send_email", u.send_email);
	xml_elem_i64(b, 4, "show_hosts", u.show_hosts);
	xml_elem_i64(b, 4, "teamid", u.teamid);
	xml_elem_str(b, 4, "venue", u.venue);
	if (*u.postal_code)
		elem_url(b, "postal_code", u.postal_code);
	if (u.teamid && db_team_lookup_id(c->db, u.teamid, &t) == DB_OK && t.userid == u.id)
		sbuf_addstr(b, "    <teamfounder/>\n");
	sbuf_addstr(b, "</am_get_info_reply>\n");
out:
	sbuf_release(&w);
	db_team_release(&t);
	db_user_release(&u);
}

static const struct {
	const char *page;
	void (*fn)(const struct web_ctx *, const struct web_req *, struct web_reply *);
} rpcs[] = {
	{ "get_project_config.php", get_project_config },
	{ "create_account.php", create_account },
	{ "lookup_account.php", lookup_account },
	{ "am_get_info.php", am_get_info },
	{ "am_set_info.php", am_set_info },
	{ "show_user.php", show_user_xml },
	{ "team_lookup.php", team_lookup },
};

static bool is_xml(const struct web_req *r)
{
	const char *f = web_param(r, "format");

	return f && !strcmp(f, "xml");
}

int user_rpc(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rpcs); i++) {
		if (strcmp(r->page, rpcs[i].page))
			continue;
		/* show_user.php without format=xml is the web page */
		if (rpcs[i].fn == show_user_xml && !is_xml(r))
			return -1;
		if (r->bad && rpcs[i].fn != get_project_config)
			rpc_error(r, o, ACCT_ERR_GENERIC, r->bad_why);
		else
			rpcs[i].fn(c, r, o);
		return 0;
	}
	return -1;
}
