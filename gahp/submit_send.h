/*
 * Sending one batch of jobs to a project, shared by boinc_gahp (BOINC_SUBMIT)
 * and wseq_submit: five RPCs whatever the number of jobs -- get_templates (is
 * the app there; skipped for a sequence app, which needs no input template),
 * create_batch, query_files (which inputs the server lacks), upload_files
 * (only those), submit_batch (every job in one document). Input files are
 * content-addressed, named <md5><extension>; each distinct local file is
 * hashed once however many jobs share it. A send that fails before its jobs
 * are made retires its batch, which the server then discards, so the same
 * send corrected works under the same batch name.
 */
#ifndef WSEQ_SUBMIT_SEND_H
#define WSEQ_SUBMIT_SEND_H

#include "common.h"
#include "sbuf.h"

/* The largest request document built (a batch of many jobs). */
#define SEND_MAX_REQUEST (1024L * 1024 * 1024)

/* The job parameters a batch may set; 0 = the app's template's. */
struct send_params {
	double fpops_est, fpops_bound, mem_bound, disk_bound, delay_bound;
	long app_version_num;
};

struct send_job {
	const char *name;
	long nargs;
	char **args;
	long nfiles;
	char **files;           /* local paths, in the order of the app's input template */
	char **open_names;      /* with an executable: each file's name on the host (NULL: its
				 * base name); else unused */
};

struct send_batch {
	const char *url, *auth;
	const char *batch, *app;
	const char *label;      /* names the send in log lines ("submit 16") */
	bool skip_templates;    /* a sequence app: no get_templates by app */
	/*
	 * An any_executable app's jobs: the local program every job runs, sent as
	 * each job's input opened as wseq_exec, before its files (which go under
	 * their open names). NULL: an ordinary app.
	 */
	const char *executable;
	double expire_time;     /* the batch's first lease */
	long njobs;
	struct send_job *jobs;
	struct send_params params;
};

/* Which step failed; boinc_gahp's error texts name it. */
enum send_step {
	SEND_OK,
	SEND_INPUTS,            /* reading, querying or uploading the input files */
	SEND_TEMPLATES,
	SEND_CREATE,
	SEND_SUBMIT,
};

struct send_result {
	enum send_step failed;
	char batch_id[32];      /* "" until create_batch answered */
	size_t hashed;          /* distinct local files hashed */
	size_t uploaded;        /* files sent */
	long long bytes;
};

/* The open name under which an any_executable app's job finds its program. */
#define SEND_EXEC_OPEN_NAME "wseq_exec"

/*
 * Give b njobs zeroed jobs, and a job nfiles zeroed file slots (and as many
 * open names when asked); send_batch_jobs_release releases those arrays, not
 * the strings in them.
 */
void send_batch_jobs(struct send_batch *b, long njobs);
void send_job_files(struct send_job *j, long nfiles, bool open_names);
void send_batch_jobs_release(struct send_batch *b);

/* 0, or -1 with the reason in err and the step in res->failed. */
int send_batch(const struct send_batch *b, struct send_result *res, struct sbuf *err);

/* A job's BOINC command line: arguments joined, each kept whole by quotes if it must be. */
void send_command_line(struct sbuf *b, char *const *args, long nargs);

/* "error processing input files" and the like: the step as boinc_gahp words it. */
const char *send_step_text(enum send_step s);

#endif
