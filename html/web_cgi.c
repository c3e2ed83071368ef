/*
 * web: the volunteers' web program -- the account RPCs the BOINC client
 * and Manager call (get_project_config.php, create_account.php, ...) and
 * the web pages. A FastCGI server under mod_fcgid, else a CGI program
 * (lib/serve.h); a process keeps config.xml, the account settings and the
 * database connection. make_project's Apache configuration maps the
 * project's .php names and pages here; the script name says which. Logs to
 * <log_dir>/web.log (never a query string: it may hold a password hash).
 */
#include "web.h"
#include "config.h"
#include "db.h"
#include "log.h"
#include "serve.h"

static const char usage[] =
	"usage: web\n"
	"The volunteers' web pages and account RPCs (get_project_config.php,\n"
	"create_account.php, lookup_account.php, am_get_info.php, am_set_info.php,\n"
	"show_user.php, team_lookup.php), run by the web server as a FastCGI\n"
	"program (many requests a process, under mod_fcgid) or as a CGI program\n"
	"(one). It reads the project's config.xml (WSEQ_PROJECT_DIR, ./config.xml\n"
	"or ../config.xml). See doc/account.md.\n";

struct web_server {
	struct serve_project proj;
	struct account_settings acct;
};

static void handle(void *state, struct serve_req *io)
{
	struct web_server *s = state;
	struct web_ctx c = { .cfg = &s->proj.cfg, .acct = &s->acct };
	struct web_req r;
	struct web_reply o;
	struct sbuf why = SBUF_INIT(1024);
	const char *method = serve_env(io, "REQUEST_METHOD");
	bool post = method && !strcmp(method, "POST");
	char *body = NULL;
	size_t len = 0;

	if (serve_project_get(&s->proj) < 0) {
		fputs("Status: 503\r\nContent-Type: text/xml\r\n\r\n<error>\n<error_num>-183"
		      "</error_num>\n<error_msg>Project is temporarily offline</error_msg>\n"
		      "</error>\n", serve_out(io));
		return;
	}
	c.db = serve_project_db(&s->proj);
	if (post) {
		body = serve_body(io, WEB_MAX_BODY, &len, &why);
		if (!body) {
			log_warn("[%s] request body refused: %s", serve_env(io, "REMOTE_ADDR"),
				 sbuf_str(&why));
			/* what is left of it, up to the web server's own limit, so the reply arrives */
			serve_drain(io, WEB_MAX_DRAIN);
		}
	}
	web_req_init(&r, serve_env_cb, io, body, len);
	if (post && !body) {
		r.bad = true;
		snprintf(r.bad_why, sizeof(r.bad_why), "request body: %s", sbuf_str(&why));
	}
	web_reply_init(&o);
	web_handle(&c, &r, &o);
	web_reply_write(&o, serve_out(io));
	/* a transaction left open by a failure: the next request starts on a fresh connection */
	if (c.db && db_in_transaction(c.db))
		serve_project_db_failed(&s->proj);
	web_reply_free(&o);
	web_req_free(&r);
	sbuf_free(&why);
}

int main(int argc, char **argv)
{
	struct web_server s;
	int rc = serve_args(argc, argv, usage);

	if (rc >= 0)
		return rc;
	memset(&s, 0, sizeof(s));
	s.proj.prog = "web";
	s.proj.params = account_params;
	s.proj.settings = &s.acct;
	s.proj.settings_size = sizeof(s.acct);
	log_init("web", NULL);
	serve_main(handle, &s);
	serve_project_free(&s.proj);
	log_close();
	return 0;
}
