/*
 * Unit tests for the upload handler (upload/upload.c): requests as the BOINC
 * 7.20 client writes them (client/file_xfer.cpp), fed to upload_handle() from
 * files and pipes, against a temporary upload hierarchy.
 */
#include "unit.h"
#include "dirhier.h"
#include "fileutil.h"
#include "crypt_rsa.h"
#include "log.h"
#include "md5.h"
#include "upload.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char tmpdir[] = "/tmp/test_upload.XXXXXX";
static char *root;              /* tmpdir/upload */
static char *logpath;
static struct upload_ctx ctx;
static EVP_PKEY *upload_private; /* signs the requests' certificates, as the scheduler does */

/* ---- helpers ---- */

static void add_header(struct sbuf *req, const char *name, const char *max_nbytes, const char *nbytes,
		       const char *md5, const char *offset)
{
	sbuf_addstr(req, "<data_server_request>\n"
		    "    <core_client_major_version>7</core_client_major_version>\n"
		    "    <core_client_minor_version>20</core_client_minor_version>\n"
		    "    <core_client_release>5</core_client_release>\n"
		    "<file_upload>\n<file_info>\n");
	long mx;

	if (name)
		sbuf_addf(req, "<name>%s</name>\n", name);
	/* the certificate the scheduler gave out with the file, echoed as the client does */
	sbuf_addstr(req, "<xml_signature>\n");
	if (!name || !max_nbytes || parse_long(max_nbytes, &mx) < 0 || mx < 0 ||
	    crypt_upload_cert(upload_private, name, (double)mx, req) < 0)
		sbuf_addstr(req, "00\n.\n");
	sbuf_addstr(req, "</xml_signature>\n");
	if (max_nbytes)
		sbuf_addf(req, "<max_nbytes>%s</max_nbytes>\n", max_nbytes);
	sbuf_addstr(req, "</file_info>\n");
	if (nbytes)
		sbuf_addf(req, "<nbytes>%s</nbytes>\n", nbytes);
	sbuf_addf(req, "<md5_cksum>%s</md5_cksum>\n", md5 ? md5 : "");
	if (offset)
		sbuf_addf(req, "<offset>%s</offset>\n", offset);
	sbuf_addstr(req, "<data>\n");
}

/* An upload request carrying data[offset .. offset+ndata) of a file of nbytes. */
static void make_upload(struct sbuf *req, const char *name, long max_nbytes, long nbytes,
			const char *md5, long offset, const char *data, size_t ndata)
{
	char mx[32], nb[32], of[32];

	snprintf(mx, sizeof(mx), "%ld", max_nbytes);
	snprintf(nb, sizeof(nb), "%ld", nbytes);
	snprintf(of, sizeof(of), "%ld", offset);
	sbuf_reset(req);
	add_header(req, name, mx, nb, md5, of);
	assert_int_equal(sbuf_add(req, data + offset, ndata), 0);
}

static void make_size_query(struct sbuf *req, const char *name)
{
	sbuf_reset(req);
	sbuf_addf(req, "<data_server_request>\n"
		  "    <core_client_major_version>7</core_client_major_version>\n"
		  "    <core_client_minor_version>20</core_client_minor_version>\n"
		  "    <core_client_release>5</core_client_release>\n"
		  "    <get_file_size>%s</get_file_size>\n"
		  "</data_server_request>\n", name);
}

/*
 * Run the handler on len bytes of req read from a file; with the content
 * length given (as CGI does) or not (-1). Checks the whole body was read
 * when its length was given. Returns the status, reply in reply.
 */
static int run_n(const char *req, size_t len, bool with_length, struct sbuf *reply)
{
	char *path = xasprintf("%s/request", tmpdir);
	int fd, st;

	assert_int_equal(write_file_atomic(path, req, len, 0600), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	st = upload_handle(&ctx, fd, with_length ? (long long)len : -1, reply);
	if (with_length)
		assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)len);
	close(fd);
	unlink(path);
	free(path);
	return st;
}

static int run(const struct sbuf *req, struct sbuf *reply)
{
	return run_n(req->buf, req->len, true, reply);
}

static void assert_reply(const struct sbuf *reply, int status, int st)
{
	char want[64];

	snprintf(want, sizeof(want), "<status>%d</status>", status);
	if (!strstr(sbuf_str(reply), want))
		fail_msg("want %s in reply:\n%s", want, sbuf_str(reply));
	assert_int_equal(st, status);
}

static void assert_message(const struct sbuf *reply, const char *part)
{
	const char *m = strstr(sbuf_str(reply), "<message>");

	if (!m || !strstr(m, part))
		fail_msg("want a message with '%s' in reply:\n%s", part, sbuf_str(reply));
}

static char *final_path(const char *name)
{
	struct sbuf p = SBUF_INIT(PATH_MAX);

	assert_int_equal(dirhier_path(name, root, ctx.fanout, false, &p), 0);
	return sbuf_detach(&p, NULL);
}

static char *part_path(const char *name)
{
	char *f = final_path(name), *slash = strrchr(f, '/');
	char *p;

	*slash = '\0';
	p = xasprintf("%s/.%s.part", f, name);
	free(f);
	return p;
}

static void assert_file(const char *path, const char *data, size_t n)
{
	struct sbuf got = SBUF_INIT(16 * 1024 * 1024);

	if (read_file(path, got.max, &got) < 0)
		fail_msg("%s missing", path);
	assert_int_equal(got.len, n);
	assert_memory_equal(got.buf, data, n);
	sbuf_release(&got);
}

static void assert_absent(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		fail_msg("%s exists", path);
}

static long long size_query(const char *name, struct sbuf *reply)
{
	struct sbuf req = SBUF_INIT(4096);
	const char *p;
	long long n;

	make_size_query(&req, name);
	assert_reply(reply, 0, run(&req, reply));
	p = strstr(sbuf_str(reply), "<file_size>");
	assert_non_null(p);
	n = strtoll(p + strlen("<file_size>"), NULL, 10);
	sbuf_release(&req);
	return n;
}

/* Deterministic file contents of n bytes (binary, with NULs and "<data>"). */
static char *content(size_t n, unsigned seed)
{
	char *d = xmalloc(n + 1);
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		d[i] = (char)(x >> 16);
	}
	if (n > 200)
		memcpy(d + 100, "<data>\n</data_server_request>", 29);
	return d;
}

static struct sbuf listing;

static int list_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb; (void)type; (void)ftw;
	sbuf_addstr(&listing, path);
	sbuf_addch(&listing, '\n');
	return 0;
}

/* Every path under tmpdir (the upload root's parent), in walk order. */
static char *tree(void)
{
	sbuf_init(&listing, 1 << 20);
	assert_int_equal(nftw(tmpdir, list_one, 16, FTW_PHYS), 0);
	return sbuf_detach(&listing, NULL);
}

static int count_entries(const char *dir)
{
	char *cmd = xasprintf("ls -A '%s' | wc -l", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	free(cmd);
	return n;
}

/* ---- fixtures ---- */

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	root = xasprintf("%s/upload", tmpdir);
	logpath = xasprintf("%s/upload.log", tmpdir);
	if (mkdir(root, 0755) < 0)
		return -1;
	log_init("test_upload", logpath);
	{
		char *priv = xasprintf("%s/upload_private", tmpdir);
		char *pub = xasprintf("%s/upload_public", tmpdir);

		if (crypt_generate_keypair(1024, priv, pub, NULL) < 0 ||
		    crypt_load_private(priv, &upload_private) < 0 || crypt_load_public(pub, &ctx.cert_key) < 0)
			return -1;
		free(priv);
		free(pub);
	}
	ctx.upload_dir = root;
	ctx.fanout = 1024;
	ctx.max_header = 0;
	ctx.remote_addr = "192.0.2.7";
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	(void)state;
	log_close();
	EVP_PKEY_free(upload_private);
	EVP_PKEY_free(ctx.cert_key);
	free(cmd);
	free(root);
	free(logpath);
	return r == 0 ? 0 : -1;
}

/* ---- tests ---- */

static void test_small_upload(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(5000, 1), *f = final_path("wu_123_0");
	char md5[MD5_HEX_LEN + 1], *dir = xasprintf("%s/393", root);

	(void)state;
	md5_buf(data, 5000, md5);
	make_upload(&req, "wu_123_0", 100000, 5000, md5, 0, data, 5000);
	assert_reply(&reply, 0, run(&req, &reply));
	assert_string_equal(sbuf_str(&reply), "<data_server_reply>\n    <status>0</status>\n</data_server_reply>\n");
	/* BOINC's fan-out rule: md5("wu_123_0") = ae306793..., 0x e306793 % 1024 = 0x393. */
	{
		char *want = xasprintf("%s/wu_123_0", dir);

		assert_string_equal(f, want);
		free(want);
	}
	assert_file(f, data, 5000);
	assert_int_equal(count_entries(dir), 1);        /* no temporary file left */
	assert_int_equal(size_query("wu_123_0", &reply), 5000);
	free(data); free(f); free(dir);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_large_upload_streams_from_a_pipe(void **state)
{
	const size_t n = 3 * 1024 * 1024 + 17;
	struct sbuf req = SBUF_INIT(8 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(n, 2), *f = final_path("big_output");
	char md5[MD5_HEX_LEN + 1];
	int p[2], status;
	pid_t pid;

	(void)state;
	md5_buf(data, n, md5);
	make_upload(&req, "big_output", 10L << 20, (long)n, md5, 0, data, n);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write(p[1], req.buf, req.len) == (ssize_t)req.len ? 0 : 1);
	}
	close(p[1]);
	/* No content length: read to end of file, as with a chunked request. */
	assert_reply(&reply, 0, upload_handle(&ctx, p[0], -1, &reply));
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_file(f, data, n);
	free(data); free(f);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_empty_file(void **state)
{
	struct sbuf req = SBUF_INIT(4096), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *f = final_path("empty_out");

	(void)state;
	make_upload(&req, "empty_out", 0, 0, "d41d8cd98f00b204e9800998ecf8427e", 0, "", 0);
	assert_reply(&reply, 0, run(&req, &reply));
	assert_file(f, "", 0);
	free(f);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_size_of_unknown_file_is_zero(void **state)
{
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);

	(void)state;
	assert_int_equal(size_query("never_uploaded", &reply), 0);
	assert_string_equal(sbuf_str(&reply), "<data_server_reply>\n    <status>0</status>\n"
			    "    <file_size>0</file_size>\n</data_server_reply>\n");
	sbuf_release(&reply);
}

static void test_truncated_then_resumed(void **state)
{
	const long n = 300000, cut = 123457;
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content((size_t)n, 3), *f = final_path("res_1_0"), *part = part_path("res_1_0");
	char md5[MD5_HEX_LEN + 1];
	long have;

	(void)state;
	md5_buf(data, (size_t)n, md5);
	/* The connection breaks after cut bytes: the body is shorter than promised. */
	make_upload(&req, "res_1_0", n, n, md5, 0, data, (size_t)cut);
	assert_reply(&reply, 1, run(&req, &reply));
	assert_message(&reply, "cut short");
	assert_absent(f);
	have = (long)size_query("res_1_0", &reply);
	assert_int_equal(have, cut);
	/* The partial file cannot be named by a request. */
	make_size_query(&req, ".res_1_0.part");
	assert_reply(&reply, -1, run(&req, &reply));
	/* A second cut, resumed and cut again, without a content length this time. */
	make_upload(&req, "res_1_0", n, n, md5, have, data, 1000);
	assert_reply(&reply, 1, run_n(req.buf, req.len, false, &reply));
	have = (long)size_query("res_1_0", &reply);
	assert_int_equal(have, cut + 1000);
	/* Resume from what the server has. */
	make_upload(&req, "res_1_0", n, n, md5, have, data, (size_t)(n - have));
	assert_reply(&reply, 0, run(&req, &reply));
	assert_file(f, data, (size_t)n);
	assert_absent(part);
	assert_int_equal(size_query("res_1_0", &reply), n);
	free(data); free(f); free(part);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_offset_must_match(void **state)
{
	const long n = 20000;
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content((size_t)n, 4), *f = final_path("off_2_0"), *part = part_path("off_2_0");
	char md5[MD5_HEX_LEN + 1];

	(void)state;
	md5_buf(data, (size_t)n, md5);
	/* A resume of something the server never got leaves no trace. */
	make_upload(&req, "off_2_0", n, n, md5, 7000, data, (size_t)(n - 7000));
	assert_reply(&reply, 1, run(&req, &reply));
	assert_message(&reply, "has 0 bytes");
	assert_absent(part);
	make_upload(&req, "off_2_0", n, n, md5, 0, data, 5000);
	assert_reply(&reply, 1, run(&req, &reply));
	/* Neither what the server holds nor 0: transient, so the client asks again. */
	make_upload(&req, "off_2_0", n, n, md5, 7000, data, (size_t)(n - 7000));
	assert_reply(&reply, 1, run(&req, &reply));
	assert_message(&reply, "has 5000 bytes");
	make_upload(&req, "off_2_0", n, n, md5, 3000, data, (size_t)(n - 3000));
	assert_reply(&reply, 1, run(&req, &reply));
	assert_int_equal(size_query("off_2_0", &reply), 5000);
	assert_absent(f);
	/* Beyond the end of the file: permanent. */
	make_upload(&req, "off_2_0", n, n, md5, n + 1, data, 0);
	assert_reply(&reply, -1, run(&req, &reply));
	/* Offset 0 starts over, whatever the server holds. */
	make_upload(&req, "off_2_0", n, n, md5, 0, data, (size_t)n);
	assert_reply(&reply, 0, run(&req, &reply));
	assert_file(f, data, (size_t)n);
	assert_absent(part);
	free(data); free(f); free(part);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_bad_names_touch_nothing(void **state)
{
	static const char *const bad[] = {
		"../x", "a/b", "..", "", "/etc/passwd", "../../escape", "ctl\x01name", "tab\tname",
		".hidden", "-rf", "a\\b",
	};
	struct sbuf req = SBUF_INIT(4096), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *before = tree(), *after;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		make_upload(&req, bad[i], 100, 5, NULL, 0, "hello", 5);
		assert_reply(&reply, -1, run(&req, &reply));
		if (*bad[i])
			assert_message(&reply, "not allowed");
		make_size_query(&req, bad[i]);
		assert_reply(&reply, -1, run(&req, &reply));
	}
	/* Control characters are not written raw into the message. */
	make_upload(&req, "ctl\x01name", 100, 5, NULL, 0, "hello", 5);
	run(&req, &reply);
	assert_message(&reply, "ctl\\x01name");
	after = tree();
	assert_string_equal(before, after);
	free(before); free(after);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_max_nbytes(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(20000, 5), *f = final_path("big_3_0");

	(void)state;
	make_upload(&req, "big_3_0", 10000, 20000, NULL, 0, data, 20000);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "more than its max_nbytes 10000");
	/* max_nbytes 0 allows only an empty file, as in BOINC. */
	make_upload(&req, "big_3_0", 0, 1, NULL, 0, data, 1);
	assert_reply(&reply, -1, run(&req, &reply));
	/* A missing max_nbytes is refused. */
	sbuf_reset(&req);
	add_header(&req, "big_3_0", NULL, "5", NULL, "0");
	sbuf_addstr(&req, "hello");
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "no max_nbytes");
	assert_absent(f);
	free(data); free(f);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_more_data_than_nbytes(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(10000, 6), *f = final_path("over_4_0"), *part = part_path("over_4_0");

	(void)state;
	/* Known length: refused before any byte is written. */
	make_upload(&req, "over_4_0", 100000, 5000, NULL, 0, data, 5001);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "more than the 5000 promised");
	assert_absent(f);
	assert_absent(part);
	/* Unknown length: found once the promised bytes are in, partial dropped. */
	assert_reply(&reply, -1, run_n(req.buf, req.len, false, &reply));
	assert_absent(f);
	assert_absent(part);
	/* Much more than fits in the first read. */
	make_upload(&req, "over_4_0", 100000, 100, NULL, 0, data, 10000);
	assert_reply(&reply, -1, run_n(req.buf, req.len, false, &reply));
	assert_absent(f);
	assert_absent(part);
	free(data); free(f); free(part);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_malformed_requests(void **state)
{
	static const struct {
		const char *req, *msg;
	} cases[] = {
		{ "", "not a data_server_request" },
		{ "hello world\n", "not a data_server_request" },
		{ "<scheduler_request>\n<file_upload>\n<data>\nxx", "not a data_server_request" },
		{ "<data_server_request>\n</data_server_request>\n", "unknown request" },
		{ "<data_server_request>\n<delete_file>x</delete_file>\n</data_server_request>\n",
		  "unknown request" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<max_nbytes>10</max_nbytes>\n"
		  "</file_info>\n<nbytes>5</nbytes>\n<offset>0</offset>\n<data>\nhello", "no name" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<offset>0</offset>\n<data>\nhello", "no nbytes" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>five</nbytes>\n<data>\nhello", "nbytes: &apos;five&apos; is not a number" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>-5</nbytes>\n<data>\nhello", "nbytes: -5 is outside" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>0x10"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<data>\nhello", "max_nbytes: " },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>inf"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<data>\nhello", "max_nbytes: inf is outside" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<offset>x</offset>\n<data>\nhello",
		  "offset: &apos;x&apos; is not a number" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<md5_cksum>xyz</md5_cksum>\n<data>\nhello",
		  "md5_cksum is not" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n", "no data" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1\n<max_nbytes>10"
		  "</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<data>\nhello", "name not closed" },
		{ "<data_server_request>\n<file_upload>\n<file_info>\n<name>m_1</name>\n<name>m_2</name>\n"
		  "<max_nbytes>10</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n<data>\nhello", "twice" },
		{ "<data_server_request>\n<get_file_size>m_1</get_file_size>\n<file_upload>\n<data>\n",
		  "both" },
		{ "<data_server_request>\n<get_file_size>m_1", "not closed" },
		{ "<data_server_request\n", "unterminated tag" },
	};
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *before = tree(), *after;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int st = run_n(cases[i].req, strlen(cases[i].req), true, &reply);

		if (st != -1 || !strstr(sbuf_str(&reply), cases[i].msg))
			fail_msg("case %zu: status %d, want -1 and '%s' in\n%s", i, st, cases[i].msg,
				 sbuf_str(&reply));
	}
	/* A NUL byte in the request text. */
	{
		static const char nul[] = "<data_server_request>\n<get_file_size>a\0b</get_file_size>\n"
					  "</data_server_request>\n";

		assert_reply(&reply, -1, run_n(nul, sizeof(nul) - 1, true, &reply));
		assert_message(&reply, "NUL byte");
	}
	after = tree();
	assert_string_equal(before, after);
	free(before); free(after);
	sbuf_release(&reply);
}

static void test_oversized_header(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);

	(void)state;
	/* Endless request text and no <data>: refused at the bound, body still consumed. */
	sbuf_addstr(&req, "<data_server_request>\n<file_upload>\n<xml_signature>\n");
	while (req.len < 100000)
		sbuf_addstr(&req, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "larger than 16384 bytes");
	/* A smaller bound from the context applies to a normal request. */
	ctx.max_header = 200;
	make_upload(&req, "hdr_5_0", 100, 5, NULL, 0, "hello", 5);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "larger than 200 bytes");
	ctx.max_header = 0;
	assert_reply(&reply, 0, run(&req, &reply));
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_existing_file_is_immutable(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(4000, 7), *other = content(4000, 8), *f = final_path("imm_6_0");
	char md5[MD5_HEX_LEN + 1], md5o[MD5_HEX_LEN + 1];

	(void)state;
	md5_buf(data, 4000, md5);
	md5_buf(other, 4000, md5o);
	make_upload(&req, "imm_6_0", 10000, 4000, md5, 0, data, 4000);
	assert_reply(&reply, 0, run(&req, &reply));
	/* The client lost our reply and sends it again. */
	assert_reply(&reply, 0, run(&req, &reply));
	/* Same size, other content. */
	make_upload(&req, "imm_6_0", 10000, 4000, md5o, 0, other, 4000);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "different content");
	/* Other size. */
	make_upload(&req, "imm_6_0", 10000, 3000, NULL, 0, other, 3000);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "exists on the server with 4000 bytes");
	assert_file(f, data, 4000);
	free(data); free(other); free(f);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_md5_mismatch(void **state)
{
	const long n = 30000;
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content((size_t)n, 9), *f = final_path("md5_7_0"), *part = part_path("md5_7_0");
	char md5[MD5_HEX_LEN + 1];
	const char *wrong = "0123456789ABCDEF0123456789abcdef";

	(void)state;
	md5_buf(data, (size_t)n, md5);
	/* Sent whole: permanent, nothing kept. */
	make_upload(&req, "md5_7_0", n, n, wrong, 0, data, (size_t)n);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_message(&reply, "MD5");
	assert_absent(f);
	assert_absent(part);
	/* Resumed onto a corrupt partial file: transient, partial dropped, restart at 0. */
	make_upload(&req, "md5_7_0", n, n, md5, 0, data, 10000);
	assert_reply(&reply, 1, run(&req, &reply));
	{
		int fd = open(part, O_WRONLY);

		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, "X", 1, 50), 1);
		close(fd);
	}
	make_upload(&req, "md5_7_0", n, n, md5, 10000, data, (size_t)(n - 10000));
	assert_reply(&reply, 1, run(&req, &reply));
	assert_message(&reply, "upload again from the start");
	assert_absent(f);
	assert_int_equal(size_query("md5_7_0", &reply), 0);
	/* An upper-case checksum from the client is the same checksum. */
	for (char *c = md5; *c; c++)
		if (*c >= 'a' && *c <= 'f')
			*c = (char)(*c - 'a' + 'A');
	make_upload(&req, "md5_7_0", n, n, md5, 0, data, (size_t)n);
	assert_reply(&reply, 0, run(&req, &reply));
	assert_file(f, data, (size_t)n);
	free(data); free(f); free(part);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_concurrent_upload_is_transient(void **state)
{
	struct sbuf req = SBUF_INIT(1 << 20), reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	char *data = content(9000, 10), *f = final_path("busy_8_0"), *part = part_path("busy_8_0");
	int fd;

	(void)state;
	make_upload(&req, "busy_8_0", 9000, 9000, NULL, 0, data, 4000);
	assert_reply(&reply, 1, run(&req, &reply));
	/* Another handler process is writing this file. */
	fd = open(part, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	make_upload(&req, "busy_8_0", 9000, 9000, NULL, 4000, data, 5000);
	assert_reply(&reply, 1, run(&req, &reply));
	assert_message(&reply, "being uploaded");
	make_size_query(&req, "busy_8_0");
	assert_reply(&reply, 1, run(&req, &reply));
	close(fd);
	assert_int_equal(size_query("busy_8_0", &reply), 4000);
	make_upload(&req, "busy_8_0", 9000, 9000, NULL, 4000, data, 5000);
	assert_reply(&reply, 0, run(&req, &reply));
	assert_file(f, data, 9000);
	free(data); free(f); free(part);
	sbuf_release(&req); sbuf_release(&reply);
}

static void test_no_hierarchy_and_log(void **state)
{
	struct sbuf req = SBUF_INIT(4096), reply = SBUF_INIT(UPLOAD_REPLY_MAX), log = SBUF_INIT(1 << 20);
	char *f = xasprintf("%s/flat_9_0", root);

	(void)state;
	ctx.fanout = 0;
	make_upload(&req, "flat_9_0", 100, 5, NULL, 0, "hello", 5);
	assert_reply(&reply, 0, run(&req, &reply));
	ctx.fanout = 1024;
	assert_file(f, "hello", 5);
	/* Errors are logged with the client's address. */
	make_upload(&req, "../flat", 100, 5, NULL, 0, "hello", 5);
	assert_reply(&reply, -1, run(&req, &reply));
	assert_int_equal(read_file(logpath, log.max, &log), 0);
	assert_non_null(strstr(sbuf_str(&log), "client 192.0.2.7: file name '../flat' is not allowed"));
	assert_non_null(strstr(sbuf_str(&log), "client 192.0.2.7: received 'flat_9_0' (5 bytes)"));
	free(f);
	sbuf_release(&req); sbuf_release(&reply); sbuf_release(&log);
}

/* The check a project plugs in (the database's "result in progress"), as a fake. */
static enum upload_status refuse_check(void *arg, const char *name, struct sbuf *why)
{
	sbuf_addf(why, "'%s' belongs to a result that is not in progress", name);
	return (enum upload_status)(intptr_t)arg;
}

/* An upload of "hello" to name with the given xml_signature element text (NULL: none). */
static int upload_signed(const char *name, long max_nbytes, const char *sig, struct sbuf *reply)
{
	struct sbuf req = SBUF_INIT(8192);
	int st;

	sbuf_addf(&req, "<data_server_request>\n<file_upload>\n<file_info>\n<name>%s</name>\n", name);
	if (sig)
		sbuf_addf(&req, "<xml_signature>\n%s</xml_signature>\n", sig);
	sbuf_addf(&req, "<max_nbytes>%ld</max_nbytes>\n</file_info>\n<nbytes>5</nbytes>\n"
		  "<offset>0</offset>\n<data>\nhello", max_nbytes);
	st = run(&req, reply);
	sbuf_release(&req);
	return st;
}

static void test_upload_certificates(void **state)
{
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX), sig = SBUF_INIT(CRYPT_TEXT_MAX),
		    other = SBUF_INIT(CRYPT_TEXT_MAX), big = SBUF_INIT(CRYPT_TEXT_MAX);
	char *before = tree(), *after, *f = final_path("cert_0");
	EVP_PKEY *key = ctx.cert_key;

	(void)state;
	assert_int_equal(crypt_upload_cert(upload_private, "cert_0", 100, &sig), 0);
	assert_int_equal(crypt_upload_cert(upload_private, "other_0", 100, &other), 0);
	assert_int_equal(crypt_upload_cert(upload_private, "cert_0", 1e9, &big), 0);
	/* no certificate, another file's, one for another limit, junk, markup: refused, nothing written */
	assert_reply(&reply, -1, upload_signed("cert_0", 100, NULL, &reply));
	assert_message(&reply, "has no upload certificate (xml_signature)");
	assert_reply(&reply, -1, upload_signed("cert_0", 100, sbuf_str(&other), &reply));
	assert_message(&reply, "invalid upload certificate for");
	assert_reply(&reply, -1, upload_signed("cert_0", 100, sbuf_str(&big), &reply));
	assert_message(&reply, "invalid upload certificate");
	assert_reply(&reply, -1, upload_signed("cert_0", 1000000000, sbuf_str(&sig), &reply));
	assert_message(&reply, "with max_nbytes 1000000000");
	assert_reply(&reply, -1, upload_signed("cert_0", 100, "zz\n", &reply));
	assert_reply(&reply, -1, upload_signed("cert_0", 100, "3a<name>x</name>\n", &reply));
	assert_message(&reply, "markup inside xml_signature");
	/* no key to check with: later, not never */
	ctx.cert_key = NULL;
	assert_reply(&reply, 1, upload_signed("cert_0", 100, sbuf_str(&sig), &reply));
	ctx.cert_key = key;
	/* the project's check refuses: its reason, its kind, nothing written */
	ctx.check = refuse_check;
	ctx.check_arg = (void *)(intptr_t)UPLOAD_PERMANENT;
	assert_reply(&reply, -1, upload_signed("cert_0", 100, sbuf_str(&sig), &reply));
	assert_message(&reply, "belongs to a result that is not in progress");
	ctx.check_arg = (void *)(intptr_t)UPLOAD_TRANSIENT;
	assert_reply(&reply, 1, upload_signed("cert_0", 100, sbuf_str(&sig), &reply));
	after = tree();
	assert_string_equal(before, after);
	free(after);
	/* the right certificate and the check passing: taken */
	ctx.check = NULL;
	assert_reply(&reply, 0, upload_signed("cert_0", 100, sbuf_str(&sig), &reply));
	assert_file(f, "hello", 5);
	/* ignore_upload_certificates: taken without one, and the log says so */
	ctx.ignore_certificates = true;
	assert_reply(&reply, 0, upload_signed("nocert_0", 100, NULL, &reply));
	ctx.ignore_certificates = false;
	{
		struct sbuf log = SBUF_INIT(1 << 20);

		assert_int_equal(read_file(logpath, log.max, &log), 0);
		assert_non_null(strstr(sbuf_str(&log), "'nocert_0' taken without checking its upload "
						     "certificate: ignore_upload_certificates is set"));
		sbuf_release(&log);
	}
	free(before);
	free(f);
	sbuf_release(&reply);
	sbuf_release(&sig);
	sbuf_release(&other);
	sbuf_release(&big);
}

static void test_reply_escapes_message(void **state)
{
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);

	(void)state;
	upload_reply(&reply, UPLOAD_TRANSIENT, "a <b> & c");
	assert_string_equal(sbuf_str(&reply), "<data_server_reply>\n    <status>1</status>\n"
			    "    <message>a &lt;b&gt; &amp; c</message>\n</data_server_reply>\n");
	sbuf_release(&reply);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_upload),
		cmocka_unit_test(test_large_upload_streams_from_a_pipe),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_size_of_unknown_file_is_zero),
		cmocka_unit_test(test_truncated_then_resumed),
		cmocka_unit_test(test_offset_must_match),
		cmocka_unit_test(test_bad_names_touch_nothing),
		cmocka_unit_test(test_max_nbytes),
		cmocka_unit_test(test_more_data_than_nbytes),
		cmocka_unit_test(test_malformed_requests),
		cmocka_unit_test(test_oversized_header),
		cmocka_unit_test(test_existing_file_is_immutable),
		cmocka_unit_test(test_md5_mismatch),
		cmocka_unit_test(test_concurrent_upload_is_transient),
		cmocka_unit_test(test_no_hierarchy_and_log),
		cmocka_unit_test(test_reply_escapes_message),
		cmocka_unit_test(test_upload_certificates),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
