/*
 * What the project control programs (bin/start, bin/stop, bin/status) and
 * the server status page need to know about daemon processes: splitting a
 * config.xml <cmd>, pid files, whether a pid really is a given daemon (a
 * pid file left by kill -9 or a reboot may name a pid the system has since
 * given to something else), and so whether a config.xml daemon runs.
 */
#ifndef WSEQ_DAEMON_PROC_H
#define WSEQ_DAEMON_PROC_H

#include "common.h"

struct project_config;
struct config_daemon;

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

/* What a daemon's pid file says (proc_daemon_probe). */
enum proc_state {
	PROC_NONE,              /* no pid file: not running */
	PROC_RUNNING,           /* its pid runs the daemon's program */
	PROC_STALE,             /* its pid is gone, or runs something else */
	PROC_BADPID,            /* unreadable, or not a pid */
};

/* A <daemon> of config.xml: where its program, pid file and log are. */
struct proc_daemon {
	const struct config_daemon *cd;
	char **argv;            /* from <cmd>; argv[0] is prog */
	char *prog;             /* absolute path of the program */
	char *name;             /* pid file name without .pid: unique */
	char *pid_path;
	char *log_path;
	enum proc_state state;  /* set by proc_daemon_probe() */
	pid_t pid;              /* ... from the pid file */
};

/*
 * Fill d for daemon cd of cfg: the program runs from the project's bin/
 * unless <cmd> names a path; the pid file is pid_dir/<pid_file> or
 * pid_dir/PROGRAM.pid, the log log_dir/<output> or log_dir/NAME.log.
 * 0, or -1 (logged) for an empty or unquoted <cmd>.
 */
int proc_daemon_init(const struct project_config *cfg, const struct config_daemon *cd,
		     struct proc_daemon *d);
void proc_daemon_release(struct proc_daemon *d);
/* Read the pid file and set d->state and d->pid; changes nothing on disk. */
void proc_daemon_probe(struct proc_daemon *d);

#endif
