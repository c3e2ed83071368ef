/*
 * `sweep run`'s hosts (sweep_run_int.h): each host of the cluster file is a
 * small state machine whose every step is one ssh or sftp process -- start
 * the client by ssh (the ssh stays while the client works, and its exit
 * status is the client's); if that fails, a dummy ssh command tells a dead
 * or refusing host from one that lacks the client; then sftp copies the
 * client bundle (sweep_bundle.h) under a temporary name and renames it into
 * place, and it is started again. The start's shell prints the client's
 * process ID first; at the end the master stops each client by it, over the
 * host's ssh connection.
 */
#include "sweep_run_int.h"
#include "sweep_bundle.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_util.h"
#include "wtime.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RESTART_WAIT 5.0        /* seconds before a client that died is started again */
#define CONNECT_TIMEOUT 5       /* seconds ssh waits for a host's TCP connection and its banner */
#define CTL_PERSIST 10          /* seconds a host's shared ssh connection outlives its last use */
#define START_ABSENT 125        /* the start command's: this master's client bundle is not there */
#define COPY_TRIES 2            /* copies of the client tried in a row before a host is given up */
#define SAID_MAX 400            /* bytes of what a host said kept for the statistics */

const char *const sweep_verdict_names[] = {
	"new", "running", "finished", "unreachable", "copy failed", "client failed",
};

void sweep_hosts_save(const struct run *r)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	char *path = xasprintf("%s/hosts", r->sdir);
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		sbuf_addf(&b, "%s\t%s\t%s\n", r->hosts[i].label, sweep_verdict_names[r->hosts[i].verdict],
			  r->hosts[i].why ? r->hosts[i].why : "");
	write_file_atomic(path, b.buf ? b.buf : "", b.len, 0644);
	free(path);
	sbuf_release(&b);
}

static struct host *host_by_label(struct run *r, const char *label)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (!strcmp(r->hosts[i].label, label))
			return &r->hosts[i];
	return NULL;
}

/* One line of the hosts file: label, verdict and why, tab-separated. */
static void load_line(struct run *r, char *line)
{
	char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	struct host *h;
	size_t v;

	if (!tab2)
		return;
	*tab1 = *tab2 = 0;
	h = host_by_label(r, line);
	for (v = 0; h && h->verdict == H_NEW && v < ARRAY_SIZE(sweep_verdict_names); v++)
		if (!strcmp(tab1 + 1, sweep_verdict_names[v])) {
			h->verdict = (enum verdict)v;
			h->why = *(tab2 + 1) ? xstrdup(tab2 + 1) : NULL;
		}
}

void sweep_hosts_load(struct run *r)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	char *path = xasprintf("%s/hosts", r->sdir), *line, *nl;

	if (read_file(path, 1 << 20, &b) == 0 && b.buf)
		for (line = b.buf; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			load_line(r, line);
		}
	free(path);
	sbuf_release(&b);
}

static void set_verdict(struct run *r, struct host *h, enum verdict v, char *why)
{
	free(h->why);
	h->why = why;
	h->verdict = v;
	if (why)
		log_info("host %s: %s: %s", h->label, sweep_verdict_names[v], why);
	else
		log_info("host %s: %s", h->label, sweep_verdict_names[v]);
	sweep_hosts_save(r);
}

static char *err_path(const struct run *r, const struct host *h)
{
	return xasprintf("%s/ssh-%zu.log", r->sdir, (size_t)(h - r->hosts));
}

/* Where the start's ssh writes what the host says on stdout: the client's process ID. */
static char *pid_path(const struct run *r, const struct host *h)
{
	return xasprintf("%s/client-%zu.pid", r->sdir, (size_t)(h - r->hosts));
}

/* The process ID the host's running client said, or 0 (not yet, or not a number). */
static long client_pid(const struct run *r, const struct host *h)
{
	struct sbuf b = SBUF_INIT(64);
	char *path = pid_path(r, h), *nl;
	long pid = 0;

	if (h->step == S_START && read_file(path, 64, &b) == 0 && b.buf &&
	    (nl = strchr(b.buf, '\n'))) {
		*nl = 0;
		/* what the host printed: a decimal number, nothing else */
		if (sweep_parse_bounded(b.buf, 2, INT_MAX, &pid) < 0)
			pid = 0;
	}
	free(path);
	sbuf_release(&b);
	return pid;
}

/*
 * A host's words made safe to print and to keep in the hosts file: no
 * control character (a terminal escape, a tab), at most SAID_MAX bytes.
 */
static void said_printable(char *s)
{
	if (strlen(s) > SAID_MAX)
		s[SAID_MAX] = 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* The last non-empty line of what the host's last ssh or sftp said, or "". */
static char *ssh_said(const struct run *r, const struct host *h)
{
	struct sbuf b = SBUF_INIT(1 << 20);
	char *path = err_path(r, h), *s, *end, *line;

	read_file(path, 1 << 20, &b);
	free(path);
	s = b.buf ? b.buf : "";
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		*--end = 0;
	line = strrchr(s, '\n');
	line = xstrdup(line ? line + 1 : s);
	said_printable(line);
	sbuf_release(&b);
	return line;
}

/* Why ssh could not log in, in a few words, with what it said. */
static char *unreachable_why(const struct run *r, const struct host *h, int code)
{
	static const struct {
		const char *says, *means;
	} kinds[] = {
		{ "Permission denied", "ssh authentication failed" },
		{ "Connection refused", "connection refused" },
		{ "Could not resolve hostname", "no such host" },
		{ "Name or service not known", "no such host" },
		{ "timed out", "connection timed out" },
		{ "No route to host", "no route to host" },
		{ "Host key verification failed", "host key verification failed" },
		{ "Connection closed", "connection closed" },
	};
	char *said = ssh_said(r, h), *why;
	const char *means = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds) && !means; i++)
		if (strstr(said, kinds[i].says))
			means = kinds[i].means;
	/* it took the connection and said nothing: ConnectTimeout covers the banner */
	if (strstr(said, "during banner exchange"))
		why = xasprintf("no ssh answer within %d s (%s)", CONNECT_TIMEOUT, said);
	else if (means)
		why = xasprintf("%s (%s)", means, said);
	else if (*said)
		why = xasprintf("ssh exit %d (%s)", code, said);
	else
		why = xasprintf("ssh exit %d", code);
	free(said);
	return why;
}

/*
 * The start of an ssh (or scp) command line for host h, into argv (strings
 * allocated); ctl: an ssh control command (-O) for the host's shared
 * connection instead of a login.
 */
void sweep_ssh_base(const struct run *r, const struct host *h, bool scp, const char *ctl,
		     char **argv, size_t *n)
{
	argv[(*n)++] = xstrdup(scp ? "scp" : "ssh");
	if (scp)
		argv[(*n)++] = xstrdup("-q");
	if (r->o->ssh_config) {
		argv[(*n)++] = xstrdup("-F");
		argv[(*n)++] = xstrdup(r->o->ssh_config);
	}
	argv[(*n)++] = xstrdup("-o");
	argv[(*n)++] = xstrdup("BatchMode=yes");
	argv[(*n)++] = xstrdup("-o");
	argv[(*n)++] = xasprintf("ConnectTimeout=%d", CONNECT_TIMEOUT);
	if (r->ctl_dir) {
		/*
		 * One connection a host, shared by its steps: the dummy command,
		 * mkdir, scp and the second start cost no new login.
		 */
		argv[(*n)++] = xstrdup("-o");
		argv[(*n)++] = xstrdup("ControlMaster=auto");
		argv[(*n)++] = xstrdup("-o");
		argv[(*n)++] = xasprintf("ControlPath=%s/%%C", r->ctl_dir);
		argv[(*n)++] = xstrdup("-o");
		argv[(*n)++] = xasprintf("ControlPersist=%d", CTL_PERSIST);
	}
	if (ctl) {
		argv[(*n)++] = xstrdup("-O");
		argv[(*n)++] = xstrdup(ctl);
	}
	/* no port in the cluster file: ssh's own (its configuration's Port, or 22) */
	if (h->h.port != SWEEP_SSH_PORT) {
		argv[(*n)++] = xstrdup(scp ? "-P" : "-p");
		argv[(*n)++] = xasprintf("%d", h->h.port);
	}
	if (!scp) {
		if (h->h.user) {
			argv[(*n)++] = xstrdup("-l");
			argv[(*n)++] = xstrdup(h->h.user);
		}
		argv[(*n)++] = xstrdup("--");
		argv[(*n)++] = xstrdup(h->h.host);
	}
}

/*
 * Start the host's next step: a process with argv, stderr to its log, stdin
 * the session ID (the client's start) or nothing, stdout the client's
 * process ID file (the start) or nothing. In its own process group, so a ^C
 * at the terminal reaches the master only.
 */
static int spawn(struct run *r, struct host *h, enum step step, char **argv)
{
	int in[2] = { -1, -1 };
	char *log = err_path(r, h), *out = pid_path(r, h);
	pid_t pid;
	size_t i;

	if (step == S_START && pipe(in) < 0) {
		free(log);
		return log_error("pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		int e = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDWR);
		int o = step == S_START ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;

		setpgid(0, 0);
		sweep_child_signals();
		if (in[0] >= 0) {
			dup2(in[0], 0);
			close(in[0]);
			close(in[1]);
		} else {
			dup2(nul, 0);
		}
		dup2(o >= 0 ? o : nul, 1);
		if (e >= 0)
			dup2(e, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(255);
	}
	free(log);
	free(out);
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	if (pid < 0) {
		if (in[0] >= 0) {
			close(in[0]);
			close(in[1]);
		}
		return log_error("fork: %s", strerror(errno));
	}
	if (in[0] >= 0) {
		/* 33 bytes fit in the pipe: the write does not block */
		char line[SWEEP_SID_LEN + 2];

		close(in[0]);
		snprintf(line, sizeof(line), "%s\n", r->sid);
		if (write(in[1], line, strlen(line)) < 0)
			log_warn("host %s: cannot pass the session ID", h->label);
		close(in[1]);
	}
	h->pid = pid;
	h->step = step;
	h->step_t0 = dnow();
	h->stop_sent = false;
	return 0;
}

/* Run the shell command cmd (taken) on host h by ssh, as its step. */
static int ssh_step(struct run *r, struct host *h, enum step step, char *cmd)
{
	char *argv[32];
	size_t n = 0;

	sweep_ssh_base(r, h, false, NULL, argv, &n);
	argv[n++] = cmd;
	argv[n] = NULL;
	return spawn(r, h, step, argv);
}

static int start_client(struct run *r, struct host *h)
{
	struct sbuf cmd = SBUF_INIT(1 << 16);

	sbuf_addstr(&cmd, "cd ");
	sweep_sh_quote(&cmd, r->o->remote_dir);
	/*
	 * The bundle is this master's by its name, its content's MD5: one that is
	 * not there (another master's, an older wseq's) is copied, never run.
	 * echo $$: the client's process ID (exec keeps it), to stop it by.
	 */
	sbuf_addf(&cmd, " 2>/dev/null && test -x sweep_client-%s/%s || exit %d; "
		  "echo $$; exec ./sweep_client-%s/%s --host ", r->client_md5, SWEEP_BUNDLE_START,
		  START_ABSENT, r->client_md5, SWEEP_BUNDLE_START);
	sweep_sh_quote(&cmd, h->label);
	sbuf_addf(&cmd, " --jobs %ld ", h->h.jobs >= 0 ? h->h.jobs : r->spec.jobs);
	if (r->o->nice)
		sbuf_addf(&cmd, "--nice %ld ", r->o->nice);
	sbuf_addstr(&cmd, "--log client.log - ");
	sweep_sh_quote(&cmd, r->spec.worker_name);
	sbuf_addf(&cmd, " %s ", r->md5);
	sweep_sh_quote(&cmd, r->url);
	h->starts++;
	log_info("host %s: starting the client (start %d)", h->label, h->starts);
	if (h->verdict != H_RUNNING)
		set_verdict(r, h, H_RUNNING, NULL);
	return ssh_step(r, h, S_START, sbuf_detach(&cmd, NULL));
}

/* The sweep design's dummy command: can we log in at all? */
static int check_login(struct run *r, struct host *h)
{
	return ssh_step(r, h, S_CHECK, xstrdup("true"));
}

/* s as one word of an sftp batch line: quoted, its quotes and backslashes escaped. */
static void sftp_quote(struct sbuf *b, const char *s)
{
	sbuf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sbuf_addch(b, '\\');
		sbuf_addch(b, *s);
	}
	sbuf_addch(b, '"');
}

/*
 * The sftp commands of a copy: the remote directory made (each of its
 * parts, errors ignored: they may be there), the bundle put under a fresh
 * temporary name, then renamed into place. sftp-server renames a directory
 * only where nothing is, so a client running from a copy keeps its files
 * (nothing is written over them, not even on a shared NFS home), and of two
 * masters copying the same bundle at once the second's rename fails. Only
 * sftp is asked of the host: not even mkdir or mv.
 */
static void copy_batch(const struct run *r, const struct host *h, struct sbuf *b)
{
	const char *dir = r->o->remote_dir;
	char *tmp = xasprintf("%s/%s", dir, h->copy_tmp);
	char *dest = xasprintf("%s/sweep_client-%s", dir, r->client_md5);
	size_t i, len = strlen(dir);

	for (i = 1; i <= len; i++) {    /* a/b/c: a, a/b, a/b/c */
		char *part;

		if (i < len && dir[i] != '/')
			continue;
		part = xstrndup(dir, i);
		sbuf_addstr(b, "-mkdir ");
		sftp_quote(b, part);
		sbuf_addch(b, '\n');
		free(part);
	}
	sbuf_addstr(b, "put -rp ");
	sftp_quote(b, r->client);
	sbuf_addch(b, ' ');
	sftp_quote(b, tmp);
	sbuf_addstr(b, "\nrename ");
	sftp_quote(b, tmp);
	sbuf_addch(b, ' ');
	sftp_quote(b, dest);
	sbuf_addch(b, '\n');
	free(tmp);
	free(dest);
}

/* Copy the client bundle to the host by sftp (copy_batch), under a fresh temporary name. */
static int copy_client(struct run *r, struct host *h)
{
	struct sbuf batch = SBUF_INIT(1 << 16), dest = SBUF_INIT(1 << 16);
	char *path = xasprintf("%s/sftp-%zu.batch", r->sdir, (size_t)(h - r->hosts));
	char *argv[32], rnd[17];
	size_t n = 0;
	int rc = random_hex(rnd, 8);

	h->copies++;
	if (rc == 0) {
		free(h->copy_tmp);
		h->copy_tmp = xasprintf(".sweep_client-%s.tmp-%s", r->client_md5, rnd);
		copy_batch(r, h, &batch);
		rc = write_file_atomic(path, batch.buf, batch.len, 0600);
	}
	sbuf_release(&batch);
	if (rc < 0) {
		free(path);
		sbuf_release(&dest);
		return -1;
	}
	if (h->h.user)
		sbuf_addf(&dest, "%s@", h->h.user);
	sbuf_addf(&dest, strchr(h->h.host, ':') ? "[%s]" : "%s", h->h.host);
	sweep_ssh_base(r, h, true, NULL, argv, &n);
	free(argv[0]);
	argv[0] = xstrdup("sftp");      /* sftp takes scp's options */
	argv[n++] = xstrdup("-b");
	argv[n++] = path;
	argv[n++] = sbuf_detach(&dest, NULL);
	argv[n] = NULL;
	log_info("host %s: copying the client", h->label);
	return spawn(r, h, S_COPY, argv);
}

/*
 * After a copy that failed: its temporary copy removed (where the host has
 * rm), and is the bundle there all the same (another master's rename won)?
 */
static int copy_check(struct run *r, struct host *h)
{
	struct sbuf cmd = SBUF_INIT(1 << 16);

	sbuf_addstr(&cmd, "cd ");
	sweep_sh_quote(&cmd, r->o->remote_dir);
	sbuf_addf(&cmd, " && { rm -rf %s 2>/dev/null; test -x sweep_client-%s/%s; }", h->copy_tmp,
		  r->client_md5, SWEEP_BUNDLE_START);
	return ssh_step(r, h, S_COPY_CHECK, sbuf_detach(&cmd, NULL));
}

static const char *client_exit_meaning(int code)
{
	switch (code) {
	case 1: return "a local error on the host, or stopped";
	case 2: return "the master refused the session";
	case 3: return "no worker for the host's platform";
	case 4: return "the worker's MD5 does not match";
	case 5: return "the master did not answer";
	case START_ABSENT: return "the client is not there";
	case 126: return "the host cannot run the client";
	case 127: return "the host cannot start the client";
	case 255: return "the ssh connection failed or the client was killed";
	default: return "the client ended badly";
	}
}

/*
 * The run ends and a step of host h ended with code, maybe killed: its
 * verdict, and no next step. A login killed before it answered is named so.
 */
static void host_step_stopped(struct run *r, struct host *h, enum step step, int code,
			      bool had_client)
{
	bool killed = code == 128 + SIGTERM;
	int client_exit = step == S_START ? code : h->start_exit;

	if (step == S_START && (code == 0 || had_client))
		set_verdict(r, h, H_FINISHED, code ? xasprintf("stopped (exit %d)", code)
						   : xstrdup("no task left"));
	else if ((step == S_START || step == S_CHECK) && killed)
		set_verdict(r, h, H_UNREACHABLE, xasprintf("no ssh answer within %.0f s (the run "
			    "ended first)", dnow() - h->step_t0));
	else if ((step == S_START && code == 255) || (step == S_CHECK && code))
		set_verdict(r, h, H_UNREACHABLE, unreachable_why(r, h, code));
	else if (step == S_START || step == S_CHECK)
		set_verdict(r, h, H_CLIENT_FAILED, xasprintf("exit %d: %s", client_exit,
							      client_exit_meaning(client_exit)));
}

/*
 * Starting the client again will not help: the master turned it away, the
 * host cannot run it, or it is not there even after copying it.
 */
static bool start_is_final(const struct host *h)
{
	int code = h->start_exit;

	return (code >= 2 && code <= 4) || code == 126 || code == 127 ||
	       (code == START_ABSENT && h->copied);
}

/* Why the last start failed: its exit status, what it means, what it said. */
static char *start_why(const struct host *h)
{
	const char *said = h->start_said ? h->start_said : "";

	return xasprintf("exit %d: %s%s%s%s", h->start_exit, client_exit_meaning(h->start_exit),
			 *said ? " (" : "", said, *said ? ")" : "");
}

/* The bundle is in place: start it. */
static int copy_done(struct run *r, struct host *h)
{
	h->copied = true;
	h->copies = 0;
	return start_client(r, h);
}

/* A copy failed (h->copy_said says how): it is tried once more. */
static int copy_failed(struct run *r, struct host *h)
{
	if (h->copies < COPY_TRIES) {
		log_warn("host %s: copying the client failed (%s); once more", h->label, h->copy_said);
		return copy_client(r, h);
	}
	set_verdict(r, h, H_COPY_FAILED, xstrdup(h->copy_said));
	return 0;
}

/* A step of host h ended with exit status code: the next step. */
static void host_step_done(struct run *r, struct host *h, int code)
{
	enum step step = h->step;
	bool had_client = client_pid(r, h) > 0;
	int rc = 0;

	h->step = S_IDLE;
	h->pid = 0;
	if (r->stopping) {
		host_step_stopped(r, h, step, code, had_client);
		return;
	}
	switch (step) {
	case S_START:
		h->start_exit = code;
		free(h->start_said);
		h->start_said = code ? ssh_said(r, h) : NULL;
		if (code == 0) {
			h->starts = 0;  /* max_starts counts starts that went wrong in a row */
			r->judge_now = true;
			set_verdict(r, h, H_FINISHED, xstrdup("no task left"));
		} else if (start_is_final(h)) {
			set_verdict(r, h, H_CLIENT_FAILED, start_why(h));
		} else {
			log_info("host %s: the client's ssh ended with %d (%s)", h->label, code,
				 client_exit_meaning(code));
			rc = check_login(r, h);
		}
		break;
	case S_CHECK:
		if (code != 0) {
			set_verdict(r, h, H_UNREACHABLE, unreachable_why(r, h, code));
			h->not_before = dnow() + RESTART_WAIT;
		} else if (h->start_exit == START_ABSENT) {
			rc = copy_client(r, h);
		} else {
			/* the host is there; its client died or lost the connection */
			set_verdict(r, h, H_CLIENT_FAILED, start_why(h));
			h->not_before = dnow() + RESTART_WAIT;
		}
		break;
	case S_COPY:
		if (code == 0) {
			rc = copy_done(r, h);
		} else {
			char *said = ssh_said(r, h);

			free(h->copy_said);
			h->copy_said = xasprintf("sftp exit %d%s%s", code, *said ? ": " : "", said);
			free(said);
			rc = copy_check(r, h);
		}
		break;
	case S_COPY_CHECK:
		rc = code == 0 ? copy_done(r, h) : copy_failed(r, h);
		break;
	case S_IDLE:
		break;
	}
	if (rc < 0)
		set_verdict(r, h, H_CLIENT_FAILED, xstrdup("the master cannot start ssh"));
}

void sweep_hosts_reap(struct run *r)
{
	pid_t pid;
	int status;
	size_t i;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

		for (i = 0; i < r->nhosts; i++) {
			if (r->hosts[i].pid == pid)
				host_step_done(r, &r->hosts[i], code);
			else if (r->hosts[i].stop_pid == pid)
				r->hosts[i].stop_pid = 0;
		}
	}
}

size_t sweep_hosts_busy(const struct run *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nhosts; i++)
		n += r->hosts[i].step != S_IDLE;
	return n;
}

/*
 * Tasks are left: start the clients again on the idle hosts, while others
 * work too, when tickets wait (ready) and their wait after a failure is
 * over -- not on those the master turned away, nor those whose last
 * max_starts starts went wrong. false when no host is left.
 */
bool sweep_hosts_restart(struct run *r, bool ready)
{
	bool any = false;
	size_t i;

	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];

		if (h->step != S_IDLE || h->starts >= r->o->max_starts ||
		    (h->verdict == H_CLIENT_FAILED && start_is_final(h)))
			continue;
		any = true;
		if (ready && dnow() >= h->not_before && start_client(r, h) < 0)
			set_verdict(r, h, H_CLIENT_FAILED, xstrdup("the master cannot start ssh"));
	}
	return any;
}

size_t sweep_hosts_clients(const struct run *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nhosts; i++)
		n += client_pid(r, &r->hosts[i]) > 0;
	return n;
}

/* Over the host's ssh connection: kill -TERM the client's process ID. */
static void send_stop(struct run *r, struct host *h, long pid)
{
	char *argv[32];
	size_t n = 0;
	pid_t p;

	sweep_ssh_base(r, h, false, NULL, argv, &n);
	argv[n++] = xasprintf("kill -TERM %ld", pid);
	argv[n] = NULL;
	log_info("host %s: telling the client to stop", h->label);
	p = fork();
	if (p == 0) {
		int nul = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		sweep_child_signals();
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		execvp(argv[0], argv);
		_exit(255);
	}
	while (n)
		free(argv[--n]);
	if (p < 0) {
		log_warn("host %s: fork: %s", h->label, strerror(errno));
		kill(h->pid, SIGTERM);
	}
	h->stop_pid = p > 0 ? p : 0;
	h->stop_sent = true;
}

size_t sweep_hosts_stop(struct run *r)
{
	size_t i;

	r->stopping = true;
	for (i = 0; i < r->nhosts; i++) {
		struct host *h = &r->hosts[i];
		long pid = client_pid(r, h);

		/* a login check ends within the connect timeout, and says why */
		if (h->step == S_IDLE || h->step == S_CHECK || h->stop_sent)
			continue;
		if (pid > 0) {
			send_stop(r, h, pid);
		} else {
			/* no client runs there (yet): nothing to wait for */
			kill(h->pid, SIGTERM);
			h->stop_sent = true;
		}
	}
	return sweep_hosts_busy(r);
}

void sweep_hosts_kill(struct run *r)
{
	size_t i;

	r->stopping = true;
	for (i = 0; i < r->nhosts; i++) {
		if (r->hosts[i].pid > 0)
			kill(r->hosts[i].pid, SIGTERM);
		if (r->hosts[i].stop_pid > 0)
			kill(r->hosts[i].stop_pid, SIGTERM);
	}
}
