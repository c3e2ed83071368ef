/*
 * get_output.php and get_output2.php: the output files of a submitter's
 * jobs, from the upload hierarchy, as the HTTP body -- one file, or a zip
 * of a job's or a batch's (lib/zip.h, streamed file by file) -- and errors
 * as 4xx/503 text "ERROR: ...". Both URLs answer every command:
 *
 *   get_output.php (lib/submit_api.py, boinc_gahp), the credential auth_str:
 *     workunit_file  wu_name file_num  auth_str = the authenticator
 *     result_file    result_name file_num  auth_str = md5(authenticator . result_name)
 *     workunit_files wu_id         auth_str = md5(authenticator . wu_id)     (zip)
 *     batch_files    batch_id      auth_str = md5(authenticator . batch_id)  (zip)
 *   get_output2.php (the web submission pages), the credential auth:
 *     file result_id file_num, result result_id, workunit wu_id, batch batch_id
 *
 * The credential must be the one of the owner of the batch the job is in;
 * anything else is refused and changes nothing. What a host made is served
 * as a download, never as a page: a fixed type, as an attachment, with the
 * headers of untrusted content (serve.h), errors included.
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "sequence.h"
#include "serve.h"
#include "zipstream.h"

#include <fcntl.h>
#include <sys/stat.h>

/* Output files are counted in a result's template: a few, never millions. */
#define FILE_NUM_MAX 100000

/* ---- the output files of a result ------------------------------------------------------ */

void submit_outfiles_release(struct outfiles *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		free(o->v[i].phys);
		free(o->v[i].log);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static void outfiles_add(struct outfiles *o, char *phys, char *log)
{
	ARRAY_GROW(o->v, o->n);
	o->v[o->n].phys = phys;
	o->v[o->n].log = log ? log : xstrdup(phys);
	o->n++;
}

int submit_result_outfiles(const struct db_result *res, struct outfiles *o)
{
	/* xml_doc_in is a list of elements (file_infos, then <result>): wrap it */
	char *text = xasprintf("<r>%s</r>", res->xml_doc_in ? res->xml_doc_in : "");
	xmlDoc *doc = xml_read_memory(text, strlen(text), "xml_doc_in", NULL);
	xmlNode *root, *fi, *fr;

	memset(o, 0, sizeof(*o));
	free(text);
	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	xml_for_each(fi, root, "file_info") {
		char *name = xml_child_text(fi, "name"), *log = NULL;

		if (!name || !*name) {
			free(name);
			continue;
		}
		/* its open name: the file_ref of <result> that names it */
		xml_for_each(fr, xml_child(root, "result"), "file_ref") {
			char *fname = xml_child_text(fr, "file_name");
			bool same = fname && !strcmp(fname, name);

			free(fname);
			if (same) {
				log = xml_child_text(fr, "open_name");
				break;
			}
		}
		if (log && !*log) {
			free(log);
			log = NULL;
		}
		outfiles_add(o, name, log);
	}
	xmlFreeDoc(doc);
	return 0;
}

/* An ended sequence's outputs: its last segment's answers and states, by open name. */
static void seq_outfiles(const struct submit_ctx *c, const struct db_sequence *s,
			 struct outfiles *o)
{
	char *files[2 * SEQ_MAX_FILES], *open[2 * SEQ_MAX_FILES];
	size_t n = s->state == SEQ_STATE_ENDED ? submit_seq_outputs(c->cfg, s, files, open) : 0, i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < n; i++)
		outfiles_add(o, files[i], open[i]);
}

/* ---- one request ------------------------------------------------------------------------- */

struct get {
	const struct submit_ctx *c;
	const struct form *q;
	FILE *fp;
	bool answered;          /* headers written: an error can no longer be told */
};

static const char *addr(const struct get *g)
{
	return g->c->remote_addr ? g->c->remote_addr : "?";
}

static int fail(struct get *g, int status, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(struct get *g, int status, const char *fmt, ...)
{
	struct sbuf msg = SBUF_INIT(4096), q = SBUF_INIT(4 * 4096 + 8);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* the message may quote what the client sent: no control bytes in the log */
	field_quote(&q, sbuf_str(&msg), 1000);
	if (status >= 500)
		log_error("[%s] get_output: %s", addr(g), sbuf_str(&q));
	else
		log_warn("[%s] get_output: %s", addr(g), sbuf_str(&q));
	if (!g->answered)
		fprintf(g->fp, "Status: %d\r\nContent-Type: text/plain\r\n" SERVE_UNTRUSTED_HEADERS
			"\r\nERROR: %s\n", status, sbuf_str(&q));
	g->answered = true;
	sbuf_release(&msg);
	sbuf_release(&q);
	return -1;
}

static int db_fail(struct get *g)
{
	return fail(g, 503, "the project database is unavailable; try again later");
}

/* A required argument: a name, or an id (>= 1), or a file number. */
static int arg_str(struct get *g, const char *name, char **out)
{
	char *v = form_value(g->q, name);
	struct sbuf why = SBUF_INIT(1024);
	int rc = 0;

	*out = NULL;
	if (!v || !*v)
		rc = fail(g, 400, "missing %s", name);
	else if (field_str(name, v, FIELD_COLUMN_CHARS, 0, out, &why) != FIELD_OK)
		rc = fail(g, 400, "%s", sbuf_str(&why));
	free(v);
	sbuf_release(&why);
	return rc;
}

static int arg_int(struct get *g, const char *name, int64_t min, int64_t max, int64_t *out)
{
	char *v = form_value(g->q, name);
	struct sbuf why = SBUF_INIT(1024);
	int rc = 0;

	if (!v || !*v)
		rc = fail(g, 400, "missing %s", name);
	else if (field_int64(name, v, min, max, 0, out, &why) != FIELD_OK)
		rc = fail(g, 400, "%s", sbuf_str(&why));
	free(v);
	sbuf_release(&why);
	return rc;
}

/* Equal strings, in a time that does not tell how much of them agreed. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/*
 * The request's credential (its argument cred_arg) must be that of the
 * owner of batch_id: the authenticator itself (salt NULL), or
 * md5(authenticator . salt). The batch is left in *b.
 */
static int check_owner(struct get *g, int64_t batch_id, const char *cred_arg, const char *salt,
		       const char *what, struct db_batch *b)
{
	struct db_user owner = { 0 };
	char *cred = form_value(g->q, cred_arg), hex[MD5_HEX_LEN + 1];
	int rc;

	if (!cred || !*cred) {
		free(cred);
		return fail(g, 400, "missing %s", cred_arg);
	}
	if (!batch_id)
		rc = fail(g, 404, "%s is not in a batch", what);
	else if ((rc = db_batch_lookup_id(g->c->db, batch_id, b)) == DB_NOT_FOUND)
		rc = fail(g, 404, "no batch %lld", (long long)batch_id);
	else if (rc != DB_OK)
		rc = db_fail(g);
	else if ((rc = db_user_lookup_id(g->c->db, b->user_id, &owner)) == DB_NOT_FOUND)
		rc = fail(g, 404, "no owner of batch %lld", (long long)batch_id);
	else if (rc != DB_OK)
		rc = db_fail(g);
	if (!rc && salt) {
		char *s = xasprintf("%s%s", owner.authenticator ? owner.authenticator : "", salt);

		if (md5_buf(s, strlen(s), hex) < 0 || !same_secret(cred, hex))
			rc = fail(g, 403, "bad authenticator for %s", what);
		free(s);
	} else if (!rc && (!owner.authenticator || !same_secret(cred, owner.authenticator))) {
		rc = fail(g, 403, "bad authenticator for %s", what);
	}
	free(cred);
	db_user_release(&owner);
	return rc ? -1 : 0;
}

/* A name for a header or an entry: letters, digits and ._+- kept, '_' for the rest and a leading dot. */
static void safe_name(struct sbuf *out, const char *s)
{
	const char *p;

	if (!*s)
		sbuf_addstr(out, "_");
	for (p = s; *p; p++) {
		char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '+' ||
			  (ch == '.' && p != s);

		sbuf_add(out, ok ? &ch : "_", 1);
	}
}

static int open_output(const struct get *g, const char *phys, struct stat *st)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	int fd = -1;

	if (!dirhier_path(phys, g->c->cfg->upload_dir, g->c->cfg->uldl_dir_fanout, false, &path))
		fd = open(sbuf_str(&path), O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	sbuf_release(&path);
	return fd;
}

/* One output file as the body, offered as download_name (made safe). */
static int send_file(struct get *g, const char *phys, const char *download_name)
{
	struct sbuf name = SBUF_INIT(PATH_MAX);
	struct stat st;
	char buf[65536];
	ssize_t n;
	int fd = open_output(g, phys, &st);

	if (fd < 0) {
		log_error("get_output: output file %s missing", phys);
		return fail(g, 404, "output file missing on the server");
	}
	safe_name(&name, download_name);
	fprintf(g->fp, "Content-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
		       "Content-Disposition: attachment; filename=\"%s\"\r\n"
		       SERVE_UNTRUSTED_HEADERS "\r\n",
		(long long)st.st_size, sbuf_str(&name));
	g->answered = true;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, g->fp) != (size_t)n)
			break;
	close(fd);
	sbuf_release(&name);
	return 0;
}

/* ---- zips ---------------------------------------------------------------------------------- */

static int zip_to_fp(void *arg, const void *buf, size_t n)
{
	return fwrite(buf, 1, n, arg) == n ? 0 : -1;
}

static struct zip_writer *zip_start(struct get *g, const char *zip_name)
{
	struct sbuf name = SBUF_INIT(PATH_MAX);

	safe_name(&name, zip_name);
	fprintf(g->fp, "Content-Type: application/zip\r\n"
		       "Content-Disposition: attachment; filename=\"%s\"\r\n"
		       SERVE_UNTRUSTED_HEADERS "\r\n", sbuf_str(&name));
	g->answered = true;
	sbuf_release(&name);
	return zip_writer_new(zip_to_fp, g->fp);
}

/*
 * Add an output file as the entry dir/name (dir NULL: none), both made
 * safe; a file missing on the server is left out (an output may be
 * optional), a failed write stops the zip.
 */
static int zip_output(struct zip_writer *z, const struct get *g, const char *phys,
		      const char *dir, const char *name)
{
	struct sbuf entry = SBUF_INIT(2 * ZIP_NAME_MAX);
	struct stat st;
	int fd = open_output(g, phys, &st), rc = 0;

	if (fd < 0) {
		log_warn("get_output: output file %s missing: left out of the zip", phys);
		return 0;
	}
	if (dir) {
		safe_name(&entry, dir);
		sbuf_addstr(&entry, "/");
	}
	safe_name(&entry, name);
	rc = zip_add_fd(z, sbuf_str(&entry), fd, st.st_mtime);
	close(fd);
	sbuf_release(&entry);
	return rc;
}

static int zip_end(struct get *g, struct zip_writer *z, int rc)
{
	if (!rc)
		rc = zip_finish(z);
	if (rc)
		log_warn("[%s] get_output: the zip was cut short", addr(g));
	zip_writer_free(z);
	return rc;
}

/*
 * A result's files into z: flat by physical name, or (named) by logical
 * name -- as RESULT__LOG for one file, in the directory RESULT for several.
 */
static int zip_outfiles(struct zip_writer *z, const struct get *g, const char *owner_name,
			const struct outfiles *o, bool named)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < o->n && !rc; i++) {
		if (!named) {
			rc = zip_output(z, g, o->v[i].phys, NULL, o->v[i].phys);
		} else if (o->n == 1) {
			char *flat = xasprintf("%s__%s", owner_name, o->v[i].log);

			rc = zip_output(z, g, o->v[i].phys, NULL, flat);
			free(flat);
		} else {
			rc = zip_output(z, g, o->v[i].phys, owner_name, o->v[i].log);
		}
	}
	return rc;
}

/* ---- the commands ---------------------------------------------------------------------------- */

static int load_result_wu(struct get *g, int64_t result_id, const char *result_name,
			  struct db_result *res, struct db_workunit *wu)
{
	int rc = result_name ? db_result_lookup_name(g->c->db, result_name, res)
			     : db_result_lookup_id(g->c->db, result_id, res);

	if (rc == DB_NOT_FOUND)
		return result_name ? fail(g, 404, "no job instance %s", result_name)
				   : fail(g, 404, "no job instance %lld", (long long)result_id);
	if (rc != DB_OK)
		return db_fail(g);
	rc = db_workunit_lookup_id(g->c->db, res->workunitid, wu);
	if (rc == DB_NOT_FOUND)
		return fail(g, 404, "no job for instance %lld", (long long)res->id);
	return rc == DB_OK ? 0 : db_fail(g);
}

/*
 * A result's files: one (file_num >= 0) or the only one as RESULT__LOG,
 * else a zip RESULT.zip of them by logical name (get_output2.php), or by
 * physical name when flat (get_output.php's workunit_files).
 */
static int send_result(struct get *g, const struct db_result *res, long file_num, bool flat)
{
	struct outfiles o;
	struct zip_writer *z;
	char *dl;
	int rc;

	if (submit_result_outfiles(res, &o) < 0)
		return fail(g, 500, "the files of instance %lld are unreadable", (long long)res->id);
	if (file_num >= 0 && (size_t)file_num >= o.n) {
		rc = fail(g, 404, "bad file num: %ld >= %zu", file_num, o.n);
	} else if (!flat && (file_num >= 0 || o.n == 1)) {
		size_t i = file_num >= 0 ? (size_t)file_num : 0;

		dl = xasprintf("%s__%s", res->name, o.v[i].log);
		rc = send_file(g, o.v[i].phys, dl);
		free(dl);
	} else if (o.n == 0) {
		rc = fail(g, 404, "instance %s has no output files", res->name);
	} else {
		dl = xasprintf("%s.zip", res->name);
		z = zip_start(g, dl);
		free(dl);
		rc = zip_end(g, z, zip_outfiles(z, g, res->name, &o, !flat));
	}
	submit_outfiles_release(&o);
	return rc;
}

/* get_output.php?cmd=workunit_file: the credential is the authenticator; wu_name may name a sequence job. */
static int cmd_workunit_file(struct get *g)
{
	struct db_user user = { 0 };
	struct job j = { 0 };
	struct outfiles o = { 0 };
	struct db_result res = { 0 };
	char *name = NULL, *auth = form_value(g->q, "auth_str");
	int64_t num = 0;
	int rc = arg_str(g, "wu_name", &name);

	if (!rc)
		rc = arg_int(g, "file_num", 0, FILE_NUM_MAX, &num);
	if (!rc && (!auth || !*auth))
		rc = fail(g, 400, "missing auth_str");
	if (!rc && !g->c->db)
		rc = db_fail(g);
	if (!rc && (rc = db_user_lookup_auth(g->c->db, auth, &user)) == DB_NOT_FOUND)
		rc = fail(g, 403, "bad authenticator");
	else if (!rc && rc != DB_OK)
		rc = db_fail(g);
	if (!rc) {
		switch (submit_job_find(g->c->db, user.id, name, &j)) {
		case JOB_OK: break;
		case JOB_NOT_OWNER: rc = fail(g, 403, "not owner of %s", name); break;
		case JOB_DB_ERROR: rc = db_fail(g); break;
		default: rc = fail(g, 404, "no such job %s", name); break;
		}
	}
	if (!rc && j.is_seq) {
		seq_outfiles(g->c, &j.seq, &o);
		if (j.seq.state != SEQ_STATE_ENDED)
			rc = fail(g, 404, "job not done");
	} else if (!rc && !j.wu.canonical_resultid) {
		rc = fail(g, 404, "job has no canonical result");
	} else if (!rc && (rc = db_result_lookup_id(g->c->db, j.wu.canonical_resultid, &res)) != DB_OK) {
		rc = db_fail(g);
	} else if (!rc && submit_result_outfiles(&res, &o) < 0) {
		rc = fail(g, 500, "the files of job %s are unreadable", name);
	}
	if (!rc && (size_t)num >= o.n)
		rc = fail(g, 404, "no such output file");
	if (!rc)
		rc = send_file(g, o.v[num].phys, o.v[num].phys);
	submit_outfiles_release(&o);
	db_result_release(&res);
	submit_job_release(&j);
	db_user_release(&user);
	free(name);
	free(auth);
	return rc;
}

/* get_output.php?cmd=result_file and get_output2.php?cmd=file, cmd=result. */
static int result_cmd(struct get *g, bool by_name, bool one)
{
	struct db_result res = { 0 };
	struct db_workunit wu = { 0 };
	struct db_batch b = { 0 };
	char *name = NULL, what[64];
	int64_t id = 0, num = -1;
	int rc = by_name ? arg_str(g, "result_name", &name)
			 : arg_int(g, "result_id", 1, INT64_MAX, &id);

	if (!rc && one)
		rc = arg_int(g, "file_num", 0, FILE_NUM_MAX, &num);
	if (!rc && !g->c->db)
		rc = db_fail(g);
	if (!rc)
		rc = load_result_wu(g, id, name, &res, &wu);
	snprintf(what, sizeof(what), "instance %lld", (long long)res.id);
	if (!rc)
		rc = check_owner(g, wu.batch, by_name ? "auth_str" : "auth", by_name ? res.name : NULL,
				 what, &b);
	if (!rc)
		rc = send_result(g, &res, (long)num, false);
	db_result_release(&res);
	db_workunit_release(&wu);
	db_batch_release(&b);
	free(name);
	return rc;
}

static int cmd_result_file(struct get *g) { return result_cmd(g, true, true); }
static int cmd_file(struct get *g) { return result_cmd(g, false, true); }
static int cmd_result(struct get *g) { return result_cmd(g, false, false); }

/* get_output.php?cmd=workunit_files (a flat zip) and get_output2.php?cmd=workunit. */
static int workunit_cmd(struct get *g, bool flat)
{
	struct db_workunit wu = { 0 };
	struct db_result res = { 0 };
	struct db_batch b = { 0 };
	char salt[32], what[64];
	int64_t id = 0;
	int rc = arg_int(g, "wu_id", 1, INT64_MAX, &id);

	snprintf(salt, sizeof(salt), "%lld", (long long)id);
	snprintf(what, sizeof(what), "job %lld", (long long)id);
	if (!rc && !g->c->db)
		rc = db_fail(g);
	if (!rc && (rc = db_workunit_lookup_id(g->c->db, id, &wu)) == DB_NOT_FOUND)
		rc = fail(g, 404, "no job %lld", (long long)id);
	else if (!rc && rc != DB_OK)
		rc = db_fail(g);
	if (!rc)
		rc = check_owner(g, wu.batch, flat ? "auth_str" : "auth", flat ? salt : NULL, what, &b);
	if (!rc && !wu.canonical_resultid)
		rc = fail(g, 404, "no canonical result for job %s", wu.name);
	if (!rc && db_result_lookup_id(g->c->db, wu.canonical_resultid, &res) != DB_OK)
		rc = db_fail(g);
	if (!rc && flat) {
		struct outfiles o;
		struct zip_writer *z;
		char *dl = xasprintf("%s.zip", wu.name);

		if (submit_result_outfiles(&res, &o) < 0) {
			rc = fail(g, 500, "the files of job %s are unreadable", wu.name);
		} else {
			z = zip_start(g, dl);
			rc = zip_end(g, z, zip_outfiles(z, g, res.name, &o, false));
			submit_outfiles_release(&o);
		}
		free(dl);
	} else if (!rc) {
		rc = send_result(g, &res, -1, false);
	}
	db_workunit_release(&wu);
	db_result_release(&res);
	db_batch_release(&b);
	return rc;
}

static int cmd_workunit_files(struct get *g) { return workunit_cmd(g, true); }
static int cmd_workunit(struct get *g) { return workunit_cmd(g, false); }

/* The jobs of a batch whose outputs go into its zip, gathered before the zip starts. */
struct batch_jobs {
	int64_t *results;       /* canonical results of its ordinary jobs */
	size_t nresults;
	struct db_sequence *seqs;  /* its ended sequences */
	size_t nseqs;
};

static int take_done_job(struct db_job_status *s, void *arg)
{
	struct batch_jobs *bj = arg;

	if (s->canonical_resultid) {
		ARRAY_GROW(bj->results, bj->nresults);
		bj->results[bj->nresults++] = s->canonical_resultid;
	}
	return 0;
}

static int take_ended_seq(struct db_sequence *s, void *arg)
{
	struct batch_jobs *bj = arg;
	struct db_rows rows = DB_ROWS(bj->seqs, bj->nseqs, 0);

	return s->state == SEQ_STATE_ENDED ? db_rows_take(s, &rows) : 0;
}

static void batch_jobs_release(struct batch_jobs *bj)
{
	size_t i;

	for (i = 0; i < bj->nseqs; i++)
		db_sequence_release(&bj->seqs[i]);
	free(bj->seqs);
	free(bj->results);
}

/*
 * The zip of a batch's outputs: its done jobs' canonical results and its
 * ended sequences, flat by physical name (get_output.php) or by logical
 * name under the instance's name (get_output2.php).
 */
static int batch_zip(struct get *g, const struct db_batch *b, bool named)
{
	struct batch_jobs bj = { 0 };
	struct zip_writer *z;
	char *dl;
	size_t i;
	int rc = 0;

	if (db_job_status_enum_batch(g->c->db, b->id, 0, take_done_job, &bj) != DB_OK ||
	    db_sequence_enum_batch(g->c->db, b->id, 0, take_ended_seq, &bj) != DB_OK) {
		batch_jobs_release(&bj);
		return db_fail(g);
	}
	dl = xasprintf("batch_%lld.zip", (long long)b->id);
	z = zip_start(g, dl);
	free(dl);
	for (i = 0; i < bj.nresults && !rc; i++) {
		struct db_result res = { 0 };
		struct outfiles o;

		if (db_result_lookup_id(g->c->db, bj.results[i], &res) != DB_OK ||
		    submit_result_outfiles(&res, &o) < 0) {
			log_error("get_output: batch %lld: instance %lld unreadable: left out",
				  (long long)b->id, (long long)bj.results[i]);
		} else {
			rc = zip_outfiles(z, g, res.name, &o, named);
			submit_outfiles_release(&o);
		}
		db_result_release(&res);
	}
	for (i = 0; i < bj.nseqs && !rc; i++) {
		struct outfiles o;

		seq_outfiles(g->c, &bj.seqs[i], &o);
		rc = zip_outfiles(z, g, bj.seqs[i].name, &o, named);
		submit_outfiles_release(&o);
	}
	batch_jobs_release(&bj);
	return zip_end(g, z, rc);
}

/* get_output.php?cmd=batch_files (batch_id, or batch_name) and get_output2.php?cmd=batch. */
static int batch_cmd(struct get *g, bool flat)
{
	struct db_batch b = { 0 };
	char salt[32], what[64], *name = NULL, *idv = form_value(g->q, "batch_id");
	int64_t id = 0;
	int rc;

	/* batch_files names the batch by id, or by name */
	if (flat && (!idv || !*idv) && form_get(g->q, "batch_name"))
		rc = arg_str(g, "batch_name", &name);
	else
		rc = arg_int(g, "batch_id", 1, INT64_MAX, &id);
	if (!rc && !g->c->db)
		rc = db_fail(g);
	if (!rc && name) {
		if ((rc = db_batch_lookup_name(g->c->db, name, &b)) == DB_NOT_FOUND)
			rc = fail(g, 404, "no batch %s", name);
		else if (rc != DB_OK)
			rc = db_fail(g);
		id = b.id;
	}
	snprintf(salt, sizeof(salt), "%lld", (long long)id);
	snprintf(what, sizeof(what), "batch %lld", (long long)id);
	if (!rc)
		rc = check_owner(g, id, flat ? "auth_str" : "auth", flat ? salt : NULL, what, &b);
	if (!rc)
		rc = batch_zip(g, &b, !flat);
	db_batch_release(&b);
	free(name);
	free(idv);
	return rc;
}

static int cmd_batch_files(struct get *g) { return batch_cmd(g, true); }
static int cmd_batch(struct get *g) { return batch_cmd(g, false); }

static const struct {
	const char *name;
	int (*fn)(struct get *);
} cmds[] = {
	{ "workunit_file", cmd_workunit_file },
	{ "result_file", cmd_result_file },
	{ "workunit_files", cmd_workunit_files },
	{ "batch_files", cmd_batch_files },
	{ "file", cmd_file },
	{ "result", cmd_result },
	{ "workunit", cmd_workunit },
	{ "batch", cmd_batch },
};

void submit_get_output(const struct submit_ctx *c, const struct form *q, FILE *fp)
{
	struct get g = { .c = c, .q = q, .fp = fp };
	char *cmd = form_value(q, "cmd");
	size_t i;

	for (i = 0; cmd && i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmd, cmds[i].name))
			break;
	if (!cmd || i == ARRAY_SIZE(cmds))
		fail(&g, 400, "unknown or missing cmd");
	else
		cmds[i].fn(&g);
	fflush(fp);
	free(cmd);
}
