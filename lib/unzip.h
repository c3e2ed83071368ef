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
 * made 0755, files 0644. A bound of 0 is no bound. 0, or -1 with the
 * reason in err.
 */
int zip_unpack(const char *zip_path, const char *dest_dir, size_t max_total_bytes,
	       size_t max_entries, struct sbuf *err);

/* What one zip may unpack to; 0 in a field: no bound of that kind. */
struct zip_limits {
	uint64_t max_bytes;             /* content of all entries together */
	uint64_t max_entries;
	uint64_t max_entry_bytes;       /* content of one entry */
	uint64_t max_ratio;             /* content / the zip's size, past ZIP_RATIO_SLACK */
};
#define ZIP_RATIO_SLACK (1ULL << 20)

/*
 * Bounds that several zips share (a batch's), and what those unpacked so
 * far have used: a zip is charged only when it is unpacked whole.
 */
struct zip_budget {
	uint64_t max_bytes, max_entries;        /* 0: no bound */
	uint64_t bytes, entries;
};

/*
 * zip_unpack() with every limit of lim, and those of shared (may be NULL)
 * counted across zips. Every bound is checked as the bytes are
 * decompressed, in the scratch directory, before anything reaches dest_dir.
 */
int zip_unpack_limited(const char *zip_path, const char *dest_dir, const struct zip_limits *lim,
		       struct zip_budget *shared, struct sbuf *err);

/*
 * Is name acceptable as a relative path inside an unpacked tree? (The
 * checks zip_unpack applies to each entry; a trailing '/' marks a
 * directory.) NULL if so, else the reason.
 */
const char *zip_name_problem(const char *name);

#endif
