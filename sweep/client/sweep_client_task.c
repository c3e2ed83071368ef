/*
 * One task of sweep_client: a fresh directory, the [Input] files written
 * into it, the worker run there in its own process group (stdin from the
 * task's stdin input, stdout and stderr to files beside the work directory)
 * under the task's Timeout and with pings to the master, then the [Result]
 * items posted -- or the failure reported, with the reason in the log. Told
 * SendOutput=Yes by the master, the client adds the worker's exit status and
 * the first SWEEP_OUTPUT_MAX bytes of its stdout and the last ones of its
 * stderr to /complete, and posts the same to /failed. The
 * worker is always the verified executable, never the first word of the
 * command line, and gets no shell and never the session ID.
 */
#include "sweep_client.h"
#include "sweep_expand.h"
#include "sweep_util.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sig.h"
#include "wtime.h"

#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <curl/curl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define KILL_GRACE 2.0          /* seconds between SIGTERM and SIGKILL */
#define PING_TIMEOUT 10         /* seconds a ping may take */
#define STDERR_TAIL 1024        /* bytes of the worker's stderr logged on failure */

static int chld_pipe[2] = { -1, -1 };

static void on_sigchld(int sig)
{
	int e = errno;
	ssize_t n;

	(void)sig;
	n = write(chld_pipe[1], "c", 1);
	(void)n;
	errno = e;
}

/* SIGCHLD wakes the wait for the worker through a pipe, so a short task costs no polling delay. */
static int chld_init(void)
{
	if (chld_pipe[0] >= 0)
		return 0;
	if (pipe2(chld_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return log_error("cannot make a pipe: %s", strerror(errno));
	if (SIG_SET(on_sigchld, SA_NOCLDSTOP, SIGCHLD) < 0)
		return log_error("cannot catch SIGCHLD: %s", strerror(errno));
	return 0;
}

static void chld_drain(void)
{
	char buf[64];

	while (read(chld_pipe[0], buf, sizeof(buf)) > 0)
		;
}

/* Wait up to secs for SIGCHLD (or another signal). */
static void chld_wait(double secs)
{
	struct pollfd p = { chld_pipe[0], POLLIN, 0 };

	if (secs < 0)
		secs = 0;
	if (poll(&p, 1, secs > 1 ? 1000 : (int)(secs * 1000) + 1) > 0)
		chld_drain();
}

/*
 * The stat of the file last verified is kept, and the file is hashed again
 * only when it differs -- or when the file was changed in the second it was
 * hashed, since a change in that same second could leave the times as they
 * were (git's "racy" index entries).
 */
bool sc_worker_ok(const char *path, const char *md5)
{
	static struct stat known;
	static time_t known_at;
	static char known_md5[MD5_HEX_LEN + 1];
	struct stat st;
	char hex[MD5_HEX_LEN + 1];

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (!strcmp(known_md5, md5) && st.st_dev == known.st_dev && st.st_ino == known.st_ino &&
	    st.st_size == known.st_size && st.st_mtim.tv_sec == known.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == known.st_mtim.tv_nsec && st.st_ctim.tv_sec == known.st_ctim.tv_sec &&
	    st.st_ctim.tv_nsec == known.st_ctim.tv_nsec && st.st_mtim.tv_sec < known_at &&
	    st.st_ctim.tv_sec < known_at)
		return true;
	known_md5[0] = '\0';
	known_at = time(NULL);
	if (md5_file(path, hex, NULL) < 0)
		return false;
	if (strcmp(hex, md5) != 0) {
		log_info("%s has md5 %s, not %s", path, hex, md5);
		return false;
	}
	known = st;
	wstrlcpy(known_md5, md5, sizeof(known_md5));
	return true;
}

/*
 * Create the file name (already checked relative and free of "..") under
 * the directory fd dirfd, with the directories on its way; nothing that
 * exists is followed or overwritten.
 */
static int write_input(int dirfd, const char *name, const char *data, size_t len, struct sbuf *why)
{
	char *path = xstrdup(name), *slash;
	int fd, rc = 0;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (*path && mkdirat(dirfd, path, 0700) < 0 && errno != EEXIST) {
			sbuf_addf(why, "cannot make directory '%s' for an input: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		*slash = '/';
	}
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, data, len) < 0) {
		sbuf_addf(why, "cannot write input '%s': %s", name, strerror(errno));
		rc = -1;
	}
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		sbuf_addf(why, "cannot write input '%s': %s", name, strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

static int write_inputs(const char *tdir, const struct sweep_task *t, struct sbuf *why)
{
	char *work = xasprintf("%s/work", tdir);
	int dirfd, rc = 0;
	size_t i;

	dirfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(work);
	if (dirfd < 0) {
		sbuf_addf(why, "cannot open the task directory: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < t->ninputs && rc == 0; i++) {
		const struct sweep_msg_input *in = &t->inputs[i];

		if (!strcmp(in->file, "stdin")) {
			char *p = xasprintf("%s/stdin", tdir);

			if (write_file_atomic(p, in->data, in->len, 0600) < 0) {
				sbuf_addf(why, "cannot write the worker's stdin");
				rc = -1;
			}
			free(p);
		} else if (!sweep_safe_filename(in->file)) {
			/* the decoder refuses these; this is the second lock on the door */
			sbuf_addf(why, "unsafe input file name '%s'", in->file);
			rc = -1;
		} else {
			rc = write_input(dirfd, in->file, in->data, in->len, why);
		}
	}
	close(dirfd);
	return rc;
}

static int open_out(const char *tdir, const char *name)
{
	char *p = xasprintf("%s/%s", tdir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		log_error("cannot create %s: %s", p, strerror(errno));
	free(p);
	return fd;
}

/*
 * Start the worker in its own process group, in tdir/work, its standard
 * files tdir's, default signal handling and no blocked signal; -1 (why says
 * why) if it cannot start. posix_spawn: glibc starts it without copying
 * the client's memory map (vfork), which a fork for every task did.
 */
static pid_t spawn(struct sc_ctx *c, const char *tdir, char **argv, bool has_stdin, struct sbuf *why)
{
	static const int dfl[] = { SIGCHLD, SIGPIPE, SIGHUP, SIGTERM, SIGINT };
	char *inpath = has_stdin ? xasprintf("%s/stdin", tdir) : xstrdup("/dev/null");
	char *work = xasprintf("%s/work", tdir);
	int in = open(inpath, O_RDONLY | O_CLOEXEC);
	int out = open_out(tdir, "stdout"), err = open_out(tdir, "stderr");
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	pid_t pid = -1;
	size_t i;
	int rc;

	free(inpath);
	if (in < 0 || out < 0 || err < 0) {
		sbuf_addf(why, "cannot set up the worker's standard files: %s", strerror(errno));
		goto done;
	}
	sigemptyset(&none);
	sigemptyset(&def);
	for (i = 0; i < ARRAY_SIZE(dfl); i++)
		sigaddset(&def, dfl[i]);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawn_file_actions_addchdir_np(&fa, work);
	rc = posix_spawn(&pid, c->worker, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		sbuf_addf(why, "cannot start the worker: %s", strerror(rc));
		pid = -1;
	}
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	free(work);
	return pid;
}

/*
 * Has the worker (the group leader) ended? It is not reaped here, so its
 * pid -- the group's id -- cannot be reused before the group is killed.
 */
static bool leader_ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * End the worker's whole process group: SIGTERM (unless the leader has
 * ended already), SIGKILL after a grace period, then reap the group until
 * none of it is left. The client is a subreaper, so the worker's orphans
 * are its children too.
 */
static void end_group(pid_t pid, int *status, bool ended)
{
	double end = dnow() + KILL_GRACE;
	bool reaped = false;
	int st;

	if (!ended) {
		kill(-pid, SIGTERM);
		while (!leader_ended(pid) && dnow() < end)
			chld_wait(end - dnow());
	}
	kill(-pid, SIGKILL);
	end = dnow() + KILL_GRACE;
	for (;;) {
		pid_t w = waitpid(-pid, &st, WNOHANG);

		if (w == pid) {
			*status = st;
			reaped = true;
		} else if (w < 0) {
			break;          /* ECHILD: nothing of the group is left */
		} else if (w == 0) {
			if (dnow() >= end) {
				log_warn("processes of the worker's group %d will not die", (int)pid);
				break;
			}
			chld_wait(0.05);
		}
	}
	if (!reaped && waitpid(pid, status, 0) < 0)
		log_warn("cannot wait for the worker %d: %s", (int)pid, strerror(errno));
}

enum wait_end { W_EXITED, W_TIMEOUT, W_END };

/* A ping while the worker runs: SC_TASK_DONE means keep on. */
static enum sc_task_end ping(struct sc_ctx *c, const char *ticket)
{
	struct sc_reply r;
	char *extra = xasprintf("&ticket=%s", ticket);
	enum sc_task_end end = SC_TASK_DONE;
	long timeout = c->ping < PING_TIMEOUT ? (c->ping < 2 ? 2 : c->ping) : PING_TIMEOUT;

	sc_reply_init(&r);
	if (sc_request_once(c->http, "/ping", extra, NULL, timeout, &r) == 0 &&
	    (r.status == 204 || r.status == 200 || r.status == 205 || r.status == 403)) {
		sc_http_heard(c->http);
		if (r.status == 205) {
			log_info("task %s: the master says it is done or expired (205): dropping it",
				 ticket);
			end = SC_TASK_DROPPED;
		} else if (r.status == 403) {
			log_error("ping: the master refused the session (403 Forbidden)");
			end = SC_TASK_FORBIDDEN;
		}
	} else {
		if (r.status)
			log_warn("/ping: unexpected answer %ld from the master", r.status);
		sc_http_missed(c->http);
		if (sc_http_silent(c->http)) {
			log_error("no answer from the master for %ld s: giving up", c->http->max_silence);
			end = SC_TASK_SILENT;
		}
	}
	sc_reply_release(&r);
	free(extra);
	return end;
}

/*
 * Wait for the worker, killing it when the timeout passes. W_END with *end
 * set when the task is over for another reason (205, 403, silence, signal).
 */
static enum wait_end wait_worker(struct sc_ctx *c, const struct sweep_task *t, pid_t pid,
				 int *status, enum sc_task_end *end)
{
	double start = dnow();
	double deadline = t->timeout > 0 ? start + (double)t->timeout : 0;
	double next_ping = c->ping > 0 ? start + (double)c->ping : 0;

	for (;;) {
		double now, wake;

		if (leader_ended(pid)) {
			end_group(pid, status, true);   /* and whatever it left behind */
			return W_EXITED;
		}
		if (sc_stop) {
			end_group(pid, status, false);
			*end = SC_TASK_STOPPED;
			return W_END;
		}
		now = dnow();
		if (deadline && now >= deadline) {
			end_group(pid, status, false);
			return W_TIMEOUT;
		}
		if (next_ping && now >= next_ping) {
			*end = ping(c, t->ticket);
			if (*end != SC_TASK_DONE) {
				end_group(pid, status, false);
				return W_END;
			}
			next_ping = dnow() + (double)c->ping;
			continue;
		}
		wake = 1;
		if (deadline && deadline - now < wake)
			wake = deadline - now;
		if (next_ping && next_ping - now < wake)
			wake = next_ping - now;
		chld_wait(wake);
	}
}

/* The result's file, if it is a regular file inside the work directory. */
static int read_result(const char *tdir, const struct sweep_msg_result *res, struct sbuf *data,
		       struct sbuf *why)
{
	char *work = xasprintf("%s/work", tdir);
	char *path = !strcmp(res->file, "stdout") ? xasprintf("%s/stdout", tdir)
						  : xasprintf("%s/%s", work, res->file);
	char *real = NULL, *realwork = realpath(work, NULL);
	struct stat st;
	int rc = -1;

	if (!strcmp(res->file, "stdout")) {
		rc = read_file(path, SWEEP_MSG_MAX / 2, data);
		if (rc < 0)
			sbuf_addf(why, "cannot read the worker's stdout");
		goto done;
	}
	real = realpath(path, NULL);
	if (!real) {
		if (errno == ENOENT)
			sbuf_addf(why, "result file '%s' missing", res->file);
		else
			sbuf_addf(why, "result file '%s': %s", res->file, strerror(errno));
	} else if (!realwork || strncmp(real, realwork, strlen(realwork)) != 0 ||
		   real[strlen(realwork)] != '/') {
		sbuf_addf(why, "result file '%s' leads out of the work directory", res->file);
	} else if (stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
		sbuf_addf(why, "result file '%s' is not a regular file", res->file);
	} else if (read_file(real, SWEEP_MSG_MAX / 2, data) < 0) {
		sbuf_addf(why, "cannot read result file '%s'", res->file);
	} else {
		rc = 0;
	}
done:
	free(real);
	free(realwork);
	free(path);
	free(work);
	return rc;
}

static int collect(const char *tdir, const struct sweep_task *t, struct sweep_complete *comp,
		   struct sbuf *why)
{
	struct sbuf data = SBUF_INIT(SWEEP_MSG_MAX);
	size_t i;
	int rc = 0;

	for (i = 0; i < t->nresults && rc == 0; i++) {
		sbuf_reset(&data);
		rc = read_result(tdir, &t->results[i], &data, why);
		if (rc == 0)
			sweep_complete_add(comp, t->results[i].name, data.buf ? data.buf : "", data.len);
	}
	sbuf_release(&data);
	return rc;
}

/* The worker's stdout (its first bytes) or stderr (its last) as a stream of the report. */
static void read_stream(const char *tdir, const char *name, bool tail, struct sweep_msg_stream *s)
{
	char *p = xasprintf("%s/%s", tdir, name), *buf = xmalloc(SWEEP_OUTPUT_MAX);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	off_t size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END), from = 0;
	size_t got = 0;
	ssize_t n;

	if (size > (off_t)SWEEP_OUTPUT_MAX && tail)
		from = size - (off_t)SWEEP_OUTPUT_MAX;
	if (size >= 0 && lseek(fd, from, SEEK_SET) == from)
		while (got < SWEEP_OUTPUT_MAX && (n = read(fd, buf + got, SWEEP_OUTPUT_MAX - got)) > 0)
			got += (size_t)n;
	if (size >= 0)
		sweep_complete_stream(s, buf, got, (size_t)size);
	if (fd >= 0)
		close(fd);
	free(buf);
	free(p);
}

/* What SendOutput adds to a report: the exit status (set by run_worker) and the streams. */
static void add_output(const char *tdir, struct sweep_complete *comp)
{
	read_stream(tdir, "stdout", false, &comp->out);
	read_stream(tdir, "stderr", true, &comp->err);
}

/* The end of the worker's stderr, for the log of a failed task. */
static void log_stderr_tail(const char *tdir, const char *ticket)
{
	char *p = xasprintf("%s/stderr", tdir);
	char buf[STDERR_TAIL + 1];
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t n;

	free(p);
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > 0 && lseek(fd, size > STDERR_TAIL ? size - STDERR_TAIL : 0, SEEK_SET) >= 0 &&
	    (n = read(fd, buf, STDERR_TAIL)) > 0) {
		while (n > 0 && buf[n - 1] == '\n')
			n--;
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (n > 0)
			log_info("task %s: the worker's stderr ends: %s", ticket, buf);
	}
	close(fd);
}

char *sc_salvage_ticket(const char *buf, size_t len)
{
	struct sweep_lines it;
	const char *line;
	size_t n;

	sweep_lines_init(&it, buf, len);
	while (sweep_lines_next(&it, &line, &n)) {
		const char *eq, *key = line, *val;
		size_t klen, vlen, i;

		sweep_trim(&line, &n);
		if (n && line[0] == '[')
			break;          /* the ticket comes before the sections */
		eq = memchr(line, '=', n);
		if (!eq)
			continue;
		key = line;
		klen = (size_t)(eq - line);
		sweep_trim(&key, &klen);
		if (klen != 6 || memcmp(key, "Ticket", 6) != 0)
			continue;
		val = eq + 1;
		vlen = (size_t)(line + n - val);
		sweep_trim(&val, &vlen);
		if (!vlen || vlen > SWEEP_TICKET_MAX)
			return NULL;
		for (i = 0; i < vlen; i++)
			if (!isalnum((unsigned char)val[i]))
				return NULL;
		return xstrndup(val, vlen);
	}
	return NULL;
}

int sc_split_command(const char *cmd, struct sweep_argv *av, struct sbuf *err)
{
	/*
	 * No parameters: the master sends finished arguments, quoted where
	 * needed; a placeholder left in them is an error, "$$" a '$'.
	 */
	static char *const none[] = { NULL };
	const struct sweep_vars novars = { NULL, none, 0, 0 };

	return sweep_expand_argv(cmd, &novars, av, err);
}

/*
 * A request whose answer ends the task: true with the reply in r, or false
 * with *end set to how the client stops (the master silent, or a signal).
 */
static bool post(struct sc_ctx *c, const char *path, const char *extra, const struct sbuf *body,
		 const long *accept, struct sc_reply *r, enum sc_task_end *end)
{
	switch (sc_request(c->http, path, extra, body, accept, r)) {
	case SC_REQ_OK:
		return true;
	case SC_REQ_SILENT:
		*end = SC_TASK_SILENT;
		break;
	case SC_REQ_STOPPED:
		*end = SC_TASK_STOPPED;
		break;
	}
	return false;
}

enum sc_task_end sc_task_report_output(struct sc_ctx *c, const char *ticket, const char *why,
				       const struct sweep_complete *out)
{
	static const long accept[] = { 200, 400, 403, 0 };
	char *w = curl_easy_escape(c->http->curl, why, (int)strnlen(why, 300));
	char *extra = xasprintf("&ticket=%s&why=%s", ticket, w ? w : "");
	struct sbuf body = SBUF_INIT(SWEEP_MSG_MAX), err = SBUF_INIT(1024);
	struct sc_reply r;
	enum sc_task_end end = SC_TASK_FAILED;

	curl_free(w);
	log_warn("task %s failed: %s", ticket, why);
	if (out && sweep_failed_encode(out, &body, &err) < 0)
		log_warn("task %s: its output cannot be sent: %s", ticket, sbuf_str(&err));
	sc_reply_init(&r);
	/* an empty body (nothing to say, or an old master's session): the plain GET */
	if (post(c, "/failed", extra, body.len ? &body : NULL, accept, &r, &end) &&
	    r.status == 403) {
		log_error("/failed: the master refused the session (403 Forbidden)");
		end = SC_TASK_FORBIDDEN;
	} else if (end == SC_TASK_FAILED && r.status == 400) {
		log_warn("/failed: the master refused the output (the failure is recorded): %.200s",
			 sbuf_str(&r.body));
	}
	sc_reply_release(&r);
	sbuf_release(&body);
	sbuf_release(&err);
	free(extra);
	return end;
}

enum sc_task_end sc_task_report_failed(struct sc_ctx *c, const char *ticket, const char *why)
{
	return sc_task_report_output(c, ticket, why, NULL);
}

static enum sc_task_end post_results(struct sc_ctx *c, const char *ticket, const struct sbuf *body)
{
	static const long accept[] = { 200, 400, 403, 413, 0 };
	char *extra = xasprintf("&ticket=%s", ticket);
	struct sc_reply r;
	enum sc_task_end end = SC_TASK_DONE;

	sc_reply_init(&r);
	if (post(c, "/complete", extra, body, accept, &r, &end) && r.status == 403) {
		log_error("/complete: the master refused the session (403 Forbidden)");
		end = SC_TASK_FORBIDDEN;
	} else if (end == SC_TASK_DONE && r.status != 200) {
		char why[64];

		snprintf(why, sizeof(why), "the master refused the results (%ld)", r.status);
		end = sc_task_report_failed(c, ticket, why);
	}
	sc_reply_release(&r);
	free(extra);
	return end;
}

/*
 * Run the worker; 0 with the results in comp, or -1 with why (the task
 * failed), or an end in *end. comp's exit status is set once the worker ended.
 */
static int run_worker(struct sc_ctx *c, const char *tdir, const struct sweep_task *t,
		      struct sweep_complete *comp, struct sbuf *why, enum sc_task_end *end)
{
	struct sweep_argv av = { NULL, 0 };
	struct sbuf err = SBUF_INIT(1024);
	bool has_stdin = false;
	int status = 0, rc = -1;
	size_t i;
	pid_t pid;

	for (i = 0; i < t->ninputs; i++)
		if (!strcmp(t->inputs[i].file, "stdin"))
			has_stdin = true;
	if (sc_split_command(t->command_line, &av, &err) < 0) {
		sbuf_addf(why, "bad command line: %s", sbuf_str(&err));
		goto out;
	}
	if (write_inputs(tdir, t, why) < 0)
		goto out;
	pid = spawn(c, tdir, av.v, has_stdin, why);
	if (pid < 0)
		goto out;
	log_debug("task %s: worker %d started", t->ticket, (int)pid);
	switch (wait_worker(c, t, pid, &status, end)) {
	case W_END:
		goto out;
	case W_TIMEOUT:
		sbuf_addf(why, "timeout: still running after %ld s, killed", t->timeout);
		comp->signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
		goto out;
	case W_EXITED:
		break;
	}
	if (WIFSIGNALED(status))
		comp->signal = WTERMSIG(status);
	else
		comp->exit_status = WEXITSTATUS(status);
	comp->have_exit = !WIFSIGNALED(status);
	if (WIFSIGNALED(status)) {
		sbuf_addf(why, "the worker was killed by signal %d", WTERMSIG(status));
	} else if (WEXITSTATUS(status) == 127) {
		sbuf_addf(why, "the worker exited with status 127 (could it start?)");
	} else if (WEXITSTATUS(status) != 0) {
		sbuf_addf(why, "the worker exited with status %d", WEXITSTATUS(status));
	} else {
		rc = collect(tdir, t, comp, why);
	}
out:
	sweep_argv_release(&av);
	sbuf_release(&err);
	return rc;
}

enum sc_task_end sc_task_run(struct sc_ctx *c, const struct sweep_task *t)
{
	struct sbuf body = SBUF_INIT(SWEEP_MSG_MAX);
	struct sbuf why = SBUF_INIT(1024), err = SBUF_INIT(1024);
	struct sweep_complete comp = { 0 };
	enum sc_task_end end = SC_TASK_DONE;
	int rc;
	double start = dnow();
	char *tdir, *work = NULL;

	if (chld_init() < 0)
		return sc_task_report_failed(c, t->ticket, "the client cannot watch processes");
	c->ntask++;
	tdir = xasprintf("%s/sweep-task.%d.%lu", c->dir, (int)getpid(), c->ntask);
	work = xasprintf("%s/work", tdir);
	remove_tree(tdir);
	if (mkdir(tdir, 0700) < 0 || mkdir(work, 0700) < 0) {
		sbuf_addf(&why, "cannot make the task directory %s: %s", tdir, strerror(errno));
		end = sc_task_report_failed(c, t->ticket, sbuf_str(&why));
		goto out;
	}
	log_info("task %s: running (timeout %ld s)", t->ticket, t->timeout);
	rc = run_worker(c, tdir, t, &comp, &why, &end);
	if (c->send_output && end == SC_TASK_DONE) {
		add_output(tdir, &comp);
	} else {
		comp.have_exit = false; /* an old master's session: the body as it always was */
		comp.signal = 0;
	}
	if (rc == 0 && sweep_complete_encode(&comp, &body, &err) < 0) {
		sbuf_addf(&why, "cannot encode the results: %s", sbuf_str(&err));
		rc = -1;
	}
	if (rc == 0) {
		end = post_results(c, t->ticket, &body);
		if (end == SC_TASK_DONE)
			log_info("task %s: done in %.2f s", t->ticket, dnow() - start);
	} else if (end == SC_TASK_DONE) {
		log_stderr_tail(tdir, t->ticket);
		end = sc_task_report_output(c, t->ticket, sbuf_str(&why),
					    c->send_output ? &comp : NULL);
	}
	if (!c->keep)
		remove_tree(tdir);
out:
	free(work);
	free(tdir);
	sweep_complete_release(&comp);
	sbuf_release(&body);
	sbuf_release(&why);
	sbuf_release(&err);
	return end;
}
