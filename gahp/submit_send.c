/*
 * Sending a batch (submit_send.h): the five RPCs of a submit, moved here from
 * boinc_gahp's BOINC_SUBMIT so that wseq_submit sends batches the same way.
 */
#include "submit_send.h"
#include "field.h"
#include "submit_client.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "xml_write.h"

#include <sys/stat.h>

/* at most this many files, or bytes, in one upload_files request */
#define UPLOAD_MAX_FILES 32
#define UPLOAD_MAX_BYTES (256LL * 1024 * 1024)

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

static void strmap_release(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
}

struct infile {
	const char *path;       /* the first local path seen with this content */
	char phys[MD5_HEX_LEN + 24];
	long long size;
};

/*
 * ".ext" of the basename if it is short, of the characters server names
 * allow and not one the server refuses as active content (field.h).
 */
static const char *extension(const char *path)
{
	const char *base = path_base(path), *dot, *p;

	dot = strrchr(base, '.');
	if (!dot || dot == base || strlen(dot) > 16)
		return "";
	for (p = dot + 1; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '_' && *p != '-')
			return "";
	return field_active_ext(dot + 1) ? "" : dot;
}

struct submit_state {
	struct strmap by_path;  /* local path -> index into files */
	struct strmap by_phys;  /* phys name -> index into files */
	struct infile *files;   /* distinct contents */
	size_t nfiles;
	size_t *job_file;       /* per job file in order: index into files */
	size_t hashed;
};

static void state_release(struct submit_state *st)
{
	strmap_release(&st->by_path);
	strmap_release(&st->by_phys);
	free(st->files);
	free(st->job_file);
}

/* Hash every distinct input once; -1 with the reason in err. */
static int hash_inputs(const struct send_batch *s, struct submit_state *st, struct sbuf *err)
{
	size_t total = 0, k = 0, cap = 0;
	long j, f;

	for (j = 0; j < s->njobs; j++)
		total += (size_t)s->jobs[j].nfiles;
	st->job_file = xcalloc(total ? total : 1, sizeof(*st->job_file));
	for (j = 0; j < s->njobs; j++) {
		for (f = 0; f < s->jobs[j].nfiles; f++) {
			const char *src = s->jobs[j].files[f];
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
			if (rpc_stopping()) {
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

static int create_batch(const struct send_batch *b, char *id, size_t idlen,
			struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	char when[64];
	xmlDoc *doc;
	char *bid;
	long n = 0;
	int ret = -1;

	/* a first lease (the gridmanager sets its own right after the submit) */
	snprintf(when, sizeof(when), "%f",
		 b->expire_time > 0 ? b->expire_time : (double)time(NULL) + 3600);
	rpc_begin(&req, "create_batch", b->auth);
	xml_elem_str(&req, 0, "batch_name", b->batch);
	xml_elem_str(&req, 0, "app_name", b->app);
	xml_elem_str(&req, 0, "expire_time", when);
	rpc_end(&req, "create_batch");
	if (rpc_post(b->url, "submit_rpc_handler.php", &req, NULL, 0, "create_batch", &doc, err) == 0) {
		bid = rpc_child_text(xmlDocGetRootElement(doc), "batch_id");
		if (!bid || parse_long(bid, &n) < 0 || n <= 0)
			sbuf_addstr(err, "no <batch_id> in the reply");
		else
			ret = (int)wstrlcpy(id, bid, idlen) < (int)idlen ? 0 : -1;
		free(bid);
		xmlFreeDoc(doc);
	}
	sbuf_release(&req);
	return ret;
}

/* query_files: mark absent[i] for each distinct file the server lacks. */
static int query_files(const struct send_batch *b, struct submit_state *st, const char *batch_id,
		       bool *absent, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(SEND_MAX_REQUEST);
	xmlDoc *doc;
	xmlNode *list, *f;
	size_t i;
	int ret = -1;

	rpc_begin(&req, "query_files", b->auth);
	xml_elem_str(&req, 0, "batch_id", batch_id);
	for (i = 0; i < st->nfiles; i++)
		xml_elem_str(&req, 0, "phys_name", st->files[i].phys);
	rpc_end(&req, "query_files");
	if (rpc_post(b->url, "job_file.php", &req, NULL, 0, "query_files", &doc, err) == 0) {
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
	sbuf_release(&req);
	return ret;
}

static int upload_some(const struct send_batch *b, struct submit_state *st, const char *batch_id,
		       const size_t *which, size_t n, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024 * 1024);
	char **paths = xcalloc(n, sizeof(*paths));
	xmlDoc *doc;
	size_t i;
	int ret = -1;

	rpc_begin(&req, "upload_files", b->auth);
	xml_elem_str(&req, 0, "batch_id", batch_id);
	for (i = 0; i < n; i++) {
		xml_elem_str(&req, 0, "phys_name", st->files[which[i]].phys);
		paths[i] = (char *)st->files[which[i]].path;
	}
	rpc_end(&req, "upload_files");
	if (rpc_post(b->url, "job_file.php", &req, paths, n, "upload_files", &doc, err) == 0) {
		if (xml_child(xmlDocGetRootElement(doc), "success"))
			ret = 0;
		else
			sbuf_addstr(err, "no <success> in the reply to upload_files");
		xmlFreeDoc(doc);
	}
	free(paths);
	sbuf_release(&req);
	return ret;
}

/* Upload the absent files in a few requests; counts what went up. */
static int upload(const struct send_batch *b, struct submit_state *st, const char *batch_id,
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
			ret = upload_some(b, st, batch_id, which, n, err);
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
static void discard_batch(const struct send_batch *b, const char *batch_id)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	struct sbuf err = SBUF_INIT(64 * 1024);

	rpc_begin(&req, "retire_batch", b->auth);
	xml_elem_str(&req, 0, "batch_id", batch_id);
	rpc_end(&req, "retire_batch");
	if (rpc_simple(b->url, &req, "retire_batch", &err) == 0)
		log_info("%s: batch id %s discarded", b->label, batch_id);
	else
		log_warn("%s: cannot discard batch id %s: %s", b->label, batch_id,
			 sbuf_str(&err));
	sbuf_release(&req);
	sbuf_release(&err);
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

void send_command_line(struct sbuf *b, char *const *args, long nargs)
{
	long a;

	for (a = 0; a < nargs; a++)
		add_arg(b, args[a]);
}

/* 0; RPC_REFUSED when certainly no job was made (refused, or never sent); else -1. */
static int submit_batch(const struct send_batch *b, struct submit_state *st,
			const char *batch_id, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(SEND_MAX_REQUEST);
	struct sbuf cl = SBUF_INIT(SEND_MAX_REQUEST);
	char num[64];
	xmlDoc *doc;
	size_t k = 0;
	long j, f;
	int ret = -1;

	rpc_begin(&req, "submit_batch", b->auth);
	sbuf_addstr(&req, "<batch>\n");
	xml_elem_str(&req, 0, "batch_id", batch_id);
	xml_elem_str(&req, 0, "app_name", b->app);
	snprintf(num, sizeof(num), "%ld", b->params.app_version_num);
	xml_elem_str(&req, 0, "app_version_num", num);
	sbuf_addf(&req, "<job_params>\n<rsc_disk_bound>%f</rsc_disk_bound>\n"
			"<rsc_fpops_est>%f</rsc_fpops_est>\n<rsc_fpops_bound>%f</rsc_fpops_bound>\n"
			"<rsc_memory_bound>%f</rsc_memory_bound>\n<delay_bound>%f</delay_bound>\n"
			"</job_params>\n",
		  b->params.disk_bound, b->params.fpops_est, b->params.fpops_bound, b->params.mem_bound, b->params.delay_bound);
	for (j = 0; j < b->njobs; j++) {
		const struct send_job *jb = &b->jobs[j];

		sbuf_addstr(&req, "<job>\n");
		xml_elem_str(&req, 0, "name", jb->name);
		if (jb->nargs > 0) {
			sbuf_reset(&cl);
			send_command_line(&cl, jb->args, jb->nargs);
			xml_elem_str(&req, 0, "command_line", sbuf_str(&cl));
		}
		for (f = 0; f < jb->nfiles; f++) {
			sbuf_addstr(&req, "<input_file>\n<mode>local_staged</mode>\n");
			xml_elem_str(&req, 0, "source", st->files[st->job_file[k++]].phys);
			if (b->executable)
				xml_elem_str(&req, 0, "open_name", jb->open_names[f]);
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
	ret = rpc_post(b->url, "submit_rpc_handler.php", &req, NULL, 0, "submit_batch", &doc, err);
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
	sbuf_release(&req);
	sbuf_release(&cl);
	return ret;
}

const char *send_step_text(enum send_step s)
{
	switch (s) {
	case SEND_INPUTS:
		return "error processing input files";
	case SEND_TEMPLATES:
		return "error getting templates";
	case SEND_CREATE:
		return "error creating batch";
	case SEND_SUBMIT:
		return "error submitting jobs";
	default:
		return "no error";
	}
}

/* b with the executable as every job's first file and every file's open name filled in. */
static void with_executable(const struct send_batch *b, struct send_batch *e)
{
	long j, f;

	*e = *b;
	send_batch_jobs(e, b->njobs);
	for (j = 0; j < b->njobs; j++) {
		const struct send_job *from = &b->jobs[j];
		struct send_job *to = &e->jobs[j];

		*to = *from;
		send_job_files(to, from->nfiles + 1, true);
		to->files[0] = (char *)b->executable;
		to->open_names[0] = (char *)SEND_EXEC_OPEN_NAME;
		for (f = 0; f < from->nfiles; f++) {
			to->files[f + 1] = from->files[f];
			to->open_names[f + 1] = (char *)(from->open_names && from->open_names[f] ?
							 from->open_names[f] :
							 path_base(from->files[f]));
		}
	}
}

void send_batch_jobs(struct send_batch *b, long njobs)
{
	b->njobs = njobs;
	b->jobs = xcalloc((size_t)njobs + 1, sizeof(*b->jobs));
}

void send_job_files(struct send_job *j, long nfiles, bool open_names)
{
	j->nfiles = nfiles;
	j->files = xcalloc((size_t)nfiles + 1, sizeof(char *));
	j->open_names = open_names ? xcalloc((size_t)nfiles + 1, sizeof(char *)) : NULL;
}

void send_batch_jobs_release(struct send_batch *b)
{
	long j;

	for (j = 0; j < b->njobs; j++) {
		free(b->jobs[j].files);
		free(b->jobs[j].open_names);
	}
	free(b->jobs);
	b->jobs = NULL;
	b->njobs = 0;
}

/* get_templates: is the app there, and does it run the submitter's executable when asked to? */
static int check_app(const struct send_batch *b, struct sbuf *err)
{
	struct rpc_templates t;
	int rc = 0;

	if (rpc_get_templates(b->url, b->auth, b->app, NULL, &t, err) < 0)
		return -1;
	if (b->executable && !t.any_executable) {
		sbuf_addf(err, "app %s does not run the submitter's own executable %s (the project "
			  "marks such apps any_executable)", b->app, b->executable);
		rc = -1;
	}
	rpc_templates_release(&t);
	return rc;
}

static bool xml_ok(const char *s)
{
	return !s || field_text_ok(s, strlen(s), true);
}

/*
 * Every name and argument the requests carry is text XML can carry: the one
 * escaping rule would make anything else '?', so it is refused here, before
 * the server sees any of the batch.
 */
static int check_text(const struct send_batch *b, struct sbuf *err)
{
	long j, a;

	if (!xml_ok(b->batch) || !xml_ok(b->app))
		return sbuf_fail(err, "the batch or app name is not UTF-8 text without control "
				 "characters");
	for (j = 0; j < b->njobs; j++) {
		const struct send_job *jb = &b->jobs[j];

		if (!xml_ok(jb->name))
			return sbuf_fail(err, "job %ld: its name is not UTF-8 text without control "
					 "characters", j + 1);
		for (a = 0; a < jb->nargs; a++)
			if (!xml_ok(jb->args[a]))
				return sbuf_fail(err, "job %ld: argument %ld is not UTF-8 text without "
						 "control characters", j + 1, a + 1);
		for (a = 0; jb->open_names && a < jb->nfiles; a++)
			if (!xml_ok(jb->open_names[a]))
				return sbuf_fail(err, "job %ld: the name of input %ld is not UTF-8 text "
						 "without control characters", j + 1, a + 1);
	}
	return 0;
}

int send_batch(const struct send_batch *given, struct send_result *res, struct sbuf *err)
{
	struct submit_state st;
	struct send_batch exec_b;
	const struct send_batch *b = given;
	bool *absent = NULL;
	int rc, ret = -1;

	memset(&st, 0, sizeof(st));
	memset(res, 0, sizeof(*res));
	if (given->executable) {
		with_executable(given, &exec_b);
		b = &exec_b;
	}
	if (check_text(b, err) < 0) {
		res->failed = SEND_SUBMIT;
		goto out;
	}
	if (hash_inputs(b, &st, err) < 0) {
		res->failed = SEND_INPUTS;
		goto out;
	}
	if (!b->skip_templates && check_app(b, err) < 0) {
		res->failed = SEND_TEMPLATES;
		goto out;
	}
	if (create_batch(b, res->batch_id, sizeof(res->batch_id), err) < 0) {
		res->batch_id[0] = '\0';
		res->failed = SEND_CREATE;
		goto out;
	}
	absent = xcalloc(st.nfiles + 1, sizeof(*absent));
	if (st.nfiles > 0 && (query_files(b, &st, res->batch_id, absent, err) < 0 ||
			      upload(b, &st, res->batch_id, absent, &res->uploaded, &res->bytes, err) < 0)) {
		res->failed = SEND_INPUTS;
		discard_batch(b, res->batch_id);
		goto out;
	}
	rc = submit_batch(b, &st, res->batch_id, err);
	if (rc < 0) {
		res->failed = SEND_SUBMIT;
		/* refused: the server made no job; else it may have made them all */
		if (rc == RPC_REFUSED)
			discard_batch(b, res->batch_id);
		goto out;
	}
	ret = 0;
out:
	res->hashed = st.hashed;
	free(absent);
	state_release(&st);
	if (given->executable)
		send_batch_jobs_release(&exec_b);
	return ret;
}
