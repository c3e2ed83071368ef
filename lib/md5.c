/*
 * MD5 of buffers and files through libcrypto's EVP interface (the low-level
 * MD5_* calls are deprecated in OpenSSL 3).
 */
#include "common.h"
#include "md5.h"
#include "log.h"

#include <fcntl.h>
#include <openssl/evp.h>

#define MD5_READ_SIZE (64 * 1024)

static void md5_to_hex(const unsigned char *d, char hex[MD5_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < MD5_HEX_LEN / 2; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 0xf];
	}
	hex[MD5_HEX_LEN] = '\0';
}

int md5_buf(const void *p, size_t n, char hex[MD5_HEX_LEN + 1])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;

	hex[0] = '\0';
	if (!EVP_Digest(p, n, d, &dlen, EVP_md5(), NULL) || dlen != MD5_HEX_LEN / 2)
		return log_error("md5: libcrypto cannot compute md5");
	md5_to_hex(d, hex);
	return 0;
}

static int md5_fd(int fd, const char *path, EVP_MD_CTX *ctx, unsigned char *buf,
		  long long *total)
{
	for (;;) {
		ssize_t r = read(fd, buf, MD5_READ_SIZE);

		if (r == 0)
			return 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return log_error("cannot read %s: %s", path, strerror(errno));
		}
		if (!EVP_DigestUpdate(ctx, buf, (size_t)r))
			return log_error("md5: digest update failed for %s", path);
		*total += r;
	}
}

int md5_file(const char *path, char hex[MD5_HEX_LEN + 1], long long *nbytes)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	long long total = 0;
	unsigned char *buf;
	EVP_MD_CTX *ctx;
	int fd, ret = -1;

	hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return log_error("cannot open %s: %s", path, strerror(errno));
	ctx = EVP_MD_CTX_new();
	buf = xmalloc(MD5_READ_SIZE);
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_md5(), NULL))
		log_error("md5: libcrypto cannot compute md5");
	else if (md5_fd(fd, path, ctx, buf, &total) == 0) {
		if (!EVP_DigestFinal_ex(ctx, d, &dlen) || dlen != MD5_HEX_LEN / 2)
			log_error("md5: digest final failed for %s", path);
		else {
			md5_to_hex(d, hex);
			if (nbytes)
				*nbytes = total;
			ret = 0;
		}
	}
	free(buf);
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ret;
}
