/*
 * sched_load: a load generator for the scheduler RPC (test/bench/sched_load.sh
 * runs it). H simulated hosts, C threads each owning every C-th host and
 * making their RPCs in turn -- one host's RPCs one after another, as a real
 * client's -- over one HTTP/1.0 connection each, for T seconds after an
 * untimed set-up (hosts registered, and in seq mode given a sequence) and an
 * optional warm-up. Every reply is checked: HTTP status, a whole
 * <scheduler_reply>, no message or request_delay, every reported result
 * acknowledged, nothing aborted, no job sent twice (to any host), and in seq
 * mode the sequence protocol (report segment k, get k+2, keep only k's
 * state). It prints RPC/s, jobs/s, latency and the errors by kind. With
 * --gpu every host has an NVIDIA GPU and asks work of it, not of its CPUs.
 *
 * Plain libc and pthreads, and no allocation per RPC but a job's names: it
 * must cost far less than the scheduler it measures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROG "sched_load"
#define HDR_ROOM 512            /* the HTTP header goes in front of the body */
#define MAX_REPLY (64 << 20)
#define MAX_DETAILS 20          /* error lines printed, besides each kind's first */
#define STATE_MAGIC "sched_load-state 1"

enum mode { MODE_NOWORK, MODE_ONE, MODE_TEN, MODE_SEQ };
static const char *const mode_name[] = { "nowork", "one", "ten", "seq" };
static const double mode_seconds[] = { 0, 1, 10, 1 };   /* jobs of 1e9 fpops on a 1e9 host */
static const int mode_jobs[] = { 0, 1, 10, 0 };

enum err { E_CONNECT, E_HTTP, E_REPLY, E_REFUSED, E_MESSAGE, E_DUPLICATE, E_UNACKED, E_ABORT,
	   E_SEQUENCE, E_KINDS };
static const char *const err_name[] = { "connect", "http", "reply", "refused", "message",
					"duplicate", "unacked", "abort", "sequence" };

static struct {
	const char *url, *auth, *platform, *state, *prefix, *dump;
	long hosts, concurrency, cpu_pid;
	double duration, warmup, seconds, timeout;
	enum mode mode;
	bool csv, gpu;
} opt = { .platform = "x86_64-pc-linux-gnu", .prefix = "load", .hosts = 100, .concurrency = 8,
	  .duration = 10, .seconds = -1, .timeout = 60, .mode = MODE_ONE };

static char url_host[256], url_path[1024];
static struct sockaddr_storage srv_addr;
static socklen_t srv_len;

struct buf {
	char *p;
	size_t len, cap;
};

struct span {
	const char *p;
	size_t n;
};

/* An output of a job: reported when uploaded, held by the host when sticky. */
struct out {
	char *name, *max_nbytes;
	bool upload, sticky;
};

/* A job in hand; k > 0 for segment k of sequence name[0..seqlen) on branch. */
struct job {
	char *name;
	int k, branch;
	size_t seqlen;
	struct out *outs;
	int nouts;
	bool reporting, acked;
};

struct host {
	int idx;
	long long hostid;
	int rpc_seqno;
	struct job *jobs;
	int njobs;
	char **held;            /* sticky files the host lists */
	int nheld;
};

struct worker {
	pthread_t tid;
	int id;
	struct buf req, rep;
	struct span *fi;        /* a reply's <file_info>s */
	size_t nfi, capfi;
	struct job *fresh;      /* a reply's jobs */
	int nfresh, capfresh;
	float *lat;
	size_t nlat, caplat;
	double last_done;
	long rpcs, jobs, short_replies, reported;       /* in the timed window */
	long http[600];         /* replies by HTTP status, warm-up and set-up too */
	long all_rpcs, all_jobs, all_reported, setup_rpcs, no_sequence;
	long err[E_KINDS];
};

static struct host *hosts;
static double t_warm, t_end;
static pthread_barrier_t barrier;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static long details_printed;
static bool kind_printed[E_KINDS];
static bool dumped;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		abort();
	}
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static void buf_need(struct buf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	while (b->len + n + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->p = xrealloc(b->p, b->cap);
}

__attribute__((format(printf, 2, 3)))
static void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len)
			break;
		buf_need(b, n > 0 ? (size_t)n : 256);
	}
	b->len += (size_t)n;
}

/* --- errors -------------------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static void fail(struct worker *w, const struct host *h, enum err kind, const char *fmt, ...)
{
	va_list ap;

	w->err[kind]++;
	pthread_mutex_lock(&out_mu);
	if (!kind_printed[kind] || details_printed < MAX_DETAILS) {
		kind_printed[kind] = true;
		details_printed++;
		fprintf(stderr, PROG ": %s: host %d (hostid %lld): ", err_name[kind], h->idx, h->hostid);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	if (opt.dump && !dumped) {
		FILE *f = fopen(opt.dump, "w");

		dumped = true;
		if (f) {
			fwrite(w->req.p + HDR_ROOM, 1, w->req.len - HDR_ROOM, f);
			fputs("\n----- the reply -----\n", f);
			fwrite(w->rep.p, 1, w->rep.len, f);
			fclose(f);
		}
	}
	pthread_mutex_unlock(&out_mu);
}

/* --- the jobs sent: a set of names over all hosts ------------------------ */

static struct {
	char **name;
	long long *hostid;
	size_t cap, n;
	pthread_mutex_t mu;
} sent = { .mu = PTHREAD_MUTEX_INITIALIZER };

static size_t hash(const char *s, size_t n)
{
	size_t h = 14695981039346656037ULL, i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static size_t sent_slot(char **names, size_t cap, const char *s, size_t n)
{
	size_t i = hash(s, n) & (cap - 1);

	while (names[i] && (strlen(names[i]) != n || memcmp(names[i], s, n)))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Record job s sent to host id; false (and the first host) if it was sent before. */
static bool sent_add(const char *s, size_t n, long long id, long long *first)
{
	size_t i, j;
	bool fresh;

	pthread_mutex_lock(&sent.mu);
	if (2 * (sent.n + 1) > sent.cap) {
		size_t cap = sent.cap ? sent.cap * 2 : 1 << 16;
		char **names = calloc(cap, sizeof(*names));
		long long *ids = calloc(cap, sizeof(*ids));

		if (!names || !ids)
			abort();
		for (j = 0; j < sent.cap; j++)
			if (sent.name[j]) {
				i = sent_slot(names, cap, sent.name[j], strlen(sent.name[j]));
				names[i] = sent.name[j];
				ids[i] = sent.hostid[j];
			}
		free(sent.name);
		free(sent.hostid);
		sent.name = names;
		sent.hostid = ids;
		sent.cap = cap;
	}
	i = sent_slot(sent.name, sent.cap, s, n);
	fresh = !sent.name[i];
	if (fresh) {
		sent.name[i] = xstrndup(s, n);
		sent.hostid[i] = id;
		sent.n++;
	} else {
		*first = sent.hostid[i];
	}
	pthread_mutex_unlock(&sent.mu);
	return fresh;
}

/* --- a small XML scanner (the reply is ours: elements, no CDATA) --------- */

struct elem {
	struct span name, body;
	const char *next;
};

/* The next element in [p, end), skipping text, comments and stray end tags. */
static bool next_elem(const char *p, const char *end, struct elem *e)
{
	const char *gt, *q, *close;
	char tag[72];
	size_t n;

	for (;;) {
		p = p < end ? memchr(p, '<', (size_t)(end - p)) : NULL;
		if (!p || end - p < 3)
			return false;
		gt = memchr(p, '>', (size_t)(end - p));
		if (!gt)
			return false;
		if (p[1] != '/' && p[1] != '?' && p[1] != '!')
			break;
		p = gt + 1;
	}
	for (q = p + 1; q < gt && *q != ' ' && *q != '/' && *q != '\t' && *q != '\n'; q++)
		;
	e->name.p = p + 1;
	e->name.n = (size_t)(q - p - 1);
	if (gt[-1] == '/') {
		e->body.p = gt + 1;
		e->body.n = 0;
		e->next = gt + 1;
		return true;
	}
	if (e->name.n + 4 > sizeof(tag))
		return false;
	n = (size_t)snprintf(tag, sizeof(tag), "</%.*s>", (int)e->name.n, e->name.p);
	close = memmem(gt + 1, (size_t)(end - gt - 1), tag, n);
	if (!close)
		return false;
	e->body.p = gt + 1;
	e->body.n = (size_t)(close - gt - 1);
	e->next = close + n;
	return true;
}

static bool is(struct span s, const char *name)
{
	return strlen(name) == s.n && !memcmp(s.p, name, s.n);
}

static struct span trim(struct span s)
{
	while (s.n && strchr(" \t\r\n", s.p[0]))
		s.p++, s.n--;
	while (s.n && strchr(" \t\r\n", s.p[s.n - 1]))
		s.n--;
	return s;
}

/* The text of the first child <name> of body; false if there is none. */
static bool child(struct span body, const char *name, struct span *text)
{
	struct elem e;
	const char *p = body.p, *end = body.p + body.n;

	while (next_elem(p, end, &e)) {
		if (is(e.name, name)) {
			*text = trim(e.body);
			return true;
		}
		p = e.next;
	}
	return false;
}

/* --- hosts: their jobs and sticky files ---------------------------------- */

/* Segment number of a result "S_b<b>_s<k>_0" (and b, the length of S); 0 if not one. */
static int segment_of(const char *name, int *branch, size_t *seqlen)
{
	const char *p = strrchr(name, 'b');
	int b, k, end = 0;

	for (; p; p = p > name ? memrchr(name, 'b', (size_t)(p - name)) : NULL)
		if (p > name && p[-1] == '_' && sscanf(p, "b%d_s%d_0%n", &b, &k, &end) == 2 &&
		    !p[end] && k > 0) {
			*branch = b;
			*seqlen = (size_t)(p - 1 - name);
			return k;
		}
	return 0;
}

static void job_free(struct job *j)
{
	int i;

	for (i = 0; i < j->nouts; i++) {
		free(j->outs[i].name);
		free(j->outs[i].max_nbytes);
	}
	free(j->outs);
	free(j->name);
}

static void job_init(struct job *j, char *name)
{
	memset(j, 0, sizeof(*j));
	j->name = name;
	j->k = segment_of(name, &j->branch, &j->seqlen);
}

static void job_add_out(struct job *j, char *name, char *max_nbytes, bool upload, bool sticky)
{
	j->outs = xrealloc(j->outs, (size_t)(j->nouts + 1) * sizeof(*j->outs));
	j->outs[j->nouts++] = (struct out){ name, max_nbytes, upload, sticky };
}

static void hand_add(struct host *h, const struct job *j)
{
	h->jobs = xrealloc(h->jobs, (size_t)(h->njobs + 1) * sizeof(*h->jobs));
	h->jobs[h->njobs++] = *j;
}

static int held_find(const struct host *h, const char *s, size_t n)
{
	int i;

	for (i = 0; i < h->nheld; i++)
		if (strlen(h->held[i]) == n && !memcmp(h->held[i], s, n))
			return i;
	return -1;
}

static void held_add(struct host *h, const char *s, size_t n)
{
	if (held_find(h, s, n) >= 0)
		return;
	h->held = xrealloc(h->held, (size_t)(h->nheld + 1) * sizeof(*h->held));
	h->held[h->nheld++] = xstrndup(s, n);
}

static void held_remove(struct host *h, const char *s, size_t n)
{
	int i = held_find(h, s, n);

	if (i < 0)
		return;
	free(h->held[i]);
	h->held[i] = h->held[--h->nheld];
}

/* The segment the host reports next: its lowest; the others still run. */
static struct job *lowest_segment(struct host *h)
{
	struct job *lo = NULL;
	int i;

	for (i = 0; i < h->njobs; i++)
		if (h->jobs[i].k && (!lo || h->jobs[i].k < lo->k))
			lo = &h->jobs[i];
	return lo;
}

/* --- the request ---------------------------------------------------------- */

/*
 * --gpu: the <coprocs> of a real 7.20.5 client with one H200
 * (test/data/client-7.20.5/h200_request_2.xml), asking secs of it.
 */
static void add_coprocs(struct buf *b, double secs)
{
	buf_addf(b, "<coprocs>\n<coproc_cuda>\n   <count>1</count>\n   <name>NVIDIA H200</name>\n"
		 "   <available_ram>150109880320.000000</available_ram>\n   <have_cuda>1</have_cuda>\n"
		 "   <have_opencl>0</have_opencl>\n   <req_secs>%f</req_secs>\n"
		 "   <req_instances>%f</req_instances>\n   <estimated_delay>0.000000</estimated_delay>\n"
		 "   <peak_flops>33454080000000.000000</peak_flops>\n   <cudaVersion>13000</cudaVersion>\n"
		 "   <drvVersion>58099</drvVersion>\n"
		 "   <totalGlobalMem>150109880320.000000</totalGlobalMem>\n"
		 "   <sharedMemPerBlock>49152.000000</sharedMemPerBlock>\n   <regsPerBlock>65536</regsPerBlock>\n"
		 "   <warpSize>32</warpSize>\n   <memPitch>2147483647.000000</memPitch>\n"
		 "   <maxThreadsPerBlock>1024</maxThreadsPerBlock>\n"
		 "   <maxThreadsDim>1024 1024 64</maxThreadsDim>\n"
		 "   <maxGridSize>2147483647 65535 65535</maxGridSize>\n   <clockRate>1980000</clockRate>\n"
		 "   <totalConstMem>65536.000000</totalConstMem>\n   <major>9</major>\n   <minor>0</minor>\n"
		 "   <textureAlignment>512.000000</textureAlignment>\n   <deviceOverlap>1</deviceOverlap>\n"
		 "   <multiProcessorCount>132</multiProcessorCount>\n</coproc_cuda>\n</coprocs>\n",
		 secs, secs > 0 ? 1.0 : 0.0);
}

static void build_request(struct worker *w, struct host *h)
{
	struct buf *b = &w->req;
	struct job *lo = lowest_segment(h);
	double secs = opt.seconds >= 0 ? opt.seconds : mode_seconds[opt.mode];
	bool others = false;
	int i, o;

	b->len = HDR_ROOM;
	buf_need(b, 0);
	buf_addf(b, "<scheduler_request>\n<authenticator>%s</authenticator>\n<hostid>%lld</hostid>\n"
		 "<rpc_seqno>%d</rpc_seqno>\n<core_client_major_version>7</core_client_major_version>\n"
		 "<core_client_minor_version>20</core_client_minor_version>\n"
		 "<core_client_release>5</core_client_release>\n<work_req_seconds>%g</work_req_seconds>\n"
		 "<cpu_req_secs>%g</cpu_req_secs>\n<cpu_req_instances>0</cpu_req_instances>\n"
		 "<platform_name>%s</platform_name>\n",
		 opt.auth, h->hostid, h->rpc_seqno, secs, opt.gpu ? 0 : secs, opt.platform);
	if (h->hostid)
		buf_addf(b, "<code_sign_key>x</code_sign_key>\n");
	for (i = 0; i < h->njobs; i++) {
		struct job *j = &h->jobs[i];

		j->reporting = !j->k || j == lo;
		j->acked = false;
		if (!j->reporting) {
			others = true;
			continue;
		}
		buf_addf(b, "<result>\n    <name>%s</name>\n    <final_cpu_time>1.5</final_cpu_time>\n"
			 "    <final_elapsed_time>1.6</final_elapsed_time>\n    <exit_status>0</exit_status>\n"
			 "    <state>5</state>\n", j->name);
		for (o = 0; o < j->nouts; o++) {
			if (j->outs[o].sticky)
				held_add(h, j->outs[o].name, strlen(j->outs[o].name));
			if (j->outs[o].upload)
				buf_addf(b, "<file_info>\n    <name>%s</name>\n    <nbytes>524</nbytes>\n"
					 "    <max_nbytes>%s</max_nbytes>\n"
					 "    <md5_cksum>0123456789abcdef0123456789abcdef</md5_cksum>\n"
					 "</file_info>\n", j->outs[o].name, j->outs[o].max_nbytes);
		}
		buf_addf(b, "</result>\n");
	}
	for (i = 0; i < h->nheld; i++)
		buf_addf(b, "<file_info>\n    <name>%s</name>\n    <nbytes>524</nbytes>\n"
			 "    <status>1</status>\n</file_info>\n", h->held[i]);
	if (others) {
		buf_addf(b, "<other_results>\n");
		for (i = 0; i < h->njobs; i++)
			if (!h->jobs[i].reporting)
				buf_addf(b, "<other_result>\n    <name>%s</name>\n"
					 "    <app_version>100</app_version>\n</other_result>\n",
					 h->jobs[i].name);
		buf_addf(b, "</other_results>\n");
	}
	buf_addf(b, "<host_info>\n    <host_cpid>%s-%d</host_cpid>\n"
		 "    <domain_name>%s-%d.bench</domain_name>\n    <p_ncpus>2</p_ncpus>\n"
		 "    <p_fpops>1000000000</p_fpops>\n    <m_nbytes>8000000000</m_nbytes>\n"
		 "    <d_free>100000000000</d_free>\n    <os_name>Linux</os_name>\n</host_info>\n",
		 opt.prefix, h->idx, opt.prefix, h->idx);
	if (opt.gpu)
		add_coprocs(b, secs);
	buf_addf(b, "</scheduler_request>\n");
}

/* --- HTTP ---------------------------------------------------------------- */

static bool send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* POST the request in w->req (body from HDR_ROOM), the whole reply into w->rep. */
static int http_post(struct worker *w, const struct host *h)
{
	struct timeval tv = { (time_t)opt.timeout, 0 };
	struct buf *r = &w->rep;
	size_t blen = w->req.len - HDR_ROOM;
	char hdr[HDR_ROOM];
	int n, fd;

	n = snprintf(hdr, sizeof(hdr), "POST %s HTTP/1.0\r\nHost: %s\r\n"
		     "User-Agent: BOINC client (%s 7.20.5)\r\n"
		     "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %zu\r\n\r\n",
		     url_path, url_host, opt.platform, blen);
	if (n < 0 || n >= HDR_ROOM)
		return fail(w, h, E_CONNECT, "request header too long"), -1;
	memcpy(w->req.p + HDR_ROOM - n, hdr, (size_t)n);
	r->len = 0;
	fd = socket(srv_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(w, h, E_CONNECT, "socket: %s", strerror(errno)), -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&srv_addr, srv_len) < 0) {
		fail(w, h, E_CONNECT, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!send_all(fd, w->req.p + HDR_ROOM - n, (size_t)n + blen)) {
		fail(w, h, E_CONNECT, "send: %s", strerror(errno));
		close(fd);
		return -1;
	}
	r->len = 0;
	for (;;) {
		ssize_t k;

		buf_need(r, 16384);
		k = recv(fd, r->p + r->len, r->cap - r->len - 1, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			fail(w, h, E_CONNECT, "receive: %s", errno == EAGAIN ? "timed out" : strerror(errno));
			close(fd);
			return -1;
		}
		if (k == 0)
			break;
		r->len += (size_t)k;
		if (r->len > MAX_REPLY) {
			fail(w, h, E_REPLY, "reply over %d bytes", MAX_REPLY);
			close(fd);
			return -1;
		}
	}
	close(fd);
	r->p[r->len] = 0;
	return 0;
}

/* The <scheduler_reply> body of a 200 reply, whole; false (counted) if not. */
static bool reply_body(struct worker *w, const struct host *h, struct span *body)
{
	const char *p = w->rep.p, *end = p + w->rep.len, *hend, *cl, *open, *close;
	int status = 0;

	if (sscanf(p, "HTTP/%*d.%*d %d", &status) == 1 && status >= 100 && status < 600)
		w->http[status]++;
	if (status != 200) {
		fail(w, h, E_HTTP, "%.*s", (int)strcspn(p, "\r\n"), p);
		return false;
	}
	hend = strstr(p, "\r\n\r\n");
	if (!hend) {
		fail(w, h, E_REPLY, "no end of the HTTP header");
		return false;
	}
	hend += 4;
	cl = memmem(p, (size_t)(hend - p), "\r\nContent-Length:", 17);
	if (cl && strtoul(cl + 17, NULL, 10) != (size_t)(end - hend)) {
		fail(w, h, E_REPLY, "%zu bytes, not the Content-Length", (size_t)(end - hend));
		return false;
	}
	open = memmem(hend, (size_t)(end - hend), "<scheduler_reply>", 17);
	close = open ? memmem(open, (size_t)(end - open), "</scheduler_reply>", 18) : NULL;
	if (!close) {
		fail(w, h, E_REPLY, "no whole <scheduler_reply> (%zu bytes)", (size_t)(end - hend));
		return false;
	}
	body->p = open + 17;
	body->n = (size_t)(close - body->p);
	return true;
}

/* --- the reply ------------------------------------------------------------ */

static const struct span *file_info(const struct worker *w, struct span name)
{
	struct span t;
	size_t i;

	for (i = 0; i < w->nfi; i++)
		if (child(w->fi[i], "name", &t) && t.n == name.n && !memcmp(t.p, name.p, t.n))
			return &w->fi[i];
	return NULL;
}

/* A job of the reply, with its outputs (a file_ref of <result> and its <file_info>). */
static void reply_job(struct worker *w, struct span body)
{
	struct span name, fname, t;
	struct elem e;
	struct job j;
	const char *p = body.p, *end = body.p + body.n;

	if (!child(body, "name", &name))
		return;
	job_init(&j, xstrndup(name.p, name.n));
	for (; next_elem(p, end, &e); p = e.next) {
		const struct span *fi;
		struct span dummy;

		if (!is(e.name, "file_ref") || !child(e.body, "file_name", &fname))
			continue;
		fi = file_info(w, fname);
		if (!fi)
			continue;
		if (!child(*fi, "max_nbytes", &t))
			t = (struct span){ "0", 1 };
		job_add_out(&j, xstrndup(fname.p, fname.n), xstrndup(t.p, t.n), child(*fi, "url", &dummy),
			    child(*fi, "sticky", &dummy));
	}
	if (w->nfresh == w->capfresh) {
		w->capfresh = w->capfresh ? 2 * w->capfresh : 16;
		w->fresh = xrealloc(w->fresh, (size_t)w->capfresh * sizeof(*w->fresh));
	}
	w->fresh[w->nfresh++] = j;
}

static bool job_makes(const struct job *j, struct span name)
{
	int o;

	for (o = 0; o < j->nouts; o++)
		if (is(name, j->outs[o].name))
			return true;
	return false;
}

/* Does a job of the reply or in hand make this file? The host need not download it then. */
static bool is_output(const struct worker *w, const struct host *h, struct span name)
{
	int i;

	for (i = 0; i < w->nfresh; i++)
		if (job_makes(&w->fresh[i], name))
			return true;
	for (i = 0; i < h->njobs; i++)
		if (job_makes(&h->jobs[i], name))
			return true;
	return false;
}

/*
 * In seq mode: having reported segment lo (NULL: the host held none) and
 * with segment maxk the highest in hand, the reply must send lo+2 (maxk+1)
 * of the same sequence and branch, or segments 1 and 2 of a new one, and
 * leave the host only lo's sticky outputs (the input of the segment that runs).
 */
static void check_sequence(struct worker *w, struct host *h, const struct job *lo, int maxk)
{
	const struct job *s[2] = { NULL, NULL };
	int i, n = 0, o, want_held = 0;
	bool ok;

	for (i = 0; i < w->nfresh; i++)
		if (w->fresh[i].k) {
			if (n < 2)
				s[n] = &w->fresh[i];
			n++;
		}
	if (!lo && !n) {        /* the candidates it saw were taken by others: not an error */
		w->no_sequence++;
		return;
	}
	if (lo)
		ok = n == 1 && s[0]->k == maxk + 1 && s[0]->branch == lo->branch &&
		     s[0]->seqlen == lo->seqlen && !memcmp(s[0]->name, lo->name, lo->seqlen);
	else
		ok = n == 2 && s[0]->seqlen == s[1]->seqlen &&
		     !memcmp(s[0]->name, s[1]->name, s[0]->seqlen) && s[0]->k + s[1]->k == 3 &&
		     s[0]->k * s[1]->k == 2;
	if (!ok) {
		fail(w, h, E_SEQUENCE, "reported %s, got %d segments (%s%s%s), not %s", lo ? lo->name : "none",
		     n, n ? s[0]->name : "", n > 1 ? " " : "", n > 1 ? s[1]->name : "",
		     lo ? "the one after the running one" : "segments 1 and 2 of a sequence");
		return;
	}
	if (!lo)
		return;
	for (o = 0; o < lo->nouts; o++)
		if (lo->outs[o].sticky) {
			want_held++;
			ok = ok && held_find(h, lo->outs[o].name, strlen(lo->outs[o].name)) >= 0;
		}
	if (!ok || h->nheld != want_held)
		fail(w, h, E_SEQUENCE, "after reporting %s the host still holds %d sticky files (%s%s), "
		     "not only that segment's %d", lo->name, h->nheld, h->nheld ? h->held[0] : "",
		     h->nheld > 1 ? " ..." : "", want_held);
}

/* Check the reply and apply it to the host; the number of jobs it sent. */
static int handle_reply(struct worker *w, struct host *h, struct span body)
{
	const char *p, *end = body.p + body.n;
	struct job *lo = lowest_segment(h);
	struct span t;
	struct elem e;
	struct span msg = { NULL, 0 }, delay = { NULL, 0 };
	long long first;
	int i, njobs = 0, maxk = 0;

	for (i = 0; i < h->njobs; i++)
		if (h->jobs[i].k > maxk)
			maxk = h->jobs[i].k;
	w->nfi = 0;
	w->nfresh = 0;
	for (p = body.p; next_elem(p, end, &e); p = e.next)
		if (is(e.name, "file_info")) {
			if (w->nfi == w->capfi) {
				w->capfi = w->capfi ? 2 * w->capfi : 64;
				w->fi = xrealloc(w->fi, w->capfi * sizeof(*w->fi));
			}
			w->fi[w->nfi++] = e.body;
		}
	for (p = body.p; next_elem(p, end, &e); p = e.next) {
		t = trim(e.body);
		if (is(e.name, "message") && !msg.p) {
			msg = t;
		} else if (is(e.name, "request_delay") || is(e.name, "project_is_down")) {
			delay = e.name;
		} else if (is(e.name, "hostid")) {
			long long id = strtoll(t.p, NULL, 10);

			if (h->hostid && id != h->hostid)
				fail(w, h, E_REPLY, "the reply gives the host id %lld", id);
			h->hostid = id;
		} else if (is(e.name, "result_ack") && child(e.body, "name", &t)) {
			for (i = 0; i < h->njobs; i++)
				if (h->jobs[i].reporting && is(t, h->jobs[i].name))
					h->jobs[i].acked = true;
		} else if (is(e.name, "result_abort") && child(e.body, "name", &t)) {
			fail(w, h, E_ABORT, "%.*s aborted", (int)t.n, t.p);
		} else if (is(e.name, "delete_file_info")) {
			held_remove(h, t.p, t.n);
		} else if (is(e.name, "result")) {
			reply_job(w, e.body);
		}
	}
	/* sticky inputs with a URL are downloaded and kept (a sequence's first state) */
	for (i = 0; i < (int)w->nfi; i++)
		if (child(w->fi[i], "sticky", &t) && child(w->fi[i], "url", &t) &&
		    child(w->fi[i], "name", &t) && !is_output(w, h, t))
			held_add(h, t.p, t.n);
	/* a refusal is a message with a request_delay: one error, not two */
	if (delay.p || msg.p)
		fail(w, h, delay.p ? E_REFUSED : E_MESSAGE, "%s%.*s%s%.*s", delay.p ? "<" : "",
		     (int)delay.n, delay.p ? delay.p : "", delay.p ? "> " : "", (int)msg.n,
		     msg.p ? msg.p : "");
	if (delay.p) {          /* nothing was recorded: report the same next time */
		for (i = 0; i < w->nfresh; i++)
			job_free(&w->fresh[i]);
		return 0;
	}
	if (opt.mode == MODE_SEQ)
		check_sequence(w, h, lo, maxk);
	/* the reported jobs are done with, acknowledged or not */
	for (i = 0; i < h->njobs; i++) {
		struct job *j = &h->jobs[i];

		if (!j->reporting)
			continue;
		if (j->acked)
			w->all_reported++;
		else
			fail(w, h, E_UNACKED, "%s reported, not acknowledged", j->name);
		job_free(j);
		h->jobs[i--] = h->jobs[--h->njobs];
	}
	for (i = 0; i < w->nfresh; i++) {
		struct job *j = &w->fresh[i];

		if (j->k && opt.mode != MODE_SEQ)
			fail(w, h, E_SEQUENCE, "segment %s sent in mode %s", j->name, mode_name[opt.mode]);
		if (!sent_add(j->name, strlen(j->name), h->hostid, &first)) {
			fail(w, h, E_DUPLICATE, "%s sent again (first to hostid %lld)", j->name, first);
			job_free(j);    /* not ours to run */
			continue;
		}
		hand_add(h, j);
		njobs++;
	}
	return njobs;
}

/* --- one RPC of one host --------------------------------------------------- */

static void host_rpc(struct worker *w, struct host *h, bool timed)
{
	struct span body;
	double t0, t1;
	long reported;
	int njobs;

	h->rpc_seqno++;
	build_request(w, h);
	t0 = now();
	if (http_post(w, h) < 0)
		return;
	t1 = now();
	w->all_rpcs++;
	/* every timed reply's latency counts, an HTTP error's too (its wait is the point) */
	if (timed) {
		if (w->nlat == w->caplat) {
			w->caplat = w->caplat ? 2 * w->caplat : 4096;
			w->lat = xrealloc(w->lat, w->caplat * sizeof(*w->lat));
		}
		w->lat[w->nlat++] = (float)((t1 - t0) * 1000);
	}
	if (!reply_body(w, h, &body))
		return;
	reported = w->all_reported;
	njobs = handle_reply(w, h, body);
	w->all_jobs += njobs;
	if (!timed)
		return;
	w->last_done = t1;
	w->rpcs++;
	w->reported += w->all_reported - reported;
	w->jobs += njobs;
	if (njobs < mode_jobs[opt.mode])
		w->short_replies++;
}

/*
 * Before the clock: a host not registered, holding another number of jobs
 * than the mode reports (none yet, or those of a run in another mode: a
 * ten-job run whose hosts hold one each would measure RPCs reporting one),
 * or in seq mode no sequence.
 */
static bool needs_setup(struct host *h)
{
	if (!h->hostid)
		return true;
	if (opt.mode == MODE_SEQ)
		return !lowest_segment(h);
	return h->njobs != mode_jobs[opt.mode];
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	long i;
	int tries;

	for (i = w->id; i < opt.hosts; i += opt.concurrency)
		for (tries = 0; tries < 3 && needs_setup(&hosts[i]); tries++) {
			host_rpc(w, &hosts[i], false);
			w->setup_rpcs++;
		}
	pthread_barrier_wait(&barrier);         /* set-up done: the clock starts */
	pthread_barrier_wait(&barrier);
	for (;;)
		for (i = w->id; i < opt.hosts; i += opt.concurrency) {
			double t = now();

			if (t >= t_end)
				return NULL;
			host_rpc(w, &hosts[i], t >= t_warm);
		}
}

/* --- state between runs ---------------------------------------------------- */

/*
 * "host IDX HOSTID RPC_SEQNO", then a line for each job in hand ("job NAME
 * NOUTS" and per output "NAME UPLOAD STICKY MAX_NBYTES") and each sticky
 * file held ("held NAME").
 */
static int state_save(const char *path)
{
	char tmp[4096];
	FILE *f;
	long i;
	int j, o;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno)), -1;
	fprintf(f, "%s %s\n", STATE_MAGIC, opt.prefix);
	for (i = 0; i < opt.hosts; i++) {
		const struct host *h = &hosts[i];

		fprintf(f, "host %d %lld %d\n", h->idx, h->hostid, h->rpc_seqno);
		for (j = 0; j < h->njobs; j++) {
			fprintf(f, "job %s %d", h->jobs[j].name, h->jobs[j].nouts);
			for (o = 0; o < h->jobs[j].nouts; o++)
				fprintf(f, " %s %d %d %s", h->jobs[j].outs[o].name, h->jobs[j].outs[o].upload,
					h->jobs[j].outs[o].sticky, h->jobs[j].outs[o].max_nbytes);
			fputc('\n', f);
		}
		for (j = 0; j < h->nheld; j++)
			fprintf(f, "held %s\n", h->held[j]);
	}
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		return fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno)), -1;
	return 0;
}

static int state_load(const char *path)
{
	char line[65536], w1[4096], w2[4096], prefix[256];
	struct host *h = NULL;
	FILE *f = fopen(path, "r");
	int lineno = 0, dropped = 0;

	if (!f)
		return errno == ENOENT ? 0 : (fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno)), -1);
	if (!fgets(line, sizeof(line), f) || strncmp(line, STATE_MAGIC " ", sizeof(STATE_MAGIC)) ||
	    sscanf(line + sizeof(STATE_MAGIC), "%255s", prefix) != 1 || strcmp(prefix, opt.prefix)) {
		fclose(f);
		return fprintf(stderr, PROG ": %s: not a state file of hosts %s\n", path, opt.prefix), -1;
	}
	while (fgets(line, sizeof(line), f)) {
		long long id;
		int idx, seqno, nouts, n, o, up, st;
		struct job j;
		char *p;

		lineno++;
		if (sscanf(line, "host %d %lld %d", &idx, &id, &seqno) == 3) {
			h = idx >= 0 && idx < opt.hosts ? &hosts[idx] : NULL;
			dropped += !h;
			if (h) {
				h->hostid = id;
				h->rpc_seqno = seqno;
			}
		} else if (sscanf(line, "held %4095s", w1) == 1) {
			if (h)
				held_add(h, w1, strlen(w1));
		} else if (sscanf(line, "job %4095s %d%n", w1, &nouts, &n) == 2) {
			if (!h)
				continue;
			job_init(&j, xstrndup(w1, strlen(w1)));
			for (p = line + n, o = 0; o < nouts; o++, p += n) {
				char mx[64];

				if (sscanf(p, " %4095s %d %d %63s%n", w2, &up, &st, mx, &n) != 4)
					break;
				job_add_out(&j, xstrndup(w2, strlen(w2)), xstrndup(mx, strlen(mx)), up, st);
			}
			hand_add(h, &j);
			sent_add(j.name, strlen(j.name), h->hostid, &id);
		} else {
			fclose(f);
			return fprintf(stderr, PROG ": %s:%d: cannot read\n", path, lineno + 1), -1;
		}
	}
	fclose(f);
	if (dropped)
		fprintf(stderr, PROG ": %s: %d hosts beyond --hosts left out (and their jobs)\n", path,
			dropped);
	return 0;
}

/* --- options and figures --------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: " PROG " --url URL --auth KEY [options]\n"
	      "A load generator for the scheduler RPC: simulated hosts, one HTTP/1.0 connection\n"
	      "an RPC, every reply checked.\n"
	      "  --url URL          the scheduler, http://HOST:PORT/PATH (required)\n"
	      "  --auth KEY         the account key all hosts use (required)\n"
	      "  --hosts H          simulated hosts (default 100)\n"
	      "  --concurrency C    threads, each making the RPCs of every C-th host in turn (default 8)\n"
	      "  --duration T       seconds measured (default 10)\n"
	      "  --warmup S         seconds of RPCs before those, not measured (default 0)\n"
	      "  --mode MODE        nowork: ask for nothing, report nothing;\n"
	      "                     one: report the job of the RPC before, ask for 1 s (one job\n"
	      "                     of 1e9 fpops: the hosts have 1e9 fpops);\n"
	      "                     ten: report the ten jobs of the RPC before, ask for 10 s;\n"
	      "                     seq: a host with a work sequence reports segment k, lists its\n"
	      "                     sticky states and k+1 running, gets k+2 (ask for 1 s)\n"
	      "                     (default: one)\n"
	      "  --seconds S        work_req_seconds to ask for instead of the mode's\n"
	      "  --gpu              hosts with one NVIDIA GPU (a real client's <coproc_cuda>) asking\n"
	      "                     the seconds of it (req_secs, req_instances 1) and none of\n"
	      "                     the CPU (cpu_req_secs 0); work_req_seconds as ever, which\n"
	      "                     a scheduler that reads only it fills with CPU work\n"
	      "  --platform NAME    the hosts' platform (default x86_64-pc-linux-gnu)\n"
	      "  --prefix P         host_cpid and domain_name of host n are P-n and P-n.bench\n"
	      "                     (default load)\n"
	      "  --state FILE       host ids, jobs in hand and sticky files: read at the start\n"
	      "                     if there, written at the end\n"
	      "  --timeout S        seconds to wait on a connection (default 60)\n"
	      "  --dump FILE        write the request and reply of the first RPC with an error\n"
	      "  --csv              end with a line: mode,hosts,concurrency,seconds,rpcs,rpc_per_s,\n"
	      "                     jobs_per_s,median_ms,p90_ms,p99_ms,max_ms,errors,setup_rpcs,\n"
	      "                     rpcs_all,jobs_all,reported_all,held,short,no_sequence,cpu_s,\n"
	      "                     reported (in the measured RPCs), not_200 (replies whose HTTP\n"
	      "                     status was not 200, set-up and warm-up too)\n"
	      "  --cpu-pid PID      also measure the CPU seconds process PID (the database\n"
	      "                     server, say) uses in the measured seconds\n"
	      "  --help             this text\n"
	      "A host's first RPC registers it; it and, in seq mode, those that give a host its\n"
	      "sequence (up to 3) are made before the clock starts. Errors: connect (or send, receive),\n"
	      "http (not 200), reply (not a whole scheduler_reply), refused (request_delay),\n"
	      "message, duplicate (a job sent before, to any host), unacked (a report not\n"
	      "acknowledged), abort, sequence (seq mode: not segment k+2, or sticky files left).\n"
	      "Exit status: 0; 1 if any error; 2 on bad usage.\n", f);
}

static bool number(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

static int parse_url(const char *url)
{
	const char *p = url + 7, *slash, *colon;
	char port[16] = "80";
	struct addrinfo hints = { 0 }, *ai;
	int rc;

	if (strncmp(url, "http://", 7))
		return fprintf(stderr, PROG ": --url: only http:// URLs\n"), -1;
	slash = strchr(p, '/');
	if (!slash)
		slash = p + strlen(p);
	snprintf(url_host, sizeof(url_host), "%.*s", (int)(slash - p), p);
	snprintf(url_path, sizeof(url_path), "%s", *slash ? slash : "/");
	colon = strrchr(url_host, ':');
	if (colon) {
		snprintf(port, sizeof(port), "%s", colon + 1);
		url_host[colon - url_host] = 0;
	}
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(url_host, port, &hints, &ai);
	if (rc)
		return fprintf(stderr, PROG ": %s: %s\n", url_host, gai_strerror(rc)), -1;
	memcpy(&srv_addr, ai->ai_addr, ai->ai_addrlen);
	srv_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (colon)      /* the Host: header has the port */
		url_host[colon - url_host] = ':';
	return 0;
}

static int parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "url", 1, NULL, 'u' }, { "auth", 1, NULL, 'a' }, { "hosts", 1, NULL, 'H' },
		{ "concurrency", 1, NULL, 'C' }, { "duration", 1, NULL, 'T' }, { "warmup", 1, NULL, 'w' },
		{ "mode", 1, NULL, 'm' }, { "seconds", 1, NULL, 's' }, { "platform", 1, NULL, 'p' },
		{ "prefix", 1, NULL, 'P' }, { "state", 1, NULL, 'S' }, { "timeout", 1, NULL, 't' },
		{ "dump", 1, NULL, 'D' }, { "cpu-pid", 1, NULL, 'U' },
		{ "csv", 0, NULL, 'c' }, { "gpu", 0, NULL, 'g' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	double v;
	int c, m, li = 0;

	while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
		switch (c) {
		case 'u': opt.url = optarg; break;
		case 'a': opt.auth = optarg; break;
		case 'p': opt.platform = optarg; break;
		case 'P': opt.prefix = optarg; break;
		case 'S': opt.state = optarg; break;
		case 'D': opt.dump = optarg; break;
		case 'c': opt.csv = true; break;
		case 'g': opt.gpu = true; break;
		case 'h': usage(stdout); exit(0);
		case 'H': case 'C': case 'U':
			if (!number(optarg, 1, c == 'H' ? 1e7 : c == 'C' ? 4096 : 1e9, &v) || v != (long)v)
				goto bad;
			*(c == 'H' ? &opt.hosts : c == 'C' ? &opt.concurrency : &opt.cpu_pid) = (long)v;
			break;
		case 'T': case 'w': case 's': case 't':
			if (!number(optarg, c == 't' ? 1 : 0, 1e7, &v))
				goto bad;
			*(c == 'T' ? &opt.duration : c == 'w' ? &opt.warmup : c == 's' ? &opt.seconds
										: &opt.timeout) = v;
			break;
		case 'm':
			for (m = 0; m < 4 && strcmp(optarg, mode_name[m]); m++)
				;
			if (m == 4)
				goto bad;
			opt.mode = (enum mode)m;
			break;
		default:
			usage(stderr);
			return -1;
		}
		continue;
bad:
		fprintf(stderr, PROG ": bad value for --%s: %s\n", longopts[li].name, optarg);
		return -1;
	}
	if (optind < argc || !opt.url || !opt.auth) {
		usage(stderr);
		return -1;
	}
	if (opt.concurrency > opt.hosts)
		opt.concurrency = opt.hosts;
	if (strchr(opt.prefix, ' ') || strchr(opt.prefix, '<') || strchr(opt.prefix, '&'))
		return fprintf(stderr, PROG ": --prefix: no spaces or markup\n"), -1;
	return parse_url(opt.url);
}

/* Seconds of CPU process pid has used (user and system); -1 if unknown. */
static double cpu_seconds(long pid)
{
	char path[64], line[1024], *p;
	unsigned long ut, st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fgets(line, sizeof(line), f) ? 1 : 0;
	fclose(f);
	p = n ? strrchr(line, ')') : NULL;
	/* after the command: state and 10 more fields, then utime and stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void sleep_until(double t)
{
	double d = t - now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Everything freed, so that a sanitizer build reports real leaks only. */
static void free_all(struct worker *ws, float *lat)
{
	long i;
	int j;

	for (i = 0; i < opt.hosts; i++) {
		for (j = 0; j < hosts[i].njobs; j++)
			job_free(&hosts[i].jobs[j]);
		for (j = 0; j < hosts[i].nheld; j++)
			free(hosts[i].held[j]);
		free(hosts[i].jobs);
		free(hosts[i].held);
	}
	for (i = 0; i < opt.concurrency; i++) {
		free(ws[i].req.p);
		free(ws[i].rep.p);
		free(ws[i].fi);
		free(ws[i].fresh);
		free(ws[i].lat);
	}
	for (i = 0; i < (long)sent.cap; i++)
		free(sent.name[i]);
	free(sent.name);
	free(sent.hostid);
	free(ws);
	free(lat);
	free(hosts);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The p-th quantile as test/bench/bench-lib.sh's stats() takes it. */
static double rank(const float *v, size_t n, double p)
{
	size_t k = (size_t)(p * (double)n + 0.999999);

	return n ? v[(k < 1 ? 1 : k) - 1] : 0;
}

/* The figures of a run, for the report. */
struct run {
	struct worker *ws, tot;
	double t_start, t_setup, secs, cpu0, cpu1;
	long nerr, held;
	float *lat;             /* every timed RPC's latency, sorted */
};

/* Start the workers, let them warm up and run, and wait for them. */
static int run_workers(struct run *r)
{
	long i;

	r->ws = xrealloc(NULL, (size_t)opt.concurrency * sizeof(*r->ws));
	memset(r->ws, 0, (size_t)opt.concurrency * sizeof(*r->ws));
	pthread_barrier_init(&barrier, NULL, (unsigned)opt.concurrency + 1);
	r->t_setup = now();
	for (i = 0; i < opt.concurrency; i++) {
		r->ws[i].id = (int)i;
		if (pthread_create(&r->ws[i].tid, NULL, worker_main, &r->ws[i])) {
			fprintf(stderr, PROG ": cannot start thread %ld\n", i);
			return -1;
		}
	}
	pthread_barrier_wait(&barrier);
	r->t_start = now();
	t_warm = r->t_start + opt.warmup;
	t_end = t_warm + opt.duration;
	pthread_barrier_wait(&barrier);
	r->cpu0 = r->cpu1 = -1;
	if (opt.cpu_pid) {
		sleep_until(t_warm);
		r->cpu0 = cpu_seconds(opt.cpu_pid);
		sleep_until(t_end);
		r->cpu1 = cpu_seconds(opt.cpu_pid);
	}
	for (i = 0; i < opt.concurrency; i++)
		pthread_join(r->ws[i].tid, NULL);
	return 0;
}

/* The workers' counts added up, their latencies in one sorted array. */
static void sum_workers(struct run *r)
{
	struct worker *tot = &r->tot;
	long i;
	int k;

	for (i = 0; i < opt.concurrency; i++) {
		const struct worker *w = &r->ws[i];

		tot->rpcs += w->rpcs;
		tot->reported += w->reported;
		for (k = 0; k < 600; k++)
			tot->http[k] += w->http[k];
		tot->jobs += w->jobs;
		tot->short_replies += w->short_replies;
		tot->all_rpcs += w->all_rpcs;
		tot->all_jobs += w->all_jobs;
		tot->all_reported += w->all_reported;
		tot->setup_rpcs += w->setup_rpcs;
		tot->no_sequence += w->no_sequence;
		tot->nlat += w->nlat;
		if (w->last_done > tot->last_done)
			tot->last_done = w->last_done;
		for (k = 0; k < E_KINDS; k++)
			tot->err[k] += w->err[k];
	}
	r->lat = xrealloc(NULL, tot->nlat * sizeof(*r->lat));
	for (tot->nlat = 0, i = 0; i < opt.concurrency; i++) {
		if (r->ws[i].nlat)
			memcpy(r->lat + tot->nlat, r->ws[i].lat, r->ws[i].nlat * sizeof(*r->lat));
		tot->nlat += r->ws[i].nlat;
	}
	qsort(r->lat, tot->nlat, sizeof(*r->lat), cmp_float);
	for (i = 0; i < opt.hosts; i++)
		r->held += hosts[i].njobs;
	for (k = 0; k < E_KINDS; k++)
		r->nerr += tot->err[k];
	/* the measured seconds: until the last RPC started in time has finished */
	r->secs = tot->last_done > t_warm ? tot->last_done - t_warm : opt.duration;
}

static void print_report(const struct run *r)
{
	const struct worker *tot = &r->tot;
	const float *lat = r->lat;
	double secs = r->secs, cpu = r->cpu0 >= 0 && r->cpu1 >= 0 ? r->cpu1 - r->cpu0 : -1;
	long not200 = 0;
	int k, n;

	printf("mode          %s (%s %g)\n", mode_name[opt.mode],
	       opt.gpu ? "work_req_seconds and the GPU's req_secs" : "work_req_seconds",
	       opt.seconds >= 0 ? opt.seconds : mode_seconds[opt.mode]);
	printf("hosts         %ld (%ld set-up RPCs, untimed, %.1f s)\n", opt.hosts, tot->setup_rpcs,
	       r->t_start - r->t_setup);
	printf("concurrency   %ld\n", opt.concurrency);
	printf("duration      %.1f s measured (%g s asked, after %g s of warm-up)\n", secs, opt.duration,
	       opt.warmup);
	printf("RPCs          %ld\n", tot->rpcs);
	printf("RPC/s         %.1f\n", tot->rpcs / secs);
	printf("jobs/s        %.1f (%ld jobs; %ld replies with fewer than the mode asks)\n",
	       tot->jobs / secs, tot->jobs, tot->short_replies);
	printf("latency ms    median %.1f  p90 %.1f  p99 %.1f  max %.1f\n", rank(lat, tot->nlat, 0.5),
	       rank(lat, tot->nlat, 0.9), rank(lat, tot->nlat, 0.99), tot->nlat ? lat[tot->nlat - 1] : 0);
	printf("reports       %ld acknowledged in the measured RPCs, %.2f an RPC\n", tot->reported,
	       tot->rpcs ? (double)tot->reported / tot->rpcs : 0.0);
	printf("HTTP status  ");
	for (k = 0, n = 0; k < 600; k++)
		if (tot->http[k]) {
			printf("%s %d: %ld", n ? "," : "", k, tot->http[k]);
			if (k != 200)
				not200 += tot->http[k];
			n++;
		}
	printf("%s (set-up and warm-up RPCs too)\n", n ? "" : " none");
	printf("in all        %ld RPCs, %ld jobs received, %ld reports acknowledged, %ld jobs in hand\n",
	       tot->all_rpcs, tot->all_jobs, tot->all_reported, r->held);
	if (opt.cpu_pid)
		printf("CPU           %.2f s used by process %ld in the %g s measured\n",
		       cpu, opt.cpu_pid, opt.duration);
	if (opt.mode == MODE_SEQ)
		printf("no sequence   %ld times a host without one asked and got none\n", tot->no_sequence);
	printf("errors        %ld", r->nerr);
	for (k = 0; k < E_KINDS; k++)
		printf("%s%s %ld", k ? ", " : " (", err_name[k], tot->err[k]);
	printf(")\n");
	if (opt.csv)
		printf("%s,%ld,%ld,%.2f,%ld,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%.2f,"
		       "%ld,%ld\n",
		       mode_name[opt.mode], opt.hosts, opt.concurrency, secs, tot->rpcs, tot->rpcs / secs,
		       tot->jobs / secs, rank(lat, tot->nlat, 0.5), rank(lat, tot->nlat, 0.9),
		       rank(lat, tot->nlat, 0.99), tot->nlat ? lat[tot->nlat - 1] : 0.0, r->nerr,
		       tot->setup_rpcs, tot->all_rpcs, tot->all_jobs, tot->all_reported, r->held,
		       tot->short_replies, tot->no_sequence, cpu, tot->reported, not200);
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	long i;
	int rc = 0;

	if (parse_options(argc, argv) < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	hosts = xrealloc(NULL, (size_t)opt.hosts * sizeof(*hosts));
	memset(hosts, 0, (size_t)opt.hosts * sizeof(*hosts));
	for (i = 0; i < opt.hosts; i++)
		hosts[i].idx = (int)i;
	if (opt.state && state_load(opt.state) < 0)
		return 2;
	if (run_workers(&r) < 0)
		return 2;
	sum_workers(&r);
	if (opt.state && state_save(opt.state) < 0)
		rc = 2;
	print_report(&r);
	free_all(r.ws, r.lat);
	return rc ? rc : r.nerr ? 1 : 0;
}
