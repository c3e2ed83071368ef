/*
 * The file upload handler as a library function: request bytes in, reply
 * bytes out. It speaks BOINC's data server protocol (get_file_size and
 * file_upload, see doc/file_upload_handler.md) against the upload hierarchy
 * and needs no database. The CGI program (file_upload_handler.c) is a few
 * lines around it; tests and a FastCGI front end call it directly.
 */
#ifndef WSEQ_UPLOAD_H
#define WSEQ_UPLOAD_H

#include "common.h"
#include "crypt_rsa.h"
#include "sbuf.h"

/* Request text before the file data when the context does not say. */
#define UPLOAD_HEADER_MAX_DEFAULT (16 * 1024)
/* A reply buffer of this maximum always holds any reply. */
#define UPLOAD_REPLY_MAX 2048

/* The <status> of a reply, as the BOINC client reads it. */
enum upload_status {
	UPLOAD_OK = 0,
	UPLOAD_PERMANENT = -1,  /* the client marks the file failed */
	UPLOAD_TRANSIENT = 1,   /* the client retries later */
};

/*
 * May NAME be uploaded now? UPLOAD_OK, or a refusal with why filled
 * (UPLOAD_PERMANENT: never; UPLOAD_TRANSIENT: not now, e.g. no database).
 */
typedef enum upload_status (*upload_check_fn)(void *arg, const char *name, struct sbuf *why);

struct upload_ctx {
	const char *upload_dir;   /* root of the upload hierarchy */
	long fanout;              /* uldl_dir_fanout; 0 means no hierarchy */
	size_t max_header;        /* request text up to the data; 0: UPLOAD_HEADER_MAX_DEFAULT */
	const char *remote_addr;  /* the client's address for the log; NULL: "unknown" */
	/*
	 * Upload certificates: an upload is taken only with an <xml_signature>
	 * that cert_key (the project's upload_public) verifies over its name
	 * and max_nbytes -- unless ignore_certificates (tests only; every
	 * upload then logs a warning). No cert_key: uploads wait (transient).
	 */
	EVP_PKEY *cert_key;
	bool ignore_certificates;
	/* Checked after the certificate, before a byte is written (NULL: none). */
	upload_check_fn check;
	void *check_arg;
};

/*
 * Handle one request read from in_fd: content_length body bytes, or up to
 * end of file when it is negative. File data is streamed to disk, never held
 * whole in memory. The reply body (without HTTP headers) replaces the
 * contents of reply, which should allow UPLOAD_REPLY_MAX bytes. When
 * content_length is known the whole body is consumed, even after an error,
 * so the client gets to read the reply. Returns the reply's status.
 */
enum upload_status upload_handle(const struct upload_ctx *ctx, int in_fd,
				 long long content_length, struct sbuf *reply);
/* The same with the body read through rd (a FastCGI stream: serve/serve.h's serve_read). */
enum upload_status upload_handle_from(const struct upload_ctx *ctx,
				      long (*rd)(void *arg, char *buf, size_t n), void *arg,
				      long long content_length, struct sbuf *reply);

/*
 * The project's check (upload_owner.c), with a struct db * as arg: NAME is
 * an uploaded output of a result in progress (no database: transient).
 */
enum upload_status upload_check_in_progress(void *db, const char *name, struct sbuf *why);

/* Put a reply with status and (unless NULL) message into reply, for front ends. */
void upload_reply(struct sbuf *reply, enum upload_status status, const char *message);

#endif
