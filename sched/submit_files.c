/*
 * job_file.php: query_files and upload_files, the submitter's job files
 * (content-addressed input files in the download hierarchy, recorded in
 * job_file and tied to batches by batch_file_assoc).
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "md5.h"
#include "wtime.h"
#include "work.h"

#include <ctype.h>
#include <sys/stat.h>

/* ---- job files (job_file.php) ------------------------------------------------------ */

/* ^[A-Za-z0-9_. -]{1,255}$, and never "." or ".." (it would name a directory). */
bool submit_job_file_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n > 255 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_. -", s[i]))
			return false;
	return dirhier_name_ok(s);
}

/* Record the file as known until delete_time (raised, never lowered), tied to batch. */
static int note_job_file(struct rpc *r, const char *name, double delete_time, int64_t batch)
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
	db_job_file_free(&jf);
	return rc == DB_OK ? 0 : submit_fail(r, "database error");
}

/* Common to query_files and upload_files: auth, batch, lease and names. */
struct file_req {
	int64_t batch;
	double delete_time;
	char **names;
	size_t n;
};

static void file_req_free(struct file_req *q)
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
	if (!rc && submit_child_id(r->root, "batch_id") > 0) {
		rc = submit_owned_batch(r, r->root, &b);
		q->batch = b.id;
	}
	q->delete_time = submit_child_double(r->root, "delete_time", 0);
	xml_for_each(n, r->root, "phys_name") {
		char *name = xml_text(n);

		q->names = xrealloc(q->names, (q->n + 1) * sizeof(*q->names));
		q->names[q->n++] = name;
		if (!rc && !submit_job_file_name_ok(name))
			rc = submit_fail(r, "bad filename");
	}
	db_batch_free(&b);
	return rc;
}

int submit_do_query_files(struct rpc *r)
{
	struct file_req q;
	struct sbuf path = SBUF_INIT(PATH_MAX);
	size_t i;
	int rc = file_req_parse(r, &q);

	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_fail(r, "database error");
	if (!rc)
		sbuf_addstr(r->body, "<absent_files>\n");
	for (i = 0; !rc && i < q.n; i++) {
		struct stat st;
		struct db_job_file jf = { 0 };

		sbuf_reset(&path);
		if (dirhier_path(q.names[i], r->c->cfg->download_dir, r->c->cfg->uldl_dir_fanout,
				 false, &path) == 0 && stat(sbuf_str(&path), &st) == 0) {
			rc = note_job_file(r, q.names[i], q.delete_time, q.batch);
			continue;
		}
		/* A stale row whose file is gone goes with it. */
		if (db_job_file_lookup_name(r->c->db, q.names[i], &jf) == DB_OK &&
		    db_job_file_delete(r->c->db, &jf) != DB_OK)
			rc = submit_fail(r, "database error");
		db_job_file_free(&jf);
		sbuf_addf(r->body, "    <file>%zu</file>\n", i);
	}
	if (!rc)
		sbuf_addstr(r->body, "</absent_files>\n");
	if (r->c->db && !rc && db_commit(r->c->db) != DB_OK)
		rc = submit_fail(r, "database error");
	if (rc && r->c->db)
		db_rollback(r->c->db);
	sbuf_free(&path);
	file_req_free(&q);
	return rc;
}

/* A name "<32 hex digits>..." promises its content's MD5 (boinc_gahp names files so). */
static bool md5_named(const char *name, const char *md5)
{
	size_t i;

	for (i = 0; i < MD5_HEX_LEN; i++)
		if (!isxdigit((unsigned char)name[i]))
			return false;
	return name[i] == 0 || name[i] == '.' ? strncasecmp(name, md5, MD5_HEX_LEN) != 0 : false;
}

int submit_do_upload_files(struct rpc *r)
{
	struct file_req q;
	size_t i, nparts = 0;
	int rc = file_req_parse(r, &q);

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
		char md5[MD5_HEX_LEN + 1];
		int s;

		snprintf(field, sizeof(field), "file_%zu", i);
		if (!(p = form_get(r->form, field))) {
			rc = submit_fail(r, "no form field %s", field);
			break;
		}
		md5_buf(p->data, p->len, md5);
		if (md5_named(q.names[i], md5)) {
			rc = submit_fail(r, "content of %s does not match its name (truncated upload?)",
				  q.names[i]);
			break;
		}
		s = work_stage_buffer(r->c->cfg, q.names[i], p->data, p->len, &wf);
		if (s > 0)
			rc = submit_fail(r, "file immutability violation for %s", q.names[i]);
		else if (s < 0)
			rc = submit_fail(r, "cannot store %s", q.names[i]);
		work_file_free(&wf);
	}
	if (!rc && db_begin(r->c->db) != DB_OK)
		rc = submit_fail(r, "database error");
	for (i = 0; !rc && i < q.n; i++)
		rc = note_job_file(r, q.names[i], q.delete_time, q.batch);
	if (!rc && db_commit(r->c->db) != DB_OK)
		rc = submit_fail(r, "database error");
	if (rc && r->c->db)
		db_rollback(r->c->db);
	if (!rc) {
		log_info("%zu job files uploaded", q.n);
		sbuf_addstr(r->body, "<success/>\n");
	}
	file_req_free(&q);
	return rc;
}
