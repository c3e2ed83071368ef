/*
 * web: the volunteers' web program -- the account RPCs the BOINC client
 * and Manager call (get_project_config.php, create_account.php, ...) and
 * the web pages. A FastCGI server under mod_fcgid, else a CGI program
 * (serve/serve.h); a process keeps config.xml, the account settings and the
 * database connection. make_project's Apache configuration maps the
 * project's .php names and pages here; the script name says which. Logs to
 * <log_dir>/web.log (never a query string: it may hold a password hash).
 */
#include "web.h"
#include "serve.h"

static const char usage[] =
	"usage: web\n"
	"The volunteers' web pages and account RPCs (get_project_config.php,\n"
	"create_account.php, lookup_account.php, am_get_info.php, am_set_info.php,\n"
	"show_user.php, team_lookup.php), run by the web server as a FastCGI\n"
	"program (many requests a process, under mod_fcgid) or as a CGI program\n"
	"(one). It reads the project's config.xml (WSEQ_PROJECT_DIR, ./config.xml\n"
	"or ../config.xml). See doc/account.md.\n";

/* web_handle answers every request: an unknown page gets its 404 there */
static void handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *o)
{
	web_handle(c, r, o);
}

static const struct web_program program = {
	"web", usage, handle,
	"Status: 503\r\nContent-Type: text/xml\r\n\r\n<error>\n<error_num>-183</error_num>\n"
	"<error_msg>Project is temporarily offline</error_msg>\n</error>\n",
};

int main(int argc, char **argv)
{
	return web_serve_main(&program, argc, argv);
}
