/*
 * The daemon skeleton; see daemon.h. The loop is
 *
 *   until a signal or the stop file: pass(); after work go again, after
 *   nothing sleep --sleep seconds, after an error back off (1, 2, 4 .. 60 s)
 *
 * Signals only set a flag: the pass in progress always finishes, so a daemon
 * never stops halfway through a change. Sleeps wake at once on a signal.
 */
#include "daemon.h"
#include "db.h"
#include "log.h"
#include "sig.h"

#include <ctype.h>
#include <signal.h>
#include <sys/stat.h>

#define DAEMON_MAX_BACKOFF 60.0         /* seconds */
#define DAEMON_DB_WAIT 10.0             /* seconds db_open() may retry at start */
#define DAEMON_DB_REWAIT 2.0            /* ... and when reconnecting between passes */

struct daemon_opts {
	bool one_pass;
	bool until_idle;
	double sleep;
	char *config;
	bool check_config;
};

#define O(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct daemon_opts, field), def, (flags) | PARAM_NOCONFIG, min, max, arg, help }

static const struct param daemon_params[] = {
	O("one_pass", PARAM_BOOL, one_pass, NULL, 0, 0, 0, NULL,
	  "do one pass, then exit (status 1 if it failed)"),
	O("until_idle", PARAM_BOOL, until_idle, NULL, 0, 0, 0, NULL,
	  "do passes until one finds nothing to do, then exit"),
	O("sleep", PARAM_DOUBLE, sleep, "5", PARAM_BOUNDED, 0, 86400, "S",
	  "seconds to sleep after a pass that found nothing to do"),
	O("sleep_interval", PARAM_DOUBLE, sleep, "5", PARAM_BOUNDED, 0, 86400, "S",
	  "the same as --sleep (upstream BOINC's name)"),
	O("config", PARAM_STR, config, NULL, 0, 0, 0, "PATH",
	  "the project's config.xml (default: $WSEQ_PROJECT_DIR/config.xml, ./config.xml)"),
	O("check_config", PARAM_BOOL, check_config, NULL, 0, 0, 0, NULL,
	  "read config.xml and the options, report any problem, and exit"),
	PARAM_TABLE_END
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

static const int caught[] = { SIGTERM, SIGINT, SIGHUP };

/* No SA_RESTART: a signal must cut a sleep short. */
static void signals_catch(struct sigaction *old)
{
	got_signal = 0;
	sig_set(caught, ARRAY_SIZE(caught), on_signal, 0, old);
}

static void signals_restore(const struct sigaction *old)
{
	sig_restore(caught, ARRAY_SIZE(caught), old);
}

/* Private part of the context: the stop file's path. */
struct daemon_run {
	struct daemon_ctx ctx;
	char *stop_file;
	struct project_config cfg;
};

static const char *stop_reason(const struct daemon_ctx *ctx)
{
	const struct daemon_run *r = (const struct daemon_run *)ctx;
	struct stat st;

	if (got_signal)
		return signal_name(got_signal);
	if (ctx->cfg->stop_daemons)
		return "<stop_daemons/> in config.xml";
	if (r->stop_file && stat(r->stop_file, &st) == 0)
		return "stop_daemons file present";
	return NULL;
}

bool daemon_stopping(const struct daemon_ctx *ctx)
{
	return stop_reason(ctx) != NULL;
}

/*
 * Sleep s seconds of real time, waking early for a signal or the stop file.
 * Real (monotonic) time on purpose: now() may be shifted by tests.
 */
static void sleep_interruptible(const struct daemon_ctx *ctx, double s)
{
	struct timespec t0, t;
	double left = s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0 && !daemon_stopping(ctx)) {
		double step = left < 0.5 ? left : 0.5;
		struct timespec ts = { (time_t)step, (long)((step - (double)(time_t)step) * 1e9) };

		nanosleep(&ts, NULL);   /* EINTR on a signal: the loop test sees the flag */
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = s - ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9);
	}
}

static double elapsed_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --- the database ------------------------------------------------------ */

/*
 * The db layer reconnects by itself when a statement finds the server gone;
 * the skeleton adds the first connection, a ping before retrying a failed
 * pass, and a fresh connection when a pass asks for one.
 */
static int daemon_db_connect(struct daemon_ctx *ctx, double wait)
{
	struct db_params p;

	db_params_from_config(&p, ctx->cfg);
	if (db_open(&ctx->db, &p, wait) != DB_OK) {
		ctx->db = NULL;
		return log_error("cannot connect to the database");
	}
	log_debug("connected to the database");
	return 0;
}

static void daemon_db_close(struct daemon_ctx *ctx)
{
	if (ctx->db)
		db_close(ctx->db);
	ctx->db = NULL;
}

/* --- options ----------------------------------------------------------- */

static void usage(const struct daemon_spec *spec)
{
	printf("usage: %s [options]\n", spec->name);
	if (spec->summary)
		printf("%s\n", spec->summary);
	printf("\nCommon daemon options:\n");
	printf("  %-28s %s\n", "-d N", "log level: 1 errors, 2 information (default), 3 or 4 debugging");
	printf("  %-28s %s\n", "--mod N I",
	       "one of N instances: handle only rows whose id % N is I (0 <= I < N)");
	param_print_help(daemon_params, stdout);
	printf("  %-28s %s\n", "-h, --help", "show this help and exit");
	if (spec->params && spec->params->name) {
		printf("\n%s options (also read from config.xml <config>):\n", spec->name);
		param_print_help(spec->params, stdout);
	}
	printf("\nUpstream BOINC's spelling with one dash (-one_pass, -sleep_interval 5,\n"
	       "-mod 2 0) is taken for every option.\n");
	printf("\nThe daemon logs to stderr and exits cleanly on SIGTERM, SIGINT, SIGHUP or\n"
	       "when the stop_daemons file exists in the project directory.\n");
}

static int parse_level(const char *s)
{
	long v;

	/* upstream's 4 is its debugging level with the SQL shown: here debugging */
	if (!s || parse_long(s, &v) < 0 || v < LOG_LVL_ERROR || v > LOG_LVL_DEBUG + 1)
		return log_error("-d needs a log level from 1 to 4 (got '%s')", s ? s : "");
	log_set_level(v > LOG_LVL_DEBUG ? LOG_LVL_DEBUG : (int)v);
	return 0;
}

static int parse_mod(struct daemon_ctx *ctx, const char *n, const char *i)
{
	if (!n || !i)
		return log_error("--mod needs two numbers: N instances and this one's index I");
	if (parse_long(n, &ctx->mod_n) < 0 || parse_long(i, &ctx->mod_i) < 0 || ctx->mod_n < 1 ||
	    ctx->mod_i < 0 || ctx->mod_i >= ctx->mod_n)
		return log_error("--mod %s %s: need N >= 1 and 0 <= I < N", n, i);
	return 0;
}

/*
 * param_split_args()'s own(): -d and --mod are the skeleton's, and a
 * single-dash word naming no option of either table is an error here (the
 * daemon takes no arguments).
 */
static int take_own(void *arg, int argc, char **argv, int *i)
{
	struct daemon_ctx *ctx = arg;
	const char *a = argv[*i], *name = param_option_name(a);  /* upstream spells them -name too */

	if (!strcmp(a, "-d"))
		return parse_level(*i + 1 < argc ? argv[++*i] : NULL) < 0 ? -1 : 1;
	if (a[0] == '-' && a[1] == 'd' && isdigit((unsigned char)a[2]))
		return parse_level(a + 2) < 0 ? -1 : 1;
	if (name && !strcmp(name, "mod")) {
		if (parse_mod(ctx, *i + 1 < argc ? argv[*i + 1] : NULL,
			      *i + 2 < argc ? argv[*i + 2] : NULL) < 0)
			return -1;
		*i += 2;
		return 1;
	}
	if (a[0] == '-' && a[1] != '-' && !(name && (param_find_option(daemon_params, name) ||
						     param_find_option(ctx->spec->params, name))))
		return log_error("unknown option %s (see --help)", a);
	return 0;
}

/*
 * Take the skeleton's own options out of argv: -d and --mod here, the
 * daemon_params ones into *common, the rest (the daemon's) into *rest. Both
 * vectors start with argv[0] so param_parse_args() can read them.
 * Returns 0, 1 for --help, -1 on an error.
 */
static int split_args(struct daemon_ctx *ctx, int argc, char **argv, char **common, int *ncommon,
		      char **rest, int *nrest)
{
	struct param_argv out[] = { { .t = daemon_params, .v = common },
				    { .t = ctx->spec->params, .v = rest } };
	int rc = param_split_args(argc, argv, out, ARRAY_SIZE(out), take_own, ctx);

	*ncommon = out[0].n;
	*nrest = out[1].n;
	return rc;
}

/* The daemon's own options; no positional arguments. */
static int parse_daemon_args(const struct daemon_spec *spec, int argc, char **argv)
{
	static const struct param none[] = { PARAM_TABLE_END };
	int i = param_parse_args(spec->params ? spec->params : none, spec->settings, argc, argv);

	if (i < 0)
		return -1;
	if (i < argc)
		return log_error("unexpected argument '%s' (see --help)", argv[i]);
	return 0;
}

/* --- the loop ---------------------------------------------------------- */

static double backoff(int errors)
{
	double d = 1;

	while (--errors > 0 && d < DAEMON_MAX_BACKOFF)
		d *= 2;
	return d < DAEMON_MAX_BACKOFF ? d : DAEMON_MAX_BACKOFF;
}

static int run_pass(struct daemon_ctx *ctx, bool after_error)
{
	struct timespec t0;
	int rc;

	if (ctx->spec->needs_db && !ctx->db && daemon_db_connect(ctx, DAEMON_DB_REWAIT) < 0)
		return DAEMON_PASS_ERROR;
	if (ctx->db && after_error && db_ping(ctx->db) != DB_OK)
		return log_error("database unavailable: %s", db_error(ctx->db));
	ctx->npass++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ctx->spec->pass(ctx);
	log_debug("pass %lu: %s (%.3f s)", ctx->npass,
		  rc > 0 ? "did work" : rc == 0 ? "nothing to do" : "failed", elapsed_since(&t0));
	return rc;
}

static int run(struct daemon_ctx *ctx, const struct daemon_opts *o)
{
	int errors = 0;

	for (;;) {
		const char *why = stop_reason(ctx);
		int rc;

		if (why) {
			log_info("exiting: %s", why);
			return 0;
		}
		rc = run_pass(ctx, errors > 0);
		if (rc < 0) {
			errors++;
			if (o->one_pass || o->until_idle) {
				log_error("exiting: pass %lu failed", ctx->npass);
				return 1;
			}
			if (ctx->db && rc == DAEMON_PASS_RECONNECT) {
				log_info("reopening the database connection");
				daemon_db_close(ctx);
			}
			log_warn("pass %lu failed (%d in a row); next try in %.0f s", ctx->npass, errors,
				 backoff(errors));
			sleep_interruptible(ctx, backoff(errors));
			continue;
		}
		if (errors)
			log_info("pass %lu succeeded after %d failed", ctx->npass, errors);
		errors = 0;
		if (o->one_pass) {
			log_info("exiting after one pass");
			return 0;
		}
		if (rc == 0 && o->until_idle) {
			log_info("exiting: nothing left to do");
			return 0;
		}
		if (rc == 0)
			sleep_interruptible(ctx, o->sleep);
	}
}

/* --- daemon_main ------------------------------------------------------- */

static int setup(struct daemon_run *r, struct daemon_opts *o, int argc, char **argv)
{
	struct daemon_ctx *ctx = &r->ctx;
	const struct daemon_spec *spec = ctx->spec;
	char **common = xcalloc((size_t)argc + 1, sizeof(char *));
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	int ncommon, nrest, rc;

	rc = split_args(ctx, argc, argv, common, &ncommon, rest, &nrest);
	if (rc == 0 && param_parse_args(daemon_params, o, ncommon, common) != ncommon)
		rc = -1;
	/* Check the daemon's options now, before config.xml can hide an unknown one ... */
	if (rc == 0 && parse_daemon_args(spec, nrest, rest) < 0)
		rc = -1;
	/* ... and apply them again after it: the command line wins over config.xml. */
	if (rc == 0 && !spec->unlisted_params && config_names_check(spec->params) < 0)
		rc = -1;
	if (rc == 0) {
		rc = config_load(&r->cfg, o->config, spec->params, spec->settings) < 0 ? -1 : 0;
		if (rc == 0 && parse_daemon_args(spec, nrest, rest) < 0)
			rc = -1;
		if (rc == 0 && param_check_required(spec->params, spec->settings,
						    "the command line and config.xml") < 0)
			rc = -1;
	}
	free(common);
	free(rest);
	if (rc != 0)
		return rc;
	ctx->cfg = &r->cfg;
	r->stop_file = xasprintf("%s/stop_daemons", r->cfg.project_dir);
	return 0;
}

int daemon_main(const struct daemon_spec *spec, int argc, char **argv)
{
	struct daemon_opts o;
	struct daemon_run r;
	struct daemon_ctx *ctx = &r.ctx;
	struct sigaction old[ARRAY_SIZE(caught)];
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	ctx->spec = spec;
	ctx->settings = spec->settings;
	ctx->mod_n = 1;
	ctx->mod_i = 0;
	log_init(spec->name, NULL);
	param_set_defaults(daemon_params, &o);
	param_set_defaults(spec->params, spec->settings);

	rc = setup(&r, &o, argc, argv);
	if (rc == 1) {
		usage(spec);
		rc = 0;
		goto out_args;
	}
	if (rc < 0) {
		rc = 1;
		goto out_args;
	}
	if (o.check_config) {
		config_warn_ignored(&r.cfg, stdout);
		printf("%s: configuration ok (%s)\n", spec->name, r.cfg.path);
		rc = 0;
		goto out_args;
	}

	signals_catch(old);
	log_info("starting (pid %d, project %s)", (int)getpid(), r.cfg.project_dir);
	config_warn_ignored(&r.cfg, NULL);
	if (ctx->mod_n > 1)
		log_info("instance %ld of %ld: handling ids with id %% %ld == %ld", ctx->mod_i,
			 ctx->mod_n, ctx->mod_n, ctx->mod_i);
	rc = 1;
	if (spec->needs_db && daemon_db_connect(ctx, DAEMON_DB_WAIT) < 0)
		goto out_signals;
	if (spec->init && spec->init(ctx) < 0) {
		log_error("initialisation failed");
		goto out_db;
	}
	rc = run(ctx, &o);
	if (spec->fini)
		spec->fini(ctx);
out_db:
	daemon_db_close(ctx);
out_signals:
	signals_restore(old);
out_args:
	config_release(&r.cfg);
	free(r.stop_file);
	param_free(spec->params, spec->settings);
	param_free(daemon_params, &o);
	return rc;
}

void daemon_test_kill_point(const char *var)
{
	static long left = -1;
	const char *s;

	if (left < 0) {
		s = getenv(var);
		left = 0;
		if (s && parse_long(s, &left) < 0)
			left = 0;
		if (left <= 0)
			left = LONG_MAX;
	}
	if (left != LONG_MAX && --left == 0)
		raise(SIGKILL);
}
