/*
 * The wrapper's guard: a child in a process group of its own that learns
 * each task's process group over a pipe ("+PGID" started, "-PGID" gone) and,
 * when the pipe closes -- the wrapper exited or was killed, even with
 * SIGKILL -- kills every group still running, so no task outlives its job.
 */
#ifndef WSEQ_WRAPPER_GUARD_H
#define WSEQ_WRAPPER_GUARD_H

#include <sys/types.h>

/* Start the guard: the pipe's write end, or -1 (logged). */
int wguard_start(void);
/* Tell the guard about a group: op '+' started, '-' gone. */
void wguard_tell(int fd, char op, pid_t pid);

#endif
