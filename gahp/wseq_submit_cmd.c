/*
 * wseq_submit submit: read the description, check everything that can be
 * checked before the project is touched (the description, the input files,
 * the names, the app's templates), then send the batch as boinc_gahp does
 * (send_batch) and leave the state file. A description that fails any check
 * makes no batch on the server.
 */
#include "wseq_submit.h"
#include "wseq_submit_desc.h"
#include "submit_client.h"
#include "submit_send.h"
#include "fileutil.h"
#include "log.h"

#include <pwd.h>
#include <sys/stat.h>

/* the server's limits (doc/submit_rpc.md) */
#define JOB_NAME_MAX 200
#define SEQ_JOB_NAME_MAX 176
#define CMDLINE_MAX 8192
#define SEQ_CMDLINE_MAX 254

static int read_items(const char *path, struct sbuf *out, void *arg)
{
	(void)arg;
	if (access(path, R_OK) != 0)
		return -1;
	return read_file(path, DESC_MAX_BYTES, out);
}

/* The next cluster number of this directory ($(Cluster)), kept in its state directory. */
static long next_cluster(bool save, long n)
{
	struct sbuf b = SBUF_INIT(64);
	char *path = ws_state_path("cluster");
	long v = 0;

	if (!path) {
		sbuf_release(&b);
		return 1;
	} else if (save) {
		char num[32];

		snprintf(num, sizeof(num), "%ld\n", n);
		write_file_atomic(path, num, strlen(num), 0644);
	} else if (access(path, F_OK) == 0 && read_file(path, 64, &b) == 0) {
		char *e = strchr(b.buf ? b.buf : "", '\n');

		if (e)
			*e = '\0';
		if (b.buf && parse_long(b.buf, &v) < 0)
			v = 0;
	}
	free(path);
	sbuf_release(&b);
	return v + 1;
}

static char *user_name(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *u = pw ? pw->pw_name : getenv("USER");
	char *s = xstrdup(u && *u ? u : "user"), *p;

	for (p = s; *p; p++)
		if (!(*p >= 'A' && *p <= 'Z') && !(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9'))
			*p = '_';
	return s;
}

/* Check a job's inputs and names before anything is sent; 0 / -1 (told). */
static int check_job(const char *file, const struct submit_desc *d, const struct desc_job *j,
		     const char *name, const char *dir)
{
	struct sbuf cl = SBUF_INIT(1024L * 1024);
	size_t i;
	int ret = 0;

	if (strlen(name) > (d->sequence ? SEQ_JOB_NAME_MAX : JOB_NAME_MAX)) {
		fprintf(stderr, "%s:%ld: job %ld: its name %s is longer than the project takes (%d)\n",
			file, j->line, j->proc, name, d->sequence ? SEQ_JOB_NAME_MAX : JOB_NAME_MAX);
		return -1;
	}
	send_command_line(&cl, j->args, (long)j->nargs);
	for (i = 0; i < cl.len; i++)
		if ((unsigned char)cl.buf[i] < ' ')
			ret = -1;
	if (ret < 0 || cl.len > (size_t)(d->sequence ? SEQ_CMDLINE_MAX : CMDLINE_MAX)) {
		fprintf(stderr, "%s:%ld: job %ld: its arguments %s (at most %d characters%s)\n", file,
			j->line, j->proc, ret < 0 ? "hold a control character" : "are too long",
			d->sequence ? SEQ_CMDLINE_MAX : CMDLINE_MAX,
			d->sequence ? " for a sequence app" : "");
		sbuf_release(&cl);
		return -1;
	}
	sbuf_release(&cl);
	for (i = 0; i < j->ninputs; i++) {
		char *base = ws_path(dir, j->iwd), *path = ws_path(base, j->inputs[i]);
		struct stat st;

		errno = 0;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
			fprintf(stderr, "%s:%ld: job %ld: cannot read input file %s: %s\n", file,
				j->inputs_line, j->proc, j->inputs[i],
				errno ? strerror(errno) : "not a regular file");
			ret = -1;
		}
		free(base);
		free(path);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/*
 * An any_executable app runs the description's executable, a file (relative
 * to the submit directory dir): *exec, its path, if it can be read. 0 or -1.
 */
static int check_executable(const char *file, const struct submit_desc *d, const char *dir,
			    char **exec)
{
	struct stat st;
	char *path;

	if (!d->executable || !*d->executable) {
		fprintf(stderr, "%s:%ld: app %s runs the job's own program: give it as executable\n",
			file, d->app_line, d->app);
		return -1;
	}
	path = ws_path(dir, d->executable);
	errno = 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
		fprintf(stderr, "%s:%ld: cannot read the executable %s: %s\n", file, d->exec_line,
			path, errno ? strerror(errno) : "not a regular file");
		free(path);
		return -1;
	}
	*exec = path;
	return 0;
}

/*
 * Do the jobs fit the app's templates (number of inputs, names of outputs)?
 * For an any_executable app, the jobs' files are their own, and *exec is
 * the program they run. 0, -1, or 1 (refused).
 */
static int check_templates(const char *file, const struct submit_desc *d, const struct ws_conn *c,
			   const char *dir, char **exec)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_templates t;
	size_t i, k, m;
	int ret = 0;

	if (rpc_get_templates(c->url, c->auth, d->app, NULL, &t, &err) < 0) {
		ws_fail(c, "the project cannot run app %s: %s", d->app, sbuf_str(&err));
		sbuf_release(&err);
		return 1;
	}
	if (t.any_executable) {
		ret = check_executable(file, d, dir, exec);
		rpc_templates_release(&t);
		sbuf_release(&err);
		return ret;
	}
	for (i = 0; i < d->njobs && ret == 0; i++) {
		const struct desc_job *j = &d->jobs[i];

		if (j->ninputs != t.nin) {
			fprintf(stderr, "%s:%ld: job %ld has %zu input file(s); app %s takes %zu (in the "
				"order of its input template)\n", file, j->inputs_line, j->proc,
				j->ninputs, d->app, t.nin);
			ret = -1;
		}
		for (k = 0; k < j->noutputs && ret == 0; k++) {
			for (m = 0; m < t.nout && strcmp(t.out[m], j->outputs[k]) != 0; m++)
				;
			if (m == t.nout) {
				fprintf(stderr, "%s:%ld: app %s has no output file named %s\n", file,
					j->line, d->app, j->outputs[k]);
				ret = -1;
			}
		}
	}
	rpc_templates_release(&t);
	sbuf_release(&err);
	return ret;
}

static void to_state(const struct submit_desc *d, const char *batch, const char *dir,
		     struct ws_state *s)
{
	size_t i;

	s->batch = xstrdup(batch);
	s->app = xstrdup(d->app);
	s->sequence = d->sequence;
	s->dir = xstrdup(dir);
	s->jobs = xcalloc(d->njobs + 1, sizeof(*s->jobs));
	s->njobs = d->njobs;
	for (i = 0; i < d->njobs; i++) {
		const struct desc_job *dj = &d->jobs[i];
		struct ws_job *j = &s->jobs[i];
		size_t k;

		j->proc = dj->proc;
		j->name = xasprintf("%s-%ld", batch, dj->proc);
		j->iwd = ws_path(dir, dj->iwd);
		j->output = dj->output ? xstrdup(dj->output) : NULL;
		j->error = dj->error ? xstrdup(dj->error) : NULL;
		j->log = dj->log ? xstrdup(dj->log) : NULL;
		j->suffix_proc = dj->suffix_proc;
		j->outputs_given = dj->outputs_given;
		j->noutputs = dj->noutputs;
		j->outputs = xcalloc(dj->noutputs + 1, sizeof(char *));
		for (k = 0; k < dj->noutputs; k++)
			j->outputs[k] = xstrdup(dj->outputs[k]);
		j->nremaps = dj->nremaps;
		j->remap_from = xcalloc(dj->nremaps + 1, sizeof(char *));
		j->remap_to = xcalloc(dj->nremaps + 1, sizeof(char *));
		for (k = 0; k < dj->nremaps; k++) {
			j->remap_from[k] = xstrdup(dj->remap_from[k]);
			j->remap_to[k] = xstrdup(dj->remap_to[k]);
		}
	}
}

static int send(const struct submit_desc *d, struct ws_state *s, const struct ws_conn *c,
		const struct ws_options *o, const char *exec)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct send_batch b;
	struct send_result r;
	size_t i, k;
	int ret;

	memset(&b, 0, sizeof(b));
	b.url = c->url;
	b.auth = c->auth;
	b.batch = s->batch;
	b.app = d->app;
	b.label = "wseq_submit";
	b.executable = exec;    /* an any_executable app's: the files go under their names */
	b.skip_templates = true;        /* checked already */
	b.expire_time = (double)time(NULL) + o->lease_days * 86400;
	send_batch_jobs(&b, (long)d->njobs);
	for (i = 0; i < d->njobs; i++) {
		const struct desc_job *j = &d->jobs[i];
		char *base = ws_path(s->dir, j->iwd);

		b.jobs[i].name = s->jobs[i].name;
		b.jobs[i].nargs = (long)j->nargs;
		b.jobs[i].args = j->args;
		b.jobs[i].nfiles = (long)j->ninputs;
		send_job_files(&b.jobs[i], b.jobs[i].nfiles, false);
		for (k = 0; k < j->ninputs; k++)
			b.jobs[i].files[k] = ws_path(base, j->inputs[k]);
		free(base);
	}
	b.params = d->params;
	ret = send_batch(&b, &r, &err);
	if (ret < 0)
		ws_fail(c, "%s: %s", send_step_text(r.failed), sbuf_str(&err));
	else
		parse_long(r.batch_id, &s->batch_id);
	if (ret == 0)
		fprintf(stderr, "wseq_submit: %zu job(s) submitted to %s as batch %s (id %s); "
			"%zu distinct input file(s), %zu uploaded (%lld bytes)\n", d->njobs, c->url,
			s->batch, r.batch_id, r.hashed, r.uploaded, r.bytes);
	for (i = 0; i < d->njobs; i++)
		for (k = 0; k < (size_t)b.jobs[i].nfiles; k++)
			free(b.jobs[i].files[k]);
	send_batch_jobs_release(&b);
	sbuf_release(&err);
	return ret;
}

/* Read and parse the description file (or job list) into d; 0, or -1 said. */
static int parse_file(const struct ws_options *o, const char *file, struct desc_opts *dopts,
		      struct submit_desc *d)
{
	struct sbuf text = SBUF_INIT(DESC_MAX_BYTES);
	struct sbuf err = SBUF_INIT(64 * 1024);
	int prc;

	if (access(file, R_OK) != 0 || read_file(file, DESC_MAX_BYTES, &text) < 0) {
		fprintf(stderr, "%s:0: cannot read it: %s\n", file, strerror(errno ? errno : EIO));
		sbuf_release(&text);
		sbuf_release(&err);
		return -1;
	}
	dopts->cluster = next_cluster(false, 0);
	prc = o->job_list ? desc_parse_job_list(dopts, text.buf ? text.buf : "", text.len, o->app,
						o->sequence, d, &err)
			  : desc_parse(dopts, text.buf ? text.buf : "", text.len, d, &err);
	sbuf_release(&text);
	if (prc < 0)
		fprintf(stderr, "%s\n", sbuf_str(&err));
	sbuf_release(&err);
	return prc < 0 ? -1 : 0;
}

/* --batch, else the file's batch_name, else USER-APP-TIME. */
static char *batch_name(const struct ws_options *o, const struct submit_desc *d)
{
	char *u, *batch;

	if (o->batch || d->batch)
		return xstrdup(o->batch ? o->batch : d->batch);
	u = user_name();
	batch = xasprintf("%s-%s-%ld", u, d->app, (long)time(NULL));
	free(u);
	return batch;
}

/* Check the batch's name, that it is new here, and every job; set *path to its state file. */
static int check_batch(const char *file, const struct submit_desc *d, const char *batch,
		       const char *dir, char **path)
{
	size_t i;

	if (!ws_name_ok(batch)) {
		fprintf(stderr, "%s:%ld: batch name '%s': want at most 150 letters, digits, _ . - + #, "
			"not starting with . or -\n", file, d->app_line, batch);
		return -1;
	}
	*path = ws_state_path(batch);
	if (!*path)
		return -1;
	if (access(*path, F_OK) == 0) {
		fprintf(stderr, "wseq_submit: %s exists: batch %s was submitted from here already "
			"(retire it, or choose another name with --batch)\n", *path, batch);
		return -1;
	}
	for (i = 0; i < d->njobs; i++) {
		char *name = xasprintf("%s-%ld", batch, d->jobs[i].proc);
		int bad = check_job(file, d, &d->jobs[i], name, dir);

		free(name);
		if (bad)
			return -1;
	}
	return 0;
}

/*
 * Send the batch and keep its state in path. The state file is written
 * before the batch is sent and named after, so a full disk stops us first.
 */
static int send_and_keep(const struct submit_desc *d, struct ws_state *s, const struct ws_conn *c,
			 const struct ws_options *o, const char *exec, const char *path)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	char *pending = xasprintf("%s.pending", path);
	int ret = -1;

	if (ws_state_write(s, pending, &err) < 0)
		ws_fail(c, "cannot keep the batch's state in %s: %s", path, sbuf_str(&err));
	else if (send(d, s, c, o, exec) < 0)
		unlink(pending);
	else if (ws_state_write(s, path, &err) < 0)
		ws_fail(c, "batch %s was submitted, but %s", s->batch, sbuf_str(&err));
	else {
		unlink(pending);
		ret = 0;
	}
	free(pending);
	sbuf_release(&err);
	return ret;
}

int ws_submit(const struct ws_options *o, const char *file)
{
	struct submit_desc d;
	struct ws_state s;
	struct ws_conn c;
	struct desc_opts dopts = { file, 0, 0, read_items, NULL };
	char dir[4096], *batch = NULL, *path = NULL, *exec = NULL;
	size_t i;
	int rc = WS_EXIT_USAGE, prc;

	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	if (!getcwd(dir, sizeof(dir))) {
		fprintf(stderr, "wseq_submit: cannot tell the working directory: %s\n", strerror(errno));
		return WS_EXIT_FAIL;
	}
	if (parse_file(o, file, &dopts, &d) < 0)
		return WS_EXIT_USAGE;
	batch = batch_name(o, &d);
	if (check_batch(file, &d, batch, dir, &path) < 0 ||
	    ws_connect(o, d.project, d.auth_file, &c) < 0)
		goto out;
	if (!d.sequence && (prc = check_templates(file, &d, &c, dir, &exec)) != 0) {
		rc = prc < 0 ? WS_EXIT_USAGE : WS_EXIT_FAIL;
		goto out;
	}
	rc = WS_EXIT_FAIL;
	to_state(&d, batch, dir, &s);
	s.project = xstrdup(c.url);
	s.auth_file = c.auth_file[0] == '/' ? xstrdup(c.auth_file) : ws_path(dir, c.auth_file);
	s.lease = o->lease_days * 86400;
	if (send_and_keep(&d, &s, &c, o, exec, path) < 0)
		goto out;
	next_cluster(true, dopts.cluster);
	for (i = 0; i < s.njobs; i++)
		ws_log_event(s.jobs[i].iwd, &s.jobs[i], "submitted to %s as part of batch %s", c.url,
			     batch);
	printf("%s\n", batch);
	rc = fflush(stdout) == 0 ? WS_EXIT_OK : WS_EXIT_FAIL;
out:
	free(exec);
	free(path);
	free(batch);
	ws_state_release(&s);
	ws_conn_release(&c);
	desc_release(&d);
	return rc;
}
