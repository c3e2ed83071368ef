/*
 * BOINC's remote job submission RPCs (submit_rpc_handler.php, job_file.php,
 * get_output.php, get_output2.php), spoken to upstream's boinc_gahp and BOINC's own submit
 * clients: an XML request in the form field "request", a reply whose root is
 * the request's root, errors as <error><error_num>-1</error_num>
 * <error_msg>...</error_msg></error> inside it. See
 * gahp-and-remote-submit.md and doc/submit_rpc.md.
 */
#ifndef WSEQ_SUBMIT_H
#define WSEQ_SUBMIT_H

#include "common.h"
#include "config.h"
#include "sbuf.h"
#include "form.h"

struct db;

struct submit_ctx {
	const struct project_config *cfg;
	struct db *db;                  /* NULL: the database is unreachable */
	const char *remote_addr;
};

/* The largest request body accepted (files included). */
#define SUBMIT_MAX_BODY (1L << 30)

/*
 * A body longer than this is read past its first SUBMIT_HEAD_MAX bytes only
 * when submit_head_check() passes them: a stranger's request costs a
 * process no more memory than that.
 */
#define SUBMIT_HEAD_MAX (64L << 10)

/*
 * The first bytes of a large request body (head, parsed by
 * form_parse_head()): 0 when its field "request" names, before those bytes
 * end, the authenticator of an account with submit rights; else -1 with
 * the reason in why. total: the whole body's length, for the message.
 */
int submit_head_check(const struct submit_ctx *c, const struct form *head, long total,
		      struct sbuf *why);

/* submit_rpc_handler.php and job_file.php: the reply document in out. */
void submit_rpc(const struct submit_ctx *c, const struct form *f, struct sbuf *out);

/*
 * get_output.php and get_output2.php (cmd=workunit_file, result_file,
 * workunit_files, batch_files, file, result, workunit, batch): writes the CGI
 * headers and the file or a zip (or a 4xx/503 text error) to fp.
 */
void submit_get_output(const struct submit_ctx *c, const struct form *q, FILE *fp);

#endif
