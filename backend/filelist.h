/*
 * The files of a job as the back-end daemons see them: a workunit's input
 * files (its xml_doc's <file_info>s) and a result's output files (the
 * <file_ref>s of its xml_doc_in, with what the client reported for each in
 * xml_doc_out). Only names, flags and reported sums come from the XML; the
 * paths are the download and upload hierarchies' (dirhier.h).
 */
#ifndef WSEQ_FILELIST_H
#define WSEQ_FILELIST_H

#include "common.h"
#include "md5.h"

struct db_workunit;
struct db_result;

struct job_fileref {
	char *name;             /* physical name */
	char *open_name;        /* the app's name for an output (NULL if none) */
	bool no_delete;         /* input: <no_delete/> in its file_info */
	bool reported;          /* output: in xml_doc_out */
	bool upload;            /* output: its file_info has an upload URL (the server gets it);
				 * sticky-only state files of sequences and unuploaded answers do not */
	char md5[MD5_HEX_LEN + 1];      /* output: reported md5_cksum ("" if none) */
	double nbytes;          /* output: reported nbytes */
};

struct job_filelist {
	struct job_fileref *f;
	size_t n;
};

/* The workunit's input files, in xml_doc order. 0 or -1 (logged: bad XML). */
int filelist_wu_inputs(const struct db_workunit *wu, struct job_filelist *out);
/*
 * The result's output files in file_ref order (the file_infos of
 * xml_doc_in when it has no file_refs), each marked with what xml_doc_out
 * reports for it. A name only xml_doc_out has is not the result's and is
 * ignored: what a host reports never makes another result's file this
 * one's. 0 or -1 (logged).
 */
int filelist_result_outputs(const struct db_result *r, struct job_filelist *out);
void filelist_release(struct job_filelist *l);

struct db;
/*
 * The result whose uploaded output is called name (whatever its state):
 * a sequence file's segment result, or the result "R" of an output named
 * "R_<i>..." (output templates start every name with <OUTFILE_i/>). For
 * the upload handler, which takes a file only for its result in progress.
 * DB_OK, DB_NOT_FOUND, or DB_ERROR / DB_RETRY.
 */
int filelist_output_owner(struct db *db, const char *name, struct db_result *owner);

#endif
