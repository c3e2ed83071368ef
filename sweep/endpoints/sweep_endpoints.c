/*
 * The parameter sweep's HTTP endpoints (the sweep design, doc/seeds.md;
 * doc/sweep-protocol.md) as a handler over a sweep store (sweep_endpoints.h).
 * A session's files are in the session-files directory's SID/: "config"
 * (the configuration body), "worker_name", "workers/PLATFORM" (the worker
 * executables); the bodies of /complete, and of a POST /failed (the
 * worker's exit status and output), go to the results directory under
 * their ticket, for the master to validate and collect. A ticket is named
 * by a random name when handed out, so it cannot be guessed. Every request
 * reaches the store only through sweep_store_*(); a store that fails gets
 * the client 503, and the client tries again.
 */
#include "sweep_endpoints.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"
#include "field.h"
#include "form.h"
#include "sweep_check.h"
#include "sweep_msg.h"
#include "wtime.h"

#include <limits.h>
#include <sys/stat.h>

#define SWEEP_MAX_BODY ((long)SWEEP_COMPLETE_MAX)
#define SESSION_FRESH 1.0               /* seconds a remembered session is trusted */

struct req {
	struct sweep_endpoints *ep;
	struct sweep_store *store;
	struct serve_req *io;
	const char *addr;
	const char *op;                 /* config, ping, worker, task, complete, failed */
	struct form q;
	char *session;
	int64_t sid;                    /* the session's id in the store */
	char *dir;                      /* the session's files */
};

static const char *req_env(const struct req *r, const char *name)
{
	return serve_env(r->io, name);
}

static void reply_io(struct serve_req *io, int status, const char *type, const void *body,
		     size_t len)
{
	static const struct {
		int code;
		const char *text;
	} texts[] = {
		{ 200, "OK" }, { 204, "No Content" }, { 205, "Reset Content" },
		{ 400, "Bad Request" }, { 403, "Forbidden" }, { 404, "Not Found" },
		{ 415, "Unsupported Media Type" }, { 500, "Internal Server Error" },
		{ 503, "Service Unavailable" },
	};
	struct sbuf h = SBUF_INIT(1024);
	const char *text = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts); i++)
		if (texts[i].code == status)
			text = texts[i].text;
	sbuf_addf(&h, "Status: %d %s\r\n", status, text);
	if (status == 204 || status == 205) {
		sbuf_addstr(&h, "\r\n");
		len = 0;
	} else {
		sbuf_addf(&h, "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n",
			  type ? type : "text/plain", len);
	}
	fwrite(h.buf, 1, h.len, serve_out(io));
	fwrite(body, 1, len, serve_out(io));
	sbuf_release(&h);
}

static void reply(struct req *r, int status, const char *type, const void *body, size_t len)
{
	reply_io(r->io, status, type, body, len);
}

void sweep_endpoints_reply_text(struct serve_req *io, int status, const char *msg)
{
	reply_io(io, status, "text/plain", msg, strlen(msg));
}

static void reply_text(struct req *r, int status, const char *msg)
{
	sweep_endpoints_reply_text(r->io, status, msg);
}

/*
 * The identifier key= of the query (a session ID, a ticket, a platform): at
 * most max characters, letters, digits, '-' and '_' only -- safe as a file
 * name -- through lib/field.h. Allocated, or NULL with why saying what is
 * wrong with it.
 */
static char *ident(struct req *r, const char *key, size_t max, struct sbuf *why)
{
	char *v = form_value(&r->q, key), *out = NULL;

	if (!v || !*v)
		sbuf_addf(why, "%s: missing", key);
	else if (field_str(key, v, max, 0, &out, why) == FIELD_BAD)
		;
	else if (strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
		 != strlen(out))
		sbuf_addf(why, "%s: only letters, digits, '-' and '_'", key);
	else {
		free(v);
		return out;
	}
	free(out);
	free(v);
	return NULL;
}

/*
 * A client-supplied text for a note line "key=value\n" of the result's
 * stderr_out (who took a ticket, why it failed), through lib/field.h: cut
 * to max characters on a character boundary, control characters and bytes
 * that are not UTF-8 made '?'; "" when absent.
 */
static char *note(struct req *r, const char *key, size_t max)
{
	const struct form_part *p = form_get(&r->q, key);
	char *v, *clean = NULL, *n;
	size_t i;

	if (!p)
		return xstrdup("");
	v = xmalloc(p->len + 1);
	for (i = 0; i < p->len; i++)
		v[i] = p->data[i] ? p->data[i] : '\x01';     /* a NUL is cleaned like any control byte */
	v[p->len] = 0;
	if (field_str(key, v, max, FIELD_CUT | FIELD_CLEAN, &clean, NULL) == FIELD_BAD)
		clean = xstrdup("?");
	n = xasprintf("%s=%s\n", key, clean);
	free(clean);
	free(v);
	return n;
}

/* The store failed (it logged why): 503, and the client tries again. */
static void store_trouble(struct req *r, const char *what)
{
	struct sbuf msg = SBUF_INIT(1024);

	sbuf_addf(&msg, "the sweep's database is unavailable: %s\n", what);
	reply_text(r, 503, sbuf_str(&msg));
	sbuf_release(&msg);
}

/*
 * The session lately seen IN_PROGRESS: a request of a running task
 * (/task, /ping, /complete, /failed: each reaches the database anyway)
 * needs no lookup of its own. 0 when not known or stale.
 */
static int64_t known_session(struct req *r)
{
	const struct sweep_known_session *k = r->ep->known;
	size_t i;

	for (i = 0; i < SWEEP_SESSIONS_KEPT; i++)
		if (k[i].seen > 0 && dnow() - k[i].seen < SESSION_FRESH && !strcmp(k[i].sid, r->session))
			return k[i].session;
	return 0;
}

static void remember(struct req *r)
{
	struct sweep_known_session *known = r->ep->known, *k = &known[0];
	size_t i;

	for (i = 0; i < SWEEP_SESSIONS_KEPT; i++) {
		if (!strcmp(known[i].sid, r->session)) {
			k = &known[i];
			break;
		}
		if (known[i].seen < k->seen)
			k = &known[i];  /* else the oldest */
	}
	snprintf(k->sid, sizeof(k->sid), "%s", r->session);
	k->session = r->sid;
	k->seen = dnow();
}

/* The session: 0, or -1 with the reply sent (403 for a wrong session). */
static int session(struct req *r)
{
	struct sbuf why = SBUF_INIT(1024);
	int rc;

	r->session = ident(r, "sessionID", SWEEP_SESSION_ID_MAX, &why);
	sbuf_release(&why);
	if (!r->session) {
		log_warn("[%s] %s: bad or missing session ID", r->addr, r->op);
		reply_text(r, 403, "wrong session\n");
		return -1;
	}
	if (!r->store) {
		store_trouble(r, "try again later");
		return -1;
	}
	r->dir = sweep_files_session(r->ep->files, r->session);
	if (strcmp(r->op, "config") && strcmp(r->op, "worker") && (r->sid = known_session(r)))
		return 0;
	rc = sweep_store_session(r->store, r->session, &r->sid, NULL);
	if (rc == SWEEP_STORE_NOT_FOUND) {
		log_warn("[%s] %s: no such session", r->addr, r->op);
		reply_text(r, 403, "wrong session\n");
	} else if (rc != SWEEP_STORE_OK) {
		store_trouble(r, "try again later");
	} else {
		remember(r);
	}
	return rc == SWEEP_STORE_OK ? 0 : -1;
}

static void send_file(struct req *r, const char *path, int missing_status, const char *missing)
{
	struct sbuf b = SBUF_INIT(SWEEP_MAX_BODY);

	if (read_file(path, SWEEP_MAX_BODY, &b) == 0)
		reply(r, 200, "application/octet-stream", b.buf ? b.buf : "", b.len);
	else
		reply_text(r, missing_status, missing);
	sbuf_release(&b);
}

static void do_config(struct req *r)
{
	char *path = xasprintf("%s/config", r->dir);

	send_file(r, path, 500, "session has no configuration\n");
	free(path);
}

static void do_worker(struct req *r)
{
	struct sbuf b = SBUF_INIT(4096), why = SBUF_INIT(1024);
	char *name = form_value(&r->q, "name"), *platform = ident(r, "platform", 100, &why);
	char *path = xasprintf("%s/worker_name", r->dir), *want = NULL;
	struct stat st;

	if (read_file(path, 4096, &b) == 0) {
		want = sbuf_detach(&b, NULL);
		want[strcspn(want, "\r\n")] = 0;
	}
	free(path);
	path = NULL;
	if (!name || !want || strcmp(name, want)) {
		log_warn("[%s] worker: wrong worker name", r->addr);
		reply_text(r, 403, "wrong worker name\n");
	} else if (!platform ||
		   stat((path = xasprintf("%s/workers/%s", r->dir, platform)), &st) != 0) {
		log_info("[%s] worker: no worker for platform %s", r->addr,
			 platform ? platform : "(bad)");
		reply_text(r, 415, "no worker for this platform\n");
	} else {
		send_file(r, path, 500, "cannot read the worker\n");
	}
	free(path);
	free(want);
	free(name);
	free(platform);
	sbuf_release(&b);
	sbuf_release(&why);
}

/*
 * The master's --halt, as the file "halt" in the session's directory says
 * it: 0 none, 1 "soon" (no task is handed out any more), 2 "now" (and the
 * running ones are dropped: /ping answers 205).
 */
static int halted(const struct req *r)
{
	char *path = xasprintf("%s/halt", r->dir), buf[8] = "";
	FILE *fp = fopen(path, "r");

	free(path);
	if (!fp)
		return 0;
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = 0;
	fclose(fp);
	return strncmp(buf, "now", 3) ? 1 : 2;
}

static void do_task(struct req *r)
{
	struct sweep_claim c = { 0 };
	struct sbuf body = SBUF_INIT(SWEEP_MAX_BODY);
	char ticket[33], *host;
	int rc;

	if (halted(r)) {
		reply_text(r, 503, "no task left: the master halted the sweep (--halt)\n");
		return;
	}
	if (random_hex(ticket, 16) < 0) {
		reply_text(r, 500, "no randomness\n");
		return;
	}
	host = note(r, "host", 255);
	rc = sweep_store_next(r->store, r->sid, ticket, now(), host, &c);
	if (rc == SWEEP_STORE_NOT_FOUND) {
		reply_text(r, 503, "no task left\n");
	} else if (rc != SWEEP_STORE_OK) {
		store_trouble(r, "try again later");
	} else {
		sbuf_addf(&body, "Ticket=%s\nTimeout=%d\n", ticket, c.timeout);
		sbuf_addstr(&body, c.body ? c.body : "");
		log_info("[%s] a ticket of set %zu handed out", r->addr, c.row);
		reply(r, 200, "text/plain", body.buf, body.len);
	}
	sbuf_release(&body);
	free(host);
	sweep_claim_release(&c);
}

/* The ticket of the request in the session; 0, 1 (unknown), or -1 with the reply sent. */
static int ticket(struct req *r, struct sweep_ticket *t, char **name)
{
	struct sbuf why = SBUF_INIT(1024);
	int rc;

	*name = ident(r, "ticket", SWEEP_TICKET_MAX, &why);
	if (!*name) {
		struct sbuf msg = SBUF_INIT(2048);

		sbuf_addf(&msg, "bad or missing ticket: %s\n", sbuf_str(&why));
		log_warn("[%s] %s: bad or missing ticket", r->addr, r->op);
		reply_text(r, 400, sbuf_str(&msg));
		sbuf_release(&msg);
		sbuf_release(&why);
		return -1;
	}
	sbuf_release(&why);
	rc = sweep_store_ticket(r->store, r->sid, *name, t);
	if (rc == SWEEP_STORE_NOT_FOUND) {
		log_warn("[%s] %s: no such ticket in this session", r->addr, r->op);
		return 1;
	}
	if (rc != SWEEP_STORE_OK) {
		store_trouble(r, "try again later");
		return -1;
	}
	return 0;
}

/* 204 while the ticket's task still wants it; 205 when it is over, late or unknown. */
static void do_ping(struct req *r)
{
	struct sweep_ticket t = { 0 };
	char *name = NULL;
	int rc = ticket(r, &t, &name);

	if (rc == 0 && (t.state != SWEEP_TICKET_OUT || t.task_over ||
			(t.deadline && t.deadline < now()) || halted(r) == 2))
		rc = 1;
	if (rc == 0)
		reply(r, 204, NULL, "", 0);
	else if (rc > 0)
		reply(r, 205, NULL, "", 0);
	free(name);
	sweep_ticket_release(&t);
}

/*
 * Is body what a /complete must bring? 0, or 1 with why when not. A task
 * body that cannot be read is the server's own fault: logged, and the
 * results taken as they are.
 */
static int results_ok(struct req *r, const struct sweep_ticket *t, const char *body, size_t len,
		      struct sbuf *why)
{
	int rc = sweep_check_results(t->body, body, len, why);

	if (rc < 0) {
		log_error("[%s] set %zu: its task body cannot be read (%s): results not checked",
			  r->addr, t->row, sbuf_str(why));
		rc = 0;
	}
	return rc;
}

/* /complete's body refused: 400 with the reason, logged; the ticket stays as it was. */
static void refuse_results(struct req *r, const struct sweep_ticket *t, const char *why)
{
	struct sbuf msg = SBUF_INIT(4096), q = SBUF_INIT(4096);

	field_quote(&q, why, 512);
	log_warn("[%s] complete: ticket of set %zu: results refused: %s", r->addr, t->row,
		 sbuf_str(&q));
	sbuf_addf(&msg, "results refused, the ticket stays open: %s\n", sbuf_str(&q));
	reply_text(r, 400, sbuf_str(&msg));
	sbuf_release(&msg);
	sbuf_release(&q);
}

/* A POST /failed's body refused: 400 with the reason, logged; the failure is recorded. */
static void refuse_output(struct req *r, const char *why)
{
	struct sbuf msg = SBUF_INIT(4096), q = SBUF_INIT(4096);

	field_quote(&q, why, 512);
	log_warn("[%s] failed: output refused (the failure is recorded): %s", r->addr,
		 sbuf_str(&q));
	sbuf_addf(&msg, "output refused, the failure is recorded: %s\n", sbuf_str(&q));
	reply_text(r, 400, sbuf_str(&msg));
	sbuf_release(&msg);
	sbuf_release(&q);
}

/* Store a ticket's results under its name in the results directory, for the master. */
static int store_results(struct req *r, const char *name, const char *body, size_t len,
			 char **path)
{
	struct sbuf p = SBUF_INIT(PATH_MAX);
	int rc = 0;

	if (sweep_files_result(r->ep->files, name, true, &p) < 0 ||
	    write_file_atomic(sbuf_str(&p), body, len, 0644) < 0)
		rc = -1;
	*path = sbuf_detach(&p, NULL);
	return rc;
}

/*
 * /complete with its body, or /failed (with the body of a POST /failed that
 * decoded, kept only while the ticket is out; refused: why its body was
 * not, the failure recorded all the same and answered 400): the ticket
 * ends, its task is due for judging or a new ticket. rc: 0 the ticket, 1 no
 * such ticket in the session, 2 the same results again, 3 results refused;
 * < 0 the reply is sent.
 */
static void do_report(struct req *r, const char *body, size_t len, bool success,
		      const char *refused)
{
	struct sweep_ticket t = { 0 };
	struct sbuf bad = SBUF_INIT(4096);
	char *name = NULL, *path = NULL, *why = success ? xstrdup("") : note(r, "why", 300);
	bool taken = false;
	int rc = ticket(r, &t, &name);

	/*
	 * The same results again (the answer to the first POST was lost): they
	 * are in. Writing them again and dropping them as "too late" would
	 * delete the file the first POST left.
	 */
	if (rc == 0 && success && (t.state == SWEEP_TICKET_RETURNED || t.state == SWEEP_TICKET_VALID ||
				   t.state == SWEEP_TICKET_INVALID)) {
		log_info("[%s] ticket of set %zu: the same results again", r->addr, t.row);
		rc = 2;
	}
	if (rc == 0 && success && (rc = results_ok(r, &t, body, len, &bad)) > 0)
		rc = 3;
	if (rc == 0 && (success || (len && t.state == SWEEP_TICKET_OUT)) &&
	    store_results(r, name, body, len, &path) < 0)
		rc = -2;
	if (rc == 0 &&
	    sweep_store_report(r->store, t.id, success, now(), why, &taken) != SWEEP_STORE_OK) {
		store_trouble(r, success ? "send the results again" : "report it again");
		rc = -1;
	}
	if (rc == -2) {
		reply_text(r, 500, success ? "cannot store the results; send them again\n" :
			   "cannot store the output; report it again\n");
	} else if (rc == 3) {
		refuse_results(r, &t, sbuf_str(&bad));
	} else if (rc == 1 && success) {
		reply_text(r, 400, "no such ticket in this session\n");
	} else if (rc >= 0) {
		if (rc == 0)
			log_info("[%s] ticket of set %zu %s%s", r->addr, t.row,
				 success ? "completed" : "failed", taken ? "" : " (too late, ignored)");
		if (rc == 0 && path && !taken)
			unlink(path);
		if (rc == 0 && taken && r->ep->reported)
			r->ep->reported(r->ep->reported_arg, r->sid, success);
		if (refused)
			refuse_output(r, refused);
		else
			reply_text(r, 200, "OK\n");
	}
	free(path);
	free(name);
	free(why);
	sbuf_release(&bad);
	sweep_ticket_release(&t);
}

/*
 * The request's name: PATH_INFO's one part (<cgi_url>sweep/task gives
 * "task"), or, with no PATH_INFO, the last part of SCRIPT_NAME -- for an
 * admin who maps the sweep design's root paths (/task) to the program himself with
 * ScriptAliasMatch. Anything else is "" (404).
 */
static const char *request_op(struct req *r)
{
	const char *info = req_env(r, "PATH_INFO"), *script, *slash;

	if (info && *info)
		return info[0] == '/' && !strchr(info + 1, '/') ? info + 1 : "";
	script = req_env(r, "SCRIPT_NAME");
	slash = script ? strrchr(script, '/') : NULL;
	return slash ? slash + 1 : "";
}

static void complete(struct req *r)
{
	struct sbuf why = SBUF_INIT(1024);
	size_t len = 0;
	char *body = serve_body(r->io, SWEEP_MAX_BODY, &len, &why);

	if (!body) {
		struct sbuf msg = SBUF_INIT(2048);

		log_warn("[%s] complete: %s", r->addr, sbuf_str(&why));
		sbuf_addf(&msg, "results refused, the ticket stays open: %s\n", sbuf_str(&why));
		reply_text(r, 400, sbuf_str(&msg));
		sbuf_release(&msg);
	} else {
		do_report(r, body, len, true, NULL);
	}
	free(body);
	sbuf_release(&why);
}

/*
 * /failed: a GET, or a POST whose body is the worker's exit status and
 * output (sweep_failed_decode). A body that cannot be read or does not
 * decode is refused (400) but the failure is recorded: the client's word
 * that the run failed stands without it.
 */
static void failed(struct req *r)
{
	const char *method = req_env(r, "REQUEST_METHOD"), *clen = req_env(r, "CONTENT_LENGTH");
	struct sbuf why = SBUF_INIT(1024);
	struct sweep_complete c = { 0 };
	char *body = NULL;
	size_t len = 0;
	bool bad = false;

	if (method && !strcmp(method, "POST") && clen && *clen && strcmp(clen, "0")) {
		body = serve_body(r->io, SWEEP_MAX_BODY, &len, &why);
		bad = !body || sweep_failed_decode(body, len, SWEEP_COMPLETE_MAX, &c, &why) < 0;
	}
	do_report(r, bad ? NULL : body, bad ? 0 : len, false, bad ? sbuf_str(&why) : NULL);
	sweep_complete_release(&c);
	free(body);
	sbuf_release(&why);
}

static void dispatch(struct req *r)
{
	if (!strcmp(r->op, "config"))
		do_config(r);
	else if (!strcmp(r->op, "worker"))
		do_worker(r);
	else if (!strcmp(r->op, "task"))
		do_task(r);
	else if (!strcmp(r->op, "ping"))
		do_ping(r);
	else if (!strcmp(r->op, "failed"))
		failed(r);
	else if (!strcmp(r->op, "complete"))
		complete(r);
	else
		reply_text(r, 404, "no such request\n");
}

void sweep_endpoints_serve(struct sweep_endpoints *ep, struct serve_req *io)
{
	struct req r = { .ep = ep, .store = ep->store, .io = io };
	struct sbuf err = SBUF_INIT(1024);

	r.addr = req_env(&r, "REMOTE_ADDR") ? req_env(&r, "REMOTE_ADDR") : "?";
	r.op = request_op(&r);
	if (form_parse_query(req_env(&r, "QUERY_STRING"), &r.q, &err) < 0)
		reply_text(&r, 400, "bad query\n");
	else if (session(&r) == 0)
		dispatch(&r);
	form_release(&r.q);
	free(r.session);
	free(r.dir);
	sbuf_release(&err);
}
