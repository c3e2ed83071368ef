/*
 * Code signing for BOINC clients: key pairs, BOINC's key and signature text,
 * signing MD5 strings with PKCS#1 v1.5 type-1 padding, and the client's
 * check. Only libcrypto's EVP interface is used (OpenSSL 3 deprecates the
 * RSA_* calls BOINC itself used). See crypt_rsa.h for the formats.
 */
#include "common.h"
#include "crypt_rsa.h"
#include "log.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#define CRYPT_KEYFILE_MAX (64 * 1024)
#define CRYPT_PRIME_LEN 64      /* bytes of each prime-sized field of a private key text */
#define CRYPT_HEX_LINE_BYTES 32   /* BOINC breaks hex text after 32 bytes */

/* The reason of libcrypto's latest error, for a log line; clears the queue. */
static const char *crypt_ossl_reason(char *buf, size_t size)
{
	unsigned long e = ERR_peek_last_error();

	if (e)
		ERR_error_string_n(e, buf, size);
	else
		wstrlcpy(buf, "unknown libcrypto error", size);
	ERR_clear_error();
	return buf;
}

/* --- hex text ----------------------------------------------------------- */

int crypt_hex_text(const unsigned char *p, size_t n, struct sbuf *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t start = out->len;

	for (size_t i = 0; i < n; i++) {
		char pair[2] = { digits[p[i] >> 4], digits[p[i] & 0xf] };

		if (sbuf_add(out, pair, 2) < 0)
			goto full;
		if (i % CRYPT_HEX_LINE_BYTES == CRYPT_HEX_LINE_BYTES - 1 && sbuf_addch(out, '\n') < 0)
			goto full;
	}
	if (n % CRYPT_HEX_LINE_BYTES != 0 && sbuf_addch(out, '\n') < 0)
		goto full;
	if (sbuf_addstr(out, ".\n") < 0)
		goto full;
	return 0;
full:
	sbuf_truncate(out, start);
	return log_error("hex text does not fit its buffer");
}

static int crypt_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long crypt_scan_hex(const char *text, unsigned char *out, size_t max)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = 0;

	for (;;) {
		int hi, lo;

		while (isspace(*s))
			s++;
		hi = crypt_hexval(*s);
		lo = hi < 0 ? -1 : crypt_hexval(s[1]);
		if (lo < 0)
			break;
		if (n == max)
			return -1;
		out[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return (long)n;
}

/* --- files -------------------------------------------------------------- */

/* Read a small text file whole (key files); NUL-terminated in out. */
static int crypt_read_text(const char *path, struct sbuf *out)
{
	char buf[4096];
	size_t r;
	FILE *f = fopen(path, "re");

	if (!f)
		return log_error("cannot open %s: %s", path, strerror(errno));
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sbuf_add(out, buf, r) < 0) {
			fclose(f);
			return log_error("%s is too large for a key file", path);
		}
	}
	if (ferror(f)) {
		fclose(f);
		return log_error("cannot read %s", path);
	}
	fclose(f);
	return 0;
}

typedef int (*crypt_writer)(FILE *f, EVP_PKEY *key);

/*
 * Create path (which must not exist) with exactly mode and write it. O_EXCL
 * and the mode given to open() mean a private key is never readable by
 * anyone else, not even between creation and a later chmod.
 */
static int crypt_write_new(const char *path, mode_t mode, crypt_writer write_fn,
			   EVP_PKEY *key)
{
	char why[256];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	FILE *f;
	int ok;

	if (fd < 0)
		return log_error("cannot create %s: %s", path, strerror(errno));
	/* The umask may have taken bits away; the mode is what we promised. */
	if (fchmod(fd, mode) < 0 || !(f = fdopen(fd, "w"))) {
		log_error("cannot set up %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	errno = 0;
	ok = write_fn(f, key);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		ok = 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		int saved = errno;

		unlink(path);
		if (saved)
			return log_error("cannot write %s: %s", path, strerror(saved));
		return log_error("cannot write %s: %s", path, crypt_ossl_reason(why, sizeof(why)));
	}
	return 0;
}

static int crypt_write_private_pem(FILE *f, EVP_PKEY *key)
{
	return PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
}

static int crypt_write_public_pem(FILE *f, EVP_PKEY *key)
{
	return PEM_write_PUBKEY(f, key);
}

static int crypt_write_public_boinc(FILE *f, EVP_PKEY *key)
{
	struct sbuf text = SBUF_INIT(CRYPT_TEXT_MAX);
	int ok = crypt_public_key_text(key, &text) == 0 &&
		 fwrite(text.buf, 1, text.len, f) == text.len;

	sbuf_release(&text);
	return ok;
}

/* --- keys --------------------------------------------------------------- */

/* An RSA key the 7.20 client can use: at most 1024 bits. */
static int crypt_check_key(EVP_PKEY *key, const char *what)
{
	if (!EVP_PKEY_is_a(key, "RSA"))
		return log_error("%s is not an RSA key", what);
	if (EVP_PKEY_get_bits(key) > CRYPT_MAX_BITS)
		return log_error("%s has %d bits; BOINC clients accept at most %d",
				 what, EVP_PKEY_get_bits(key), CRYPT_MAX_BITS);
	return 0;
}

/* Write a new key's three files; on failure none of them is left. */
static int crypt_write_keypair(EVP_PKEY *key, const char *private_pem_path,
			       const char *public_boinc_path, const char *public_pem_path)
{
	if (crypt_write_new(private_pem_path, 0600, crypt_write_private_pem, key) < 0)
		return -1;
	if (crypt_write_new(public_boinc_path, 0644, crypt_write_public_boinc, key) < 0) {
		unlink(private_pem_path);
		return -1;
	}
	if (public_pem_path &&
	    crypt_write_new(public_pem_path, 0644, crypt_write_public_pem, key) < 0) {
		unlink(private_pem_path);
		unlink(public_boinc_path);
		return -1;
	}
	return 0;
}

int crypt_generate_keypair(int bits, const char *private_pem_path,
			   const char *public_boinc_path, const char *public_pem_path)
{
	char why[256];
	EVP_PKEY *key;
	int ret;

	if (bits > CRYPT_MAX_BITS)
		return log_error("key size %d refused: BOINC 7.20 clients hold at most %d-bit keys",
				 bits, CRYPT_MAX_BITS);
	if (bits < CRYPT_MIN_BITS)
		return log_error("key size %d refused: at least %d bits", bits, CRYPT_MIN_BITS);
	key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
	if (!key)
		return log_error("rsa key generation failed: %s", crypt_ossl_reason(why, sizeof(why)));
	ret = crypt_write_keypair(key, private_pem_path, public_boinc_path, public_pem_path);
	EVP_PKEY_free(key);
	return ret;
}

int crypt_load_private(const char *path, EVP_PKEY **out)
{
	char why[256];
	EVP_PKEY *key;
	FILE *f = fopen(path, "re");

	*out = NULL;
	if (!f)
		return log_error("cannot open %s: %s", path, strerror(errno));
	key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!key)
		return log_error("%s: not a PEM private key: %s", path,
				 crypt_ossl_reason(why, sizeof(why)));
	if (crypt_check_key(key, path) < 0) {
		EVP_PKEY_free(key);
		return -1;
	}
	*out = key;
	return 0;
}

/* A bignum parameter of key as exactly CRYPT_FIELD_LEN big-endian bytes. */
static int crypt_get_field(EVP_PKEY *key, const char *name, unsigned char *field)
{
	BIGNUM *bn = NULL;
	int r;

	if (!EVP_PKEY_get_bn_param(key, name, &bn))
		return log_error("key has no %s", name);
	r = BN_bn2binpad(bn, field, CRYPT_FIELD_LEN);
	BN_free(bn);
	if (r != CRYPT_FIELD_LEN)
		return log_error("key %s does not fit %d bytes", name, CRYPT_FIELD_LEN);
	return 0;
}

int crypt_public_key_text(EVP_PKEY *key, struct sbuf *out)
{
	unsigned char fields[2 * CRYPT_FIELD_LEN];
	size_t start = out->len;

	if (crypt_check_key(key, "key") < 0 ||
	    crypt_get_field(key, OSSL_PKEY_PARAM_RSA_N, fields) < 0 ||
	    crypt_get_field(key, OSSL_PKEY_PARAM_RSA_E, fields + CRYPT_FIELD_LEN) < 0)
		return -1;
	if (sbuf_addf(out, "%d\n", EVP_PKEY_get_bits(key)) < 0 ||
	    crypt_hex_text(fields, sizeof(fields), out) < 0) {
		sbuf_truncate(out, start);
		return log_error("public key text does not fit its buffer");
	}
	return 0;
}

static EVP_PKEY *crypt_public_from_fields(const unsigned char *n_bytes,
					  const unsigned char *e_bytes)
{
	BIGNUM *n = BN_bin2bn(n_bytes, CRYPT_FIELD_LEN, NULL);
	BIGNUM *e = BN_bin2bn(e_bytes, CRYPT_FIELD_LEN, NULL);
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *key = NULL;

	if (!n || !e || !bld || BN_is_zero(n) || BN_is_zero(e))
		goto out;
	if (!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)))
		goto out;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	if (!ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		key = NULL;
out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return key;
}

/*
 * BOINC's key text (print_key_hex): the bit count on the first line, then
 * exactly n bytes as hex. The client reads the count with sscanf("%d") and
 * skips past the newline. 0, or -1 logged (what names the text).
 */
static int crypt_scan_key_text(const char *text, const char *what, unsigned char *out, size_t n)
{
	const char *nl;
	long bits = 0, got;

	while (isspace((unsigned char)*text))
		text++;
	for (; isdigit((unsigned char)*text) && bits <= CRYPT_MAX_BITS; text++)
		bits = bits * 10 + (*text - '0');
	nl = strchr(text, '\n');
	if (bits < 1 || bits > CRYPT_MAX_BITS || !nl)
		return log_error("%s: first line must be the bit count (1..%d)", what, CRYPT_MAX_BITS);
	got = crypt_scan_hex(nl + 1, out, n);
	if (got != (long)n)
		return log_error("%s: expected %zu bytes of key, found %s", what, n,
				 got < 0 ? "more" : "fewer");
	return 0;
}

int crypt_parse_public_key_text(const char *text, EVP_PKEY **out)
{
	unsigned char fields[2 * CRYPT_FIELD_LEN];

	*out = NULL;
	if (crypt_scan_key_text(text, "key text", fields, sizeof(fields)) < 0)
		return -1;
	*out = crypt_public_from_fields(fields, fields + CRYPT_FIELD_LEN);
	if (!*out) {
		ERR_clear_error();
		return log_error("key text: not a usable rsa public key");
	}
	return 0;
}

int crypt_load_public(const char *text_or_path, EVP_PKEY **out)
{
	struct sbuf text = SBUF_INIT(CRYPT_KEYFILE_MAX);
	const char *s;
	int ret;

	*out = NULL;
	if (strchr(text_or_path, '\n'))
		return crypt_parse_public_key_text(text_or_path, out);
	if (crypt_read_text(text_or_path, &text) < 0) {
		sbuf_release(&text);
		return -1;
	}
	for (s = sbuf_str(&text); isspace((unsigned char)*s); s++)
		;
	if (isdigit((unsigned char)*s)) {
		ret = crypt_parse_public_key_text(s, out);
	} else {
		BIO *bio = BIO_new_mem_buf(text.buf, (int)text.len);
		char why[256];

		*out = bio ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
		BIO_free(bio);
		if (!*out)
			ret = log_error("%s: neither BOINC key text nor a PEM public key: %s",
					text_or_path, crypt_ossl_reason(why, sizeof(why)));
		else if ((ret = crypt_check_key(*out, text_or_path)) < 0) {
			EVP_PKEY_free(*out);
			*out = NULL;
		}
	}
	sbuf_release(&text);
	return ret;
}

/*
 * BOINC's R_RSA_PRIVATE_KEY after its bit count, as its key text holds it:
 * modulus, public and private exponent (128 bytes each), the two primes,
 * their CRT exponents and the coefficient (64 bytes each), big-endian.
 */
static const struct {
	const char *param;
	size_t len;
} crypt_private_fields[] = {
	{ OSSL_PKEY_PARAM_RSA_N, CRYPT_FIELD_LEN },
	{ OSSL_PKEY_PARAM_RSA_E, CRYPT_FIELD_LEN },
	{ OSSL_PKEY_PARAM_RSA_D, CRYPT_FIELD_LEN },
	{ OSSL_PKEY_PARAM_RSA_FACTOR1, CRYPT_PRIME_LEN },
	{ OSSL_PKEY_PARAM_RSA_FACTOR2, CRYPT_PRIME_LEN },
	{ OSSL_PKEY_PARAM_RSA_EXPONENT1, CRYPT_PRIME_LEN },
	{ OSSL_PKEY_PARAM_RSA_EXPONENT2, CRYPT_PRIME_LEN },
	{ OSSL_PKEY_PARAM_RSA_COEFFICIENT1, CRYPT_PRIME_LEN },
};
#define CRYPT_PRIVATE_TEXT_BYTES (3 * CRYPT_FIELD_LEN + 5 * CRYPT_PRIME_LEN)

static EVP_PKEY *crypt_private_from_fields(const unsigned char *p)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	BIGNUM *bn[ARRAY_SIZE(crypt_private_fields)] = { NULL };
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL, *check = NULL;
	EVP_PKEY *key = NULL;
	size_t i;
	bool ok = bld != NULL;

	for (i = 0; ok && i < ARRAY_SIZE(crypt_private_fields); i++) {
		bn[i] = BN_bin2bn(p, (int)crypt_private_fields[i].len, NULL);
		p += crypt_private_fields[i].len;
		ok = bn[i] && !BN_is_zero(bn[i]) &&
		     OSSL_PARAM_BLD_push_BN(bld, crypt_private_fields[i].param, bn[i]);
	}
	if (ok && (params = OSSL_PARAM_BLD_to_param(bld)) &&
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) &&
	    EVP_PKEY_fromdata_init(ctx) > 0 &&
	    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) > 0) {
		/* the parts must make one key: a damaged file is refused, not imported */
		check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
		if (!check || EVP_PKEY_pairwise_check(check) <= 0) {
			EVP_PKEY_free(key);
			key = NULL;
		}
	}
	EVP_PKEY_CTX_free(check);
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	for (i = 0; i < ARRAY_SIZE(bn); i++)
		BN_free(bn[i]);
	return key;
}

int crypt_parse_private_key_text(const char *text, EVP_PKEY **out)
{
	unsigned char fields[CRYPT_PRIVATE_TEXT_BYTES];

	*out = NULL;
	if (crypt_scan_key_text(text, "private key text", fields, sizeof(fields)) < 0)
		return -1;
	*out = crypt_private_from_fields(fields);
	OPENSSL_cleanse(fields, sizeof(fields));
	if (!*out) {
		ERR_clear_error();
		return log_error("private key text: not a consistent rsa private key");
	}
	return 0;
}

int crypt_import_boinc_keypair(const char *boinc_private_path, const char *boinc_public_path,
			       const char *private_pem_path, const char *public_boinc_path,
			       const char *public_pem_path)
{
	struct sbuf text = SBUF_INIT(CRYPT_KEYFILE_MAX);
	EVP_PKEY *key = NULL, *pub = NULL;
	int ret = -1;

	if (crypt_read_text(boinc_private_path, &text) < 0)
		goto out;
	if (crypt_parse_private_key_text(sbuf_str(&text), &key) < 0) {
		log_error("%s: not a BOINC private key", boinc_private_path);
		goto out;
	}
	if (crypt_check_key(key, boinc_private_path) < 0)
		goto out;
	/* the public half it came with must be this key's, or its old signatures mean nothing */
	if (boinc_public_path && access(boinc_public_path, F_OK) == 0) {
		if (crypt_load_public(boinc_public_path, &pub) < 0)
			goto out;
		if (EVP_PKEY_eq(key, pub) != 1) {
			log_error("%s is not the public half of %s", boinc_public_path,
				  boinc_private_path);
			goto out;
		}
	}
	ret = crypt_write_keypair(key, private_pem_path, public_boinc_path, public_pem_path);
out:
	OPENSSL_cleanse(text.buf, text.len);
	sbuf_release(&text);
	EVP_PKEY_free(key);
	EVP_PKEY_free(pub);
	return ret;
}

int crypt_import_boinc_public(const char *boinc_public_path, const char *public_boinc_path,
			      const char *public_pem_path)
{
	EVP_PKEY *pub = NULL;
	int ret = -1;

	if (crypt_load_public(boinc_public_path, &pub) == 0 &&
	    crypt_check_key(pub, boinc_public_path) == 0 &&
	    crypt_write_new(public_boinc_path, 0644, crypt_write_public_boinc, pub) == 0) {
		ret = 0;
		if (public_pem_path &&
		    crypt_write_new(public_pem_path, 0644, crypt_write_public_pem, pub) < 0) {
			unlink(public_boinc_path);
			ret = -1;
		}
	}
	EVP_PKEY_free(pub);
	return ret;
}

/* --- signing and checking ----------------------------------------------- */

static bool crypt_md5hex_ok(const char *md5hex)
{
	if (strlen(md5hex) != MD5_HEX_LEN)
		return false;
	for (const char *p = md5hex; *p; p++)
		if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
			return false;
	return true;
}

/*
 * RSA private-key operation over the message with PKCS#1 v1.5 type-1
 * padding. With no signature digest set, libcrypto pads the bytes as they are
 * (no DigestInfo), which is what the client's RSA_public_decrypt undoes.
 */
static int crypt_sign_bytes(EVP_PKEY *key, const char *msg, size_t len, struct sbuf *out)
{
	unsigned char sig[CRYPT_SIG_LEN];
	size_t siglen = sizeof(sig);
	char why[256];
	EVP_PKEY_CTX *ctx;
	int ret = -1;

	if (crypt_check_key(key, "signing key") < 0)
		return -1;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
	if (!ctx || EVP_PKEY_sign_init(ctx) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0 ||
	    EVP_PKEY_sign(ctx, sig, &siglen, (const unsigned char *)msg, len) <= 0)
		log_error("rsa signing failed: %s", crypt_ossl_reason(why, sizeof(why)));
	else
		ret = crypt_hex_text(sig, siglen, out);
	EVP_PKEY_CTX_free(ctx);
	OPENSSL_cleanse(sig, sizeof(sig));
	return ret;
}

int crypt_sign_md5(EVP_PKEY *key, const char *md5hex, struct sbuf *signature_text)
{
	if (!crypt_md5hex_ok(md5hex))
		return log_error("cannot sign '%.40s': not a lowercase md5 hex string", md5hex);
	return crypt_sign_bytes(key, md5hex, MD5_HEX_LEN, signature_text);
}

int crypt_sign_file_key(EVP_PKEY *key, const char *file, struct sbuf *signature_text)
{
	char md5hex[MD5_HEX_LEN + 1];

	if (md5_file(file, md5hex, NULL) < 0)
		return -1;
	return crypt_sign_md5(key, md5hex, signature_text);
}

int crypt_sign_file(const char *private_pem_path, const char *file,
		    struct sbuf *signature_text)
{
	EVP_PKEY *key;
	int ret;

	if (crypt_load_private(private_pem_path, &key) < 0)
		return -1;
	ret = crypt_sign_file_key(key, file, signature_text);
	EVP_PKEY_free(key);
	return ret;
}

int crypt_sign_string(EVP_PKEY *key, const char *text, struct sbuf *signature_text)
{
	char md5hex[MD5_HEX_LEN + 1];

	if (md5_buf(text, strlen(text), md5hex) < 0)
		return -1;
	return crypt_sign_md5(key, md5hex, signature_text);
}

/* The text an upload certificate signs; NULL when the name cannot be one. */
static char *upload_cert_text(const char *name, double max_nbytes)
{
	if (!name || strlen(name) > 1024 || !(max_nbytes >= 0 && max_nbytes < 1e18))
		return NULL;
	return xasprintf("<name>%s</name><max_nbytes>%.0f</max_nbytes>", name, max_nbytes);
}

int crypt_upload_cert(EVP_PKEY *key, const char *name, double max_nbytes, struct sbuf *sig)
{
	char *text = upload_cert_text(name, max_nbytes);
	int rc;

	if (!text)
		return log_error("no upload certificate for a name of %zu bytes with max_nbytes %g",
				 name ? strlen(name) : 0, max_nbytes);
	rc = crypt_sign_string(key, text, sig);
	free(text);
	return rc;
}

int crypt_upload_cert_check(EVP_PKEY *key, const char *name, double max_nbytes, const char *sig)
{
	char *text = upload_cert_text(name, max_nbytes);
	char md5hex[MD5_HEX_LEN + 1];
	int rc = 1;

	if (text && md5_buf(text, strlen(text), md5hex) == 0)
		rc = crypt_verify_md5(key, md5hex, sig ? sig : "");
	free(text);
	return rc;
}

int crypt_verify_md5(EVP_PKEY *key, const char *md5hex, const char *signature_text)
{
	unsigned char sig[CRYPT_SIG_LEN], clear[CRYPT_SIG_LEN];
	size_t clearlen = sizeof(clear);
	EVP_PKEY_CTX *ctx;
	long siglen;
	int ret;

	if (crypt_check_key(key, "verification key") < 0)
		return -1;
	siglen = crypt_scan_hex(signature_text, sig, sizeof(sig));
	if (siglen <= 0 || siglen > EVP_PKEY_get_size(key))
		return 1;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
	if (!ctx || EVP_PKEY_verify_recover_init(ctx) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0) {
		char why[256];

		EVP_PKEY_CTX_free(ctx);
		return log_error("rsa verification setup failed: %s",
				 crypt_ossl_reason(why, sizeof(why)));
	}
	/* A damaged signature fails the padding check: that is "invalid", not an error. */
	if (EVP_PKEY_verify_recover(ctx, clear, &clearlen, sig, (size_t)siglen) <= 0) {
		ERR_clear_error();
		ret = 1;
	} else {
		ret = clearlen == MD5_HEX_LEN && strlen(md5hex) == MD5_HEX_LEN &&
		      memcmp(clear, md5hex, MD5_HEX_LEN) == 0 ? 0 : 1;
	}
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

int crypt_verify_file(const char *public_key_text_or_path, const char *file,
		      const char *signature_text)
{
	char md5hex[MD5_HEX_LEN + 1];
	EVP_PKEY *key;
	int ret;

	if (crypt_load_public(public_key_text_or_path, &key) < 0)
		return -1;
	ret = md5_file(file, md5hex, NULL) < 0 ? -1 :
	      crypt_verify_md5(key, md5hex, signature_text);
	EVP_PKEY_free(key);
	return ret;
}
