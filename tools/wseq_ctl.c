/*
 * The project control programs, BOINC's bin/start, bin/stop and bin/status,
 * in one binary that dispatches on the name it was run by (or its first
 * argument: "wseq_ctl start"). They act on the <daemons> of the project's
 * config.xml: each daemon runs from the project's bin/ with its output
 * appended to log_dir/NAME.log, and its pid in pid_dir/NAME.pid. A pid file
 * counts only when its process is alive and really runs that daemon's
 * program (/proc/PID/cmdline), so a pid file left by kill -9 or a reboot
 * never makes a stranger "running" or a target for stop's signals.
 *
 * "bin/start --cron" is what an admin's crontab runs every five minutes (as
 * upstream BOINC's): it starts the daemons that should run and do not --
 * quietly, and not after bin/stop (pid_dir/stopped), nor while the
 * stop_daemons file or <stop_daemons/> asks daemons to exit -- and then
 * runs the periodic tasks that are due (wseq_ctl_cron.c).
 */
#include "config.h"
#include "daemon_proc.h"
#include "log.h"
#include "tool.h"
#include "wseq_ctl.h"
#include "wtime.h"

#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* LSB status codes */
#define STATUS_NOT_RUNNING 3
#define STATUS_UNKNOWN 4

struct ctl_opts {
	double timeout;
	double start_wait;
	bool cron;
	bool verbose;
};

static struct ctl_opts opts;

static const struct param ctl_params[] = {
	{ "timeout", PARAM_DOUBLE, offsetof(struct ctl_opts, timeout), "30", PARAM_NOCONFIG | PARAM_BOUNDED,
	  0, 3600, "S", "stop: seconds to wait for a daemon to exit before SIGKILL" },
	{ "start_wait", PARAM_DOUBLE, offsetof(struct ctl_opts, start_wait), "0.5",
	  PARAM_NOCONFIG | PARAM_BOUNDED, 0, 60, "S", "start: seconds a new daemon must stay up to count as started" },
	{ "cron", PARAM_BOOL, offsetof(struct ctl_opts, cron), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "start: what crontab runs every 5 minutes -- start the daemons not running (unless "
	  "bin/stop stopped the project) and run each <task> whose <period> has passed; quiet "
	  "unless something fails or a daemon had to be started" },
	{ "verbose", PARAM_BOOL, offsetof(struct ctl_opts, verbose), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "start --cron: also say what was left alone and why" },
	PARAM_TABLE_END
};

struct ctl_daemon {
	struct proc_daemon p;   /* the daemon, its pid file and its state */
	pid_t child;            /* started by this run */
	bool done;
};

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool ctl_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* --- the project and its daemons --------------------------------------- */

/*
 * The project's config.xml: --project_dir, else the directory above the bin/
 * this program was run from (bin/start works from anywhere, as in BOINC),
 * else config_locate() ($WSEQ_PROJECT_DIR, the current directory).
 */
static char *find_config(const struct tool_ctx *ctx)
{
	const char *argv0 = ctx->all_argv[0];

	if (ctx->project_dir)
		return tool_config_path(ctx);
	if (strchr(argv0, '/')) {
		char *copy = xstrdup(argv0);
		char *bin = realpath(dirname(copy), NULL);
		char *path = NULL;

		free(copy);
		if (bin && !strcmp(proc_basename(bin), "bin")) {
			path = xasprintf("%s/../config.xml", bin);
			if (!ctl_exists(path)) {
				free(path);
				path = NULL;
			}
		}
		free(bin);
		if (path)
			return path;
	}
	return config_locate();
}

static void daemons_free(struct ctl_daemon *ds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		proc_daemon_release(&ds[i].p);
	free(ds);
}

static int daemons_prepare(const struct project_config *cfg, struct ctl_daemon **out)
{
	struct ctl_daemon *ds = xcalloc(cfg->ndaemons + 1, sizeof(*ds));
	size_t i, j;
	int rc = 0;

	for (i = 0; i < cfg->ndaemons; i++)
		if (proc_daemon_init(cfg, &cfg->daemons[i], &ds[i].p) < 0)
			rc = -1;
	for (i = 0; rc == 0 && i < cfg->ndaemons; i++)
		for (j = i + 1; j < cfg->ndaemons; j++)
			if (!strcmp(ds[i].p.pid_path, ds[j].p.pid_path))
				rc = log_error("%s: daemons '%s' and '%s' would share the pid file %s; "
					       "give each its own <pid_file>", cfg->path, cfg->daemons[i].cmd,
					       cfg->daemons[j].cmd, ds[i].p.pid_path);
	if (rc < 0) {
		daemons_free(ds, cfg->ndaemons);
		return -1;
	}
	*out = ds;
	return 0;
}

static void remove_stale(const struct ctl_daemon *d)
{
	if (unlink(d->p.pid_path) < 0 && errno != ENOENT) {
		log_error("cannot remove %s: %s", d->p.pid_path, strerror(errno));
		return;
	}
	if (d->p.state == PROC_STALE)
		printf("%s: removed stale pid file %s (pid %d is not %s)\n", d->p.name, d->p.pid_path,
		       (int)d->p.pid, proc_basename(d->p.prog));
	else
		printf("%s: removed unreadable pid file %s\n", d->p.name, d->p.pid_path);
}

/* Serialise start and stop: two at once would both start a daemon. */
int ctl_lock_project(const struct project_config *cfg)
{
	char *path = xasprintf("%s/.wseq_ctl.lock", cfg->pid_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		log_error("cannot open %s: %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX) < 0) {
		log_error("cannot lock %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

/* --- start ------------------------------------------------------------- */

/* Close every descriptor from lo up, except keep[0..n-1] (ascending, >= lo). */
static void close_except(int lo, const int *keep, size_t n)
{
	int i, max = (int)sysconf(_SC_OPEN_MAX);
	size_t k;
	bool ok = true;

	for (k = 0; k <= n && ok; k++) {
		int hi = k < n ? keep[k] - 1 : INT_MAX;

		if (hi >= lo)
			ok = close_range((unsigned)lo, hi == INT_MAX ? ~0U : (unsigned)hi, 0) == 0;
		if (k < n)
			lo = keep[k] + 1;
	}
	if (ok)
		return;
	if (max < 0 || max > 65536)
		max = 65536;
	for (i = 3; i < max; i++) {
		for (k = 0; k < n && keep[k] != i; k++)
			;
		if (k == n)
			close(i);
	}
}

/*
 * In the child: a session of its own, cwd the project, stdin /dev/null,
 * stdout and stderr appended to the log, nothing else inherited but keep_fd.
 * An exec failure's errno goes back through errfd (close-on-exec: EOF means
 * success).
 */
static NORETURN void child_exec(const struct project_config *cfg, const char *prog,
				char *const argv[], const char *log_path, const char *header,
				int keep_fd, int errfd)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD };
	sigset_t none;
	int keep[2];
	size_t i, nkeep = 0;
	int fd, err;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	if (setsid() < 0 || chdir(cfg->project_dir) < 0)
		goto fail;
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		goto fail;
	if (fd != 0)
		close(fd);
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		goto fail;
	if (fd > 2)
		close(fd);
	if (keep_fd >= 0 && fcntl(keep_fd, F_SETFD, 0) < 0)
		goto fail;
	if (keep_fd >= 0 && keep_fd < errfd)
		keep[nkeep++] = keep_fd;
	keep[nkeep++] = errfd;
	if (keep_fd > errfd)
		keep[nkeep++] = keep_fd;
	close_except(3, keep, nkeep);
	if (header && write(1, header, strlen(header)) < 0)
		goto fail;
	execv(prog, argv);
fail:
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0) {
		/* the parent sees EOF and finds out at the liveness check */
	}
	_exit(127);
}

int ctl_spawn(const struct project_config *cfg, const char *name, const char *prog,
	      char *const argv[], const char *log_path, const char *header, int keep_fd,
	      pid_t *pid_out)
{
	int pfd[2], err;
	ssize_t n;
	pid_t pid;

	if (access(prog, X_OK) < 0)
		return log_error("%s: cannot start %s: %s", name, prog, strerror(errno));
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return log_error("%s: pipe: %s", name, strerror(errno));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return log_error("%s: fork: %s", name, strerror(errno));
	}
	if (pid == 0) {
		close(pfd[0]);
		child_exec(cfg, prog, argv, log_path, header, keep_fd, pfd[1]);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		return log_error("%s: cannot run %s: %s (log %s)", name, prog, strerror(err), log_path);
	}
	*pid_out = pid;
	return 0;
}

static int start_one(const struct project_config *cfg, struct ctl_daemon *d)
{
	pid_t pid;

	if (ctl_spawn(cfg, d->p.name, d->p.prog, d->p.argv, d->p.log_path, NULL, -1, &pid) < 0)
		return -1;
	d->child = pid;
	if (proc_pid_write(d->p.pid_path, pid) < 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		d->child = 0;
		return -1;
	}
	return 0;
}

/* Why --cron starts no daemon now (NULL: it may); the text is allocated. */
static char *cron_no_daemons(const struct project_config *cfg)
{
	char *stopped = xasprintf("%s/%s", cfg->pid_dir, CTL_STOPPED_FILE);
	char *stop_file = xasprintf("%s/stop_daemons", cfg->project_dir);
	char *why = NULL;

	if (ctl_exists(stopped))
		why = xasprintf("the project was stopped with bin/stop (%s); bin/start starts it", stopped);
	else if (ctl_exists(stop_file))
		why = xasprintf("%s exists", stop_file);
	else if (cfg->stop_daemons)
		why = xstrdup("config.xml has <stop_daemons/>");
	free(stopped);
	free(stop_file);
	return why;
}

/* bin/start: the stop requests go, so daemons stay up; --cron leaves them be. */
static void clear_stop_marks(const struct project_config *cfg)
{
	char *stop_file = xasprintf("%s/stop_daemons", cfg->project_dir);
	char *stopped = xasprintf("%s/%s", cfg->pid_dir, CTL_STOPPED_FILE);

	if (unlink(stop_file) == 0)
		printf("removed %s\n", stop_file);
	unlink(stopped);
	free(stop_file);
	free(stopped);
}

/* Start the enabled daemons not running; quiet: say only what was started or failed. */
static int start_daemons(const struct project_config *cfg, struct ctl_daemon *ds, bool quiet)
{
	size_t i;
	int failures = 0, started = 0;

	for (i = 0; i < cfg->ndaemons; i++) {
		struct ctl_daemon *d = &ds[i];

		if (d->p.cd->disabled) {
			if (!quiet)
				printf("%s: disabled\n", d->p.name);
			continue;
		}
		proc_daemon_probe(&d->p);
		if (d->p.state == PROC_RUNNING) {
			if (!quiet)
				printf("%s: already running (pid %d)\n", d->p.name, (int)d->p.pid);
			continue;
		}
		if (d->p.state == PROC_STALE || d->p.state == PROC_BADPID)
			remove_stale(d);
		if (start_one(cfg, d) < 0)
			failures++;
		else
			started++;
	}
	/* A daemon that dies at once (bad option, no database) must not look started. */
	if (started && opts.start_wait > 0)
		nap(opts.start_wait);
	for (i = 0; i < cfg->ndaemons; i++) {
		struct ctl_daemon *d = &ds[i];
		int st;

		if (!d->child)
			continue;
		if (waitpid(d->child, &st, WNOHANG) == d->child) {
			unlink(d->p.pid_path);
			if (WIFEXITED(st))
				log_error("%s: failed to start (exit status %d), see %s", d->p.name,
					  WEXITSTATUS(st), d->p.log_path);
			else
				log_error("%s: failed to start (killed by signal %d), see %s", d->p.name,
					  WTERMSIG(st), d->p.log_path);
			failures++;
		} else {
			printf("%s: started (pid %d)\n", d->p.name, (int)d->child);
		}
	}
	return failures;
}

static int ctl_start(const struct project_config *cfg, struct ctl_daemon *ds)
{
	int failures = 0, lockfd;
	char *why;

	if (proc_mkdirs(cfg->pid_dir) < 0 || proc_mkdirs(cfg->log_dir) < 0 ||
	    (lockfd = ctl_lock_project(cfg)) < 0)
		return 1;
	if (!opts.cron) {
		clear_stop_marks(cfg);
		failures = start_daemons(cfg, ds, false);
	} else if ((why = cron_no_daemons(cfg)) != NULL) {
		if (opts.verbose)
			printf("daemons not started: %s\n", why);
		free(why);
	} else {
		failures = start_daemons(cfg, ds, !opts.verbose);
	}
	if (opts.cron && ctl_cron_tasks(cfg, opts.verbose) != 0)
		failures++;
	close(lockfd);
	return failures ? 1 : 0;
}

/*
 * Upstream daemons wseq has no need of: an upstream project's config.xml
 * lists them, and they are passed over as if disabled, with a word why,
 * rather than failing the start.
 */
static const struct {
	const char *prog, *why;
} unneeded[] = {
	{ "feeder", "schedulers claim jobs from the database directly; there is no shared memory "
		    "to fill" },
};

static void skip_unneeded(struct project_config *cfg, bool say)
{
	for (size_t i = 0; i < cfg->ndaemons; i++) {
		struct config_daemon *d = &cfg->daemons[i];
		size_t n = strcspn(d->cmd, " \t");
		const char *base = d->cmd;

		for (const char *p = d->cmd; p < d->cmd + n; p++)
			if (*p == '/')
				base = p + 1;
		for (size_t k = 0; k < ARRAY_SIZE(unneeded); k++)
			if (!d->disabled && (size_t)(d->cmd + n - base) == strlen(unneeded[k].prog) &&
			    !strncmp(base, unneeded[k].prog, strlen(unneeded[k].prog))) {
				d->disabled = true;
				if (say)
					log_warn("%s: not needed in wseq (%s); not started -- remove it "
						 "from config.xml", unneeded[k].prog, unneeded[k].why);
			}
	}
}

/* --- stop -------------------------------------------------------------- */

static void signal_daemon(const struct ctl_daemon *d, int sig)
{
	/* A daemon leads its own session (setsid): SIGKILL takes its children too. */
	if (sig == SIGKILL && getpgid(d->p.pid) == d->p.pid)
		kill(-d->p.pid, sig);
	else
		kill(d->p.pid, sig);
}

/* Until the next bin/start, --cron starts no daemon. */
static void mark_stopped(const struct project_config *cfg)
{
	char *path = xasprintf("%s/%s", cfg->pid_dir, CTL_STOPPED_FILE);
	char *text = xasprintf("stopped by bin/stop at %lld\n", (long long)now());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		log_warn("cannot write %s (bin/start --cron may start the daemons again): %s", path,
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
}

static int ctl_stop(const struct project_config *cfg, struct ctl_daemon *ds)
{
	size_t i, waiting = 0;
	int failures = 0, lockfd;
	double deadline;

	if (proc_mkdirs(cfg->pid_dir) < 0 || (lockfd = ctl_lock_project(cfg)) < 0)
		return 1;
	mark_stopped(cfg);
	for (i = 0; i < cfg->ndaemons; i++) {
		struct ctl_daemon *d = &ds[i];

		proc_daemon_probe(&d->p);
		d->done = true;
		if (d->p.state == PROC_STALE || d->p.state == PROC_BADPID) {
			remove_stale(d);
		} else if (d->p.state == PROC_NONE) {
			if (!d->p.cd->disabled)
				printf("%s: not running\n", d->p.name);
		} else if (kill(d->p.pid, SIGTERM) < 0) {
			log_error("%s: cannot signal pid %d: %s", d->p.name, (int)d->p.pid, strerror(errno));
			failures++;
		} else {
			d->done = false;
			waiting++;
		}
	}
	deadline = mono() + opts.timeout;
	for (;;) {
		for (i = 0; i < cfg->ndaemons; i++) {
			struct ctl_daemon *d = &ds[i];

			if (d->done || proc_is(d->p.pid, d->p.prog))
				continue;
			d->done = true;
			waiting--;
			unlink(d->p.pid_path);
			printf("%s: stopped (pid %d)\n", d->p.name, (int)d->p.pid);
		}
		if (!waiting || mono() >= deadline)
			break;
		nap(0.05);
	}
	for (i = 0; i < cfg->ndaemons; i++) {
		struct ctl_daemon *d = &ds[i];
		double end = mono() + 5;

		if (d->done)
			continue;
		signal_daemon(d, SIGKILL);
		while (proc_is(d->p.pid, d->p.prog) && mono() < end)
			nap(0.05);
		if (proc_is(d->p.pid, d->p.prog)) {
			log_error("%s: pid %d survives SIGKILL", d->p.name, (int)d->p.pid);
			failures++;
			continue;
		}
		unlink(d->p.pid_path);
		printf("%s: did not exit within %g s; killed (pid %d)\n", d->p.name, opts.timeout,
		       (int)d->p.pid);
	}
	close(lockfd);
	return failures ? 1 : 0;
}

/* --- status ------------------------------------------------------------ */

static int ctl_status(const struct project_config *cfg, struct ctl_daemon *ds)
{
	char *stop_file = xasprintf("%s/stop_daemons", cfg->project_dir);
	char *stopped = xasprintf("%s/%s", cfg->pid_dir, CTL_STOPPED_FILE);
	size_t i;
	int rc = 0;

	printf("project %s\n", cfg->project_dir);
	if (cfg->ndaemons == 0)
		printf("no daemons in config.xml\n");
	for (i = 0; i < cfg->ndaemons; i++) {
		struct ctl_daemon *d = &ds[i];
		char what[256];

		proc_daemon_probe(&d->p);
		switch (d->p.state) {
		case PROC_RUNNING:
			snprintf(what, sizeof(what), "running (pid %d)", (int)d->p.pid);
			break;
		case PROC_NONE:
			snprintf(what, sizeof(what), "not running");
			break;
		case PROC_STALE:
			snprintf(what, sizeof(what), "not running (stale pid file: pid %d is not %s)",
				 (int)d->p.pid, proc_basename(d->p.prog));
			break;
		case PROC_BADPID:
			snprintf(what, sizeof(what), "not running (unreadable pid file %s)", d->p.pid_path);
			break;
		}
		if (d->p.cd->disabled) {
			if (d->p.state == PROC_RUNNING)
				printf("  %-24s disabled, but running (pid %d)\n", d->p.name, (int)d->p.pid);
			else
				printf("  %-24s disabled\n", d->p.name);
			continue;
		}
		printf("  %-24s %s\n", d->p.name, what);
		if (d->p.state != PROC_RUNNING)
			rc = STATUS_NOT_RUNNING;
	}
	if (ctl_exists(stop_file))
		printf("%s exists: daemons will exit (start removes it)\n", stop_file);
	else if (cfg->stop_daemons)
		printf("config.xml has <stop_daemons/>: daemons will exit\n");
	if (ctl_exists(stopped))
		printf("stopped with bin/stop: bin/start --cron starts no daemon until bin/start\n");
	ctl_tasks_status(cfg);
	free(stopped);
	free(stop_file);
	return rc;
}

/* --- main -------------------------------------------------------------- */

static struct ctl_daemon *daemons;      /* config.xml's <daemons>, for the command */

static int cmd_start(struct tool_ctx *ctx)
{
	return ctl_start(&ctx->cfg, daemons);
}

static int cmd_stop(struct tool_ctx *ctx)
{
	return ctl_stop(&ctx->cfg, daemons);
}

static int cmd_status(struct tool_ctx *ctx)
{
	return ctl_status(&ctx->cfg, daemons);
}

static int check_opts(struct tool_ctx *ctx)
{
	if ((opts.cron || opts.verbose) && ctx->cmd->fn != cmd_start)
		return tool_usage_error("--cron and --verbose are options of start only");
	return 0;
}

/* config.xml and its daemons, then the command; status cannot tell: 4 (LSB "unknown"). */
static int ctl_run(struct tool_ctx *ctx)
{
	char *path = find_config(ctx);
	int rc = path ? tool_load_config_at(ctx, path) : -1;

	free(path);
	if (rc == 0) {
		skip_unneeded(&ctx->cfg, ctx->cmd->fn == cmd_start);
		rc = daemons_prepare(&ctx->cfg, &daemons);
	}
	if (rc == 0)
		rc = ctx->cmd->fn(ctx);
	return rc < 0 && ctx->cmd->fn == cmd_status ? STATUS_UNKNOWN : rc;
}

static void ctl_fini(struct tool_ctx *ctx)
{
	if (daemons)
		daemons_free(daemons, ctx->cfg.ndaemons);
}

static const struct tool_cmd commands[] = {
	{ "start", cmd_start, "start [options]  start the project's daemons that are not running "
	  "(with --cron: also run the due periodic tasks)", 0, 0, NULL },
	{ "stop", cmd_stop, "stop [options]   stop the project's running daemons (SIGTERM, then "
	  "SIGKILL after --timeout)", 0, 0, NULL },
	{ "status", cmd_status, "status [options] show which of the project's daemons run; exit 0 "
	  "if all enabled ones do, 3 if not, 4 if it cannot tell", 0, 0, NULL },
	{ NULL, NULL, NULL, 0, 0, NULL }
};

static const struct tool_spec wseq_ctl_spec = {
	.name = "wseq_ctl",
	.usage = "usage: wseq_ctl start|stop|status [options]\n"
		 "Control the daemons listed in a project's config.xml. The project's bin/ holds\n"
		 "this program as start, stop and status: run by one of those names it is that\n"
		 "command.\n\ncommands:\n",
	.params = ctl_params,
	.settings = &opts,
	.flags = TOOL_CMD_FROM_NAME,
	.cmds = commands,
	.check = check_opts,
	.run = ctl_run,
	.fini = ctl_fini,
	.project_dir_help = "the project directory (default: the one above this program's bin/, "
			    "else $WSEQ_PROJECT_DIR, . or ..)",
};

int main(int argc, char **argv)
{
	return tool_main(&wseq_ctl_spec, argc, argv);
}
