/*
 * account: the admins' door to accounts and teams, so nobody writes SQL to
 * add a volunteer or a submitter. The same rules as the account RPCs and
 * the web pages (backend/account.c), except that creation is never
 * disabled for an admin. See doc/account.md.
 */
#include "common.h"
#include "account.h"
#include "config.h"
#include "db.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_ops.h"
#include "db_records.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "passwd.h"
#include "wtime.h"

struct options {
	char *email;
	char *name;
	char *password_file;
	char *team;
	char *submit_rights;
	bool any_executable;
	bool ops;
	bool show_key;
};

#define O(name, type, field, def, arg, help) \
	{ name, type, offsetof(struct options, field), def, PARAM_NOCONFIG, 0, 0, arg, help }

static const struct param options[] = {
	O("email", PARAM_STR, email, NULL, "ADDR", "the account's e-mail address"),
	O("name", PARAM_STR, name, NULL, "NAME", "the user's name (create), the team's (team_create)"),
	O("password_file", PARAM_STR, password_file, NULL, "FILE",
	  "read the password from the first line of FILE (- : standard input)"),
	O("team", PARAM_STR, team, NULL, "TEAM", "the team to join (create, join)"),
	O("submit_rights", PARAM_STR, submit_rights, NULL, "APP|all",
	  "may submit jobs (remote submission, Condor) for app APP or for every app"),
	O("any_executable", PARAM_BOOL, any_executable, "0", NULL,
	  "grant: may also submit jobs that bring their own executable, to the apps marked\n"
	  "any_executable (off unless given; revoke takes it away with the rest)"),
	O("ops", PARAM_BOOL, ops, "0", NULL,
	  "create, grant: may administer the project on the ops pages (a right of its own:\n"
	  "submit rights never give it); revoke --ops takes only this away"),
	O("show_key", PARAM_BOOL, show_key, "0", NULL, "lookup: also print the account key"),
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: account COMMAND [options]\n"
	"\n"
	"Commands (run in the project directory):\n";

/* The password from the first line of a file or standard input; NULL (logged) if none. */
static char *read_password(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char buf[1024], *nl;

	if (!f) {
		log_error("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f != stdin)
		fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	if (!buf[0]) {
		log_error("%s: no password", path);
		return NULL;
	}
	return xstrdup(buf);
}

static int need(const char *value, const char *option)
{
	if (value && *value)
		return 0;
	return log_error("this command needs --%s (see --help)", option);
}

static int report(int rc, const struct account_error *e)
{
	if (rc == ACCT_OK)
		return 0;
	return log_error("%s (error %d)", e->msg, e->num);
}

/*
 * "all" or an app's name into user_submit / user_submit_app rows, and with
 * exec the right to submit jobs with their own executable.
 */
static int grant_rights(struct db *db, int64_t userid, const char *rights, bool exec)
{
	struct db_user_submit us = { .user_id = userid }, old = { .user_id = userid };
	struct db_user_submit_app usa = { .user_id = userid };
	struct db_app app = { 0 };
	int rc = DB_OK;

	if (strcmp(rights, "all")) {
		rc = db_app_lookup_name(db, rights, &app);
		if (rc == DB_NOT_FOUND)
			return log_error("--submit_rights: no app named %s", rights);
	}
	if (rc == DB_OK) {
		us.submit_all = !strcmp(rights, "all");
		us.any_executable = exec;
		rc = db_user_submit_lookup(db, &old);
		if (rc == DB_NOT_FOUND) {
			rc = db_user_submit_insert(db, &us);
		} else if (rc == DB_OK && (us.submit_all || exec)) {
			us.submit_all |= old.submit_all;
			us.manage_all = old.manage_all;
			us.quota = old.quota;
			us.logical_start_time = old.logical_start_time;
			us.max_jobs_in_progress = old.max_jobs_in_progress;
			us.any_executable |= old.any_executable;
			rc = db_user_submit_update(db, &us);
		}
	}
	if (rc == DB_OK && app.id) {
		usa.app_id = app.id;
		usa.manage = 1;
		rc = db_user_submit_app_insert(db, &usa);
		if (rc != DB_OK && db_errno(db) == 1062)
			rc = DB_OK;     /* had it already */
	}
	db_app_release(&app);
	if (rc != DB_OK)
		return log_error("cannot grant submit rights: %s", db_error(db));
	printf("user %" PRId64 " may submit jobs for %s%s\n", userid,
	       !strcmp(rights, "all") ? "every app" : rights,
	       exec ? ", with their own executable where an app allows it" : "");
	return 0;
}

/* Administering the project is granted and taken on its own. */
static int ops_right(struct db *db, int64_t userid, bool grant)
{
	int rc = grant ? db_ops_admin_grant(db, userid, now()) : db_ops_admin_revoke(db, userid);

	if (rc != DB_OK)
		return log_error("cannot change ops administration: %s", db_error(db));
	printf("user %" PRId64 " %s the project's administrators (ops pages)\n", userid,
	       grant ? "is one of" : "is no longer one of");
	return 0;
}

/* grant: --submit_rights, --ops, or both. */
static int grant(struct db *db, int64_t userid, const struct options *o)
{
	int rc = 0;

	if (!o->submit_rights && !o->ops)
		return log_error("grant needs --submit_rights or --ops (see --help)");
	if (o->submit_rights)
		rc = grant_rights(db, userid, o->submit_rights, o->any_executable);
	if (rc == 0 && o->ops)
		rc = ops_right(db, userid, true);
	return rc;
}

static int revoke_rights(struct db *db, int64_t userid)
{
	if (db_user_submit_revoke(db, userid) != DB_OK)
		return log_error("cannot revoke submit rights: %s", db_error(db));
	printf("user %" PRId64 " may no longer submit jobs\n", userid);
	return 0;
}

static void print_user(const struct db_user *u, bool key)
{
	printf("id %" PRId64 "\nname %s\nemail %s\ntotal_credit %f\nexpavg_credit %f\nteamid %" PRId64 "\n",
	       u->id, u->name, u->email_addr, u->total_credit, u->expavg_credit, u->teamid);
	if (key)
		printf("account_key %s\n", u->authenticator);
}

/* The password option as H = md5(password + address); NULL (logged) if unreadable. */
static char *hash_of(const struct options *o, long *len)
{
	char *pw = read_password(o->password_file), *h;
	char hex[PASSWD_HASH_HEX + 1];

	if (!pw)
		return NULL;
	*len = (long)strlen(pw);
	passwd_hash_of(pw, o->email, hex);
	memset(pw, 0, strlen(pw));
	free(pw);
	h = xstrdup(hex);
	return h;
}

static int cmd_create(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct db *db = ctx->db;
	struct account_new a = { 0 };
	struct account_error e;
	struct db_user u = { 0 };
	char *h;
	int rc;

	if (need(o->email, "email") || need(o->name, "name") || need(o->password_file, "password_file"))
		return -1;
	if (!(h = hash_of(o, &a.passwd_len)))
		return -1;
	a.email = o->email;
	a.passwd_hash = h;
	a.name = o->name;
	a.team_name = o->team;
	a.door = ACCT_DOOR_ADMIN;
	rc = report(account_create(db, &ctx->cfg, ctx->spec->config_settings, &a, &u, &e), &e);
	free(h);
	if (rc == 0) {
		printf("id %" PRId64 "\naccount_key %s\n", u.id, u.authenticator);
		if (o->submit_rights || o->ops)
			rc = grant(db, u.id, o);
	}
	db_user_release(&u);
	return rc;
}

static int find(struct db *db, const struct options *o, bool check_pw, struct db_user *u)
{
	struct account_error e;
	long len;
	char *h = NULL;
	int rc;

	if (need(o->email, "email"))
		return -1;
	if (check_pw && o->password_file && !(h = hash_of(o, &len)))
		return -1;
	rc = report(account_lookup(db, NULL, NULL, o->email, h, u, &e), &e);
	free(h);
	return rc;
}

static int cmd_password(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	const struct account_settings *set = ctx->spec->config_settings;
	struct db *db = ctx->db;
	struct db_user u = { 0 };
	struct account_error e;
	long len = 0;
	char *h = NULL;
	int rc = need(o->password_file, "password_file");

	if (rc == 0)
		rc = find(db, o, false, &u);
	if (rc == 0 && !(h = hash_of(o, &len)))
		rc = -1;
	if (rc == 0 && len < set->min_passwd_length)
		rc = log_error("the password must be at least %ld characters long", set->min_passwd_length);
	if (rc == 0)
		rc = report(account_set_passwd(db, &u, h, &e), &e);
	if (rc == 0)
		printf("user %" PRId64 ": password set\n", u.id);
	free(h);
	db_user_release(&u);
	return rc;
}

static int cmd_team_create(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct db *db = ctx->db;
	struct db_user u = { 0 };
	struct db_team t = { 0 };
	struct team_new n = { .name = o->name };
	struct account_error e;
	int rc = need(o->name, "name");

	if (rc == 0)
		rc = find(db, o, false, &u);
	if (rc == 0)
		rc = report(team_create(db, u.id, &n, &t, &e), &e);
	if (rc == 0)
		printf("team %" PRId64 " (%s), founded by user %" PRId64 "\n", t.id, t.name, u.id);
	db_team_release(&t);
	db_user_release(&u);
	return rc;
}

static int cmd_join(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct db *db = ctx->db;
	struct db_user u = { 0 };
	struct db_team t = { 0 };
	struct account_error e;
	int rc = o->team ? find(db, o, false, &u) : need(NULL, "team");

	if (rc == 0 && *o->team) {
		rc = team_lookup_name(db, o->team, &t);
		if (rc == DB_NOT_FOUND)
			rc = log_error("no team named %s", o->team);
		else if (rc != DB_OK)
			rc = log_error("cannot read the teams: %s", db_error(db));
	}
	if (rc == 0)
		rc = report(team_join(db, u.id, t.id, &e), &e);
	if (rc == 0)
		printf("user %" PRId64 ": %s%s\n", u.id, t.id ? "joined " : "left its team",
		       t.id ? t.name : "");
	db_team_release(&t);
	db_user_release(&u);
	return rc;
}

/* lookup, grant and revoke: the account named by --email, then what the command does. */
static int cmd_on_user(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	const char *cmd = ctx->cmd->name;
	struct db_user u = { 0 };
	int rc = find(ctx->db, o, !strcmp(cmd, "lookup"), &u);

	if (rc == 0 && !strcmp(cmd, "lookup"))
		print_user(&u, o->show_key);
	else if (rc == 0 && !strcmp(cmd, "grant"))
		rc = grant(ctx->db, u.id, o);
	else if (rc == 0)
		rc = o->ops ? ops_right(ctx->db, u.id, false) : revoke_rights(ctx->db, u.id);
	db_user_release(&u);
	return rc;
}

static const struct tool_cmd commands[] = {
	{ "create", cmd_create,
	  "create     --email A --name N --password_file F [--team T] [--submit_rights APP|all]\n"
	  "             [--ops]  make an account; prints its id and account key", 0, 0, NULL },
	{ "lookup", cmd_on_user,
	  "lookup     --email A [--password_file F] [--show_key]\n"
	  "             print the account (checking the password if given)", 0, 0, NULL },
	{ "password", cmd_password, "password   --email A --password_file F    set a new password", 0, 0, NULL },
	{ "grant", cmd_on_user,
	  "grant      --email A --submit_rights APP|all [--any_executable]\n"
	  "             let it submit jobs (and jobs with their own executable)\n"
	  "  grant      --email A --ops                let it administer the project (ops pages)", 0, 0, NULL },
	{ "revoke", cmd_on_user,
	  "revoke     --email A [--ops]              take submit rights (or with --ops:\n"
	  "                                            ops administration) away", 0, 0, NULL },
	{ "team_create", cmd_team_create,
	  "team_create --email FOUNDER --name TEAM   make a team, the founder joins", 0, 0, NULL },
	{ "join", cmd_join, "join       --email A --team T             join team T (\"\": leave)", 0, 0, NULL },
	{ NULL, NULL, NULL, 0, 0, NULL }
};

static struct options opts;
static struct account_settings acct_set;

static const struct tool_spec account_spec = {
	.name = "account",
	.usage = usage,
	.epilog = "\nA password is never taken on the command line (other users could read it).\n",
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.config_params = account_params,
	.config_settings = &acct_set,
	.open_db = db_tool_open,
	.cmds = commands,
};

int main(int argc, char **argv)
{
	return tool_main(&account_spec, argc, argv);
}
