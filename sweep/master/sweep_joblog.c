/*
 * `sweep --joblog FILE` and `--resume-failed` (sweep_joblog.h): GNU
 * parallel's joblog, written anew from the session's ended tickets (so a
 * master killed with -9 and resumed leaves a whole log), and read back for
 * the sets that still have to run.
 */
#include "sweep_joblog.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_expand.h"
#include "sweep_files.h"
#include "sweep_msg.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_spec.h"
#include "sweep_store.h"

#include <fcntl.h>

#define JOBLOG_MAX (1 << 30)    /* the largest joblog read back */
#define HEAD_MAX 4096           /* bytes of a results file read for its Exit and Signal */

void sweep_joblog_why(const char *why, int *exitval, int *signal)
{
	int v;

	*exitval = SWEEP_JOBLOG_KILLED;
	*signal = 0;
	if (!why)
		return;
	if (sscanf(why, "the worker exited with status %d", &v) == 1)
		*exitval = v;
	else if (sscanf(why, "the worker was killed by signal %d", &v) == 1)
		*signal = v;
	else if (!strncmp(why, "timeout:", 8))
		*signal = 9;    /* the client kills a worker past its Timeout with SIGKILL */
}

/* s with tabs and line ends as blanks: one field of one line */
static void add_field(struct sbuf *b, const char *s)
{
	for (; s && *s; s++)
		sbuf_addch(b, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void sweep_joblog_line(struct sbuf *b, const struct sweep_joblog_run *r)
{
	sbuf_addf(b, "%zu\t", r->seq);
	add_field(b, r->host && *r->host ? r->host : ":");
	sbuf_addf(b, "\t%lld.000\t%.3f\t0\t0\t%d\t%d\t", (long long)r->start, r->runtime,
		  r->exitval, r->signal);
	add_field(b, r->command);
	sbuf_addch(b, '\n');
}

/* ---- reading one back --------------------------------------------------------- */

/* A decimal field of at most 9 digits, with an optional '-'. */
static bool int_field(const char *s, size_t n, long *v)
{
	size_t i = n && *s == '-';

	if (i == n || n - i > 9)
		return false;
	for (*v = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	if (*s == '-')
		*v = -*v;
	return true;
}

/* One line (without its newline): seq and whether it says the run succeeded. */
static int parse_line(const char *l, size_t n, long *seq, bool *good)
{
	const char *f[9];
	size_t len[9], k = 0, i, start = 0;
	long exitval, sig;

	for (i = 0; i <= n && k < 9; i++) {
		if (i == n || (l[i] == '\t' && k < 8)) {
			f[k] = l + start;
			len[k++] = i - start;
			start = i + 1;
		}
	}
	if (k != 9)
		return -1;
	if (!int_field(f[0], len[0], seq) || *seq < 1 || *seq > SWEEP_JOBLOG_SEQ_MAX ||
	    !int_field(f[6], len[6], &exitval) ||
	    !int_field(f[7], len[7], &sig))
		return -1;
	*good = exitval == 0 && sig == 0;
	return 0;
}

int sweep_joblog_parse(const char *name, const char *text, size_t len, bool **ok, size_t *n,
		       struct sbuf *err)
{
	const char *p = text, *end = text + len;
	int line = 0;

	*ok = NULL;
	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		long seq;
		bool good;

		line++;
		if (l && p[l - 1] == '\r')
			l--;
		if (line == 1 && l == strlen(SWEEP_JOBLOG_HEADER) && !memcmp(p, SWEEP_JOBLOG_HEADER, l))
			;
		else if (l && parse_line(p, l, &seq, &good) < 0)
			goto bad;
		else if (l && good) {
			if ((size_t)seq > *n) {
				*ok = xrealloc(*ok, (size_t)seq * sizeof(**ok));
				memset(*ok + *n, 0, ((size_t)seq - *n) * sizeof(**ok));
				*n = (size_t)seq;
			}
			(*ok)[seq - 1] = true;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
bad:
	free(*ok);
	*ok = NULL;
	*n = 0;
	return sbuf_fail(err, "%s:%d: not a joblog line (Seq, Host, Starttime, JobRuntime, Send, "
			 "Receive, Exitval, Signal, Command, tab-separated)", name, line);
}

int sweep_joblog_read(const char *path, bool **ok, size_t *n, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(JOBLOG_MAX);
	int rc;

	*ok = NULL;
	*n = 0;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	if (read_file(path, JOBLOG_MAX, &b) < 0) {
		sbuf_release(&b);
		return sbuf_fail(err, "%s: cannot read it", path);
	}
	rc = sweep_joblog_parse(path, sbuf_str(&b), b.len, ok, n, err);
	sbuf_release(&b);
	return rc;
}

int sweep_joblog_keep(const char *path, const char *keep)
{
	struct sbuf b = SBUF_INIT(JOBLOG_MAX);
	size_t skip = 0;
	int rc = 0;

	if (access(path, F_OK) == 0 && read_file(path, JOBLOG_MAX, &b) < 0)
		rc = -1;
	if (!strncmp(sbuf_str(&b), SWEEP_JOBLOG_HEADER "\n", sizeof(SWEEP_JOBLOG_HEADER)))
		skip = sizeof(SWEEP_JOBLOG_HEADER);
	if (rc == 0 && write_file_atomic(keep, sbuf_str(&b) + skip, b.len - skip, 0644) < 0)
		rc = log_error("cannot write %s", keep);
	sbuf_release(&b);
	return rc;
}

/* ---- writing the session's ---------------------------------------------------- */

struct entry {
	int64_t end, id;
	struct sbuf line;
};

struct walk {
	const struct sweep_files *files;
	const struct sweep_spec *spec;
	const struct sweep_params *params;
	struct entry *e;
	size_t n;
};

/* The value of a "key=value" line of a ticket's note, or NULL. */
static char *note_get(const char *note, const char *key)
{
	size_t k = strlen(key);
	const char *p;

	for (p = note; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == '=')
			return xstrndup(p + k + 1, strcspn(p + k + 1, "\n"));
	return NULL;
}

/* Exit and Signal as the ticket's client reported them (its results file's head); false if it did not. */
static bool reported(const struct sweep_files *files, const char *ticket, int *exitval, int *sig)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), err = SBUF_INIT(1024);
	struct sweep_complete c = { 0 };
	char buf[HEAD_MAX];
	ssize_t n = -1;
	int fd = -1;
	bool got = false;

	if (ticket && sweep_files_result(files, ticket, false, &path) == 0)
		fd = open(sbuf_str(&path), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0)
		n = read(fd, buf, sizeof(buf));
	if (n > 0 && sweep_complete_head(buf, (size_t)n, &c, &err) == 0 &&
	    (c.have_exit || c.signal)) {
		*exitval = c.have_exit ? c.exit_status : SWEEP_JOBLOG_KILLED;
		*sig = c.signal;
		got = true;
	}
	if (fd >= 0)
		close(fd);
	sweep_complete_release(&c);
	sbuf_release(&path);
	sbuf_release(&err);
	return got;
}

bool sweep_joblog_outcome(const struct sweep_files *files, const struct sweep_ticket *t,
			  int *exitval, int *sig)
{
	char *why;

	*exitval = 0;
	*sig = 0;
	if (!t->sent_time)
		return false;
	switch (t->state) {
	case SWEEP_TICKET_VALID:
		return true;
	case SWEEP_TICKET_INVALID:
		*exitval = SWEEP_JOBLOG_INVALID;
		return true;
	case SWEEP_TICKET_FAILED:
		if (files && reported(files, t->name, exitval, sig))
			return true;
		why = note_get(t->note, "why");
		sweep_joblog_why(why, exitval, sig);
		free(why);
		return true;
	case SWEEP_TICKET_TIMED_OUT:
		*exitval = SWEEP_JOBLOG_KILLED;
		return true;
	default:
		return false;   /* not judged yet, or never sent */
	}
}

static int take_ticket(const struct sweep_ticket *t, void *arg)
{
	struct walk *w = arg;
	struct sweep_joblog_run run = { 0 };
	struct sweep_argv argv = { NULL, 0 };
	struct sbuf cmd = SBUF_INIT(1 << 16), err = SBUF_INIT(4096);
	char *host;
	struct entry *e;

	if (!sweep_joblog_outcome(w->files, t, &run.exitval, &run.signal))
		return 0;
	run.seq = t->row;
	if (run.seq >= 1 && run.seq <= w->params->nrows &&
	    sweep_spec_command(w->spec->command_line, w->params, run.seq - 1, &argv, &err) == 0)
		sweep_argv_join(argv.v, argv.n, &cmd);
	host = note_get(t->note, "host");
	run.host = host;
	run.start = t->sent_time;
	run.runtime = t->received_time ? t->elapsed : (double)(t->deadline - t->sent_time);
	run.command = sbuf_str(&cmd);
	ARRAY_GROW(w->e, w->n);
	e = &w->e[w->n++];
	e->end = t->received_time ? t->received_time : t->deadline;
	e->id = t->id;
	sbuf_init(&e->line, 1 << 20);
	sweep_joblog_line(&e->line, &run);
	free(host);
	sweep_argv_release(&argv);
	sbuf_release(&cmd);
	sbuf_release(&err);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->end != y->end)
		return (x->end > y->end) - (x->end < y->end);
	return (x->id > y->id) - (x->id < y->id);
}

/* The session's runs, in the order they ended, appended to out. */
static int session_lines(struct sweep_store *store, const struct sweep_files *files,
			 const char *sid, struct sbuf *out)
{
	struct sweep_spec spec = { 0 };
	struct sweep_params params = { 0 };
	struct sbuf err = SBUF_INIT(4096);
	struct walk w = { files, &spec, &params, NULL, 0 };
	int64_t session = 0;
	size_t i;
	int rc = sweep_session_load(store, sid, &session, &spec, &params, &err);

	if (rc < 0)
		log_error("joblog: %s", sbuf_str(&err));
	if (rc == 0 && sweep_store_ended(store, session, take_ticket, &w) != SWEEP_STORE_OK)
		rc = log_error("joblog: cannot read the session's tickets (the log says why)");
	if (w.n)
		qsort(w.e, w.n, sizeof(*w.e), cmp_entry);
	for (i = 0; i < w.n; i++) {
		if (rc == 0)
			sbuf_add(out, w.e[i].line.buf, w.e[i].line.len);
		sbuf_release(&w.e[i].line);
	}
	free(w.e);
	sweep_params_release(&params);
	sweep_spec_release(&spec);
	sbuf_release(&err);
	return rc;
}

int sweep_joblog_write(struct sweep_store *store, const struct sweep_files *files,
		       const char *sid, const char *keep, const char *path)
{
	struct sbuf b = SBUF_INIT(JOBLOG_MAX);
	int rc = 0;

	sbuf_addstr(&b, SWEEP_JOBLOG_HEADER "\n");
	if (keep && access(keep, F_OK) == 0 && read_file(keep, JOBLOG_MAX, &b) < 0)
		rc = -1;
	if (rc == 0)
		rc = session_lines(store, files, sid, &b);
	if (rc == 0 && write_file_atomic(path, b.buf, b.len, 0644) < 0)
		rc = log_error("cannot write the joblog %s", path);
	sbuf_release(&b);
	return rc;
}
