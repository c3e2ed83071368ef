/* Daemon processes as the control programs see them; see daemon_proc.h. */
#include "daemon_proc.h"
#include "config.h"
#include "log.h"
#include "sbuf.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#define MAX_CMD 65536

void proc_free_argv(char **argv)
{
	char **a;

	if (!argv)
		return;
	for (a = argv; *a; a++)
		free(*a);
	free(argv);
}

int proc_split_cmd(const char *cmd, char ***argv_out)
{
	struct sbuf w = SBUF_INIT(MAX_CMD);
	char **argv = xcalloc(1, sizeof(*argv));
	int argc = 0;
	const char *p = cmd;

	*argv_out = NULL;
	for (;;) {
		bool inword = false;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		sbuf_reset(&w);
		while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
			inword = true;
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');
				if (!q)
					goto bad;
				sbuf_add(&w, p + 1, (size_t)(q - p - 1));
				p = q + 1;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' ||
							   p[1] == '`'))
						p++;
					sbuf_addch(&w, *p);
				}
				if (*p != '"')
					goto bad;
				p++;
			} else if (*p == '\\') {
				if (!p[1])
					goto bad;
				sbuf_addch(&w, p[1]);
				p += 2;
			} else {
				sbuf_addch(&w, *p++);
			}
		}
		if (inword) {
			ARRAY_GROW(argv, argc + 1);     /* and the NULL after it */
			argv[argc++] = xstrdup(sbuf_str(&w));
			argv[argc] = NULL;
		}
	}
	sbuf_release(&w);
	if (argc == 0) {
		free(argv);
		return -1;
	}
	*argv_out = argv;
	return argc;
bad:
	sbuf_release(&w);
	proc_free_argv(argv);
	return -1;
}

enum proc_pid_rc proc_pid_read(const char *path, pid_t *pid)
{
	char buf[32];
	ssize_t n;
	long v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*pid = 0;
	if (fd < 0)
		return errno == ENOENT ? PROC_PID_MISSING : PROC_PID_BAD;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return PROC_PID_BAD;
	buf[n] = '\0';
	if (parse_long(buf, &v) < 0 || v <= 1 || v > INT_MAX)
		return PROC_PID_BAD;
	*pid = (pid_t)v;
	return PROC_PID_OK;
}

int proc_pid_write(const char *path, pid_t pid)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	char buf[32];
	int fd, n, rc = 0;

	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = log_error("cannot create %s: %s", tmp, strerror(errno));
	} else {
		if (write(fd, buf, (size_t)n) != n)
			rc = log_error("cannot write %s: %s", tmp, strerror(errno));
		if (close(fd) < 0 && rc == 0)
			rc = log_error("cannot write %s: %s", tmp, strerror(errno));
		if (rc == 0 && rename(tmp, path) < 0)
			rc = log_error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		if (rc < 0)
			unlink(tmp);
	}
	free(tmp);
	return rc;
}

const char *proc_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A zombie has exited already: only its parent's wait() is missing. */
static bool proc_zombie(pid_t pid)
{
	char path[64], buf[512];
	const char *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	rp = strrchr(buf, ')');         /* the command name may itself hold ')' */
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

bool proc_is(pid_t pid, const char *prog)
{
	const char *want = proc_basename(prog);
	char path[64];
	char *buf;
	ssize_t n;
	size_t len = 0, off;
	int fd, word;
	bool found = false;

	if (pid <= 1 || (kill(pid, 0) < 0 && errno != EPERM) || proc_zombie(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	buf = xmalloc(8192 + 1);
	while (len < 8192 && (n = read(fd, buf + len, 8192 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (off = 0, word = 0; off < len && word < 2 && !found; word++) {
		found = strcmp(proc_basename(buf + off), want) == 0;
		off += strlen(buf + off) + 1;
	}
	free(buf);
	return found;
}

int proc_mkdirs(const char *dir)
{
	char *d = xstrdup(dir);
	char *p;
	int rc = 0;

	for (p = d + 1; rc == 0; p++) {
		bool end = *p == '\0';

		if (*p != '/' && !end)
			continue;
		*p = '\0';
		if (mkdir(d, 0755) < 0 && errno != EEXIST)
			rc = log_error("cannot create directory %s: %s", d, strerror(errno));
		if (end)
			break;
		*p = '/';
	}
	free(d);
	return rc;
}

/* An absolute path for a name in dir, unless it is absolute already. */
static char *in_dir(const char *dir, const char *name)
{
	return name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dir, name);
}

static char *strip_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n > m && !strcmp(s + n - m, suffix))
		return xstrndup(s, n - m);
	return xstrdup(s);
}

int proc_daemon_init(const struct project_config *cfg, const struct config_daemon *cd,
		     struct proc_daemon *d)
{
	const char *base;

	memset(d, 0, sizeof(*d));
	d->cd = cd;
	if (proc_split_cmd(cd->cmd, &d->argv) < 0)
		return log_error("%s: <cmd>%s</cmd>: empty, or a quote is not closed", cfg->path, cd->cmd);
	d->prog = strchr(d->argv[0], '/') ? in_dir(cfg->project_dir, d->argv[0])
					  : xasprintf("%s/bin/%s", cfg->project_dir, d->argv[0]);
	free(d->argv[0]);
	d->argv[0] = xstrdup(d->prog);
	base = proc_basename(d->prog);
	if (cd->pid_file && *cd->pid_file) {
		d->name = strip_suffix(proc_basename(cd->pid_file), ".pid");
		d->pid_path = in_dir(cfg->pid_dir, cd->pid_file);
	} else {
		d->name = xstrdup(base);
		d->pid_path = xasprintf("%s/%s.pid", cfg->pid_dir, base);
	}
	if (cd->output && *cd->output)
		d->log_path = in_dir(cfg->log_dir, cd->output);
	else
		d->log_path = xasprintf("%s/%s.log", cfg->log_dir, d->name);
	return 0;
}

void proc_daemon_release(struct proc_daemon *d)
{
	proc_free_argv(d->argv);
	free(d->prog);
	free(d->name);
	free(d->pid_path);
	free(d->log_path);
	memset(d, 0, sizeof(*d));
}

void proc_daemon_probe(struct proc_daemon *d)
{
	switch (proc_pid_read(d->pid_path, &d->pid)) {
	case PROC_PID_MISSING:
		d->state = PROC_NONE;
		break;
	case PROC_PID_BAD:
		d->state = PROC_BADPID;
		break;
	case PROC_PID_OK:
		d->state = proc_is(d->pid, d->prog) ? PROC_RUNNING : PROC_STALE;
		break;
	}
}
