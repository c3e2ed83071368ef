/*
 * Inside the remote job submission RPCs (submit.h): what the request
 * handlers, spread over submit_*.c by request, share. Not for other
 * programs.
 */
#ifndef WSEQ_SUBMIT_INT_H
#define WSEQ_SUBMIT_INT_H

#include "submit.h"
#include "db_records.h"
#include "field.h"
#include "md5.h"
#include "work.h"
#include "xml.h"

struct rpc {
	const struct submit_ctx *c;
	const struct form *form;
	xmlNode *root;
	struct sbuf *body;              /* the reply's content inside the root */
	struct sbuf err;                /* the error message, when one */
	struct db_user user;
	size_t njobs;                   /* query_batch2: jobs listed for the current batch */
};

/* Set the request's error (the first reason stands); returns -1. */
int submit_fail(struct rpc *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* A database call failed: "unavailable" when the database does not answer, else "database error". */
int submit_db_fail(struct rpc *r);
/*
 * What the submitter sends, through lib/field.h: 0, or -1 with the request's
 * error naming the field (e.g. "delay_bound: inf is outside [0, 1e+09]").
 * A text of at most max characters, valid UTF-8 without control characters
 * (a name is refused, never cut): *out allocated, NULL when text is.
 */
int submit_text(struct rpc *r, const char *field, const char *text, size_t max, char **out);
/* The same for the text of n's child <name> (*out NULL when absent). */
int submit_str(struct rpc *r, const xmlNode *n, const char *name, size_t max, char **out);
/* n's child <name> as a number in [min, max]; *v untouched when absent or empty. */
int submit_num(struct rpc *r, const xmlNode *n, const char *name, double min, double max,
	       double *v);
/* The same for an integer (lib/field refuses a fraction). */
int submit_int(struct rpc *r, const xmlNode *n, const char *name, int64_t min, int64_t max,
	       int64_t *v);

/* The latest time a submitter may give (expire_time, delete_time, min_mod_time): year 5138. */
#define SUBMIT_TIME_MAX 1e11
/* The user of <authenticator>, in r->user. */
int submit_authenticate(struct rpc *r);
/* May the user submit (appid 0: handle files at all)? */
int submit_may_submit(struct rpc *r, int64_t appid);
/*
 * The input template of job #job of an any_executable app (submit/submit_exec.c):
 * base's settings, one copied file per open name (names[], borrowed), one of
 * them the executable "wseq_exec". 0, or -1 with the submitter told why.
 */
struct input_template;
int submit_exec_template(struct rpc *r, const struct input_template *base, char *const *names,
			 size_t n, size_t job, struct input_template *t);
void submit_exec_template_release(struct input_template *t);
/*
 * The rule of what a job may choose on a host (lib/exec_rule.h), for job
 * #job of app: its command line (before the job is made; any for an
 * any_executable app, whose submitter holds the right by then), and the
 * workunit's xml_doc as made (every open name, no input marked executable
 * unless the app is any_executable). 0, or -1 with the submitter told why.
 */
int submit_exec_check_cmdline(struct rpc *r, const struct db_app *app, const char *cmd,
			      size_t job);
int submit_exec_check_wu(struct rpc *r, const struct db_app *app, const char *xml_doc,
			 size_t job);
/* An any_executable app: has the user the right to bring their own executable? */
int submit_may_bring_executable(struct rpc *r, const struct db_app *app);
int submit_app_by_name(struct rpc *r, const char *name, struct db_app *app);
/* The batch named by <batch_id> or <batch_name> of node, owned by the user. */
int submit_owned_batch(struct rpc *r, const xmlNode *node, struct db_batch *b);

/*
 * A job: an ordinary app's workunit, or a sequence app's work sequence (same
 * name), and then wu is the segment that speaks for it -- the last one once
 * the sequence has ended, else the newest sent.
 */
struct job {
	struct db_workunit wu;
	struct db_sequence seq;
	bool is_seq;
};

enum job_rc { JOB_OK, JOB_NONE, JOB_NOT_OWNER, JOB_NO_BATCH, JOB_DB_ERROR };

void submit_job_release(struct job *j);
enum job_rc submit_job_find(struct db *db, int64_t user_id, const char *name, struct job *j);
/* The job called name, in a batch of the user's. */
int submit_owned_job(struct rpc *r, const char *name, struct job *j);
/*
 * The output files of a sequence job: the answers, then the states, of its
 * last segment on the live branch; with their open names when names is set.
 */
size_t submit_seq_outputs(const struct project_config *cfg, const struct db_sequence *s,
			  char **files, char **open_names);
/* The output files of a result: physical names and logical (open) names. */
struct outfile {
	char *phys;
	char *log;              /* its file_ref's open_name, else phys */
};
struct outfiles {
	struct outfile *v;
	size_t n;
};
/* From the result's xml_doc_in, in its file_info order: 0, or -1 if it does not parse. */
int submit_result_outfiles(const struct db_result *res, struct outfiles *o);
void submit_outfiles_release(struct outfiles *o);
/* A batch's jobs counted now: done (ordinary with a canonical result, or sequence ended), failed. */
int submit_batch_progress(struct rpc *r, const struct db_batch *b, int64_t *done, int64_t *err);
/*
 * The batch's counts now in b (fraction_done, nerror_jobs); one in progress
 * whose every job is over becomes COMPLETE with its completion time: 1
 * then, 0 otherwise, -1 with the request's error.
 */
int submit_batch_count(struct rpc *r, struct db_batch *b);
/* The same on the row, locked, and written back in a transaction of its own: 0 or -1. */
int submit_batch_settle(struct rpc *r, struct db_batch *b);
/* A batch's parameters as upstream's print_batch_params has them (total_cpu_time when cpu). */
int submit_batch_params(struct rpc *r, struct db_batch *b, bool cpu);
/* The bounds of a job's numbers: generous, finite, and what the columns hold. */
#define FPOPS_MAX 1e30
/* A hostile name for a message: control bytes escaped, at most 100 bytes (allocated). */
char *submit_quoted(const char *s);

/*
 * How long a job file uploaded or queried without a batch stays on the
 * server at least (its delete_time raised to now + this): one day, upstream's daily
 * delete_job_files' round or longer.
 */
#define JOB_FILE_GRACE 86400.0
/* The most characters of a job file name's extension (after the dot). */
#define JOB_FILE_EXT_MAX 64
/* Why name is not a job file's name (NULL: it is one, and md5 is its content's). */
const char *submit_job_file_name(const char *name, char md5[MD5_HEX_LEN + 1]);
/*
 * The submitter's own area, upstream's file sandbox: PROJECT/sandbox/USERID/,
 * one entry per name the submitter gave upload_files that is not a job
 * file's, holding the name of the content-addressed job file (jf_<md5>) it
 * stands for. Only upload_files writes there, after it has the content.
 */
#define AREA_DIR "sandbox"
#define AREA_NAME_MAX 200
/* Why name cannot be a name in the area (NULL: it can). */
const char *submit_area_name(const char *name);
enum name_kind { NAME_BAD, NAME_JOB_FILE, NAME_AREA };
/* A job file's name (its rules apply), a name in the area, or neither (*why says). */
enum name_kind submit_name_kind(const char *name, const char **why);
/* The user's area (name NULL) or its entry name (allocated). */
char *submit_area_path(struct rpc *r, const char *name);
/* The job file name stands for in the user's area: 1 (*phys allocated), 0 none, -1 (told). */
int submit_area_lookup(struct rpc *r, const char *name, char **phys);
/* Let name stand for the job file phys in the user's area: 0, or -1 (told). */
int submit_area_link(struct rpc *r, const char *name, const char *phys);
/* Record the job file as known until delete_time (raised, never lowered), tied to batch (>0). */
int submit_note_job_file(struct rpc *r, const char *name, double delete_time, int64_t batch);
/* A name the project holds already, not as a job file, is not the submitter's to store: -1 (told). */
int submit_store_check(struct rpc *r, const char *name);

/* The input files of a submit_batch request, looked up once, tied to its batch. */
struct staged {
	int64_t batch;
	struct work_file *files;        /* by physical name */
	size_t n;
	struct work_file *fresh;        /* stored by this request (inline, semilocal) */
	size_t nfresh;
};
/* The most bytes of an inline input, of what semilocal fetches, of a remote file. */
#define INLINE_MAX (256 * 1024)
#define SEMILOCAL_MAX (64L * 1024 * 1024)
#define SEMILOCAL_TIMEOUT 60
#define REMOTE_MAX 1e12
/*
 * Job #job's <input_file> in (submit/submit_inputs.c: its modes): the file,
 * owned by st, or NULL with the submitter told why.
 */
const struct work_file *submit_input_file(struct rpc *r, struct staged *st, const xmlNode *in,
					  size_t job);
/* Free st; failed: remove the files this request stored anew. */
void submit_staged_release(struct staged *st, bool failed);
/* Is the address one anyone may be sent to: not loopback, private, link-local, ...? */
struct sockaddr;
bool submit_addr_public(const struct sockaddr *sa);
/* "bad filename NAME: WHY"; returns -1. */
int submit_bad_filename(struct rpc *r, const char *name, const char *why);

enum jf_state {
	JF_ABSENT,      /* not on the server (jf filled if a stale row is left) */
	JF_OK,          /* a job file, its content what its name says: jf and wf filled */
	JF_PROJECT,     /* a file of the project's, not a job file */
	JF_OTHERS,      /* a job file only other submitters' batches are tied to */
	JF_BAD,         /* a job file whose content is not what its name says */
	JF_DB_ERROR,
};
/*
 * The job file called name (a job file's name) as the server has it, to
 * the requesting user: a job file is the user's when it is tied to one of
 * their batches, or to no batch at all (uploaded without one).
 */
enum jf_state submit_job_file_find(struct rpc *r, const char *name, struct db_job_file *jf,
				   struct work_file *wf);
/*
 * The same, proven: the user has shown they hold the content (it is in
 * their area, or they sent it), so a file tied to others' batches is theirs
 * to use too.
 */
enum jf_state submit_job_file_find_as(struct rpc *r, const char *name, bool proven,
				      struct db_job_file *jf, struct work_file *wf);

/* The requests, by their root element. */
int submit_do_get_templates(struct rpc *r);
int submit_do_create_batch(struct rpc *r);
int submit_do_query_files(struct rpc *r);
int submit_do_upload_files(struct rpc *r);
int submit_do_submit_batch(struct rpc *r);
int submit_do_query_batch2(struct rpc *r);
int submit_do_query_batches(struct rpc *r);
int submit_do_query_completed_job(struct rpc *r);
int submit_do_abort_jobs(struct rpc *r);
int submit_do_retire_batch(struct rpc *r);
int submit_do_set_expire_time(struct rpc *r);
int submit_do_query_batch(struct rpc *r);
int submit_do_query_job(struct rpc *r);
int submit_do_abort_batch(struct rpc *r);
int submit_do_estimate_batch(struct rpc *r);

#endif
