/*
 * BOINC_SUBMIT: one batch of jobs, in five RPCs whatever the number of jobs
 * -- get_templates (is the app there), create_batch, query_files (which
 * inputs the server lacks), upload_files (only those), submit_batch (every
 * job in one document). Input files are content-addressed, named
 * <md5><extension>; each distinct local file is hashed once per SUBMIT
 * however many jobs share it. A SUBMIT that fails before its jobs are made
 * retires its batch, which the server then discards, so the same SUBMIT
 * corrected works under the same batch name.
 */
#include "boinc_gahp.h"
#include "submit_client.h"
#include "field.h"
#include "log.h"
#include "md5.h"

#include <sys/stat.h>

/* at most this many files, or bytes, in one upload_files request */
#define UPLOAD_MAX_FILES 32
#define UPLOAD_MAX_BYTES (256LL * 1024 * 1024)

struct submit_job {
	const char *name;
	long nargs;
	char **args;
	long nfiles;
	char **files;           /* SRC DST pairs; DST is not sent (slots go by position) */
};

struct submit_spec {
	const char *batch, *app;
	long njobs;
	struct submit_job *jobs;
	/* the optional trailing job parameters; 0 = not given */
	double fpops_est, fpops_bound, mem_bound, disk_bound, delay_bound;
	long app_version_num;
};

/* The bounds of the trailing job parameters: those the server takes (doc/submit_rpc.md). */
#define FPOPS_MAX 1e30
#define BYTES_MAX 1e18
#define DELAY_BOUND_MAX 1e9

#define SUBMIT_USE "BOINC_SUBMIT ID BATCH APP NJOBS (JOB NARGS ARG... NFILES (SRC DST)...)... " \
		   "[FPOPS_EST FPOPS_BOUND MEM_BOUND DISK_BOUND DELAY_BOUND APP_VERSION_NUM]"

/* One job's tokens from argv[*i] on. */
static int parse_job(int argc, char **argv, int *i, long j, struct submit_job *jb,
		     struct sbuf *why)
{
	if (argc - *i < 3) {
		sbuf_addf(why, "job %ld: too few arguments: want JOB NARGS ARG... NFILES "
			  "(SRC DST)...", j + 1);
		return -1;
	}
	jb->name = argv[(*i)++];
	if (gahp_want_count("NARGS", argv[(*i)++], &jb->nargs, why))
		return -1;
	if (jb->nargs > argc - *i - 1) {
		sbuf_addf(why, "job %ld: NARGS is %ld, more than the arguments left", j + 1,
			  jb->nargs);
		return -1;
	}
	jb->args = &argv[*i];
	*i += (int)jb->nargs;
	if (gahp_want_count("NFILES", argv[(*i)++], &jb->nfiles, why))
		return -1;
	if (2 * jb->nfiles > argc - *i) {
		sbuf_addf(why, "job %ld: NFILES is %ld, more than the SRC DST pairs left", j + 1,
			  jb->nfiles);
		return -1;
	}
	jb->files = &argv[*i];
	*i += (int)(2 * jb->nfiles);
	return 0;
}

/* The six trailing job parameters, each NULL or a number (APP_VERSION_NUM an integer). */
static int parse_params(char **argv, struct submit_spec *s, struct sbuf *why)
{
	if (gahp_want_number("FPOPS_EST", argv[0], FPOPS_MAX, true, &s->fpops_est, why) ||
	    gahp_want_number("FPOPS_BOUND", argv[1], FPOPS_MAX, true, &s->fpops_bound, why) ||
	    gahp_want_number("MEM_BOUND", argv[2], BYTES_MAX, true, &s->mem_bound, why) ||
	    gahp_want_number("DISK_BOUND", argv[3], BYTES_MAX, true, &s->disk_bound, why) ||
	    gahp_want_number("DELAY_BOUND", argv[4], DELAY_BOUND_MAX, true, &s->delay_bound, why))
		return -1;
	if (strcmp(argv[5], "NULL") == 0) {
		s->app_version_num = 0;
		return 0;
	}
	/* a fraction is refused too ("1.5 is not a whole number") */
	return field_long("APP_VERSION_NUM", argv[5], 0, INT_MAX, 0, &s->app_version_num, why) ==
	       FIELD_OK ? 0 : -1;
}

/* BOINC_SUBMIT id BATCH APP NJOBS (JOB NARGS ARG... NFILES (SRC DST)...)... [6 params] */
int gahp_submit_parse(int argc, char **argv, void **specp, struct sbuf *why)
{
	struct submit_spec *s;
	long j;
	int i = 5;

	if (gahp_want_args(argc, 5, true, SUBMIT_USE, why) || gahp_want_reqid(argv[1], why))
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->batch = argv[2];
	s->app = argv[3];
	if (gahp_want_count("NJOBS", argv[4], &s->njobs, why))
		goto bad;
	if (s->njobs < 1 || s->njobs > argc) {
		sbuf_addf(why, "NJOBS is %ld: want 1 to the jobs on the line", s->njobs);
		goto bad;
	}
	s->jobs = xcalloc((size_t)s->njobs, sizeof(*s->jobs));
	for (j = 0; j < s->njobs; j++)
		if (parse_job(argc, argv, &i, j, &s->jobs[j], why))
			goto bad;
	if (argc - i == 6) {
		if (parse_params(&argv[i], s, why))
			goto bad;
	} else if (argc - i != 0) {
		sbuf_addf(why, "after the jobs, want none or the six job parameters, not %d "
			  "arguments", argc - i);
		goto bad;
	}
	*specp = s;
	return 0;
bad:
	gahp_submit_free(s);
	return -1;
}

void gahp_submit_free(void *p)
{
	struct submit_spec *s = p;

	if (s) {
		free(s->jobs);
		free(s);
	}
}

/* A string -> index map (open addressing) for the distinct files of a SUBMIT. */
struct strmap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static size_t *strmap_slot(struct strmap *m, const char *key, bool *found)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct strmap g = { NULL, NULL, m->cap ? 2 * m->cap : 64, 0 };

		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (i = 0; i < m->cap; i++) {
			if (m->keys[i]) {
				size_t k = hash(m->keys[i]) & (g.cap - 1);

				while (g.keys[k])
					k = (k + 1) & (g.cap - 1);
				g.keys[k] = m->keys[i];
				g.vals[k] = m->vals[i];
				g.n++;
			}
		}
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	for (i = hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (strcmp(m->keys[i], key) == 0) {
			*found = true;
			return &m->vals[i];
		}
	}
	*found = false;
	m->keys[i] = key;
	m->n++;
	return &m->vals[i];
}

static void strmap_free(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
}

struct infile {
	const char *path;       /* the first local path seen with this content */
	char phys[MD5_HEX_LEN + 24];
	long long size;
};

/* ".ext" of the basename if it is short and of the characters server names allow. */
static const char *extension(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot, *p;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base || strlen(dot) > 16)
		return "";
	for (p = dot + 1; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '_' && *p != '-')
			return "";
	return dot;
}

struct submit_state {
	struct strmap by_path;  /* local path -> index into files */
	struct strmap by_phys;  /* phys name -> index into files */
	struct infile *files;   /* distinct contents */
	size_t nfiles;
	size_t *job_file;       /* per job file in order: index into files */
	size_t hashed;
};

static void state_free(struct submit_state *st)
{
	strmap_free(&st->by_path);
	strmap_free(&st->by_phys);
	free(st->files);
	free(st->job_file);
}

/* Hash every distinct input once; -1 with the reason in err. */
static int hash_inputs(struct submit_spec *s, struct submit_state *st, struct sbuf *err)
{
	size_t total = 0, k = 0, cap = 0;
	long j, f;

	for (j = 0; j < s->njobs; j++)
		total += (size_t)s->jobs[j].nfiles;
	st->job_file = xcalloc(total ? total : 1, sizeof(*st->job_file));
	for (j = 0; j < s->njobs; j++) {
		for (f = 0; f < s->jobs[j].nfiles; f++) {
			const char *src = s->jobs[j].files[2 * f];
			char hex[MD5_HEX_LEN + 1];
			struct stat sb;
			long long n;
			size_t *slot, idx;
			bool found;

			slot = strmap_slot(&st->by_path, src, &found);
			if (found) {
				st->job_file[k++] = *slot;
				continue;
			}
			if (gahp_quitting()) {
				sbuf_addstr(err, "interrupted: the gahp is quitting");
				return -1;
			}
			errno = 0;
			if (stat(src, &sb) != 0 || !S_ISREG(sb.st_mode) || md5_file(src, hex, &n) < 0) {
				sbuf_addf(err, "can't read input file %s: %s", src,
					  errno ? strerror(errno) : "not a regular file");
				return -1;
			}
			st->hashed++;
			if (st->nfiles == cap) {
				cap = cap ? 2 * cap : 16;
				st->files = xrealloc(st->files, cap * sizeof(*st->files));
			}
			idx = st->nfiles;
			snprintf(st->files[idx].phys, sizeof(st->files[idx].phys), "%s%s", hex,
				 extension(src));
			st->files[idx].path = src;
			st->files[idx].size = n;
			/* the same content under two paths is one server file */
			{
				size_t *ps = strmap_slot(&st->by_phys, st->files[idx].phys, &found);

				if (found) {
					idx = *ps;
				} else {
					*ps = idx;
					st->nfiles++;
				}
			}
			*slot = idx;
			st->job_file[k++] = idx;
		}
	}
	return 0;
}

static int create_batch(struct gahp_req *r, struct submit_spec *s, char *id, size_t idlen,
			struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	char when[64];
	xmlDoc *doc;
	char *bid;
	long n = 0;
	int ret = -1;

	/* a first lease; the gridmanager sets its own right after the submit */
	snprintf(when, sizeof(when), "%f", (double)time(NULL) + 3600);
	rpc_begin(&req, "create_batch", r->auth);
	rpc_elem(&req, "batch_name", s->batch);
	rpc_elem(&req, "app_name", s->app);
	rpc_elem(&req, "expire_time", when);
	rpc_end(&req, "create_batch");
	if (rpc_post(r->url, "submit_rpc_handler.php", &req, NULL, 0, "create_batch", &doc, err) == 0) {
		bid = rpc_child_text(xmlDocGetRootElement(doc), "batch_id");
		if (!bid || parse_long(bid, &n) < 0 || n <= 0)
			sbuf_addstr(err, "no <batch_id> in the reply");
		else
			ret = (int)wstrlcpy(id, bid, idlen) < (int)idlen ? 0 : -1;
		free(bid);
		xmlFreeDoc(doc);
	}
	sbuf_free(&req);
	return ret;
}

/* query_files: mark absent[i] for each distinct file the server lacks. */
static int query_files(struct gahp_req *r, struct submit_state *st, const char *batch_id,
		       bool *absent, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(GAHP_MAX_LINE);
	xmlDoc *doc;
	xmlNode *list, *f;
	size_t i;
	int ret = -1;

	rpc_begin(&req, "query_files", r->auth);
	rpc_elem(&req, "batch_id", batch_id);
	for (i = 0; i < st->nfiles; i++)
		rpc_elem(&req, "phys_name", st->files[i].phys);
	rpc_end(&req, "query_files");
	if (rpc_post(r->url, "job_file.php", &req, NULL, 0, "query_files", &doc, err) == 0) {
		list = xml_child(xmlDocGetRootElement(doc), "absent_files");
		if (!list) {
			sbuf_addstr(err, "no <absent_files> in the reply");
		} else {
			ret = 0;
			xml_for_each(f, list, "file") {
				char *t = xml_text(f);
				long k;

				if (parse_long(t, &k) < 0 || k < 0 || (size_t)k >= st->nfiles) {
					sbuf_addstr(err, "bad <file> index in the reply");
					ret = -1;
				} else {
					absent[k] = true;
				}
				free(t);
			}
		}
		xmlFreeDoc(doc);
	}
	sbuf_free(&req);
	return ret;
}

static int upload_some(struct gahp_req *r, struct submit_state *st, const char *batch_id,
		       const size_t *which, size_t n, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024 * 1024);
	char **paths = xcalloc(n, sizeof(*paths));
	xmlDoc *doc;
	size_t i;
	int ret = -1;

	rpc_begin(&req, "upload_files", r->auth);
	rpc_elem(&req, "batch_id", batch_id);
	for (i = 0; i < n; i++) {
		rpc_elem(&req, "phys_name", st->files[which[i]].phys);
		paths[i] = (char *)st->files[which[i]].path;
	}
	rpc_end(&req, "upload_files");
	if (rpc_post(r->url, "job_file.php", &req, paths, n, "upload_files", &doc, err) == 0) {
		if (xml_child(xmlDocGetRootElement(doc), "success"))
			ret = 0;
		else
			sbuf_addstr(err, "no <success> in the reply to upload_files");
		xmlFreeDoc(doc);
	}
	free(paths);
	sbuf_free(&req);
	return ret;
}

/* Upload the absent files in a few requests; counts what went up. */
static int upload(struct gahp_req *r, struct submit_state *st, const char *batch_id,
		  const bool *absent, size_t *nup, long long *bytes, struct sbuf *err)
{
	size_t *which = xcalloc(UPLOAD_MAX_FILES, sizeof(*which));
	size_t i, n = 0;
	long long chunk = 0;
	int ret = 0;

	for (i = 0; i <= st->nfiles && ret == 0; i++) {
		bool last = i == st->nfiles;

		if (!last && !absent[i])
			continue;
		if (n > 0 && (last || n == UPLOAD_MAX_FILES ||
			      chunk + st->files[i].size > UPLOAD_MAX_BYTES)) {
			ret = upload_some(r, st, batch_id, which, n, err);
			n = 0;
			chunk = 0;
		}
		if (!last) {
			which[n++] = i;
			chunk += st->files[i].size;
			(*nup)++;
			*bytes += st->files[i].size;
		}
	}
	free(which);
	return ret;
}

/*
 * A submit that failed before its jobs were made leaves an empty batch in
 * INIT: retire it, and the server discards it, with its ties to the files
 * uploaded for it (they go with their lease). Best effort: a batch left
 * behind is made again by the next create_batch of its name.
 */
static void discard_batch(struct gahp_req *r, const char *batch_id)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	struct sbuf err = SBUF_INIT(64 * 1024);

	rpc_begin(&req, "retire_batch", r->auth);
	rpc_elem(&req, "batch_id", batch_id);
	rpc_end(&req, "retire_batch");
	if (rpc_simple(r->url, &req, "retire_batch", &err) == 0)
		log_info("submit %s: batch id %s discarded", r->reqid, batch_id);
	else
		log_warn("submit %s: cannot discard batch id %s: %s", r->reqid, batch_id,
			 sbuf_str(&err));
	sbuf_free(&req);
	sbuf_free(&err);
}

/* A BOINC command line keeps an argument whole if it is quoted. */
static void add_arg(struct sbuf *b, const char *a)
{
	bool blank = strpbrk(a, " \t\r\n\v\f") != NULL;

	if (b->len)
		sbuf_addch(b, ' ');
	if ((blank || a[0] == '\'') && !strchr(a, '"'))
		sbuf_addf(b, "\"%s\"", a);
	else if ((blank || a[0] == '"') && !strchr(a, '\''))
		sbuf_addf(b, "'%s'", a);
	else
		sbuf_addstr(b, a);
}

/* 0; RPC_REFUSED when certainly no job was made (refused, or never sent); else -1. */
static int submit_batch(struct gahp_req *r, struct submit_spec *s, struct submit_state *st,
			const char *batch_id, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(GAHP_MAX_LINE);
	struct sbuf cl = SBUF_INIT(GAHP_MAX_LINE);
	char num[64];
	xmlDoc *doc;
	size_t k = 0;
	long j, a, f;
	int ret = -1;

	rpc_begin(&req, "submit_batch", r->auth);
	sbuf_addstr(&req, "<batch>\n");
	rpc_elem(&req, "batch_id", batch_id);
	rpc_elem(&req, "app_name", s->app);
	snprintf(num, sizeof(num), "%ld", s->app_version_num);
	rpc_elem(&req, "app_version_num", num);
	sbuf_addf(&req, "<job_params>\n<rsc_disk_bound>%f</rsc_disk_bound>\n"
			"<rsc_fpops_est>%f</rsc_fpops_est>\n<rsc_fpops_bound>%f</rsc_fpops_bound>\n"
			"<rsc_memory_bound>%f</rsc_memory_bound>\n<delay_bound>%f</delay_bound>\n"
			"</job_params>\n",
		  s->disk_bound, s->fpops_est, s->fpops_bound, s->mem_bound, s->delay_bound);
	for (j = 0; j < s->njobs; j++) {
		struct submit_job *jb = &s->jobs[j];

		sbuf_addstr(&req, "<job>\n");
		rpc_elem(&req, "name", jb->name);
		if (jb->nargs > 0) {
			sbuf_reset(&cl);
			for (a = 0; a < jb->nargs; a++)
				add_arg(&cl, jb->args[a]);
			rpc_elem(&req, "command_line", sbuf_str(&cl));
		}
		for (f = 0; f < jb->nfiles; f++) {
			sbuf_addstr(&req, "<input_file>\n<mode>local_staged</mode>\n");
			rpc_elem(&req, "source", st->files[st->job_file[k++]].phys);
			sbuf_addstr(&req, "</input_file>\n");
		}
		if (sbuf_addstr(&req, "</job>\n") < 0) {
			sbuf_addstr(err, "the batch is too large for one request");
			ret = RPC_REFUSED;
			goto out;
		}
	}
	sbuf_addstr(&req, "</batch>\n");
	rpc_end(&req, "submit_batch");
	ret = rpc_post(r->url, "submit_rpc_handler.php", &req, NULL, 0, "submit_batch", &doc, err);
	if (ret == 0) {
		char *bid = rpc_child_text(xmlDocGetRootElement(doc), "batch_id");

		if (!bid) {
			sbuf_addstr(err, "no <batch_id> in the reply");
			ret = -1;
		}
		free(bid);
		xmlFreeDoc(doc);
	}
out:
	sbuf_free(&req);
	sbuf_free(&cl);
	return ret;
}

void gahp_submit_run(struct gahp_req *r, struct sbuf *res)
{
	struct submit_spec *s = r->spec;
	struct submit_state st;
	struct rpc_templates t;
	struct sbuf err = SBUF_INIT(64 * 1024);
	char batch_id[32];
	bool *absent = NULL;
	size_t nup = 0;
	long long bytes = 0;
	bool ok = false;
	int rc;

	memset(&st, 0, sizeof(st));
	if (hash_inputs(s, &st, &err) < 0) {
		gahp_error(res, r->auth, "error processing input files: %s", sbuf_str(&err));
		goto out;
	}
	if (rpc_get_templates(r->url, r->auth, s->app, NULL, &t, &err) < 0) {
		gahp_error(res, r->auth, "error getting templates: %s", sbuf_str(&err));
		goto out;
	}
	rpc_templates_free(&t);
	if (create_batch(r, s, batch_id, sizeof(batch_id), &err) < 0) {
		gahp_error(res, r->auth, "error creating batch: %s", sbuf_str(&err));
		goto out;
	}
	absent = xcalloc(st.nfiles + 1, sizeof(*absent));
	if (st.nfiles > 0 && (query_files(r, &st, batch_id, absent, &err) < 0 ||
			      upload(r, &st, batch_id, absent, &nup, &bytes, &err) < 0)) {
		gahp_error(res, r->auth, "error processing input files: %s", sbuf_str(&err));
		discard_batch(r, batch_id);
		goto out;
	}
	rc = submit_batch(r, s, &st, batch_id, &err);
	if (rc < 0) {
		gahp_error(res, r->auth, "error submitting jobs: %s", sbuf_str(&err));
		/* refused: the server made no job; else it may have made them all */
		if (rc == RPC_REFUSED)
			discard_batch(r, batch_id);
		goto out;
	}
	sbuf_addstr(res, " NULL");
	ok = true;
out:
	/* the counts tests and benchmarks read: each distinct file hashed once, only absent ones sent */
	log_info("submit %s: batch id %s, %ld jobs, %zu distinct input files hashed, "
		 "%zu uploaded (%lld bytes)%s",
		 r->reqid, absent ? batch_id : "none", s->njobs, st.hashed, nup, bytes,
		 ok ? "" : ", failed");
	free(absent);
	state_free(&st);
	sbuf_free(&err);
}
