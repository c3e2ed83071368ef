/*
 * The file upload handler (BOINC's data server protocol), as a function from
 * a request stream to a reply; see upload.h and doc/file_upload_handler.md.
 *
 * An upload of NAME is written to ".NAME.part" beside where NAME belongs in
 * the upload hierarchy, under an exclusive flock, and linked to NAME only
 * when all bytes are there and the MD5 matches. A cut connection leaves the
 * partial file: get_file_size reports its size and the client resumes at
 * that offset. Names accepted by dirhier_name_ok never start with '.', so no
 * request can name a partial file itself. link() never replaces an existing
 * file, which keeps completed outputs immutable.
 */
#include "common.h"
#include "upload.h"
#include "dirhier.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "xml_write.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#define UPLOAD_BLOCK (256 * 1024)
#define UPLOAD_CHUNK 4096
#define UPLOAD_MESSAGE_MAX 300
#define UPLOAD_QUOTE_MAX 64

enum upload_field {
	F_MAJOR, F_MINOR, F_RELEASE, F_GET_FILE_SIZE,
	F_NAME, F_MAX_NBYTES, F_NBYTES, F_MD5, F_OFFSET, F_SIGNATURE,
	F_COUNT
};

/* Elements whose text the handler reads; everything else is skipped. */
static const char *const upload_leaves[F_COUNT] = {
	[F_MAJOR] = "core_client_major_version",
	[F_MINOR] = "core_client_minor_version",
	[F_RELEASE] = "core_client_release",
	[F_GET_FILE_SIZE] = "get_file_size",
	[F_NAME] = "name",
	[F_MAX_NBYTES] = "max_nbytes",
	[F_NBYTES] = "nbytes",
	[F_MD5] = "md5_cksum",
	[F_OFFSET] = "offset",
	[F_SIGNATURE] = "xml_signature",
};

struct upload_req {
	const struct upload_ctx *ctx;
	const char *addr;
	long (*rd)(void *arg, char *buf, size_t n);     /* the body */
	void *rd_arg;
	long long left;          /* body bytes not read yet; -1: read to end of file */
	struct sbuf head;        /* the request text, then the first data bytes */
	size_t head_len;         /* bytes of request text, before <data> */
	size_t data_at;          /* offset in head of the first data byte; 0: no <data> */
	struct sbuf *reply;
	char *fields[F_COUNT];   /* element texts, trimmed; NULL when absent */
	bool file_upload;        /* <file_upload> seen */
	struct sbuf qname;       /* the file name, quoted for messages */
};

void upload_reply(struct sbuf *reply, enum upload_status status, const char *message)
{
	sbuf_reset(reply);
	sbuf_addf(reply, "<data_server_reply>\n    <status>%d</status>\n", (int)status);
	if (message)
		xml_elem_str(reply, 4, "message", message);
	sbuf_addstr(reply, "</data_server_reply>\n");
}

/* Reply with an error, log it with the client's address, and return status. */
static enum upload_status PRINTF_LIKE(3, 4)
req_fail(struct upload_req *r, enum upload_status status, const char *fmt, ...)
{
	struct sbuf m = SBUF_INIT(4096);
	const char *kind = status == UPLOAD_PERMANENT ? "permanent" : "transient";
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&m, fmt, ap);
	va_end(ap);
	sbuf_truncate(&m, UPLOAD_MESSAGE_MAX);
	upload_reply(r->reply, status, sbuf_str(&m));
	if (status == UPLOAD_PERMANENT)
		log_error("client %s: %s (%s error)", r->addr, sbuf_str(&m), kind);
	else
		log_warn("client %s: %s (%s error)", r->addr, sbuf_str(&m), kind);
	sbuf_release(&m);
	return status;
}

/* read() at most n bytes of the body; 0 at its end. */
static ssize_t req_read(struct upload_req *r, void *buf, size_t n)
{
	ssize_t got;

	if (r->left == 0)
		return 0;
	if (r->left > 0 && (long long)n > r->left)
		n = (size_t)r->left;
	got = r->rd(r->rd_arg, buf, n);
	if (got > 0 && r->left > 0)
		r->left -= got;
	else if (got == 0)
		r->left = 0;    /* the body ended early: nothing more to wait for */
	return got;
}

/* Consume what is left of a body of known length, so the client reads the reply. */
static void req_drain(struct upload_req *r)
{
	char *buf;

	if (r->left <= 0)
		return;
	buf = xmalloc(UPLOAD_BLOCK);
	while (req_read(r, buf, UPLOAD_BLOCK) > 0)
		;
	free(buf);
}

/*
 * Read the request text: up to and including the line of <data>, or the
 * whole body when there is no <data>. Bytes after <data>'s line that came
 * in the same read stay in r->head from r->data_at on.
 */
static enum upload_status req_read_header(struct upload_req *r)
{
	size_t max = r->ctx->max_header ? r->ctx->max_header : UPLOAD_HEADER_MAX_DEFAULT;
	char chunk[UPLOAD_CHUNK];

	sbuf_init(&r->head, max + sizeof(chunk));
	for (;;) {
		const char *d = r->head.len ? memmem(r->head.buf, r->head.len, "<data>", 6) : NULL;
		ssize_t got;

		if (d) {
			size_t after = (size_t)(d - r->head.buf) + 6;
			const char *nl = memchr(r->head.buf + after, '\n', r->head.len - after);

			if (nl) {
				r->head_len = (size_t)(d - r->head.buf);
				r->data_at = (size_t)(nl - r->head.buf) + 1;
				break;
			}
		}
		if (r->head.len >= max)
			return req_fail(r, UPLOAD_PERMANENT, "request header larger than %zu bytes", max);
		got = req_read(r, chunk, sizeof(chunk));
		if (got < 0)
			return req_fail(r, UPLOAD_TRANSIENT, "cannot read the request: %s", strerror(errno));
		if (got == 0) {
			r->head_len = r->head.len;
			break;
		}
		sbuf_add(&r->head, chunk, (size_t)got);
	}
	if (r->data_at > max)
		return req_fail(r, UPLOAD_PERMANENT, "request header larger than %zu bytes", max);
	return UPLOAD_OK;
}

static int upload_leaf(const char *tag, size_t n)
{
	for (int i = 0; i < F_COUNT; i++)
		if (strlen(upload_leaves[i]) == n && strncmp(upload_leaves[i], tag, n) == 0)
			return i;
	return -1;
}

static bool upload_tag_is(const char *tag, size_t n, const char *name)
{
	return strlen(name) == n && strncmp(tag, name, n) == 0;
}

/*
 * Pick the known elements out of the request text. The client writes one
 * element a line, does not escape names and ends an upload's text with an
 * unclosed <data>, so this is a small tag scanner rather than an XML parser:
 * the first element must be <data_server_request>, known elements must be
 * closed, hold no markup and come once; anything else is skipped.
 */
static enum upload_status req_parse(struct upload_req *r)
{
	char *text;
	const char *p, *lt;
	bool first = true;
	enum upload_status st = UPLOAD_OK;

	if (r->head_len && memchr(r->head.buf, '\0', r->head_len))
		return req_fail(r, UPLOAD_PERMANENT, "NUL byte in the request header");
	text = xstrndup(r->head.len ? r->head.buf : "", r->head_len);
	p = text;
	while (st == UPLOAD_OK && (lt = strchr(p, '<'))) {
		const char *gt = strchr(lt, '>'), *tag = lt + 1, *end;
		size_t n = strcspn(tag, " \t\r\n/>");
		char *close;
		int f;

		if (!gt) {
			st = req_fail(r, UPLOAD_PERMANENT, "malformed request: unterminated tag");
			break;
		}
		p = gt + 1;
		if (*tag == '?' || *tag == '!' || *tag == '/')
			continue;
		if (first) {
			first = false;
			if (!upload_tag_is(tag, n, "data_server_request"))
				st = req_fail(r, UPLOAD_PERMANENT, "not a data_server_request");
			continue;
		}
		if (gt[-1] == '/')
			continue;       /* an empty element such as <generated_locally/> */
		if (upload_tag_is(tag, n, "file_upload")) {
			r->file_upload = true;
			continue;
		}
		if ((f = upload_leaf(tag, n)) < 0)
			continue;
		close = xasprintf("</%s>", upload_leaves[f]);
		end = strstr(p, close);
		if (!end) {
			st = req_fail(r, UPLOAD_PERMANENT, "malformed request: %s not closed", upload_leaves[f]);
		} else if (memchr(p, '<', (size_t)(end - p))) {
			st = req_fail(r, UPLOAD_PERMANENT, "malformed request: markup inside %s", upload_leaves[f]);
		} else if (r->fields[f]) {
			st = req_fail(r, UPLOAD_PERMANENT, "malformed request: %s given twice", upload_leaves[f]);
		} else {
			const char *a = p, *b = end;

			while (a < b && strchr(" \t\r\n", *a))
				a++;
			while (b > a && strchr(" \t\r\n", b[-1]))
				b--;
			r->fields[f] = xstrndup(a, (size_t)(b - a));
			p = end + strlen(close);
		}
		free(close);
	}
	if (st == UPLOAD_OK && first)
		st = req_fail(r, UPLOAD_PERMANENT, "not a data_server_request");
	free(text);
	return st;
}

/* A non-negative number field into *out; absent leaves *out alone. */
static enum upload_status req_number(struct upload_req *r, enum upload_field f, long *out)
{
	struct sbuf why = SBUF_INIT(512);
	enum upload_status st = UPLOAD_OK;

	if (r->fields[f] &&
	    field_long(upload_leaves[f], r->fields[f], 0, LONG_MAX, 0, out, &why) == FIELD_BAD)
		st = req_fail(r, UPLOAD_PERMANENT, "%s", sbuf_str(&why));
	sbuf_release(&why);
	return st;
}

/* Check the name and make NAME's path and its partial file's path. */
static enum upload_status req_paths(struct upload_req *r, const char *name, bool create_dir,
				    struct sbuf *final, struct sbuf *part)
{
	const char *f, *slash;

	if (!r->qname.len)
		field_quote(&r->qname, name, UPLOAD_QUOTE_MAX);
	if (!dirhier_name_ok(name))
		return req_fail(r, UPLOAD_PERMANENT, "file name '%s' is not allowed", sbuf_str(&r->qname));
	if (dirhier_path(name, r->ctx->upload_dir, r->ctx->fanout, create_dir, final) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "no place for '%s' in the upload directory",
				sbuf_str(&r->qname));
	f = sbuf_str(final);
	slash = strrchr(f, '/');
	if (sbuf_add(part, f, (size_t)(slash + 1 - f)) < 0 || sbuf_addf(part, ".%s.part", name) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "path for '%s' too long", sbuf_str(&r->qname));
	return UPLOAD_OK;
}

static enum upload_status req_get_file_size(struct upload_req *r)
{
	struct sbuf final = SBUF_INIT(PATH_MAX), part = SBUF_INIT(PATH_MAX);
	enum upload_status st;
	struct stat sb;
	long long size = 0;
	int fd;

	st = req_paths(r, r->fields[F_GET_FILE_SIZE], false, &final, &part);
	if (st != UPLOAD_OK)
		goto out;
	if (stat(sbuf_str(&final), &sb) == 0) {
		size = (long long)sb.st_size;
	} else if (errno != ENOENT) {
		st = req_fail(r, UPLOAD_TRANSIENT, "cannot stat '%s': %s", sbuf_str(&r->qname), strerror(errno));
	} else if ((fd = open(sbuf_str(&part), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (flock(fd, LOCK_SH | LOCK_NB) < 0)
			st = req_fail(r, UPLOAD_TRANSIENT, "'%s' is being uploaded right now", sbuf_str(&r->qname));
		else if (fstat(fd, &sb) == 0)
			size = (long long)sb.st_size;
		close(fd);
	} else if (errno != ENOENT) {
		st = req_fail(r, UPLOAD_TRANSIENT, "cannot open the partial file of '%s': %s",
			      sbuf_str(&r->qname), strerror(errno));
	} else if (stat(sbuf_str(&final), &sb) == 0) {
		size = (long long)sb.st_size;   /* completed between the two looks */
	}
	if (st == UPLOAD_OK) {
		sbuf_reset(r->reply);
		sbuf_addf(r->reply, "<data_server_reply>\n    <status>0</status>\n"
			  "    <file_size>%lld</file_size>\n</data_server_reply>\n", size);
		log_info("client %s: get_file_size '%s': %lld", r->addr, sbuf_str(&r->qname), size);
	}
out:
	sbuf_release(&final);
	sbuf_release(&part);
	return st;
}

/*
 * NAME is complete on the server already: the same upload again (the client
 * lost our reply) succeeds; different content never replaces it.
 */
static enum upload_status upload_existing(struct upload_req *r, const char *path, long nbytes,
					  const char *md5)
{
	char have[MD5_HEX_LEN + 1];
	struct stat sb;

	if (stat(path, &sb) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "cannot stat '%s': %s", sbuf_str(&r->qname), strerror(errno));
	if ((long long)sb.st_size != (long long)nbytes)
		return req_fail(r, UPLOAD_PERMANENT, "'%s' exists on the server with %lld bytes, not %ld",
				sbuf_str(&r->qname), (long long)sb.st_size, nbytes);
	if (*md5) {
		if (md5_file(path, have, NULL) < 0)
			return req_fail(r, UPLOAD_TRANSIENT, "cannot read '%s'", sbuf_str(&r->qname));
		if (strcmp(have, md5) != 0)
			return req_fail(r, UPLOAD_PERMANENT, "'%s' exists on the server with different content",
					sbuf_str(&r->qname));
	}
	log_info("client %s: '%s' already uploaded (%ld bytes)", r->addr, sbuf_str(&r->qname), nbytes);
	upload_reply(r->reply, UPLOAD_OK, NULL);
	return UPLOAD_OK;
}

/*
 * Open and lock the partial file. A lock won on a file that another request
 * just completed (linked and unlinked) is on the wrong inode: look again.
 */
static enum upload_status upload_open_part(struct upload_req *r, const char *part, int *fdp,
					   struct stat *sb)
{
	for (int tries = 0; tries < 5; tries++) {
		struct stat cur;
		int fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

		if (fd < 0)
			return req_fail(r, UPLOAD_TRANSIENT, "cannot open the partial file of '%s': %s",
					sbuf_str(&r->qname), strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;

			close(fd);
			if (e == EWOULDBLOCK)
				return req_fail(r, UPLOAD_TRANSIENT, "'%s' is being uploaded by another request",
						sbuf_str(&r->qname));
			return req_fail(r, UPLOAD_TRANSIENT, "cannot lock '%s': %s", sbuf_str(&r->qname),
					strerror(e));
		}
		if (fstat(fd, sb) == 0 && stat(part, &cur) == 0 &&
		    cur.st_dev == sb->st_dev && cur.st_ino == sb->st_ino) {
			*fdp = fd;
			return UPLOAD_OK;
		}
		close(fd);
	}
	return req_fail(r, UPLOAD_TRANSIENT, "'%s' is busy", sbuf_str(&r->qname));
}

/* Copy need data bytes from the request to fd; *got counts those written. */
static enum upload_status upload_copy(struct upload_req *r, int fd, long need, long *got)
{
	size_t inhead = r->head.len - r->data_at;
	size_t take = inhead < (size_t)need ? inhead : (size_t)need;
	enum upload_status st = UPLOAD_OK;
	char *buf = NULL;
	char extra;

	*got = 0;
	if (take && write_all(fd, r->head.buf + r->data_at, take) < 0)
		goto write_error;
	*got = (long)take;
	if (inhead > take)
		return UPLOAD_PERMANENT;        /* more data than promised; the caller says so */
	buf = xmalloc(UPLOAD_BLOCK);
	while (*got < need) {
		long want = need - *got;
		ssize_t n = req_read(r, buf, want < UPLOAD_BLOCK ? (size_t)want : UPLOAD_BLOCK);

		if (n < 0) {
			st = req_fail(r, UPLOAD_TRANSIENT, "cannot read the data of '%s': %s",
				      sbuf_str(&r->qname), strerror(errno));
			goto out;
		}
		if (n == 0)
			goto out;       /* cut short; the caller sees *got < need */
		if (write_all(fd, buf, (size_t)n) < 0)
			goto write_error;
		*got += (long)n;
	}
	if (r->left < 0 && req_read(r, &extra, 1) > 0)
		st = UPLOAD_PERMANENT;
	goto out;
write_error:
	st = req_fail(r, UPLOAD_TRANSIENT, "cannot write '%s': %s", sbuf_str(&r->qname),
		      errno == ENOSPC ? "server disk full" : strerror(errno));
out:
	free(buf);
	return st;
}

/* An MD5 as the client sends it, lowercased into out; "" when absent or empty. */
static enum upload_status req_md5(struct upload_req *r, char out[MD5_HEX_LEN + 1])
{
	const char *s = r->fields[F_MD5];
	size_t i;

	out[0] = '\0';
	if (!s || !*s)
		return UPLOAD_OK;
	for (i = 0; s[i] && i < MD5_HEX_LEN; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			break;
		out[i] = c;
	}
	out[i] = '\0';
	if (i != MD5_HEX_LEN || s[i]) {
		out[0] = '\0';
		return req_fail(r, UPLOAD_PERMANENT, "md5_cksum is not 32 hex digits");
	}
	return UPLOAD_OK;
}

/*
 * Before a byte is accepted: the upload certificate (the server gave out
 * this name with this max_nbytes), then the context's own check (the
 * output belongs to a result in progress).
 */
static enum upload_status req_authorize(struct upload_req *r, long max_nbytes)
{
	const struct upload_ctx *c = r->ctx;
	const char *name = r->fields[F_NAME], *sig = r->fields[F_SIGNATURE];
	struct sbuf why = SBUF_INIT(UPLOAD_MESSAGE_MAX);
	enum upload_status st = UPLOAD_OK;
	int v;

	if (c->ignore_certificates) {
		log_warn("client %s: '%s' taken without checking its upload certificate: "
			 "ignore_upload_certificates is set (for tests only)", r->addr, sbuf_str(&r->qname));
	} else if (!sig || !*sig) {
		st = req_fail(r, UPLOAD_PERMANENT, "'%s' has no upload certificate (xml_signature)",
			      sbuf_str(&r->qname));
	} else if (!c->cert_key) {
		st = req_fail(r, UPLOAD_TRANSIENT, "the server cannot check upload certificates now");
	} else if ((v = crypt_upload_cert_check(c->cert_key, name, (double)max_nbytes, sig)) != 0) {
		st = req_fail(r, v > 0 ? UPLOAD_PERMANENT : UPLOAD_TRANSIENT,
			      v > 0 ? "invalid upload certificate for '%s' with max_nbytes %ld"
				    : "cannot check the upload certificate of '%s' (max_nbytes %ld)",
			      sbuf_str(&r->qname), max_nbytes);
	}
	if (st == UPLOAD_OK && c->check && (st = c->check(c->check_arg, name, &why)) != UPLOAD_OK)
		st = req_fail(r, st, "%s", why.len ? sbuf_str(&why) : "upload refused");
	sbuf_release(&why);
	return st;
}

/* What a file_upload request promises, and where its bytes go. */
struct upload_file {
	long nbytes, max_nbytes, offset;
	char md5[MD5_HEX_LEN + 1];
	const char *final, *part;
	int fd;
};

/* Read and check the name, sizes and MD5 the request states. */
static enum upload_status req_upload_fields(struct upload_req *r, struct upload_file *u)
{
	enum upload_status st;
	long long sent;

	if (!r->fields[F_NAME])
		return req_fail(r, UPLOAD_PERMANENT, "no name in the upload request");
	field_quote(&r->qname, r->fields[F_NAME], UPLOAD_QUOTE_MAX);
	if (!dirhier_name_ok(r->fields[F_NAME]))
		return req_fail(r, UPLOAD_PERMANENT, "file name '%s' is not allowed", sbuf_str(&r->qname));
	if ((st = req_number(r, F_NBYTES, &u->nbytes)) != UPLOAD_OK ||
	    (st = req_number(r, F_MAX_NBYTES, &u->max_nbytes)) != UPLOAD_OK ||
	    (st = req_number(r, F_OFFSET, &u->offset)) != UPLOAD_OK ||
	    (st = req_md5(r, u->md5)) != UPLOAD_OK)
		return st;
	if (u->nbytes < 0)
		return req_fail(r, UPLOAD_PERMANENT, "no nbytes in the upload request");
	if (u->max_nbytes < 0)
		return req_fail(r, UPLOAD_PERMANENT, "no max_nbytes in the upload request");
	if (u->nbytes > u->max_nbytes)
		return req_fail(r, UPLOAD_PERMANENT, "'%s' has %ld bytes, more than its max_nbytes %ld",
				sbuf_str(&r->qname), u->nbytes, u->max_nbytes);
	if (u->offset > u->nbytes)
		return req_fail(r, UPLOAD_PERMANENT, "offset %ld is beyond the end of '%s' (%ld bytes)",
				u->offset, sbuf_str(&r->qname), u->nbytes);
	if (!r->data_at)
		return req_fail(r, UPLOAD_PERMANENT, "malformed request: no data in the upload request");
	sent = (long long)(r->head.len - r->data_at) + r->left;
	if (r->left >= 0 && sent > u->nbytes - u->offset)
		return req_fail(r, UPLOAD_PERMANENT, "the request carries %lld bytes of data for '%s', "
				"more than the %ld promised", sent, sbuf_str(&r->qname),
				u->nbytes - u->offset);
	return UPLOAD_OK;
}

/* Make the locked partial file hold exactly the bytes before the offset. */
static enum upload_status upload_seek_part(struct upload_req *r, struct upload_file *u,
					   const struct stat *sb)
{
	if ((long long)sb->st_size != (long long)u->offset) {
		if (u->offset != 0) {
			if (sb->st_size == 0)
				unlink(u->part);        /* just made by the open: no trace */
			return req_fail(r, UPLOAD_TRANSIENT, "the server has %lld bytes of '%s', not %ld; "
					"ask get_file_size again", (long long)sb->st_size,
					sbuf_str(&r->qname), u->offset);
		}
		if (ftruncate(u->fd, 0) < 0)
			return req_fail(r, UPLOAD_TRANSIENT, "cannot restart '%s': %s",
					sbuf_str(&r->qname), strerror(errno));
	}
	if (lseek(u->fd, u->offset, SEEK_SET) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "cannot seek in '%s': %s", sbuf_str(&r->qname),
				strerror(errno));
	return UPLOAD_OK;
}

/* Copy the request's data into the partial file and sync it. */
static enum upload_status upload_receive(struct upload_req *r, struct upload_file *u)
{
	long need = u->nbytes - u->offset, got = 0;
	enum upload_status st;

	st = upload_copy(r, u->fd, need, &got);
	if (st == UPLOAD_PERMANENT) {
		unlink(u->part);
		return req_fail(r, UPLOAD_PERMANENT, "more data than the %ld bytes promised for '%s'",
				need, sbuf_str(&r->qname));
	}
	if (st != UPLOAD_OK)
		return st;
	if (got < need)
		return req_fail(r, UPLOAD_TRANSIENT, "upload of '%s' cut short: %ld of %ld bytes; "
				"%ld kept for resuming", sbuf_str(&r->qname), got, need, u->offset + got);
	if (fsync(u->fd) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "cannot sync '%s': %s", sbuf_str(&r->qname),
				strerror(errno));
	return UPLOAD_OK;
}

static enum upload_status upload_check_md5(struct upload_req *r, struct upload_file *u)
{
	char have[MD5_HEX_LEN + 1];

	if (!*u->md5)
		return UPLOAD_OK;
	if (md5_file(u->part, have, NULL) < 0)
		return req_fail(r, UPLOAD_TRANSIENT, "cannot read back '%s'", sbuf_str(&r->qname));
	if (strcmp(have, u->md5) == 0)
		return UPLOAD_OK;
	/*
	 * Sent whole in this request: the client's file is not what it says,
	 * and sending it again would not help. Resumed: the kept part may be
	 * what is wrong, so start over.
	 */
	unlink(u->part);
	return req_fail(r, u->offset == 0 ? UPLOAD_PERMANENT : UPLOAD_TRANSIENT,
			"MD5 of '%s' is %s, not %s%s", sbuf_str(&r->qname), have, u->md5,
			u->offset == 0 ? "" : "; partial file discarded, upload again from the start");
}

/* Link the complete partial file to its name; link() never replaces a file. */
static enum upload_status upload_complete(struct upload_req *r, struct upload_file *u)
{
	if (link(u->part, u->final) < 0) {
		if (errno != EEXIST)
			return req_fail(r, UPLOAD_TRANSIENT, "cannot complete '%s': %s",
					sbuf_str(&r->qname), strerror(errno));
		unlink(u->part);
		return upload_existing(r, u->final, u->nbytes, u->md5);
	}
	unlink(u->part);
	log_info("client %s: received '%s' (%ld bytes)", r->addr, sbuf_str(&r->qname), u->nbytes);
	upload_reply(r->reply, UPLOAD_OK, NULL);
	return UPLOAD_OK;
}

/* Write the data into the partial file under its lock, check it, complete it. */
static enum upload_status upload_write(struct upload_req *r, struct upload_file *u)
{
	enum upload_status st;
	struct stat sb;

	if (access(u->final, F_OK) == 0)
		return upload_existing(r, u->final, u->nbytes, u->md5);
	if ((st = upload_open_part(r, u->part, &u->fd, &sb)) != UPLOAD_OK)
		return st;
	if (access(u->final, F_OK) == 0) {
		unlink(u->part);        /* ours, locked: left by a request that completed */
		return upload_existing(r, u->final, u->nbytes, u->md5);
	}
	if ((st = upload_seek_part(r, u, &sb)) != UPLOAD_OK ||
	    (st = upload_receive(r, u)) != UPLOAD_OK ||
	    (st = upload_check_md5(r, u)) != UPLOAD_OK)
		return st;
	return upload_complete(r, u);
}

static enum upload_status req_file_upload(struct upload_req *r)
{
	struct sbuf final = SBUF_INIT(PATH_MAX), part = SBUF_INIT(PATH_MAX);
	struct upload_file u = { .nbytes = -1, .max_nbytes = -1, .offset = 0, .fd = -1 };
	enum upload_status st;

	st = req_upload_fields(r, &u);
	if (st == UPLOAD_OK)
		st = req_authorize(r, u.max_nbytes);
	if (st == UPLOAD_OK)
		st = req_paths(r, r->fields[F_NAME], true, &final, &part);
	if (st == UPLOAD_OK) {
		log_info("client %s: upload of '%s' starts at offset %ld of %ld bytes (client %s.%s.%s)",
			 r->addr, sbuf_str(&r->qname), u.offset, u.nbytes,
			 r->fields[F_MAJOR] ? r->fields[F_MAJOR] : "?",
			 r->fields[F_MINOR] ? r->fields[F_MINOR] : "?",
			 r->fields[F_RELEASE] ? r->fields[F_RELEASE] : "?");
		u.final = sbuf_str(&final);
		u.part = sbuf_str(&part);
		st = upload_write(r, &u);
	}
	if (u.fd >= 0)
		close(u.fd);
	sbuf_release(&final);
	sbuf_release(&part);
	return st;
}

/* read() from a file descriptor, for upload_handle(). */
static long read_fd(void *arg, char *buf, size_t n)
{
	ssize_t got;

	do
		got = read(*(int *)arg, buf, n);
	while (got < 0 && errno == EINTR);
	return (long)got;
}

enum upload_status upload_handle(const struct upload_ctx *ctx, int in_fd,
				 long long content_length, struct sbuf *reply)
{
	return upload_handle_from(ctx, read_fd, &in_fd, content_length, reply);
}

enum upload_status upload_handle_from(const struct upload_ctx *ctx,
				      long (*rd)(void *arg, char *buf, size_t n), void *arg,
				      long long content_length, struct sbuf *reply)
{
	struct upload_req r;
	enum upload_status st;

	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.addr = ctx->remote_addr ? ctx->remote_addr : "unknown";
	r.rd = rd;
	r.rd_arg = arg;
	r.left = content_length < 0 ? -1 : content_length;
	r.reply = reply;
	sbuf_init(&r.qname, 4 * UPLOAD_QUOTE_MAX + 8);

	st = req_read_header(&r);
	if (st == UPLOAD_OK)
		st = req_parse(&r);
	if (st == UPLOAD_OK) {
		if (r.fields[F_GET_FILE_SIZE] && r.file_upload)
			st = req_fail(&r, UPLOAD_PERMANENT, "malformed request: both get_file_size and file_upload");
		else if (r.fields[F_GET_FILE_SIZE])
			st = req_get_file_size(&r);
		else if (r.file_upload)
			st = req_file_upload(&r);
		else
			st = req_fail(&r, UPLOAD_PERMANENT,
				      "unknown request: neither get_file_size nor file_upload");
	}
	req_drain(&r);
	for (int i = 0; i < F_COUNT; i++)
		free(r.fields[i]);
	sbuf_release(&r.head);
	sbuf_release(&r.qname);
	return st;
}
