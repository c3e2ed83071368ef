/*
 * Work creation, shared by create_work, the remote-submit RPC, the
 * transitioner and the sequence code: staging input files into the
 * download hierarchy, inserting workunits from a template, and making a
 * workunit's results from its result template.
 *
 * Nothing here commits: callers wrap many calls in one transaction
 * (db_begin / db_commit) so a batch is created whole or not at all.
 */
#ifndef WSEQ_WORK_H
#define WSEQ_WORK_H

#include "common.h"
#include "template.h"

struct db;
struct project_config;
struct db_workunit;
struct db_result;

/* ---- input staging ------------------------------------------------------- */

/* A physical input file in the download hierarchy. */
struct work_file {
	char *name;             /* physical name */
	char *path;             /* absolute path in download_dir */
	char *url;              /* download URL */
	char md5[33];
	double nbytes;
	bool staged;            /* this call copied it in (a failed job may remove it) */
};

/*
 * Make arg available for download. If arg names a local file it is copied
 * into the download hierarchy under phys_name (NULL: its basename); a file
 * of that name with other content is refused ("file immutability violation
 * for X"), identical content is fine. Otherwise arg must be a physical name
 * already in the hierarchy. md5 and size come from (and go to) the sidecar
 * "<path>.md5" ("<md5hex> <nbytes>\n"). Returns 0 or -1 (logged).
 */
int work_stage_input(const struct project_config *cfg, const char *arg,
		     const char *phys_name, struct work_file *out);
/* The file called name already in the download hierarchy (never a local file). 0 / -1. */
int work_staged_file(const struct project_config *cfg, const char *name, struct work_file *out);
/*
 * Store data under phys name in the download hierarchy (with its sidecar),
 * as work_stage_input does a local file: 0, 1 for a file of that name with
 * other content ("file immutability violation", logged), -1 (logged).
 */
int work_stage_buffer(const struct project_config *cfg, const char *name, const void *data,
		      size_t len, struct work_file *out);
/* Remove files this process staged (out->staged) after a failure. */
void work_unstage_input(const struct work_file *f);
void work_file_release(struct work_file *f);

/* ---- workunits ----------------------------------------------------------- */

/* What the caller gives for a job beyond its files. */
struct work_params {
	const char *command_line;       /* NULL: the template's */
	struct job_params jp;           /* unset fields: the template's, else BOINC's defaults */
	int64_t batch;                  /* 0: none */
	int app_version_num;            /* only this version of the app runs it; 0: any */
	/* upstream create_work's other fields, stored as it stores them */
	double credit;                  /* granted for each valid result; 0: the validator's rule */
	const char *keywords;           /* NULL: none */
	int hr_class;                   /* kept for SQL; wseq has no homogeneous redundancy */
	int size_class;                 /* kept for SQL; -1: none (no job size matching) */
	int64_t wu_id;                  /* the workunit's id; 0: the database chooses */
	int target_type;                /* ASSIGN_HOST/USER/TEAM: only for that target; 0: any host */
	int64_t target_id;
};

/*
 * workunit.transitioner_flags bit: its results wait INACTIVE until the
 * scheduler sends them to the host, user or team of its assignment row.
 * (1 is "no new results": a segment, whose results the sequence makes.)
 */
#define WU_ASSIGNED 4

/* Nothing given. */
void work_params_init(struct work_params *p);

/*
 * Insert one workunit named wu_name of app appid: xml_doc from the input
 * template tpl and the staged files (template order), the parameters from
 * BOINC's defaults <- the template <- p, result_template_file as given
 * (relative to the project dir, e.g. "templates/app_out"), transition_time
 * now so the transitioner makes its results at once. wu (zeroed or freed
 * before) gets the row, wu->id included. A duplicate name gives -1 with
 * "workunit NAME already exists". With a target (p->target_type), an
 * assignment row names it and the workunit is WU_ASSIGNED. Returns 0, -1 (logged), or DB_RETRY
 * when the connection was lost inside the transaction (rerun it).
 */
int work_create_wu(struct db *db, const char *wu_name, int64_t appid,
		   const struct input_template *tpl, const struct work_file *files,
		   size_t nfiles, const char *result_template_file,
		   const struct work_params *p, struct db_workunit *wu);

/* ---- results ------------------------------------------------------------- */

/* BOINC's safety net: a workunit with nothing due is looked at again after this long. */
#define WORK_SAFETY_NET_MIN (10 * 86400)

/*
 * When the transitioner looks at a workunit again that has nothing due
 * before: 1.5 times its delay bound after t, at least WORK_SAFETY_NET_MIN.
 */
int64_t work_safety_net(const struct db_workunit *wu, int64_t t);

/*
 * Fill out (zeroed or a freed record; freed first) as result number n of wu,
 * as work_create_result() makes it, without inserting it. 0, or -1 logged.
 */
int work_result_init(const struct project_config *cfg, const struct db_workunit *wu, int64_t n,
		     struct db_result *out);
/*
 * Certify the uploaded outputs in a result's xml_doc_in (replaced) with the
 * project's upload key, as upstream does when it makes a result, so the
 * scheduler sending it only copies the certificates. Without the key
 * (logged), or with ignore_upload_certificates, it stays as it is.
 */
void work_certify_outputs(const struct project_config *cfg, struct db_result *r);

/*
 * Insert the next result of wu (the transitioner's call): name
 * "<wuname>_<n>" with n the next free index, xml_doc_in from wu's result
 * template (read relative to cfg->project_dir, parsed once per process),
 * server_state UNSENT, outcome INIT, validate_state INIT, appid / batch /
 * priority / seq_id copied from wu, a random int, create_time now. out
 * must start zeroed (or be a freed record); out->id is set. Returns 0,
 * -1 (logged), or DB_RETRY when the connection was lost inside the
 * transaction.
 */
int work_create_result(struct db *db, const struct project_config *cfg,
		       const struct db_workunit *wu, struct db_result *out);

/* Drop the cache of parsed result templates (tests, long-running daemons). */
void work_template_cache_clear(void);

#endif
