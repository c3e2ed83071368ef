/*
 * submit: the CGI front end of BOINC's remote job submission. The web server
 * maps the project's submit_rpc_handler.php, job_file.php and get_output.php
 * here (make_project's Apache configuration); the script name says which.
 * It logs to <log_dir>/submit.log.
 */
#include "submit.h"
#include "db.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"

static const char usage[] =
	"usage: submit\n"
	"BOINC's remote job submission RPCs (submit_rpc_handler.php, job_file.php,\n"
	"get_output.php), run by the web server as a CGI program: the request on\n"
	"standard input and in the environment, the reply on standard output. It\n"
	"reads the project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or\n"
	"../config.xml). See doc/submit_rpc.md.\n";

static void emit_xml(const struct sbuf *reply)
{
	fputs("Content-Type: text/xml\r\n\r\n", stdout);
	fwrite(reply->buf, 1, reply->len, stdout);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct project_config cfg;
	struct submit_ctx c = { .cfg = &cfg, .remote_addr = getenv("REMOTE_ADDR") };
	struct sbuf reply = SBUF_INIT(1L << 30), err = SBUF_INIT(1024);
	const char *script = getenv("SCRIPT_NAME");
	struct db_params dp;
	struct form f = { 0 };
	char *body = NULL, *logpath;
	size_t len = 0;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");

		fputs(usage, help ? stdout : stderr);
		return help ? 0 : 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	log_init("submit", NULL);
	if (config_load(&cfg, NULL, NULL, NULL) < 0) {
		fputs("Status: 503\r\nContent-Type: text/plain\r\n\r\nserver configuration "
		      "unreadable\n", stdout);
		return 0;
	}
	logpath = xasprintf("%s/submit.log", cfg.log_dir);
	log_init("submit", logpath);
	free(logpath);
	db_params_from_config(&dp, &cfg);
	if (db_open(&c.db, &dp, 0) != DB_OK)
		c.db = NULL;
	if (script && strstr(script, "get_output")) {
		if (form_parse_query(getenv("QUERY_STRING"), &f, &err) < 0)
			fputs("Status: 400\r\nContent-Type: text/plain\r\n\r\nERROR: bad query\n",
			      stdout);
		else
			submit_get_output(&c, &f, stdout);
	} else {
		body = form_read_body(SUBMIT_MAX_BODY, &len, &err);
		if (!body || form_parse(getenv("CONTENT_TYPE"), body, len, &f, &err) < 0) {
			struct sbuf q = SBUF_INIT(4096);

			field_quote(&q, sbuf_str(&err), 1000);
			log_warn("[%s] bad request: %s", c.remote_addr ? c.remote_addr : "?",
				 sbuf_str(&q));
			sbuf_free(&q);
			sbuf_addstr(&reply, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n"
					    "<error>\n    <error_num>-1</error_num>\n    <error_msg>");
			sbuf_add_xml_escaped(&reply, sbuf_str(&err));
			sbuf_addstr(&reply, "</error_msg>\n</error>\n");
		} else {
			submit_rpc(&c, &f, &reply);
		}
		emit_xml(&reply);
	}
	form_free(&f);
	free(body);
	if (c.db)
		db_close(c.db);
	sbuf_free(&reply);
	sbuf_free(&err);
	config_free(&cfg);
	log_close();
	return 0;
}
