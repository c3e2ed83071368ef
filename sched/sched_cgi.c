/*
 * cgi: the scheduler's CGI front end (BOINC's name for it, so the master
 * page's scheduler URL is .../NAME_cgi/cgi). It reads the configuration and
 * the request, opens the database and hands both to sched_handle().
 */
#include "scheduler.h"
#include "fileutil.h"
#include "log.h"

static void emit(const struct sbuf *reply)
{
	fputs("Content-Type: text/xml\r\n\r\n", stdout);
	fwrite(sbuf_str(reply), 1, reply->len, stdout);
	fflush(stdout);
}

static char *read_key(const struct project_config *cfg)
{
	struct sbuf b = SBUF_INIT(16384);
	char *path = xasprintf("%s/code_sign_public", cfg->key_dir);
	char *key = NULL;

	if (read_file(path, 16384, &b) == 0)
		key = sbuf_detach(&b, NULL);
	sbuf_free(&b);
	free(path);
	return key;
}

/* The key that signs upload certificates; NULL (logged) if it cannot be read. */
static EVP_PKEY *load_upload_key(const struct project_config *cfg)
{
	char *path = xasprintf("%s/upload_private", cfg->key_dir);
	EVP_PKEY *k = NULL;

	if (crypt_load_private(path, &k) < 0)
		k = NULL;
	free(path);
	return k;
}

/* Read the body: CONTENT_LENGTH bytes when given, else to EOF; at most max. */
static int read_body(long max, struct sbuf *body, bool *too_large)
{
	const char *cl = getenv("CONTENT_LENGTH");
	long want = -1;
	char buf[65536];

	*too_large = false;
	if (cl && *cl && parse_long(cl, &want) < 0)
		return log_error("bad CONTENT_LENGTH '%s'", cl);
	if (want > max) {
		/* Read it all the same: a reply sent over an unread body may never arrive. */
		*too_large = true;
		while (want > 0) {
			ssize_t got = read(0, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			want -= got;
		}
		return 0;
	}
	while (want < 0 || (long)body->len < want) {
		size_t n = sizeof(buf);
		ssize_t got;

		if (want >= 0 && (size_t)(want - (long)body->len) < n)
			n = (size_t)(want - (long)body->len);
		got = read(0, buf, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;  /* a short body is the parser's problem: it will not parse */
		if (sbuf_add(body, buf, (size_t)got) < 0) {
			*too_large = true;
			return 0;
		}
	}
	return 0;
}

int main(void)
{
	struct project_config cfg;
	struct sched_settings set = { 0 };
	struct sched_ctx ctx = { 0 };
	struct sbuf reply = SBUF_INIT(128 << 20);
	struct sbuf body;
	struct db_params dp;
	struct db *db = NULL;
	char *key = NULL, *logpath;
	bool too_large;

	log_init("scheduler", NULL);
	if (config_load(&cfg, NULL, sched_params, &set) < 0) {
		/* No project to speak for: the client backs off on an unreadable reply. */
		fputs("Content-Type: text/plain\r\n\r\nscheduler: configuration error\n", stdout);
		config_free(&cfg);
		param_free(sched_params, &set);
		return 0;
	}
	logpath = xasprintf("%s/scheduler.log", cfg.log_dir);
	log_init("scheduler", logpath);
	free(logpath);
	key = read_key(&cfg);
	ctx.upload_key = load_upload_key(&cfg);
	ctx.cfg = &cfg;
	ctx.set = &set;
	ctx.code_sign_key = key;
	ctx.remote_addr = getenv("REMOTE_ADDR");
	sbuf_init(&body, (size_t)set.max_request_bytes);
	if (read_body(set.max_request_bytes, &body, &too_large) < 0 || too_large) {
		log_warn("[%s]: request larger than %ld bytes refused", ctx.remote_addr ? ctx.remote_addr : "?",
			 set.max_request_bytes);
		sched_reply_refused(&ctx, "The scheduler request is too large.", &reply);
	} else {
		db_params_from_config(&dp, &cfg);
		if (db_open(&db, &dp, 0) != DB_OK)
			db = NULL;
		ctx.db = db;
		sched_handle(&ctx, body.buf ? body.buf : "", body.len, &reply);
	}
	emit(&reply);
	if (db)
		db_close(db);
	sbuf_free(&body);
	sbuf_free(&reply);
	free(key);
	EVP_PKEY_free(ctx.upload_key);
	config_free(&cfg);
	param_free(sched_params, &set);
	log_close();
	return 0;
}
