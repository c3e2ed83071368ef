/*
 * Account passwords as BOINC clients send them. The client never sends the
 * password: it sends H = md5(password + lower-cased e-mail address) in hex
 * (the "password hash"), the same for the web form, boinccmd and the BOINC
 * Manager. H is a password equivalent, so the server stores only a slow,
 * salted hash of it (yescrypt, libxcrypt's crypt_r) and compares in constant
 * time. The authenticator works as a password too: H = md5(authenticator +
 * e-mail address), as upstream allows.
 */
#ifndef WSEQ_PASSWD_H
#define WSEQ_PASSWD_H

#include "common.h"

#define PASSWD_HASH_HEX 32      /* the length of H */
/* A stored hash's room: yescrypt's "$y$j8T$<salt>$<hash>" is about 75 characters. */
#define PASSWD_STORED_MAX 128
/*
 * yescrypt's cost: 4 takes a few milliseconds on one core, so a login is
 * quick and a guess is not (the cost is in each stored hash, so raising it
 * later keeps old hashes working).
 */
#define PASSWD_COST 4

/* H for a password and an e-mail address (or user name), lower-casing it (ASCII). */
void passwd_hash_of(const char *password, const char *email, char out[PASSWD_HASH_HEX + 1]);
/* Is s 32 hexadecimal digits (any case)? */
bool passwd_hash_ok(const char *s);
/* The stored form of H (lower-cased first): 0, or -1 (logged) if libxcrypt fails. */
int passwd_store(const char *hash_hex, char out[PASSWD_STORED_MAX]);
/* Does H match the stored form? Never true for an empty or malformed stored value. */
bool passwd_verify(const char *hash_hex, const char *stored);

#endif
