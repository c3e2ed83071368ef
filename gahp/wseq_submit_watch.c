/*
 * wseq_submit status, wait, abort and retire: a batch's jobs as query_batch2
 * reports them. A batch submitted from this directory is found by its state
 * file; status, abort and retire also take any batch of the account by name
 * (with --project and --auth_file or their defaults).
 */
#include "wseq_submit.h"
#include "submit_client.h"
#include "log.h"
#include "xml_write.h"

#include <math.h>
#include <sys/ioctl.h>

int ws_open_batch(const struct ws_options *o, const char *batch, bool need_state,
		  struct ws_state *s, struct ws_conn *c)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	char *path;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	if (!ws_name_ok(batch)) {
		fprintf(stderr, "wseq_submit: '%s' is not a batch name\n", batch);
		return -1;
	}
	path = ws_state_path(batch);
	if (!path)
		return -1;
	if (access(path, F_OK) != 0) {
		char *old = xasprintf("%s/%s", WS_OLD_STATE_DIR, batch);

		if (access(old, F_OK) == 0)
			fprintf(stderr, "wseq_submit: %s is where an older wseq_submit kept the batch's "
				"state, inside the jobs' directory, where their outputs could change it; "
				"it is not read any more: check it, then move it to %s\n", old, path);
		free(old);
		if (need_state) {
			fprintf(stderr, "wseq_submit: no batch %s was submitted from this directory "
				"(no %s)\n", batch, path);
			free(path);
			return -1;
		}
		free(path);
		s->batch = xstrdup(batch);
		if (ws_connect(o, NULL, NULL, c) < 0) {
			ws_state_release(s);
			return -1;
		}
		return 0;
	}
	rc = ws_state_read(path, s, &err);
	free(path);
	if (rc < 0) {
		fprintf(stderr, "wseq_submit: %s\n", sbuf_str(&err));
		sbuf_release(&err);
		return -1;
	}
	sbuf_release(&err);
	if (ws_connect(o, s->project, s->auth_file, c) < 0) {
		ws_state_release(s);
		return -1;
	}
	return 0;
}

enum { ST_UNSENT, ST_RUNNING, ST_DONE, ST_ERROR, ST_N };
static const char *const st_names[ST_N] = { "UNSENT", "IN_PROGRESS", "DONE", "ERROR" };

static int st_index(const char *status)
{
	int i;

	for (i = 0; i < ST_N; i++)
		if (strcmp(st_names[i], status) == 0)
			return i;
	/* a word a newer server may use: not finished */
	return ST_RUNNING;
}

/* The batch's jobs and their counts: 0, RPC_REFUSED, or -1 (a transport error). */
static int query(const struct ws_state *s, const struct ws_conn *c, struct rpc_job_status **jobs,
		 size_t *njobs, long counts[ST_N], struct sbuf *err)
{
	double t;
	size_t i;
	int rc;

	memset(counts, 0, ST_N * sizeof(long));
	rc = rpc_query_batch(c->url, c->auth, s->batch, jobs, njobs, &t, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < *njobs; i++)
		counts[st_index((*jobs)[i].status)]++;
	return 0;
}

static long proc_of(const struct ws_state *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (strcmp(s->jobs[i].name, name) == 0)
			return s->jobs[i].proc;
	return -1;
}

int ws_status(const struct ws_options *o, const char *batch)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_job_status *jobs = NULL;
	struct ws_state s;
	struct ws_conn c;
	size_t n = 0, i;
	long counts[ST_N];
	int k, rc = WS_EXIT_FAIL;

	if (ws_open_batch(o, batch, false, &s, &c) < 0)
		return WS_EXIT_FAIL;
	if (query(&s, &c, &jobs, &n, counts, &err) < 0) {
		ws_fail(&c, "cannot query batch %s: %s", batch, sbuf_str(&err));
		goto out;
	}
	printf("batch %s: %zu jobs\n", batch, n);
	for (k = 0; k < ST_N; k++)
		printf("%-12s %ld\n", st_names[k], counts[k]);
	if (o->jobs)
		for (i = 0; i < n; i++)
			printf("job %ld %s %s\n", proc_of(&s, jobs[i].name), jobs[i].status,
			       jobs[i].name);
	rc = fflush(stdout) == 0 ? WS_EXIT_OK : WS_EXIT_FAIL;
out:
	rpc_job_status_free(jobs, n);
	ws_state_release(&s);
	ws_conn_release(&c);
	sbuf_release(&err);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(bool tty, long total, const long counts[ST_N], bool final)
{
	long finished = counts[ST_DONE] + counts[ST_ERROR];

	if (tty) {
		struct winsize ws;
		int width = 30, i, fill;

		if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 80)
			width = ws.ws_col - 50 > 60 ? 60 : ws.ws_col - 50;
		fill = total ? (int)(finished * width / total) : width;
		fputs("\r[", stderr);
		for (i = 0; i < width; i++)
			fputc(i < fill ? '#' : '.', stderr);
		fprintf(stderr, "] %ld/%ld done, %ld failed, %ld running ", counts[ST_DONE], total,
			counts[ST_ERROR], counts[ST_RUNNING]);
		if (final)
			fputc('\n', stderr);
	} else {
		fprintf(stderr, "wait: %ld of %ld done, %ld failed, %ld running, %ld waiting\n",
			counts[ST_DONE], total, counts[ST_ERROR], counts[ST_RUNNING],
			counts[ST_UNSENT]);
	}
	fflush(stderr);
}

static int renew_lease(const struct ws_state *s, const struct ws_conn *c)
{
	struct sbuf req = SBUF_INIT(64 * 1024), err = SBUF_INIT(64 * 1024);
	char when[64];
	int rc;

	if (s->lease <= 0)
		return 0;
	snprintf(when, sizeof(when), "%f", (double)time(NULL) + s->lease);
	rpc_begin(&req, "set_expire_time", c->auth);
	xml_elem_str(&req, 0, "batch_name", s->batch);
	xml_elem_str(&req, 0, "expire_time", when);
	rpc_end(&req, "set_expire_time");
	rc = rpc_simple(c->url, &req, "set_expire_time", &err);
	if (rc < 0)
		fprintf(stderr, "wseq_submit: cannot renew the lease of batch %s: %s\n", s->batch,
			sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
	return rc;
}

int ws_wait(const struct ws_options *o, const char *batch)
{
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct ws_state s;
	struct ws_conn c;
	long counts[ST_N], last[ST_N] = { -1, -1, -1, -1 };
	double start = now_s(), renewed = -1e9;
	bool tty = isatty(STDERR_FILENO);
	int rc = WS_EXIT_FAIL;

	if (ws_open_batch(o, batch, false, &s, &c) < 0)
		return WS_EXIT_FAIL;
	for (;;) {
		struct rpc_job_status *jobs = NULL;
		size_t n = 0;
		int q;

		if (now_s() - renewed > 3600) {
			renew_lease(&s, &c);
			renewed = now_s();
		}
		sbuf_reset(&err);
		q = query(&s, &c, &jobs, &n, counts, &err);
		rpc_job_status_free(jobs, n);
		if (q == RPC_REFUSED) {
			if (tty)
				fputc('\n', stderr);
			ws_fail(&c, "cannot query batch %s: %s", batch, sbuf_str(&err));
			break;
		}
		if (q < 0) {
			/* the network or the server may be back at the next look */
			fprintf(stderr, "%swseq_submit: cannot query batch %s (trying again): %s\n",
				tty ? "\n" : "", batch, sbuf_str(&err));
		} else {
			bool over = counts[ST_DONE] + counts[ST_ERROR] == (long)n;

			if (tty || memcmp(counts, last, sizeof(counts)) != 0)
				progress(tty, (long)n, counts, over);
			memcpy(last, counts, sizeof(counts));
			if (over) {
				if (counts[ST_ERROR] > 0)
					fprintf(stderr, "wseq_submit: batch %s: %ld of %zu job(s) failed\n",
						batch, counts[ST_ERROR], n);
				rc = counts[ST_ERROR] == 0 ? WS_EXIT_OK : WS_EXIT_FAIL;
				break;
			}
		}
		if (o->timeout > 0 && now_s() - start + o->poll > o->timeout) {
			fprintf(stderr, "%swseq_submit: batch %s: not finished after %.0f seconds\n",
				tty ? "\n" : "", batch, o->timeout);
			break;
		}
		usleep((useconds_t)(o->poll * 1e6));
	}
	ws_state_release(&s);
	ws_conn_release(&c);
	sbuf_release(&err);
	return rc;
}

int ws_abort(const struct ws_options *o, const char *batch)
{
	struct sbuf err = SBUF_INIT(64 * 1024), req = SBUF_INIT(1024L * 1024 * 1024);
	struct rpc_job_status *jobs = NULL;
	struct ws_state s;
	struct ws_conn c;
	long counts[ST_N], nabort = 0;
	size_t n = 0, i;
	int rc = WS_EXIT_FAIL;

	if (ws_open_batch(o, batch, false, &s, &c) < 0)
		return WS_EXIT_FAIL;
	if (query(&s, &c, &jobs, &n, counts, &err) < 0) {
		ws_fail(&c, "cannot query batch %s: %s", batch, sbuf_str(&err));
		goto out;
	}
	/* a finished job stays as it is: its outputs can still be fetched */
	rpc_begin(&req, "abort_jobs", c.auth);
	for (i = 0; i < n; i++) {
		int k = st_index(jobs[i].status);

		if (k == ST_UNSENT || k == ST_RUNNING) {
			xml_elem_str(&req, 0, "job_name", jobs[i].name);
			nabort++;
		}
	}
	rpc_end(&req, "abort_jobs");
	if (nabort > 0 && rpc_simple(c.url, &req, "abort_jobs", &err) < 0) {
		ws_fail(&c, "cannot abort the jobs of batch %s: %s", batch, sbuf_str(&err));
		goto out;
	}
	fprintf(stderr, "wseq_submit: batch %s: %ld job(s) aborted, %ld had finished\n", batch,
		nabort, counts[ST_DONE] + counts[ST_ERROR]);
	rc = WS_EXIT_OK;
out:
	rpc_job_status_free(jobs, n);
	ws_state_release(&s);
	ws_conn_release(&c);
	sbuf_release(&err);
	sbuf_release(&req);
	return rc;
}

int ws_retire(const struct ws_options *o, const char *batch)
{
	struct sbuf err = SBUF_INIT(64 * 1024), req = SBUF_INIT(64 * 1024);
	struct ws_state s;
	struct ws_conn c;
	char *path;
	int rc = WS_EXIT_FAIL;

	if (ws_open_batch(o, batch, false, &s, &c) < 0)
		return WS_EXIT_FAIL;
	rpc_begin(&req, "retire_batch", c.auth);
	xml_elem_str(&req, 0, "batch_name", batch);
	rpc_end(&req, "retire_batch");
	if (rpc_simple(c.url, &req, "retire_batch", &err) < 0) {
		ws_fail(&c, "cannot retire batch %s: %s", batch, sbuf_str(&err));
	} else {
		path = ws_state_path(batch);
		if (path && unlink(path) == 0)
			fprintf(stderr, "wseq_submit: batch %s retired; %s removed\n", batch, path);
		else
			fprintf(stderr, "wseq_submit: batch %s retired\n", batch);
		free(path);
		rc = WS_EXIT_OK;
	}
	ws_state_release(&s);
	ws_conn_release(&c);
	sbuf_release(&err);
	sbuf_release(&req);
	return rc;
}
