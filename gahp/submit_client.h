/*
 * The client side of BOINC's remote job submission RPCs, over libcurl: an
 * XML document POSTed as the form field "request" to submit_rpc_handler.php
 * or job_file.php, an XML reply (or BOINC's <error> element), and plain GETs
 * of output files from get_output.php. Every call makes its own curl handle,
 * so workers never share one. Shared by boinc_gahp and wseq_submit.
 */
#ifndef WSEQ_SUBMIT_CLIENT_H
#define WSEQ_SUBMIT_CLIENT_H

#include "common.h"
#include "sbuf.h"
#include "xml.h"

/* Once, before any thread starts. */
int rpc_global_init(void);
/* Transfers in flight give up when fn (if set) answers true. */
void rpc_set_stop_hook(bool (*fn)(void));
void rpc_global_cleanup(void);
/* Does the stop hook say give up? (Long local work checks it too.) */
bool rpc_stopping(void);
/* The User-Agent of later requests (a static string; default "wseq boinc_gahp"). */
void rpc_set_user_agent(const char *ua);

/* Start a request document: "<root>" and, if auth is given, its <authenticator>. */
void rpc_begin(struct sbuf *b, const char *root, const char *auth);
/* Its elements with xml_elem_str(b, 0, ...) (xml_write.h); then its end. */
void rpc_end(struct sbuf *b, const char *root);

/* rpc_post's answer when the server refused the request with its <error>. */
#define RPC_REFUSED (-2)

/*
 * POST request to <url><script> as form field "request", with the files (if
 * any) as parts file_0, file_1, ... Success: 0 and *doc, a reply whose root
 * element is root_name and that carries no <error>. Failure: RPC_REFUSED
 * with the server's error_msg in err (it answered, and refused), or -1 with
 * the reason in err (an HTTP or a transport error, a reply not understood:
 * what the server did is not known).
 */
int rpc_post(const char *url, const char *script, const struct sbuf *request,
	     char *const *files, size_t nfiles, const char *root_name, xmlDoc **doc,
	     struct sbuf *err);

/*
 * The reply body of an RPC to script (rpc_post's second half, also for the
 * fuzzer): 0 and *doc, whose root is root_name and which carries no <error>,
 * or -1 with the reason in err (RPC_REFUSED for the server's <error>).
 */
int rpc_reply_parse(const char *body, size_t len, const char *script, const char *root_name,
		    xmlDoc **doc, struct sbuf *err);

/*
 * GET output file #file_num of job from get_output.php into dest (written to a
 * temporary file beside it and renamed, so a failure never leaves a file).
 * 0, or -1 with the reason in err; any HTTP status but 2xx is a failure.
 */
int rpc_get_output(const char *url, const char *auth, const char *job, int file_num,
		   const char *dest, struct sbuf *err);

/* The open_name lists of an app's input and output templates. */
struct rpc_templates {
	char **in;
	size_t nin;
	char **out;
	size_t nout;
	bool any_executable;    /* the app runs the submitter's own executable */
};

/* get_templates by app name (job NULL) or by job name (app NULL). */
int rpc_get_templates(const char *url, const char *auth, const char *app, const char *job,
		      struct rpc_templates *t, struct sbuf *err);
/* The open_names of a get_templates reply; -1 (err) without <templates>. */
int rpc_templates_from_reply(xmlDoc *doc, struct rpc_templates *t, struct sbuf *err);
void rpc_templates_release(struct rpc_templates *t);

/* Does the reply root have a child element name? Its text (free()) or NULL. */
char *rpc_child_text(xmlNode *root, const char *name);

/* POST a request whose only sign of success is a <success> element. */
int rpc_simple(const char *url, const struct sbuf *request, const char *root_name,
	       struct sbuf *err);

/* One job of a query_batch2 reply. */
struct rpc_job_status {
	char *name;
	char *status;           /* UNSENT, IN_PROGRESS, DONE, ERROR */
};

/*
 * query_batch2 of one batch (min_mod_time 0: every job): its jobs, in the
 * server's order (free with rpc_job_status_free), and the server time.
 */
int rpc_query_batch(const char *url, const char *auth, const char *batch,
		    struct rpc_job_status **jobs, size_t *njobs, double *server_time,
		    struct sbuf *err);
void rpc_job_status_free(struct rpc_job_status *jobs, size_t njobs);

/* What query_completed_job tells of a job. */
struct rpc_completed {
	long error_mask, canonical_resultid, error_resultid, exit_status;
	double elapsed_time, cpu_time;
	char *stderr_out;       /* unescaped; NULL when the reply has none */
};

int rpc_query_completed_job(const char *url, const char *auth, const char *job,
			    struct rpc_completed *c, struct sbuf *err);
void rpc_completed_release(struct rpc_completed *c);

/* The server sends stderr entity-escaped inside CDATA: undo the escaping in place. */
void rpc_unescape_entities(char *s);

#endif
