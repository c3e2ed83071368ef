/*
 * The request loop of the web programs (web, ops): one request read through
 * serve/serve.c -- FastCGI under mod_fcgid, else CGI -- into a web_req, given
 * to the program's handler, its reply written back. A process keeps
 * config.xml, the account settings and the database connection; a body
 * over WEB_MAX_BODY is refused (and drained, so the reply arrives); a
 * request that leaves a transaction open makes the next one start on a
 * fresh connection.
 */
#include "web.h"
#include "db.h"
#include "log.h"
#include "serve.h"

struct web_server {
	struct serve_project proj;
	struct account_settings acct;
	web_handler *fn;
	const char *offline;
};

static void serve_one(void *state, struct serve_req *io)
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
		fputs(s->offline, serve_out(io));
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
	s->fn(&c, &r, &o);
	web_reply_write(&o, serve_out(io));
	/* a transaction left open by a failure: the next request starts on a fresh connection */
	if (c.db && db_in_transaction(c.db))
		serve_project_db_failed(&s->proj);
	web_reply_release(&o);
	web_req_release(&r);
	sbuf_release(&why);
}

int web_serve_main(const struct web_program *p, int argc, char **argv)
{
	struct web_server s;
	struct serve_spec spec = { p->usage, serve_one, &s, &s.proj, NULL };

	memset(&s, 0, sizeof(s));
	s.proj.prog = p->prog;
	s.proj.params = account_params;
	s.proj.settings = &s.acct;
	s.proj.settings_size = sizeof(s.acct);
	s.fn = p->fn;
	s.offline = p->offline_reply;
	return serve_program(&spec, argc, argv);
}
