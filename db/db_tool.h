/*
 * The database side of the tool skeleton (lib/tool.h): a tool that needs the
 * database sets .open_db = db_tool_open in its spec. It lives in db/ so that
 * lib/ never includes db.h.
 */
#ifndef WSEQ_DB_TOOL_H
#define WSEQ_DB_TOOL_H

#include "tool.h"

/* Connect ctx->db from ctx->cfg (waiting a few seconds for the server); 0 / -1 (logged). */
int db_tool_open(struct tool_ctx *ctx);

#endif
