/*
 * xadd: register the apps and platforms listed in the project's
 * project.xml (BOINC's format) in the database. Existing ones are left as
 * they are, so running it again is harmless; it reports what it did.
 *
 *   <boinc>
 *     <app><name>A</name><user_friendly_name>..</user_friendly_name></app>
 *     <platform><name>x86_64-pc-linux-gnu</name><user_friendly_name>..</user_friendly_name></platform>
 *   </boinc>
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_records.h"
#include "log.h"
#include "param.h"
#include "wtime.h"
#include "xml.h"

struct options {
	char *config_dir;
	char *file;
	bool quiet;
};

static const struct param options[] = {
	{ "config_dir", PARAM_STR, offsetof(struct options, config_dir), NULL, PARAM_NOCONFIG, 0, 0,
	  "DIR", "the project directory (default: WSEQ_PROJECT_DIR, then . and ..)" },
	{ "file", PARAM_STR, offsetof(struct options, file), NULL, PARAM_NOCONFIG, 0, 0, "FILE",
	  "read FILE instead of project.xml in the project directory" },
	{ "quiet", PARAM_BOOL, offsetof(struct options, quiet), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "print only errors" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: xadd [options]\n\n"
		    "Add the apps and platforms of the project's project.xml to the database.\n"
		    "Those already there are kept unchanged.\n\noptions:\n");
	param_print_help(options, fp);
}

struct item {
	bool is_app;
	char *name, *ufn;
	long line;
};

static void items_free(struct item *it, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(it[i].name);
		free(it[i].ufn);
	}
	free(it);
}

/* Read and check the whole file before touching the database. */
static int read_project_xml(const char *path, struct item **out, size_t *nout)
{
	xmlDoc *doc = xml_read_file(path, NULL);
	const xmlNode *root, *c;
	struct item *it = NULL;
	size_t n = 0, i;

	*out = NULL;
	*nout = 0;
	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "boinc")) {
		log_error("%s:%ld: expected <boinc>, found <%s>", path, xml_line(root),
			  (const char *)root->name);
		goto fail;
	}
	xml_for_each(c, root, NULL) {
		bool is_app = xml_is(c, "app");
		struct item *x;

		if (!is_app && !xml_is(c, "platform")) {
			log_error("%s:%ld: unexpected <%s> (only <app> and <platform>)", path,
				  xml_line(c), (const char *)c->name);
			goto fail;
		}
		it = xrealloc(it, (n + 1) * sizeof(*it));
		x = &it[n++];
		x->is_app = is_app;
		x->line = xml_line(c);
		x->name = xml_child_text(c, "name");
		x->ufn = xml_child_text(c, "user_friendly_name");
		if (!x->name || !*x->name) {
			log_error("%s:%ld: <%s> without <name>", path, x->line,
				  is_app ? "app" : "platform");
			goto fail;
		}
		if (strlen(x->name) > 254 || strpbrk(x->name, " /\\\t\n<>&'\"")) {
			log_error("%s:%ld: bad %s name \"%s\"", path, x->line,
				  is_app ? "app" : "platform", x->name);
			goto fail;
		}
		for (i = 0; i + 1 < n; i++)
			if (it[i].is_app == is_app && strcmp(it[i].name, x->name) == 0) {
				log_error("%s:%ld: %s %s listed twice", path, x->line,
					  is_app ? "app" : "platform", x->name);
				goto fail;
			}
	}
	xmlFreeDoc(doc);
	*out = it;
	*nout = n;
	return 0;
fail:
	xmlFreeDoc(doc);
	items_free(it, n);
	return -1;
}

static int add_item(struct db *db, const struct item *x, bool quiet)
{
	const char *what = x->is_app ? "app" : "platform";
	const char *ufn = x->ufn && *x->ufn ? x->ufn : x->name;
	int rc;

	if (x->is_app) {
		struct db_app a = { 0 };

		rc = db_app_lookup_name(db, x->name, &a);
		if (rc == DB_NOT_FOUND) {
			a.name = xstrdup(x->name);
			a.user_friendly_name = xstrdup(ufn);
			a.create_time = now();
			a.weight = 1;
			a.keywords = xstrdup("");
			rc = db_app_insert(db, &a);
			if (rc == DB_OK && !quiet)
				printf("added app %s (id %" PRId64 ")\n", x->name, a.id);
		} else if (rc == DB_OK && !quiet) {
			printf("app %s already exists (id %" PRId64 ")\n", x->name, a.id);
		}
		db_app_free(&a);
	} else {
		struct db_platform p = { 0 };

		rc = db_platform_lookup_name(db, x->name, &p);
		if (rc == DB_NOT_FOUND) {
			p.name = xstrdup(x->name);
			p.user_friendly_name = xstrdup(ufn);
			p.create_time = now();
			rc = db_platform_insert(db, &p);
			if (rc == DB_OK && !quiet)
				printf("added platform %s (id %" PRId64 ")\n", x->name, p.id);
		} else if (rc == DB_OK && !quiet) {
			printf("platform %s already exists (id %" PRId64 ")\n", x->name, p.id);
		}
		db_platform_free(&p);
	}
	if (rc != DB_OK)
		return log_error("cannot add %s %s", what, x->name);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct project_config cfg;
	struct db_params dp;
	struct db *db = NULL;
	struct item *items = NULL;
	size_t n = 0, i;
	char *path = NULL, *xml = NULL;
	int first, rc = 1;

	log_init("xadd", NULL);
	param_set_defaults(options, &o);
	first = param_parse_args(options, &o, argc, argv);
	if (first == -2) {
		usage(stdout);
		param_free(options, &o);
		return 0;
	}
	if (first < 0) {
		param_free(options, &o);
		return 1;
	}
	if (first < argc) {
		log_error("unexpected argument %s (see --help)", argv[first]);
		param_free(options, &o);
		return 1;
	}
	if (o.config_dir)
		path = xasprintf("%s/config.xml", o.config_dir);
	if (config_load(&cfg, path, NULL, NULL))
		goto out;
	xml = o.file ? xstrdup(o.file) : xasprintf("%s/project.xml", cfg.project_dir);
	if (read_project_xml(xml, &items, &n))
		goto out;
	db_params_from_config(&dp, &cfg);
	if (db_open(&db, &dp, 0) != DB_OK)
		goto out;
	if (db_begin(db) != DB_OK)
		goto out;
	for (i = 0; i < n; i++)
		if (add_item(db, &items[i], o.quiet))
			break;
	if (i < n || db_commit(db) != DB_OK) {
		db_rollback(db);
		goto out;
	}
	rc = 0;
out:
	if (db)
		db_close(db);
	items_free(items, n);
	free(xml);
	free(path);
	config_free(&cfg);
	param_free(options, &o);
	return rc;
}
