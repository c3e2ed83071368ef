/*
 * Work creation: staging input files into the download hierarchy,
 * inserting workunits, and the transitioner's result creation. See work.h.
 */
#include "common.h"
#include "work.h"
#include "config.h"
#include "db_records.h"
#include "db_work.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "upload_cert.h"
#include "wtime.h"

#include <sys/stat.h>

/* Longest workunit name: results add "_N" and their outputs "_N_i". */
#define WU_NAME_MAX 200

/* ---- input staging ------------------------------------------------------- */

void work_file_release(struct work_file *f)
{
	free(f->name);
	free(f->path);
	free(f->url);
	memset(f, 0, sizeof(*f));
}

void work_unstage_input(const struct work_file *f)
{
	char *md5path;

	if (!f->staged || !f->path)
		return;
	md5path = xasprintf("%s.md5", f->path);
	unlink(f->path);
	unlink(md5path);
	free(md5path);
}

/* The sidecar, if present, not older than the file and well-formed. */
static bool read_md5_sidecar(const char *path, char md5[MD5_HEX_LEN + 1], double *nbytes)
{
	struct sbuf b = SBUF_INIT(256);
	struct stat fs, ms;
	char *md5path = xasprintf("%s.md5", path), *sp, *nl;
	bool ok = false;
	size_t i;

	if (stat(path, &fs) || stat(md5path, &ms) || ms.st_mtime < fs.st_mtime)
		goto out;
	if (read_file(md5path, 255, &b))
		goto out;
	sp = strchr(b.buf ? b.buf : "", ' ');
	if (!sp || sp - b.buf != MD5_HEX_LEN)
		goto out;
	*sp = '\0';
	nl = strchr(sp + 1, '\n');
	if (!nl || nl[1])
		goto out;
	*nl = '\0';
	for (i = 0; i < MD5_HEX_LEN; i++)
		if (!strchr("0123456789abcdef", b.buf[i]))
			goto out;
	if (parse_double(sp + 1, nbytes) || *nbytes < 0 || *nbytes != (double)fs.st_size)
		goto out;
	memcpy(md5, b.buf, MD5_HEX_LEN + 1);
	ok = true;
out:
	sbuf_release(&b);
	free(md5path);
	return ok;
}

static int write_md5_sidecar(const char *path, const char *md5, double nbytes)
{
	char *md5path = xasprintf("%s.md5", path);
	char *text = xasprintf("%s %.0f\n", md5, nbytes);
	int r = write_file_atomic(md5path, text, strlen(text), 0644);

	free(md5path);
	free(text);
	return r;
}

/* md5 and size of a file in the hierarchy: from its sidecar, else computed (and kept). */
static int staged_md5(const char *path, char md5[MD5_HEX_LEN + 1], double *nbytes)
{
	long long n;

	if (read_md5_sidecar(path, md5, nbytes))
		return 0;
	if (md5_file(path, md5, &n))
		return -1;
	*nbytes = (double)n;
	return write_md5_sidecar(path, md5, *nbytes);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int work_staged_file(const struct project_config *cfg, const char *name, struct work_file *out)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), url = SBUF_INIT(PATH_MAX + 1024);
	struct stat st;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!dirhier_name_ok(name))
		log_error("\"%s\" cannot be a physical file name", name);
	else if (dirhier_path(name, cfg->download_dir, cfg->uldl_dir_fanout, false, &path))
		;
	else if (stat(path.buf, &st) != 0 || !S_ISREG(st.st_mode))
		log_error("input file %s not found (neither a local file nor staged in %s)", name,
			  cfg->download_dir);
	else if (staged_md5(path.buf, out->md5, &out->nbytes) == 0 &&
		 dirhier_url(name, cfg->download_url, cfg->uldl_dir_fanout, &url) == 0)
		rc = 0;
	if (rc == 0) {
		out->name = xstrdup(name);
		out->path = sbuf_detach(&path, NULL);
		out->url = sbuf_detach(&url, NULL);
	}
	sbuf_release(&path);
	sbuf_release(&url);
	return rc;
}

int work_stage_input(const struct project_config *cfg, const char *arg,
		     const char *phys_name, struct work_file *out)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), url = SBUF_INIT(PATH_MAX + 1024);
	struct stat st;
	char md5[MD5_HEX_LEN + 1];
	long long n;
	int st_rc = stat(arg, &st), st_errno = errno;
	bool local = st_rc == 0 && S_ISREG(st.st_mode);
	const char *name;

	memset(out, 0, sizeof(*out));
	if (!local && (strchr(arg, '/') || phys_name))
		return log_error("input file %s: %s", arg,
				 st_rc ? strerror(st_errno) : "not a regular file");
	name = phys_name ? phys_name : base_name(arg);
	if (!dirhier_name_ok(name))
		return log_error("input file %s: \"%s\" cannot be a physical file name", arg, name);
	if (dirhier_path(name, cfg->download_dir, cfg->uldl_dir_fanout, local, &path))
		goto fail;
	if (local) {
		if (md5_file(arg, out->md5, &n))
			goto fail;
		out->nbytes = (double)n;
		if (stat(path.buf, &st) == 0) {
			/* already staged: files are immutable, so it must be the same file */
			if (staged_md5(path.buf, md5, &out->nbytes))
				goto fail;
			if (strcmp(md5, out->md5) || out->nbytes != (double)n) {
				log_error("file immutability violation for %s: %s differs from the "
					  "file already in the download directory", name, arg);
				goto fail;
			}
		} else {
			if (copy_file(arg, path.buf, 0644))
				goto fail;
			out->staged = true;
			if (write_md5_sidecar(path.buf, out->md5, out->nbytes)) {
				unlink(path.buf);
				goto fail;
			}
		}
	} else {
		sbuf_release(&path);
		sbuf_release(&url);
		return work_staged_file(cfg, name, out);
	}
	if (dirhier_url(name, cfg->download_url, cfg->uldl_dir_fanout, &url))
		goto fail;
	out->name = xstrdup(name);
	out->path = sbuf_detach(&path, NULL);
	out->url = sbuf_detach(&url, NULL);
	return 0;
fail:
	if (out->staged) {
		out->path = sbuf_detach(&path, NULL);
		work_unstage_input(out);
	}
	sbuf_release(&path);
	sbuf_release(&url);
	work_file_release(out);
	return -1;
}

int work_stage_buffer(const struct project_config *cfg, const char *name, const void *data,
		      size_t len, struct work_file *out)
{
	struct sbuf path = SBUF_INIT(PATH_MAX), url = SBUF_INIT(PATH_MAX + 1024);
	char md5[MD5_HEX_LEN + 1];
	struct stat st;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!dirhier_name_ok(name))
		return log_error("\"%s\" cannot be a physical file name", name);
	md5_buf(data, len, out->md5);
	out->nbytes = (double)len;
	if (dirhier_path(name, cfg->download_dir, cfg->uldl_dir_fanout, true, &path))
		goto out;
	if (stat(path.buf, &st) == 0) {
		double n;

		if (staged_md5(path.buf, md5, &n))
			goto out;
		if (strcmp(md5, out->md5) || n != (double)len) {
			log_error("file immutability violation for %s", name);
			rc = 1;
			goto out;
		}
	} else {
		if (write_file_atomic(path.buf, data, len, 0644))
			goto out;
		out->staged = true;
		if (write_md5_sidecar(path.buf, out->md5, out->nbytes)) {
			unlink(path.buf);
			goto out;
		}
	}
	if (dirhier_url(name, cfg->download_url, cfg->uldl_dir_fanout, &url))
		goto out;
	out->name = xstrdup(name);
	out->path = sbuf_detach(&path, NULL);
	out->url = sbuf_detach(&url, NULL);
	rc = 0;
out:
	sbuf_release(&path);
	sbuf_release(&url);
	if (rc)
		work_file_release(out);
	return rc;
}

/* ---- workunits ----------------------------------------------------------- */

void work_params_init(struct work_params *p)
{
	p->command_line = NULL;
	job_params_unset(&p->jp);
	p->batch = 0;
	p->app_version_num = 0;
	p->credit = 0;
	p->keywords = NULL;
	p->hr_class = 0;
	p->size_class = -1;
	p->wu_id = 0;
	p->target_type = 0;
	p->target_id = 0;
}

int work_create_wu(struct db *db, const char *wu_name, int64_t appid,
		   const struct input_template *tpl, const struct work_file *files,
		   size_t nfiles, const char *result_template_file,
		   const struct work_params *p, struct db_workunit *wu)
{
	struct sbuf doc = SBUF_INIT(TEMPLATE_MAX);
	struct template_infile stack_in[8], *in = stack_in;
	struct job_params jp;
	int64_t id;
	size_t i;
	int rc = -1;

	if (!dirhier_name_ok(wu_name) || strlen(wu_name) > WU_NAME_MAX)
		return log_error("bad workunit name \"%s\" (a file name of at most %d "
				 "characters: its results and their files are named after it)",
				 wu_name, WU_NAME_MAX);
	job_params_boinc_defaults(&jp);
	job_params_override(&jp, &tpl->params);
	job_params_override(&jp, &p->jp);
	if (job_params_finish(&jp))
		return log_error("workunit %s: bad job parameters", wu_name);
	if (nfiles > ARRAY_SIZE(stack_in))
		in = xcalloc(nfiles, sizeof(*in));
	for (i = 0; i < nfiles; i++) {
		in[i].name = files[i].name;
		in[i].url = files[i].url;
		in[i].md5 = files[i].md5;
		in[i].nbytes = files[i].nbytes;
	}
	if (input_template_process(tpl, in, nfiles, p->command_line, &doc))
		goto out;

	/* a clear error for the usual mistake, rather than the database's */
	rc = db_workunit_id_by_name(db, wu_name, &id);
	if (rc == DB_OK) {
		rc = log_error("workunit %s already exists", wu_name);
		goto out;
	}
	if (rc == DB_NOT_FOUND && p->wu_id) {
		struct db_workunit other = { 0 };

		rc = db_workunit_lookup_id(db, p->wu_id, &other);
		db_workunit_release(&other);
		if (rc == DB_OK) {
			rc = log_error("workunit %s: id %" PRId64 " is taken", wu_name, p->wu_id);
			goto out;
		}
	}
	if (rc != DB_NOT_FOUND) {
		rc = rc == DB_RETRY ? DB_RETRY : -1;
		goto out;
	}
	db_workunit_release(wu);
	memset(wu, 0, sizeof(*wu));
	wu->id = p->wu_id;
	wu->create_time = now();
	wu->appid = appid;
	wu->name = xstrdup(wu_name);
	wu->xml_doc = sbuf_detach(&doc, NULL);
	wu->batch = p->batch;
	wu->app_version_num = p->app_version_num;
	wu->rsc_fpops_est = jp.rsc_fpops_est;
	wu->rsc_fpops_bound = jp.rsc_fpops_bound;
	wu->rsc_memory_bound = jp.rsc_memory_bound;
	wu->rsc_disk_bound = jp.rsc_disk_bound;
	wu->delay_bound = jp.delay_bound;
	wu->min_quorum = jp.min_quorum;
	wu->target_nresults = jp.target_nresults;
	wu->max_error_results = jp.max_error_results;
	wu->max_total_results = jp.max_total_results;
	wu->max_success_results = jp.max_success_results;
	wu->priority = jp.priority;
	wu->result_template_file = xstrdup(result_template_file);
	wu->transition_time = wu->create_time;
	wu->canonical_credit = p->credit;
	wu->keywords = xstrdup(p->keywords ? p->keywords : "");
	wu->hr_class = p->hr_class;
	wu->size_class = p->size_class;
	if (p->target_type)
		wu->transitioner_flags = WU_ASSIGNED;
	rc = db_workunit_insert(db, wu);
	if (rc == DB_OK && p->target_type) {
		struct db_assignment a = { 0 };

		a.create_time = wu->create_time;
		a.target_type = p->target_type;
		a.target_id = p->target_id;
		a.workunitid = wu->id;
		rc = db_assignment_insert(db, &a);
	}
	if (rc != DB_OK)
		rc = rc == DB_RETRY ? DB_RETRY : -1;
out:
	if (in != stack_in)
		free(in);
	sbuf_release(&doc);
	return rc;
}

/* ---- results ------------------------------------------------------------- */

/* Parsed result templates by path: the transitioner makes many results from few. */
struct tpl_cache_entry {
	char *path;
	struct result_template t;
};

static struct tpl_cache_entry *tpl_cache;
static size_t tpl_cache_n;

void work_template_cache_clear(void)
{
	size_t i;

	for (i = 0; i < tpl_cache_n; i++) {
		free(tpl_cache[i].path);
		result_template_release(&tpl_cache[i].t);
	}
	free(tpl_cache);
	tpl_cache = NULL;
	tpl_cache_n = 0;
}

static const struct result_template *cached_template(const struct project_config *cfg,
						     const char *file)
{
	struct result_template t;
	char *path;
	size_t i;

	if (!file || !*file) {
		log_error("workunit has no result template");
		return NULL;
	}
	path = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", cfg->project_dir, file);
	for (i = 0; i < tpl_cache_n; i++)
		if (strcmp(tpl_cache[i].path, path) == 0) {
			free(path);
			return &tpl_cache[i].t;
		}
	if (result_template_load(path, &t)) {
		free(path);
		return NULL;
	}
	if (tpl_cache_n == 0)
		atexit(work_template_cache_clear);
	ARRAY_GROW(tpl_cache, tpl_cache_n);
	tpl_cache[tpl_cache_n].path = path;
	tpl_cache[tpl_cache_n].t = t;
	return &tpl_cache[tpl_cache_n++].t;
}

int64_t work_safety_net(const struct db_workunit *wu, int64_t t)
{
	int64_t wait = (int64_t)(1.5 * wu->delay_bound);

	return t + (wait > WORK_SAFETY_NET_MIN ? wait : WORK_SAFETY_NET_MIN);
}

int work_result_init(const struct project_config *cfg, const struct db_workunit *wu, int64_t n,
		     struct db_result *out)
{
	const struct result_template *t = cached_template(cfg, wu->result_template_file);
	struct sbuf doc = SBUF_INIT(TEMPLATE_MAX);
	unsigned char rnd[4];
	char hex[9];
	int i;

	db_result_release(out);
	memset(out, 0, sizeof(*out));
	if (!t || random_hex(hex, 4))
		return log_error("workunit %s: cannot make a result", wu->name);
	for (i = 0; i < 4; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		rnd[i] = (unsigned char)v;
	}
	out->name = xasprintf("%s_%" PRId64, wu->name, n);
	if (result_template_process(t, out->name, cfg->upload_url, &doc)) {
		sbuf_release(&doc);
		return log_error("workunit %s: cannot make a result", wu->name);
	}
	out->create_time = now();
	out->workunitid = wu->id;
	out->appid = wu->appid;
	/* an assigned job's results wait, out of other hosts' way, for the scheduler's target pass */
	out->server_state = wu->transitioner_flags & WU_ASSIGNED ? RESULT_SERVER_STATE_INACTIVE
								  : RESULT_SERVER_STATE_UNSENT;
	out->outcome = RESULT_OUTCOME_INIT;
	out->validate_state = VALIDATE_STATE_INIT;
	out->file_delete_state = FILE_DELETE_INIT;
	out->batch = wu->batch;
	out->priority = wu->priority;
	out->seq_id = wu->seq_id;
	out->size_class = wu->size_class;
	out->random = (int)(((unsigned)rnd[0] << 23) | ((unsigned)rnd[1] << 15) |
			    ((unsigned)rnd[2] << 7) | (rnd[3] >> 1));
	out->xml_doc_in = sbuf_detach(&doc, NULL);
	work_certify_outputs(cfg, out);
	return 0;
}

void work_certify_outputs(const struct project_config *cfg, struct db_result *r)
{
	EVP_PKEY *key = cfg->ignore_upload_certificates ? NULL : upload_cert_key(cfg->key_dir);
	struct sbuf doc = SBUF_INIT(TEMPLATE_MAX);

	if (key && r->xml_doc_in && upload_cert_sign_doc(r->xml_doc_in, key, &doc) == 0) {
		free(r->xml_doc_in);
		r->xml_doc_in = sbuf_detach(&doc, NULL);
	}
	sbuf_release(&doc);
}

int work_create_result(struct db *db, const struct project_config *cfg,
		       const struct db_workunit *wu, struct db_result *out)
{
	int64_t n;
	int rc, tries;

	rc = db_result_count_workunit(db, wu->id, &n);
	if (rc != DB_OK)
		return rc == DB_RETRY ? DB_RETRY : -1;
	/* a name may be taken if results were deleted: try the next indices */
	for (tries = 0; tries < 100; tries++, n++) {
		if (work_result_init(cfg, wu, n, out) < 0)
			return -1;
		rc = db_result_insert(db, out);
		if (rc == DB_OK || db_errno(db) != 1062)
			break;
	}
	if (rc != DB_OK)
		return rc == DB_RETRY ? DB_RETRY :
			log_error("workunit %s: cannot insert result %s", wu->name, out->name);
	return 0;
}
