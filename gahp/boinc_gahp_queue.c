/*
 * Output, the result queue and the worker pool. Accepted requests are kept
 * in issue order; RESULTS prints the finished ones in that order. A fixed
 * number of workers take requests from a FIFO, so a burst of commands never
 * makes a burst of threads, and the main thread never waits for the network.
 *
 * Locks: "mu" guards the queues, the done flags and the R state; "out_mu"
 * makes every printed line whole. Whoever needs both takes mu first, so an
 * R is printed, or not, atomically with the change it announces.
 */
#include "boinc_gahp.h"
#include "log.h"

#include <pthread.h>

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static char *prefix;
static bool out_closed;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t gone_cv = PTHREAD_COND_INITIALIZER;
static struct gahp_req *issued_head, *issued_tail;
static struct gahp_req *work_head, *work_tail;
static bool async_mode, r_printed, quitting;
static int nalive;
static pthread_t *threads;
static int nthreads;

int gahp_print(const char *line)
{
	int rc = 0;

	pthread_mutex_lock(&out_mu);
	if (out_closed) {
		rc = -1;
	} else {
		if (prefix)
			fputs(prefix, stdout);
		fputs(line, stdout);
		fputc('\n', stdout);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = -1;
	}
	pthread_mutex_unlock(&out_mu);
	return rc;
}

void gahp_set_prefix(const char *p)
{
	pthread_mutex_lock(&out_mu);
	free(prefix);
	prefix = xstrdup(p);
	pthread_mutex_unlock(&out_mu);
}

bool gahp_quitting(void)
{
	bool q;

	pthread_mutex_lock(&mu);
	q = quitting;
	pthread_mutex_unlock(&mu);
	return q;
}

void gahp_req_free(struct gahp_req *r)
{
	if (!r)
		return;
	if (r->spec && r->cmd && r->cmd->free_spec)
		r->cmd->free_spec(r->spec);
	free(r->reqid);
	free(r->line);
	free(r->argv);
	free(r->url);
	if (r->auth) {
		memset(r->auth, 0, strlen(r->auth));
		free(r->auth);
	}
	free(r->result);
	free(r);
}

static void finish(struct gahp_req *r, struct sbuf *res)
{
	struct sbuf line = SBUF_INIT(GAHP_MAX_LINE);

	sbuf_addstr(&line, r->reqid);
	if (sbuf_add(&line, res->buf ? res->buf : "", res->len) < 0) {
		sbuf_truncate(&line, strlen(r->reqid));
		gahp_error(&line, NULL, "result too long");
	}
	pthread_mutex_lock(&mu);
	r->result = sbuf_detach(&line, NULL);
	r->done = true;
	if (async_mode && !r_printed && !quitting) {
		r_printed = true;
		gahp_print("R");
	}
	pthread_mutex_unlock(&mu);
	/* after the R, so a test that waits for this line sees the R first */
	log_debug("request %s done", r->reqid);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct gahp_req *r;
		struct sbuf res = SBUF_INIT(GAHP_MAX_LINE);

		while (!work_head && !quitting)
			pthread_cond_wait(&work_cv, &mu);
		if (quitting)
			break;
		r = work_head;
		work_head = r->qnext;
		if (!work_head)
			work_tail = NULL;
		pthread_mutex_unlock(&mu);

		if (!r->url)
			gahp_error(&res, NULL, "no project selected (BOINC_SELECT_PROJECT)");
		else
			r->cmd->run(r, &res);
		finish(r, &res);
		sbuf_release(&res);
		pthread_mutex_lock(&mu);
	}
	nalive--;
	pthread_cond_broadcast(&gone_cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int gahp_pool_start(int n)
{
	pthread_attr_t attr;
	int i;

	threads = xcalloc((size_t)n, sizeof(*threads));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1024 * 1024);
	for (i = 0; i < n; i++) {
		int e = pthread_create(&threads[i], &attr, worker, NULL);
		if (e) {
			pthread_attr_destroy(&attr);
			return log_error("cannot start worker thread: %s", strerror(e));
		}
		pthread_mutex_lock(&mu);
		nalive++;
		nthreads++;
		pthread_mutex_unlock(&mu);
	}
	pthread_attr_destroy(&attr);
	return 0;
}

void gahp_submit(struct gahp_req *r)
{
	pthread_mutex_lock(&mu);
	if (issued_tail)
		issued_tail->next = r;
	else
		issued_head = r;
	issued_tail = r;
	if (work_tail)
		work_tail->qnext = r;
	else
		work_head = r;
	work_tail = r;
	/* under mu: no worker can finish it, and print its R, before this S */
	gahp_print("S");
	pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&mu);
}

void gahp_results(void)
{
	struct gahp_req *r, **pp;
	char head[32];
	long n = 0;

	pthread_mutex_lock(&mu);
	for (r = issued_head; r; r = r->next)
		if (r->done)
			n++;
	snprintf(head, sizeof(head), "S %ld", n);
	/* the count and its lines as one unit: no R may fall between them */
	gahp_print(head);
	pp = &issued_head;
	issued_tail = NULL;
	while ((r = *pp) != NULL) {
		if (r->done) {
			gahp_print(r->result);
			*pp = r->next;
			gahp_req_free(r);
		} else {
			issued_tail = r;
			pp = &r->next;
		}
	}
	r_printed = false;
	pthread_mutex_unlock(&mu);
}

void gahp_set_async(bool on)
{
	pthread_mutex_lock(&mu);
	async_mode = on;
	r_printed = false;
	gahp_print("S");
	pthread_mutex_unlock(&mu);
}

bool gahp_pool_stop(double timeout, bool say_s)
{
	struct timespec until;
	struct gahp_req *r;
	int i;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)timeout;
	pthread_mutex_lock(&mu);
	quitting = true;
	/* QUIT's S is the last line: no R may follow it */
	if (say_s)
		gahp_print("S");
	pthread_cond_broadcast(&work_cv);
	while (nalive > 0)
		if (pthread_cond_timedwait(&gone_cv, &mu, &until) == ETIMEDOUT)
			break;
	if (nalive > 0) {
		pthread_mutex_unlock(&mu);
		return false;
	}
	pthread_mutex_unlock(&mu);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	threads = NULL;
	while ((r = issued_head) != NULL) {
		issued_head = r->next;
		gahp_req_free(r);
	}
	issued_tail = NULL;
	work_head = work_tail = NULL;
	pthread_mutex_lock(&out_mu);
	free(prefix);
	prefix = NULL;
	pthread_mutex_unlock(&out_mu);
	return true;
}
