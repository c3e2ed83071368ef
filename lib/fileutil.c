/* File-system helpers; see fileutil.h. */
#include "fileutil.h"
#include "log.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <sys/random.h>

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path), *s;
	struct stat st;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			rc = log_error("cannot create directory %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (rc == 0 && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
		rc = log_error("%s exists and is not a directory", path);
	free(p);
	return rc;
}

#define TMP_INFIX ".tmp."

int write_file_atomic_at(int dfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char *tmp = xasprintf("%s" TMP_INFIX "%d", name, (int)getpid());
	int fd, rc = 0, err = 0;

	/* what a killed writer of this pid left, or a link put there: never followed */
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		err = errno;
		rc = log_error("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		errno = err;
		return rc;
	}
	if (write_all(fd, data, len) < 0)
		err = errno, rc = log_error("cannot write %s: %s", tmp, strerror(errno));
	if (rc == 0 && fchmod(fd, mode) < 0)
		err = errno, rc = log_error("cannot chmod %s: %s", tmp, strerror(errno));
	if (rc == 0 && fsync(fd) < 0)
		err = errno, rc = log_error("cannot sync %s: %s", tmp, strerror(errno));
	if (close(fd) < 0 && rc == 0)
		err = errno, rc = log_error("cannot close %s: %s", tmp, strerror(errno));
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		err = errno, rc = log_error("cannot rename %s to %s: %s", tmp, name, strerror(errno));
	if (rc)
		unlinkat(dfd, tmp, 0);
	free(tmp);
	errno = err;
	return rc;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	return write_file_atomic_at(AT_FDCWD, path, data, len, mode);
}

/* "NAME.tmp.PID" for the given NAME: the PID, else 0. */
static long temp_pid(const char *entry, const char *name, size_t nlen)
{
	const char *p;
	long pid;

	if (strncmp(entry, name, nlen) != 0 || strncmp(entry + nlen, TMP_INFIX, strlen(TMP_INFIX)) != 0)
		return 0;
	p = entry + nlen + strlen(TMP_INFIX);
	if (!*p || strspn(p, "0123456789") != strlen(p) || parse_long(p, &pid) < 0)
		return 0;
	return pid;
}

int mkdir_parent(const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc;

	if (!slash || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	rc = mkdir_p(dir, mode);
	free(dir);
	return rc;
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	const char *name = slash ? slash + 1 : path;
	size_t nlen = strlen(name);
	struct dirent *e;
	DIR *d = opendir(*dir ? dir : "/");
	int rc = 0;

	if (!d) {
		if (errno != ENOENT)
			rc = log_error("cannot read directory %s: %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	while ((e = readdir(d)) != NULL) {
		long pid = temp_pid(e->d_name, name, nlen);
		char *p;

		if (pid <= 0 || pid == (long)getpid())
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(p) < 0 && errno != ENOENT)
			rc = log_error("cannot remove %s: %s", p, strerror(errno));
		else
			log_info("removed %s, left by an interrupted write", p);
		free(p);
	}
	closedir(d);
	free(dir);
	return rc;
}

int read_file(const char *path, size_t max, struct sbuf *out)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return log_error("cannot open %s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sbuf_add(out, buf, (size_t)n) < 0 || out->len > max) {
			close(fd);
			return log_error(n < 0 ? "cannot read %s: %s" : "%s is too large%s", path,
					 n < 0 ? strerror(errno) : "");
		}
	}
	close(fd);
	return 0;
}

int copy_file(const char *src, const char *dst, mode_t mode)
{
	struct sbuf b = SBUF_INIT((size_t)1 << 31);
	int rc;

	if (read_file(src, (size_t)1 << 31, &b) < 0)
		return -1;
	rc = write_file_atomic(dst, b.buf ? b.buf : "", b.len, mode);
	sbuf_release(&b);
	return rc;
}

bool dir_nonempty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL)
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return found;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path)
{
	if (!path || !*path || !strcmp(path, "/"))
		return log_error("refusing to remove '%s'", path ? path : "");
	if (access(path, F_OK) != 0)
		return 0;
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0)
		return log_error("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

int random_hex(char *out, size_t nbytes)
{
	unsigned char buf[256];
	size_t i;

	if (nbytes > sizeof(buf))
		return log_error("random_hex: %zu bytes is too many", nbytes);
	if (getrandom(buf, nbytes, 0) != (ssize_t)nbytes)
		return log_error("cannot get random bytes: %s", strerror(errno));
	for (i = 0; i < nbytes; i++)
		snprintf(out + 2 * i, 3, "%02x", buf[i]);
	out[2 * nbytes] = '\0';
	return 0;
}

int share_with_group_of(const char *path, const char *user, mode_t mode)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		return log_error("no such user: %s", user);
	if (chown(path, (uid_t)-1, pw->pw_gid) < 0 || chmod(path, mode) < 0)
		return log_error("cannot share %s with %s: %s", path, user, strerror(errno));
	return 0;
}

int chown_to_user(const char *path, const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		return log_error("no such user: %s", user);
	if (chown(path, pw->pw_uid, pw->pw_gid) < 0)
		return log_error("cannot give %s to %s: %s", path, user, strerror(errno));
	return 0;
}

bool file_changed(const char *path, struct stat *st)
{
	struct stat now;

	if (stat(path, &now) != 0) {
		bool had = st->st_ino != 0;

		memset(st, 0, sizeof(*st));
		return had;
	}
	if (now.st_ino == st->st_ino && now.st_dev == st->st_dev && now.st_size == st->st_size &&
	    now.st_mtim.tv_sec == st->st_mtim.tv_sec && now.st_mtim.tv_nsec == st->st_mtim.tv_nsec)
		return false;
	*st = now;
	return true;
}

int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;         /* nothing written: never loop on it */
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
