/*
 * The one daemon skeleton (Postfix's trigger_server_main). Every wseq daemon
 * is a struct daemon_spec -- its name, its parameter table, init(), pass(),
 * fini() -- handed to daemon_main(), which owns everything daemons share:
 * the common options (-d, --one_pass, --until_idle, --sleep, --mod, --config),
 * config.xml, logging to stderr, the database connection and reconnection,
 * SIGTERM/SIGINT/SIGHUP, the stop_daemons file, and back-off after errors.
 * A daemon file holds its policy and nothing else:
 *
 *   int main(int argc, char **argv) { return daemon_main(&transitioner_spec, argc, argv); }
 */
#ifndef WSEQ_DAEMON_H
#define WSEQ_DAEMON_H

#include "common.h"
#include "config.h"
#include "param.h"

struct db;
struct daemon_ctx;

/* What pass() returns. */
enum daemon_pass_rc {
	DAEMON_PASS_RECONNECT = -2,  /* the database connection is unusable: reconnect, back off */
	DAEMON_PASS_ERROR = -1,      /* failed (the daemon logged why): back off, try again */
	DAEMON_PASS_IDLE = 0,        /* nothing to do: sleep --sleep seconds */
	DAEMON_PASS_WORKED = 1,      /* did work (any value > 0): start the next pass at once */
};

struct daemon_spec {
	const char *name;               /* "transitioner": log tag and --help */
	const char *summary;            /* one line for --help */
	const struct param *params;     /* the daemon's own options, also read from
					   config.xml <config>; may be NULL */
	void *settings;                 /* the struct params describes (zero-initialised) */
	bool unlisted_params;           /* test daemons only: params need not be in
					   lib/config_names.c (config_names_check) */
	bool needs_db;                  /* connect before init(), reconnect after failures */
	int (*init)(struct daemon_ctx *ctx);    /* once; -1 ends the daemon (status 1); may be NULL */
	int (*pass)(struct daemon_ctx *ctx);    /* one pass; see enum daemon_pass_rc */
	void (*fini)(struct daemon_ctx *ctx);   /* once, after init() succeeded; may be NULL */
};

struct daemon_ctx {
	const struct daemon_spec *spec;
	const struct project_config *cfg;
	void *settings;                 /* spec->settings, filled from config.xml and options */
	struct db *db;                  /* NULL unless spec->needs_db */
	long mod_n, mod_i;              /* --mod N I: take rows with id % N == I (default 1, 0) */
	unsigned long npass;            /* passes started, counting the current one */
	void *priv;                     /* the daemon's own state, set by init() */
};

/* Run the daemon; returns main's exit status. Never calls exit(). */
int daemon_main(const struct daemon_spec *spec, int argc, char **argv);

/*
 * True once a signal or the stop file asks the daemon to end. A long pass may
 * check it between units of work and return early; the skeleton exits after
 * the pass returns either way.
 */
bool daemon_stopping(const struct daemon_ctx *ctx);
/*
 * For crash tests: with the environment variable var set to N, the Nth call
 * sends the process SIGKILL (a daemon killed between two statements of a
 * transaction). One variable per process.
 */
void daemon_test_kill_point(const char *var);

/* Is the row with this id this instance's under --mod? */
static inline bool daemon_mod_owns(const struct daemon_ctx *ctx, long id)
{
	return ctx->mod_n <= 1 || id % ctx->mod_n == ctx->mod_i;
}

#endif
