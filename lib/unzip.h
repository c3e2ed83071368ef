/*
 * Unpacking a zip that came from an untrusted volunteer host (the outputs
 * wseq_wrapper packs when their names are not known in advance). Every
 * name is checked before a byte is written, the sizes are counted as the
 * bytes come rather than believed from the headers, and a refusal leaves
 * nothing behind in the destination.
 */
#ifndef WSEQ_UNZIP_H
#define WSEQ_UNZIP_H

#include "common.h"
#include "sbuf.h"

/*
 * Unpack zip_path into dest_dir (created if missing; files already there
 * are never replaced). Refused: absolute names, "..", "." or empty
 * components, backslashes, control characters, symlinks and other special
 * entries, duplicate names, more than max_entries entries, more than
 * max_total_bytes of content, encrypted or damaged entries. The entries are
 * first unpacked into a temporary directory beside dest_dir, then renamed
 * into place; on any error what was renamed is taken back. Directories are
 * made 0755, files 0644. 0, or -1 with the reason in err.
 */
int zip_unpack(const char *zip_path, const char *dest_dir, size_t max_total_bytes,
	       size_t max_entries, struct sbuf *err);

/*
 * Is name acceptable as a relative path inside an unpacked tree? (The
 * checks zip_unpack applies to each entry; a trailing '/' marks a
 * directory.) NULL if so, else the reason.
 */
const char *zip_name_problem(const char *name);

#endif
