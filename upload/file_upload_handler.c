/*
 * file_upload_handler: the front end of upload_handle_from() (upload.h). It
 * runs in the project's cgi-bin/, finds ../config.xml, logs to
 * <log_dir>/file_upload_handler.log and always answers 200 text/plain with
 * a <data_server_reply>, as the BOINC client expects. It runs as a CGI
 * program or as a FastCGI server (serve/serve.h; a process then keeps
 * config.xml, the certificate key and the database connection).
 * make_project's Apache configuration runs it as CGI even where mod_fcgid
 * is loaded: mod_fcgid reads a whole body before the program sees it, so
 * a broken large upload could not resume where it stopped.
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "fileutil.h"
#include "log.h"
#include "serve.h"
#include "upload.h"

static const char usage[] =
	"usage: file_upload_handler\n"
	"BOINC's file upload handler, run by the web server as a CGI program (one\n"
	"request a process) or as a FastCGI program (many): a POST request's body\n"
	"in, a <data_server_reply> out. It reads the project's config.xml\n"
	"(WSEQ_PROJECT_DIR, ./config.xml or ../config.xml).\n"
	"An upload is taken only with a valid upload certificate (keys/upload_public)\n"
	"and only for an output of a result in progress (the project's database).\n";

struct upload_server {
	struct serve_project proj;
	unsigned key_generation;        /* of proj when the key was read */
	struct stat key_st;
	EVP_PKEY *cert_key;             /* keys/upload_public */
};

static long long content_length(struct serve_req *r)
{
	long n;

	if (parse_long(serve_env(r, "CONTENT_LENGTH"), &n) < 0 || n < 0)
		return -1;
	return n;
}

/* The public upload key that checks certificates: read again when its file changes. */
static EVP_PKEY *cert_key(struct upload_server *s)
{
	char *path = xasprintf("%s/upload_public", s->proj.cfg.key_dir);

	if (file_changed(path, &s->key_st) || s->key_generation != s->proj.generation ||
	    !s->cert_key) {
		EVP_PKEY_free(s->cert_key);
		if (crypt_load_public(path, &s->cert_key) < 0) {
			log_error("cannot read %s: uploads wait until it can be read", path);
			s->cert_key = NULL;
		}
		s->key_generation = s->proj.generation;
	}
	free(path);
	return s->cert_key;
}

static void handle(void *state, struct serve_req *io)
{
	struct upload_server *s = state;
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	const char *method = serve_env(io, "REQUEST_METHOD");
	const char *addr = serve_env(io, "REMOTE_ADDR");

	if (serve_project_get(&s->proj) < 0) {
		log_error("cannot read the project's config.xml; refusing uploads for now");
		upload_reply(&reply, UPLOAD_TRANSIENT, "server configuration unreadable, try later");
	} else if (!method || strcmp(method, "POST") != 0) {
		log_warn("client %s: %s request refused", addr ? addr : "unknown",
			 method ? method : "non-HTTP");
		upload_reply(&reply, UPLOAD_PERMANENT,
			     "this is a BOINC file upload handler; it accepts only POST requests");
	} else {
		const struct project_config *cfg = &s->proj.cfg;
		struct upload_ctx ctx = {
			.upload_dir = cfg->upload_dir,
			.fanout = cfg->uldl_dir_fanout,
			.remote_addr = addr,
			.ignore_certificates = cfg->ignore_upload_certificates,
			.check = upload_check_in_progress,
			.cert_key = cfg->ignore_upload_certificates ? NULL : cert_key(s),
			/* no database: the check answers "try later" */
			.check_arg = serve_project_db(&s->proj),
		};

		upload_handle_from(&ctx, serve_read, io, content_length(io), &reply);
	}
	fprintf(serve_out(io), "Content-type: text/plain\n\n%s", sbuf_str(&reply));
	sbuf_release(&reply);
}

static void upload_fini(void *state)
{
	struct upload_server *s = state;

	EVP_PKEY_free(s->cert_key);
}

static struct upload_server server = { .proj = { .prog = "file_upload_handler" } };
static const struct serve_spec spec = { usage, handle, &server, &server.proj, upload_fini };

int main(int argc, char **argv)
{
	return serve_program(&spec, argc, argv);
}
