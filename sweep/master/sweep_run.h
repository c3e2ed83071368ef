/*
 * `sweep run` and `sweep resume`: the whole sweep from one command -- the
 * project (a private one, as wseq_sandbox makes, when none is configured),
 * the session, sweep_client deployed to every host of the cluster file by
 * ssh (and sftp when missing), the progress while the hosts work, the
 * results judged as they come, the output and the statistics at the end.
 */
#ifndef WSEQ_SWEEP_RUN_H
#define WSEQ_SWEEP_RUN_H

#include "common.h"
#include "sweep_halt.h"

struct sweep_store;

struct sweep_run_opts {
	char *project;          /* --project_dir: a configured project, or NULL */
	char *sandbox;          /* --sandbox: a private project's directory, or NULL */
	char *state;            /* --state: the state directory, or NULL (sweep_state_dir()) */
	char *ssh_config;       /* ssh -F FILE, or NULL */
	char *remote_dir;       /* where sweep_client lives on the hosts */
	char *client;           /* the client bundle to copy (sweep_bundle.h), or NULL: the installed ones */
	char *progress;         /* bar, lines, none, or "" (bar on a terminal, else lines) */
	bool keep_server;       /* leave a private project running at the end */
	bool verbose;           /* log what happens to each host, and the private project's output */
	long max_starts;        /* starts of a host's client before it is given up */
	char *joblog;           /* --joblog FILE: parallel's joblog, or NULL */
	char *results;          /* --results DIR: each set's stdout, stderr, exitval; or NULL */
	bool resume_failed;     /* --resume-failed: run only the sets the joblog shows not done */
	long retries;           /* --retries N: MaxTotal of a new session; 0 the spec's */
	bool dry_run;           /* --dry-run: print the command lines, run nothing */
	long nice;              /* --nice N: the workers' niceness on the hosts */
	char *halt_arg;         /* --halt as given */
	struct sweep_halt halt; /* --halt, parsed */
};

/* Exit statuses of run and resume. */
enum {
	SWEEP_EXIT_DONE = 0,    /* every set collected */
	SWEEP_EXIT_ERROR = 1,
	SWEEP_EXIT_HALTED = 3,  /* stopped by --halt: `sweep resume` goes on */
	SWEEP_EXIT_FAILED = 4,  /* every task ended, some sets failed */
	SWEEP_EXIT_STALLED = 5, /* tasks left, and no host left to run them */
	SWEEP_EXIT_STOPPED = 6, /* stopped by SIGINT or SIGTERM: `sweep resume` goes on */
};

/*
 * Where the sessions live (sweep_state.c): in a wseq project when one is
 * named (--project_dir, $WSEQ_PROJECT_DIR, --sandbox), else in the state
 * directory -- --state DIR, default ~/.wseq/sweep-state (allocated) --
 * whose embedded store sweep_state_open() opens, made 0700 when missing,
 * filling in files. NULL (logged).
 */
bool sweep_in_project(const struct sweep_run_opts *o);
char *sweep_state_dir(const struct sweep_run_opts *o);
struct sweep_files;
struct sweep_store *sweep_state_open(const char *dir, struct sweep_files *files);

/*
 * In a project: the path of its config.xml (NULL: the configured
 * project's, as config_load finds it) and, with --sandbox, the private
 * one's directory in *sandbox (free both).
 */
char *sweep_project_path(const struct sweep_run_opts *o, char **sandbox);

/* run --dry-run SPEC: every set's command line on stdout; an exit status above. */
int sweep_dry_run(const struct sweep_run_opts *o, const char *spec_path);

/* run SPEC (resume false) or resume SESSION: an exit status above. */
int sweep_run(const struct sweep_run_opts *o, bool resume, const char *arg);

/*
 * Print the statistics of session sid to fp: its tasks, what each host did,
 * the hosts that ran no set and why (from the session's hosts file in dir,
 * if any), those that ran sets but whose client ended badly, and the sets
 * that failed, with why. 0 or -1 (logged).
 */
int sweep_print_stats(struct sweep_store *store, const char *sid, const char *dir, FILE *fp);

#endif
