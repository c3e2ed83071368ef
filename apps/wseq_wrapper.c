/*
 * wseq_wrapper: a BOINC application that runs unmodified programs, as
 * described by a job file in upstream wrapper's format (doc/wseq_wrapper.md).
 * The tasks run one after another, each in a process group of its own
 * (daemons beside them, likewise); the wrapper takes the client's controls
 * itself (direct_process_action off) and passes them to the groups: suspend
 * is SIGSTOP, resume SIGCONT, quit and abort SIGTERM then SIGKILL, and every
 * group is reaped. A guard process outside the groups kills them if the
 * wrapper dies without doing so; the wrapper is the subreaper of what its
 * tasks leave behind. Between tasks it checkpoints (the tasks done), so a
 * restarted wrapper skips them. At the end it copies the state files of a
 * work sequence out and packs the outputs whose names are not known in
 * advance into one zip (wrapper_out.c). In a work sequence with state
 * levels it tells the tasks, in WSEQ_* environment variables, which segment
 * this is and where each state input came from (seq_env_make).
 */
#include "app_main.h"
#include "common.h"
#include "fileutil.h"
#include "log.h"
#include "wrapper_guard.h"
#include "wrapper_job.h"
#include "wrapper_levels.h"
#include "wrapper_out.h"
#include "wrapper_slot.h"
#include "wtime.h"

#include <boinc/boinc_api.h>
#include <boinc/error_numbers.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define JOB_FILE "job.xml"        /* logical name; only the app version gives it */
#define INIT_DATA_FILE "init_data.xml"
#define CHECKPOINT_FILE "wrapper_checkpoint.txt"
#define LISTING_FILE "wseq_wrapper_files.txt"
#define STOP_GRACE 5.0          /* seconds between SIGTERM and SIGKILL */
#define POLL_NS 100000000L      /* 0.1 s */

/* The wrapper's own files and the runtime's, never packed as outputs. */
static const char *const own_files[] = {
	CHECKPOINT_FILE, LISTING_FILE, "stderr.txt", "boinc_finish_called", "boinc_lockfile",
	"boinc_task_state.xml", "init_data.xml", "boinc_mmap_file", "boinc_temporary_exit",
};

struct proc {
	pid_t pid;              /* also the process group's id */
	bool exited;
	int status;             /* wait status */
};

static struct {
	struct wjob job;
	struct wslot slot;      /* the app version's files */
	char **args;            /* the wrapper's own command line, for <append_cmdline_args/> */
	size_t nargs;
	struct proc *daemons;
	struct proc task;
	bool task_running;
	bool suspended;
	pid_t parent;
	int guard_fd;
	double cpu_done;        /* CPU seconds of the finished tasks */
	double checkpoint_cpu;
	long open_max;
	char **seq_env;         /* the WSEQ_* variables, NAME=VALUE */
	size_t nseq_env;
} W = { .guard_fd = -1 };

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static const char *resolve(const char *logical, char *buf, size_t len)
{
	if (boinc_resolve_filename(logical, buf, (int)len) != 0)
		wstrlcpy(buf, logical, len);
	return buf;
}

/* --- the guard (wrapper_guard.h) ----------------------------------------------- */

static int guard_start(void)
{
	W.guard_fd = wguard_start();
	return W.guard_fd < 0 ? -1 : 0;
}

static void guard_tell(char op, pid_t pid)
{
	wguard_tell(W.guard_fd, op, pid);
}

/* --- starting and stopping process groups ---------------------------------- */

/* Workunit input files arrive without the x bit: add it, but only to a file of the slot or project. */
static int make_executable(const char *path)
{
	char *real = realpath(path, NULL), *slot = realpath(".", NULL);
	char *proj = realpath("../../projects", NULL);
	struct stat st;
	int rc = 0;

	if (!real || stat(real, &st) < 0) {
		rc = log_error("application %s: %s", path, strerror(errno));
	} else if (!(st.st_mode & S_IXUSR)) {
		size_t sl = slot ? strlen(slot) : 0, pl = proj ? strlen(proj) : 0;
		bool inside = (slot && !strncmp(real, slot, sl) && real[sl] == '/') ||
			      (proj && !strncmp(real, proj, pl) && real[pl] == '/');

		if (!inside)
			rc = log_error("application %s is not executable (and not ours to change)", path);
		else if (chmod(real, (st.st_mode & 07777) | S_IXUSR) < 0)
			rc = log_error("cannot make %s executable: %s", real, strerror(errno));
	}
	free(real);
	free(slot);
	free(proj);
	return rc;
}

/* Put NAME=VALUE into env[0..*n), replacing a NAME= there. */
static void env_put(char **env, size_t *n, char *entry)
{
	size_t nl = (size_t)(strchr(entry, '=') - entry) + 1, i;

	for (i = 0; i < *n; i++)
		if (!strncmp(env[i], entry, nl))
			break;
	env[i] = entry;
	if (i == *n)
		(*n)++;
}

/* The wrapper's environment, the task's <setenv>s, then the WSEQ_* variables (facts win). */
static char **make_env(const struct wjob_task *t)
{
	extern char **environ;
	size_t n = 0, k;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + t->nenv + W.nseq_env + 1, sizeof(*env));
	memcpy(env, environ, n * sizeof(*env));
	for (k = 0; k < t->nenv; k++)
		env_put(env, &n, t->env[k]);
	for (k = 0; k < W.nseq_env; k++)
		env_put(env, &n, W.seq_env[k]);
	env[n] = NULL;
	return env;
}

static NORETURN void child_fail(const char *what)
{
	const char *e = strerror(errno);

	if (write(2, "wseq_wrapper: ", 14) < 0 || write(2, what, strlen(what)) < 0 ||
	    write(2, ": ", 2) < 0 || write(2, e, strlen(e)) < 0 || write(2, "\n", 1) < 0)
		_exit(127);
	_exit(127);
}

static void child_redirect(const char *path, int fd, int flags)
{
	int f;

	if (!*path)
		return;
	f = open(path, flags, 0644);
	if (f < 0)
		child_fail(path);
	if (f != fd) {
		dup2(f, fd);
		close(f);
	}
}

/* Only async-signal-safe calls between fork and exec: the runtime has threads. */
static NORETURN void child_exec(const char *app, char **argv, char **env, const char *in,
				const char *out, const char *err, pid_t wrapper)
{
	sigset_t all;
	int sig;
	long fd;

	setpgid(0, 0);
	/* the client runs an <is_wrapper/> version at nice 10: the work itself goes at the lowest priority, as upstream's tasks do */
	setpriority(PRIO_PROCESS, 0, 19);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != wrapper)
		_exit(127);
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	child_redirect(in, 0, O_RDONLY);
	child_redirect(out, 1, O_WRONLY | O_CREAT | O_APPEND);
	child_redirect(err, 2, O_WRONLY | O_CREAT | O_APPEND);
	for (fd = 3; fd < W.open_max; fd++)
		close((int)fd);
	execve(app, argv, env);
	child_fail(app);
}

static int proc_start(const struct wjob_task *t, struct proc *p)
{
	char app[PATH_MAX], in[PATH_MAX] = "", out[PATH_MAX] = "", err[PATH_MAX] = "";
	char **argv = NULL, **env;
	size_t argc = 0, i;
	pid_t me = getpid();

	resolve(t->application, app, sizeof(app));
	if (make_executable(app) < 0)
		return -1;
	if (t->stdin_name)
		resolve(t->stdin_name, in, sizeof(in));
	if (t->stdout_name)
		resolve(t->stdout_name, out, sizeof(out));
	if (t->stderr_name)
		resolve(t->stderr_name, err, sizeof(err));
	argv = xcalloc(2, sizeof(*argv));
	argv[0] = xstrdup(app);
	argc = 1;
	if (t->command_line)
		wjob_split(t->command_line, &argv, &argc);
	if (t->append_cmdline_args) {
		argv = xrealloc(argv, (argc + W.nargs + 1) * sizeof(*argv));
		for (i = 0; i < W.nargs; i++)
			argv[argc++] = xstrdup(W.args[i]);
		argv[argc] = NULL;
	}
	env = make_env(t);
	memset(p, 0, sizeof(*p));
	p->pid = fork();
	if (p->pid == 0)
		child_exec(app, argv, env, in, out, err, me);
	free(env);
	wjob_argv_free(argv);
	if (p->pid < 0)
		return log_error("fork: %s", strerror(errno));
	setpgid(p->pid, p->pid);
	guard_tell('+', p->pid);
	log_info("started %s%s (pid %ld)", t->daemon ? "daemon " : "", t->application,
		 (long)p->pid);
	return 0;
}

/* Reap every child that has ended: the tasks, the daemons, and what they left to us. */
static void reap(void)
{
	pid_t pid;
	int st;
	size_t i;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (W.task_running && pid == W.task.pid) {
			W.task.exited = true;
			W.task.status = st;
		}
		for (i = 0; i < W.job.ndaemons; i++)
			if (W.daemons && pid == W.daemons[i].pid) {
				W.daemons[i].exited = true;
				W.daemons[i].status = st;
			}
	}
}

static bool group_alive(pid_t pgid)
{
	return killpg(pgid, 0) == 0 || errno != ESRCH;
}

static void sleep_poll(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* SIGTERM, SIGKILL after a grace period; returns when the whole group is gone. */
static void group_stop(pid_t pgid)
{
	double end = dnow() + STOP_GRACE;
	int sig = SIGTERM;

	if (pgid <= 1)
		return;
	for (;;) {
		killpg(pgid, sig);
		killpg(pgid, SIGCONT);
		while (dnow() < end) {
			reap();
			if (!group_alive(pgid))
				goto gone;
			sleep_poll();
		}
		if (sig == SIGKILL)
			break;
		sig = SIGKILL;
		end = dnow() + STOP_GRACE;
	}
	log_warn("process group %ld survived SIGKILL", (long)pgid);
gone:
	guard_tell('-', pgid);
}

static void groups_signal(int sig)
{
	size_t i;

	if (W.task_running)
		killpg(W.task.pid, sig);
	for (i = 0; W.daemons && i < W.job.ndaemons; i++)
		killpg(W.daemons[i].pid, sig);
}

static void stop_all(void)
{
	size_t i;

	if (W.task_running) {
		group_stop(W.task.pid);
		W.task_running = false;
	}
	for (i = 0; W.daemons && i < W.job.ndaemons; i++)
		group_stop(W.daemons[i].pid);
	free(W.daemons);
	W.daemons = NULL;
}

/* --- the client's controls --------------------------------------------------- */

/* Suspend and resume the groups; quit, abort, a lost client: stop them and end. */
static void follow_client(void)
{
	BOINC_STATUS s;

	boinc_get_status(&s);
	if (s.abort_request) {
		log_info("abort requested: stopping the tasks");
		stop_all();
		app_finish(EXIT_ABORTED_BY_CLIENT);
	}
	if (s.quit_request || s.no_heartbeat || got_signal || getppid() != W.parent) {
		log_info("%s: stopping the tasks, to be restarted later",
			 s.quit_request ? "quit requested" : got_signal ? "signal received" :
			 "the client is gone");
		stop_all();
		exit(0);
	}
	if (s.suspended && !W.suspended) {
		groups_signal(SIGSTOP);
		W.suspended = true;
		log_info("suspended");
	} else if (!s.suspended && W.suspended) {
		groups_signal(SIGCONT);
		W.suspended = false;
		log_info("resumed");
	}
}

/* --- progress and checkpoints ------------------------------------------------ */

static double task_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime ... */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return 0;
	return (double)(ut + st + cut + cst) / (double)sysconf(_SC_CLK_TCK);
}

/* The last number in a task's fraction-done file, within 0..1; -1 if none. */
static double read_fraction(const char *name)
{
	char buf[128], *p, *end;
	double f = -1, x;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t n;

	if (fd < 0)
		return -1;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		x = strtod(p, &end);
		if (end == p)
			end = p + 1;
		else if (x == x)
			f = x;
	}
	return f < 0 ? f : f > 1 ? 1 : f;
}

static double job_fraction(size_t i, double task_fraction)
{
	double total = 0, done = 0;
	size_t k;

	for (k = 0; k < W.job.ntasks; k++) {
		total += W.job.tasks[k].weight;
		if (k < i)
			done += W.job.tasks[k].weight;
	}
	if (total <= 0)
		return (double)i / (double)W.job.ntasks;
	return (done + W.job.tasks[i].weight * task_fraction) / total;
}

static int write_checkpoint(size_t ndone, double cpu)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "%zu %.3f\n", ndone, cpu), rc;

	boinc_begin_critical_section();
	rc = write_file_atomic(CHECKPOINT_FILE, buf, (size_t)n, 0644);
	boinc_end_critical_section();
	if (rc < 0)
		return -1;
	W.checkpoint_cpu = cpu;
	boinc_checkpoint_completed();
	return 0;
}

static size_t read_checkpoint(void)
{
	struct sbuf b = SBUF_INIT(4096);
	unsigned long nd = 0;
	double cpu = 0;

	if (access(CHECKPOINT_FILE, F_OK) == 0 && read_file(CHECKPOINT_FILE, 4096, &b) == 0 &&
	    sscanf(sbuf_str(&b), "%lu %lf", &nd, &cpu) == 2 && nd <= W.job.ntasks) {
		W.cpu_done = W.checkpoint_cpu = cpu;
		log_info("restarting after %lu of %zu tasks", nd, W.job.ntasks);
	} else {
		nd = 0;
	}
	sbuf_release(&b);
	return nd;
}

/* --- running the tasks -------------------------------------------------------- */

/* Run task i to its end; its exit status for app_finish (0: success). */
static int run_task(size_t i)
{
	const struct wjob_task *t = &W.job.tasks[i];
	double elapsed = 0, last = dnow(), last_report = 0, frac = 0, cpu = 0;
	time_t ckpt_mtime = 0;
	struct stat st;
	int status;

	if (t->checkpoint_name && stat(t->checkpoint_name, &st) == 0)
		ckpt_mtime = st.st_mtime;
	if (proc_start(t, &W.task) < 0)
		return EXIT_CHILD_FAILED;
	W.task_running = true;
	if (W.suspended)
		killpg(W.task.pid, SIGSTOP);
	for (;;) {
		double tnow;

		reap();
		if (W.task.exited)
			break;
		follow_client();
		sleep_poll();
		tnow = dnow();
		if (!W.suspended)
			elapsed += tnow - last;
		last = tnow;
		if (t->time_limit > 0 && elapsed > t->time_limit) {
			log_error("task %s ran past its time limit of %.0f s", t->application,
				  t->time_limit);
			stop_all();
			return EXIT_TIME_LIMIT_EXCEEDED;
		}
		if (tnow - last_report < 1)
			continue;
		last_report = tnow;
		cpu = task_cpu(W.task.pid);
		if (t->fraction_done_name) {
			double f = read_fraction(t->fraction_done_name);

			if (f >= 0)
				frac = f;
		}
		boinc_report_app_status(W.cpu_done + cpu, W.checkpoint_cpu, job_fraction(i, frac));
		if (t->checkpoint_name && stat(t->checkpoint_name, &st) == 0 &&
		    st.st_mtime != ckpt_mtime) {
			ckpt_mtime = st.st_mtime;
			W.checkpoint_cpu = W.cpu_done + cpu;
			boinc_checkpoint_completed();
		}
	}
	status = W.task.status;
	group_stop(W.task.pid);         /* what the task left running in its group */
	W.task_running = false;
	W.cpu_done += cpu;
	if (WIFSIGNALED(status)) {
		log_error("task %s was killed by signal %d", t->application, WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) != 0)
		log_error("task %s exited with status %d", t->application, WEXITSTATUS(status));
	else
		log_info("task %s done", t->application);
	return WEXITSTATUS(status);
}

static int start_daemons(void)
{
	size_t i;

	W.daemons = xcalloc(W.job.ndaemons + 1, sizeof(*W.daemons));
	for (i = 0; i < W.job.ndaemons; i++)
		if (proc_start(&W.job.daemons[i], &W.daemons[i]) < 0)
			return -1;
	return 0;
}

/* The WSEQ_* variables (wrapper_levels.h), logged with the segment. */
static void seq_env_make(void)
{
	long seqno = wlevels_env(&W.job, resolve, &W.seq_env, &W.nseq_env);

	if (seqno > 0)
		log_info("segment %ld of a work sequence", seqno);
}

/* --- before the first task and after the last ---------------------------------- */

static int setup_slot(struct wout_names *listing)
{
	char path[PATH_MAX];
	struct sbuf err = SBUF_INIT(1024);
	struct stat st;
	size_t i;
	int rc = 0;

	if (access(LISTING_FILE, F_OK) == 0) {
		rc = wout_load(LISTING_FILE, listing, &err);
		goto out;
	}
	for (i = 0; i < W.job.nstates && rc == 0; i++) {
		const struct wjob_state_file *s = &W.job.states[i];

		if (!s->in || !*s->in)
			continue;
		resolve(s->in, path, sizeof(path));
		if (stat(path, &st) == 0 && st.st_size > 0) {
			rc = copy_file(path, s->name, 0644);
			if (rc == 0)
				log_info("state %s from %s", s->name, s->in);
		}
	}
	if (rc == 0 && (rc = wout_list(".", listing, &err)) == 0)
		rc = wout_save(LISTING_FILE, listing, &err);
out:
	if (rc < 0 && err.len)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return rc;
}

static int finish_outputs(struct wout_names *skip)
{
	char path[PATH_MAX];
	struct sbuf err = SBUF_INIT(1024);
	size_t i, n;

	for (i = 0; i < W.job.nstates; i++) {
		const struct wjob_state_file *s = &W.job.states[i];

		wout_add(skip, s->name);
		if (!s->out || !*s->out)
			continue;
		if (access(s->name, R_OK) != 0)
			return log_error("state file %s was not written by the tasks", s->name);
		if (copy_file(s->name, resolve(s->out, path, sizeof(path)), 0644) < 0)
			return -1;
		log_info("state %s to %s", s->name, s->out);
	}
	if (!W.job.zip_output)
		return 0;
	for (i = 0; i < ARRAY_SIZE(own_files); i++)
		wout_add(skip, own_files[i]);
	wout_add(skip, W.job.zip_name);
	resolve(W.job.zip_name, path, sizeof(path));
	if (wout_zip(".", path, W.job.zip_patterns, W.job.nzip_patterns, skip, &n, &err) < 0) {
		log_error("zip of outputs: %s", sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	log_info("%zu output file%s packed into %s", n, n == 1 ? "" : "s", W.job.zip_name);
	sbuf_release(&err);
	return 0;
}

/* Is the file of this logical name one of the app version's? Else it is a workunit's input. */
static bool of_app_version(const char *logical)
{
	char path[PATH_MAX];

	return wslot_is_app_file(&W.slot, logical, resolve(logical, path, sizeof(path)));
}

/*
 * The programs the job file names must be the app version's, unless the
 * admin's job file says a task runs an input (<input_application/>: an
 * any_executable app, whose jobs only submitters with that right make).
 */
static int check_programs(void)
{
	const struct wjob_task *t;
	size_t i, n = W.job.ntasks + W.job.ndaemons;

	for (i = 0; i < n; i++) {
		t = i < W.job.ntasks ? &W.job.tasks[i] : &W.job.daemons[i - W.job.ntasks];
		if (!t->input_application && !of_app_version(t->application))
			return log_error("%s:%ld: application %s is not a file of the app version "
					 "(a workunit's input runs only with <input_application/>)",
					 JOB_FILE, t->line, t->application);
	}
	return 0;
}

/* The app version's job file, and the programs it names checked. */
static int load_job(void)
{
	char path[PATH_MAX];
	struct sbuf text = SBUF_INIT((size_t)16 << 20), err = SBUF_INIT(2048);
	const char *logical = JOB_FILE;
	int rc;

	if (wslot_load(&W.slot, INIT_DATA_FILE, &err) < 0) {
		log_error("%s", sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	if (!of_app_version(logical)) {
		sbuf_release(&err);
		return log_error("the job file %s is not a file of the app version (a workunit's "
				 "input is never the job file)", logical);
	}
	resolve(logical, path, sizeof(path));
	rc = read_file(path, (size_t)16 << 20, &text);
	if (rc == 0 && (rc = wjob_parse(&W.job, sbuf_str(&text), text.len, logical, &err)) < 0)
		log_error("%s", sbuf_str(&err));
	if (rc == 0)
		rc = check_programs();
	sbuf_release(&text);
	sbuf_release(&err);
	return rc;
}

/* --- the app: app_main() runs these in order ------------------------------ */

/* No options: every argument is the tasks' (the workunit's command line among them). */
static int wrapper_args(int argc, char **argv)
{
	int a;

	log_init("wseq_wrapper", NULL);
	W.args = xcalloc((size_t)argc + 1, sizeof(*W.args));
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--job_file"))
			log_warn("argument --job_file is not the wrapper's: its job file is always the "
				 "app version's " JOB_FILE "; passed on to the tasks as it is");
		W.args[W.nargs++] = argv[a];
	}
	return APP_RUN;
}

/* Dying with the client, reaping the tasks' orphans, stopping on a signal. */
static int wrapper_prepare(void)
{
	W.parent = getppid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN);
	W.open_max = sysconf(_SC_OPEN_MAX);
	if (W.open_max < 0 || W.open_max > 65536)
		W.open_max = 65536;
	return 0;
}

static void wrapper_options(BOINC_OPTIONS *opts)
{
	opts->main_program = 1;
	opts->check_heartbeat = 1;
	opts->handle_process_control = 1;
	opts->send_status_msgs = 0;      /* we report the tasks' CPU time and progress */
	opts->direct_process_action = 0; /* we suspend, resume and stop the tasks */
	opts->multi_process = 1;
}

/* The tasks from the checkpoint on, then the outputs. */
static int wrapper_run(void)
{
	struct wout_names listing = { NULL, 0 };
	size_t i, ndone;
	int status;

	if (load_job() < 0 || setup_slot(&listing) < 0 || guard_start() < 0)
		return EXIT_CHILD_FAILED;
	seq_env_make();
	ndone = read_checkpoint();
	if (start_daemons() < 0) {
		stop_all();
		return EXIT_CHILD_FAILED;
	}
	for (i = ndone; i < W.job.ntasks; i++) {
		status = run_task(i);
		if (status != 0) {
			stop_all();
			return status;
		}
		write_checkpoint(i + 1, W.cpu_done);
	}
	stop_all();
	boinc_report_app_status(W.cpu_done, W.checkpoint_cpu, 1.0);
	return finish_outputs(&listing) < 0 ? EXIT_CHILD_FAILED : 0;
}

static const struct app_spec wrapper_app = {
	.name = "wseq_wrapper",
	.args = wrapper_args,
	.prepare = wrapper_prepare,
	.options = wrapper_options,
	.init_failed = EXIT_CHILD_FAILED,
	.run = wrapper_run,
};

int main(int argc, char **argv)
{
	return app_main(&wrapper_app, argc, argv);
}
