/*
 * The sweep worker specification: what to run for every parameter set and
 * how to treat it. Key=Value lines (keys case-sensitive) before the first
 * section give the command line, timeout, assignment limits, validation,
 * collection, termination settings and the master's address; [Worker]
 * sections the executables per platform, [Input] sections the files made
 * from parameters, [Result] sections what comes back. '#' starts a comment
 * line; after a blank, '#' also ends the value of every key except
 * CommandLine, Validate and Content, which run to the end of the line.
 * doc/sweep-formats.md is the reference.
 */
#ifndef WSEQ_SWEEP_SPEC_H
#define WSEQ_SWEEP_SPEC_H

#include "common.h"
#include "sbuf.h"
#include "sweep_expand.h"
#include "sweep_params.h"

#define SWEEP_SPEC_MAX (1u << 20)       /* bytes a spec file may have */

enum sweep_collect {
	SWEEP_COLLECT_PLAIN,    /* results concatenated */
	SWEEP_COLLECT_BLOCKS,   /* each result under a header naming its parameter set */
	SWEEP_COLLECT_TAG,      /* each line after its set's values and a tab (parallel's --tag) */
};

struct sweep_spec_worker {
	char *platform;         /* BOINC platform name, e.g. x86_64-pc-linux-gnu */
	char *file;             /* executable on the master (relative: to the spec's dir) */
	int line;
};

struct sweep_spec_line {
	char *text;
	int line;
};

struct sweep_spec_input {
	char *file;             /* name in the client's work directory, or "stdin" */
	char *parameter;        /* the parameter written in, or NULL ... */
	struct sweep_spec_line *content;   /* ... the Content= lines (a template) ... */
	size_t ncontent;
	char *source;           /* ... or Source=: a file on the master, sent as it is */
	char *data;             /* the Source file's bytes (sweep_spec_load_sources) */
	size_t len;
	int line;
};

#define SWEEP_SOURCE_MAX (8u << 20)     /* bytes of a Source= file (each task carries it) */

struct sweep_spec_result {
	char *name;
	char *file;             /* "stdout" or a file the worker writes */
	int line;
};

struct sweep_spec {
	char *name;             /* as given, used in errors */
	char *dir;              /* directory of the spec file: relative paths start here */

	char *command_line;
	long timeout;           /* seconds a task may run */
	long max_assign;        /* copies of one task out at once */
	long max_total;         /* times a task may be handed out in all */
	char *validate;         /* NULL: every completed task is valid */
	enum sweep_collect collect;
	char *output;           /* collected output file */
	bool delete_worker, delete_client;
	long ping;              /* seconds; 0 for no ping */
	long jobs;              /* tasks each host's client runs at once; 0: one per CPU */
	char *server_host;      /* address the master listens on */
	int server_port;
	char *server_name;      /* how the hosts reach the master; NULL: the master decides */
	char *worker_name;      /* name= of GET /worker and the client's command name */
	char *parameters;       /* parameter file, or NULL */
	char *cluster;          /* cluster file, or NULL */
	/* Line of each key above (0: not given), for later error messages. */
	int command_line_line, validate_line;

	struct sweep_spec_worker *workers;
	size_t nworkers;
	struct sweep_spec_input *inputs;
	size_t ninputs;
	struct sweep_spec_result *results;
	size_t nresults;
};

/*
 * Parse a spec held in buf; name is used in errors ("spec:4: unknown key
 * 'Timout'") and to find the spec's directory. 0, or -1 with the error
 * appended to err (logged if err is NULL).
 */
int sweep_spec_parse(const char *name, const char *buf, size_t len, struct sweep_spec *s,
		     struct sbuf *err);
int sweep_spec_read(const char *path, struct sweep_spec *s, struct sbuf *err);
/*
 * Read the [Input] Source= files (relative to the spec's directory) for
 * sending: what a new session and --dry-run need, not a look at an old one.
 * 0, or -1 with "spec:LINE: [Input] for 'NAME': why" in err.
 */
int sweep_spec_load_sources(struct sweep_spec *s, struct sbuf *err);
void sweep_spec_release(struct sweep_spec *s);

/* Every placeholder and Parameter= of the spec must name a parameter of p. */
int sweep_spec_check_params(const struct sweep_spec *s, const struct sweep_params *p,
			    struct sbuf *err);

/* The worker for a platform, or NULL. */
const struct sweep_spec_worker *sweep_spec_worker_for(const struct sweep_spec *s,
						      const char *platform);

/* The argv of CommandLine (or Validate) for one parameter set. */
int sweep_spec_command(const char *pattern, const struct sweep_params *p, size_t row,
		       struct sweep_argv *argv, struct sbuf *err);
/* The content of an input file for one parameter set, appended to out. */
int sweep_spec_input_content(const struct sweep_spec_input *in, const struct sweep_params *p,
			     size_t row, struct sbuf *out, struct sbuf *err);

#endif
