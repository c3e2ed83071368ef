/*
 * wseq_test daemons: for the back-end daemons' shell tests it plays the parts
 * around them -- work creation and the scheduler -- on a project's database
 * and file hierarchies, with exact control over each row.
 *
 *   wseq_test daemons wu NAME [--app A] [--quorum Q] [--target T] [--max_error E]
 *                     [--max_total M] [--max_success S] [--delay_bound D]
 *                     [--template PATH] [--in FILE]... [--in_keep FILE]...
 *       insert a workunit (app A, default "testapp", created if missing)
 *       using input files FILE of the download hierarchy (--in_keep:
 *       with <no_delete/>); result template PATH (default
 *       templates/test_out); transition_time now. Prints its id.
 *   wseq_test daemons path upload|download NAME
 *       print NAME's path in the hierarchy (creating its directory)
 *   wseq_test daemons send RESULT [--deadline S]
 *       mark an unsent result in progress, due in S seconds (default 3600)
 *   wseq_test daemons report RESULT [--output TEXT] [--error] [--missing]
 *       report a result as the scheduler would: each output file gets TEXT
 *       (default "output") in the upload hierarchy (--missing: the file is
 *       not written, --error: outcome CLIENT_ERROR and no files), the row
 *       becomes OVER with xml_doc_out, and the workunit's transition_time now
 *
 * It reads config.xml as the daemons do ($WSEQ_PROJECT_DIR or ./).
 */
#include "common.h"
#include "config.h"
#include "db_queries.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sbuf.h"
#include "wtime.h"
#include "xml.h"
#include "wseq_test.h"

#include <sys/stat.h>

#define XML_MAX (1024 * 1024)

static struct project_config cfg;
static struct db *db;

static int usage(void)
{
	fprintf(stderr, "usage: wseq_test daemons wu NAME [options] | path upload|download NAME |\n"
			"       send RESULT [--deadline S] | report RESULT [--output TEXT] "
			"[--error] [--missing]\n");
	return 2;
}

static int hier_path(const char *root, const char *name, struct sbuf *out)
{
	return dirhier_path(name, root, cfg.uldl_dir_fanout, true, out);
}

static int64_t app_id(const char *name)
{
	struct db_app app = { 0 };
	int64_t id = 0;

	if (db_app_lookup_name(db, name, &app) == DB_OK) {
		id = app.id;
	} else {
		db_app_release(&app);
		memset(&app, 0, sizeof(app));
		app.name = xstrdup(name);
		app.create_time = now();
		if (db_app_insert(db, &app) == DB_OK)
			id = app.id;
	}
	db_app_release(&app);
	return id;
}

static int add_input(struct sbuf *doc, struct sbuf *refs, const char *name, bool keep, int n)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	char md5[MD5_HEX_LEN + 1] = "";
	long long nbytes = 0;
	int rc = hier_path(cfg.download_dir, name, &path);

	if (rc == 0 && access(sbuf_str(&path), F_OK) == 0)
		rc = md5_file(sbuf_str(&path), md5, &nbytes);
	sbuf_release(&path);
	if (rc < 0)
		return -1;
	sbuf_addf(doc, "<file_info>\n    <name>%s</name>\n    <url>%s%s</url>\n"
		  "    <md5_cksum>%s</md5_cksum>\n    <nbytes>%lld</nbytes>\n%s</file_info>\n",
		  name, cfg.download_url ? cfg.download_url : "", name, md5, nbytes,
		  keep ? "    <no_delete/>\n" : "");
	sbuf_addf(refs, "    <file_ref>\n        <file_name>%s</file_name>\n"
		  "        <open_name>in%d</open_name>\n    </file_ref>\n", name, n);
	return 0;
}

static int cmd_wu(int argc, char **argv)
{
	struct db_workunit wu = { 0 };
	struct sbuf doc = SBUF_INIT(XML_MAX), refs = SBUF_INIT(XML_MAX);
	const char *app = "testapp", *tpl = "templates/test_out";
	long quorum = 2, target = 2, max_error = 3, max_total = 10, max_success = 6,
	     delay = 3600;
	int i, nin = 0, rc = 0;

	if (argc < 2)
		return usage();
	for (i = 2; i < argc && rc == 0; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long *num = NULL;

		if (!v)
			return usage();
		if (!strcmp(o, "--app"))
			app = v;
		else if (!strcmp(o, "--template"))
			tpl = v;
		else if (!strcmp(o, "--in") || !strcmp(o, "--in_keep"))
			rc = add_input(&doc, &refs, v, !strcmp(o, "--in_keep"), nin++);
		else if (!strcmp(o, "--quorum"))
			num = &quorum;
		else if (!strcmp(o, "--target"))
			num = &target;
		else if (!strcmp(o, "--max_error"))
			num = &max_error;
		else if (!strcmp(o, "--max_total"))
			num = &max_total;
		else if (!strcmp(o, "--max_success"))
			num = &max_success;
		else if (!strcmp(o, "--delay_bound"))
			num = &delay;
		else
			return usage();
		if (num && parse_long(v, num) < 0)
			return usage();
		i++;
	}
	if (rc < 0) {
		sbuf_release(&doc);
		sbuf_release(&refs);
		return 1;
	}
	sbuf_addf(&doc, "<workunit>\n%s</workunit>\n", sbuf_str(&refs));
	wu.name = xstrdup(argv[1]);
	wu.appid = app_id(app);
	wu.create_time = now();
	wu.xml_doc = sbuf_detach(&doc, NULL);
	wu.result_template_file = xstrdup(tpl);
	wu.rsc_fpops_est = 3.6e12;
	wu.rsc_fpops_bound = 3.6e13;
	wu.min_quorum = (int)quorum;
	wu.target_nresults = (int)target;
	wu.max_error_results = (int)max_error;
	wu.max_total_results = (int)max_total;
	wu.max_success_results = (int)max_success;
	wu.delay_bound = (int)delay;
	wu.transition_time = now();
	wu.size_class = -1;
	rc = wu.appid ? db_workunit_insert(db, &wu) : DB_ERROR;
	if (rc == DB_OK)
		printf("%" PRId64 "\n", wu.id);
	db_workunit_release(&wu);
	sbuf_release(&refs);
	return rc == DB_OK ? 0 : 1;
}

static int cmd_path(int argc, char **argv)
{
	struct sbuf p = SBUF_INIT(PATH_MAX);
	int rc;

	if (argc != 3 || (strcmp(argv[1], "upload") && strcmp(argv[1], "download")))
		return usage();
	rc = hier_path(!strcmp(argv[1], "upload") ? cfg.upload_dir : cfg.download_dir, argv[2], &p);
	if (rc == 0)
		printf("%s\n", sbuf_str(&p));
	sbuf_release(&p);
	return rc == 0 ? 0 : 1;
}

static int lookup_result(const char *name, struct db_result *r)
{
	int rc = db_result_lookup_name(db, name, r);

	if (rc != DB_OK)
		fprintf(stderr, "wseq_test daemons: no result %s\n", name);
	return rc == DB_OK ? 0 : -1;
}

static void mark_sent(struct db_result *r, long deadline)
{
	r->server_state = RESULT_SERVER_STATE_IN_PROGRESS;
	r->hostid = 1;
	r->userid = 1;
	r->sent_time = now();
	r->report_deadline = now() + deadline;
}

static int cmd_send(int argc, char **argv)
{
	struct db_result r = { 0 };
	long deadline = 3600;
	int rc;

	if (argc == 4 && !strcmp(argv[2], "--deadline")) {
		if (parse_long(argv[3], &deadline) < 0)
			return usage();
	} else if (argc != 2) {
		return usage();
	}
	if (lookup_result(argv[1], &r) < 0)
		return 1;
	if (r.server_state != RESULT_SERVER_STATE_UNSENT) {
		fprintf(stderr, "wseq_test daemons: %s is not unsent\n", r.name);
		db_result_release(&r);
		return 1;
	}
	mark_sent(&r, deadline);
	rc = db_result_update(db, &r);
	if (rc == DB_OK)
		rc = db_workunit_touch_transition(db, r.workunitid, r.report_deadline + 1);
	db_result_release(&r);
	return rc == DB_OK ? 0 : 1;
}

/* The output file names: the file_refs of xml_doc_in's <result>. */
static int output_names(const struct db_result *r, char ***names, size_t *n)
{
	struct sbuf b = SBUF_INIT(XML_MAX);
	xmlDoc *doc;
	xmlNode *res, *fr;

	*names = NULL;
	*n = 0;
	sbuf_addf(&b, "<x>%s</x>", r->xml_doc_in);
	doc = xml_read_memory(sbuf_str(&b), b.len, r->name, NULL);
	sbuf_release(&b);
	if (!doc)
		return -1;
	xml_for_each(res, xmlDocGetRootElement(doc), "result") {
		xml_for_each(fr, res, "file_ref") {
			char *name = xml_child_text(fr, "file_name");

			if (!name)
				continue;
			*names = xrealloc(*names, (*n + 1) * sizeof(**names));
			(*names)[(*n)++] = name;
		}
	}
	xmlFreeDoc(doc);
	return 0;
}

static int cmd_report(int argc, char **argv)
{
	struct db_result r = { 0 };
	struct sbuf out = SBUF_INIT(XML_MAX);
	const char *text = "output";
	bool error = false, missing = false;
	char **names = NULL;
	size_t n = 0, k;
	int i, rc = 0;

	if (argc < 2)
		return usage();
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--output") && i + 1 < argc)
			text = argv[++i];
		else if (!strcmp(argv[i], "--error"))
			error = true;
		else if (!strcmp(argv[i], "--missing"))
			missing = true;
		else
			return usage();
	}
	if (lookup_result(argv[1], &r) < 0)
		return 1;
	if (r.server_state == RESULT_SERVER_STATE_UNSENT)
		mark_sent(&r, 3600);
	if (!error && output_names(&r, &names, &n) < 0)
		rc = -1;
	for (k = 0; k < n && rc == 0; k++) {
		struct sbuf path = SBUF_INIT(PATH_MAX);
		char md5[MD5_HEX_LEN + 1];

		md5_buf(text, strlen(text), md5);
		rc = hier_path(cfg.upload_dir, names[k], &path);
		if (rc == 0 && !missing)
			rc = write_file_atomic(sbuf_str(&path), text, strlen(text), 0644);
		sbuf_addf(&out, "<file_info>\n    <name>%s</name>\n    <nbytes>%zu</nbytes>\n"
			  "    <max_nbytes>100000</max_nbytes>\n    <md5_cksum>%s</md5_cksum>\n"
			  "</file_info>\n", names[k], strlen(text), md5);
		sbuf_release(&path);
	}
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	if (rc == 0) {
		r.server_state = RESULT_SERVER_STATE_OVER;
		r.outcome = error ? RESULT_OUTCOME_CLIENT_ERROR : RESULT_OUTCOME_SUCCESS;
		r.exit_status = error ? 1 : 0;
		r.validate_state = VALIDATE_STATE_INIT;
		/* a late report: its files are the transitioner's to release again */
		r.file_delete_state = FILE_DELETE_INIT;
		r.received_time = now();
		r.cpu_time = r.elapsed_time = 10;
		free(r.xml_doc_out);
		r.xml_doc_out = sbuf_detach(&out, NULL);
		rc = db_result_update(db, &r);
		if (rc == DB_OK)
			rc = db_workunit_touch_transition(db, r.workunitid, now());
	}
	sbuf_release(&out);
	db_result_release(&r);
	return rc == 0 ? 0 : 1;
}

int wseq_test_daemons(int argc, char **argv)
{
	struct db_params p;
	int rc;

	if (argc < 2)
		return usage();
	if (config_load(&cfg, NULL, NULL, NULL) < 0)
		return 1;
	db_params_from_config(&p, &cfg);
	if (db_open(&db, &p, 10) != DB_OK) {
		config_release(&cfg);
		return 1;
	}
	if (!strcmp(argv[1], "wu"))
		rc = cmd_wu(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "path"))
		rc = cmd_path(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "send"))
		rc = cmd_send(argc - 1, argv + 1);
	else if (!strcmp(argv[1], "report"))
		rc = cmd_report(argc - 1, argv + 1);
	else
		rc = usage();
	db_close(db);
	config_release(&cfg);
	return rc;
}
