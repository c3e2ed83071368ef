/*
 * Code signing exactly as the BOINC 7.20 client checks it (its lib/crypt.cpp,
 * check_file_signature2): the signed message is a file's MD5 as 32 lowercase
 * hex characters, put through the RSA private-key operation with PKCS#1 v1.5
 * type-1 padding and no DigestInfo. The client public-decrypts and compares.
 *
 * Keys: the private key lives in a PEM file (mode 0600) on the signing host
 * only. The public key goes to clients as <code_sign_key> in BOINC's text
 * format (crypt_public_key_text). Signatures travel as <file_signature> in
 * BOINC's hex text. Keys are limited to 1024 bits because the 7.20 client
 * stores modulus and exponent in fixed 128-byte fields.
 */
#ifndef WSEQ_CRYPT_H
#define WSEQ_CRYPT_H

#include "common.h"
#include "sbuf.h"
#include "md5.h"

#include <openssl/evp.h>

#define CRYPT_MAX_BITS 1024
#define CRYPT_MIN_BITS 512      /* OpenSSL's own floor for RSA key generation */
#define CRYPT_FIELD_LEN 128     /* bytes of modulus and of exponent in the key text */
#define CRYPT_SIG_LEN 128       /* bytes of a signature made with a 1024-bit key */
/* Enough for a key text (4 + 8 lines of 65 + 2) or a signature text. */
#define CRYPT_TEXT_MAX 1024

/*
 * Make an RSA key pair (exponent 65537) of bits in CRYPT_MIN_BITS ..
 * CRYPT_MAX_BITS. The private key is written as PEM, created 0600 and never
 * readable by others; the public key in BOINC's text format and, when
 * public_pem_path is not NULL, as PEM. No existing file is overwritten: a
 * code signing key that clients trust is not something to clobber by mistake.
 * On failure nothing is left behind. Returns 0 / -1 (logged).
 */
int crypt_generate_keypair(int bits, const char *private_pem_path,
			   const char *public_boinc_path, const char *public_pem_path);

/*
 * Bring over an existing BOINC project's key pair: boinc_private_path holds
 * BOINC's private key text (what upstream's crypt_prog -genkey writes to
 * keys/code_sign_private); if boinc_public_path exists it must be its public
 * half. Written as crypt_generate_keypair writes a new pair, so signatures
 * made with the old key stay valid. 0 / -1 (logged; nothing left behind).
 */
int crypt_import_boinc_keypair(const char *boinc_private_path, const char *boinc_public_path,
			       const char *private_pem_path, const char *public_boinc_path,
			       const char *public_pem_path);
/* The public half alone (a code signing key kept offline): text and PEM. */
int crypt_import_boinc_public(const char *boinc_public_path, const char *public_boinc_path,
			      const char *public_pem_path);
/*
 * Parse BOINC's private key text (print_key_hex of R_RSA_PRIVATE_KEY: the bit
 * count, then modulus, public and private exponent, primes, CRT exponents and
 * coefficient as hex). The parts must form one consistent key.
 */
int crypt_parse_private_key_text(const char *text, EVP_PKEY **out);

/* Load a private RSA key (PEM, at most CRYPT_MAX_BITS) once to sign many files. */
int crypt_load_private(const char *path, EVP_PKEY **out);

/*
 * Append the public half of key in BOINC's key text (print_key_hex): the
 * modulus bit count in decimal on the first line, then the 256 bytes of
 * modulus and exponent (each 128 bytes, big-endian, left-padded with zeros)
 * as lowercase hex, 64 characters a line, then a "." line.
 */
int crypt_public_key_text(EVP_PKEY *key, struct sbuf *out);

/*
 * Parse BOINC's public key text (sscan_key_hex): a decimal bit count ending
 * in a newline, then hex pairs with any whitespace between them, ending at
 * the first other character. Exactly 256 bytes must be present, as the
 * client needs. *out is a public-only key for crypt_verify_md5.
 */
int crypt_parse_public_key_text(const char *text, EVP_PKEY **out);

/*
 * Load a public key given either as BOINC key text itself (anything with a
 * newline in it, as every key text has) or as the path of a file holding
 * BOINC key text or a PEM public key.
 */
int crypt_load_public(const char *text_or_path, EVP_PKEY **out);

/*
 * Append n bytes as BOINC's hex data text (print_hex_data): lowercase, 64
 * characters a line, the last line ended, then a "." line.
 */
int crypt_hex_text(const unsigned char *p, size_t n, struct sbuf *out);

/*
 * Decode hex text the way the client does (sscan_hex_data): whitespace
 * skipped, stop at the first character that does not start a hex pair.
 * Returns the byte count, or -1 when more than max bytes are present.
 */
long crypt_scan_hex(const char *text, unsigned char *out, size_t max);

/* Append the <file_signature> text for an MD5 hex string. */
int crypt_sign_md5(EVP_PKEY *key, const char *md5hex, struct sbuf *signature_text);
/* Same for a file's contents. */
int crypt_sign_file_key(EVP_PKEY *key, const char *file, struct sbuf *signature_text);
/* Same, loading the private key from private_pem_path for this one file. */
int crypt_sign_file(const char *private_pem_path, const char *file,
		    struct sbuf *signature_text);
/*
 * Sign the MD5 of a string (BOINC's generate_signature): what a key rotation
 * sends as <code_sign_key_signature> over the new key text.
 */
int crypt_sign_string(EVP_PKEY *key, const char *text, struct sbuf *signature_text);

/*
 * Upload certificates (BOINC's <xml_signature> in an output's file_info):
 * the signature (as crypt_sign_string) of the text
 * "<name>NAME</name><max_nbytes>M</max_nbytes>", M printed as %.0f -- what
 * the client echoes in its upload request, so the upload handler can check
 * that the server gave out this name with this limit before it accepts a
 * byte. crypt_upload_cert_check returns 0 valid, 1 invalid, -1 error.
 */
int crypt_upload_cert(EVP_PKEY *key, const char *name, double max_nbytes, struct sbuf *sig);
int crypt_upload_cert_check(EVP_PKEY *key, const char *name, double max_nbytes, const char *sig);

/*
 * The client's check: public-decrypt signature_text with PKCS#1 type-1
 * padding and compare with md5hex. Valid only when the recovered block is
 * exactly the 32 characters, which both the 7.20 client (compares the first
 * 32) and later ones (compare the whole block) accept. Returns 0 valid,
 * 1 invalid (wrong key, wrong file, damaged or malformed signature),
 * -1 error (logged).
 */
int crypt_verify_md5(EVP_PKEY *key, const char *md5hex, const char *signature_text);
/* Same for a file; the key as for crypt_load_public. */
int crypt_verify_file(const char *public_key_text_or_path, const char *file,
		      const char *signature_text);

#endif
