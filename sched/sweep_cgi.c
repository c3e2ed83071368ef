/*
 * sweep: the parameter sweep's HTTP endpoints (seed 004, doc/sweep-protocol.md)
 * as one CGI program, mapped by make_project's Apache configuration to
 * /config, /ping, /worker, /task, /complete and /failed at the server's root
 * (sweep_client asks http://HOST:PORT/task?...). A session is a batch named
 * "sweep:SESSIONID" in state IN_PROGRESS; its files are in the project's
 * sweep/SESSIONID/: "config" (the configuration body), "worker_name",
 * "workers/PLATFORM" (the worker executables); the bodies of /complete go to
 * the upload hierarchy under their ticket, for the master to validate and
 * collect. A task is a
 * workunit of the batch whose xml_doc holds the task body after its Ticket
 * and Timeout; a ticket is one of its results, renamed to an unguessable
 * random name when handed out. Logs to <log_dir>/sweep.log.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"
#include "submit_form.h"
#include "wtime.h"

#include <ctype.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: sweep\n"
	"The parameter sweep's HTTP endpoints (/config, /ping, /worker, /task,\n"
	"/complete, /failed), run by the web server as a CGI program. It reads the\n"
	"project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"See doc/sweep-protocol.md.\n";

#define SWEEP_MAX_BODY (1L << 30)
#define NO_DEADLINE (int64_t)4000000000

struct req {
	const struct project_config *cfg;
	struct db *db;
	const char *addr;
	const char *op;                 /* config, ping, worker, task, complete, failed */
	struct form q;
	char *session;
	struct db_batch batch;
	char *dir;                      /* sweep/SESSIONID */
};

static void reply(int status, const char *type, const void *body, size_t len)
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
	const char *text = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts); i++)
		if (texts[i].code == status)
			text = texts[i].text;
	printf("Status: %d %s\r\n", status, text);
	if (status == 204 || status == 205) {
		fputs("\r\n", stdout);
	} else {
		printf("Content-Type: %s\r\nContent-Length: %zu\r\n\r\n", type ? type : "text/plain",
		       len);
		fwrite(body, 1, len, stdout);
	}
	fflush(stdout);
}

static void reply_text(int status, const char *msg)
{
	reply(status, "text/plain", msg, strlen(msg));
}

/* Letters, digits, '-', '_', '.' (not leading), at most max: safe as a file name. */
static bool token_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0, i;

	if (n < 1 || n > max || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/*
 * A client-supplied text for a note line "key=value\n" of the result's
 * stderr_out (who took a ticket, why it failed): at most max bytes, control
 * characters made blanks; "" when absent.
 */
static char *note(struct req *r, const char *key, size_t max)
{
	char *v = form_value(&r->q, key), *n;
	size_t i;

	if (!v)
		return xstrdup("");
	if (strlen(v) > max)
		v[max] = 0;
	for (i = 0; v[i]; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			v[i] = ' ';
	n = xasprintf("%s=%s\n", key, v);
	free(v);
	return n;
}

/* The session: 0, or -1 with the reply sent (403 for a wrong session). */
static int session(struct req *r)
{
	char *name;
	int rc;

	r->session = form_value(&r->q, "sessionID");
	if (!token_ok(r->session, 64) || strchr(r->session, '.')) {
		log_warn("[%s] %s: bad or missing session ID", r->addr, r->op);
		reply_text(403, "wrong session\n");
		return -1;
	}
	if (!r->db) {
		reply_text(503, "the project database is unavailable; try again later\n");
		return -1;
	}
	name = xasprintf("sweep:%s", r->session);
	rc = db_batch_lookup_name(r->db, name, &r->batch);
	free(name);
	if (rc == DB_NOT_FOUND || (rc == DB_OK && r->batch.state != BATCH_STATE_IN_PROGRESS)) {
		log_warn("[%s] %s: no such session", r->addr, r->op);
		reply_text(403, "wrong session\n");
		return -1;
	}
	if (rc != DB_OK) {
		reply_text(500, "database error\n");
		return -1;
	}
	r->dir = xasprintf("%s/sweep/%s", r->cfg->project_dir, r->session);
	return 0;
}

static void send_file(const char *path, int missing_status, const char *missing)
{
	struct sbuf b = SBUF_INIT(SWEEP_MAX_BODY);

	if (read_file(path, SWEEP_MAX_BODY, &b) == 0)
		reply(200, "application/octet-stream", b.buf ? b.buf : "", b.len);
	else
		reply_text(missing_status, missing);
	sbuf_free(&b);
}

static void do_config(struct req *r)
{
	char *path = xasprintf("%s/config", r->dir);

	send_file(path, 500, "session has no configuration\n");
	free(path);
}

static void do_worker(struct req *r)
{
	char *name = form_value(&r->q, "name"), *platform = form_value(&r->q, "platform");
	char *path = xasprintf("%s/worker_name", r->dir), *want = NULL;
	struct sbuf b = SBUF_INIT(4096);
	struct stat st;

	if (read_file(path, 4096, &b) == 0) {
		want = sbuf_detach(&b, NULL);
		want[strcspn(want, "\r\n")] = 0;
	}
	free(path);
	path = NULL;
	if (!name || !want || strcmp(name, want)) {
		log_warn("[%s] worker: wrong worker name", r->addr);
		reply_text(403, "wrong worker name\n");
	} else if (!token_ok(platform, 100) ||
		   stat((path = xasprintf("%s/workers/%s", r->dir, platform)), &st) != 0) {
		log_info("[%s] worker: no worker for platform %s", r->addr,
			 platform && token_ok(platform, 100) ? platform : "(bad)");
		reply_text(415, "no worker for this platform\n");
	} else {
		send_file(path, 500, "cannot read the worker\n");
	}
	free(path);
	free(want);
	free(name);
	free(platform);
	sbuf_free(&b);
}

static void do_task(struct req *r)
{
	struct db_result res = { 0 };
	struct db_workunit wu = { 0 };
	struct sbuf body = SBUF_INIT(SWEEP_MAX_BODY);
	char ticket[33], *host;
	int64_t t = now();
	int rc;

	if (random_hex(ticket, 16) < 0) {
		reply_text(500, "no randomness\n");
		return;
	}
	host = note(r, "host", 255);
	rc = db_begin(r->db);
	if (rc == DB_OK)
		rc = db_sweep_next(r->db, r->batch.app_id, r->batch.id, &res);
	if (rc == DB_OK)
		rc = db_workunit_lookup_id(r->db, res.workunitid, &wu);
	/* due at its timeout: then the transitioner hands the task out again */
	if (rc == DB_OK)
		rc = db_sweep_send(r->db, res.id, ticket, t,
				   wu.delay_bound > 0 ? t + wu.delay_bound : NO_DEADLINE, host);
	if (rc == DB_OK && wu.delay_bound > 0)
		rc = db_workunit_touch_transition(r->db, wu.id, t + wu.delay_bound);
	if (rc == DB_OK)
		rc = db_commit(r->db);
	else
		db_rollback(r->db);
	if (rc == DB_NOT_FOUND) {
		reply_text(503, "no task left\n");
	} else if (rc != DB_OK) {
		reply_text(500, "database error\n");
	} else {
		sbuf_addf(&body, "Ticket=%s\nTimeout=%d\n", ticket, wu.delay_bound);
		sbuf_addstr(&body, wu.xml_doc ? wu.xml_doc : "");
		log_info("[%s] task %s handed out", r->addr, wu.name);
		reply(200, "text/plain", body.buf, body.len);
	}
	sbuf_free(&body);
	free(host);
	db_result_free(&res);
	db_workunit_free(&wu);
}

/* The ticket of the request in the session; 0, or -1 with the reply sent. */
static int ticket(struct req *r, struct db_result *res, char **name)
{
	int rc;

	*name = form_value(&r->q, "ticket");
	if (!token_ok(*name, 64) || strchr(*name, '.')) {
		reply_text(400, "bad or missing ticket\n");
		return -1;
	}
	rc = db_sweep_ticket(r->db, r->batch.id, *name, res);
	if (rc == DB_NOT_FOUND) {
		log_warn("[%s] %s: unknown ticket", r->addr, r->op);
		return 1;
	}
	if (rc != DB_OK) {
		reply_text(500, "database error\n");
		return -1;
	}
	return 0;
}

static void do_ping(struct req *r)
{
	struct db_result res = { 0 };
	struct db_workunit wu = { 0 };
	char *name = NULL;
	int rc = ticket(r, &res, &name);

	if (rc == 0 && db_workunit_lookup_id(r->db, res.workunitid, &wu) != DB_OK)
		rc = 1;
	if (rc == 0 && (res.server_state != RESULT_SERVER_STATE_IN_PROGRESS ||
			wu.canonical_resultid || wu.error_mask || res.report_deadline < now()))
		rc = 1;
	if (rc == 0)
		reply(204, NULL, "", 0);
	else if (rc > 0)
		reply(205, NULL, "", 0);
	free(name);
	db_result_free(&res);
	db_workunit_free(&wu);
}

/* /complete with its body, or /failed: the ticket ends, the task is due for the transitioner. */
static void do_report(struct req *r, const char *body, size_t len, bool success)
{
	struct db_result res = { 0 };
	char *name = NULL, *path = NULL, *why = success ? xstrdup("") : note(r, "why", 300);
	bool taken = false;
	int rc = ticket(r, &res, &name);

	if (rc == 0 && success) {
		struct sbuf p = SBUF_INIT(PATH_MAX);

		if (dirhier_path(name, r->cfg->upload_dir, r->cfg->uldl_dir_fanout, true, &p) < 0 ||
		    write_file_atomic(sbuf_str(&p), body, len, 0644) < 0)
			rc = -2;
		path = sbuf_detach(&p, NULL);
	}
	if (rc == 0 && (db_begin(r->db) != DB_OK ||
			db_sweep_report(r->db, &res, success, now(), why, &taken) != DB_OK ||
			db_commit(r->db) != DB_OK)) {
		db_rollback(r->db);
		rc = -2;
	}
	if (rc == -2) {
		reply_text(500, "cannot record the results; send them again\n");
	} else if (rc >= 0) {
		if (rc == 0)
			log_info("[%s] ticket of task %lld %s%s", r->addr, (long long)res.workunitid,
				 success ? "completed" : "failed", taken ? "" : " (too late, ignored)");
		if (rc == 0 && success && !taken)
			unlink(path);
		reply_text(200, "OK\n");
	}
	free(path);
	free(name);
	free(why);
	db_result_free(&res);
}

int main(int argc, char **argv)
{
	struct project_config cfg;
	struct req r = { .cfg = &cfg };
	struct sbuf err = SBUF_INIT(1024);
	struct db_params dp;
	const char *script = getenv("SCRIPT_NAME"), *slash;
	char *logpath;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");

		fputs(usage, help ? stdout : stderr);
		return help ? 0 : 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	log_init("sweep", NULL);
	if (config_load(&cfg, NULL, NULL, NULL) < 0) {
		reply_text(503, "server configuration unreadable\n");
		return 0;
	}
	logpath = xasprintf("%s/sweep.log", cfg.log_dir);
	log_init("sweep", logpath);
	free(logpath);
	r.addr = getenv("REMOTE_ADDR") ? getenv("REMOTE_ADDR") : "?";
	slash = script ? strrchr(script, '/') : NULL;
	r.op = slash ? slash + 1 : "";
	db_params_from_config(&dp, &cfg);
	if (db_open(&r.db, &dp, 0) != DB_OK)
		r.db = NULL;
	if (form_parse_query(getenv("QUERY_STRING"), &r.q, &err) < 0) {
		reply_text(400, "bad query\n");
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
			const char *why = NULL;
			char *body = form_read_body(SWEEP_MAX_BODY, &len, &why);

			if (!body) {
				log_warn("[%s] complete: %s", r.addr, why);
				reply_text(400, "missing or cut-short body\n");
			} else {
				do_report(&r, body, len, true);
			}
			free(body);
		} else {
			reply_text(404, "no such request\n");
		}
	}
	form_free(&r.q);
	free(r.session);
	free(r.dir);
	db_batch_free(&r.batch);
	if (r.db)
		db_close(r.db);
	sbuf_free(&err);
	config_free(&cfg);
	log_close();
	return 0;
}
