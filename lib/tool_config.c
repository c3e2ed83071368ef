/*
 * config.xml for the tool skeleton (tool.h): kept out of tool.c so that a
 * tool that reads no config.xml (sweep_client, shipped to hosts) links no
 * XML parser. A tool that reads it names tool_load_config() as its spec's
 * load_config, or calls it on the paths that need it.
 */
#include "tool.h"

char *tool_config_path(const struct tool_ctx *ctx)
{
	return ctx->project_dir ? xasprintf("%s/config.xml", ctx->project_dir) : NULL;
}

int tool_load_config_at(struct tool_ctx *ctx, const char *path)
{
	const struct tool_spec *spec = ctx->spec;

	ctx->free_config = config_release;
	return config_load(&ctx->cfg, path, spec->config_params, spec->config_settings);
}

int tool_load_config(struct tool_ctx *ctx)
{
	char *path = tool_config_path(ctx);
	int rc = tool_load_config_at(ctx, path);

	free(path);
	return rc;
}
