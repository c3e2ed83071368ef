/*
 * Password hashes: H from a password (md5), its stored form (yescrypt) and
 * the check (crypt_r again, compared in constant time).
 */
#include "passwd.h"
#include "log.h"
#include "md5.h"
#include "sbuf.h"

#include <crypt.h>
#include <ctype.h>
#include <openssl/crypto.h>

void passwd_hash_of(const char *password, const char *email, char out[PASSWD_HASH_HEX + 1])
{
	struct sbuf b = SBUF_INIT(4096);
	size_t i, start;

	sbuf_addstr(&b, password);
	start = b.len;
	sbuf_addstr(&b, email);
	for (i = start; i < b.len; i++)
		b.buf[i] = (char)tolower((unsigned char)b.buf[i]);
	md5_buf(b.buf, b.len, out);
	sbuf_release(&b);
}

bool passwd_hash_ok(const char *s)
{
	size_t i;

	for (i = 0; i < PASSWD_HASH_HEX; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[i] == '\0';
}

static void lower_hash(const char *in, char out[PASSWD_HASH_HEX + 1])
{
	size_t i;

	for (i = 0; i < PASSWD_HASH_HEX; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
}

int passwd_store(const char *hash_hex, char out[PASSWD_STORED_MAX])
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE], h[PASSWD_HASH_HEX + 1];
	struct crypt_data *cd;
	int rc = 0;

	if (!passwd_hash_ok(hash_hex))
		return log_error("password hash: not 32 hexadecimal digits");
	lower_hash(hash_hex, h);
	/* libxcrypt takes its salt's randomness from the kernel when given none */
	if (!crypt_gensalt_rn("$y$", PASSWD_COST, NULL, 0, setting, sizeof(setting)))
		return log_error("password hash: cannot make a salt: %s", strerror(errno));
	cd = xcalloc(1, sizeof(*cd));
	if (!crypt_r(h, setting, cd) || cd->output[0] == '*' ||
	    strlen(cd->output) >= PASSWD_STORED_MAX)
		rc = log_error("password hash: yescrypt failed");
	else
		snprintf(out, PASSWD_STORED_MAX, "%s", cd->output);
	OPENSSL_cleanse(cd, sizeof(*cd));
	free(cd);
	OPENSSL_cleanse(h, sizeof(h));
	return rc;
}

bool passwd_verify(const char *hash_hex, const char *stored)
{
	char h[PASSWD_HASH_HEX + 1];
	struct crypt_data *cd;
	size_t n;
	bool ok;

	if (!stored || stored[0] != '$' || !passwd_hash_ok(hash_hex))
		return false;
	lower_hash(hash_hex, h);
	cd = xcalloc(1, sizeof(*cd));
	ok = crypt_r(h, stored, cd) != NULL && cd->output[0] != '*';
	n = strlen(stored);
	/* the lengths are public (the stored form's layout), the bytes are not */
	ok = ok && strlen(cd->output) == n && CRYPTO_memcmp(cd->output, stored, n) == 0;
	OPENSSL_cleanse(cd, sizeof(*cd));
	free(cd);
	OPENSSL_cleanse(h, sizeof(h));
	return ok;
}
