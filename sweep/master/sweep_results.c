/*
 * `sweep --results DIR` (sweep_results.h): each set's last run, from the
 * session's ended tickets and the bodies their clients sent (the results
 * file of a ticket: /complete's, or a POST /failed's), as files a set.
 * stdout is the body's [Stdout], or, from a client that sent none, the
 * result whose File is stdout; stderr its [Stderr] (empty without one);
 * exitval the joblog's Exitval (sweep_joblog_outcome()). The hosts' data is
 * untrusted: names come only from the set's number, files are opened
 * relative to DIR's descriptor, never through a symlink.
 */
#include "sweep_results.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_files.h"
#include "sweep_joblog.h"
#include "sweep_msg.h"
#include "sweep_params.h"
#include "sweep_session.h"
#include "sweep_spec.h"
#include "sweep_store.h"

#include <fcntl.h>
#include <sys/stat.h>

/* The run shown for a set. */
struct last {
	char *name;             /* the ticket */
	struct sweep_ticket t;  /* state, times, note (for sweep_joblog_outcome) */
	int64_t end;
};

struct pick {
	const struct sweep_files *files;
	struct last *l;         /* by row - 1 */
	size_t n;
};

static void last_release(struct last *l)
{
	free(l->name);
	free(l->t.note);
	memset(l, 0, sizeof(*l));
}

/* A set's run to show: its valid one, else the one that ended last. */
static int take(const struct sweep_ticket *t, void *arg)
{
	struct pick *p = arg;
	struct last *l;
	int64_t end = t->received_time ? t->received_time : t->deadline;
	int ev, sig;

	if (!t->row || !t->name || !sweep_joblog_outcome(NULL, t, &ev, &sig))
		return 0;
	if (t->row > p->n) {
		p->l = xrealloc(p->l, t->row * sizeof(*p->l));
		memset(p->l + p->n, 0, (t->row - p->n) * sizeof(*p->l));
		p->n = t->row;
	}
	l = &p->l[t->row - 1];
	if (l->name && (l->t.state == SWEEP_TICKET_VALID ||
			(t->state != SWEEP_TICKET_VALID &&
			 (end < l->end || (end == l->end && t->id < l->t.id)))))
		return 0;
	last_release(l);
	l->t = *t;
	l->t.name = l->name = xstrdup(t->name);
	l->t.note = t->note ? xstrdup(t->note) : NULL;
	l->t.body = NULL;
	l->end = end;
	return 0;
}

/* What the run's client sent; an empty body when there is none (a timeout, an old client). */
static void report(const struct sweep_files *files, const char *ticket, struct sweep_complete *c)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), body = SBUF_INIT(SWEEP_COMPLETE_MAX);
	struct sbuf err = SBUF_INIT(1024);

	memset(c, 0, sizeof(*c));
	if (sweep_files_result(files, ticket, false, &path) == 0 &&
	    access(sbuf_str(&path), F_OK) == 0 &&
	    (read_file(sbuf_str(&path), SWEEP_COMPLETE_MAX, &body) < 0 ||
	     sweep_failed_decode(body.buf ? body.buf : "", body.len, SWEEP_COMPLETE_MAX, c, &err) < 0))
		log_warn("--results: the report of a run cannot be read: %s", sbuf_str(&err));
	sbuf_release(&path);
	sbuf_release(&body);
	sbuf_release(&err);
}

/* stdout of a run: [Stdout], else the result the spec takes from stdout. */
static const struct sweep_msg_stream *run_stdout(const struct sweep_spec *spec,
						 const struct sweep_complete *c,
						 struct sweep_msg_stream *buf)
{
	const struct sweep_msg_output *o = NULL;
	size_t i;

	if (c->out.present)
		return &c->out;
	for (i = 0; i < spec->nresults && !o; i++)
		if (!strcmp(spec->results[i].file, "stdout"))
			o = sweep_complete_find(c, spec->results[i].name);
	memset(buf, 0, sizeof(*buf));
	if (o) {
		buf->data = o->data;
		buf->len = o->len;
	}
	return buf;
}

/* DIR/SEQ's files for the run l, unless DIR/SEQ/.run already names it. */
static int write_set(int dfd, const struct sweep_files *files, const struct sweep_spec *spec,
		     size_t seq, const struct last *l)
{
	struct sweep_complete c;
	struct sweep_msg_stream sbuf;
	const struct sweep_msg_stream *out;
	char dname[32], mark[128], ev[32], old[128];
	int sfd, rc = 0, exitval, sig;
	ssize_t n = -1;

	snprintf(dname, sizeof(dname), "%zu", seq);
	snprintf(mark, sizeof(mark), "%s %d\n", l->name, (int)l->t.state);
	if (mkdirat(dfd, dname, 0755) < 0 && errno != EEXIST)
		return log_error("--results: cannot make %s: %s", dname, strerror(errno));
	sfd = openat(dfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return log_error("--results: %s is not a directory of its own: %s", dname,
				 strerror(errno));
	{
		int fd = openat(sfd, ".run", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0) {
			n = read(fd, old, sizeof(old) - 1);
			close(fd);
		}
	}
	if (n == (ssize_t)strlen(mark) && !memcmp(old, mark, (size_t)n)) {
		close(sfd);
		return 0;
	}
	sweep_joblog_outcome(files, &l->t, &exitval, &sig);
	snprintf(ev, sizeof(ev), "%d\n", exitval);
	report(files, l->name, &c);
	out = run_stdout(spec, &c, &sbuf);
	if (write_file_atomic_at(sfd, "stdout", out->data ? out->data : "", out->len, 0644) < 0 ||
	    write_file_atomic_at(sfd, "stderr", c.err.data ? c.err.data : "", c.err.len, 0644) < 0 ||
	    write_file_atomic_at(sfd, "exitval", ev, strlen(ev), 0644) < 0 ||
	    write_file_atomic_at(sfd, ".run", mark, strlen(mark), 0644) < 0)
		rc = log_error("--results: cannot write the files of set %zu: %s", seq,
			       strerror(errno));
	sweep_complete_release(&c);
	close(sfd);
	return rc;
}

int sweep_results_write(struct sweep_store *store, const struct sweep_files *files,
			const char *sid, const char *dir)
{
	struct sweep_spec spec = { 0 };
	struct sweep_params params = { 0 };
	struct sbuf err = SBUF_INIT(4096);
	struct pick p = { files, NULL, 0 };
	int64_t session = 0;
	size_t i;
	int dfd = -1, rc = sweep_session_load(store, sid, &session, &spec, &params, &err);

	if (rc < 0)
		log_error("--results: %s", sbuf_str(&err));
	if (rc == 0 && sweep_store_ended(store, session, take, &p) != SWEEP_STORE_OK)
		rc = log_error("--results: cannot read the session's tickets (the log says why)");
	if (rc == 0 && (mkdir_p(dir, 0755) < 0 ||
			(dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0))
		rc = log_error("--results: cannot open the directory %s", dir);
	for (i = 0; i < p.n; i++) {     /* a set that cannot be written stops no other */
		if (dfd >= 0 && p.l[i].name && write_set(dfd, files, &spec, i + 1, &p.l[i]) < 0)
			rc = -1;
		last_release(&p.l[i]);
	}
	if (dfd >= 0)
		close(dfd);
	free(p.l);
	sweep_params_release(&params);
	sweep_spec_release(&spec);
	sbuf_release(&err);
	return rc;
}
