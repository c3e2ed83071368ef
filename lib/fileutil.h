/* Small file-system helpers shared by the tools, daemons and CGI programs. */
#ifndef WSEQ_FILEUTIL_H
#define WSEQ_FILEUTIL_H

#include "common.h"
#include "sbuf.h"

#include <sys/stat.h>

/* mkdir -p; existing directories are fine. 0 / -1 (logged). */
int mkdir_p(const char *path, mode_t mode);
/* mkdir -p of the directory path is in (nothing for a bare name or one in /). 0 / -1. */
int mkdir_parent(const char *path, mode_t mode);
/* The last component of path (a pointer into it). */
const char *path_base(const char *path);
/* Write all n bytes of p to fd, again after EINTR and short writes. 0, or -1 (errno; ENOSPC when write() wrote nothing). */
int write_all(int fd, const void *p, size_t n);

/*
 * Write data to path through a temporary file in the same directory
 * (path.tmp.PID, made new: never through a link planted there) and a
 * rename, so readers never see a partial file. The file gets mode and is
 * synced before the rename. 0, or -1 (logged; errno kept).
 */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);
/* The same for name relative to the directory dfd (AT_FDCWD: the working directory). */
int write_file_atomic_at(int dfd, const char *name, const void *data, size_t len, mode_t mode);
/*
 * Remove what interrupted write_file_atomic(path) calls left: their
 * temporary files. Only for a path one writer at a time writes (a daemon's
 * own output, rewritten after the daemon was killed mid-copy): any such
 * file but this process's own is then a dead writer's -- whether that
 * process is gone, a zombie nobody reaped, or its pid in use again.
 * 0 / -1 (logged).
 */
int remove_stale_temps(const char *path);
/* Copy src to dst (atomically, as above), following symlinks. */
int copy_file(const char *src, const char *dst, mode_t mode);
/* Read a whole file of at most max bytes into out. */
int read_file(const char *path, size_t max, struct sbuf *out);
/*
 * Has the file at path changed since *st (a zeroed *st on the first call)?
 * *st is updated. A file that cannot be stat'ed counts as changed once,
 * when it disappears.
 */
bool file_changed(const char *path, struct stat *st);
/* Is path an existing directory with at least one entry? */
bool dir_nonempty(const char *path);
/* rm -rf path; refuses "/" and "". */
int remove_tree(const char *path);
/* nbytes random bytes from the kernel, written as 2*nbytes lowercase hex + NUL. */
int random_hex(char *out, size_t nbytes);
/* chown path to the user's uid and primary gid; 0 / -1 (logged). */
int chown_to_user(const char *path, const char *user);
/*
 * Give path to user's group with mode (02775 for a directory its files
 * inherit the group of; 0640 for a file the group may read).
 */
int share_with_group_of(const char *path, const char *user, mode_t mode);

#endif
