/*
 * web: the volunteers' web program -- the account RPCs the BOINC client
 * and Manager call (get_project_config.php, create_account.php, ...) and
 * the web pages -- run by the web server as a CGI program. make_project's
 * Apache configuration maps the project's .php names and pages here; the
 * script name says which. Logs to <log_dir>/web.log (never a query
 * string: it may hold a password hash).
 */
#include "web.h"
#include "config.h"
#include "db.h"
#include "log.h"

static const char usage[] =
	"usage: web\n"
	"The volunteers' web pages and account RPCs (get_project_config.php,\n"
	"create_account.php, lookup_account.php, am_get_info.php, am_set_info.php,\n"
	"show_user.php, team_lookup.php), run by the web server as a CGI program:\n"
	"the request in the environment and on standard input, the reply on\n"
	"standard output. It reads the project's config.xml (WSEQ_PROJECT_DIR,\n"
	"./config.xml or ../config.xml). See doc/account.md.\n";

/*
 * Read and drop what is left of a refused body (up to WEB_MAX_DRAIN bytes,
 * the web server's own limit for this program), so the web server can
 * deliver the error reply instead of a reset connection.
 */
static void drain_stdin(void)
{
	char buf[65536];
	long total = 0;
	size_t n;

	while (total < WEB_MAX_DRAIN && (n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		total += (long)n;
}

static const char *env(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

int main(int argc, char **argv)
{
	struct project_config cfg;
	struct account_settings acct;
	struct web_ctx c = { .cfg = &cfg, .acct = &acct };
	struct web_req r;
	struct web_reply o;
	struct db_params dp;
	struct sbuf why = SBUF_INIT(1024);
	char *body = NULL, *logpath;
	size_t len = 0;
	const char *method = getenv("REQUEST_METHOD");

	if (argc > 1) {
		bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");

		fputs(usage, help ? stdout : stderr);
		return help ? 0 : 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	memset(&acct, 0, sizeof(acct));
	log_init("web", NULL);
	if (config_load(&cfg, NULL, account_params, &acct) < 0) {
		fputs("Status: 503\r\nContent-Type: text/xml\r\n\r\n<error>\n<error_num>-183"
		      "</error_num>\n<error_msg>Project is temporarily offline</error_msg>\n"
		      "</error>\n", stdout);
		return 0;
	}
	logpath = xasprintf("%s/web.log", cfg.log_dir);
	log_init("web", logpath);
	free(logpath);
	db_params_from_config(&dp, &cfg);
	if (db_open(&c.db, &dp, 0) != DB_OK)
		c.db = NULL;
	if (method && !strcmp(method, "POST")) {
		body = form_read_body(WEB_MAX_BODY, &len, &why);
		if (!body) {
			log_warn("[%s] request body refused: %s", getenv("REMOTE_ADDR"), sbuf_str(&why));
			drain_stdin();
		}
	}
	web_req_init(&r, env, NULL, body, len);
	if (method && !strcmp(method, "POST") && !body) {
		r.bad = true;
		snprintf(r.bad_why, sizeof(r.bad_why), "request body: %s", sbuf_str(&why));
	}
	web_reply_init(&o);
	web_handle(&c, &r, &o);
	web_reply_write(&o, stdout);
	web_reply_free(&o);
	web_req_free(&r);
	if (c.db)
		db_close(c.db);
	sbuf_free(&why);
	param_free(account_params, &acct);
	config_free(&cfg);
	log_close();
	return 0;
}
