/*
 * Parameter sweep sessions (see sweep_session.h and the server-side section
 * of doc/sweep-protocol.md): from a worker spec and its parameter table, a
 * session in a sweep store -- one task per parameter set holding its task
 * body -- and the session's files (configuration, worker name, workers per
 * platform) that the endpoints serve; then judging and collecting what came
 * back, and the figures. Only sweep_store_*() reach the store, so this works
 * on the embedded store and on a project's alike.
 */
#include "sweep_session.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_files.h"
#include "sweep_msg.h"
#include "sweep_spec.h"
#include "sweep_store.h"
#include "wtime.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The task body of parameter set row, after its Ticket and Timeout (the endpoints add them). */
static int task_body(const struct sweep_spec *s, const struct sweep_params *p, size_t row,
		     struct sbuf *out, struct sbuf *err)
{
	struct sweep_task t = { 0 };
	struct sweep_argv argv = { NULL, 0 };
	struct sbuf cmd = SBUF_INIT(1 << 16), content = SBUF_INIT(SWEEP_MSG_MAX), full = SBUF_INIT(SWEEP_MSG_MAX);
	const char *body;
	size_t i;
	int rc = sweep_spec_command(s->command_line, p, row, &argv, err);

	if (rc == 0 && sweep_argv_join(argv.v, argv.n, &cmd) < 0)
		rc = -1;
	t.ticket = xstrdup("0");
	t.timeout = 0;
	t.command_line = xstrdup(sbuf_str(&cmd));
	for (i = 0; rc == 0 && i < s->ninputs; i++) {
		sbuf_reset(&content);
		rc = sweep_spec_input_content(&s->inputs[i], p, row, &content, err);
		if (rc == 0)
			sweep_task_add_input(&t, s->inputs[i].file, content.buf ? content.buf : "",
					     content.len);
	}
	for (i = 0; rc == 0 && i < s->nresults; i++)
		sweep_task_add_result(&t, s->results[i].name, s->results[i].file);
	if (rc == 0)
		rc = sweep_task_encode(&t, &full, err);
	/* the encoder writes Ticket= and Timeout= first; the server writes its own */
	body = rc == 0 ? strstr(sbuf_str(&full), "CommandLine=") : NULL;
	if (rc == 0 && (!body || strncmp(sbuf_str(&full), "Ticket=0\nTimeout=0\n", 19)))
		rc = -1;
	if (rc == 0)
		sbuf_addstr(out, body);
	sweep_task_release(&t);
	sweep_argv_release(&argv);
	sbuf_release(&cmd);
	sbuf_release(&content);
	sbuf_release(&full);
	return rc;
}

/* SESSIONS/SID/: config, worker_name, workers/PLATFORM. */
static int session_files(const char *sdir, const struct sweep_spec *s, struct sbuf *err)
{
	struct sweep_config c = { s->delete_worker, s->delete_client, s->ping, true };
	struct sbuf b = SBUF_INIT(1 << 16);
	char *dir = xasprintf("%s/workers", sdir), *path = NULL;
	size_t i;
	int rc = mkdir_p(dir, 0755);

	if (rc == 0)
		rc = sweep_config_encode(&c, &b, err);
	path = xasprintf("%s/config", sdir);
	if (rc == 0)
		rc = write_file_atomic(path, b.buf, b.len, 0644);
	free(path);
	path = xasprintf("%s/worker_name", sdir);
	if (rc == 0)
		rc = write_file_atomic(path, s->worker_name, strlen(s->worker_name), 0644);
	for (i = 0; rc == 0 && i < s->nworkers; i++) {
		char *src = s->workers[i].file[0] == '/' ? xstrdup(s->workers[i].file)
			: xasprintf("%s/%s", s->dir, s->workers[i].file);

		free(path);
		path = xasprintf("%s/%s", dir, s->workers[i].platform);
		if (copy_file(src, path, 0755) < 0) {
			sbuf_addf(err, "%s:%d: cannot copy the worker %s", s->name, s->workers[i].line,
				  src);
			rc = -1;
		}
		free(src);
	}
	free(path);
	free(dir);
	sbuf_release(&b);
	return rc;
}

int sweep_session_params(const struct sweep_spec *s, struct sweep_params *p, struct sbuf *err)
{
	char *path;
	int rc;

	if (!s->parameters) {
		sbuf_addf(err, "%s: no Parameters= file", s->name);
		return -1;
	}
	path = s->parameters[0] == '/' ? xstrdup(s->parameters)
		: xasprintf("%s/%s", s->dir, s->parameters);
	rc = sweep_params_read(path, p, err);
	free(path);
	return rc;
}

int sweep_session_load(struct sweep_store *st, const char *sid, int64_t *session,
		       struct sweep_spec *s, struct sweep_params *p, struct sbuf *err)
{
	char *spec = NULL;
	int64_t id = 0;
	int rc = sweep_store_session(st, sid, &id, &spec);

	if (rc == SWEEP_STORE_NOT_FOUND)
		sbuf_addf(err, "no sweep session %s", sid);
	else if (rc != SWEEP_STORE_OK)
		sbuf_addstr(err, "the sweep's database failed (the log says why)");
	else if (!spec)
		sbuf_addf(err, "sweep session %s names no spec", sid);
	if (rc != SWEEP_STORE_OK || !spec) {
		free(spec);
		return -1;
	}
	if (session)
		*session = id;
	rc = sweep_spec_read(spec, s, err);
	if (rc == 0 && p)
		rc = sweep_session_params(s, p, err);
	free(spec);
	return rc;
}

struct sweep_store *sweep_project_store(const char *path, double wait)
{
	struct sbuf err = SBUF_INIT(1024);
	double end = dnow() + wait;
	struct sweep_store *st;

	/* each try that fails logs why: one a second */
	while (!(st = sweep_store_open_project(path, &err)) && dnow() + 1 < end) {
		sbuf_reset(&err);
		sleep(1);
	}
	if (!st)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return st;
}

/* Is row (from 0) left out of the new session? */
static bool skipped(const struct sweep_create_opts *co, size_t row)
{
	return co && co->skip && row < co->nskip && co->skip[row];
}

/*
 * The tasks of the table p but the skipped sets, their bodies allocated
 * (tasks_release()); *n gets how many.
 */
static int make_tasks(const struct sweep_spec *s, const struct sweep_params *p,
		      const struct sweep_create_opts *co, struct sweep_task_new *tasks,
		      size_t *n, struct sbuf *err)
{
	struct sbuf body = SBUF_INIT(SWEEP_MSG_MAX);
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < p->nrows; i++) {
		struct sweep_task_new *t = &tasks[*n];

		if (skipped(co, i))
			continue;
		sbuf_reset(&body);
		rc = task_body(s, p, i, &body, err);
		t->row = i + 1;
		t->body = xstrdup(sbuf_str(&body));
		t->timeout = (int)s->timeout;
		t->max_assign = s->max_assign > 0 ? (int)s->max_assign : 1;
		t->max_total = s->max_total > 0 ? (int)s->max_total : t->max_assign;
		(*n)++;
	}
	sbuf_release(&body);
	return rc;
}

static void tasks_release(struct sweep_task_new *tasks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)tasks[i].body);
	free(tasks);
}

int sweep_session_create(struct sweep_store *st, const struct sweep_files *files,
			 const char *spec_path, const struct sweep_create_opts *co,
			 char sid[SWEEP_SID_LEN + 1], int64_t *session, size_t *ntasks,
			 struct sbuf *err)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct sweep_task_new *tasks = NULL;
	char *sdir = NULL, *spec = realpath(spec_path, NULL);   /* collect reads it again */
	size_t n = 0;
	int rc = sweep_spec_read(spec_path, &s, err);

	if (rc == 0)
		rc = sweep_spec_load_sources(&s, err);
	if (rc == 0 && co && co->max_total > 0)
		s.max_total = co->max_total > s.max_assign ? co->max_total : s.max_assign;
	if (rc == 0)
		rc = sweep_session_params(&s, &p, err);
	if (rc == 0)
		rc = sweep_spec_check_params(&s, &p, err);
	if (rc == 0 && random_hex(sid, SWEEP_SID_LEN / 2) < 0) {
		sbuf_addstr(err, "no randomness for a session ID");
		rc = -1;
	}
	if (rc == 0)
		rc = session_files((sdir = sweep_files_session(files, sid)), &s, err);
	tasks = xcalloc(p.nrows + 1, sizeof(*tasks));
	if (rc == 0)
		rc = make_tasks(&s, &p, co, tasks, &n, err);
	if (rc == 0 && (sweep_store_create(st, sid, spec ? spec : spec_path, tasks, n)
			!= SWEEP_STORE_OK || sweep_store_session(st, sid, session, NULL)
			!= SWEEP_STORE_OK)) {
		sbuf_addstr(err, "cannot store the session (the log says why)");
		rc = -1;
	}
	if (rc == 0)
		*ntasks = n;
	else if (sdir)
		remove_tree(sdir);
	tasks_release(tasks, n);
	free(sdir);
	free(spec);
	sweep_params_release(&p);
	sweep_spec_release(&s);
	return rc;
}

/* ---- validation and collection --------------------------------------------------- */

struct collect {
	struct sweep_store *store;
	const struct sweep_files *files;
	const struct sweep_spec *spec;
	const struct sweep_params *params;
	struct sweep_collect_stats *st;
	struct sbuf *err;
};

/* The /complete body of ticket r, decoded. */
static int read_results(const struct collect *c, const char *ticket, struct sweep_complete *out)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), body = SBUF_INIT(SWEEP_COMPLETE_MAX);
	struct sbuf err = SBUF_INIT(1024);
	int rc = sweep_files_result(c->files, ticket, false, &path);

	/* what the endpoint took, the master reads: the same bound */
	if (rc == 0)
		rc = read_file(sbuf_str(&path), SWEEP_COMPLETE_MAX, &body);
	if (rc == 0)
		rc = sweep_complete_decode(body.buf ? body.buf : "", body.len, SWEEP_COMPLETE_MAX, out,
					   &err);
	if (rc < 0)
		log_warn("sweep: the results of a ticket cannot be read: %s", sbuf_str(&err));
	sbuf_release(&path);
	sbuf_release(&body);
	sbuf_release(&err);
	return rc;
}

/*
 * Run the Validate command for parameter set row in a fresh directory that
 * holds each result as a file named like it, the first one also on stdin.
 */
static bool valid(const struct collect *c, size_t row, const struct sweep_complete *res)
{
	struct sweep_argv argv = { NULL, 0 };
	struct sbuf err = SBUF_INIT(1024);
	char dir[] = "/tmp/sweep-validate.XXXXXX";
	bool ok = false;
	size_t i;
	pid_t pid;
	int status;

	if (!c->spec->validate)
		return true;
	if (sweep_spec_command(c->spec->validate, c->params, row, &argv, &err) < 0 || !argv.n ||
	    !mkdtemp(dir)) {
		log_error("sweep: cannot run Validate for set %zu: %s", row + 1, sbuf_str(&err));
		goto out;
	}
	for (i = 0; i < res->nresults; i++) {
		char *p = xasprintf("%s/%s", dir, res->results[i].name);

		write_file_atomic(p, res->results[i].data, res->results[i].len, 0644);
		free(p);
	}
	pid = fork();
	if (pid == 0) {
		char *in = res->nresults ? xasprintf("%s/%s", dir, res->results[0].name) : NULL;
		int fd = in ? open(in, O_RDONLY) : -1;
		char *sdir = realpath(c->spec->dir, NULL);
		char *prog = argv.v[0][0] == '/' || !strchr(argv.v[0], '/') || !sdir ? argv.v[0]
			: xasprintf("%s/%s", sdir, argv.v[0]);

		if (fd >= 0)
			dup2(fd, 0);
		if (chdir(dir) == 0)
			execvp(prog, argv.v);
		_exit(127);
	}
	ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	remove_tree(dir);
out:
	sweep_argv_release(&argv);
	sbuf_release(&err);
	return ok;
}

/* The verdicts of a pass, kept until its one transaction records them all. */
struct verdicts {
	struct collect *c;
	struct sweep_verdict *v;
	size_t n;
};

/* Judge an answered ticket (outside any transaction: Validate may take its time). */
static int judge_ticket(const struct sweep_ticket *t, void *arg)
{
	struct verdicts *vs = arg;
	struct collect *c = vs->c;
	struct sweep_complete res = { 0 };
	struct sweep_verdict *v;

	if (t->row < 1 || t->row > c->params->nrows || !t->name)
		return 0;
	ARRAY_GROW(vs->v, vs->n);
	v = &vs->v[vs->n++];
	v->ticket = t->id;
	v->valid = read_results(c, t->name, &res) == 0 && valid(c, t->row - 1, &res);
	if (v->valid) {
		c->st->valid++;
	} else {
		c->st->invalid++;
		log_info("sweep: a result of set %zu is invalid", t->row);
	}
	sweep_complete_release(&res);
	return 0;
}

/*
 * Judge every answered ticket of the session not judged yet, then record
 * the verdicts in one transaction: a valid result becomes its task's
 * canonical one, an invalid one sends its task back for a new ticket (up
 * to MaxTotal). 0, or -1.
 */
static int judge_returned(struct collect *c, int64_t session)
{
	struct verdicts vs = { c, NULL, 0 };
	int rc = sweep_store_returned(c->store, session, judge_ticket, &vs);

	if (rc == SWEEP_STORE_OK)
		rc = sweep_store_judge(c->store, vs.v, vs.n, now());
	free(vs.v);
	if (rc != SWEEP_STORE_OK)
		sbuf_addstr(c->err, "cannot record the verdicts (the log says why)");
	return rc == SWEEP_STORE_OK ? 0 : -1;
}

/* A task as collection sees it: its row, and its valid ticket's name (NULL none). */
struct done_task {
	size_t row;
	char *canonical;
	bool failed;
};

struct task_list {
	struct done_task *v;
	size_t n;
};

static int take_task(const struct sweep_task_state *t, void *arg)
{
	struct task_list *l = arg;

	ARRAY_GROW(l->v, l->n);
	l->v[l->n].row = t->row;
	l->v[l->n].canonical = t->canonical ? xstrdup(t->canonical) : NULL;
	l->v[l->n++].failed = t->failed;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	size_t x = ((const struct done_task *)a)->row, y = ((const struct done_task *)b)->row;

	return (x > y) - (x < y);
}

/*
 * Collect=tag (GNU parallel's --tag): data with every line after the set's
 * values and a tab; a last line without its newline gets one.
 */
static void add_tagged(struct sbuf *out, const struct sweep_params *p, size_t row,
		       const char *data, size_t len)
{
	const char *end = data + len;
	size_t k;

	while (data < end) {
		const char *nl = memchr(data, '\n', (size_t)(end - data));
		const char *next = nl ? nl + 1 : end;

		for (k = 0; k < p->nnames; k++)
			sbuf_addf(out, "%s\t", p->rows[row].values[k]);
		sbuf_add(out, data, (size_t)(next - data));
		if (!nl)
			sbuf_addch(out, '\n');
		data = next;
	}
}

/* Append set row's valid results to out (blocks: under a header naming the set). */
static int add_block(struct collect *c, const struct done_task *t, struct sbuf *out)
{
	struct sweep_complete res = { 0 };
	size_t row = t->row - 1, i, k;

	if (t->row < 1 || t->row > c->params->nrows || read_results(c, t->canonical, &res) < 0) {
		sbuf_addf(c->err, "the valid result of set %zu cannot be read", t->row);
		return -1;
	}
	if (c->spec->collect == SWEEP_COLLECT_BLOCKS) {
		/* a header starts a line, whatever the result before it ended with */
		if (out->len && out->buf[out->len - 1] != '\n')
			sbuf_addstr(out, "\n");
		sbuf_addstr(out, "### ");
		for (k = 0; k < c->params->nnames; k++) {
			sbuf_addf(out, "%s%s=", k ? " " : "", c->params->names[k]);
			sweep_params_quote(c->params->rows[row].values[k], out);
		}
		sbuf_addstr(out, "\n");
	}
	for (i = 0; i < c->spec->nresults; i++) {
		const struct sweep_msg_output *o = sweep_complete_find(&res, c->spec->results[i].name);

		if (o && c->spec->collect == SWEEP_COLLECT_TAG)
			add_tagged(out, c->params, row, o->data, o->len);
		else if (o)
			sbuf_add(out, o->data, o->len);
	}
	sweep_complete_release(&res);
	return 0;
}

/* The output, made again whole from every valid result, in table order. */
static int write_output(struct collect *c, int64_t session, bool write, char **opath)
{
	struct task_list l = { NULL, 0 };
	struct sbuf out = SBUF_INIT(1L << 31);
	size_t i;
	int rc = 0;

	if (write && sweep_store_tasks(c->store, session, take_task, &l) != SWEEP_STORE_OK) {
		sbuf_addstr(c->err, "cannot read the session's tasks (the log says why)");
		rc = -1;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_row);
	for (i = 0; rc == 0 && i < l.n; i++) {
		if (l.v[i].canonical) {
			c->st->done++;
			rc = add_block(c, &l.v[i], &out);
		} else if (l.v[i].failed) {
			c->st->failed++;
		} else {
			c->st->pending++;
		}
	}
	*opath = c->spec->output[0] == '/' ? xstrdup(c->spec->output)
		: xasprintf("%s/%s", c->spec->dir, c->spec->output);
	if (rc == 0 && write)
		rc = write_file_atomic(*opath, out.buf ? out.buf : "", out.len, 0644);
	for (i = 0; i < l.n; i++)
		free(l.v[i].canonical);
	free(l.v);
	sbuf_release(&out);
	return rc;
}

int sweep_session_collect(struct sweep_store *store, const struct sweep_files *files,
			  const char *sid, bool write, struct sweep_collect_stats *st,
			  struct sbuf *err)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct collect c = { store, files, &s, &p, st, err };
	int64_t session = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = sweep_session_load(store, sid, &session, &s, &p, err);
	if (rc == 0 && sweep_store_tick(store, session, now(), NULL) != SWEEP_STORE_OK) {
		sbuf_addstr(err, "the sweep's database failed (the log says why)");
		rc = -1;
	}
	if (rc == 0)
		rc = judge_returned(&c, session);
	if (rc == 0)
		rc = write_output(&c, session, write, &st->output);
	sweep_params_release(&p);
	sweep_spec_release(&s);
	return rc;
}

/* ---- statistics ----------------------------------------------------------------- */

/* A failed set's task, for its reasons: the index of its entry in failed_sets. */
struct failed_ref {
	int64_t task;
	size_t i;
};

struct stats_walk {
	struct sweep_stats *st;
	struct failed_ref *failed;      /* sorted by task once the tasks are in */
};

static int count_task(const struct sweep_task_state *t, void *arg)
{
	struct stats_walk *w = arg;
	struct sweep_stats *st = w->st;

	st->total++;
	if (t->canonical) {
		st->done++;
	} else if (t->failed) {
		ARRAY_GROW(st->failed_sets, st->nfailed_sets);
		ARRAY_GROW(w->failed, st->nfailed_sets);
		st->failed_sets[st->nfailed_sets].row = t->row;
		st->failed_sets[st->nfailed_sets].why = NULL;
		w->failed[st->nfailed_sets] = (struct failed_ref){ t->id, st->nfailed_sets };
		st->nfailed_sets++;
		st->failed++;
	} else if (t->nout) {
		st->running++;
	} else {
		st->waiting++;
	}
	if (!t->canonical && !t->failed && t->nunsent > 0)
		st->ready = true;
	return 0;
}

/* The value of "key=value" line of a ticket's note (stderr_out), or "". */
static char *note_value(const char *note, const char *key)
{
	size_t k = strlen(key);
	const char *p;

	for (p = note; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == '=')
			return xstrndup(p + k + 1, strcspn(p + k + 1, "\n"));
	return xstrdup("");
}

static struct sweep_host_stat *host_stat(struct sweep_stats *st, const char *host)
{
	size_t i;

	for (i = 0; i < st->nhosts; i++)
		if (!strcmp(st->hosts[i].host, host))
			return &st->hosts[i];
	ARRAY_GROW(st->hosts, st->nhosts);
	memset(&st->hosts[st->nhosts], 0, sizeof(*st->hosts));
	st->hosts[st->nhosts].host = xstrdup(host);
	return &st->hosts[st->nhosts++];
}

static void add_reason(struct sweep_failed_set *f, const char *why)
{
	char *w;

	if (f->why && strstr(f->why, why))
		return;         /* the same reason twice says nothing more */
	w = f->why ? xasprintf("%s; %s", f->why, why) : xstrdup(why);
	free(f->why);
	f->why = w;
}

static int cmp_task(const void *a, const void *b)
{
	int64_t x = ((const struct failed_ref *)a)->task, y = ((const struct failed_ref *)b)->task;

	return (x > y) - (x < y);
}

static int count_ticket(const struct sweep_ticket *t, void *arg)
{
	struct stats_walk *w = arg;
	struct sweep_stats *st = w->st;
	char *host = note_value(t->note, "host"), *why = NULL;
	struct sweep_host_stat *h = host_stat(st, *host ? host : "(unknown)");

	if (t->state == SWEEP_TICKET_VALID) {
		h->done++;
	} else if (t->state == SWEEP_TICKET_FAILED) {
		char *v = note_value(t->note, "why");

		h->failed++;
		why = xasprintf("%s (%s)", *v ? v : "the worker failed", *host ? host : "?");
		free(v);
	} else if (t->state == SWEEP_TICKET_INVALID) {
		h->invalid++;
		why = xasprintf("invalid result (%s)", *host ? host : "?");
	} else if (t->state == SWEEP_TICKET_TIMED_OUT) {
		h->lost++;
		why = xasprintf("no answer within the timeout (%s)", *host ? host : "?");
	}
	if (t->state != SWEEP_TICKET_TIMED_OUT && t->received_time)
		h->seconds += t->elapsed;
	if (why && st->nfailed_sets) {
		struct failed_ref key = { t->task, 0 };
		const struct failed_ref *f = bsearch(&key, w->failed, st->nfailed_sets,
						     sizeof(*w->failed), cmp_task);

		if (f)
			add_reason(&st->failed_sets[f->i], why);
	}
	free(why);
	free(host);
	return 0;
}

static int cmp_host(const void *a, const void *b)
{
	return strcmp(((const struct sweep_host_stat *)a)->host,
		      ((const struct sweep_host_stat *)b)->host);
}

/* Counted by the store: no row a task, once a second. */
static int stats_counts(struct sweep_store *store, int64_t session, struct sweep_stats *st)
{
	struct sweep_counts c;
	int rc = sweep_store_counts(store, session, &c);

	st->total = (size_t)c.total;
	st->done = (size_t)c.done;
	st->failed = (size_t)c.failed;
	st->running = (size_t)c.running;
	/* a task only leaves "pending": the second count cannot exceed the first's rest */
	st->waiting = st->total - st->done - st->failed;
	st->waiting -= st->running < st->waiting ? st->running : st->waiting;
	st->ready = c.waiting;
	return rc;
}

int sweep_session_stats(struct sweep_store *store, const char *sid, bool detail,
			struct sweep_stats *st, struct sbuf *err)
{
	struct stats_walk w = { st, NULL };
	int64_t session = 0;
	int rc = sweep_store_session(store, sid, &session, NULL);

	memset(st, 0, sizeof(*st));
	if (rc == SWEEP_STORE_OK && !detail)
		rc = stats_counts(store, session, st);
	if (rc == SWEEP_STORE_OK && detail)
		rc = sweep_store_tasks(store, session, count_task, &w);
	if (rc == SWEEP_STORE_OK && detail) {
		if (st->nfailed_sets)
			qsort(w.failed, st->nfailed_sets, sizeof(*w.failed), cmp_task);
		rc = sweep_store_ended(store, session, count_ticket, &w);
	}
	if (rc == SWEEP_STORE_NOT_FOUND)
		sbuf_addf(err, "no sweep session %s", sid);
	else if (rc != SWEEP_STORE_OK)
		sbuf_addstr(err, "the sweep's database failed (the log says why)");
	if (st->nhosts)
		qsort(st->hosts, st->nhosts, sizeof(*st->hosts), cmp_host);
	free(w.failed);
	return rc == SWEEP_STORE_OK ? 0 : -1;
}

void sweep_stats_release(struct sweep_stats *st)
{
	size_t i;

	for (i = 0; i < st->nhosts; i++)
		free(st->hosts[i].host);
	for (i = 0; i < st->nfailed_sets; i++)
		free(st->failed_sets[i].why);
	free(st->hosts);
	free(st->failed_sets);
	memset(st, 0, sizeof(*st));
}
