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
#include "db_queries.h"
#include "fileutil.h"
#include "log.h"
#include "sweep_msg.h"
#include "sweep_spec.h"
#include "wtime.h"

#include <sys/stat.h>

#define SWEEP_APP "sweep"
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
	sweep_task_free(&t);
	sweep_argv_free(&argv);
	sbuf_free(&cmd);
	sbuf_free(&content);
	sbuf_free(&full);
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
	db_app_free(&app);
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
	sbuf_free(&b);
	return rc;
}

int sweep_session_create(struct db *db, const struct project_config *cfg, const char *spec_path,
			 char sid[SWEEP_SID_LEN + 1], int64_t *batch_id, size_t *ntasks,
			 struct sbuf *err)
{
	struct sweep_spec s = { 0 };
	struct sweep_params p = { 0 };
	struct db_batch b = { 0 };
	struct db_workunit *wus = NULL;
	struct sbuf body = SBUF_INIT(SWEEP_MSG_MAX);
	char *ppath = NULL;
	int64_t appid = 0;
	size_t i;
	int rc = sweep_spec_read(spec_path, &s, err);

	if (rc == 0 && !s.parameters) {
		sbuf_addf(err, "%s: no Parameters= file", spec_path);
		rc = -1;
	}
	if (rc == 0) {
		ppath = s.parameters[0] == '/' ? xstrdup(s.parameters)
			: xasprintf("%s/%s", s.dir, s.parameters);
		rc = sweep_params_read(ppath, &p, err);
	}
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
		b.njobs = (int)p.nrows;
		b.description = xstrdup(spec_path);
		if (db_batch_insert(db, &b) != DB_OK)
			rc = -1;
	}
	wus = xcalloc(p.nrows + 1, sizeof(*wus));
	for (i = 0; rc == 0 && i < p.nrows; i++) {
		struct db_workunit *w = &wus[i];

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
		w->transition_time = now();
		w->opaque = (double)(i + 1);    /* the parameter set's row */
	}
	if (rc == 0 && p.nrows &&
	    db_rec_insert_many(db, &db_workunit_table, wus, sizeof(*wus), p.nrows) != DB_OK)
		rc = -1;
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
		*ntasks = p.nrows;
	}
	for (i = 0; i < p.nrows; i++)
		db_workunit_free(&wus[i]);
	free(wus);
	free(ppath);
	db_batch_free(&b);
	sweep_params_free(&p);
	sweep_spec_free(&s);
	sbuf_free(&body);
	return rc;
}
