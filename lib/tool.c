/*
 * The tool skeleton; see tool.h. tool_main() runs the same steps for every
 * command-line program:
 *
 *   log to stderr -> take out --help and the project directory option ->
 *   the tool's options (param.h) -> the subcommand -> the argument count ->
 *   check() -> config.xml -> the database -> run() -> teardown
 *
 * Everything before run() that the user got wrong is a usage error (exit 2,
 * one message); everything after is the tool's own failure (exit 1).
 */
#include "tool.h"
#include "log.h"

#include <stdarg.h>

/*
 * The project directory option, then its other spellings: upstream BOINC's
 * (--config_dir; make_project's --project_root) and wseq's earlier --project.
 */
static const struct param project_dir_names[] = {
	{ "project_dir", PARAM_STR, 0, NULL, 0, 0, 0, NULL, NULL },
	{ "config_dir", PARAM_STR, 0, NULL, 0, 0, 0, NULL, NULL },
	{ "project", PARAM_STR, 0, NULL, 0, 0, 0, NULL, NULL },
	{ "project_root", PARAM_STR, 0, NULL, 0, 0, 0, NULL, NULL },
	PARAM_TABLE_END
};

/* Does name (an option's text after the dashes) name the project directory for this tool? */
static bool is_project_dir_option(const struct tool_spec *spec, const char *name)
{
	if ((spec->flags & TOOL_NO_PROJECT_DIR) || !param_find_option(project_dir_names, name))
		return false;
	return !param_find_option(spec->params, name);  /* the tool's own option wins */
}

int tool_usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s (see --help)", msg);
	return TOOL_USAGE;
}

/* The chosen command's options (its own table, else the tool's). */
static const struct param *cmd_params(const struct tool_ctx *ctx)
{
	return ctx->cmd && ctx->cmd->params ? ctx->cmd->params : ctx->spec->params;
}

/* The tool's usage text and its commands' lines, or one command's line. */
static void usage_head(const struct tool_ctx *ctx)
{
	const struct tool_spec *spec = ctx->spec;
	const struct tool_cmd *c;

	if (ctx->cmd && ctx->cmd->usage) {
		printf("usage: %s%s%s\n", ctx->cmd_by_name ? "" : spec->name,
		       ctx->cmd_by_name ? "" : " ", ctx->cmd->usage);
		return;
	}
	fputs(spec->usage, stdout);
	for (c = spec->cmds; c && c->name; c++)
		if (c->usage)
			printf("  %s\n", c->usage);
}

static void usage(const struct tool_ctx *ctx)
{
	const struct tool_spec *spec = ctx->spec;
	bool one_cmd = ctx->cmd && ctx->cmd->usage;

	usage_head(ctx);
	printf("\noptions:\n");
	param_print_help(one_cmd ? cmd_params(ctx) : spec->params, stdout);
	if (!(spec->flags & TOOL_NO_PROJECT_DIR))
		printf("  %-28s %s;\n  %-28s %s\n", "--project_dir DIR",
		       spec->project_dir_help ? spec->project_dir_help
		       : "the project's directory (default: $WSEQ_PROJECT_DIR, else . or ..)",
		       "", "also spelled --config_dir, --project, --project_root");
	printf("  %-28s %s\n", "-h, --help", "show this help and exit");
	if (spec->epilog && !one_cmd)
		fputs(spec->epilog, stdout);
	if (spec->help)
		spec->help(ctx, stdout);
}

/* Take the project directory option's value out of argv[*i] (and argv[*i + 1]). */
static int take_project_dir(struct tool_ctx *ctx, const char *name, int argc, char **argv, int *i)
{
	const char *eq = strchr(name, '=');

	if (eq) {
		ctx->project_dir = eq + 1;
	} else if (*i + 1 < argc) {
		ctx->project_dir = argv[++*i];
	} else {
		return tool_usage_error("option --%s needs a value", name);
	}
	if (!*ctx->project_dir)
		return tool_usage_error("option --%.*s: the directory is empty",
					(int)(eq ? eq - name : (ptrdiff_t)strlen(name)), name);
	return 0;
}

/* param_split_args()'s own(): the project directory option is the skeleton's. */
static int take_own(void *arg, int argc, char **argv, int *i)
{
	struct tool_ctx *ctx = arg;
	const char *name = param_option_name(argv[*i]);

	if (!name || !is_project_dir_option(ctx->spec, name))
		return 0;
	return take_project_dir(ctx, name, argc, argv, i) < 0 ? -1 : 1;
}

/*
 * Split argv: -h/--help (returns 1) and the project directory option are the
 * skeleton's; everything else goes into rest (rest[0] = argv[0]) in order.
 */
static int split_args(struct tool_ctx *ctx, int argc, char **argv, char **rest, int *nrest)
{
	struct param_argv out = { .t = ctx->spec->params, .v = rest };
	int rc = param_split_args(argc, argv, &out, 1, take_own, ctx);

	*nrest = out.n;
	return rc < 0 ? TOOL_USAGE : rc;
}

/*
 * TOOL_OPTIONS_ANYWHERE: the options of t among argv[1..] wherever they are,
 * the other words left in ctx->argc/argv in their order ("--" ends the options).
 */
static int options_anywhere(struct tool_ctx *ctx, const struct param *t, int argc, char **argv)
{
	struct param_argv out[] = { { .t = t, .unknown = true }, { .drop_dashdash = true } };
	int i;

	ctx->sorted = xcalloc(2 * ((size_t)argc + 1), sizeof(char *));
	out[0].v = ctx->sorted;
	out[1].v = ctx->sorted + argc + 1;
	if (param_split_args(argc, argv, out, ARRAY_SIZE(out), NULL, NULL) != 0)
		return 1;       /* a --help the first split did not see: cannot happen */
	i = param_parse_args(t, ctx->settings, out[0].n, out[0].v);
	if (i < 0)
		return i == -2 ? 1 : TOOL_USAGE;
	if (i < out[0].n)
		return tool_usage_error("unexpected argument '%s'", out[0].v[i]);
	ctx->argc = out[1].n - 1;
	ctx->after_dashdash = out[1].after_dashdash - 1;
	ctx->argv = out[1].v + 1;
	return 0;
}

/* The options of t in argv[1..], the arguments after them left in ctx->argc/argv. */
static int parse_options(struct tool_ctx *ctx, const struct param *t, int argc, char **argv)
{
	int i;

	if (ctx->spec->flags & TOOL_OPTIONS_ANYWHERE)
		return options_anywhere(ctx, t, argc, argv);
	i = param_parse_args(t, ctx->settings, argc, argv);
	if (i < 0)
		return i == -2 ? 1 : TOOL_USAGE;
	ctx->argc = argc - i;
	ctx->argv = argv + i;
	return 0;
}

/* The subcommand called name, or NULL. */
static const struct tool_cmd *find_cmd(const struct tool_spec *spec, const char *name)
{
	const struct tool_cmd *c;

	for (c = spec->cmds; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void choose_cmd(struct tool_ctx *ctx, const struct tool_cmd *c)
{
	ctx->cmd = c;
	if (c->params)
		param_set_defaults(c->params, ctx->settings);
}

/* The subcommand ctx->argv[0] names, then the options after it. */
static int pick_cmd(struct tool_ctx *ctx)
{
	const struct tool_spec *spec = ctx->spec;
	const struct tool_cmd *c;

	if (ctx->cmd_by_name)
		return 0;
	if (ctx->argc < 1 && (spec->flags & TOOL_CMD_OPTIONAL))
		return 0;
	if (ctx->argc < 1)
		return tool_usage_error("a command is needed");
	c = find_cmd(spec, ctx->argv[0]);
	if (!c && (spec->flags & TOOL_CMD_OPTIONAL))
		return 0;
	if (!c)
		return tool_usage_error("unknown command '%s'", ctx->argv[0]);
	choose_cmd(ctx, c);
	return parse_options(ctx, cmd_params(ctx), ctx->argc, ctx->argv);
}

/* Too few or too many arguments: the message shows the synopsis (usage's first line). */
static int count_error(const struct tool_ctx *ctx, const char *what)
{
	const char *u = ctx->spec->usage;

	if (ctx->cmd)
		return tool_usage_error("%s arguments for %s", what, ctx->cmd->name);
	log_error("%s arguments (%.*s; see --help)", what, (int)strcspn(u, "\n"), u);
	return TOOL_USAGE;
}

/* Options, subcommand and argument count: 0, 1 for --help, or TOOL_USAGE. */
static int parse(struct tool_ctx *ctx, int argc, char **argv, char **rest)
{
	const struct tool_spec *spec = ctx->spec;
	const struct param *t = spec->params;
	int nrest, i, nargs, min, max;

	i = split_args(ctx, argc, argv, rest, &nrest);
	if (i == 0 && spec->cmds && !ctx->cmd && argc > 1 && !strcmp(argv[1], "help")) {
		i = 1;                                  /* "tool help [CMD]" is --help */
		argv++;
		argc--;
	}
	if (i == 1 && !ctx->cmd && argc > 1)
		ctx->cmd = find_cmd(spec, argv[1]);     /* "tool CMD --help": CMD's help */
	if (i != 0)
		return i;
	ctx->opt_argc = nrest;
	ctx->opt_argv = rest;
	if (spec->cmds && !ctx->cmd_by_name) {  /* the options before the command's name */
		i = param_parse_args(t, spec->settings, nrest, rest);
		if (i < 0)
			return i == -2 ? 1 : TOOL_USAGE;
		ctx->argc = nrest - i;
		ctx->argv = rest + i;
		i = pick_cmd(ctx);
	} else {
		i = parse_options(ctx, cmd_params(ctx), nrest, rest);
	}
	if (i != 0)
		return i;
	nargs = ctx->argc;
	min = ctx->cmd ? ctx->cmd->min_args : spec->min_args;
	max = ctx->cmd ? ctx->cmd->max_args : spec->max_args;
	if (max == 0 && nargs > 0)
		return tool_usage_error("unexpected argument '%s'", ctx->argv[0]);
	if (nargs < min || (max >= 0 && nargs > max))
		return count_error(ctx, nargs < min ? "too few" : "too many");
	return 0;
}

/* config.xml, the database, then the work. */
static int run(struct tool_ctx *ctx)
{
	const struct tool_spec *spec = ctx->spec;

	if (spec->load_config && spec->load_config(ctx) < 0)
		return -1;
	if (spec->open_db && spec->open_db(ctx) < 0)
		return -1;
	return spec->run ? spec->run(ctx) : ctx->cmd->fn(ctx);
}

static int exit_status(const struct tool_spec *spec, int rc)
{
	if (rc == TOOL_USAGE)
		return spec->usage_status ? spec->usage_status : TOOL_EXIT_USAGE;
	return rc < 0 ? 1 : rc;
}

/* The last part of a path: what a program was run as. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int tool_main(const struct tool_spec *spec, int argc, char **argv)
{
	struct tool_ctx ctx;
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.spec = spec;
	ctx.settings = spec->settings;
	ctx.all_argc = argc;
	ctx.all_argv = argv;
	if ((spec->flags & TOOL_CMD_FROM_NAME) && find_cmd(spec, base_name(argv[0]))) {
		choose_cmd(&ctx, find_cmd(spec, base_name(argv[0])));
		ctx.cmd_by_name = true;
	}
	log_init(ctx.cmd_by_name ? ctx.cmd->name : spec->name, NULL);
	param_set_defaults(spec->params, spec->settings);
	param_set_defaults(spec->config_params, spec->config_settings);
	if (spec->init)
		spec->init(&ctx);
	rc = parse(&ctx, argc, argv, rest);
	if (rc == 1) {
		usage(&ctx);
		rc = 0;
	} else if (rc == 0) {
		rc = spec->check ? spec->check(&ctx) : 0;
		if (rc == 0)
			rc = run(&ctx);
		if (rc == 0 && fflush(stdout) != 0)
			rc = log_error("cannot write the output: %s", strerror(errno));
	}
	if (spec->fini)
		spec->fini(&ctx);
	if (ctx.db && ctx.close_db)
		ctx.close_db(ctx.db);
	if (ctx.free_config)
		ctx.free_config(&ctx.cfg);
	param_free(spec->params, spec->settings);
	if (ctx.cmd && ctx.cmd->params)
		param_free(ctx.cmd->params, spec->settings);
	param_free(spec->config_params, spec->config_settings);
	free(ctx.sorted);
	free(rest);
	log_close();
	return exit_status(spec, rc);
}
