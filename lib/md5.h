/*
 * MD5 as BOINC uses it: 32 lowercase hex characters. It names files in the
 * download hierarchy (dirhier.c), fills <md5_cksum>, and is the message that
 * code signing signs (crypt.c). Not for anything that needs collision
 * resistance against an attacker; the signature is what protects app files.
 */
#ifndef WSEQ_MD5_H
#define WSEQ_MD5_H

#include "common.h"

#define MD5_HEX_LEN 32

/*
 * Hash a file of any size in fixed-size reads. nbytes (may be NULL) gets the
 * number of bytes hashed. Returns 0, or -1 (logged, naming the file).
 */
int md5_file(const char *path, char hex[MD5_HEX_LEN + 1], long long *nbytes);

/* Hash n bytes at p. Returns 0, or -1 only if libcrypto has no MD5 at all. */
int md5_buf(const void *p, size_t n, char hex[MD5_HEX_LEN + 1]);

#endif
