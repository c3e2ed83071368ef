/*
 * wseq_submit fetch: for each finished job of a batch, its stderr into the
 * job's error file and its output files where the description asked --
 * transfer_output_files (or every output) by open name, renamed by
 * transfer_output_remaps, the first output into the output file, and
 * ".PROC" after the names of a job list's outputs. Every file is written to
 * a temporary name and renamed, so a failure never leaves half a file. The
 * entries of a wseq_outputs.zip are outputs by their own names (and its
 * _condor_stdout is the job's output); as a host chose them, those the
 * description does not name go only to new paths in the job's directory,
 * within bounds per job and per batch (outputs_zip.h).
 */
#include "wseq_submit.h"
#include "submit_client.h"
#include "outputs_zip.h"
#include "fileutil.h"

/* One fetch: the batch's connection and the bounds its zips share. */
struct fetch {
	const struct ws_state *s;
	const struct ws_conn *c;
	struct zip_limits zip_job;
	struct zip_budget zip_batch;
	size_t nfiles;
};

/*
 * Where output file name of job j goes; NULL: not fetched. Job j's output
 * (its standard output) is the file is_stdout says is it: the app's first
 * output, or _condor_stdout from a zip of outputs. *named: the description
 * names the destination (output, transfer_output_files or _remaps), and it
 * is a path; otherwise a path relative to the job's directory.
 */
static char *destination(const struct ws_job *j, const char *name, bool is_stdout, bool *named)
{
	size_t k;
	bool wanted = !j->outputs_given;

	*named = true;
	for (k = 0; k < j->noutputs && !wanted; k++)
		wanted = strcmp(j->outputs[k], name) == 0;
	if (j->output && is_stdout)
		return ws_path(j->iwd, j->output);
	if (!wanted)
		return NULL;
	for (k = 0; k < j->nremaps; k++)
		if (strcmp(j->remap_from[k], name) == 0)
			return ws_path(j->iwd, j->remap_to[k]);
	*named = j->outputs_given;
	if (j->suffix_proc) {
		char *n = xasprintf("%s.%ld", name, j->proc), *p = *named ? ws_path(j->iwd, n) : n;

		if (p != n)
			free(n);
		return p;
	}
	return *named ? ws_path(j->iwd, name) : xstrdup(name);
}

/* The program's standard output in a zip of outputs (wseq_exec's job file names it so). */
#define ZIP_STDOUT "_condor_stdout"

/*
 * The entries of the job's wseq_outputs.zip (output zi), each an output by
 * its own name: unpacked in a staging directory inside the job's
 * directory, then moved where destination() says -- all, or none.
 */
static int fetch_zip(struct fetch *f, const struct ws_job *j, long zi, struct sbuf *err)
{
	struct unpacked u;
	char *root;
	size_t i;
	int ret = -1;

	if (mkdir_p(j->iwd, 0755) < 0) {
		sbuf_addf(err, "cannot make %s: %s", j->iwd, strerror(errno));
		return -1;
	}
	if (outputs_zip_stage(j->iwd, &u, err) < 0)
		return -1;
	root = ws_state_root();
	if (root)
		unpacked_reserve(&u, root, true);     /* out of reach already, unless put in a job's way */
	free(root);
	if (outputs_zip_download(f->c->url, f->c->auth, j->name, (int)zi, &u, err) < 0 ||
	    outputs_zip_unpack(&u, &f->zip_job, &f->zip_batch, err) < 0)
		goto out;
	for (i = 0; i < u.n; i++) {
		bool named;
		char *dest = destination(j, u.names[i], strcmp(u.names[i], ZIP_STDOUT) == 0, &named);

		if (dest)
			unpacked_want(&u, i, dest, named);
		free(dest);
	}
	if (unpacked_place(&u, j->iwd, err) < 0)
		goto out;
	f->nfiles += u.nplaced;
	ret = 0;
out:
	unpacked_release(&u);
	return ret;
}

static int fetch_files(struct fetch *f, const struct ws_job *j, const struct rpc_templates *t)
{
	const struct ws_conn *c = f->c;
	struct sbuf err = SBUF_INIT(64 * 1024);
	long zi = outputs_zip_index(t);
	size_t i;
	int ret = 0;

	for (i = 0; i < t->nout && ret == 0; i++) {
		char *dest;
		bool named;

		if ((long)i == zi)
			continue;
		/* standard output: the app's first output, unless a zip of outputs carries it */
		dest = destination(j, t->out[i], zi < 0 && i == 0, &named);
		if (!dest)
			continue;
		if (!named) {
			char *rel = dest;

			dest = ws_path(j->iwd, rel);
			free(rel);
		}
		if (mkdir_parent(dest, 0755) < 0 ||
		    rpc_get_output(c->url, c->auth, j->name, (int)i, dest, &err) < 0) {
			ws_fail(c, "job %ld (%s): cannot fetch output file %s into %s: %s", j->proc,
				j->name, t->out[i], dest, err.len ? sbuf_str(&err) : "cannot create its directory");
			ret = -1;
		} else {
			f->nfiles++;
		}
		free(dest);
	}
	if (ret == 0 && zi >= 0 && fetch_zip(f, j, zi, &err) < 0) {
		ws_fail(c, "job %ld (%s): refused the outputs in its %s: %s", j->proc, j->name,
			OUTPUTS_ZIP, sbuf_str(&err));
		ws_log_event(j->iwd, j, "outputs refused: %s", sbuf_str(&err));
		ret = -1;
	}
	sbuf_release(&err);
	return ret;
}

static int write_stderr(const struct ws_conn *c, const struct ws_job *j, const char *text)
{
	char *path;
	int rc;

	if (!j->error)
		return 0;
	path = ws_path(j->iwd, j->error);
	rc = mkdir_parent(path, 0755) < 0 ? -1 : write_file_atomic(path, text, strlen(text), 0644);
	if (rc < 0)
		ws_fail(c, "job %ld (%s): cannot write its stderr to %s", j->proc, j->name, path);
	free(path);
	return rc;
}

/* One job: 0 fetched, 1 failed on the project (its stderr kept), -1 an error here. */
static int fetch_job(struct fetch *f, const struct ws_job *j, struct rpc_templates *app_t)
{
	const struct ws_state *s = f->s;
	const struct ws_conn *c = f->c;
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_completed done;
	struct rpc_templates own;
	const struct rpc_templates *t = app_t;
	int ret = -1;

	memset(&own, 0, sizeof(own));
	if (rpc_query_completed_job(c->url, c->auth, j->name, &done, &err) < 0) {
		ws_fail(c, "job %ld (%s): %s", j->proc, j->name, sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	if (done.canonical_resultid <= 0) {
		/* failed: its stderr, if a result came back, is all there is */
		ret = write_stderr(c, j, done.stderr_out ? done.stderr_out : "") < 0 ? -1 : 1;
		fprintf(stderr, "wseq_submit: job %ld (%s) failed on the project (error mask %ld, "
			"exit status %ld)\n", j->proc, j->name, done.error_mask, done.exit_status);
		ws_log_event(j->iwd, j, "failed on the project (error mask %ld, exit status %ld)",
			     done.error_mask, done.exit_status);
		goto out;
	}
	/* a sequence job's outputs are its last segment's: ask by job */
	if (s->sequence || !app_t->nout) {
		if (rpc_get_templates(c->url, c->auth, NULL, j->name, &own, &err) < 0) {
			ws_fail(c, "job %ld (%s): cannot learn its output files: %s", j->proc, j->name,
				sbuf_str(&err));
			goto out;
		}
		t = &own;
	}
	if (write_stderr(c, j, done.stderr_out ? done.stderr_out : "") < 0 ||
	    fetch_files(f, j, t) < 0)
		goto out;
	ws_log_event(j->iwd, j, "done, exit status %ld, %.1f s elapsed, %.1f s CPU; outputs fetched",
		     done.exit_status, done.elapsed_time, done.cpu_time);
	ret = 0;
out:
	rpc_templates_release(&own);
	rpc_completed_release(&done);
	sbuf_release(&err);
	return ret;
}

int ws_fetch(const struct ws_options *o, const char *batch)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_job_status *jobs = NULL;
	struct rpc_templates app_t;
	struct ws_state s;
	struct ws_conn c;
	struct fetch f = { .s = &s, .c = &c };
	double t;
	size_t n = 0, i, k;
	long ndone = 0, nfailed = 0, nwaiting = 0, nerrors = 0;
	int rc = WS_EXIT_FAIL;

	memset(&app_t, 0, sizeof(app_t));
	if (outputs_zip_limits(&f.zip_job, &f.zip_batch, &err) < 0) {
		fprintf(stderr, "wseq_submit: %s\n", sbuf_str(&err));
		sbuf_release(&err);
		return WS_EXIT_USAGE;
	}
	if (ws_open_batch(o, batch, true, &s, &c) < 0) {
		sbuf_release(&err);
		return WS_EXIT_FAIL;
	}
	if (rpc_query_batch(c.url, c.auth, s.batch, &jobs, &n, &t, &err) < 0) {
		ws_fail(&c, "cannot query batch %s: %s", batch, sbuf_str(&err));
		goto out;
	}
	if (!s.sequence && rpc_get_templates(c.url, c.auth, s.app, NULL, &app_t, &err) < 0) {
		ws_fail(&c, "cannot learn the output files of app %s: %s", s.app, sbuf_str(&err));
		goto out;
	}
	for (i = 0; i < s.njobs; i++) {
		const struct ws_job *j = &s.jobs[i];
		const char *status = NULL;
		int r;

		for (k = 0; k < n && !status; k++)
			if (strcmp(jobs[k].name, j->name) == 0)
				status = jobs[k].status;
		if (!status || (strcmp(status, "DONE") != 0 && strcmp(status, "ERROR") != 0)) {
			nwaiting++;
			continue;
		}
		r = fetch_job(&f, j, &app_t);
		if (r == 0)
			ndone++;
		else if (r > 0)
			nfailed++;
		else
			nerrors++;
	}
	fprintf(stderr, "wseq_submit: batch %s: %ld job(s) fetched (%zu file(s)), %ld failed, "
		"%ld not finished%s\n", batch, ndone, f.nfiles, nfailed, nwaiting,
		nerrors ? ", and errors fetching some (above)" : "");
	if (ndone == (long)s.njobs)
		rc = WS_EXIT_OK;
out:
	rpc_job_status_free(jobs, n);
	rpc_templates_release(&app_t);
	ws_state_release(&s);
	ws_conn_release(&c);
	sbuf_release(&err);
	return rc;
}
