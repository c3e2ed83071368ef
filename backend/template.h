/*
 * Input (workunit) and output (result) templates in BOINC's XML format,
 * and turning them into the xml_doc of a workunit and the xml_doc_in of a
 * result: exactly what the scheduler copies into its reply. No database
 * and no file system beyond reading a template: create_work, the remote
 * submission RPC, the transitioner and the sequence code share it.
 *
 * Input template:
 *
 *   <input_template>                          (optional wrapper)
 *     <file_info><number>0</number>[<sticky/>][<no_delete/>][<executable/>]</file_info>
 *     <workunit>
 *       <file_ref><file_number>0</file_number><open_name>in</open_name>[<copy_file/>]</file_ref>
 *       [<command_line>..</command_line>] [<rsc_fpops_est>..</rsc_fpops_est>] ...
 *     </workunit>
 *   </input_template>
 *
 * Output template:
 *
 *   <output_template>                         (optional wrapper)
 *     <file_info><name><OUTFILE_0/></name><generated_locally/><upload_when_present/>
 *       <max_nbytes>N</max_nbytes><url><UPLOAD_URL/></url></file_info>
 *     <result><file_ref><file_name><OUTFILE_0/></file_name><open_name>out</open_name>
 *       </file_ref></result>
 *   </output_template>
 */
#ifndef WSEQ_TEMPLATE_H
#define WSEQ_TEMPLATE_H

#include "common.h"
#include "sbuf.h"

/* Largest template file read, and largest xml_doc made (MEDIUMBLOB is 16 MB). */
#define TEMPLATE_MAX (1024 * 1024)

/*
 * A workunit's job parameters. A double below 0, an int below 0, and a
 * priority of JOB_PRIORITY_UNSET mean "not given".
 */
#define JOB_PRIORITY_UNSET INT_MIN
struct job_params {
	double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	int delay_bound;
	int min_quorum, target_nresults, max_error_results, max_total_results,
		max_success_results;
	int priority;
};

/* Everything "not given". */
void job_params_unset(struct job_params *p);
/* BOINC's create_work defaults (rsc_fpops_est 3.6e12, min_quorum 2, ...). */
void job_params_boinc_defaults(struct job_params *p);
/* Copy the fields src gives into dst. */
void job_params_override(struct job_params *dst, const struct job_params *src);
/*
 * Make a complete set consistent the way BOINC does (max_success_results and
 * max_total_results at least target_nresults, target_nresults at least
 * min_quorum); -1 (logged) for values out of range (zero quorum, ...).
 */
int job_params_finish(struct job_params *p);

/* ---- input templates --------------------------------------------------- */

struct input_template_file {
	int number;
	long line;
	char *extra_xml;        /* other children (<sticky/>, <no_delete/>, ...) as XML */
};

struct input_template_ref {
	int file_number;
	long line;
	char *open_name;        /* NULL: the physical name (with <copy_file/>) */
	char *extra_xml;        /* <copy_file/>, <optional/>, ... as XML */
};

struct input_template {
	char *name;             /* file name, for errors */
	struct input_template_file *files;      /* indexed by number */
	size_t nfiles;
	struct input_template_ref *refs;
	size_t nrefs;
	char *command_line;     /* NULL: none */
	char *extra_xml;        /* other <workunit> children, as XML */
	struct job_params params;
};

/* A physical input file as the client will see it. */
struct template_infile {
	const char *name;
	const char *url;
	const char *md5;        /* 32 hex characters */
	double nbytes;
};

/*
 * Parse a template held in memory; name is used in "NAME:LINE: ..." errors.
 * File numbers must be 0..n-1 without repeats (a missing <number> is the
 * file_info's position), every file_ref must name one of them.
 * Returns 0 or -1 (logged); t is left empty on failure.
 */
int input_template_parse(const char *text, size_t len, const char *name,
			 struct input_template *t);
int input_template_load(const char *path, struct input_template *t);
void input_template_release(struct input_template *t);

/*
 * Append the workunit's xml_doc: one <file_info> per input (files[i] is
 * the file of number i), then <workunit> with the file_refs, the command
 * line (command_line if not NULL, else the template's) and the template's
 * other <workunit> children. nfiles must equal t->nfiles ("template needs
 * 2 input files, got 1").
 */
int input_template_process(const struct input_template *t,
			   const struct template_infile *files, size_t nfiles,
			   const char *command_line, struct sbuf *xml_doc);

/* ---- output templates -------------------------------------------------- */

struct result_template_seg;

struct result_template {
	char *name;
	int noutfiles;          /* highest OUTFILE_i used + 1 */
	struct result_template_seg *segs;
	size_t nsegs;
};

/*
 * Parse and check an output template: each <file_info> has a <name>; one
 * with a <url> (an upload) has <max_nbytes> above 0 (the client fails any
 * larger output, and with 0 every output); only <OUTFILE_i/> and
 * <UPLOAD_URL/> placeholders; each result <file_ref> names a file_info.
 * Returns 0 or -1 with "NAME:LINE: ..." logged.
 */
int result_template_parse(const char *text, size_t len, const char *name,
			  struct result_template *t);
int result_template_load(const char *path, struct result_template *t);
void result_template_release(struct result_template *t);

/*
 * Append a result's xml_doc_in: <OUTFILE_i/> becomes "<result_name>_i",
 * <UPLOAD_URL/> upload_url (which must contain "file_upload_handler", or
 * the client would download instead of upload).
 */
int result_template_process(const struct result_template *t, const char *result_name,
			    const char *upload_url, struct sbuf *xml_doc_in);

#endif
