/*
 * The periodic tasks of config.xml (<tasks><task><cmd>db_dump</cmd>
 * <period>24 hours</period></task></tasks>), run by "bin/start --cron",
 * which an admin's crontab runs every five minutes, as upstream BOINC's:
 *
 *  - a task runs as a daemon does: its program from the project's bin/
 *    (a <cmd> naming a path runs that, relative to the project directory),
 *    in the project directory, in a session of its own, its stdout and
 *    stderr appended to log_dir/<output>, else log_dir/NAME.log, after a
 *    header line saying when it started;
 *  - its NAME is its <output> without the extension, else its program's
 *    name; two tasks may not share one (give each its own <output>);
 *  - pid_dir/tasks/NAME.last holds when it last started, by the server
 *    clock (lib/wtime.h, which tests shift), and it is due once <period>
 *    has passed since (at once if it never ran, or if the clock went back
 *    by more than a period). The time survives restarts and upgrades;
 *  - pid_dir/tasks/NAME.lock is flock()ed by the task's own process for as
 *    long as it runs (the descriptor crosses exec; a task that leaves a
 *    child behind holding it counts as running until the child ends). A
 *    task whose lock is taken is still running from an earlier cron: it is
 *    not started again, and since it did not start, its clock does not move;
 *  - tasks run in the background, at the same time as each other and as
 *    the daemons: the crontab line returns at once, and a slow or hung task
 *    delays no other task, only its own next run. Tasks that must not
 *    overlap each other take a lock of their own (db_dump and db_purge do,
 *    against a second copy of themselves).
 *
 * Disabled tasks are skipped. Tasks run also after bin/stop (as upstream's
 * do in DISABLED mode): maintenance goes on while the daemons are down.
 */
#include "config.h"
#include "daemon_proc.h"
#include "fileutil.h"
#include "log.h"
#include "wseq_ctl.h"
#include "wtime.h"

#include <fcntl.h>
#include <sys/file.h>

struct ctl_task {
	const struct config_task *ct;
	char **argv;            /* from <cmd>; argv[0] is prog */
	char *prog;
	char *name;
	char *log_path;
	char *last_path;        /* pid_dir/tasks/NAME.last */
	char *lock_path;        /* pid_dir/tasks/NAME.lock */
};

static char *in_dir(const char *dir, const char *name)
{
	return name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dir, name);
}

/* "db_dump.out" -> "db_dump"; a dot file keeps its name. */
static char *strip_ext(const char *s)
{
	const char *dot = strrchr(s, '.');

	return dot && dot != s ? xstrndup(s, (size_t)(dot - s)) : xstrdup(s);
}

static void task_release(struct ctl_task *t)
{
	proc_free_argv(t->argv);
	free(t->prog);
	free(t->name);
	free(t->log_path);
	free(t->last_path);
	free(t->lock_path);
	memset(t, 0, sizeof(*t));
}

static int task_init(const struct project_config *cfg, const struct config_task *ct,
		     struct ctl_task *t)
{
	const char *out = ct->output && *ct->output ? ct->output : NULL;

	memset(t, 0, sizeof(*t));
	t->ct = ct;
	if (proc_split_cmd(ct->cmd, &t->argv) < 0)
		return log_error("%s: <task><cmd>%s</cmd>: empty, or a quote is not closed", cfg->path,
				 ct->cmd);
	t->prog = strchr(t->argv[0], '/') ? in_dir(cfg->project_dir, t->argv[0])
					  : xasprintf("%s/bin/%s", cfg->project_dir, t->argv[0]);
	free(t->argv[0]);
	t->argv[0] = xstrdup(t->prog);
	t->name = strip_ext(proc_basename(out ? out : t->prog));
	if (out)
		t->log_path = in_dir(cfg->log_dir, out);
	else
		t->log_path = xasprintf("%s/%s.log", cfg->log_dir, t->name);
	t->last_path = xasprintf("%s/tasks/%s.last", cfg->pid_dir, t->name);
	t->lock_path = xasprintf("%s/tasks/%s.lock", cfg->pid_dir, t->name);
	return 0;
}

static void tasks_free(struct ctl_task *ts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		task_release(&ts[i]);
	free(ts);
}

static int tasks_prepare(const struct project_config *cfg, struct ctl_task **out)
{
	struct ctl_task *ts = xcalloc(cfg->ntasks + 1, sizeof(*ts));
	size_t i, j;
	int rc = 0;

	for (i = 0; i < cfg->ntasks; i++)
		if (task_init(cfg, &cfg->tasks[i], &ts[i]) < 0)
			rc = -1;
	for (i = 0; rc == 0 && i < cfg->ntasks; i++)
		for (j = i + 1; j < cfg->ntasks; j++)
			if (!strcmp(ts[i].name, ts[j].name))
				rc = log_error("%s: tasks '%s' and '%s' are both called %s; give each its "
					       "own <output>", cfg->path, cfg->tasks[i].cmd,
					       cfg->tasks[j].cmd, ts[i].name);
	if (rc < 0) {
		tasks_free(ts, cfg->ntasks);
		return -1;
	}
	*out = ts;
	return 0;
}

/* A number at the start of a small file; 0 if there is none. */
static long long read_number(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long long v = 0;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		v = strtoll(buf, NULL, 10);
	}
	return v > 0 ? v : 0;
}

/*
 * Take the task's lock, not waiting: 1 with *fd (close-on-exec) if taken,
 * 0 if the task still runs, -1 on an error (logged).
 */
static int lock_task(const struct ctl_task *t, int *fd)
{
	*fd = open(t->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return log_error("%s: cannot open %s: %s", t->name, t->lock_path, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	if (errno != EWOULDBLOCK) {
		log_error("%s: cannot lock %s: %s", t->name, t->lock_path, strerror(errno));
		close(*fd);
		*fd = -1;
		return -1;
	}
	close(*fd);
	*fd = -1;
	return 0;
}

static bool task_due(const struct ctl_task *t, long long last, long long t_now)
{
	return last == 0 || t_now >= last + t->ct->period || last > t_now + t->ct->period;
}

static void format_time(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "%lld", t);
}

/* Record the pid in the lock file, for bin/status (the lock is what counts). */
static void note_pid(int fd, pid_t pid)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		log_warn("cannot write the task's pid to its lock file: %s", strerror(errno));
}

/* Start t if it is due and not running; 0, or -1 if it could not start (logged). */
static int run_task(const struct project_config *cfg, const struct ctl_task *t, bool verbose)
{
	long long last = read_number(t->last_path), t_now = (long long)now();
	char when[64], *header, *stamp;
	pid_t pid;
	int fd, rc;

	if (t->ct->disabled) {
		if (verbose)
			printf("task %s: disabled\n", t->name);
		return 0;
	}
	if (!task_due(t, last, t_now)) {
		if (verbose)
			printf("task %s: not due for %lld s\n", t->name, last + t->ct->period - t_now);
		return 0;
	}
	rc = lock_task(t, &fd);
	if (rc <= 0) {
		if (rc == 0 && verbose)
			printf("task %s: still running (pid %lld) from an earlier run; not started again\n",
			       t->name, read_number(t->lock_path));
		return rc;
	}
	format_time(t_now, when, sizeof(when));
	header = xasprintf("=== %s: %s (bin/start --cron) ===\n", when, t->ct->cmd);
	rc = ctl_spawn(cfg, t->name, t->prog, t->argv, t->log_path, header, fd, &pid);
	/* a task that cannot start is tried again a period later, not every 5 minutes */
	stamp = xasprintf("%lld\n", t_now);
	if (write_file_atomic(t->last_path, stamp, strlen(stamp), 0644) < 0)
		rc = -1;
	if (rc == 0) {
		note_pid(fd, pid);
		if (verbose)
			printf("task %s: started (pid %d), output in %s\n", t->name, (int)pid,
			       t->log_path);
	}
	close(fd);      /* the task's process holds the lock now */
	free(stamp);
	free(header);
	return rc;
}

int ctl_cron_tasks(const struct project_config *cfg, bool verbose)
{
	struct ctl_task *ts;
	char *dir = xasprintf("%s/tasks", cfg->pid_dir);
	size_t i;
	int failures = 0;

	if (proc_mkdirs(dir) < 0 || tasks_prepare(cfg, &ts) < 0) {
		free(dir);
		return 1;
	}
	if (verbose && cfg->ntasks == 0)
		printf("no tasks in config.xml\n");
	for (i = 0; i < cfg->ntasks; i++)
		if (run_task(cfg, &ts[i], verbose) < 0)
			failures++;
	tasks_free(ts, cfg->ntasks);
	free(dir);
	return failures ? 1 : 0;
}

/* Is the task's lock taken (it runs)? */
static bool task_running(const struct ctl_task *t)
{
	int fd = open(t->lock_path, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static void task_status(const struct ctl_task *t, long long t_now)
{
	long long last = read_number(t->last_path);
	char when[64], what[256];
	size_t n;

	if (t->ct->disabled) {
		printf("  %-24s disabled\n", t->name);
		return;
	}
	n = (size_t)snprintf(what, sizeof(what), "every %ld s; ", t->ct->period);
	if (!last) {
		snprintf(what + n, sizeof(what) - n, "never run");
	} else {
		format_time(last, when, sizeof(when));
		n += (size_t)snprintf(what + n, sizeof(what) - n, "last started %s", when);
		if (task_running(t))
			snprintf(what + n, sizeof(what) - n, ", running (pid %lld)",
				 read_number(t->lock_path));
		else if (task_due(t, last, t_now))
			snprintf(what + n, sizeof(what) - n, ", due");
		else
			snprintf(what + n, sizeof(what) - n, ", next in %lld s",
				 last + t->ct->period - t_now);
	}
	printf("  %-24s %s\n", t->name, what);
}

void ctl_tasks_status(const struct project_config *cfg)
{
	struct ctl_task *ts;
	size_t i;

	if (cfg->ntasks == 0 || tasks_prepare(cfg, &ts) < 0)
		return;
	printf("tasks (run by bin/start --cron):\n");
	for (i = 0; i < cfg->ntasks; i++)
		task_status(&ts[i], (long long)now());
	tasks_free(ts, cfg->ntasks);
}
