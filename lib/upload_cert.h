/*
 * Upload certificates: an output the client uploads carries in its
 * <file_info> an <xml_signature> over its name and max_nbytes, made with
 * the project's upload key (keys/upload_private); the upload handler takes
 * no file without a valid one. They are made when a result is made, as
 * upstream's process_result_template makes them, so a scheduler sending the
 * result only copies them; it makes one itself for an output that has none,
 * or one the key does not verify (a result made before the key was
 * replaced, or by a program that could not read the key).
 */
#ifndef WSEQ_UPLOAD_CERT_H
#define WSEQ_UPLOAD_CERT_H

#include "common.h"
#include "sbuf.h"

#include <libxml/tree.h>
#include <openssl/evp.h>

/* Is file_info an output the client uploads (a URL of the upload handler)? */
bool upload_cert_is_upload(const xmlNode *file_info);
/*
 * Give file_info (an output called name) a certificate if it is an upload
 * without a valid one: 1 when one was made, 0 when none was needed, -1 when
 * it cannot be made (logged).
 */
int upload_cert_ensure(xmlNode *file_info, const char *name, EVP_PKEY *key);
/*
 * A result's xml_doc_in with every uploaded output certified: doc as it is
 * when nothing needed a certificate, else the fragment written again with
 * them. 0 / -1 (logged; out unchanged).
 */
int upload_cert_sign_doc(const char *doc, EVP_PKEY *key, struct sbuf *out);
/*
 * The upload key of the project whose keys are in key_dir, read once a
 * process and again when its file changes; NULL when it cannot be read
 * (said once in the log: the scheduler then certifies at sending).
 */
EVP_PKEY *upload_cert_key(const char *key_dir);

#endif
