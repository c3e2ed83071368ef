/*
 * sweep: the parameter sweep's HTTP endpoints (doc/sweep-protocol.md) as a
 * wseq project's CGI program, cgi-bin/sweep: the project's <cgi_url>sweep is
 * the endpoints' base URL and the protocol's path follows it as PATH_INFO
 * (sweep_client asks http://HOST:PORT/NAME_cgi/sweep/task?...), so two
 * projects on one web server each answer at their own URL. The answers are
 * sweep_endpoints.c's over the project store (sweep/store/sweep_store_db.c:
 * a session is a batch "sweep:SESSIONID", a task a workunit, a ticket a
 * result); the session files are in the project's sweep/SESSIONID/, the
 * /complete bodies in its upload hierarchy. This file is what is the
 * project's: config.xml, the log (<log_dir>/sweep.log), opening the store.
 *
 * Under mod_fcgid the same binary is a FastCGI program (serve/serve.h): one
 * process answers request after request, keeping the configuration and the
 * store (opened again when config.xml changes, or at the next request when
 * the database could not be reached). Run by a web server as a plain CGI
 * program it answers its one request.
 */
#include "common.h"
#include "log.h"
#include "serve.h"
#include "sweep_endpoints.h"

static const char usage[] =
	"usage: sweep\n"
	"The parameter sweep's HTTP endpoints (/config, /ping, /worker, /task,\n"
	"/complete, /failed), run by the web server as a FastCGI program (many\n"
	"requests a process) or as a CGI program (one). It reads the project's\n"
	"config.xml (WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"See doc/sweep-protocol.md.\n";

/* What a FastCGI process keeps from one request to the next. */
struct server {
	struct serve_project proj;
	unsigned generation;            /* of proj's configuration, when the store was opened */
	struct sweep_files files;
	struct sweep_endpoints ep;
};

static void close_store(struct server *s)
{
	sweep_store_close(s->ep.store);
	s->ep.store = NULL;
	sweep_files_release(&s->files);
}

/* The project store, opened again when config.xml changed; NULL (logged) when unreachable. */
static void open_store(struct server *s)
{
	struct sbuf err = SBUF_INIT(1024);

	if (s->ep.store && s->generation == s->proj.generation)
		return;
	close_store(s);
	sweep_files_project(&s->files, &s->proj.cfg);
	s->ep.files = &s->files;
	s->ep.store = sweep_store_open_project(s->proj.cfg.path, &err);
	s->generation = s->proj.generation;
	if (!s->ep.store)
		log_warn("cannot open the sweep store: %s", sbuf_str(&err));
	sbuf_release(&err);
}

/* One request. */
static void serve(void *state, struct serve_req *io)
{
	struct server *s = state;

	if (serve_project_get(&s->proj) < 0) {
		sweep_endpoints_reply_text(io, 503, "server configuration unreadable\n");
		return;
	}
	open_store(s);
	sweep_endpoints_serve(&s->ep, io);
}

static void fini(void *state)
{
	close_store(state);
}

static struct server server = { .proj = { .prog = "sweep" } };
static const struct serve_spec spec = { usage, serve, &server, &server.proj, fini };

int main(int argc, char **argv)
{
	return serve_program(&spec, argc, argv);
}
