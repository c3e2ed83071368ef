/*
 * wseq_submit's reading of what to run: an HTCondor submit description (the
 * common subset, doc/wseq_submit.md) or a plain job list, turned into a list
 * of jobs with every macro expanded. Pure: no server, no file system but the
 * item files of "queue ... from FILE", read through a callback (so the unit
 * tests and the fuzzer give their own). Every error is "FILE:LINE: message".
 */
#ifndef WSEQ_SUBMIT_DESC_H
#define WSEQ_SUBMIT_DESC_H

#include "common.h"
#include "sbuf.h"
#include "submit_send.h"

/* The most jobs one description may make, and the most bytes it and an item file may hold. */
#define DESC_MAX_JOBS 1000000L
#define DESC_MAX_BYTES (64L * 1024 * 1024)

struct desc_job {
	long proc;              /* $(Process): 0, 1, ... in queue order */
	long line;              /* the queue line that made it */
	char *iwd;              /* initialdir; "" = the submit directory */
	char **args;
	size_t nargs;
	char **inputs;          /* transfer_input_files, then input */
	size_t ninputs;
	long inputs_line;       /* where transfer_input_files was given (else the queue line) */
	char **outputs;         /* transfer_output_files: open names of the app's outputs */
	size_t noutputs;
	bool outputs_given;     /* false: every output file */
	char **remap_from, **remap_to;  /* transfer_output_remaps */
	size_t nremaps;
	char *output, *error, *log;     /* NULL when not given */
	bool suffix_proc;       /* a job list's: output files not named otherwise get ".PROC" */
};

struct submit_desc {
	char *app;              /* +WseqApp, else executable */
	long app_line;
	char *executable;       /* with +WseqApp: executable as given (the program an
				 * any_executable app runs), else NULL */
	long exec_line;
	bool sequence;          /* +WseqSequence = true */
	char *project;          /* +WseqProject, or grid_resource = boinc URL; NULL if neither */
	char *auth_file;        /* +WseqAuthenticatorFile or boinc_authenticator_file; or NULL */
	char *batch;            /* +WseqBatch; or NULL */
	/* +rsc_fpops_est and the like, as boinc_gahp takes them; 0 = the template's */
	struct send_params params;
	struct desc_job *jobs;
	size_t njobs;
};

/* Read path (queue ... from FILE) into out: 0, or -1 with errno set. */
typedef int (*desc_reader)(const char *path, struct sbuf *out, void *arg);

struct desc_opts {
	const char *file;       /* the name errors give */
	long cluster;           /* $(Cluster) */
	long max_jobs;          /* 0: DESC_MAX_JOBS */
	desc_reader read;       /* NULL: no item files */
	void *read_arg;
};

/* A submit description: 0 and *d (desc_release it), or -1 with "FILE:LINE: why" in err. */
int desc_parse(const struct desc_opts *o, const char *text, size_t len, struct submit_desc *d,
	       struct sbuf *err);

/*
 * A job list: one job a line, "ARG... [< INPUT...]", quoted as in a shell
 * ('...', "...", a backslash escapes), blank lines and # comments skipped.
 * Outputs come back as OPEN_NAME.PROC and stderr as stderr.PROC.
 */
int desc_parse_job_list(const struct desc_opts *o, const char *text, size_t len, const char *app,
			bool sequence, struct submit_desc *d, struct sbuf *err);

void desc_release(struct submit_desc *d);

/* Split an arguments value as condor_submit does (the old and the new syntax). */
int desc_split_args(const char *value, char ***argv, size_t *argc, struct sbuf *why);

#endif
