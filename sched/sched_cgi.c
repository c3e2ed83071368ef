/*
 * cgi: the scheduler's front end (BOINC's name for it, so the master page's
 * scheduler URL is .../NAME_cgi/cgi). Under mod_fcgid a FastCGI server that
 * answers request after request, run by a web server without it a CGI
 * program that answers one (serve/serve.h). A process keeps config.xml and
 * its settings, the keys, the database connection (with its prepared
 * statements) and the apps and app versions, each read again when it
 * changes; a request's own state (its host, its user, its reply) lives in
 * sched_handle() and is gone when it returns.
 */
#include "scheduler.h"
#include "sched_policy.h"
#include "fileutil.h"
#include "log.h"
#include "serve.h"
#include "upload_cert.h"

static const char usage[] =
	"usage: cgi\n"
	"The BOINC scheduler, run by the web server as a FastCGI program (many\n"
	"requests a process, under mod_fcgid) or as a CGI program (one): the\n"
	"request's body is a <scheduler_request>, the reply a <scheduler_reply>.\n"
	"It reads the project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or\n"
	"../config.xml) and keys/. See doc/scheduler.md.\n";

/* What a process keeps from one request to the next. */
struct sched_server {
	struct serve_project proj;
	struct sched_settings set;
	unsigned keys_generation;       /* of proj when the keys were read */
	struct stat code_sign_st;
	char *code_sign_key;            /* keys/code_sign_public */
	struct sched_apps apps;
	struct sched_pool *pool;        /* results claimed ahead (FastCGI) */
};

/*
 * The keys: read again when config.xml was, or when their files change
 * (the upload key by upload_cert_key, as every program making results).
 */
static void keys_get(struct sched_server *s)
{
	const struct project_config *cfg = &s->proj.cfg;
	char *path = xasprintf("%s/code_sign_public", cfg->key_dir);
	bool again = s->keys_generation != s->proj.generation;

	if (file_changed(path, &s->code_sign_st) || again) {
		struct sbuf b = SBUF_INIT(16384);

		free(s->code_sign_key);
		s->code_sign_key = read_file(path, 16384, &b) == 0 ? sbuf_detach(&b, NULL) : NULL;
		sbuf_release(&b);
	}
	free(path);
	s->keys_generation = s->proj.generation;
}

/* The body: CONTENT_LENGTH bytes when given, else to EOF; at most max. */
static int read_body(struct serve_req *r, long max, struct sbuf *body, bool *too_large)
{
	const char *cl = serve_env(r, "CONTENT_LENGTH");
	long want = -1;
	char buf[65536];

	*too_large = false;
	if (cl && *cl && parse_long(cl, &want) < 0)
		return log_error("bad CONTENT_LENGTH '%s'", cl);
	if (want > max) {
		/* Read it all the same: a reply sent over an unread body may never arrive. */
		*too_large = true;
		serve_drain(r, want);
		return 0;
	}
	while (want < 0 || (long)body->len < want) {
		size_t n = sizeof(buf);
		long got;

		if (want >= 0 && (size_t)(want - (long)body->len) < n)
			n = (size_t)(want - (long)body->len);
		got = serve_read(r, buf, n);
		if (got <= 0)
			break;  /* a short body is the parser's problem: it will not parse */
		if (sbuf_add(body, buf, (size_t)got) < 0) {
			*too_large = true;
			return 0;
		}
	}
	return 0;
}

static void handle(void *state, struct serve_req *r)
{
	struct sched_server *s = state;
	struct sched_ctx ctx = { 0 };
	struct sbuf reply = SBUF_INIT(128 << 20), body;
	FILE *out = serve_out(r);
	bool too_large;

	if (serve_project_get(&s->proj) < 0) {
		/* No project to speak for: the client backs off on an unreadable reply. */
		fputs("Content-Type: text/plain\r\n\r\nscheduler: configuration error\n", out);
		return;
	}
	keys_get(s);
	ctx.cfg = &s->proj.cfg;
	ctx.set = &s->set;
	ctx.code_sign_key = s->code_sign_key;
	/* NULL (logged): no work is sent until it can be read */
	ctx.upload_key = upload_cert_key(s->proj.cfg.key_dir);
	ctx.remote_addr = serve_env(r, "REMOTE_ADDR");
	ctx.apps = &s->apps;
	/* claiming ahead needs a process that serves the next request: not a CGI program */
	if (!s->pool && serve_is_fastcgi(r) && s->set.claim_ahead > 0)
		s->pool = sched_pool_new();
	ctx.pool = s->set.claim_ahead > 0 ? s->pool : NULL;
	sbuf_init(&body, (size_t)s->set.max_request_bytes);
	if (read_body(r, s->set.max_request_bytes, &body, &too_large) < 0 || too_large) {
		log_warn("[%s]: request larger than %ld bytes refused",
			 ctx.remote_addr ? ctx.remote_addr : "?", s->set.max_request_bytes);
		sched_reply_refused(&ctx, "The scheduler request is too large.", &reply);
	} else {
		ctx.db = serve_project_db(&s->proj);
		/* an RPC is one transaction, begun by its first statement (no START TRANSACTION) */
		if (ctx.db)
			db_set_implicit_transactions(ctx.db);
		if (sched_handle(&ctx, body.buf ? body.buf : "", body.len, &reply) != DB_OK)
			serve_project_db_failed(&s->proj);
		else
			db_end_request(ctx.db);
	}
	fputs("Content-Type: text/xml\r\n\r\n", out);
	fwrite(sbuf_str(&reply), 1, reply.len, out);
	sbuf_release(&body);
	sbuf_release(&reply);
}

static void sched_fini(void *state)
{
	struct sched_server *s = state;

	/* given back over the connection if it is open; if not, the leases end by themselves */
	sched_pool_free(s->pool, s->proj.db);
	sched_apps_release(&s->apps);
	free(s->code_sign_key);
}

static struct sched_server server = {
	.proj = { .prog = "scheduler", .params = sched_params, .settings = &server.set,
		  .settings_size = sizeof(server.set) },
};
static const struct serve_spec spec = { usage, handle, &server, &server.proj, sched_fini };

int main(int argc, char **argv)
{
	return serve_program(&spec, argc, argv);
}
