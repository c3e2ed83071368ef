/*
 * db_tool_open(): the tool skeleton's database connection; see db_tool.h.
 */
#include "db_tool.h"
#include "db.h"

#define DB_TOOL_WAIT 5.0        /* seconds db_open() may retry */

int db_tool_open(struct tool_ctx *ctx)
{
	struct db_params dp;

	db_params_from_config(&dp, &ctx->cfg);
	if (db_open(&ctx->db, &dp, DB_TOOL_WAIT) != DB_OK) {
		ctx->db = NULL;
		return -1;
	}
	ctx->close_db = db_close;
	return 0;
}
