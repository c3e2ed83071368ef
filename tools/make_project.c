/*
 * make_project: create a wseq project the way BOINC admins know it -- a
 * project directory with config.xml, keys, download/ and upload/ with
 * fan-out, html/ with the master page, cgi-bin/, bin/, log and pid dirs, an
 * Apache snippet -- and its database with the schema and an admin account.
 */
#include "common.h"
#include "config.h"
#include "crypt_rsa.h"
#include "db.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "make_project.h"
#include "make_project_httpd.h"
#include "param.h"
#include "tool.h"
#include "sbuf.h"
#include "xml_write.h"

#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>


#define O(name, type, field, def, flags, arg, help) \
	{ name, type, offsetof(struct options, field), def, flags, 0, 0, arg, help }

static const struct param options[] = {
	O("url_base", PARAM_STR, url_base, NULL, 0, "URL", "URL the project is served under: all its URLs are URL/NAME/..., URL/NAME_cgi/... "
	  "and URL/NAME_ops/... (default: http://HOSTNAME/)"),
	O("project_name", PARAM_STR, project_name, NULL, 0, "TEXT", "human-readable project name (default: NAME)"),
	O("db_name", PARAM_STR, db_name, NULL, 0, "NAME", "database name (default: NAME)"),
	O("db_user", PARAM_STR, db_user, NULL, 0, "USER", "database user (default: your login name)"),
	O("db_passwd", PARAM_STR, db_passwd, "", PARAM_SECRET, "PASSWORD", "database password"),
	O("db_host", PARAM_STR, db_host, "localhost", 0, "HOST", "database host"),
	{ "db_port", PARAM_INT, offsetof(struct options, db_port), "0", PARAM_BOUNDED, 0, 65535, "PORT",
	  "database TCP port (0: the default)" },
	O("db_socket", PARAM_STR, db_socket, NULL, 0, "PATH", "database unix socket (wins over --db_host)"),
	O("web_user", PARAM_STR, web_user, NULL, 0, "USER",
	  "user Apache runs CGI programs as; gets the upload and log dirs (default: www-data if it exists)"),
	O("admin_email", PARAM_STR, admin_email, "admin@localhost", 0, "ADDR", "the admin account's e-mail address"),
	{ "uldl_dir_fanout", PARAM_INT, offsetof(struct options, uldl_dir_fanout), "1024", PARAM_BOUNDED, 1,
	  4096, "N", "subdirectories of download/ and upload/" },
	O("delete_prev_inst", PARAM_BOOL, delete_prev_inst, "0", 0, NULL, "remove an existing project directory first"),
	O("drop_db_first", PARAM_BOOL, drop_db_first, "0", 0, NULL, "drop an existing database of that name first"),
	O("no_db", PARAM_BOOL, no_db, "0", 0, NULL, "do not create the database"),
	O("import_keys", PARAM_STR, import_keys, NULL, 0, "DIR",
	  "bring over an existing BOINC project's keys from DIR (its keys/: code_sign_private "
	  "or only code_sign_public, upload_private) instead of making new ones"),
	O("test_app", PARAM_BOOL, test_app, "0", 0, NULL,
	  "install the sample app wseq_sample (registered and signed unless --no_db), "
	  "its templates and project.xml, ready for create_work and create_sequence"),
	O("exec_app", PARAM_BOOL, exec_app, "0", 0, NULL,
	  "install the app wseq_exec, which runs the submitter's own executable through "
	  "wseq_wrapper (any_executable; only for submitters given that right)"),
	PARAM_TABLE_END
};

/* The daemons a new project runs, when their programs are installed. */
static const char *const standard_daemons[] = {
	"transitioner", "validator", "assimilator", "file_deleter", "relocator",
};

/*
 * Periodic tasks, run by bin/start --cron: the statistics export (which
 * upstream leaves disabled: stats sites should find data from the first
 * day), the decay of recent average credit, and the purge of finished
 * workunits and results into archives/ -- disabled, as upstream ships no
 * purge: an admin decides how long rows stay before they go.
 */
static const struct {
	const char *cmd, *period, *name;
	bool disabled;
} standard_tasks[] = {
	{ "db_dump", "24 hours", "db_dump", false },
	{ "update_stats", "24 hours", "update_stats", false },
	{ "db_purge --one_pass --min_age_days 30", "24 hours", "db_purge", true },
};

static const char usage[] =
	"usage: make_project [options] NAME [LONG_NAME]\n"
	"\n"
	"Create the wseq project NAME: its directory, keys, config.xml, web pages,\n"
	"Apache configuration snippet and database (with an admin account).\n"
	"Every URL of the project is under URL_BASE/NAME/, URL_BASE/NAME_cgi/ or\n"
	"URL_BASE/NAME_ops/: projects of other names share a web server.\n"
	"LONG_NAME, as in upstream's make_project, is the same as --project_name.\n";

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static int check_options(struct options *o, const char *name)
{
	char host[256];

	if (!name_ok(name))
		return log_error("NAME must be 1-64 letters, digits or _ (got '%s')", name);
	if (strlen(name) > 4 && (!strcmp(name + strlen(name) - 4, "_cgi") ||
				 !strcmp(name + strlen(name) - 4, "_ops")))
		log_warn("NAME '%s' ends like the cgi-bin or ops URL of a project '%.*s': "
			 "the two cannot share a web server", name, (int)strlen(name) - 4, name);
	if (!o->project_root) {
		const char *home = getenv("HOME");
		o->project_root = xasprintf("%s/projects/%s", home && *home ? home : ".", name);
	}
	if (o->project_root[0] != '/') {
		char cwd[PATH_MAX];
		char *abs;
		if (!getcwd(cwd, sizeof(cwd)))
			return log_error("--project_root: cannot find the current directory");
		abs = xasprintf("%s/%s", cwd, o->project_root);
		free(o->project_root);
		o->project_root = abs;
	}
	if (!o->url_base) {
		if (gethostname(host, sizeof(host)) < 0)
			wstrlcpy(host, "localhost", sizeof(host));
		o->url_base = xasprintf("http://%s/", host);
	}
	if (strncmp(o->url_base, "http://", 7) && strncmp(o->url_base, "https://", 8))
		return log_error("--url_base must start with http:// or https:// (got '%s')", o->url_base);
	if (o->url_base[strlen(o->url_base) - 1] != '/') {
		char *u = xasprintf("%s/", o->url_base);
		free(o->url_base);
		o->url_base = u;
	}
	if (strstr(o->url_base, "://localhost"))
		log_warn("--url_base uses localhost: the BOINC client rejects such URLs, use 127.0.0.1");
	if (!o->project_name)
		o->project_name = xstrdup(name);
	if (!o->db_name)
		o->db_name = xstrdup(name);
	if (!name_ok(o->db_name))
		return log_error("--db_name must be letters, digits or _ (got '%s')", o->db_name);
	if (!o->db_user) {
		struct passwd *pw = getpwuid(getuid());
		o->db_user = xstrdup(pw ? pw->pw_name : "root");
	}
	if (!o->web_user && getpwnam("www-data"))
		o->web_user = xstrdup("www-data");
	if (o->web_user && !getpwnam(o->web_user))
		return log_error("--web_user: no such user '%s'", o->web_user);
	if (dir_nonempty(o->project_root) && !o->delete_prev_inst)
		return log_error("--project_root: %s exists and is not empty (use --delete_prev_inst to replace it)",
				 o->project_root);
	return 0;
}


char *mkp_path_in(const struct project *p, const char *rel)
{
	return xasprintf("%s/%s", p->root, rel);
}

static int make_dirs(struct project *p)
{
	static const struct { const char *dir; mode_t mode; bool web; } dirs[] = {
		{ "", 0755, false },            { "bin", 0755, false },
		{ "cgi-bin", 0755, false },     { "html", 0755, false },
		{ "html/user", 0755, false },
		{ "html/inc", 0755, false },    { "html/stats", 0755, false },
		{ "keys", 0711, false },        { "download", 0755, false },
		{ "upload", 0755, true },       { "log", 0775, true },
		{ "pid", 0755, false },         { "templates", 0755, false },
		{ "apps", 0755, false },        { "results", 0755, false },
		/* the submitters' own areas (submit RPCs), written by the web user only */
		{ "sandbox", 0700, true },
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < ARRAY_SIZE(dirs) && rc == 0; i++) {
		char *d = mkp_path_in(p, dirs[i].dir);
		rc = mkdir_p(d, dirs[i].mode);
		if (rc == 0 && chmod(d, dirs[i].mode) < 0)
			rc = log_error("cannot chmod %s: %s", d, strerror(errno));
		if (rc == 0 && dirs[i].web && p->o->web_user)
			rc = chown_to_user(d, p->o->web_user);
		free(d);
	}
	return rc;
}

static int make_fanout(struct project *p)
{
	char *down = mkp_path_in(p, "download"), *up = mkp_path_in(p, "upload");
	int rc = dirhier_make_dirs(down, p->o->uldl_dir_fanout, 0755);
	long i;

	if (rc == 0)
		rc = dirhier_make_dirs(up, p->o->uldl_dir_fanout, 0755);
	/*
	 * The upload handler runs as the web user and writes into every
	 * subdirectory of upload/; the submit RPCs store job files in download/,
	 * which the project's tools write too: shared with the web user's group.
	 */
	for (i = 0; rc == 0 && p->o->web_user && i < p->o->uldl_dir_fanout; i++) {
		char *d = xasprintf("%s/%lx", up, i), *dd = xasprintf("%s/%lx", down, i);

		rc = chown_to_user(d, p->o->web_user);
		if (rc == 0)
			rc = share_with_group_of(dd, p->o->web_user, 02775);
		free(d);
		free(dd);
	}
	free(down);
	free(up);
	return rc;
}

/*
 * One key pair of keys/: brought over from an existing BOINC project's
 * keys/ (--import_keys), so the app versions it signed stay valid on its
 * volunteers' clients, or made new. A code signing key kept offline comes
 * with its public half only: update_versions then takes each file's .sig.
 */
static int make_key(struct project *p, const char *kind)
{
	const char *from = p->o->import_keys;
	char *priv = xasprintf("%s/keys/%s_private", p->root, kind);
	char *pub = xasprintf("%s/keys/%s_public", p->root, kind);
	char *pem = xasprintf("%s/keys/%s_public.pem", p->root, kind);
	char *bpriv = from ? xasprintf("%s/%s_private", from, kind) : NULL;
	char *bpub = from ? xasprintf("%s/%s_public", from, kind) : NULL;
	bool code_sign = !strcmp(kind, "code_sign");
	int rc;

	if (from && access(bpriv, F_OK) == 0) {
		rc = crypt_import_boinc_keypair(bpriv, bpub, priv, pub, pem);
		if (rc == 0)
			printf("imported the %s key pair from %s\n", kind, from);
	} else if (from && code_sign && access(bpub, F_OK) == 0) {
		rc = crypt_import_boinc_public(bpub, pub, pem);
		if (rc == 0)
			printf("imported the code signing public key from %s (no private key: "
			       "update_versions takes each app file's FILE.sig)\n", from);
	} else if (from && code_sign) {
		rc = log_error("--import_keys %s: neither code_sign_private nor code_sign_public there",
			       from);
	} else {
		rc = crypt_generate_keypair(1024, priv, pub, pem);
		if (rc == 0 && from)
			printf("made a new %s key pair (%s has no %s_private)\n", kind, from, kind);
	}
	if (rc == 0 && !code_sign && p->o->web_user && access(priv, F_OK) == 0)
		rc = share_with_group_of(priv, p->o->web_user, 0640);
	free(priv);
	free(pub);
	free(pem);
	free(bpriv);
	free(bpub);
	return rc;
}

static int make_keys(struct project *p)
{
	/*
	 * keys/ is searchable but not listable: the CGI programs (the web user)
	 * read the public keys by name. The code signing key stays mode 0600
	 * (better still, offline); the upload key signs upload certificates in
	 * the scheduler, which runs as the web user: its group may read it.
	 */
	int rc = make_key(p, "code_sign");

	return rc == 0 ? make_key(p, "upload") : rc;
}

/* Copy every program of dir into dest (the project keeps its own copies, as BOINC's do). */
static int copy_programs(const char *dir, const char *dest)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return log_error("cannot read program directory %s: %s (set WSEQ_LIBEXECDIR?)", dir,
				 strerror(errno));
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *src, *dst;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		src = xasprintf("%s/%s", dir, e->d_name);
		if (stat(src, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR)) {
			dst = xasprintf("%s/%s", dest, e->d_name);
			rc = copy_file(src, dst, 0755);
			free(dst);
		}
		free(src);
	}
	closedir(d);
	return rc;
}

static int install_programs(struct project *p)
{
	static const char *const ctl[] = { "start", "stop", "status" };
	char *bin = mkp_path_in(p, "bin"), *cgi = mkp_path_in(p, "cgi-bin");
	char *cgisrc = xasprintf("%s/cgi-bin", p->libexec);
	size_t i;
	int rc = copy_programs(p->libexec, bin);

	if (rc == 0 && access(cgisrc, F_OK) == 0)
		rc = copy_programs(cgisrc, cgi);
	for (i = 0; rc == 0 && i < ARRAY_SIZE(ctl); i++) {
		char *link = xasprintf("%s/%s", bin, ctl[i]);
		unlink(link);
		if (symlink("wseq_ctl", link) < 0)
			rc = log_error("cannot create %s: %s", link, strerror(errno));
		free(link);
	}
	free(cgisrc);
	free(bin);
	free(cgi);
	return rc;
}

int mkp_write_text(struct project *p, const char *rel, const struct sbuf *b, mode_t mode)
{
	char *path = mkp_path_in(p, rel);
	int rc = write_file_atomic(path, sbuf_str(b), b->len, mode);

	free(path);
	return rc;
}



static int write_config(struct project *p)
{
	const struct options *o = p->o;
	struct sbuf b = SBUF_INIT(1 << 20);
	char num[32];
	size_t i;
	int rc;

	sbuf_addstr(&b, "<?xml version=\"1.0\"?>\n<!-- wseq project configuration, BOINC's format -->\n"
			"<boinc>\n  <config>\n");
	xml_elem_str(&b, 4, "long_name", o->project_name);
	xml_elem_str(&b, 4, "master_url", p->master_url);
	xml_elem_str(&b, 4, "cgi_url", p->cgi_url);
	{
		char *u = xasprintf("%sfile_upload_handler", p->cgi_url);
		xml_elem_str(&b, 4, "upload_url", u);
		free(u);
		u = xasprintf("%sdownload", p->master_url);
		xml_elem_str(&b, 4, "download_url", u);
		free(u);
	}
	xml_elem_str(&b, 4, "db_name", o->db_name);
	xml_elem_str(&b, 4, "db_user", o->db_user);
	xml_elem_str(&b, 4, "db_passwd", o->db_passwd);
	xml_elem_str(&b, 4, "db_host", o->db_host);
	snprintf(num, sizeof(num), "%ld", o->db_port);
	xml_elem_str(&b, 4, "db_port", num);
	if (o->db_socket)
		xml_elem_str(&b, 4, "db_socket", o->db_socket);
	xml_elem_str(&b, 4, "upload_dir", "upload");
	xml_elem_str(&b, 4, "download_dir", "download");
	xml_elem_str(&b, 4, "key_dir", "keys");
	xml_elem_str(&b, 4, "log_dir", "log");
	xml_elem_str(&b, 4, "pid_dir", "pid");
	xml_elem_str(&b, 4, "app_dir", "apps");
	snprintf(num, sizeof(num), "%ld", o->uldl_dir_fanout);
	xml_elem_str(&b, 4, "uldl_dir_fanout", num);
	if (o->web_user)
		xml_elem_str(&b, 4, "web_user", o->web_user);
	sbuf_addstr(&b, "  </config>\n  <daemons>\n");
	for (i = 0; i < ARRAY_SIZE(standard_daemons); i++) {
		char *prog = xasprintf("%s/%s", p->libexec, standard_daemons[i]);
		if (access(prog, X_OK) == 0)
			sbuf_addf(&b, "    <daemon><cmd>%s -d 2</cmd></daemon>\n", standard_daemons[i]);
		free(prog);
	}
	sbuf_addstr(&b, "  </daemons>\n  <tasks>\n");
	for (i = 0; i < ARRAY_SIZE(standard_tasks); i++)
		sbuf_addf(&b, "    <task><cmd>%s</cmd><period>%s</period><output>%s.out</output>%s"
			      "</task>\n", standard_tasks[i].cmd, standard_tasks[i].period,
			  standard_tasks[i].name, standard_tasks[i].disabled ? "<disabled/>" : "");
	sbuf_addstr(&b, "  </tasks>\n</boinc>\n");
	/* config.xml holds the database password: owner and web user only. */
	rc = mkp_write_text(p, "config.xml", &b, 0640);
	if (rc == 0 && o->web_user) {
		char *path = mkp_path_in(p, "config.xml");
		struct passwd *pw = getpwnam(o->web_user);
		if (pw && chown(path, getuid(), pw->pw_gid) < 0)
			rc = log_error("cannot set the group of %s: %s", path, strerror(errno));
		free(path);
	}
	sbuf_release(&b);
	return rc;
}

char *mkp_data_file(const char *name)
{
	const char *d = getenv("WSEQ_DATADIR");

	return xasprintf("%s/%s", d && *d ? d : WSEQ_PKGDATADIR, name);
}

/*
 * The home page's own text, which the admin edits (HTML, shown as written),
 * and the pages' stylesheet.
 */
static int write_home_text(struct project *p)
{
	struct sbuf b = SBUF_INIT(1 << 16);
	char *css = mkp_data_file("wseq.css"), *dst = mkp_path_in(p, "html/user/wseq.css");
	int rc;

	sbuf_addstr(&b, "<!-- The home page's text: edit it freely (HTML). The web program reads\n"
			"     it at every visit; the ways to join follow it on the page. -->\n<p>");
	xml_add_text(&b, p->o->project_name);
	sbuf_addstr(&b, " runs long scientific computations on computers that volunteers lend it\n"
			"when they are idle: climate models and molecular trajectories that take\n"
			"weeks, cut into steps that stay on one computer and carry their state from\n"
			"one step to the next. Your computer works only when you are not using it,\n"
			"and you can pause or leave at any time.</p>\n"
			"<p>Every task your computer returns is checked and earns credit for you and\n"
			"your team; the <a href=\"teams\">teams</a> page and the statistics sites show\n"
			"who contributes.</p>\n");
	rc = mkp_write_text(p, "home_page.html", &b, 0644);
	if (rc == 0)
		rc = copy_file(css, dst, 0644);
	free(css);
	free(dst);
	sbuf_release(&b);
	return rc;
}

/* A starter plan_class_spec.xml with commented, working classes (doc/plan_classes.md). */
static int write_plan_classes(struct project *p)
{
	char *src = mkp_data_file("plan_class_spec.xml.sample"), *dst = mkp_path_in(p, "plan_class_spec.xml");
	int rc = copy_file(src, dst, 0644);

	free(src);
	free(dst);
	return rc;
}

static int write_master_page(struct project *p)
{
	struct sbuf b = SBUF_INIT(1 << 16);
	int rc;

	/* The client scans the page line by line with a short buffer: one tag a line. */
	sbuf_addstr(&b, "<!DOCTYPE html>\n<html>\n<head>\n<title>");
	xml_add_text(&b, p->o->project_name);
	sbuf_addstr(&b, "</title>\n");
	sbuf_addf(&b, "<link rel=\"boinc_scheduler\" href=\"%scgi\">\n", p->cgi_url);
	sbuf_addstr(&b, "</head>\n<body>\n<h1>");
	xml_add_text(&b, p->o->project_name);
	sbuf_addstr(&b, "</h1>\n<p>A volunteer computing project. To take part, attach the BOINC client to\n");
	sbuf_addf(&b, "<a href=\"%s\">this URL</a>.</p>\n", p->master_url);
	sbuf_addf(&b, "<!--\n<scheduler>%scgi</scheduler>\n-->\n", p->cgi_url);
	sbuf_addstr(&b, "</body>\n</html>\n");
	rc = mkp_write_text(p, "html/user/index.html", &b, 0644);
	sbuf_release(&b);
	return rc;
}

static int write_apache_conf(struct project *p)
{
	struct sbuf b = SBUF_INIT(1 << 16);
	char *rel = xasprintf("%s.httpd.conf", p->name);
	int rc;

	make_project_httpd_conf(&b, p->o->url_base, p->name, p->root);
	rc = mkp_write_text(p, rel, &b, 0644);
	free(rel);
	sbuf_release(&b);
	return rc;
}

static void db_params_of(const struct options *o, struct db_params *dp)
{
	memset(dp, 0, sizeof(*dp));
	dp->name = o->db_name;
	dp->user = o->db_user;
	dp->passwd = o->db_passwd;
	dp->host = o->db_host;
	dp->socket = o->db_socket;
	dp->port = o->db_port;
}

static int make_database_empty(struct project *p)
{
	struct db_params dp;

	db_params_of(p->o, &dp);
	return db_create_database(&dp, p->o->drop_db_first) == DB_OK ? 0 : -1;
}

/* Load the schema and make the admin account, whose authenticator only keys/ holds. */
static int fill_database(struct project *p)
{
	struct db_params dp;
	char *schema = mkp_data_file("schema.sql");
	char auth[33];
	struct db *db = NULL;
	int rc;

	db_params_of(p->o, &dp);
	rc = db_open(&db, &dp, 0) == DB_OK ? 0 : -1;
	if (rc == 0)
		rc = db_load_schema(db, schema) == DB_OK ? 0 : -1;
	if (rc == 0)
		rc = random_hex(auth, 16);
	if (rc == 0) {
		log_add_secret(auth);
		rc = db_make_admin(db, "admin", p->o->admin_email, auth) == DB_OK ? 0 : -1;
	}
	if (rc == 0) {
		struct sbuf b = SBUF_INIT(64);
		sbuf_addf(&b, "%s\n", auth);
		rc = mkp_write_text(p, "keys/admin_authenticator", &b, 0600);
		sbuf_release(&b);
	}
	if (db)
		db_close(db);
	free(schema);
	return rc;
}

static int make(struct project *p)
{
	const struct options *o = p->o;
	int rc = 0;

	/* The database first: an existing one stops us before any file is touched. */
	if (!o->no_db && make_database_empty(p) < 0)
		return -1;
	if (o->delete_prev_inst)
		rc = remove_tree(p->root);
	if (rc == 0)
		rc = make_dirs(p);
	if (rc == 0)
		rc = make_fanout(p);
	if (rc == 0)
		rc = make_keys(p);
	if (rc == 0)
		rc = install_programs(p);
	if (rc == 0)
		rc = write_config(p);
	if (rc == 0)
		rc = write_plan_classes(p);
	if (rc == 0)
		rc = write_master_page(p);
	if (rc == 0)
		rc = write_home_text(p);
	if (rc == 0)
		rc = write_apache_conf(p);
	if (rc == 0 && !o->no_db)
		rc = fill_database(p);
	if (rc == 0 && (o->test_app || o->exec_app))
		rc = mkp_install_apps(p);
	return rc;
}

static void report(const struct project *p)
{
	printf("project %s created in %s\n", p->name, p->root);
	printf("master URL:      %s\n", p->master_url);
	printf("scheduler URL:   %scgi\n", p->cgi_url);
	printf("sweep URL:       %ssweep (sweep_client's base URL)\n", p->cgi_url);
	printf("ops URL:         %s%s_ops/\n", p->o->url_base, p->name);
	printf("configuration:   %s/config.xml\n", p->root);
	printf("Apache snippet:  %s/%s.httpd.conf (add 'Include' for it to your Apache configuration)\n",
	       p->root, p->name);
	if (!p->o->no_db)
		printf("admin account:   its authenticator is in %s/keys/admin_authenticator "
		       "(readable by you only)\n", p->root);
	printf("next:            cd %s && bin/start\n", p->root);
}

/* NAME [LONG_NAME] and the options, before anything is made. */
static int check_args(struct tool_ctx *ctx)
{
	struct options *o = ctx->settings;

	if (ctx->argc == 2 && o->project_name && strcmp(o->project_name, ctx->argv[1]))
		return tool_usage_error("LONG_NAME '%s' and --project_name '%s' disagree",
					ctx->argv[1], o->project_name);
	if (ctx->argc == 2 && !o->project_name)
		o->project_name = xstrdup(ctx->argv[1]);
	if (ctx->project_dir)
		o->project_root = xstrdup(ctx->project_dir);
	return check_options(o, ctx->argv[0]);
}

static void fini(struct tool_ctx *ctx)
{
	struct options *o = ctx->settings;

	free(o->project_root);
	o->project_root = NULL;
}

static int run(struct tool_ctx *ctx)
{
	const char *env_libexec = getenv("WSEQ_LIBEXECDIR");
	struct project p = { .o = ctx->settings, .name = ctx->argv[0] };
	int rc;

	p.root = p.o->project_root;
	p.master_url = xasprintf("%s%s/", p.o->url_base, p.name);
	p.cgi_url = xasprintf("%s%s_cgi/", p.o->url_base, p.name);
	p.libexec = xstrdup(env_libexec && *env_libexec ? env_libexec : WSEQ_PKGLIBEXECDIR);
	rc = make(&p);
	if (rc == 0)
		report(&p);
	else
		log_error("project %s not created", p.name);
	free(p.master_url);
	free(p.cgi_url);
	free(p.libexec);
	return rc;
}

static struct options opts;

static const struct tool_spec make_project_spec = {
	.name = "make_project",
	.usage = usage,
	.project_dir_help = "the directory to make the project in (default: ~/projects/NAME)",
	.params = options,
	.settings = &opts,
	.min_args = 1,
	.max_args = 2,
	.check = check_args,
	.run = run,
	.fini = fini,
};

int main(int argc, char **argv)
{
	return tool_main(&make_project_spec, argc, argv);
}
