/*
 * submit: the front end of BOINC's remote job submission. The web server
 * maps the project's submit_rpc_handler.php, job_file.php, get_output.php and
 * get_output2.php here (make_project's Apache configuration); the script
 * name says which.
 * A FastCGI server under mod_fcgid, else a CGI program (serve/serve.h); a
 * process keeps config.xml and the database connection. It logs to
 * <log_dir>/submit.log.
 *
 * A request body is read whole (files included, up to SUBMIT_MAX_BODY)
 * only when it is small or its first SUBMIT_HEAD_MAX bytes name an account
 * with submit rights (submit_head_check()): a stranger's body costs a
 * process no more than that. Every reply carries the headers of untrusted
 * content (serve.h): what it quotes of a request is never a page.
 */
#include "submit.h"
#include "db.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "serve.h"
#include "xml_write.h"

static const char usage[] =
	"usage: submit\n"
	"BOINC's remote job submission RPCs (submit_rpc_handler.php, job_file.php,\n"
	"get_output.php, get_output2.php), run by the web server as a FastCGI\n"
	"program (many requests a process, under mod_fcgid) or as a CGI program\n"
	"(one): the request in the\n"
	"environment and the body, the reply on the way back. It reads the\n"
	"project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"A body over 64 KiB is read past its first 64 KiB only when they name, in\n"
	"the field 'request', the authenticator of an account with submit rights.\n"
	"See doc/submit_rpc.md.\n";

struct head_arg {
	const struct submit_ctx *c;
	const char *content_type;
};

static int check_head(void *arg, const char *head, size_t len, long total, struct sbuf *why)
{
	const struct head_arg *a = arg;
	struct form f;
	int rc = form_parse_head(a->content_type, head, len, &f, why);

	if (!rc)
		rc = submit_head_check(a->c, &f, total, why);
	form_release(&f);
	return rc;
}

/* The body, through the gate; NULL with the reason in err (what is left of it drained). */
static char *read_body(const struct submit_ctx *c, struct serve_req *r, size_t *len,
		       struct sbuf *err)
{
	struct head_arg a = { c, serve_env(r, "CONTENT_TYPE") };
	struct form_gate gate = { SUBMIT_HEAD_MAX, check_head, &a };
	char *body = serve_body_gated(r, SUBMIT_MAX_BODY, &gate, len, err);

	/* unkept, so the reply arrives (mod_fcgid sends it all before it reads one) */
	if (!body)
		serve_drain(r, SUBMIT_MAX_BODY);
	return body;
}

static void handle(void *state, struct serve_req *r)
{
	struct serve_project *proj = state;
	struct submit_ctx c = { .cfg = &proj->cfg, .remote_addr = serve_env(r, "REMOTE_ADDR") };
	struct sbuf reply = SBUF_INIT(1L << 30), err = SBUF_INIT(1024);
	const char *script = serve_env(r, "SCRIPT_NAME");
	FILE *out = serve_out(r);
	struct form f = { 0 };
	char *body = NULL;
	size_t len = 0;

	if (serve_project_get(proj) < 0) {
		fputs("Status: 503\r\nContent-Type: text/plain\r\n\r\nserver configuration "
		      "unreadable\n", out);
		return;
	}
	c.db = serve_project_db(proj);
	if (script && strstr(script, "get_output")) {
		if (form_parse_query(serve_env(r, "QUERY_STRING"), &f, &err) < 0)
			fputs("Status: 400\r\nContent-Type: text/plain\r\n\r\nERROR: bad query\n",
			      out);
		else
			submit_get_output(&c, &f, out);
	} else {
		body = read_body(&c, r, &len, &err);
		if (!body || form_parse(serve_env(r, "CONTENT_TYPE"), body, len, &f, &err) < 0) {
			struct sbuf q = SBUF_INIT(4096);

			field_quote(&q, sbuf_str(&err), 1000);
			log_warn("[%s] bad request: %s", c.remote_addr ? c.remote_addr : "?",
				 sbuf_str(&q));
			sbuf_release(&q);
			sbuf_addstr(&reply, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n"
					    "<error>\n    <error_num>-1</error_num>\n    <error_msg>");
			xml_add_text(&reply, sbuf_str(&err));
			sbuf_addstr(&reply, "</error_msg>\n</error>\n");
		} else {
			submit_rpc(&c, &f, &reply);
		}
		fputs("Content-Type: text/xml\r\n" SERVE_UNTRUSTED_HEADERS "\r\n", out);
		fwrite(reply.buf, 1, reply.len, out);
	}
	/* a transaction left open by a failure: the next request starts on a fresh connection */
	if (c.db && db_in_transaction(c.db))
		serve_project_db_failed(proj);
	form_release(&f);
	free(body);
	sbuf_release(&reply);
	sbuf_release(&err);
}

static struct serve_project project = { .prog = "submit" };
static const struct serve_spec spec = { usage, handle, &project, &project, NULL };

int main(int argc, char **argv)
{
	return serve_program(&spec, argc, argv);
}
