/* Running plug-in commands; see runcmd.h. */
#include "runcmd.h"
#include "daemon_proc.h"
#include "log.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define RUNCMD_EXEC_FAILED 127
#define RUNCMD_POLL_NS 10000000L        /* 10 ms between looks at a bounded command */

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for pid; past the deadline (if any) kill its process group. 1: killed. */
static int wait_bounded(pid_t pid, double timeout, int *status)
{
	double deadline = timeout > 0 ? mono_now() + timeout : 0;
	struct timespec poll = { 0, RUNCMD_POLL_NS };
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, deadline > 0 ? WNOHANG : 0);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (w == 0 && mono_now() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return 1;
		}
		if (w == 0)
			nanosleep(&poll, NULL);
	}
}

int runcmd(const char *cmd, const char *const *args, size_t nargs, const char *dir)
{
	return runcmd_timeout(cmd, args, nargs, dir, 0);
}

int runcmd_timeout(const char *cmd, const char *const *args, size_t nargs, const char *dir,
		   double timeout)
{
	char **words = NULL, **argv;
	int nwords, status;
	size_t i;
	pid_t pid;

	nwords = proc_split_cmd(cmd, &words);
	if (nwords < 0)
		return log_error("cannot parse command \"%s\"", cmd);
	argv = xcalloc((size_t)nwords + nargs + 1, sizeof(*argv));
	for (i = 0; i < (size_t)nwords; i++)
		argv[i] = words[i];
	for (i = 0; i < nargs; i++)
		argv[(size_t)nwords + i] = (char *)args[i];
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(argv);
		proc_free_argv(words);
		return log_error("cannot run %s: fork: %s", cmd, strerror(errno));
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (timeout > 0)
			setpgid(0, 0);  /* so a timeout kills what it started too */
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
		dup2(2, 1);
		if (dir && chdir(dir) < 0)
			_exit(RUNCMD_EXEC_FAILED);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(RUNCMD_EXEC_FAILED);
	}
	if (timeout > 0)
		setpgid(pid, pid);      /* either side may run first */
	free(argv);
	proc_free_argv(words);
	switch (wait_bounded(pid, timeout, &status)) {
	case -1:
		return log_error("cannot wait for %s: %s", cmd, strerror(errno));
	case 1:
		return log_error("%s still running after %g s: killed", cmd, timeout);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return log_error("%s died of signal %d", cmd, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
