/*
 * update_versions: register new app versions from the project's apps/
 * directory, BOINC's layout:
 *
 *   apps/APP/APP_VERSION_PLATFORM[__PLAN_CLASS]/   files, optional version.xml
 *
 * For each version not yet in the database its files are copied into the
 * download hierarchy (physical names are immutable), each is signed with
 * keys/code_sign_private -- or, where the code signing key is kept offline
 * as upstream advises, its signature is taken from FILE.sig beside it,
 * checked against keys/code_sign_public -- and an app_version row is inserted whose xml_doc
 * is what the scheduler sends. All of one run is one transaction; a failure
 * leaves neither rows nor newly copied files. version.xml is read as
 * upstream's update_versions reads it (unknown elements are warned about,
 * not refused), and each version's plan class is shown with what it needs
 * from plan_class_spec.xml -- or a warning that no host will get it.
 */
#include "common.h"
#include "config.h"
#include "crypt_rsa.h"
#include "db.h"
#include "db_records.h"
#include "db_work.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "plan_class.h"
#include "work.h"
#include "wtime.h"
#include "xml.h"
#include "xml_write.h"

#include <dirent.h>
#include <sys/stat.h>

struct options {
	char *app;
	bool quiet;
	bool noconfirm;
};

static const struct param options[] = {
	{ "app", PARAM_STR, offsetof(struct options, app), NULL, PARAM_NOCONFIG, 0, 0, "NAME",
	  "only look at apps/NAME" },
	{ "quiet", PARAM_BOOL, offsetof(struct options, quiet), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "print only errors" },
	{ "noconfirm", PARAM_BOOL, offsetof(struct options, noconfirm), "0", PARAM_NOCONFIG, 0, 0,
	  NULL, "accepted for BOINC's scripts (update_versions never asks)" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: update_versions [options]\n"
	"\n"
	"Add the app versions found in the project's apps/ directory\n"
	"(apps/APP/APP_VERSION_PLATFORM[__PLAN_CLASS]/) that the database lacks:\n"
	"copy their files to the download directory, sign them with\n"
	"keys/code_sign_private and insert app_version rows. Each version's plan\n"
	"class is shown with what it needs (plan_class_spec.xml), or a warning\n"
	"that no host will get it.\n";

struct vfile {
	char *name;             /* physical name = file name in the version directory */
	char *logical_name;     /* open_name, or NULL */
	bool main_program;
	bool copy_file;
	char **urls;            /* <url>s of version.xml: where clients fetch it (else ours) */
	size_t nurls;
	struct work_file wf;
	char *signature;
};

struct version {
	char *dir;              /* its path */
	char *dirname;
	int version_num;
	char *platform;
	char *plan_class;
	char *api_version;
	char *cmdline;
	char *file_prefix;
	bool beta;
	/* upstream's per-version flags, passed to the client: <is_wrapper/> makes it run the version at high priority */
	bool is_wrapper, dont_throttle, needs_network;
	struct vfile *files;
	size_t nfiles;
};

struct run {
	const struct project_config *cfg;
	struct plan_classes pcs;        /* the project's plan_class_spec.xml */
	const struct options *o;
	struct db *db;
	EVP_PKEY *key;
	char **staged;
	size_t nstaged;
	int added, existing;
};

static void version_release(struct version *v)
{
	size_t i;

	for (i = 0; i < v->nfiles; i++) {
		free(v->files[i].name);
		free(v->files[i].logical_name);
		free(v->files[i].signature);
		for (size_t k = 0; k < v->files[i].nurls; k++)
			free(v->files[i].urls[k]);
		free(v->files[i].urls);
		work_file_release(&v->files[i].wf);
	}
	free(v->files);
	free(v->dir);
	free(v->dirname);
	free(v->platform);
	free(v->plan_class);
	free(v->api_version);
	free(v->cmdline);
	free(v->file_prefix);
	memset(v, 0, sizeof(*v));
}

/* "APP_1.02_x86_64-pc-linux-gnu__mt" → 102, platform, plan class. */
static int parse_dirname(const char *app, const char *dir, struct version *v)
{
	size_t alen = strlen(app);
	const char *p = dir + alen + 1, *us, *dot, *pc;
	long major, minor;
	char buf[32];

	if (strncmp(dir, app, alen) || dir[alen] != '_')
		return log_error("apps/%s/%s: a version directory is named %s_VERSION_PLATFORM",
				 app, dir, app);
	us = strchr(p, '_');
	dot = strchr(p, '.');
	if (!us || us == p || (size_t)(us - p) >= sizeof(buf))
		return log_error("apps/%s/%s: no VERSION_PLATFORM after %s_", app, dir, app);
	memcpy(buf, p, (size_t)(us - p));
	buf[us - p] = '\0';
	if (dot && dot < us) {
		buf[dot - p] = '\0';
		if (parse_long(buf, &major) || parse_long(buf + (dot - p) + 1, &minor) ||
		    major < 0 || minor < 0 || minor > 99 || major > 1000000)
			return log_error("apps/%s/%s: bad version \"%.*s\"", app, dir,
					 (int)(us - p), p);
	} else {
		if (parse_long(buf, &major) || major < 0 || major > 1000000)
			return log_error("apps/%s/%s: bad version \"%s\"", app, dir, buf);
		minor = 0;
	}
	v->version_num = (int)(major * 100 + minor);
	pc = strstr(us + 1, "__");
	if (pc) {
		v->platform = xstrndup(us + 1, (size_t)(pc - us - 1));
		v->plan_class = xstrdup(pc + 2);
	} else {
		v->platform = xstrdup(us + 1);
		v->plan_class = xstrdup("");
	}
	if (!*v->platform)
		return log_error("apps/%s/%s: no platform", app, dir);
	return 0;
}

static int skip_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' || strcmp(name, "version.xml") == 0 ||
	       (n > 4 && strcmp(name + n - 4, ".md5") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".sig") == 0) ||
	       (n > 1 && name[n - 1] == '~');
}

static struct vfile *find_file(struct version *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nfiles; i++)
		if (strcmp(v->files[i].name, name) == 0)
			return &v->files[i];
	return NULL;
}

/* An element of version.xml (or of its <file>) wseq does not know: warned about, skipped. */
static void unknown_element(const char *path, const xmlNode *c, const char *where)
{
	log_warn("%s:%ld: <%s> is not an element of %s that update_versions knows; ignored", path,
		 xml_line(c), (const char *)c->name, where);
}

/* Is boolean element c true? <x/>, <x>1</x> (upstream: empty or a number > 0). */
static bool xml_true(const xmlNode *c)
{
	char *t = xml_text(c);
	bool b = !*t || atol(t) > 0;

	free(t);
	return b;
}

/* One <file>: upstream's physical_name, logical_name, url, main_program, copy_file, gzip. */
static int read_file_elem(struct version *v, const char *path, const xmlNode *e)
{
	char *name = xml_child_text(e, "physical_name");
	const xmlNode *c;
	struct vfile *f;

	if (!name || !*name) {
		free(name);
		return log_error("%s:%ld: <file> without <physical_name>", path, xml_line(e));
	}
	f = find_file(v, name);
	if (!f) {
		log_error("%s:%ld: file %s is not in %s", path, xml_line(e), name, v->dir);
		free(name);
		return -1;
	}
	free(name);
	xml_for_each(c, e, NULL) {
		if (xml_is(c, "main_program")) {
			f->main_program = xml_true(c);
		} else if (xml_is(c, "copy_file")) {
			f->copy_file = xml_true(c);
		} else if (xml_is(c, "logical_name") || xml_is(c, "open_name")) {
			free(f->logical_name);
			f->logical_name = xml_text(c);
		} else if (xml_is(c, "url")) {
			ARRAY_GROW(f->urls, f->nurls);
			f->urls[f->nurls++] = xml_text(c);
		} else if (xml_is(c, "gzip")) {
			if (xml_true(c))
				log_warn("%s:%ld: <gzip/>: wseq sends %s uncompressed", path, xml_line(c),
					 f->name);
		} else if (!xml_is(c, "physical_name")) {
			unknown_element(path, c, "<file>");
		}
	}
	return 0;
}

/* A text element of <version> into *dst (the last one given wins). */
static void set_text(char **dst, const xmlNode *c)
{
	free(*dst);
	*dst = xml_text(c);
}

static int read_version_xml(struct version *v, const char *path)
{
	xmlDoc *doc = xml_read_file(path, NULL);
	const xmlNode *root, *c;
	int rc = -1;

	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "version")) {
		log_error("%s:%ld: expected <version>", path, xml_line(root));
		goto out;
	}
	xml_for_each(c, root, NULL) {
		if (xml_is(c, "file")) {
			if (read_file_elem(v, path, c))
				goto out;
		} else if (xml_is(c, "api_version")) {
			set_text(&v->api_version, c);
		} else if (xml_is(c, "cmdline")) {
			set_text(&v->cmdline, c);
		} else if (xml_is(c, "file_prefix")) {
			set_text(&v->file_prefix, c);
		} else if (xml_is(c, "is_wrapper")) {
			v->is_wrapper = xml_true(c);
		} else if (xml_is(c, "dont_throttle")) {
			v->dont_throttle = xml_true(c);
		} else if (xml_is(c, "needs_network")) {
			v->needs_network = xml_true(c);
		} else if (xml_is(c, "beta")) {
			v->beta = xml_true(c);
			if (v->beta)
				log_warn("%s:%ld: <beta/>: stored in app_version.beta, but wseq has no "
					 "beta testers and sends the version like any other", path,
					 xml_line(c));
		} else {
			unknown_element(path, c, "version.xml");
		}
	}
	rc = 0;
out:
	xmlFreeDoc(doc);
	return rc;
}

/* The files of a version directory and which one is the main program. */
static int read_version_dir(struct version *v)
{
	struct dirent **ents = NULL;
	struct stat st;
	char *path;
	int n, i, nmain = 0, rc = -1;

	n = scandir(v->dir, &ents, NULL, alphasort);
	if (n < 0)
		return log_error("%s: %s", v->dir, strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (skip_name(name))
			continue;
		path = xasprintf("%s/%s", v->dir, name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			ARRAY_GROW(v->files, v->nfiles);
			memset(&v->files[v->nfiles], 0, sizeof(*v->files));
			v->files[v->nfiles++].name = xstrdup(name);
		}
		free(path);
	}
	if (v->nfiles == 0) {
		log_error("%s: no files", v->dir);
		goto out;
	}
	path = xasprintf("%s/version.xml", v->dir);
	if (access(path, F_OK) == 0) {
		if (read_version_xml(v, path)) {
			free(path);
			goto out;
		}
	} else if (v->nfiles == 1) {
		v->files[0].main_program = true;
	} else {
		for (i = 0; (size_t)i < v->nfiles; i++)
			if (strncmp(v->files[i].name, v->dirname, strlen(v->dirname)) == 0)
				v->files[i].main_program = true;
	}
	free(path);
	for (i = 0; (size_t)i < v->nfiles; i++)
		nmain += v->files[i].main_program;
	if (nmain != 1) {
		log_error("%s: %s main program (mark one <main_program/> in version.xml, or "
			  "name it after the directory)", v->dir, nmain ? "more than one" : "no");
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/* The xml_doc the scheduler sends: the signed file_infos, then the app_version. */
static int make_xml_doc(const char *app, const struct version *v, struct sbuf *b)
{
	size_t i;

	for (i = 0; i < v->nfiles; i++) {
		const struct vfile *f = &v->files[i];

		sbuf_addstr(b, "<file_info>\n");
		xml_elem_str(b, 0, "name", f->wf.name);
		if (!f->nurls)
			xml_elem_str(b, 0, "url", f->wf.url);
		for (size_t k = 0; k < f->nurls; k++)
			xml_elem_str(b, 0, "url", f->urls[k]);
		sbuf_addstr(b, "<executable/>\n");
		sbuf_addf(b, "<file_signature>\n%s</file_signature>\n", f->signature);
		sbuf_addf(b, "<nbytes>%.0f</nbytes>\n", f->wf.nbytes);
		sbuf_addstr(b, "</file_info>\n");
	}
	sbuf_addstr(b, "<app_version>\n");
	xml_elem_str(b, 0, "app_name", app);
	sbuf_addf(b, "<version_num>%d</version_num>\n", v->version_num);
	xml_elem_str(b, 0, "platform", v->platform);
	if (*v->plan_class)
		xml_elem_str(b, 0, "plan_class", v->plan_class);
	if (v->api_version && *v->api_version)
		xml_elem_str(b, 0, "api_version", v->api_version);
	if (v->cmdline && *v->cmdline)
		xml_elem_str(b, 0, "cmdline", v->cmdline);
	if (v->is_wrapper)
		sbuf_addstr(b, "<is_wrapper/>\n");
	if (v->dont_throttle)
		sbuf_addstr(b, "<dont_throttle/>\n");
	if (v->needs_network)
		sbuf_addstr(b, "<needs_network/>\n");
	if (v->file_prefix && *v->file_prefix)
		xml_elem_str(b, 0, "file_prefix", v->file_prefix);
	for (i = 0; i < v->nfiles; i++) {
		const struct vfile *f = &v->files[i];

		sbuf_addstr(b, "<file_ref>\n");
		xml_elem_str(b, 0, "file_name", f->wf.name);
		if (f->logical_name && *f->logical_name)
			xml_elem_str(b, 0, "open_name", f->logical_name);
		if (f->copy_file)
			sbuf_addstr(b, "<copy_file/>\n");
		if (f->main_program)
			sbuf_addstr(b, "<main_program/>\n");
		sbuf_addstr(b, "</file_ref>\n");
	}
	if (sbuf_addstr(b, "</app_version>\n"))
		return log_error("%s: app_version xml_doc too large", v->dir);
	return 0;
}

static int load_key(struct run *r)
{
	char *path;
	int rc;

	if (r->key)
		return 0;
	path = xasprintf("%s/code_sign_private", r->cfg->key_dir);
	rc = crypt_load_private(path, &r->key);
	free(path);
	return rc;
}

/*
 * The signature of a version's file: FILE.sig beside it (made offline with
 * sign_executable), checked against the project's public key, else made
 * here with keys/code_sign_private.
 */
static int sign_file(struct run *r, const struct version *v, const struct vfile *f,
		     struct sbuf *sig)
{
	char *sigpath = xasprintf("%s/%s.sig", v->dir, f->name), *pub;
	FILE *fp = fopen(sigpath, "re");
	char buf[CRYPT_TEXT_MAX];
	size_t n;
	int rc;

	if (!fp) {
		free(sigpath);
		if (load_key(r))
			return log_error("%s/%s: no %s.sig beside it, and no private key to sign it: "
					 "sign it where the code signing key is kept (sign_executable "
					 "FILE KEY > FILE.sig)", v->dir, f->name, f->name);
		return crypt_sign_file_key(r->key, f->wf.path, sig);
	}
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	pub = xasprintf("%s/code_sign_public", r->cfg->key_dir);
	rc = n > 0 && n < sizeof(buf) - 1 ? crypt_verify_file(pub, f->wf.path, buf) : 1;
	free(pub);
	if (rc != 0) {
		log_error("%s: %s", sigpath, rc < 0 ? "cannot be checked" :
			  "not a signature of this file by the project's code signing key");
		free(sigpath);
		return -1;
	}
	free(sigpath);
	return sbuf_addstr(sig, buf) < 0 ? log_error("signature too long") : 0;
}

/*
 * A version's plan class and what it needs of a host, or -- always, for a
 * version being added -- the warning that no host will get it.
 */
static void show_plan_class(const struct run *r, const struct version *v, bool adding)
{
	const struct plan_class *pc;
	struct sbuf d = SBUF_INIT(4096);

	if (!*v->plan_class)
		return;
	pc = plan_class_find(&r->pcs, v->plan_class);
	if (!pc && (adding || !r->o->quiet)) {
		printf("warning: %s: plan class %s is not in %s: this version will be sent to no "
		       "host\n", v->dir, v->plan_class, PLAN_CLASS_FILE);
	} else if (pc && !r->o->quiet) {
		plan_class_describe(pc, &d);
		printf("    plan class %s: %s\n", v->plan_class, sbuf_str(&d));
	}
	sbuf_release(&d);
}

static int add_version(struct run *r, const struct db_app *app, const char *dirname)
{
	struct version v = { 0 };
	struct db_platform plat = { 0 };
	struct db_app_version av = { 0 };
	struct sbuf sig = SBUF_INIT(CRYPT_TEXT_MAX), doc = SBUF_INIT(TEMPLATE_MAX);
	char *src;
	size_t i;
	int rc = -1, dbrc;

	v.dirname = xstrdup(dirname);
	v.dir = xasprintf("%s/%s/%s", r->cfg->app_dir, app->name, dirname);
	if (parse_dirname(app->name, dirname, &v))
		goto out;
	dbrc = db_platform_lookup_name(r->db, v.platform, &plat);
	if (dbrc == DB_NOT_FOUND) {
		log_error("%s: unknown platform %s (add it to project.xml and run xadd)", v.dir,
			  v.platform);
		goto out;
	}
	if (dbrc != DB_OK)
		goto out;
	dbrc = db_app_version_lookup_key(r->db, app->id, plat.id, v.version_num, v.plan_class,
					 &av);
	if (dbrc == DB_OK) {
		r->existing++;
		if (!r->o->quiet)
			printf("app version %s exists (id %" PRId64 ")\n", dirname, av.id);
		show_plan_class(r, &v, false);
		rc = 0;
		goto out;
	}
	if (dbrc != DB_NOT_FOUND)
		goto out;
	if (read_version_dir(&v))
		goto out;
	for (i = 0; i < v.nfiles; i++) {
		struct vfile *f = &v.files[i];

		src = xasprintf("%s/%s", v.dir, f->name);
		dbrc = work_stage_input(r->cfg, src, f->name, &f->wf);
		free(src);
		if (dbrc)
			goto out;
		if (f->wf.staged) {
			ARRAY_GROW(r->staged, r->nstaged);
			r->staged[r->nstaged++] = xstrdup(f->wf.path);
		}
		sbuf_reset(&sig);
		if (sign_file(r, &v, f, &sig))
			goto out;
		f->signature = xstrdup(sbuf_str(&sig));
	}
	if (make_xml_doc(app->name, &v, &doc))
		goto out;
	db_app_version_release(&av);
	memset(&av, 0, sizeof(av));
	av.create_time = now();
	av.appid = app->id;
	av.platformid = plat.id;
	av.version_num = v.version_num;
	av.plan_class = xstrdup(v.plan_class);
	av.xml_doc = sbuf_detach(&doc, NULL);
	av.beta = v.beta;
	if (db_app_version_insert(r->db, &av) != DB_OK)
		goto out;
	r->added++;
	if (!r->o->quiet)
		printf("added app version %s: %s %d %s%s%s (id %" PRId64 ")\n", dirname, app->name,
		       v.version_num, v.platform, *v.plan_class ? " " : "", v.plan_class, av.id);
	show_plan_class(r, &v, true);
	rc = 0;
out:
	sbuf_release(&sig);
	sbuf_release(&doc);
	db_app_version_release(&av);
	db_platform_release(&plat);
	version_release(&v);
	return rc;
}

static int add_app_dir(struct run *r, const char *appname)
{
	struct db_app app = { 0 };
	struct dirent **ents = NULL;
	struct stat st;
	char *dir = xasprintf("%s/%s", r->cfg->app_dir, appname), *path;
	int n, i, rc = -1, dbrc;

	dbrc = db_app_lookup_name(r->db, appname, &app);
	if (dbrc == DB_NOT_FOUND) {
		log_error("%s: unknown app %s (add it to project.xml and run xadd)", dir, appname);
		goto out;
	}
	if (dbrc != DB_OK)
		goto out;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		log_error("%s: %s", dir, strerror(errno));
		goto out;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		path = xasprintf("%s/%s", dir, name);
		if (rc == 0 && name[0] != '.' && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_version(r, &app, name);
		free(path);
		free(ents[i]);
	}
	free(ents);
out:
	db_app_release(&app);
	free(dir);
	return rc;
}

static int run_all(struct run *r)
{
	struct dirent **ents = NULL;
	struct stat st;
	char *path;
	int n, i, rc = 0;

	if (r->o->app)
		return add_app_dir(r, r->o->app);
	n = scandir(r->cfg->app_dir, &ents, NULL, alphasort);
	if (n < 0)
		return log_error("%s: %s", r->cfg->app_dir, strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		path = xasprintf("%s/%s", r->cfg->app_dir, name);
		if (rc == 0 && name[0] != '.' && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_app_dir(r, name);
		free(path);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/* The project's plan classes; a file that cannot be used is warned about (no classes). */
static void load_plan_classes(struct run *r)
{
	struct sbuf notes = SBUF_INIT(1 << 20), err = SBUF_INIT(4096);
	char *path = xasprintf("%s/%s", r->cfg->project_dir, PLAN_CLASS_FILE);

	if (plan_classes_read(path, &r->pcs, &notes, &err) < 0)
		printf("warning: %s: no plan class is usable\n", sbuf_str(&err));
	else if (notes.len && !r->o->quiet)
		printf("warning: %s has things wseq does not use (wseq_config --check lists them)\n",
		       path);
	free(path);
	sbuf_release(&notes);
	sbuf_release(&err);
}

/* Undo the files staged for versions the rolled-back transaction would have added. */
static void unstage_all(struct run *r)
{
	struct work_file f = { .staged = true };
	size_t i;

	for (i = 0; i < r->nstaged; i++) {
		f.path = r->staged[i];
		work_unstage_input(&f);
	}
}

static int run(struct tool_ctx *ctx)
{
	struct run r = { .cfg = &ctx->cfg, .o = ctx->settings, .db = ctx->db };
	size_t i;
	int rc = -1;

	load_plan_classes(&r);
	if (db_begin(r.db) != DB_OK) {
		;
	} else if (run_all(&r) || db_commit(r.db) != DB_OK) {
		db_rollback(r.db);
		unstage_all(&r);
	} else {
		if (!r.o->quiet)
			printf("%d app version%s added, %d already present\n", r.added,
			       r.added == 1 ? "" : "s", r.existing);
		rc = 0;
	}
	for (i = 0; i < r.nstaged; i++)
		free(r.staged[i]);
	free(r.staged);
	if (r.key)
		EVP_PKEY_free(r.key);
	plan_classes_release(&r.pcs);
	return rc;
}

static struct options opts;

static const struct tool_spec update_versions_spec = {
	.name = "update_versions",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&update_versions_spec, argc, argv);
}
