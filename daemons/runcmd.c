/* Running plug-in commands; see runcmd.h. */
#include "runcmd.h"
#include "daemon_proc.h"
#include "log.h"

#include <fcntl.h>
#include <sys/wait.h>

#define RUNCMD_EXEC_FAILED 127

int runcmd(const char *cmd, const char *const *args, size_t nargs, const char *dir)
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
	free(argv);
	proc_free_argv(words);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return log_error("cannot wait for %s: %s", cmd, strerror(errno));
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return log_error("%s died of signal %d", cmd, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
