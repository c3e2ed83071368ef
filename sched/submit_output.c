/*
 * get_output.php?cmd=workunit_file: an output file of a job of the user's,
 * from the upload hierarchy, as the HTTP body (errors as 4xx text).
 */
#include "submit_int.h"
#include "db.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "sequence.h"

#include <sys/stat.h>

/* ---- get_output.php ------------------------------------------------------------------ */

static void http_error(FILE *fp, int status, const char *msg)
{
	fprintf(fp, "Status: %d\r\nContent-Type: text/plain\r\n\r\nERROR: %s\n", status, msg);
}

/* The name of output file i of result res (its file_infos in order), allocated. */
static char *output_name(const struct db_result *res, long i)
{
	/* xml_doc_in is a list of elements (file_infos, then <result>): wrap it */
	char *text = xasprintf("<r>%s</r>", res->xml_doc_in ? res->xml_doc_in : "");
	xmlDoc *doc = xml_read_memory(text, strlen(text), "xml_doc_in", NULL);
	char *name = NULL;
	xmlNode *n;

	free(text);
	if (!doc)
		return NULL;
	xml_for_each(n, xmlDocGetRootElement(doc), "file_info") {
		if (i-- == 0) {
			name = xml_child_text(n, "name");
			break;
		}
	}
	xmlFreeDoc(doc);
	return name;
}

/* Output file i of a job, allocated: the canonical result's, or a sequence's (seq_outputs). */
static char *job_output_name(const struct submit_ctx *c, const struct job *j, long i, int *status,
			     const char **why)
{
	struct db_result res = { 0 };
	char *name = NULL;

	*status = 404;
	if (j->is_seq) {
		char *files[2 * SEQ_MAX_FILES];
		size_t n = j->seq.state == SEQ_STATE_ENDED ? submit_seq_outputs(c->cfg, &j->seq, files, NULL)
							   : 0, k;

		*why = j->seq.state == SEQ_STATE_ENDED ? "no such output file" : "job not done";
		for (k = 0; k < n; k++) {
			if ((long)k == i)
				name = files[k];
			else
				free(files[k]);
		}
		return name;
	}
	*why = "job has no canonical result";
	if (!j->wu.canonical_resultid ||
	    db_result_lookup_id(c->db, j->wu.canonical_resultid, &res) != DB_OK)
		return NULL;
	*why = "no such output file";
	name = output_name(&res, i);
	db_result_free(&res);
	return name;
}

/* Output files are counted in a result's template: a few, never millions. */
#define FILE_NUM_MAX 100000

void submit_get_output(const struct submit_ctx *c, const struct form *q, FILE *fp)
{
	char *cmd = form_value(q, "cmd"), *auth = form_value(q, "auth_str");
	char *wu_name = form_value(q, "wu_name"), *num = form_value(q, "file_num"), *name = NULL;
	struct db_user user = { 0 };
	struct job j = { 0 };
	struct sbuf path = SBUF_INIT(PATH_MAX);
	long file_num = -1;
	FILE *in = NULL;
	struct stat st;
	const char *why = NULL;
	struct sbuf bad = SBUF_INIT(1024);
	char *job = NULL;
	int status = 0;

	if (!cmd || strcmp(cmd, "workunit_file")) {
		http_error(fp, 400, "unknown or missing cmd");
	} else if (!auth || !wu_name || !num) {
		http_error(fp, 400, "missing auth_str, wu_name or file_num");
	} else if (field_long("file_num", num, 0, FILE_NUM_MAX, 0, &file_num, &bad) != FIELD_OK ||
		   field_str("wu_name", wu_name, FIELD_COLUMN_CHARS, 0, &job, &bad) == FIELD_BAD) {
		log_warn("[%s] get_output: %s", c->remote_addr ? c->remote_addr : "?", sbuf_str(&bad));
		http_error(fp, 400, sbuf_str(&bad));
	} else if (!c->db) {
		http_error(fp, 503, "the project database is unavailable; try again later");
	} else if (db_user_lookup_auth(c->db, auth, &user) != DB_OK) {
		log_warn("[%s] get_output: bad authenticator", c->remote_addr ? c->remote_addr : "?");
		http_error(fp, 403, "bad authenticator");
	} else if ((status = (int)submit_job_find(c->db, user.id, job, &j)) != JOB_OK) {
		http_error(fp, status == JOB_NOT_OWNER ? 403 : status == JOB_DB_ERROR ? 503 : 404,
			   status == JOB_NOT_OWNER ? "not owner" : status == JOB_DB_ERROR
			   ? "database error" : "no such job");
	} else if (!(name = job_output_name(c, &j, file_num, &status, &why))) {
		http_error(fp, status, why);
	} else if (dirhier_path(name, c->cfg->upload_dir, c->cfg->uldl_dir_fanout, false, &path) ||
		   !(in = fopen(sbuf_str(&path), "rb")) || fstat(fileno(in), &st) < 0) {
		log_error("get_output: output file %s of a job of user %lld missing", name,
			  (long long)user.id);
		http_error(fp, 404, "output file missing on the server");
	} else {
		char buf[65536];
		size_t n;

		fprintf(fp, "Content-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
			    "Content-Disposition: attachment; filename=\"%s\"\r\n\r\n",
			(long long)st.st_size, name);
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, fp);
	}
	if (in)
		fclose(in);
	fflush(fp);
	sbuf_free(&path);
	free(cmd);
	free(auth);
	free(wu_name);
	free(num);
	free(name);
	free(job);
	sbuf_free(&bad);
	db_user_free(&user);
	submit_job_free(&j);
}

