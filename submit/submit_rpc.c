/*
 * The remote job submission RPCs: what every request shares -- the reply's
 * error, authentication, submit rights, the batch a request names -- and
 * the dispatch by the request's root element (see submit.h). The requests
 * themselves are in submit_batch.c (batches and jobs made), submit_files.c
 * (job_file.php), submit_jobs.c (status, results, abort), submit_query.c
 * (query_batch, query_job, abort_batch, estimate_batch) and get_output.php /
 * get_output2.php in submit_output.c. Every handler writes the inside of the reply's root;
 * a failure replaces it with BOINC's error element.
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "field.h"
#include "log.h"
#include "xml_write.h"

#include <stdarg.h>

int submit_fail(struct rpc *r, const char *fmt, ...)
{
	va_list ap;

	if (r->err.len)
		return -1;      /* the first reason stands */
	va_start(ap, fmt);
	sbuf_vaddf(&r->err, fmt, ap);
	va_end(ap);
	return -1;
}

int submit_db_fail(struct rpc *r)
{
	/* a kept connection fails its first statement after the server stopped: say so */
	if (!r->c->db || db_ping(r->c->db) != DB_OK)
		return submit_fail(r, "the project database is unavailable; try again later");
	return submit_fail(r, "database error");
}

int submit_text(struct rpc *r, const char *field, const char *text, size_t max, char **out)
{
	struct sbuf why = SBUF_INIT(1024);
	int rc = 0;

	*out = NULL;
	if (text && field_str(field, text, max, 0, out, &why) == FIELD_BAD)
		rc = submit_fail(r, "%s", sbuf_str(&why));
	sbuf_release(&why);
	return rc;
}

int submit_str(struct rpc *r, const xmlNode *n, const char *name, size_t max, char **out)
{
	char *t = xml_child_text(n, name);
	int rc = submit_text(r, name, t, max, out);

	free(t);
	return rc;
}

int submit_num(struct rpc *r, const xmlNode *n, const char *name, double min, double max,
	       double *v)
{
	struct sbuf why = SBUF_INIT(1024);
	char *t = xml_child_text(n, name);
	int rc = 0;

	if (t && *t && field_double(name, t, min, max, 0, v, &why) == FIELD_BAD)
		rc = submit_fail(r, "%s", sbuf_str(&why));
	free(t);
	sbuf_release(&why);
	return rc;
}

int submit_int(struct rpc *r, const xmlNode *n, const char *name, int64_t min, int64_t max,
	       int64_t *v)
{
	struct sbuf why = SBUF_INIT(1024);
	char *t = xml_child_text(n, name);
	int rc = 0;

	if (t && *t && field_int64(name, t, min, max, 0, v, &why) != FIELD_OK)
		rc = submit_fail(r, "%s", sbuf_str(&why));
	free(t);
	sbuf_release(&why);
	return rc;
}

char *submit_quoted(const char *s)
{
	struct sbuf q = SBUF_INIT(512);

	char *d;

	field_quote(&q, s, 100);
	d = sbuf_detach(&q, NULL);
	return d ? d : xstrdup("");
}

/* ---- authentication -------------------------------------------------------------- */

static int need_db(struct rpc *r)
{
	if (!r->c->db)
		return submit_fail(r, "the project database is unavailable; try again later");
	return 0;
}

/* The database answers now (a connection kept from an earlier request may be to a stopped one). */
static int need_db_now(struct rpc *r)
{
	if (need_db(r))
		return -1;
	if (db_ping(r->c->db) != DB_OK)
		return submit_fail(r, "the project database is unavailable; try again later");
	return 0;
}

int submit_authenticate(struct rpc *r)
{
	char *auth = xml_child_text(r->root, "authenticator");
	int rc;

	if (need_db(r))
		rc = -1;
	else if (!auth || !*auth)
		rc = submit_fail(r, "no authenticator");
	else if ((rc = db_user_lookup_auth(r->c->db, auth, &r->user)) == DB_NOT_FOUND)
		rc = submit_fail(r, "bad authenticator");
	else if (rc != DB_OK)
		rc = submit_db_fail(r);
	free(auth);
	return rc ? -1 : 0;
}

/*
 * The text of the first <authenticator> element among a request's first
 * bytes (the XML perhaps cut short), blanks trimmed; NULL when it is not
 * there whole or is not plain text.
 */
static char *head_authenticator(const char *xml, size_t len)
{
	static const char open_tag[] = "<authenticator>", close_tag[] = "</authenticator>";
	const char *s = memmem(xml, len, open_tag, sizeof(open_tag) - 1), *e;

	if (!s)
		return NULL;
	s += sizeof(open_tag) - 1;
	e = memmem(s, len - (size_t)(s - xml), close_tag, sizeof(close_tag) - 1);
	if (!e)
		return NULL;
	while (s < e && strchr(" \t\r\n", *s))
		s++;
	while (e > s && strchr(" \t\r\n", e[-1]))
		e--;
	if (e == s || e - s > 256 || memchr(s, 0, (size_t)(e - s)) ||
	    memchr(s, '&', (size_t)(e - s)) || memchr(s, '<', (size_t)(e - s)))
		return NULL;
	return xstrndup(s, (size_t)(e - s));
}

int submit_head_check(const struct submit_ctx *c, const struct form *head, long total,
		      struct sbuf *why)
{
	const struct form_part *req = form_get(head, "request");
	char *auth = req ? head_authenticator(req->data, req->len) : NULL;
	struct db_user user = { 0 };
	struct db_user_submit us = { 0 };
	int rc = -1;

	sbuf_addf(why, "a request of %ld bytes (over %ld) is read only for an account with "
		       "submit rights whose <authenticator> is in its first %ld bytes: ", total,
		  (long)SUBMIT_HEAD_MAX, (long)SUBMIT_HEAD_MAX);
	if (!req)
		sbuf_addstr(why, "no form field 'request' there");
	else if (!auth)
		sbuf_addstr(why, "no authenticator there");
	else if (!c->db)
		sbuf_addstr(why, "the project database is unavailable; try again later");
	else if ((rc = db_user_lookup_auth(c->db, auth, &user)) == DB_NOT_FOUND)
		sbuf_addstr(why, "bad authenticator");
	else if (rc != DB_OK)
		sbuf_addstr(why, "database error");
	else if ((us.user_id = user.id, rc = db_user_submit_lookup(c->db, &us)) == DB_NOT_FOUND)
		sbuf_addstr(why, "no submit access");
	else if (rc != DB_OK)
		sbuf_addstr(why, "database error");
	if (rc == DB_OK)
		sbuf_reset(why);
	db_user_release(&user);
	free(auth);
	return rc == DB_OK ? 0 : -1;
}

int submit_may_submit(struct rpc *r, int64_t appid)
{
	struct db_user_submit us = { .user_id = r->user.id };
	struct db_user_submit_app usa = { .user_id = r->user.id, .app_id = appid };
	int rc = db_user_submit_lookup(r->c->db, &us);

	if (rc == DB_NOT_FOUND)
		return submit_fail(r, appid ? "no submit access" : "no file access");
	if (rc != DB_OK)
		return submit_db_fail(r);
	if (!appid || us.submit_all)
		return 0;
	rc = db_user_submit_app_lookup(r->c->db, &usa);
	if (rc == DB_NOT_FOUND)
		return submit_fail(r, "no submit access");
	return rc == DB_OK ? 0 : submit_db_fail(r);
}

int submit_may_bring_executable(struct rpc *r, const struct db_app *app)
{
	struct db_user_submit us = { .user_id = r->user.id };
	int rc;

	if (!app->any_executable)
		return 0;
	rc = db_user_submit_lookup(r->c->db, &us);
	if (rc != DB_OK && rc != DB_NOT_FOUND)
		return submit_db_fail(r);
	if (rc == DB_OK && us.any_executable)
		return 0;
	log_warn("user %lld may not submit jobs with their own executable (app %s)",
		 (long long)r->user.id, app->name);
	return submit_fail(r, "app %s runs the submitter's own executable, and your account does "
			   "not have that right (the project's admin grants it: account grant "
			   "--any_executable)", app->name);
}

int submit_app_by_name(struct rpc *r, const char *name, struct db_app *app)
{
	int rc;

	if (!name || !*name)
		return submit_fail(r, "no app name");
	rc = db_app_lookup_name(r->c->db, name, app);
	if (rc == DB_NOT_FOUND)
		return submit_fail(r, "no app named %s", name);
	return rc == DB_OK ? 0 : submit_db_fail(r);
}

int submit_owned_batch(struct rpc *r, const xmlNode *node, struct db_batch *b)
{
	int64_t id = 0;
	char *name = NULL;
	int rc = submit_int(r, node, "batch_id", 0, INT64_MAX, &id);

	if (!rc)
		rc = submit_str(r, node, "batch_name", FIELD_COLUMN_CHARS, &name);
	if (!rc && id <= 0 && (!name || !*name))
		rc = submit_fail(r, "batch not specified");
	if (rc) {
		free(name);
		return -1;
	}
	rc = id > 0 ? db_batch_lookup_id(r->c->db, id, b) : db_batch_lookup_name(r->c->db, name, b);
	if (rc == DB_NOT_FOUND)
		rc = id > 0 ? submit_fail(r, "no such batch") : submit_fail(r, "no batch named %s", name);
	else if (rc != DB_OK)
		rc = submit_db_fail(r);
	else if (b->user_id != r->user.id)
		rc = submit_fail(r, "not owner of batch");
	free(name);
	return rc ? -1 : 0;
}

/* ---- ping and dispatch ------------------------------------------------------------ */

static int do_ping(struct rpc *r)
{
	if (need_db_now(r))
		return -1;
	sbuf_addstr(r->body, "<success>1</success>\n");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct rpc *);
} ops[] = {
	{ "ping", do_ping },
	{ "get_templates", submit_do_get_templates },
	{ "create_batch", submit_do_create_batch },
	{ "query_files", submit_do_query_files },
	{ "upload_files", submit_do_upload_files },
	{ "submit_batch", submit_do_submit_batch },
	{ "query_batch2", submit_do_query_batch2 },
	{ "query_batches", submit_do_query_batches },
	{ "query_completed_job", submit_do_query_completed_job },
	{ "abort_jobs", submit_do_abort_jobs },
	{ "retire_batch", submit_do_retire_batch },
	{ "set_expire_time", submit_do_set_expire_time },
	{ "query_batch", submit_do_query_batch },
	{ "query_job", submit_do_query_job },
	{ "abort_batch", submit_do_abort_batch },
	{ "estimate_batch", submit_do_estimate_batch },
};

static void error_element(struct sbuf *out, const char *msg)
{
	sbuf_addstr(out, "<error>\n    <error_num>-1</error_num>\n    <error_msg>");
	xml_add_text(out, msg);
	sbuf_addstr(out, "</error_msg>\n</error>\n");
}

void submit_rpc(const struct submit_ctx *c, const struct form *f, struct sbuf *out)
{
	struct sbuf perr = SBUF_INIT(1024), body = SBUF_INIT(1L << 30);
	struct rpc r = { .c = c, .form = f, .body = &body };
	const struct form_part *req = form_get(f, "request");
	xmlDoc *doc = NULL;
	size_t i;
	int rc = -1;

	sbuf_init(&r.err, 4096);
	sbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n");
	if (!req) {
		log_warn("[%s] request without the form field 'request'",
			 c->remote_addr ? c->remote_addr : "?");
		error_element(out, "no request");
		goto out;
	}
	doc = xml_read_memory(req->data, req->len, "request", &perr);
	r.root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!r.root) {
		log_warn("[%s] unparsable request: %s", c->remote_addr ? c->remote_addr : "?",
			 sbuf_str(&perr));
		error_element(out, "cannot parse the request");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (xml_is(r.root, ops[i].name))
			break;
	sbuf_addf(out, "<%s>\n", (const char *)r.root->name);
	if (i == ARRAY_SIZE(ops)) {
		if (xmlStrlen(r.root->name) > 64 || strspn((const char *)r.root->name,
		    "abcdefghijklmnopqrstuvwxyz_0123456789") != (size_t)xmlStrlen(r.root->name)) {
			sbuf_reset(out);
			sbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n");
			error_element(out, "bad command");
			goto out;
		}
		submit_fail(&r, "bad command");
	} else {
		rc = ops[i].fn(&r);
	}
	if (rc) {
		struct sbuf q = SBUF_INIT(4 * 4096 + 8);

		if (!r.err.len)
			submit_fail(&r, "internal error");
		/* the message quotes what the submitter sent: no control bytes in the log */
		field_quote(&q, sbuf_str(&r.err), 4096);
		log_warn("[%s] %s: %s", c->remote_addr ? c->remote_addr : "?",
			 (const char *)r.root->name, sbuf_str(&q));
		sbuf_release(&q);
		error_element(out, sbuf_str(&r.err));
	} else {
		sbuf_add(out, body.buf, body.len);
	}
	sbuf_addf(out, "</%s>\n", (const char *)r.root->name);
out:
	if (doc)
		xmlFreeDoc(doc);
	db_user_release(&r.user);
	sbuf_release(&r.err);
	sbuf_release(&perr);
	sbuf_release(&body);
}
