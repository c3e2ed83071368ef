/*
 * Running a project's plug-in command (the validator's --compare_cmd, the
 * assimilator's --script): the command is split into words like a
 * config.xml <cmd> (no shell), the arguments are appended, and it runs in
 * the project directory with standard input from /dev/null and its output
 * going to the daemon's log.
 */
#ifndef WSEQ_RUNCMD_H
#define WSEQ_RUNCMD_H

#include "common.h"

/*
 * Run cmd with args[0..nargs-1] appended in dir and wait for it. Returns
 * its exit status (0..255), or -1 if it could not be run or died of a
 * signal (logged).
 */
int runcmd(const char *cmd, const char *const *args, size_t nargs, const char *dir);

/*
 * runcmd with a bound: a command (and whatever it started in its process
 * group) still running after timeout seconds is killed, logged, and
 * counts as -1. timeout <= 0: no bound.
 */
int runcmd_timeout(const char *cmd, const char *const *args, size_t nargs, const char *dir,
		   double timeout);

#endif
