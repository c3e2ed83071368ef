/*
 * The file upload handler (upload/upload.c): request header and body as a
 * client -- or anyone who can reach the upload URL -- sends them, fed to
 * upload_handle() through a memfd against a scratch upload directory that
 * is emptied after every input, so the fuzzer never fills the disk.
 *
 * The first byte chooses how the body arrives (bits 0-1: Content-Length
 * exact, absent, promising more than is sent, or less), the header limit
 * (bits 2-3), no fan-out (bit 4), ignore_upload_certificates (bit 5: the
 * test mode, which reaches the file handling without a valid signature)
 * and an ownership check refusing names that start with "foreign" (bit 6).
 * Certificates are checked with the public key below; the corpus holds
 * requests signed with its private key, which is not kept anywhere. The
 * rest is up to three requests separated by "\n--next--\n", handled in turn
 * against the same directory, so a cut upload can be resumed, asked about
 * with get_file_size, or sent again. Property: the reply is always a
 * <data_server_reply> whose <status> is the one returned.
 */
#include "fuzz.h"
#include "crypt_rsa.h"
#include "upload.h"
#include "xml.h"

#include <sys/mman.h>
#include <sys/stat.h>

#define SEPARATOR "\n--next--\n"
#define MAX_REQUESTS 3

/* The upload key's public half (BOINC's text form); test/fuzz/corpus/upload is signed with it. */
static const char upload_public[] =
	"1024\n"
	"dcc2bebbd7901b406e280e514905bf557273c46978ba16ee5c96ede67020d8da\n"
	"cb285bf11406b3281ed0f34e39c1ad4c582253ddc6287ac29237ba18820cf048\n"
	"3199c82b4e656925d710696709a144714142ffcf315045151b5bb85f87dc4088\n"
	"4d8bbc173a32984df16a52e6d54d8fe0427a1d71007238d08aa607a2283e0c0f\n"
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"0000000000000000000000000000000000000000000000000000000000010001\n"
	".\n";

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

static enum upload_status owner_check(void *arg, const char *name, struct sbuf *why)
{
	(void)arg;
	if (strncmp(name, "foreign", 7) != 0)
		return UPLOAD_OK;
	sbuf_addstr(why, "not an output of a result in progress");
	return UPLOAD_PERMANENT;
}

static void one_request(const struct upload_ctx *ctx, int fd, unsigned mode, const uint8_t *p,
			size_t n)
{
	struct sbuf reply = SBUF_INIT(UPLOAD_REPLY_MAX);
	long long length;
	enum upload_status st;

	if (ftruncate(fd, 0) < 0 || (n && pwrite(fd, p, n, 0) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	switch (mode & 3) {
	case 0: length = (long long)n; break;
	case 1: length = -1; break;                         /* no CONTENT_LENGTH */
	case 2: length = (long long)n + 3; break;           /* the connection drops early */
	default: length = n > 7 ? (long long)n - 7 : 0; break;     /* more bytes than announced */
	}
	st = upload_handle(ctx, fd, length, &reply);
	check_reply(&reply, st);
	sbuf_release(&reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t header_max[] = { 0, 40, 300, 4096 };
	static int fd = -1;
	static char *dir;
	static EVP_PKEY *key;
	struct upload_ctx ctx = { .remote_addr = "fuzz" };
	unsigned mode;
	int i;

	fuzz_setup();
	if (fd < 0) {
		fd = memfd_create("upload-request", MFD_CLOEXEC);
		dir = xasprintf("%s/upload", fuzz_scratch_dir());
		if (fd < 0 || mkdir(dir, 0755) < 0 || crypt_parse_public_key_text(upload_public, &key) < 0)
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
	ctx.cert_key = key;
	ctx.ignore_certificates = mode & 0x20;
	ctx.check = mode & 0x40 ? owner_check : NULL;
	for (i = 0; i < MAX_REQUESTS && size > 0; i++) {
		const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
		size_t n = sep ? (size_t)(sep - data) : size;

		/* later requests of an input arrive whole */
		one_request(&ctx, fd, i == 0 ? mode : 0, data, n);
		if (!sep)
			break;
		size -= n + strlen(SEPARATOR);
		data = sep + strlen(SEPARATOR);
	}
	fuzz_rm_below(dir);
	return 0;
}
