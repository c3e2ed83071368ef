/*
 * BOINC_FETCH_OUTPUT: the outcome of one finished job -- its stderr appended
 * to the job's error file, its output files where the gridmanager wants
 * them, and "NULL exit_status elapsed cpu". Output files are named by the
 * app's output template; SOME fetches each file by its name's place in the
 * template (not by the spec's position, as upstream did). The entries of a
 * wseq_outputs.zip are outputs by their own names (outputs_zip.h): those no
 * spec names go only to new paths under DIR, and the zips of one batch (the
 * job name's part before its last '#', as the gridmanager names jobs)
 * share bounds for the gahp's life.
 */
#include "boinc_gahp.h"
#include "submit_client.h"
#include "outputs_zip.h"
#include "log.h"

#include <fcntl.h>
#include <pthread.h>

struct fetch_spec {
	const char *job, *dir, *stderr_file;
	bool all;
	long nspecs;
	char **specs;           /* SRC DST pairs */
};

/* BOINC_FETCH_OUTPUT id JOB DIR STDERR ALL|SOME N (SRC DST)... */
int gahp_fetch_parse(int argc, char **argv, void **specp, struct sbuf *why)
{
	struct fetch_spec *s;
	long n;

	if (gahp_want_args(argc, 7, true, "BOINC_FETCH_OUTPUT ID JOB DIR STDERR_FILE ALL|SOME "
			   "NSPECS (SRC DST)...", why) ||
	    gahp_want_reqid(argv[1], why) || gahp_want_count("NSPECS", argv[6], &n, why))
		return -1;
	if (argc != 7 + 2 * n) {
		sbuf_addf(why, "NSPECS is %ld, but the line has %d argument(s) after it (want SRC "
			  "DST for each)", n, argc - 7);
		return -1;
	}
	if (strcmp(argv[5], "ALL") != 0 && strcmp(argv[5], "SOME") != 0) {
		sbuf_addstr(why, "want ALL or SOME after STDERR_FILE");
		return -1;
	}
	s = xcalloc(1, sizeof(*s));
	s->job = argv[2];
	s->dir = argv[3];
	s->stderr_file = argv[4];
	s->all = strcmp(argv[5], "ALL") == 0;
	s->nspecs = n;
	s->specs = &argv[7];
	*specp = s;
	return 0;
}

void gahp_fetch_free(void *p)
{
	free(p);
}

/* dst as given when absolute, else under dir (allocated). */
static char *place(const char *dir, const char *dst)
{
	if (dst[0] == '/')
		return xstrdup(dst);
	return xasprintf("%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "", dst);
}

void gahp_unescape_entities(char *s)
{
	rpc_unescape_entities(s);
}

static int append_stderr(const char *path, const char *text, struct sbuf *err)
{
	size_t len = strlen(text), off = 0;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0) {
		sbuf_addf(err, "can't open stderr output file %s: %s", path, strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sbuf_addf(err, "can't write stderr output file %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (close(fd) != 0) {
		sbuf_addf(err, "can't write stderr output file %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static long template_index(const struct rpc_templates *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nout; i++)
		if (strcmp(t->out[i], name) == 0)
			return (long)i;
	return -1;
}

/* The DST of the spec whose SRC is name, or NULL. */
static const char *spec_dst(const struct fetch_spec *s, const char *name)
{
	long k;

	for (k = 0; k < s->nspecs; k++)
		if (strcmp(s->specs[2 * k], name) == 0)
			return s->specs[2 * k + 1];
	return NULL;
}

/* Where an output called name goes: a spec's DST if one names it, else DIR/name (allocated). */
static char *destination(const struct fetch_spec *s, const char *name)
{
	const char *dst = spec_dst(s, name);

	return place(s->dir, dst ? dst : name);
}

static int fetch_one(struct gahp_req *r, const struct fetch_spec *s, long i, const char *name,
		     struct sbuf *err)
{
	char *path = destination(s, name);
	int ret = gahp_quitting() ? -1 : rpc_get_output(r->url, r->auth, s->job, (int)i, path, err);

	free(path);
	return ret;
}

/* Entry e of the zip wanted: where a spec says (named), else DIR/its name (a new file). */
static void want_one(const struct fetch_spec *s, struct unpacked *u, long e)
{
	char *path;

	if (!spec_dst(s, u->names[e])) {
		unpacked_want(u, (size_t)e, u->names[e], false);
		return;
	}
	path = destination(s, u->names[e]);
	unpacked_want(u, (size_t)e, path, true);
	free(path);
}

/*
 * The bounds the zips of one batch share while the gahp runs, and what
 * each job's zip was charged: a job fetched again (the gridmanager retries)
 * is charged once, for its latest zip.
 */
struct job_use {
	char *job;
	uint64_t bytes, entries;
};
struct batch_use {
	char *batch;
	struct zip_budget use;
	struct job_use *jobs;
	size_t njobs;
};
static pthread_mutex_t use_mu = PTHREAD_MUTEX_INITIALIZER;
static struct batch_use *uses;
static size_t nuses;

/* The use of job's batch (use_mu held). */
static struct batch_use *batch_use(const char *job, const struct zip_budget *fresh)
{
	const char *hash = strrchr(job, '#');
	size_t len = hash ? (size_t)(hash - job) : strlen(job), i;

	for (i = 0; i < nuses; i++)
		if (strlen(uses[i].batch) == len && !strncmp(uses[i].batch, job, len))
			return &uses[i];
	ARRAY_GROW(uses, nuses);
	memset(&uses[nuses], 0, sizeof(*uses));
	uses[nuses].batch = xstrndup(job, len);
	uses[nuses].use = *fresh;
	return &uses[nuses++];
}

/* What job was charged in b (made zero the first time; use_mu held). */
static struct job_use *job_use(struct batch_use *b, const char *job)
{
	size_t i;

	for (i = 0; i < b->njobs; i++)
		if (!strcmp(b->jobs[i].job, job))
			return &b->jobs[i];
	ARRAY_GROW(b->jobs, b->njobs);
	memset(&b->jobs[b->njobs], 0, sizeof(*b->jobs));
	b->jobs[b->njobs].job = xstrdup(job);
	return &b->jobs[b->njobs++];
}

/* Unpack u's zip, job charged to its batch instead of its earlier zip (use_mu held). */
static int unpack_charged(struct unpacked *u, const char *job, const struct zip_limits *lim,
			  const struct zip_budget *fresh, struct sbuf *err)
{
	struct batch_use *b = batch_use(job, fresh);
	struct job_use *j = job_use(b, job);
	uint64_t bytes, entries;
	int rc;

	b->use.bytes -= j->bytes;
	b->use.entries -= j->entries;
	bytes = b->use.bytes;
	entries = b->use.entries;
	rc = outputs_zip_unpack(u, lim, &b->use, err);
	if (rc == 0) {
		j->bytes = b->use.bytes - bytes;
		j->entries = b->use.entries - entries;
	} else {
		b->use.bytes += j->bytes;
		b->use.entries += j->entries;
	}
	return rc;
}

/*
 * The job's zip (output zi): fetched into a staging directory in DIR, then
 * unpacked there within the job's bounds and its batch's (one unpacking at a
 * time, so the batch's count holds).
 */
static int unpack_zip(struct gahp_req *r, const struct fetch_spec *s, long zi, struct unpacked *u,
		      struct sbuf *err)
{
	struct zip_limits lim;
	struct zip_budget fresh;
	int rc;

	if (outputs_zip_limits(&lim, &fresh, err) < 0 || outputs_zip_stage(s->dir, u, err) < 0)
		return -1;
	unpacked_reserve(u, "config.txt", false);     /* the gahp's own, read at start */
	if (outputs_zip_download(r->url, r->auth, s->job, (int)zi, u, err) < 0)
		return -1;
	pthread_mutex_lock(&use_mu);
	rc = unpack_charged(u, s->job, &lim, &fresh, err);
	pthread_mutex_unlock(&use_mu);
	if (rc < 0)
		log_warn("fetch %s: job %s: refused its " OUTPUTS_ZIP ": %s", r->reqid, s->job,
			 sbuf_str(err));
	return rc;
}

/*
 * The output files: by the template's names, and -- when the job has a
 * wseq_outputs.zip -- by the names inside it, which stand for outputs of
 * their own (the zip is unpacked, not delivered, under ALL). A SRC that is
 * none of them fails the request; but a job with a zip decides its outputs
 * as it runs, so there such a SRC is passed over with a warning.
 */
static int fetch_files(struct gahp_req *r, struct fetch_spec *s, const struct rpc_templates *t,
		       struct sbuf *err)
{
	long i, k, zi = outputs_zip_index(t);
	struct unpacked u;
	int ret = 0;

	memset(&u, 0, sizeof(u));
	if (zi >= 0 && unpack_zip(r, s, zi, &u, err) < 0) {
		unpacked_release(&u);
		return -1;
	}
	for (k = 0; k < s->nspecs && ret == 0; k++) {
		const char *src = s->specs[2 * k];

		if (template_index(t, src) >= 0 || unpacked_find(&u, src) >= 0)
			continue;
		if (zi < 0) {
			sbuf_addf(err, "job %s has no output file named %s", s->job, src);
			ret = -1;
		} else {
			log_warn("fetch %s: job %s made no output file named %s (not among those in "
				 "its " OUTPUTS_ZIP ")", r->reqid, s->job, src);
		}
	}
	if (ret == 0 && s->all) {
		for (i = 0; i < (long)t->nout && ret == 0; i++)
			if (i != zi)
				ret = fetch_one(r, s, i, t->out[i], err);
		for (i = 0; i < (long)u.n; i++)
			want_one(s, &u, i);
	} else if (ret == 0) {
		for (k = 0; k < s->nspecs && ret == 0; k++) {
			const char *src = s->specs[2 * k];

			if ((i = template_index(t, src)) >= 0)
				ret = fetch_one(r, s, i, src, err);
			else if ((i = unpacked_find(&u, src)) >= 0)
				want_one(s, &u, i);
		}
	}
	if (ret == 0 && u.dir && !gahp_quitting() && (ret = unpacked_place(&u, s->dir, err)) < 0)
		log_warn("fetch %s: job %s: refused its " OUTPUTS_ZIP ": %s", r->reqid, s->job,
			 sbuf_str(err));
	else if (ret == 0 && u.dir && gahp_quitting())
		ret = -1;
	unpacked_release(&u);
	if (ret < 0 && err->len == 0)
		sbuf_addstr(err, "interrupted: the gahp is quitting");
	return ret;
}

void gahp_fetch_run(struct gahp_req *r, struct sbuf *res)
{
	struct fetch_spec *s = r->spec;
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct rpc_templates t;
	struct rpc_completed c;
	char *path;
	int rc;

	memset(&t, 0, sizeof(t));
	memset(&c, 0, sizeof(c));
	if (rpc_get_templates(r->url, r->auth, NULL, s->job, &t, &err) < 0) {
		gahp_error(res, r->auth, "error getting templates: %s", sbuf_str(&err));
		goto out;
	}
	if (rpc_query_completed_job(r->url, r->auth, s->job, &c, &err) < 0) {
		gahp_error(res, r->auth, "error querying job: %s", sbuf_str(&err));
		goto out;
	}
	if (c.canonical_resultid <= 0 && c.error_resultid <= 0) {
		if (c.error_mask)
			gahp_error(res, r->auth, "job %s failed without a result to report (error mask %ld)",
				   s->job, c.error_mask);
		else
			gahp_error(res, r->auth, "job %s is not done", s->job);
		goto out;
	}
	path = place(s->dir, s->stderr_file);
	rc = append_stderr(path, c.stderr_out ? c.stderr_out : "", &err);
	free(path);
	if (rc < 0) {
		gahp_error(res, r->auth, "%s", sbuf_str(&err));
		goto out;
	}
	/* a failed job has no output files on the server: its status and stderr are all */
	if (c.canonical_resultid > 0 && fetch_files(r, s, &t, &err) < 0) {
		gahp_error(res, r->auth, "error fetching output: %s", sbuf_str(&err));
		goto out;
	}
	sbuf_addf(res, " NULL %ld %f %f", c.exit_status, c.elapsed_time, c.cpu_time);
out:
	rpc_completed_release(&c);
	rpc_templates_release(&t);
	sbuf_release(&err);
}
