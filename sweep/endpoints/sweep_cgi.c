/*
 * sweep: the parameter sweep's HTTP endpoints (the sweep design, doc/seeds.md; doc/sweep-protocol.md)
 * as one CGI program, cgi-bin/sweep: the project's <cgi_url>sweep is the
 * endpoints' base URL and the protocol's path follows it as PATH_INFO
 * (sweep_client asks http://HOST:PORT/NAME_cgi/sweep/task?...), so two
 * projects on one web server each answer at their own URL. A session is a batch named
 * "sweep:SESSIONID" in state IN_PROGRESS; its files are in the project's
 * sweep/SESSIONID/: "config" (the configuration body), "worker_name",
 * "workers/PLATFORM" (the worker executables); the bodies of /complete go to
 * the upload hierarchy under their ticket, for the master to validate and
 * collect. A task is a
 * workunit of the batch whose xml_doc holds the task body after its Ticket
 * and Timeout; a ticket is one of its results, renamed to an unguessable
 * random name when handed out. Logs to <log_dir>/sweep.log.
 *
 * Under mod_fcgid the same binary is a FastCGI program (serve/serve.h): one
 * process answers request after request, keeping the configuration and the
 * database connection (reopened at the next request when it was lost);
 * everything a request makes is freed when it ends. Run by a web server as
 * a plain CGI program it answers its one request.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"
#include "field.h"
#include "form.h"
#include "sweep_check.h"
#include "sweep_msg.h"
#include "wtime.h"

#include "serve.h"

#include <ctype.h>
#include <limits.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: sweep\n"
	"The parameter sweep's HTTP endpoints (/config, /ping, /worker, /task,\n"
	"/complete, /failed), run by the web server as a FastCGI program (many\n"
	"requests a process) or as a CGI program (one). It reads the project's\n"
	"config.xml (WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"See doc/sweep-protocol.md.\n";

#define SWEEP_MAX_BODY ((long)SWEEP_COMPLETE_MAX)
#define NO_DEADLINE (int64_t)4000000000
#define TASK_TRIES 3
#define SESSION_ID_MAX 64
#define SESSIONS_KEPT 16                /* sessions a FastCGI process remembers */
#define SESSION_FRESH 1.0               /* seconds a remembered session is trusted */

/* A session found lately: its batch, and when it was last seen IN_PROGRESS. */
struct known_session {
	char sid[SESSION_ID_MAX + 1];
	int64_t batch;
	double seen;                    /* dnow(); 0: unused */
};

/* What a FastCGI process keeps from one request to the next. */
struct server {
	struct serve_project proj;
	struct known_session known[SESSIONS_KEPT];
};

struct req {
	const struct project_config *cfg;
	struct server *srv;
	struct db *db;                  /* srv->proj.db */
	struct serve_req *io;
	const char *addr;
	const char *op;                 /* config, ping, worker, task, complete, failed */
	struct form q;
	char *session;
	int64_t batch;                  /* the session's */
	char *dir;                      /* sweep/SESSIONID */
	bool db_failed;                 /* a database call failed: start afresh */
};

static const char *req_env(const struct req *r, const char *name)
{
	return serve_env(r->io, name);
}

static void reply(struct req *r, int status, const char *type, const void *body, size_t len)
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
	fwrite(h.buf, 1, h.len, serve_out(r->io));
	fwrite(body, 1, len, serve_out(r->io));
	sbuf_release(&h);
}

static void reply_text(struct req *r, int status, const char *msg)
{
	reply(r, status, "text/plain", msg, strlen(msg));
}

/*
 * A transaction that failed but may simply run again: InnoDB chose it as a
 * deadlock's victim and rolled it back (concurrent /task requests lock the
 * same unsent results), or the connection was lost in it (DB_RETRY). Not
 * on the same connection: after a deadlock the next statement on it was
 * seen to wait forever. True with a fresh connection in r->db.
 */
static bool txn_again(struct req *r, int rc, bool deadlock)
{
	if (rc != DB_RETRY && !(rc == DB_ERROR && deadlock))
		return false;
	serve_project_db_failed(&r->srv->proj);
	r->db = serve_project_db(&r->srv->proj);
	return r->db != NULL;
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

/*
 * A database call failed: 503 when the database is down (as for a CGI that
 * cannot connect), else 500. The next request connects afresh.
 */
static void db_trouble(struct req *r, const char *what)
{
	r->db_failed = true;
	if (!r->db || db_ping(r->db) != DB_OK)
		reply_text(r, 503, "the project database is unavailable; try again later\n");
	else
		reply_text(r, 500, what);
}

/*
 * The session lately seen IN_PROGRESS: a request of a running task
 * (/task, /ping, /complete, /failed: each reaches the database anyway)
 * needs no lookup of its own. 0 when not known or stale.
 */
static int64_t known_batch(struct req *r)
{
	size_t i;

	for (i = 0; i < SESSIONS_KEPT; i++)
		if (r->srv->known[i].seen > 0 && dnow() - r->srv->known[i].seen < SESSION_FRESH &&
		    !strcmp(r->srv->known[i].sid, r->session))
			return r->srv->known[i].batch;
	return 0;
}

static void remember(struct req *r)
{
	struct known_session *k = &r->srv->known[0];
	size_t i;

	for (i = 0; i < SESSIONS_KEPT; i++) {
		if (!strcmp(r->srv->known[i].sid, r->session)) {
			k = &r->srv->known[i];
			break;
		}
		if (r->srv->known[i].seen < k->seen)
			k = &r->srv->known[i];  /* else the oldest */
	}
	snprintf(k->sid, sizeof(k->sid), "%s", r->session);
	k->batch = r->batch;
	k->seen = dnow();
}

/* The session: 0, or -1 with the reply sent (403 for a wrong session). */
static int session(struct req *r)
{
	struct sbuf why = SBUF_INIT(1024);
	struct db_batch b = { 0 };
	char *name;
	int rc;

	r->session = ident(r, "sessionID", SESSION_ID_MAX, &why);
	sbuf_release(&why);
	if (!r->session) {
		log_warn("[%s] %s: bad or missing session ID", r->addr, r->op);
		reply_text(r, 403, "wrong session\n");
		return -1;
	}
	if (!r->db) {
		db_trouble(r, "database error\n");
		return -1;
	}
	r->dir = xasprintf("%s/sweep/%s", r->cfg->project_dir, r->session);
	if (strcmp(r->op, "config") && strcmp(r->op, "worker") && (r->batch = known_batch(r)))
		return 0;
	name = xasprintf("sweep:%s", r->session);
	rc = db_batch_lookup_name(r->db, name, &b);
	free(name);
	r->batch = b.id;
	if (rc == DB_NOT_FOUND || (rc == DB_OK && b.state != BATCH_STATE_IN_PROGRESS)) {
		log_warn("[%s] %s: no such session", r->addr, r->op);
		reply_text(r, 403, "wrong session\n");
		rc = -1;
	} else if (rc != DB_OK) {
		db_trouble(r, "database error\n");
		rc = -1;
	} else {
		remember(r);
	}
	db_batch_release(&b);
	return rc == DB_OK ? 0 : -1;
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
	struct db_sweep_claim c = { 0 };
	struct sbuf body = SBUF_INIT(SWEEP_MAX_BODY);
	char ticket[33], *host;
	int64_t t = now();
	int rc, tries = 0;

	if (halted(r)) {
		reply_text(r, 503, "no task left: the master halted the sweep (--halt)\n");
		return;
	}
	if (random_hex(ticket, 16) < 0) {
		reply_text(r, 500, "no randomness\n");
		return;
	}
	host = note(r, "host", 255);
	for (;;) {
		bool deadlock = false;

		rc = db_begin(r->db);
		if (rc == DB_OK)
			rc = db_sweep_next(r->db, r->batch, &c);
		/* due at its timeout: then the transitioner hands the task out again */
		if (rc == DB_OK)
			rc = db_sweep_send(r->db, &c, ticket, t,
					   c.delay_bound > 0 ? t + c.delay_bound : NO_DEADLINE, host);
		if (rc == DB_OK) {
			rc = db_commit(r->db);
		} else {
			deadlock = db_deadlock(r->db);
			db_rollback(r->db);
		}
		if (rc == DB_OK || rc == DB_NOT_FOUND || ++tries == TASK_TRIES ||
		    !txn_again(r, rc, deadlock))
			break;
	}
	if (rc == DB_NOT_FOUND) {
		reply_text(r, 503, "no task left\n");
	} else if (rc != DB_OK) {
		db_trouble(r, "database error\n");
	} else {
		sbuf_addf(&body, "Ticket=%s\nTimeout=%d\n", ticket, c.delay_bound);
		sbuf_addstr(&body, c.xml_doc ? c.xml_doc : "");
		log_info("[%s] task %s handed out", r->addr, c.wu_name);
		reply(r, 200, "text/plain", body.buf, body.len);
	}
	sbuf_release(&body);
	free(host);
	db_rec_release(&db_sweep_claim_table, &c);
}

/* The ticket of the request in the session; 0, 1 (unknown), or -1 with the reply sent. */
static int ticket(struct req *r, struct db_result *res, char **name)
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
	rc = db_sweep_ticket(r->db, r->batch, *name, res);
	if (rc == DB_NOT_FOUND) {
		log_warn("[%s] %s: no such ticket in this session", r->addr, r->op);
		return 1;
	}
	if (rc != DB_OK) {
		db_trouble(r, "database error\n");
		return -1;
	}
	return 0;
}

static void do_ping(struct req *r)
{
	struct db_result res = { 0 };
	struct db_workunit wu = { 0 };
	char *name = NULL;
	int rc = ticket(r, &res, &name), wrc;

	if (rc == 0 && (wrc = db_workunit_lookup_id(r->db, res.workunitid, &wu)) != DB_OK) {
		if (wrc != DB_NOT_FOUND) {
			db_trouble(r, "database error\n");
			rc = -1;
		} else {
			rc = 1;
		}
	}
	if (rc == 0 && (res.server_state != RESULT_SERVER_STATE_IN_PROGRESS ||
			wu.canonical_resultid || wu.error_mask || res.report_deadline < now() ||
			halted(r) == 2))
		rc = 1;
	if (rc == 0)
		reply(r, 204, NULL, "", 0);
	else if (rc > 0)
		reply(r, 205, NULL, "", 0);
	free(name);
	db_result_release(&res);
	db_workunit_release(&wu);
}

/*
 * Record a ticket's end: one statement (no transaction of its own), run
 * again on a fresh connection after a deadlock or a lost connection.
 */
static int report(struct req *r, const struct db_result *res, bool success, const char *why,
		  bool *taken)
{
	int rc, tries = 0;

	for (;;) {
		rc = db_sweep_report(r->db, res, success, now(), why, taken);
		if (rc == DB_OK || ++tries == TASK_TRIES || !txn_again(r, rc, db_deadlock(r->db)))
			return rc;
	}
}

/*
 * Is body what a /complete must bring? 0; 1 with why when not; -1 when the
 * database failed (the reply is sent).
 */
static int results_ok(struct req *r, const struct db_result *res, const char *body, size_t len,
		      struct sbuf *why)
{
	struct db_workunit wu = { 0 };
	int rc = db_workunit_lookup_id(r->db, res->workunitid, &wu);

	if (rc != DB_OK && rc != DB_NOT_FOUND) {
		db_trouble(r, "database error\n");
		rc = -1;
	} else {
		rc = sweep_check_results(rc == DB_OK ? wu.xml_doc : NULL, body, len, why);
		if (rc < 0) {
			/* the task is the server's own: complain, and take the results as they are */
			log_error("[%s] task %lld: its body cannot be read (%s): results not checked",
				  r->addr, (long long)res->workunitid, sbuf_str(why));
			rc = 0;
		}
	}
	db_workunit_release(&wu);
	return rc;
}

/* /complete's body refused: 400 with the reason, logged; the ticket stays as it was. */
static void refuse_results(struct req *r, const struct db_result *res, const char *why)
{
	struct sbuf msg = SBUF_INIT(4096), q = SBUF_INIT(4096);

	field_quote(&q, why, 512);
	log_warn("[%s] complete: ticket of task %lld: results refused: %s", r->addr,
		 (long long)res->workunitid, sbuf_str(&q));
	sbuf_addf(&msg, "results refused, the ticket stays open: %s\n", sbuf_str(&q));
	reply_text(r, 400, sbuf_str(&msg));
	sbuf_release(&msg);
	sbuf_release(&q);
}

/* Store a ticket's results under its name in the upload hierarchy, for the master. */
static int store_results(struct req *r, const char *name, const char *body, size_t len,
			 char **path)
{
	struct sbuf p = SBUF_INIT(PATH_MAX);
	int rc = 0;

	if (dirhier_path(name, r->cfg->upload_dir, r->cfg->uldl_dir_fanout, true, &p) < 0 ||
	    write_file_atomic(sbuf_str(&p), body, len, 0644) < 0)
		rc = -1;
	*path = sbuf_detach(&p, NULL);
	return rc;
}

/*
 * /complete with its body, or /failed: the ticket ends, the task is due for
 * the transitioner. rc: 0 the ticket, 1 no such ticket in the session, 2
 * the same results again, 3 results refused; < 0 the reply is sent.
 */
static void do_report(struct req *r, const char *body, size_t len, bool success)
{
	struct db_result res = { 0 };
	struct sbuf bad = SBUF_INIT(4096);
	char *name = NULL, *path = NULL, *why = success ? xstrdup("") : note(r, "why", 300);
	bool taken = false;
	int rc = ticket(r, &res, &name);

	/*
	 * The same results again (the answer to the first POST was lost): they
	 * are in. Writing them again and dropping them as "too late" would
	 * delete the file the first POST left.
	 */
	if (rc == 0 && success && res.server_state == RESULT_SERVER_STATE_OVER &&
	    res.outcome == RESULT_OUTCOME_SUCCESS) {
		log_info("[%s] ticket of task %lld: the same results again", r->addr,
			 (long long)res.workunitid);
		rc = 2;
	}
	if (rc == 0 && success && (rc = results_ok(r, &res, body, len, &bad)) > 0)
		rc = 3;
	if (rc == 0 && success && store_results(r, name, body, len, &path) < 0)
		rc = -2;
	if (rc == 0 && report(r, &res, success, why, &taken) != DB_OK) {
		db_trouble(r, "cannot record the results; send them again\n");
		rc = -1;
	}
	if (rc == -2) {
		reply_text(r, 500, "cannot store the results; send them again\n");
	} else if (rc == 3) {
		refuse_results(r, &res, sbuf_str(&bad));
	} else if (rc == 1 && success) {
		reply_text(r, 400, "no such ticket in this session\n");
	} else if (rc >= 0) {
		if (rc == 0)
			log_info("[%s] ticket of task %lld %s%s", r->addr, (long long)res.workunitid,
				 success ? "completed" : "failed", taken ? "" : " (too late, ignored)");
		if (rc == 0 && success && !taken)
			unlink(path);
		reply_text(r, 200, "OK\n");
	}
	free(path);
	free(name);
	free(why);
	sbuf_release(&bad);
	db_result_release(&res);
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

/* One request. Frees what the request made. */
static void serve(void *state, struct serve_req *io)
{
	struct server *s = state;
	struct req r = { .cfg = &s->proj.cfg, .srv = s, .io = io };
	struct sbuf err = SBUF_INIT(1024);

	if (serve_project_get(&s->proj) < 0) {
		reply_text(&r, 503, "server configuration unreadable\n");
		return;
	}
	r.db = serve_project_db(&s->proj);
	r.addr = req_env(&r, "REMOTE_ADDR") ? req_env(&r, "REMOTE_ADDR") : "?";
	r.op = request_op(&r);
	if (form_parse_query(req_env(&r, "QUERY_STRING"), &r.q, &err) < 0) {
		reply_text(&r, 400, "bad query\n");
	} else if (session(&r) == 0) {
		if (!strcmp(r.op, "config")) {
			do_config(&r);
		} else if (!strcmp(r.op, "worker")) {
			do_worker(&r);
		} else if (!strcmp(r.op, "task")) {
			do_task(&r);
		} else if (!strcmp(r.op, "ping")) {
			do_ping(&r);
		} else if (!strcmp(r.op, "failed")) {
			do_report(&r, NULL, 0, false);
		} else if (!strcmp(r.op, "complete")) {
			size_t len = 0;
			struct sbuf why = SBUF_INIT(1024);
			char *body = serve_body(io, SWEEP_MAX_BODY, &len, &why);

			if (!body) {
				struct sbuf msg = SBUF_INIT(2048);

				log_warn("[%s] complete: %s", r.addr, sbuf_str(&why));
				sbuf_addf(&msg, "results refused, the ticket stays open: %s\n",
					  sbuf_str(&why));
				reply_text(&r, 400, sbuf_str(&msg));
				sbuf_release(&msg);
			} else {
				do_report(&r, body, len, true);
			}
			free(body);
			sbuf_release(&why);
		} else {
			reply_text(&r, 404, "no such request\n");
		}
	}
	/*
	 * After a failed database call the connection's state is not to be
	 * trusted: a statement that failed with a deadlock was seen to make the
	 * next request on it wait forever. The next request connects afresh,
	 * as a CGI does.
	 */
	if (r.db_failed)
		serve_project_db_failed(&s->proj);
	form_release(&r.q);
	free(r.session);
	free(r.dir);
	sbuf_release(&err);
}

static struct server server = { .proj = { .prog = "sweep" } };
static const struct serve_spec spec = { usage, serve, &server, &server.proj, NULL };

int main(int argc, char **argv)
{
	return serve_program(&spec, argc, argv);
}
