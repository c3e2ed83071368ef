/*
 * db_upgrade: bring a project's database to the schema this wseq expects,
 * by running the pending upgrade files (NNN_what.sql) in order. Reads the
 * database settings from the project's config.xml unless --db_name is
 * given. See doc/db_upgrade.md.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_upgrade.h"
#include "log.h"
#include "param.h"
#include "tool.h"

struct options {
	char *upgrade_dir;
	bool check;
	char *db_name;
	char *db_user;
	char *db_passwd;
	char *db_host;
	long db_port;
	char *db_socket;
	long wait;
};

#define O(name, type, field, def, flags, arg, help) \
	{ name, type, offsetof(struct options, field), def, flags, 0, 0, arg, help }

static const struct param options[] = {
	O("upgrade_dir", PARAM_STR, upgrade_dir, NULL, 0, "DIR",
	  "directory of the NNN_*.sql upgrade files (default: WSEQ_DATADIR or the installed data directory)"),
	O("check", PARAM_BOOL, check, "0", 0, NULL,
	  "only print the current and latest versions; exit 1 if upgrades are pending"),
	O("db_name", PARAM_STR, db_name, NULL, 0, "NAME",
	  "database name; given, config.xml is not read and the --db_ options apply"),
	O("db_user", PARAM_STR, db_user, NULL, 0, "USER", "database user"),
	O("db_passwd", PARAM_STR, db_passwd, NULL, PARAM_SECRET, "PASSWORD", "database password"),
	O("db_host", PARAM_STR, db_host, NULL, 0, "HOST", "database host"),
	{ "db_port", PARAM_INT, offsetof(struct options, db_port), "0", PARAM_BOUNDED, 0, 65535,
	  "PORT", "database TCP port" },
	O("db_socket", PARAM_STR, db_socket, NULL, 0, "PATH",
	  "database unix socket (wins over --db_host)"),
	{ "wait", PARAM_INT, offsetof(struct options, wait), "0", PARAM_BOUNDED, 0, 3600,
	  "SECONDS", "wait up to this long for the database to accept connections" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: db_upgrade [options]\n"
	"\n"
	"Apply the pending schema upgrades to the project's database, each\n"
	"recorded in its schema_version table once it has run. Rerunning does\n"
	"nothing. Exit status: 0 up to date, 1 error (or behind, with --check),\n"
	"2 bad usage.\n";

static char *default_upgrade_dir(void)
{
	const char *d = getenv("WSEQ_DATADIR");

	return xstrdup(d && *d ? d : WSEQ_PKGDATADIR);
}

static int check(struct db *db, const char *dir)
{
	struct db_upgrade_file *f;
	size_t n;
	long cur, latest;
	int rc;

	if (db_upgrade_list(dir, &f, &n) < 0)
		return 1;
	latest = db_upgrade_latest(f, n);
	db_upgrade_list_free(f, n);
	rc = db_schema_version(db, &cur);
	if (rc == DB_NOT_FOUND) {
		log_error("the database has no schema_version table: load schema.sql first");
		return 1;
	}
	if (rc != DB_OK)
		return 1;
	printf("current %ld\nlatest %ld\n", cur, latest);
	if (cur < latest) {
		printf("behind: run db_upgrade\n");
		return 1;
	}
	if (cur > latest) {
		printf("newer than this wseq\n");
		return 1;
	}
	printf("up to date\n");
	return 0;
}

/* The database: from the --db_ options, else config.xml's settings. */
static int db_params_get(struct tool_ctx *ctx, struct db_params *p)
{
	const struct options *o = ctx->settings;

	if (o->db_name) {
		*p = (struct db_params){ o->db_name, o->db_user, o->db_passwd, o->db_host,
					 o->db_socket, o->db_port };
		return 0;
	}
	if (tool_load_config(ctx) < 0)
		return log_error("no database settings: give --project_dir or --db_name");
	db_params_from_config(p, &ctx->cfg);
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct db_params p;
	struct db *db = NULL;
	char *dir;
	long from, to;
	int rc = 1;

	if (db_params_get(ctx, &p) < 0)
		return 1;
	dir = o->upgrade_dir ? xstrdup(o->upgrade_dir) : default_upgrade_dir();
	if (db_open(&db, &p, (double)o->wait) == DB_OK) {
		if (o->check) {
			rc = check(db, dir);
		} else if (db_upgrade_apply(db, dir, &from, &to) == DB_OK) {
			if (from == to)
				printf("schema version %ld: up to date\n", to);
			else
				printf("schema upgraded from version %ld to %ld\n", from, to);
			rc = 0;
		}
	}
	free(dir);
	db_close(db);
	return rc;
}

static struct options opts;

static const struct tool_spec db_upgrade_spec = {
	.name = "db_upgrade",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&db_upgrade_spec, argc, argv);
}
