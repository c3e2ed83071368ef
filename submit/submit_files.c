/*
 * job_file.php: query_files and upload_files, the submitter's job files
 * (content-addressed input files in the download hierarchy, recorded in
 * job_file and tied to batches by batch_file_assoc).
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "wtime.h"
#include "work.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- job files (job_file.php) ------------------------------------------------------ */

/*
 * A job file is content-addressed: its name promises its content, so a
 * submitter can never name a file of the project's (an app version's
 * executable, an admin's input) nor take a name the project needs later.
 * Why name is not a job file's name, or NULL (and its content's MD5 in
 * md5): "<md5>[.ext]" as boinc_gahp names files, "jf_<md5>[.ext]" as
 * BOINC's own staging does; the MD5 in lower-case hex, ext a dot and 1 to
 * JOB_FILE_EXT_MAX letters, digits, '_' or '-', and not active (field.h):
 * download/ is served as plain downloads anyway (make_project's Apache
 * configuration), and a job file's name never asks for more, wherever it
 * is served from.
 */
const char *submit_job_file_name(const char *name, char md5[MD5_HEX_LEN + 1])
{
	const char *p = name, *e;
	size_t i;

	if (!strncmp(p, "jf_", 3))
		p += 3;
	for (i = 0; i < MD5_HEX_LEN; i++)
		if (!p[i] || !strchr("0123456789abcdef", p[i]))
			return "job files are named by the MD5 of their content "
			       "(<md5>[.ext] or jf_<md5>[.ext], the MD5 in lower-case hex)";
	e = p + MD5_HEX_LEN;
	if (*e) {
		size_t n = strlen(e + 1);

		if (*e != '.' || n < 1 || n > JOB_FILE_EXT_MAX ||
		    strspn(e + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
		    != n)
			return "after the MD5 a job file's name may have one extension "
			       "(a dot and at most 64 letters, digits, '_' or '-')";
		if (field_active_ext(e + 1))
			return "a job file's extension may not be one a browser or a web server "
			       "treats as active content (html, svg, xml, js, php, cgi ...): "
			       "name it .dat, .txt or the like";
	}
	memcpy(md5, p, MD5_HEX_LEN);
	md5[MD5_HEX_LEN] = 0;
	return NULL;
}

int submit_bad_filename(struct rpc *r, const char *name, const char *why)
{
	char *q = submit_quoted(name);
	int rc = submit_fail(r, "bad filename %s: %s", q, why);

	free(q);
	return rc;
}

/* Does name have a job file's form: [jf_]<32 lower-case hex digits>, then nothing or '.'? */
static bool job_file_form(const char *name)
{
	const char *p = strncmp(name, "jf_", 3) ? name : name + 3;
	size_t i;

	for (i = 0; i < MD5_HEX_LEN; i++)
		if (!p[i] || !strchr("0123456789abcdef", p[i]))
			return false;
	return p[i] == 0 || p[i] == '.';
}

const char *submit_area_name(const char *name)
{
	if (strlen(name) > AREA_NAME_MAX || !dirhier_name_ok(name) ||
	    !field_text_ok(name, strlen(name), false))
		return "a file's name is a job file's (<md5>[.ext] or jf_<md5>[.ext]) or one of your "
		       "own: at most 200 bytes of UTF-8, without /, \\, .., control characters or a "
		       "leading . or -";
	return NULL;
}

enum name_kind submit_name_kind(const char *name, const char **why)
{
	char md5[MD5_HEX_LEN + 1];

	if (job_file_form(name)) {
		*why = submit_job_file_name(name, md5);
		return *why ? NAME_BAD : NAME_JOB_FILE;
	}
	*why = submit_area_name(name);
	return *why ? NAME_BAD : NAME_AREA;
}

/* The user's area, or a name in it: PROJECT/sandbox/USERID[/NAME]. */
char *submit_area_path(struct rpc *r, const char *name)
{
	return name ? xasprintf("%s/%s/%lld/%s", r->c->cfg->project_dir, AREA_DIR,
				(long long)r->user.id, name)
		    : xasprintf("%s/%s/%lld", r->c->cfg->project_dir, AREA_DIR,
				(long long)r->user.id);
}

int submit_area_lookup(struct rpc *r, const char *name, char **phys)
{
	char *path = submit_area_path(r, name), buf[128], md5[MD5_HEX_LEN + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc = 0;
	ssize_t n = 0;

	*phys = NULL;
	if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
		rc = log_error("cannot open %s: %s", path, strerror(errno));
		submit_fail(r, "cannot read your file %s (see the server log)", name);
	} else if (fd >= 0) {
		do
			n = read(fd, buf, sizeof(buf) - 1);
		while (n < 0 && errno == EINTR);
		close(fd);
		buf[n > 0 ? n : 0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		/* what only upload_files writes: a job file's name, else the entry is no file */
		if (job_file_form(buf) && !submit_job_file_name(buf, md5)) {
			*phys = xstrdup(buf);
			rc = 1;
		} else {
			log_error("%s does not name a job file: taken as absent", path);
		}
	}
	free(path);
	return rc;
}

int submit_area_link(struct rpc *r, const char *name, const char *phys)
{
	char *dir = submit_area_path(r, NULL), *path = submit_area_path(r, name);
	char *text = xasprintf("%s\n", phys);
	int rc = mkdir_p(dir, 0700);

	if (!rc)
		rc = write_file_atomic(path, text, strlen(text), 0600);
	if (rc)
		submit_fail(r, "cannot store %s (see the server log)", name);
	free(dir);
	free(path);
	free(text);
	return rc ? -1 : 0;
}

/*
 * A job file's name is public enough (a host that ran a job saw it): only
 * who has the content may use it. Tied to another's batches only, it is
 * absent to this user until they upload it -- proof that they hold it.
 */
static enum jf_state whose(struct rpc *r, const struct db_job_file *jf, struct work_file *wf)
{
	int64_t batches = 0, mine = 0;

	if (db_job_file_owners(r->c->db, jf->id, r->user.id, &batches, &mine) != DB_OK) {
		work_file_release(wf);
		return JF_DB_ERROR;
	}
	if (batches > 0 && mine == 0) {
		work_file_release(wf);
		return JF_OTHERS;
	}
	return JF_OK;
}

enum jf_state submit_job_file_find(struct rpc *r, const char *name, struct db_job_file *jf,
				   struct work_file *wf)
{
	return submit_job_file_find_as(r, name, false, jf, wf);
}

enum jf_state submit_job_file_find_as(struct rpc *r, const char *name, bool proven,
				      struct db_job_file *jf, struct work_file *wf)
{
	char want[MD5_HEX_LEN + 1];
	struct sbuf path = SBUF_INIT(PATH_MAX);
	struct stat st;
	bool on_disk;
	int rc;

	memset(wf, 0, sizeof(*wf));
	if (submit_job_file_name(name, want) || dirhier_path(name, r->c->cfg->download_dir,
							    r->c->cfg->uldl_dir_fanout, false, &path)) {
		sbuf_release(&path);
		return JF_ABSENT;       /* the callers checked the name */
	}
	on_disk = stat(sbuf_str(&path), &st) == 0;
	sbuf_release(&path);
	rc = db_job_file_lookup_name(r->c->db, name, jf);
	if (rc != DB_OK && rc != DB_NOT_FOUND)
		return JF_DB_ERROR;
	if (!on_disk)
		return JF_ABSENT;
	if (rc == DB_NOT_FOUND)
		return JF_PROJECT;
	if (work_staged_file(r->c->cfg, name, wf) < 0)
		return JF_ABSENT;
	if (strcmp(wf->md5, want)) {
		log_error("job file %s on the server does not match its name (MD5 %s)", name, wf->md5);
		work_file_release(wf);
		return JF_BAD;
	}
	return proven ? JF_OK : whose(r, jf, wf);
}

int submit_note_job_file(struct rpc *r, const char *name, double delete_time, int64_t batch)
{
	struct db_job_file jf = { 0 };
	int rc = db_job_file_lookup_name(r->c->db, name, &jf);

	if (rc == DB_NOT_FOUND) {
		jf.name = xstrdup(name);
		jf.create_time = (double)now();
		jf.delete_time = delete_time;
		rc = db_job_file_insert(r->c->db, &jf);
	} else if (rc == DB_OK && delete_time > jf.delete_time) {
		jf.delete_time = delete_time;
		rc = db_job_file_update(r->c->db, &jf);
	}
	if (rc == DB_OK && batch > 0)
		rc = db_batch_file_assoc_add(r->c->db, jf.id, batch);
	db_job_file_release(&jf);
	return rc == DB_OK ? 0 : submit_db_fail(r);
}

/* Common to query_files and upload_files: auth, batch, lease and names. */
struct file_req {
	int64_t batch;
	double delete_time;
	char **names;
	size_t n;
};

static void file_req_release(struct file_req *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q->names[i]);
	free(q->names);
}

static int file_req_parse(struct rpc *r, struct file_req *q)
{
	struct db_batch b = { 0 };
	xmlNode *n;
	int rc = submit_authenticate(r);

	memset(q, 0, sizeof(*q));
	if (!rc)
		rc = submit_may_submit(r, 0);
	if (!rc)
		rc = submit_int(r, r->root, "batch_id", 0, INT64_MAX, &q->batch);
	if (!rc && q->batch > 0) {
		rc = submit_owned_batch(r, r->root, &b);
		q->batch = b.id;
	}
	if (!rc)
		rc = submit_num(r, r->root, "delete_time", 0, SUBMIT_TIME_MAX, &q->delete_time);
	/*
	 * A file named without a batch is kept at least JOB_FILE_GRACE from now,
	 * whatever the request says: submit_api.py sends no delete_time, and the
	 * submit_batch that ties the file to a batch comes later.
	 */
	if (!rc && q->batch <= 0 && q->delete_time < dnow() + JOB_FILE_GRACE)
		q->delete_time = dnow() + JOB_FILE_GRACE;
	xml_for_each(n, r->root, "phys_name") {
		char *name = xml_text(n);
		const char *why;

		ARRAY_GROW(q->names, q->n);
		q->names[q->n++] = name;
		if (!rc && submit_name_kind(name, &why) == NAME_BAD)
			rc = submit_bad_filename(r, name, why);
	}
	db_batch_release(&b);
	return rc;
}

/*
 * Present: a job file (a job_file row) whose content on the server is what
 * its name says. A file of the project's of that name is absent to the
 * submitter, and stays the project's: upload_files refuses the name.
 */
int submit_do_query_files(struct rpc *r)
{
	struct file_req q;
	size_t i;
	int rc = file_req_parse(r, &q);

	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	if (!rc)
		sbuf_addstr(r->body, "<absent_files>\n");
	for (i = 0; !rc && i < q.n; i++) {
		struct db_job_file jf = { 0 };
		struct work_file wf;
		const char *why, *name = q.names[i];
		char *phys = NULL;
		/* a name of the user's own stands for the job file it was uploaded as */
		bool area = submit_name_kind(name, &why) == NAME_AREA;
		int got = area ? submit_area_lookup(r, name, &phys) : 1;

		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 0) {
			sbuf_addf(r->body, "    <file>%zu</file>\n", i);
			continue;
		}
		if (area)
			name = phys;
		switch (submit_job_file_find_as(r, name, area, &jf, &wf)) {
		case JF_OK:
			rc = submit_note_job_file(r, name, q.delete_time, q.batch);
			break;
		case JF_ABSENT:
			/* a stale row whose file is gone goes with it */
			if (jf.id && db_job_file_delete(r->c->db, &jf) != DB_OK)
				rc = submit_db_fail(r);
			sbuf_addf(r->body, "    <file>%zu</file>\n", i);
			break;
		case JF_PROJECT:
		case JF_OTHERS:
		case JF_BAD:
			sbuf_addf(r->body, "    <file>%zu</file>\n", i);
			break;
		case JF_DB_ERROR:
			rc = submit_db_fail(r);
			break;
		}
		db_job_file_release(&jf);
		work_file_release(&wf);
		free(phys);
	}
	if (!rc)
		sbuf_addstr(r->body, "</absent_files>\n");
	if (r->c->db && !rc && db_commit(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	if (rc && r->c->db)
		db_rollback(r->c->db);
	file_req_release(&q);
	return rc;
}

int submit_store_check(struct rpc *r, const char *name)
{
	struct db_job_file jf = { 0 };
	struct work_file wf;
	enum jf_state s = submit_job_file_find(r, name, &jf, &wf);
	char *q;
	int rc = 0;

	db_job_file_release(&jf);
	work_file_release(&wf);
	if (s == JF_DB_ERROR)
		return submit_db_fail(r);
	if (s != JF_PROJECT)
		return 0;
	q = submit_quoted(name);
	rc = submit_fail(r, "%s: the project has a file of that name that is not a job file", q);
	free(q);
	return rc;
}

int submit_do_upload_files(struct rpc *r)
{
	struct file_req q;
	size_t i, nparts = 0;
	int rc = file_req_parse(r, &q);
	char **phys = xcalloc(q.n + 1, sizeof(*phys));
	bool *area = xcalloc(q.n + 1, sizeof(*area));

	for (i = 0; i < r->form->n; i++)
		if (!strncmp(r->form->parts[i].name, "file_", 5))
			nparts++;
	if (!rc && nparts != q.n)
		rc = submit_fail(r, "# of uploaded files (%zu) does not agree with the request (%zu)", nparts,
			  q.n);
	for (i = 0; !rc && i < q.n; i++) {
		char field[32];
		const struct form_part *p;
		struct work_file wf;
		char md5[MD5_HEX_LEN + 1], want[MD5_HEX_LEN + 1];
		const char *why;
		int s;

		snprintf(field, sizeof(field), "file_%zu", i);
		if (!(p = form_get(r->form, field))) {
			rc = submit_fail(r, "no form field %s", field);
			break;
		}
		md5_buf(p->data, p->len, md5);
		area[i] = submit_name_kind(q.names[i], &why) == NAME_AREA;
		if (area[i]) {
			/* a name of the user's own: the content goes to its job file, jf_<md5> */
			phys[i] = xasprintf("jf_%s", md5);
		} else {
			phys[i] = xstrdup(q.names[i]);
			submit_job_file_name(q.names[i], want);
			if (strcmp(md5, want)) {
				rc = submit_fail(r, "content of %s does not match its name (truncated "
						 "upload?)", q.names[i]);
				break;
			}
		}
		if ((rc = submit_store_check(r, phys[i])) != 0)
			break;
		s = work_stage_buffer(r->c->cfg, phys[i], p->data, p->len, &wf);
		if (s > 0)
			rc = submit_fail(r, "file immutability violation for %s", q.names[i]);
		else if (s < 0)
			rc = submit_fail(r, "cannot store %s", q.names[i]);
		work_file_release(&wf);
	}
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	for (i = 0; !rc && i < q.n; i++)
		rc = submit_note_job_file(r, phys[i], q.delete_time, q.batch);
	if (!rc && db_commit(r->c->db) != DB_OK)
		rc = submit_db_fail(r);
	if (rc && r->c->db)
		db_rollback(r->c->db);
	/* the names of the user's own once their files are recorded */
	for (i = 0; !rc && i < q.n; i++)
		if (area[i])
			rc = submit_area_link(r, q.names[i], phys[i]);
	if (!rc) {
		log_info("%zu job files uploaded", q.n);
		sbuf_addstr(r->body, "<success/>\n");
	}
	for (i = 0; i < q.n; i++)
		free(phys[i]);
	free(phys);
	free(area);
	file_req_release(&q);
	return rc;
}
