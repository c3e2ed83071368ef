/*
 * The one command-line tool skeleton (git's run_builtin, Postfix's
 * *_server_main), as daemons/daemon.h is the daemons'. A tool is a struct
 * tool_spec -- its name, usage text, option table, what it needs (config.xml,
 * the database), and either run() or a table of subcommands -- handed to
 * tool_main(), which owns what every tool shares: logging to stderr, the
 * options (param.h tables), -h/--help (usage on stdout, exit 0), usage errors
 * (one message on stderr, exit 2), the project directory option, config.xml,
 * the database connection and teardown. A tool file holds its work only:
 *
 *   int main(int argc, char **argv) { return tool_main(&cancel_jobs_spec, argc, argv); }
 *
 * Exit status: 0 success, 1 failure, 2 usage error (or the spec's
 * usage_status); run() may return another status of its own (documented in
 * its man page) by returning it.
 */
#ifndef WSEQ_TOOL_H
#define WSEQ_TOOL_H

#include "common.h"
#include "config.h"
#include "param.h"

struct db;
struct tool_ctx;

#define TOOL_EXIT_USAGE 2
/* What a run() or check() returns for a usage error it has logged: exit 2. */
#define TOOL_USAGE (-2)

/*
 * A subcommand: "tool [options] NAME [options] [ARG...]" runs fn; usage is its
 * line in --help ("NAME ARGS  what it does"), and "tool NAME --help" (or "tool
 * help NAME") prints it as the usage line, then the options.
 */
struct tool_cmd {
	const char *name;
	int (*fn)(struct tool_ctx *ctx);
	const char *usage;              /* NULL: the tool's usage text covers it */
	int min_args, max_args;         /* its positional arguments (max_args < 0: no limit) */
	const struct param *params;     /* its options after its name, into the spec's
					   settings (defaults set when it is chosen; they
					   should not overlap the spec's); NULL: the spec's */
};

enum tool_flags {
	TOOL_NO_PROJECT_DIR = 1 << 1,   /* the tool works without a project: no --project_dir */
	TOOL_CMD_OPTIONAL = 1 << 2,     /* a first argument that names no command is an
					   argument: run() with ctx->cmd NULL */
	TOOL_CMD_FROM_NAME = 1 << 3,    /* a program run by a command's name (a link: bin/start)
					   runs that command; no command word is read then */
	TOOL_OPTIONS_ANYWHERE = 1 << 4, /* options may follow the arguments (after a
					   command's name, with subcommands) */
};

struct tool_spec {
	const char *name;               /* log tag */
	const char *usage;              /* --help: synopsis and description, before the options */
	const char *epilog;             /* --help: text after the options; may be NULL */
	const struct param *params;     /* the tool's options; may be NULL */
	void *settings;                 /* the struct params describes */
	int flags;                      /* enum tool_flags */
	/*
	 * Reads ctx->cfg before run() (tool_load_config(); config.xml is read by
	 * lib/tool_config.c, so a tool without it links no XML parser); NULL: none.
	 */
	int (*load_config)(struct tool_ctx *ctx);
	const struct param *config_params;      /* with load_config: <config> elements the */
	void *config_settings;                  /*   tool reads too (config_load()) */
	int min_args, max_args;         /* positional arguments (max_args < 0: no limit);
					   with subcommands, each has its own */
	/* Opens ctx->db from ctx->cfg (db_tool_open() in db/db_tool.h); NULL: no database. */
	int (*open_db)(struct tool_ctx *ctx);
	/*
	 * After the table's defaults, before the options are read: sets what a
	 * default in the table cannot say (create_work's "not given"); may be NULL.
	 */
	void (*init)(struct tool_ctx *ctx);
	/* Checks options and arguments before config.xml is read; may return TOOL_USAGE. */
	int (*check)(struct tool_ctx *ctx);
	/*
	 * The work: 0, -1 (failure, logged: exit 1), TOOL_USAGE, or an exit status > 0.
	 * With subcommands it may be NULL (then ctx->cmd->fn is called instead), or
	 * wrap ctx->cmd->fn (e.g. to give its failures an exit status of the tool's).
	 */
	int (*run)(struct tool_ctx *ctx);
	/* Subcommands, ended by { NULL }: the first argument picks one. */
	const struct tool_cmd *cmds;
	/* At teardown, always: frees what check() or run() left in settings; may be NULL. */
	void (*fini)(struct tool_ctx *ctx);
	/* --help's text for --project_dir when the tool's meaning differs; may be NULL. */
	const char *project_dir_help;
	/* --help: more text made at run time, after epilog (ctx->cmd: a command's help); may be NULL. */
	void (*help)(const struct tool_ctx *ctx, FILE *fp);
	/*
	 * The exit status of a usage error where 2 means something else to the
	 * program's caller (sweep_client: 2 is the master's 403); 0: 2.
	 */
	int usage_status;
};

struct tool_ctx {
	const struct tool_spec *spec;
	void *settings;                 /* spec->settings, parsed */
	const char *project_dir;        /* --project_dir, or NULL */
	struct project_config cfg;      /* with load_config */
	void (*free_config)(struct project_config *cfg);        /* set when cfg was read */
	struct db *db;                  /* with open_db */
	void (*close_db)(struct db *db);        /* set by open_db */
	int argc;                       /* the positional arguments (after the */
	char **argv;                    /*   subcommand's name) */
	const struct tool_cmd *cmd;     /* the subcommand chosen, or NULL */
	bool cmd_by_name;               /* cmd is the program's name (TOOL_CMD_FROM_NAME) */
	int all_argc;                   /* the command line as given, for an option */
	char **all_argv;                /*   given more than once (param.h keeps the last) */
	int opt_argc;                   /* the command line without the skeleton's options */
	char **opt_argv;                /*   (argv[0] first), to parse the options again */
	char **sorted;                  /* TOOL_OPTIONS_ANYWHERE: options and arguments apart */
	int after_dashdash;             /* TOOL_OPTIONS_ANYWHERE: argv[i] for i >= this came
					   after "--" (argc: none) */
};

/* Run the tool; returns main's exit status. Never calls exit(). */
int tool_main(const struct tool_spec *spec, int argc, char **argv);

/* Log a usage error (one line, "(see --help)" added) and return TOOL_USAGE. */
int tool_usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* config.xml's path from --project_dir (allocated), or NULL for config_locate(). */
char *tool_config_path(const struct tool_ctx *ctx);
/*
 * Read config.xml (from --project_dir, else config_locate()) into ctx->cfg:
 * the spec's load_config, or called by a tool that needs it on some paths
 * only; 0, or -1 (logged). Teardown frees it.
 */
int tool_load_config(struct tool_ctx *ctx);
/* The same from path (NULL: config_locate()), for a tool that finds config.xml itself. */
int tool_load_config_at(struct tool_ctx *ctx, const char *path);

#endif
