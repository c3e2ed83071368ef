/*
 * The wrapper's guard (wrapper_guard.h): a process of its own that kills the
 * tasks' process groups when the wrapper is gone, however it went.
 */
#include "common.h"
#include "log.h"
#include "wrapper_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GUARD_MAX 1024

static NORETURN void guard_main(int fd)
{
	pid_t groups[GUARD_MAX];
	size_t n = 0, i;
	char buf[64], line[32];
	size_t ll = 0;
	ssize_t r;

	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < (size_t)r; i++) {
			if (buf[i] != '\n') {
				if (ll < sizeof(line) - 1)
					line[ll++] = buf[i];
				continue;
			}
			line[ll] = '\0';
			ll = 0;
			pid_t p = (pid_t)atol(line + 1);
			if (p <= 1)
				continue;
			if (line[0] == '+' && n < GUARD_MAX) {
				groups[n++] = p;
			} else if (line[0] == '-') {
				for (size_t k = 0; k < n; k++)
					if (groups[k] == p)
						groups[k] = groups[--n];
			}
		}
	}
	for (i = 0; i < n; i++)
		killpg(groups[i], SIGKILL);
	_exit(0);
}

int wguard_start(void)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return log_error("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return log_error("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[1]);
		setpgid(0, 0);
		guard_main(fds[0]);
	}
	close(fds[0]);
	return fds[1];
}

void wguard_tell(int fd, char op, pid_t pid)
{
	char msg[32];
	int n = snprintf(msg, sizeof(msg), "%c%ld\n", op, (long)pid);

	if (fd >= 0 && write(fd, msg, (size_t)n) < 0)
		log_warn("cannot tell the guard about %ld: %s", (long)pid, strerror(errno));
}
