/*
 * update_stats: the daily decay of recent average credit (RAC). Credit
 * updates a row's RAC only when credit comes; a volunteer who stopped
 * would keep their last RAC for ever. So once a day every user, host and
 * team whose RAC was last updated more than a day ago is decayed to now,
 * as if it had earned nothing since (lib/credit.h, boinc-account-rpc.md
 * section 8). make_project runs it every day as a task of config.xml.
 */
#include "common.h"
#include "config.h"
#include "db_account.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "wtime.h"

struct options {
	bool users, hosts, teams;
	double min_rac;
	double min_age;
};

static const struct param options[] = {
	{ "update_users", PARAM_BOOL, offsetof(struct options, users), "0", 0, 0, 0, NULL,
	  "decay users (with none of --update_users/hosts/teams: all three)" },
	{ "update_hosts", PARAM_BOOL, offsetof(struct options, hosts), "0", 0, 0, 0, NULL,
	  "decay hosts" },
	{ "update_teams", PARAM_BOOL, offsetof(struct options, teams), "0", 0, 0, 0, NULL,
	  "decay teams" },
	{ "min_rac", PARAM_DOUBLE, offsetof(struct options, min_rac), "0.1", PARAM_BOUNDED, 0, 1e12,
	  "X", "leave rows whose recent average credit is X or less" },
	{ "min_age", PARAM_DOUBLE, offsetof(struct options, min_age), "86400", PARAM_BOUNDED, 0,
	  365 * 86400.0, "S", "decay rows not updated in the last S seconds" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: update_stats [options]\n\n"
	"Decay the recent average credit of users, hosts and teams that earned no\n"
	"credit in the last day (BOINC's update_stats). Run it in the project\n"
	"directory once a day.\n";

static int decay(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	static const char *const names[DB_CREDIT_NKINDS] = { "hosts", "users", "teams" };
	bool want[DB_CREDIT_NKINDS] = { o->hosts, o->users, o->teams };
	bool all = !o->hosts && !o->users && !o->teams;
	struct db *db = ctx->db;
	double t = dnow();
	int k, rc = 0;

	for (k = 0; k < DB_CREDIT_NKINDS && rc == 0; k++) {
		int64_t n = 0;

		if (!all && !want[k])
			continue;
		if (db_credit_decay_all(db, (enum db_credit_kind)k, t, t - o->min_age, o->min_rac,
					&n) != DB_OK)
			rc = -1;
		else
			printf("update_stats: %" PRId64 " %s decayed\n", n, names[k]);
	}
	return rc;
}

static struct options opts;

static const struct tool_spec update_stats_spec = {
	.name = "update_stats",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.run = decay,
};

int main(int argc, char **argv)
{
	return tool_main(&update_stats_spec, argc, argv);
}
