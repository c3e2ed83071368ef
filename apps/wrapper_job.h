/*
 * The job file of wseq_wrapper (doc/wseq_wrapper.md): upstream wrapper's
 * job.xml -- the tasks to run in order, daemons beside them, a zip of
 * outputs whose names are not known in advance -- plus wseq's state files
 * for work sequences. Parsing needs no BOINC runtime, so the unit tests and
 * the fuzzer link this file alone.
 */
#ifndef WSEQ_WRAPPER_JOB_H
#define WSEQ_WRAPPER_JOB_H

#include "common.h"
#include "sbuf.h"

/* The zip's logical name when <zip_output> has no <zipfilename>; the server relies on it. */
#define WJOB_DEFAULT_ZIP "wseq_outputs.zip"

struct wjob_task {
	char *application;      /* logical name, resolved in the slot */
	char *command_line;     /* split like upstream's (wjob_split) */
	char *stdin_name, *stdout_name, *stderr_name;
	char *checkpoint_name;  /* a file the task rewrites when it checkpoints */
	char *fraction_done_name;       /* the task writes its fraction done (0..1) here */
	char **env;             /* NAME=VALUE, from <setenv> */
	size_t nenv;
	double weight;          /* share of the job's progress (default 1) */
	double time_limit;      /* seconds; 0: none */
	bool daemon;
	bool append_cmdline_args;
	bool input_application;         /* the application is a workunit input (any_executable apps) */
	long line;              /* where in the job file */
};

/*
 * A state file of a work sequence. With state levels (doc/wseq_wrapper.md,
 * "State levels") it may name its level and the level's period; state files
 * of one level share the period, given on any of them.
 */
struct wjob_state_file {
	char *name;             /* the file in the slot the tasks read and write */
	char *in, *out;         /* the logical names of the sequence's state input and output */
	char *level;            /* its level's name (NULL: none given) */
	long upload_every;      /* its level's period (0: not given) */
	long line;              /* where in the job file */
};

struct wjob {
	struct wjob_task *tasks;
	size_t ntasks;
	struct wjob_task *daemons;
	size_t ndaemons;
	bool zip_output;
	char *zip_name;         /* logical name of the zip (WJOB_DEFAULT_ZIP) */
	char **zip_patterns;    /* fnmatch() patterns */
	size_t nzip_patterns;
	struct wjob_state_file *states;
	size_t nstates;
};

/* Parse a job file's text; name is for messages. 0, or -1 with the reason in err. */
int wjob_parse(struct wjob *j, const char *buf, size_t len, const char *name, struct sbuf *err);
void wjob_release(struct wjob *j);

/*
 * Split a command line into words as upstream's wrapper does: blanks
 * separate words, single or double quotes group (and are removed); no
 * shell, no escapes. Appends to *argv (NULL-terminated, *argc words).
 */
void wjob_split(const char *line, char ***argv, size_t *argc);
void wjob_argv_free(char **argv);

#endif
