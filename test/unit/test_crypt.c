/* Unit tests for MD5 and BOINC code signing (key text, signatures, checks). */
#include "unit.h"
#include "crypt_rsa.h"
#include "log.h"
#include "md5.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

static char tmpdir[] = "/tmp/test_crypt.XXXXXX";
static char *priv_path, *pub_path, *pubpem_path;

static char *tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

static char *read_file(const char *path)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	char buf[4096];
	ssize_t r;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		assert_int_equal(sbuf_add(&b, buf, (size_t)r), 0);
	close(fd);
	return b.buf ? sbuf_detach(&b, NULL) : xstrdup("");
}

/* One 1024-bit key pair for the whole group: generation takes a while. */
static int setup(void **state)
{
	mode_t old;
	int r;

	if (!mkdtemp(tmpdir))
		return -1;
	priv_path = tmp("code_sign.pem");
	pub_path = tmp("code_sign_public");
	pubpem_path = tmp("code_sign_public.pem");
	/* With no umask at all the private key must still come out 0600. */
	old = umask(0);
	r = crypt_generate_keypair(1024, priv_path, pub_path, pubpem_path);
	umask(old);
	return r;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	free(cmd);
	free(priv_path);
	free(pub_path);
	free(pubpem_path);
	return r == 0 ? 0 : -1;
}

/* --- md5 ---------------------------------------------------------------- */

static void test_md5_known_vectors(void **state)
{
	char hex[MD5_HEX_LEN + 1];

	assert_int_equal(md5_buf("", 0, hex), 0);
	assert_string_equal(hex, "d41d8cd98f00b204e9800998ecf8427e");
	assert_int_equal(md5_buf("abc", 3, hex), 0);
	assert_string_equal(hex, "900150983cd24fb0d6963f7d28e17f72");
	assert_int_equal(md5_buf("The quick brown fox jumps over the lazy dog", 43, hex), 0);
	assert_string_equal(hex, "9e107d9d372bb6826bd81d3542a419d6");
}

static void test_md5_file_larger_than_buffer(void **state)
{
	/* A million 'a': the classic vector, 15 times md5.c's read size. */
	size_t n = 1000000;
	char *big = xmalloc(n), *path = tmp("million_a"), *empty = tmp("empty");
	char hex[MD5_HEX_LEN + 1];
	long long nbytes = -1;

	memset(big, 'a', n);
	write_file(path, big, n);
	assert_int_equal(md5_file(path, hex, &nbytes), 0);
	assert_string_equal(hex, "7707d6ae4e027c70eea2a935c2296f21");
	assert_int_equal(nbytes, 1000000);
	write_file(empty, "", 0);
	assert_int_equal(md5_file(empty, hex, &nbytes), 0);
	assert_string_equal(hex, "d41d8cd98f00b204e9800998ecf8427e");
	assert_int_equal(nbytes, 0);
	assert_int_equal(md5_file(tmpdir, hex, NULL), -1);            /* a directory */
	assert_int_equal(md5_file("/nonexistent/x", hex, NULL), -1);
	free(big);
	free(path);
	free(empty);
}

/* --- keys --------------------------------------------------------------- */

static void test_private_key_mode_0600(void **state)
{
	struct stat st;

	assert_int_equal(stat(priv_path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(pub_path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
}

static void test_generate_never_overwrites(void **state)
{
	char *before = read_file(priv_path), *after, *other = tmp("other_pub");
	struct stat st;

	assert_int_equal(crypt_generate_keypair(1024, priv_path, other, NULL), -1);
	after = read_file(priv_path);
	assert_string_equal(before, after);
	assert_int_equal(stat(other, &st), -1);   /* nothing left behind */
	free(before);
	free(after);
	free(other);
}

static void test_generate_refuses_big_keys(void **state)
{
	char *a = tmp("big.pem"), *b = tmp("big_pub");
	struct stat st;

	assert_int_equal(crypt_generate_keypair(2048, a, b, NULL), -1);
	assert_int_equal(crypt_generate_keypair(256, a, b, NULL), -1);
	assert_int_equal(stat(a, &st), -1);
	assert_int_equal(stat(b, &st), -1);
	free(a);
	free(b);
}

static void test_load_refuses_2048_bit_key(void **state)
{
	EVP_PKEY *big = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048), *k;
	struct sbuf text = SBUF_INIT(CRYPT_TEXT_MAX);
	char *path = tmp("2048.pem");
	FILE *f = fopen(path, "w");

	assert_non_null(big);
	assert_non_null(f);
	assert_true(PEM_write_PrivateKey(f, big, NULL, NULL, 0, NULL, NULL));
	fclose(f);
	assert_int_equal(crypt_load_private(path, &k), -1);
	assert_null(k);
	assert_int_equal(crypt_public_key_text(big, &text), -1);
	assert_int_equal(text.len, 0);
	EVP_PKEY_free(big);
	free(path);
}

/* Line 1 "1024", then 8 lines of 64 lowercase hex digits, then ".". */
static void test_key_text_layout(void **state)
{
	char *text = read_file(pub_path), *save = NULL, *line;
	struct sbuf hex = SBUF_INIT(1024);
	int lineno = 0;

	assert_int_equal(text[strlen(text) - 1], '\n');
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (lineno == 1) {
			assert_string_equal(line, "1024");
		} else if (lineno <= 9) {
			assert_int_equal(strlen(line), 64);
			assert_int_equal(strspn(line, "0123456789abcdef"), 64);
			assert_int_equal(sbuf_addstr(&hex, line), 0);
		} else {
			assert_int_equal(lineno, 10);
			assert_string_equal(line, ".");
		}
	}
	assert_int_equal(lineno, 10);
	assert_int_equal(hex.len, 512);
	/* A 1024-bit modulus fills its 128 bytes: the top bit is set. */
	assert_true(strchr("89abcdef", hex.buf[0]) != NULL);
	/* The exponent is 65537, left-padded to 128 bytes. */
	for (size_t i = 256; i < 512 - 6; i++)
		assert_int_equal(hex.buf[i], '0');
	assert_string_equal(hex.buf + 506, "010001");
	sbuf_release(&hex);
	free(text);
}

static void assert_same_public(EVP_PKEY *a, EVP_PKEY *b)
{
	static const char *const names[] = { OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		BIGNUM *x = NULL, *y = NULL;

		assert_true(EVP_PKEY_get_bn_param(a, names[i], &x));
		assert_true(EVP_PKEY_get_bn_param(b, names[i], &y));
		assert_int_equal(BN_cmp(x, y), 0);
		BN_free(x);
		BN_free(y);
	}
}

static void test_key_text_round_trip(void **state)
{
	struct sbuf text = SBUF_INIT(CRYPT_TEXT_MAX);
	EVP_PKEY *priv, *pub, *pub2;
	char *file_text = read_file(pub_path);

	assert_int_equal(crypt_load_private(priv_path, &priv), 0);
	assert_int_equal(crypt_public_key_text(priv, &text), 0);
	assert_string_equal(sbuf_str(&text), file_text);
	assert_int_equal(crypt_parse_public_key_text(sbuf_str(&text), &pub), 0);
	assert_same_public(priv, pub);
	/* The PEM public key written next to it is the same key. */
	assert_int_equal(crypt_load_public(pubpem_path, &pub2), 0);
	assert_same_public(priv, pub2);
	EVP_PKEY_free(pub2);
	assert_int_equal(crypt_load_public(pub_path, &pub2), 0);
	assert_same_public(priv, pub2);
	EVP_PKEY_free(pub2);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(priv);
	sbuf_release(&text);
	free(file_text);
}

/* The client skips whitespace in the hex and stops at the first non-hex character. */
static void test_key_text_parse_is_lenient_like_the_client(void **state)
{
	char *text = read_file(pub_path), *mangled = xmalloc(4 * strlen(text) + 1), *q = mangled;
	EVP_PKEY *priv, *pub;
	bool first = true;

	for (const char *p = text; *p && *p != '.'; p++) {
		if (*p == '\n' && !first) {
			q += snprintf(q, 5, "\r\n\t ");
			continue;
		}
		if (*p == '\n')
			first = false;
		*q++ = (char)toupper((unsigned char)*p);
	}
	q += snprintf(q, 8, "</x>");
	assert_int_equal(crypt_parse_public_key_text(mangled, &pub), 0);
	assert_int_equal(crypt_load_private(priv_path, &priv), 0);
	assert_same_public(priv, pub);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(priv);
	free(mangled);
	free(text);
}

static void test_key_text_parse_refuses_bad_text(void **state)
{
	char *text = read_file(pub_path), *bad;
	EVP_PKEY *k = NULL;
	char *nl = strchr(text, '\n');

	assert_int_equal(crypt_parse_public_key_text("", &k), -1);
	assert_int_equal(crypt_parse_public_key_text("1024", &k), -1);
	assert_int_equal(crypt_parse_public_key_text("1024\nabcd\n.\n", &k), -1);
	/* Bit count missing, or beyond what the client holds. */
	assert_int_equal(crypt_parse_public_key_text(nl, &k), -1);
	bad = xasprintf("2048%s", nl);
	assert_int_equal(crypt_parse_public_key_text(bad, &k), -1);
	free(bad);
	/* 255 bytes (last pair cut) and 257 bytes. */
	bad = xstrdup(text);
	*strrchr(bad, '.') = '\0';
	bad[strlen(bad) - 3] = '\n';
	bad[strlen(bad) - 2] = '\0';
	assert_int_equal(crypt_parse_public_key_text(bad, &k), -1);
	free(bad);
	bad = xstrdup(text);
	*strrchr(bad, '.') = '\0';
	{
		char *more = xasprintf("%s00\n.\n", bad);

		assert_int_equal(crypt_parse_public_key_text(more, &k), -1);
		free(more);
	}
	assert_null(k);
	free(bad);
	free(text);
}

/* --- signatures --------------------------------------------------------- */

static char *sign_text(const char *file)
{
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);

	assert_int_equal(crypt_sign_file(priv_path, file, &sig), 0);
	return sbuf_detach(&sig, NULL);
}

static void test_signature_layout(void **state)
{
	char *f = tmp("app"), *sig;
	size_t i;

	write_file(f, "#!/bin/sh\necho hi\n", 18);
	sig = sign_text(f);
	/* 128 bytes: 4 lines of 64 hex digits and a "." line. */
	assert_int_equal(strlen(sig), 4 * 65 + 2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(strspn(sig + 65 * i, "0123456789abcdef"), 64);
		assert_int_equal(sig[65 * i + 64], '\n');
	}
	assert_string_equal(sig + 260, ".\n");
	free(sig);
	free(f);
}

static void test_sign_then_verify(void **state)
{
	char *f = tmp("app"), *sig, *pubtext = read_file(pub_path);

	write_file(f, "binary\0data\n", 12);
	sig = sign_text(f);
	assert_int_equal(crypt_verify_file(pub_path, f, sig), 0);
	assert_int_equal(crypt_verify_file(pubtext, f, sig), 0);
	assert_int_equal(crypt_verify_file(pubpem_path, f, sig), 0);
	/* Without the "." line, as the client tolerates. */
	*strrchr(sig, '.') = '\0';
	assert_int_equal(crypt_verify_file(pub_path, f, sig), 0);
	/* One changed byte in the file. */
	write_file(f, "binary\0dbta\n", 12);
	assert_int_equal(crypt_verify_file(pub_path, f, sig), 1);
	/* Errors are not "invalid": a missing file or key. */
	assert_int_equal(crypt_verify_file(pub_path, "/nonexistent/f", sig), -1);
	assert_int_equal(crypt_verify_file("/nonexistent/key", f, sig), -1);
	free(sig);
	free(pubtext);
	free(f);
}

static void test_damaged_signature_is_invalid(void **state)
{
	char *f = tmp("app"), *sig, *bad;

	write_file(f, "payload", 7);
	sig = sign_text(f);
	assert_int_equal(crypt_verify_file(pub_path, f, sig), 0);
	/* Flip a bit of each byte position in turn (first, middle, last). */
	for (size_t pos = 0; pos < 259; pos += 129) {
		if (sig[pos] == '\n')
			pos++;
		bad = xstrdup(sig);
		bad[pos] = bad[pos] == '0' ? '1' : '0';
		assert_int_equal(crypt_verify_file(pub_path, f, bad), 1);
		free(bad);
	}
	/* Truncated, too long, empty, not hex. */
	bad = xstrndup(sig, 100);
	assert_int_equal(crypt_verify_file(pub_path, f, bad), 1);
	free(bad);
	bad = xasprintf("00%s", sig);
	assert_int_equal(crypt_verify_file(pub_path, f, bad), 1);
	free(bad);
	assert_int_equal(crypt_verify_file(pub_path, f, ""), 1);
	assert_int_equal(crypt_verify_file(pub_path, f, "zz\n.\n"), 1);
	free(sig);
	free(f);
}

static void test_other_key_is_invalid(void **state)
{
	char *f = tmp("app"), *sig, *p2 = tmp("k2.pem"), *pub2 = tmp("k2_public");

	write_file(f, "payload", 7);
	sig = sign_text(f);
	assert_int_equal(crypt_generate_keypair(1024, p2, pub2, NULL), 0);
	assert_int_equal(crypt_verify_file(pub2, f, sig), 1);
	free(sig);
	free(f);
	free(p2);
	free(pub2);
}

/*
 * What the client's RSA_public_decrypt undoes: the raw RSA block must be
 * 00 01 FF..FF 00 followed by exactly the 32 md5 hex characters -- PKCS#1
 * type 1 with no DigestInfo in front of the message.
 */
static void test_signature_block_is_pkcs1_type1_without_digestinfo(void **state)
{
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX);
	unsigned char raw[CRYPT_SIG_LEN], block[CRYPT_SIG_LEN];
	size_t blocklen = sizeof(block);
	const char *md5 = "0123456789abcdef0123456789abcdef";
	EVP_PKEY *priv, *pub;
	EVP_PKEY_CTX *ctx;

	assert_int_equal(crypt_load_private(priv_path, &priv), 0);
	assert_int_equal(crypt_sign_md5(priv, md5, &sig), 0);
	assert_int_equal(crypt_scan_hex(sbuf_str(&sig), raw, sizeof(raw)), 128);
	assert_int_equal(crypt_load_public(pub_path, &pub), 0);
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pub, NULL);
	assert_non_null(ctx);
	assert_true(EVP_PKEY_verify_recover_init(ctx) > 0);
	assert_true(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) > 0);
	assert_true(EVP_PKEY_verify_recover(ctx, block, &blocklen, raw, sizeof(raw)) > 0);
	assert_int_equal(blocklen, 128);
	assert_int_equal(block[0], 0x00);
	assert_int_equal(block[1], 0x01);
	for (size_t i = 2; i < 128 - 33; i++)
		assert_int_equal(block[i], 0xff);
	assert_int_equal(block[128 - 33], 0x00);
	assert_memory_equal(block + 128 - 32, md5, 32);
	assert_int_equal(crypt_verify_md5(pub, md5, sbuf_str(&sig)), 0);
	assert_int_equal(crypt_verify_md5(pub, "0123456789abcdef0123456789abcdee", sbuf_str(&sig)), 1);
	/* Uppercase or short md5 strings are never what the client computes. */
	sbuf_reset(&sig);
	assert_int_equal(crypt_sign_md5(priv, "0123456789ABCDEF0123456789ABCDEF", &sig), -1);
	assert_int_equal(crypt_sign_md5(priv, "0123", &sig), -1);
	assert_int_equal(sig.len, 0);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(priv);
	sbuf_release(&sig);
}

static void test_sign_string_signs_its_md5(void **state)
{
	struct sbuf a = SBUF_INIT(CRYPT_TEXT_MAX), b = SBUF_INIT(CRYPT_TEXT_MAX);
	char *keytext = read_file(pub_path);
	char md5[MD5_HEX_LEN + 1];
	EVP_PKEY *priv, *pub;

	assert_int_equal(crypt_load_private(priv_path, &priv), 0);
	assert_int_equal(crypt_sign_string(priv, keytext, &a), 0);
	assert_int_equal(md5_buf(keytext, strlen(keytext), md5), 0);
	assert_int_equal(crypt_sign_md5(priv, md5, &b), 0);
	/* PKCS#1 v1.5 signing is deterministic. */
	assert_string_equal(sbuf_str(&a), sbuf_str(&b));
	assert_int_equal(crypt_parse_public_key_text(keytext, &pub), 0);
	assert_int_equal(crypt_verify_md5(pub, md5, sbuf_str(&a)), 0);
	EVP_PKEY_free(pub);
	EVP_PKEY_free(priv);
	sbuf_release(&a);
	sbuf_release(&b);
	free(keytext);
}

/* --- hex text ----------------------------------------------------------- */

static void test_hex_text(void **state)
{
	unsigned char in[33], out[40];
	struct sbuf t = SBUF_INIT(200);

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 0xa0);
	assert_int_equal(crypt_hex_text(in, 32, &t), 0);
	assert_int_equal(t.len, 64 + 1 + 2);
	assert_string_equal(t.buf + 65, ".\n");
	sbuf_reset(&t);
	assert_int_equal(crypt_hex_text(in, 33, &t), 0);
	assert_int_equal(t.len, 65 + 3 + 2);
	assert_string_equal(t.buf + 65, "80\n.\n");   /* in[32] = (32 * 7 + 0xa0) & 0xff */
	assert_int_equal(crypt_scan_hex(sbuf_str(&t), out, sizeof(out)), 33);
	assert_memory_equal(in, out, 33);
	assert_int_equal(crypt_scan_hex(sbuf_str(&t), out, 32), -1);
	assert_int_equal(crypt_scan_hex("  ab\n Cd e", out, sizeof(out)), 2);
	assert_int_equal(out[1], 0xcd);
	/* A buffer too small leaves it unchanged. */
	{
		struct sbuf small = SBUF_INIT(10);

		assert_int_equal(crypt_hex_text(in, 32, &small), -1);
		assert_int_equal(small.len, 0);
		sbuf_release(&small);
	}
	sbuf_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md5_known_vectors),
		cmocka_unit_test(test_md5_file_larger_than_buffer),
		cmocka_unit_test(test_private_key_mode_0600),
		cmocka_unit_test(test_generate_never_overwrites),
		cmocka_unit_test(test_generate_refuses_big_keys),
		cmocka_unit_test(test_load_refuses_2048_bit_key),
		cmocka_unit_test(test_key_text_layout),
		cmocka_unit_test(test_key_text_round_trip),
		cmocka_unit_test(test_key_text_parse_is_lenient_like_the_client),
		cmocka_unit_test(test_key_text_parse_refuses_bad_text),
		cmocka_unit_test(test_signature_layout),
		cmocka_unit_test(test_sign_then_verify),
		cmocka_unit_test(test_damaged_signature_is_invalid),
		cmocka_unit_test(test_other_key_is_invalid),
		cmocka_unit_test(test_signature_block_is_pkcs1_type1_without_digestinfo),
		cmocka_unit_test(test_sign_string_signs_its_md5),
		cmocka_unit_test(test_hex_text),
	};

	log_init("test_crypt", NULL);
	return cmocka_run_group_tests(tests, setup, teardown);
}
