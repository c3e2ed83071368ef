/*
 * Inside the remote job submission RPCs (submit.h): what the request
 * handlers, spread over submit_*.c by request, share. Not for other
 * programs.
 */
#ifndef WSEQ_SUBMIT_INT_H
#define WSEQ_SUBMIT_INT_H

#include "submit.h"
#include "db_records.h"
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
double submit_child_double(const xmlNode *n, const char *name, double dflt);
/* <name> of n as an id: 0 when absent, -1 when not a number. */
int64_t submit_child_id(const xmlNode *n, const char *name);
/* The user of <authenticator>, in r->user. */
int submit_authenticate(struct rpc *r);
/* May the user submit (appid 0: handle files at all)? */
int submit_may_submit(struct rpc *r, int64_t appid);
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

void submit_job_free(struct job *j);
enum job_rc submit_job_find(struct db *db, int64_t user_id, const char *name, struct job *j);
/* The job called name, in a batch of the user's. */
int submit_owned_job(struct rpc *r, const char *name, struct job *j);
/*
 * The output files of a sequence job: the answers, then the states, of its
 * last segment on the live branch; with their open names when names is set.
 */
size_t submit_seq_outputs(const struct project_config *cfg, const struct db_sequence *s,
			  char **files, char **open_names);
/* Is s a name job_file.php accepts? */
bool submit_job_file_name_ok(const char *s);

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

#endif
