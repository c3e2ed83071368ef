/*
 * What the project control programs (bin/start, bin/stop, bin/status) need
 * to know about daemon processes: splitting a config.xml <cmd>, pid files,
 * and whether a pid really is a given daemon (a pid file left by kill -9 or
 * a reboot may name a pid the system has since given to something else).
 */
#ifndef WSEQ_DAEMON_PROC_H
#define WSEQ_DAEMON_PROC_H

#include "common.h"

/*
 * Split a command line into words the way sh would for plain words, 'single'
 * and "double" quotes and backslashes (no expansion of any kind). Returns the
 * word count with a NULL-terminated allocated vector in *argv_out, or -1 for
 * an unterminated quote or an empty command.
 */
int proc_split_cmd(const char *cmd, char ***argv_out);
void proc_free_argv(char **argv);

enum proc_pid_rc {
	PROC_PID_OK = 0,
	PROC_PID_MISSING = 1,   /* no pid file */
	PROC_PID_BAD = -1,      /* unreadable, or not a pid */
};
enum proc_pid_rc proc_pid_read(const char *path, pid_t *pid);
/* Write "PID\n" to path atomically (temporary file and rename); 0 / -1 (logged). */
int proc_pid_write(const char *path, pid_t pid);

/*
 * Is pid a live (not zombie) process running prog? True when one of the
 * first two words of /proc/PID/cmdline has prog's basename, so a daemon run
 * through an interpreter ("/bin/sh bin/x") counts too.
 */
bool proc_is(pid_t pid, const char *prog);

/* The last component of a path (a pointer into path). */
const char *proc_basename(const char *path);

/* mkdir -p, mode 0755; 0 / -1 (logged). */
int proc_mkdirs(const char *dir);

#endif
