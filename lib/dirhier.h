/*
 * BOINC's download/upload fan-out: a file NAME lives in ROOT/H/NAME where H
 * is a hash of the name (not the contents), so no directory holds too many
 * files. The rule must match BOINC's exactly (sched/sched_util_basic.cpp,
 * filename_hash) because projects move their download trees between servers
 * and tools compute URLs without asking the database:
 *
 *     H = "%x" of (the int parsed from hex digits 1..7 of md5(NAME)) % fanout
 *
 * i.e. skip the first hex digit of the name's MD5 and read the next seven.
 * A fanout of 0 means no hierarchy: ROOT/NAME (BOINC's dir_hier_path).
 */
#ifndef WSEQ_DIRHIER_H
#define WSEQ_DIRHIER_H

#include "common.h"
#include "sbuf.h"

#include <sys/stat.h>

/*
 * Longest file name accepted: a name's neighbours in the hierarchy
 * (NAME.md5, NAME.gz, NAME.gz.md5, temporary NAME.tmp.XXXXXX) must still fit
 * the 255-byte limit of a path component.
 */
#define DIRHIER_NAME_MAX 240
/* More subdirectories than this is a configuration mistake (BOINC's default is 1024). */
#define DIRHIER_FANOUT_MAX 65536L

/*
 * Whether a file name may be used in the hierarchy. Upload handler and
 * create_work confine names with it. Refused: empty; longer than
 * DIRHIER_NAME_MAX; '/' or '\' (a path, on any client OS); ".." anywhere
 * (the client refuses such names, client_types.cpp); a leading '.' (".",
 * "..", and hidden files such as .htaccess that Apache would obey); a
 * leading '-' (read as an option by the tools admins run on these files);
 * control characters.
 */
bool dirhier_name_ok(const char *name);

/* The subdirectory name for name; fanout 1..DIRHIER_FANOUT_MAX. Returns 0 / -1. */
int dirhier_hash(const char *name, long fanout, char out[16]);

/*
 * Append ROOT/H/NAME (ROOT/NAME when fanout is 0) to path, creating ROOT/H
 * (mode 0755, less the umask) when create_dir. Refuses names that fail
 * dirhier_name_ok. Returns 0 / -1 (logged).
 */
int dirhier_path(const char *name, const char *root, long fanout, bool create_dir,
		 struct sbuf *path);

/*
 * Append BASE_URL/H/NAME to url, with the name percent-encoded (every byte
 * but letters, digits and "-._~"), so any accepted name gives a working URL.
 */
int dirhier_url(const char *name, const char *base_url, long fanout, struct sbuf *url);

/*
 * Create ROOT/0 .. ROOT/(fanout-1 in hex) with exactly mode (make_project).
 * ROOT must exist; existing subdirectories are left as they are.
 */
int dirhier_make_dirs(const char *root, long fanout, mode_t mode);

#endif
