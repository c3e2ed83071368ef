/*
 * file_upload_handler: the CGI front end of upload_handle() (upload.h). It
 * runs in the project's cgi-bin/, finds ../config.xml, logs to
 * <log_dir>/file_upload_handler.log and always answers 200 text/plain with
 * a <data_server_reply>, as the BOINC client expects.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "log.h"
#include "upload.h"

static const char usage[] =
	"usage: file_upload_handler\n"
	"BOINC's file upload handler, run by the web server as a CGI program: a POST\n"
	"request on standard input, the reply on standard output. It reads the\n"
	"project's config.xml (WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"An upload is taken only with a valid upload certificate (keys/upload_public)\n"
	"and only for an output of a result in progress (the project's database).\n";

static long long cgi_content_length(void)
{
	long n;

	if (parse_long(getenv("CONTENT_LENGTH"), &n) < 0 || n < 0)
		return -1;
	return n;
}

/* The public upload key that checks certificates; NULL (logged) if unreadable. */
static EVP_PKEY *load_cert_key(const struct project_config *cfg)
{
	char *path = xasprintf("%s/upload_public", cfg->key_dir);
	EVP_PKEY *k = NULL;

	if (crypt_load_public(path, &k) < 0) {
		log_error("cannot read %s: uploads wait until it can be read", path);
		k = NULL;
	}
	free(path);
	return k;
}

static void handle(const struct project_config *cfg, const char *method, const char *addr,
		   struct sbuf *reply)
{
	struct upload_ctx ctx = {
		.upload_dir = cfg->upload_dir,
		.fanout = cfg->uldl_dir_fanout,
		.remote_addr = addr,
		.ignore_certificates = cfg->ignore_upload_certificates,
		.check = upload_check_in_progress,
	};
	struct db_params dp;
	struct db *db = NULL;

	if (!method || strcmp(method, "POST") != 0) {
		log_warn("client %s: %s request refused", addr ? addr : "unknown",
			 method ? method : "non-HTTP");
		upload_reply(reply, UPLOAD_PERMANENT,
			     "this is a BOINC file upload handler; it accepts only POST requests");
		return;
	}
	if (!cfg->ignore_upload_certificates)
		ctx.cert_key = load_cert_key(cfg);
	db_params_from_config(&dp, cfg);
	if (db_open(&db, &dp, 0) != DB_OK)
		db = NULL;      /* the check answers "try later" */
	ctx.check_arg = db;
	upload_handle(&ctx, STDIN_FILENO, cgi_content_length(), reply);
	if (db)
		db_close(db);
	EVP_PKEY_free(ctx.cert_key);
}

int main(int argc, char **argv)
{
	struct project_config cfg;
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);

	if (argc > 1) {
		fputs(usage, strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? stderr : stdout);
		return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	log_init("file_upload_handler", NULL);
	if (config_load(&cfg, NULL, NULL, NULL) < 0) {
		log_error("cannot read the project's config.xml; refusing uploads for now");
		upload_reply(&reply, UPLOAD_TRANSIENT, "server configuration unreadable, try later");
	} else {
		char *logpath = xasprintf("%s/file_upload_handler.log", cfg.log_dir);

		log_init("file_upload_handler", logpath);
		free(logpath);
		handle(&cfg, getenv("REQUEST_METHOD"), getenv("REMOTE_ADDR"), &reply);
	}
	printf("Content-type: text/plain\n\n%s", sbuf_str(&reply));
	fflush(stdout);
	sbuf_free(&reply);
	config_free(&cfg);
	log_close();
	return 0;
}
