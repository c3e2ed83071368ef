/*
 * The asynchronous BOINC_* commands but SUBMIT and FETCH_OUTPUT (which have
 * files of their own): the grammar check done in the main thread before the
 * "S", and the RPC a worker makes afterwards. A parse function answers
 * whether the line is well formed, nothing more; everything that needs the
 * server is the worker's, and its failures are result lines, never an E.
 */
#include "boinc_gahp.h"
#include "submit_client.h"
#include "xml_write.h"

/* PING, ABORT_JOBS and RETIRE_BATCH need nothing beyond argv */
static int parse_ping(int argc, char **argv, void **spec, struct sbuf *why)
{
	(void)spec;
	if (gahp_want_args(argc, 2, false, "BOINC_PING ID", why))
		return -1;
	return gahp_want_reqid(argv[1], why);
}

static void run_ping(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf req = SBUF_INIT(256);
	struct sbuf err = SBUF_INIT(64 * 1024);

	/* an empty root element is what upstream's PHP could not parse */
	sbuf_addstr(&req, "<ping> </ping>\n");
	if (rpc_simple(r->url, &req, "ping", &err) == 0)
		sbuf_addstr(res, " NULL");
	else
		gahp_error(res, r->auth, "ping failed: %s", sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
}

static int parse_abort(int argc, char **argv, void **spec, struct sbuf *why)
{
	(void)spec;
	if (gahp_want_args(argc, 3, true, "BOINC_ABORT_JOBS ID JOB...", why))
		return -1;
	return gahp_want_reqid(argv[1], why);
}

static void run_abort(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf req = SBUF_INIT(GAHP_MAX_LINE);
	struct sbuf err = SBUF_INIT(64 * 1024);
	int i;

	rpc_begin(&req, "abort_jobs", r->auth);
	for (i = 2; i < r->argc; i++)
		xml_elem_str(&req, 0, "job_name", r->argv[i]);
	rpc_end(&req, "abort_jobs");
	if (rpc_simple(r->url, &req, "abort_jobs", &err) == 0)
		sbuf_addstr(res, " NULL");
	else
		gahp_error(res, r->auth, "error aborting jobs: %s", sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
}

static int parse_retire(int argc, char **argv, void **spec, struct sbuf *why)
{
	(void)spec;
	if (gahp_want_args(argc, 3, false, "BOINC_RETIRE_BATCH ID BATCH", why))
		return -1;
	return gahp_want_reqid(argv[1], why);
}

static void run_retire(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	struct sbuf err = SBUF_INIT(64 * 1024);

	rpc_begin(&req, "retire_batch", r->auth);
	xml_elem_str(&req, 0, "batch_name", r->argv[2]);
	rpc_end(&req, "retire_batch");
	if (rpc_simple(r->url, &req, "retire_batch", &err) == 0)
		sbuf_addstr(res, " NULL");
	else
		gahp_error(res, r->auth, "error retiring batch: %s", sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
}

static int parse_lease(int argc, char **argv, void **spec, struct sbuf *why)
{
	double t;

	(void)spec;
	if (gahp_want_args(argc, 4, false, "BOINC_SET_LEASE ID BATCH EPOCH_SECONDS", why) ||
	    gahp_want_reqid(argv[1], why))
		return -1;
	return gahp_want_number("EPOCH_SECONDS", argv[3], GAHP_TIME_MAX, false, &t, why);
}

static void run_lease(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	struct sbuf err = SBUF_INIT(64 * 1024);
	double t = 0;
	char num[64];

	gahp_want_number("EPOCH_SECONDS", r->argv[3], GAHP_TIME_MAX, false, &t, &err);
	sbuf_reset(&err);
	snprintf(num, sizeof(num), "%f", t);
	rpc_begin(&req, "set_expire_time", r->auth);
	xml_elem_str(&req, 0, "batch_name", r->argv[2]);
	xml_elem_str(&req, 0, "expire_time", num);
	rpc_end(&req, "set_expire_time");
	if (rpc_simple(r->url, &req, "set_expire_time", &err) == 0)
		sbuf_addstr(res, " NULL");
	else
		gahp_error(res, r->auth, "error setting lease: %s", sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
}

/* BOINC_QUERY_BATCHES id MIN_MOD_TIME N BATCH... */
static int parse_query(int argc, char **argv, void **spec, struct sbuf *why)
{
	double t;
	long n;

	(void)spec;
	if (gahp_want_args(argc, 5, true, "BOINC_QUERY_BATCHES ID MIN_MOD_TIME NBATCHES BATCH...",
			   why) ||
	    gahp_want_reqid(argv[1], why) ||
	    gahp_want_number("MIN_MOD_TIME", argv[2], GAHP_TIME_MAX, false, &t, why) ||
	    gahp_want_count("NBATCHES", argv[3], &n, why))
		return -1;
	if (n != argc - 4) {
		sbuf_addf(why, "NBATCHES is %ld, but the line has %d batch name(s)", n, argc - 4);
		return -1;
	}
	return 0;
}

int gahp_query_reply(xmlNode *root, long nbatches, struct sbuf *out, struct sbuf *err)
{
	xmlNode *c;
	long seen = 0, left = 0;

	for (c = root->children; c; c = c->next) {
		if (xml_is(c, "batch_size")) {
			char *t = xml_text(c);
			long n = 0;
			int bad = left != 0 || parse_long(t, &n) < 0 || n < 0;

			free(t);
			left = n;
			if (bad) {
				sbuf_addstr(err, "bad <batch_size> in the reply");
				return -1;
			}
			seen++;
			sbuf_addf(out, " %ld", left);
		} else if (xml_is(c, "job")) {
			char *name = xml_child_text(c, "job_name");
			char *status = xml_child_text(c, "status");
			int bad = !name || !*name || !status || !*status || left <= 0;

			if (!bad) {
				gahp_token(out, name);
				gahp_token(out, status);
				left--;
			}
			free(name);
			free(status);
			if (bad) {
				sbuf_addstr(err, "a <job> of the reply does not fit its <batch_size>");
				return -1;
			}
		}
	}
	if (left != 0 || seen != nbatches) {
		sbuf_addf(err, "the reply does not list the %ld batches asked for", nbatches);
		return -1;
	}
	return 0;
}

static void run_query(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf req = SBUF_INIT(GAHP_MAX_LINE);
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct sbuf out = SBUF_INIT(GAHP_MAX_LINE);
	xmlDoc *doc;
	xmlNode *root;
	double mod = 0, now;
	char *st;
	char num[64];
	int i;

	gahp_want_number("MIN_MOD_TIME", r->argv[2], GAHP_TIME_MAX, false, &mod, &err);
	sbuf_reset(&err);
	snprintf(num, sizeof(num), "%f", mod);
	rpc_begin(&req, "query_batch2", r->auth);
	xml_elem_str(&req, 0, "min_mod_time", num);
	for (i = 4; i < r->argc; i++)
		xml_elem_str(&req, 0, "batch_name", r->argv[i]);
	rpc_end(&req, "query_batch2");
	if (rpc_post(r->url, "submit_rpc_handler.php", &req, NULL, 0, "query_batch2", &doc, &err) < 0) {
		gahp_error(res, r->auth, "error querying batch: %s", sbuf_str(&err));
		goto out;
	}
	root = xmlDocGetRootElement(doc);
	st = xml_child_text(root, "server_time");
	if (!st || parse_double(st, &now) < 0) {
		gahp_error(res, r->auth, "error querying batch: no <server_time> in the reply");
	} else {
		sbuf_addf(&out, " NULL %f", now);
		if (gahp_query_reply(root, r->argc - 4, &out, &err) < 0)
			gahp_error(res, r->auth, "error querying batch: %s", sbuf_str(&err));
		else
			sbuf_add(res, out.buf, out.len);
	}
	free(st);
	xmlFreeDoc(doc);
out:
	sbuf_release(&req);
	sbuf_release(&err);
	sbuf_release(&out);
}

static const struct gahp_cmd cmds[] = {
	{ "BOINC_PING", parse_ping, run_ping, NULL },
	{ "BOINC_SUBMIT", gahp_submit_parse, gahp_submit_run, gahp_submit_free },
	{ "BOINC_QUERY_BATCHES", parse_query, run_query, NULL },
	{ "BOINC_FETCH_OUTPUT", gahp_fetch_parse, gahp_fetch_run, gahp_fetch_free },
	{ "BOINC_ABORT_JOBS", parse_abort, run_abort, NULL },
	{ "BOINC_RETIRE_BATCH", parse_retire, run_retire, NULL },
	{ "BOINC_SET_LEASE", parse_lease, run_lease, NULL },
};

const struct gahp_cmd *gahp_find_cmd(const char *word)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (strcasecmp(cmds[i].name, word) == 0)
			return &cmds[i];
	return NULL;
}
