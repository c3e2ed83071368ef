/*
 * The file upload handler (sched/upload.c): request header and body as a
 * client -- or anyone who can reach the upload URL -- sends them, fed to
 * upload_handle() through a memfd against a scratch upload directory that
 * is emptied after every input, so the fuzzer never fills the disk.
 *
 * The first byte chooses how the body arrives (Content-Length exact,
 * absent, promising more than is sent, or less), the header limit and the
 * fan-out; the rest is up to three requests separated by "\n--next--\n",
 * handled in turn against the same directory, so a cut upload can be
 * resumed, asked about with get_file_size, or sent again. Property: the
 * reply is always a <data_server_reply> whose <status> is the one returned.
 */
#include "fuzz.h"
#include "upload.h"
#include "xml.h"

#include <sys/mman.h>
#include <sys/stat.h>

#define SEPARATOR "\n--next--\n"
#define MAX_REQUESTS 3

static void check_reply(const struct sbuf *reply, enum upload_status st)
{
	xmlDoc *doc = xml_read_memory(reply->buf ? reply->buf : "", reply->len, "reply", NULL);
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	char *status = root ? xml_child_text(root, "status") : NULL;
	long v = 99;

	if (!xml_is(root, "data_server_reply"))
		fprintf(stderr, "the reply: %s\n", sbuf_str(reply));
	FUZZ_CHECK(xml_is(root, "data_server_reply"));
	FUZZ_CHECK(status && parse_long(status, &v) == 0 && v == (long)st);
	free(status);
	xmlFreeDoc(doc);
}

static void one_request(const struct upload_ctx *ctx, int fd, unsigned mode, const uint8_t *p,
			size_t n)
{
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	long long length;
	enum upload_status st;

	if (ftruncate(fd, 0) < 0 || (n && write(fd, p, n) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	switch (mode & 3) {
	case 0: length = (long long)n; break;
	case 1: length = -1; break;                         /* no CONTENT_LENGTH */
	case 2: length = (long long)n + 100; break;         /* the connection drops early */
	default: length = n > 7 ? (long long)n - 7 : 0; break;     /* more bytes than announced */
	}
	st = upload_handle(ctx, fd, length, &reply);
	check_reply(&reply, st);
	sbuf_free(&reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t header_max[] = { 0, 40, 300, 4096 };
	static int fd = -1;
	static char *dir;
	struct upload_ctx ctx = { .remote_addr = "fuzz" };
	unsigned mode;
	int i;

	fuzz_setup();
	if (fd < 0) {
		fd = memfd_create("upload-request", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		dir = xasprintf("%s/upload", fuzz_scratch_dir());
		if (mkdir(dir, 0755) < 0)
			abort();
	}
	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	ctx.upload_dir = dir;
	ctx.max_header = header_max[(mode >> 2) & 3];
	ctx.fanout = mode & 0x10 ? 0 : 4;
	for (i = 0; i < MAX_REQUESTS && size > 0; i++) {
		const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
		size_t n = sep ? (size_t)(sep - data) : size;

		one_request(&ctx, fd, mode >> (i == 0 ? 0 : 5), data, n);
		if (!sep)
			break;
		size -= n + strlen(SEPARATOR);
		data = sep + strlen(SEPARATOR);
	}
	fuzz_rm_below(dir);
	return 0;
}
