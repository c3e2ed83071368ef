/*
 * Parameter sweep sessions on the server (see sweep_session.h and the
 * server-side section of doc/sweep-protocol.md): from a worker spec and its
 * parameter table, a batch of the app "sweep" named "sweep:SESSIONID", one
 * workunit per parameter set holding its task body, and the session's files
 * (configuration, worker name, workers per platform) that cgi-bin/sweep
 * serves. The transitioner makes the tickets (results) as for any job.
 */
#include "sweep_session.h"
#include "config.h"
#include "dirhier.h"
#include "db_queries.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_msg.h"
#include "sweep_spec.h"
#include "work.h"
#include "wtime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define SWEEP_APP SWEEP_APP_NAME
#define SWEEP_RESULT_TEMPLATE "templates/sweep_out"

/* The task body of parameter set row, after its Ticket and Timeout (the CGI adds them). */
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

/* The app "sweep" (made if missing) and its empty result template. */
static int sweep_app(struct db *db, const struct project_config *cfg, int64_t *appid)
{
	struct db_app app = { 0 };
	char *path = xasprintf("%s/%s", cfg->project_dir, SWEEP_RESULT_TEMPLATE);
	static const char tpl[] = "<output_template>\n<result>\n</result>\n</output_template>\n";
	int rc = db_app_lookup_name(db, SWEEP_APP, &app);

	if (rc == DB_NOT_FOUND) {
		app.name = xstrdup(SWEEP_APP);
		app.user_friendly_name = xstrdup("parameter sweep");
		app.create_time = now();
		rc = db_app_insert(db, &app);
	}
	*appid = app.id;
	db_app_release(&app);
	if (rc == DB_OK && access(path, F_OK) != 0 &&
	    write_file_atomic(path, tpl, sizeof(tpl) - 1, 0644) < 0)
		rc = DB_ERROR;
	free(path);
	return rc == DB_OK ? 0 : -1;
}

/* sweep/SESSIONID/: config, worker_name, workers/PLATFORM. */
static int session_files(const struct project_config *cfg, const struct sweep_spec *s,
			 const char *sid, struct sbuf *err)
{
	struct sweep_config c = { s->delete_worker, s->delete_client, s->ping };
	struct sbuf b = SBUF_INIT(1 << 16);
	char *dir = xasprintf("%s/sweep/%s/workers", cfg->project_dir, sid), *path = NULL;
	size_t i;
	int rc = mkdir_p(dir, 0755);

	if (rc == 0)
		rc = sweep_config_encode(&c, &b, err);
	free(path);
	path = xasprintf("%s/sweep/%s/config", cfg->project_dir, sid);
	if (rc == 0)
		rc = write_file_atomic(path, b.buf, b.len, 0644);
	free(path);
	path = xasprintf("%s/sweep/%s/worker_name", cfg->project_dir, sid);
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

int sweep_session_load(struct db *db, const char *sid, int64_t *batch, struct sweep_spec *s,
		       struct sweep_params *p, struct sbuf *err)
{
	struct db_batch b = { 0 };
	char *name = xasprintf("sweep:%s", sid);
	int rc = db_batch_lookup_name(db, name, &b);

	free(name);
	if (rc != DB_OK) {
		if (rc == DB_NOT_FOUND)
			sbuf_addf(err, "no sweep session %s", sid);
		else
			sbuf_addf(err, "database error: %s", db_error(db));
		db_batch_release(&b);
		return -1;
	}
	if (batch)
		*batch = b.id;
	rc = sweep_spec_read(b.description, s, err);
	if (rc == 0 && p)
		rc = sweep_session_params(s, p, err);
	db_batch_release(&b);
	return rc;
}

/*
 * The first tickets of the n tasks wus (inserted): target_nresults each, as
 * the transitioner would make them, so the clients find work at once instead
 * of after the transitioner's next pass. Later ones (after a timeout or a
 * failure) are the transitioner's.
 */
static int first_tickets(struct db *db, const struct project_config *cfg,
			 const struct db_workunit *wus, size_t n)
{
	struct db_result *rs;
	size_t i, k = 0, total = 0;
	int j, rc = 0;

	for (i = 0; i < n; i++)
		total += (size_t)wus[i].target_nresults;
	rs = xcalloc(total + 1, sizeof(*rs));
	for (i = 0; rc == 0 && i < n; i++)
		for (j = 0; rc == 0 && j < wus[i].target_nresults; j++)
			rc = work_result_init(cfg, &wus[i], j, &rs[k++]);
	if (rc == 0 && total &&
	    db_rec_insert_many(db, &db_result_table, rs, sizeof(*rs), total) != DB_OK)
		rc = -1;
	for (i = 0; i < k; i++)
		db_result_release(&rs[i]);
	free(rs);
	return rc;
}

/* Is row (from 0) left out of the new session? */
static bool skipped(const struct sweep_create_opts *co, size_t row)
{
	return co && co->skip && row < co->nskip && co->skip[row];
}

int sweep_session_create(struct db *db, const struct project_config *cfg, const char *spec_path,
			 const struct sweep_create_opts *co, char sid[SWEEP_SID_LEN + 1],
			 int64_t *batch_id, size_t *ntasks, struct sbuf *err)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct db_batch b = { 0 };
	struct db_workunit *wus = NULL;
	struct sbuf body = SBUF_INIT(SWEEP_MSG_MAX);
	int64_t appid = 0;
	size_t i, n = 0;
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
		rc = session_files(cfg, &s, sid, err);
	if (rc == 0 && db_begin(db) != DB_OK)
		rc = -1;
	if (rc == 0)
		rc = sweep_app(db, cfg, &appid);
	if (rc == 0) {
		b.name = xasprintf("sweep:%s", sid);
		b.app_id = appid;
		b.create_time = now();
		b.state = BATCH_STATE_IN_PROGRESS;
		for (i = 0; i < p.nrows; i++)
			b.njobs += !skipped(co, i);
		b.description = realpath(spec_path, NULL);     /* collect reads it again */
		if (!b.description)
			b.description = xstrdup(spec_path);
		if (db_batch_insert(db, &b) != DB_OK)
			rc = -1;
	}
	wus = xcalloc(p.nrows + 1, sizeof(*wus));
	for (i = 0; rc == 0 && i < p.nrows; i++) {
		struct db_workunit *w = &wus[n];

		if (skipped(co, i))
			continue;
		n++;
		sbuf_reset(&body);
		rc = task_body(&s, &p, i, &body, err);
		w->create_time = now();
		w->appid = appid;
		w->name = xasprintf("sweep_%lld_%zu", (long long)b.id, i + 1);
		w->xml_doc = xstrdup(sbuf_str(&body));
		w->batch = b.id;
		w->delay_bound = (int)s.timeout;
		w->min_quorum = 1;
		w->target_nresults = s.max_assign > 0 ? (int)s.max_assign : 1;
		w->max_total_results = s.max_total > 0 ? (int)s.max_total : w->target_nresults;
		w->max_error_results = w->max_total_results;
		w->max_success_results = w->target_nresults;
		w->result_template_file = xstrdup(SWEEP_RESULT_TEMPLATE);
		/* its tickets are made below: nothing for the transitioner to do before then */
		w->transition_time = work_safety_net(w, now());
		w->opaque = (double)(i + 1);    /* the parameter set's row */
		w->files_indexed = 1;   /* a task body names no input file for the file deleter */
	}
	if (rc == 0 && n &&
	    db_rec_insert_many(db, &db_workunit_table, wus, sizeof(*wus), n) != DB_OK)
		rc = -1;
	if (rc == 0)
		rc = first_tickets(db, cfg, wus, n);
	if (rc == 0 && db_commit(db) != DB_OK)
		rc = -1;
	if (rc != 0) {
		db_rollback(db);
		if (sid[0]) {
			char *dir = xasprintf("%s/sweep/%s", cfg->project_dir, sid);

			remove_tree(dir);
			free(dir);
		}
		if (!err->len)
			sbuf_addf(err, "cannot store the session: %s", db_error(db));
	} else {
		*batch_id = b.id;
		*ntasks = n;
	}
	for (i = 0; i < n; i++)
		db_workunit_release(&wus[i]);
	free(wus);
	db_batch_release(&b);
	sweep_params_release(&p);
	sweep_spec_release(&s);
	sbuf_release(&body);
	return rc;
}

/* ---- validation and collection --------------------------------------------------- */

struct collect {
	struct db *db;
	const struct project_config *cfg;
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
	int rc = dirhier_path(ticket, c->cfg->upload_dir, c->cfg->uldl_dir_fanout, false, &path);

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

/* A ticket's verdict, kept until the pass's one transaction records them all. */
struct verdict {
	struct db_result r;
	bool valid;
};

struct verdicts {
	struct collect *c;
	struct verdict *v;
	size_t n;
};

/* Judge an answered ticket (outside any transaction: Validate may take its time). */
static int judge_result(struct db_result *r, void *arg)
{
	struct verdicts *vs = arg;
	struct collect *c = vs->c;
	struct db_workunit wu = { 0 };
	struct sweep_complete res = { 0 };
	struct verdict *v;
	size_t row;

	if (db_workunit_lookup_id(c->db, r->workunitid, &wu) != DB_OK || wu.opaque < 1 ||
	    (size_t)wu.opaque > c->params->nrows) {
		db_workunit_release(&wu);
		return 0;
	}
	row = (size_t)wu.opaque - 1;
	ARRAY_GROW(vs->v, vs->n);
	v = &vs->v[vs->n++];
	v->valid = read_results(c, r->name, &res) == 0 && valid(c, row, &res);
	v->r = *r;
	memset(r, 0, sizeof(*r));
	if (v->valid) {
		c->st->valid++;
	} else {
		c->st->invalid++;
		log_info("sweep: a result of set %zu is invalid", row + 1);
	}
	sweep_complete_release(&res);
	db_workunit_release(&wu);
	return 0;
}

/*
 * Judge every answered ticket of the batch not judged yet, then record the
 * verdicts in one transaction: a valid result becomes its task's canonical
 * result, an invalid one sends its task back to the transitioner (to be
 * handed out again, up to MaxTotal). 0, or -1.
 */
static int judge_returned(struct collect *c, int64_t batch)
{
	struct verdicts vs = { c, NULL, 0 };
	int64_t t = now();
	size_t i;
	int rc = db_sweep_returned(c->db, batch, judge_result, &vs);

	if (rc == DB_OK && vs.n) {
		rc = db_begin(c->db);
		for (i = 0; rc == DB_OK && i < vs.n; i++)
			rc = db_sweep_judge(c->db, &vs.v[i].r, vs.v[i].valid, t);
		if (rc == DB_OK)
			rc = db_commit(c->db);
		else
			db_rollback(c->db);
	}
	for (i = 0; i < vs.n; i++)
		db_result_release(&vs.v[i].r);
	free(vs.v);
	if (rc != DB_OK)
		sbuf_addf(c->err, "cannot record the verdicts: %s", db_error(c->db));
	return rc == DB_OK ? 0 : -1;
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
static int add_block(struct collect *c, struct db_workunit *wu, void *arg)
{
	struct sbuf *out = arg;
	struct db_result r = { 0 };
	struct sweep_complete res = { 0 };
	size_t row = (size_t)wu->opaque - 1, i, k;

	if (db_result_lookup_id(c->db, wu->canonical_resultid, &r) != DB_OK ||
	    read_results(c, r.name, &res) < 0) {
		sbuf_addf(c->err, "the valid result of set %zu cannot be read", row + 1);
		db_result_release(&r);
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
	db_result_release(&r);
	sweep_complete_release(&res);
	return 0;
}

struct wu_list {
	struct db_workunit *v;
	size_t n;
};

static int take_wu_into(struct db_workunit *w, void *arg)
{
	struct wu_list *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, 0);

	return db_rows_take(w, &rows);
}

int sweep_session_collect(struct db *db, const struct project_config *cfg, const char *sid,
			  bool write_output, struct sweep_collect_stats *st, struct sbuf *err)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct wu_list l = { NULL, 0 };
	struct sbuf out = SBUF_INIT(1L << 31);
	struct collect c = { db, cfg, &s, &p, st, err };
	char *opath = NULL;
	int64_t batch = 0;
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = sweep_session_load(db, sid, &batch, &s, &p, err);
	/* judge what came back */
	if (rc == 0)
		rc = judge_returned(&c, batch);
	/* the output, made again whole from every valid result, in table order */
	if (rc == 0 && write_output) {
		struct db_val v[] = { DBV_INT(batch) };

		if (db_workunit_enum(db, "FORCE INDEX (wu_batch) WHERE batch=? ORDER BY opaque, id", v,
				     1, take_wu_into, &l) != DB_OK)
			rc = -1;
	}
	for (i = 0; rc == 0 && i < l.n; i++) {
		if (l.v[i].canonical_resultid) {
			st->done++;
			if (add_block(&c, &l.v[i], &out) < 0)
				rc = -1;
		} else if (l.v[i].error_mask) {
			st->failed++;
		} else {
			st->pending++;
		}
	}
	if (rc == 0) {
		opath = s.output[0] == '/' ? xstrdup(s.output) : xasprintf("%s/%s", s.dir, s.output);
		if (write_output)
			rc = write_file_atomic(opath, out.buf ? out.buf : "", out.len, 0644);
		st->output = opath;
		opath = NULL;
	}
	for (i = 0; i < l.n; i++)
		db_workunit_release(&l.v[i]);
	free(l.v);
	free(opath);
	sweep_params_release(&p);
	sweep_spec_release(&s);
	sbuf_release(&out);
	return rc;
}

/* ---- statistics ----------------------------------------------------------------- */

struct stats_walk {
	struct sweep_stats *st;
	/* rows (from 1) of the failed sets, by task id, for the reasons */
	int64_t *failed_ids;
};

static int count_task(struct db_sweep_task *t, void *arg)
{
	struct stats_walk *w = arg;
	struct sweep_stats *st = w->st;

	st->total++;
	if (t->canonical_resultid) {
		st->done++;
	} else if (t->error_mask) {
		ARRAY_GROW(st->failed_sets, st->nfailed_sets);
		ARRAY_GROW(w->failed_ids, st->nfailed_sets);
		st->failed_sets[st->nfailed_sets].row = t->opaque > 0 ? (size_t)t->opaque : 0;
		st->failed_sets[st->nfailed_sets].why = NULL;
		w->failed_ids[st->nfailed_sets++] = t->id;
		st->failed++;
	} else if (t->nrunning) {
		st->running++;
	} else {
		st->waiting++;
	}
	if (!t->canonical_resultid && !t->error_mask && t->nunsent > 0)
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

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int count_ticket(struct db_result *r, void *arg)
{
	struct stats_walk *w = arg;
	struct sweep_stats *st = w->st;
	char *host = note_value(r->stderr_out, "host"), *why = NULL;
	struct sweep_host_stat *h = host_stat(st, *host ? host : "(unknown)");

	if (r->outcome == RESULT_OUTCOME_SUCCESS && r->validate_state == VALIDATE_STATE_VALID) {
		h->done++;
	} else if (r->outcome == RESULT_OUTCOME_CLIENT_ERROR) {
		char *v = note_value(r->stderr_out, "why");

		h->failed++;
		why = xasprintf("%s (%s)", *v ? v : "the worker failed", *host ? host : "?");
		free(v);
	} else if (r->validate_state == VALIDATE_STATE_INVALID ||
		   r->outcome == RESULT_OUTCOME_VALIDATE_ERROR) {
		h->invalid++;
		why = xasprintf("invalid result (%s)", *host ? host : "?");
	} else if (r->outcome == RESULT_OUTCOME_NO_REPLY) {
		h->lost++;
		why = xasprintf("no answer within the timeout (%s)", *host ? host : "?");
	}
	if (r->outcome != RESULT_OUTCOME_NO_REPLY && r->received_time)
		h->seconds += r->elapsed_time;
	if (why && st->nfailed_sets) {
		/* the failed tasks came by id, so their ids are sorted */
		const int64_t *f = bsearch(&r->workunitid, w->failed_ids, st->nfailed_sets,
					   sizeof(int64_t), cmp_id);

		if (f)
			add_reason(&st->failed_sets[f - w->failed_ids], why);
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

int sweep_session_stats(struct db *db, const char *sid, bool detail, struct sweep_stats *st,
			struct sbuf *err)
{
	struct stats_walk w = { st, NULL };
	struct db_batch b = { 0 };
	char *name = xasprintf("sweep:%s", sid);
	int rc = db_batch_lookup_name(db, name, &b);

	memset(st, 0, sizeof(*st));
	free(name);
	if (rc == DB_OK && !detail) {
		/* counted by the database: no row a task, once a second */
		struct db_sweep_counts c;

		rc = db_sweep_counts(db, b.id, &c);
		st->total = (size_t)c.total;
		st->done = (size_t)c.done;
		st->failed = (size_t)c.failed;
		st->running = (size_t)c.running;
		/* a task only leaves "pending": the second count cannot exceed the first's rest */
		st->waiting = st->total - st->done - st->failed;
		st->waiting -= st->running < st->waiting ? st->running : st->waiting;
		st->ready = c.waiting_ticket != 0;
	}
	if (rc == DB_OK && detail)
		rc = db_sweep_tasks(db, b.id, count_task, &w);
	if (rc == DB_OK && detail)
		rc = db_sweep_ended(db, b.id, count_ticket, &w);
	if (rc != DB_OK)
		sbuf_addf(err, rc == DB_NOT_FOUND ? "no sweep session %s" : "database error: %s",
			  rc == DB_NOT_FOUND ? sid : db_error(db));
	if (st->nhosts)
		qsort(st->hosts, st->nhosts, sizeof(*st->hosts), cmp_host);
	free(w.failed_ids);
	db_batch_release(&b);
	return rc == DB_OK ? 0 : -1;
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
