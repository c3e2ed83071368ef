/* The project's config.xml; see config.h. */
#include "config.h"
#include "log.h"
#include "xml.h"

#include <libgen.h>

#define P(name, type, field, def, flags, arg, help) \
	{ name, type, offsetof(struct project_config, field), def, flags, 0, 0, arg, help }

const struct param project_params[] = {
	P("long_name", PARAM_STR, long_name, NULL, 0, "TEXT", "the project's human-readable name"),
	P("master_url", PARAM_STR, master_url, NULL, PARAM_REQUIRED, "URL", "the project's master URL, ending in /"),
	P("db_name", PARAM_STR, db_name, NULL, PARAM_REQUIRED, "NAME", "database name"),
	P("db_user", PARAM_STR, db_user, NULL, 0, "USER", "database user"),
	P("db_passwd", PARAM_STR, db_passwd, NULL, PARAM_SECRET, "PASSWORD", "database password"),
	P("db_host", PARAM_STR, db_host, "localhost", 0, "HOST", "database host (another machine is fine)"),
	{ "db_port", PARAM_INT, offsetof(struct project_config, db_port), "0", PARAM_BOUNDED, 0, 65535, "PORT",
	  "database TCP port (0: the default)" },
	P("db_socket", PARAM_STR, db_socket, NULL, 0, "PATH", "database unix socket (wins over db_host)"),
	P("upload_dir", PARAM_STR, upload_dir, "upload", 0, "DIR", "where uploaded output files go"),
	P("download_dir", PARAM_STR, download_dir, "download", 0, "DIR", "where input and app files are served from"),
	P("key_dir", PARAM_STR, key_dir, "keys", 0, "DIR", "the project's key pairs"),
	P("log_dir", PARAM_STR, log_dir, "log", 0, "DIR", "daemon and CGI logs"),
	P("pid_dir", PARAM_STR, pid_dir, "pid", 0, "DIR", "daemon pid files"),
	P("app_dir", PARAM_STR, app_dir, "apps", 0, "DIR", "application versions (update_versions reads it)"),
	P("upload_url", PARAM_STR, upload_url, NULL, 0, "URL", "the file upload handler's URL"),
	P("download_url", PARAM_STR, download_url, NULL, 0, "URL", "the URL of the download directory"),
	P("cgi_url", PARAM_STR, cgi_url, NULL, 0, "URL", "the URL of cgi-bin/, ending in /"),
	{ "uldl_dir_fanout", PARAM_INT, offsetof(struct project_config, uldl_dir_fanout), "1024", PARAM_BOUNDED,
	  1, 65536, "N", "number of subdirectories of upload and download directories" },
	P("web_user", PARAM_STR, web_user, NULL, 0, "USER", "the user CGI programs run as"),
	{ "max_wus_to_send", PARAM_INT, offsetof(struct project_config, max_wus_to_send), "10", PARAM_BOUNDED,
	  1, 100000, "N", "most jobs sent in one scheduler reply" },
	P("disable_account_creation", PARAM_BOOL, disable_account_creation, "0", 0, NULL,
	  "refuse new accounts"),
	P("stop_daemons", PARAM_BOOL, stop_daemons, "0", 0, NULL, "daemons exit (as with the stop_daemons file)"),
	P("ignore_upload_certificates", PARAM_BOOL, ignore_upload_certificates, "0", 0, NULL,
	  "FOR TESTS ONLY: the upload handler takes uploads without a valid upload certificate, "
	  "so anyone can upload under any output's name (logged as a warning on every upload)"),
	PARAM_TABLE_END
};

char *config_locate(void)
{
	const char *d = getenv("WSEQ_PROJECT_DIR");
	char *p;

	if (d && *d) {
		p = xasprintf("%s/config.xml", d);
		if (access(p, R_OK) == 0)
			return p;
		log_error("%s: %s (from WSEQ_PROJECT_DIR)", p, strerror(errno));
		free(p);
		return NULL;
	}
	if (access("config.xml", R_OK) == 0)
		return xstrdup("config.xml");
	if (access("../config.xml", R_OK) == 0)
		return xstrdup("../config.xml");
	log_error("config.xml not found in the current directory or its parent (set WSEQ_PROJECT_DIR)");
	return NULL;
}

long config_parse_period(const char *s)
{
	static const struct { const char *unit; long secs; } units[] = {
		{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
		{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 }, { "minutes", 60 },
		{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
		{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
		{ "week", 604800 }, { "weeks", 604800 },
		{ "month", 2592000 }, { "months", 2592000 },
	};
	char *end;
	long n;
	size_t i;

	if (!s)
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || n < 0)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!*end)      /* a bare number is minutes, as upstream's bin/start reads it */
		return n > LONG_MAX / 60 ? -1 : n * 60;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(end, units[i].unit))
			return n > LONG_MAX / units[i].secs ? -1 : n * units[i].secs;
	return -1;
}

/* Make a relative directory absolute against the project directory. */
/* A directory setting relative to the project directory becomes absolute;
 * an empty one is an error (it would name the daemons' working directory). */
static int absolutize(char **dir, const char *base, const char *path, const char *name)
{
	char *a;

	if (*dir && !**dir) {
		log_error("%s: <%s> is empty; give a directory or leave the element out", path, name);
		return -1;
	}
	if (!*dir || (*dir)[0] == '/')
		return 0;
	a = xasprintf("%s/%s", base, *dir);
	free(*dir);
	*dir = a;
	return 0;
}

static char *abs_path(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : xstrdup(path);
}

static void note_ignored(struct project_config *c, const char *name, long line)
{
	enum config_name_kind k = config_name_kind(name);
	struct config_ignored *g;

	if (k == CONFIG_NAME_WSEQ || c->nignored >= 1000)
		return;
	ARRAY_GROW(c->ignored, c->nignored);
	g = &c->ignored[c->nignored++];
	g->name = xstrdup(name);
	g->line = line;
	g->upstream = k == CONFIG_NAME_UPSTREAM;
}

static int read_params(struct project_config *c, xmlNode *config, const char *file,
		       const struct param *t1, void *s1, const struct param *t2, void *s2)
{
	xmlNode *n;
	int rc = 0;

	xml_for_each(n, config, NULL) {
		const char *name = (const char *)n->name;
		const struct param *p = param_find(t1, name);
		void *s = s1;
		char origin[PATH_MAX + 32];
		char *v;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!p || (p->flags & PARAM_NOCONFIG)) {
			p = param_find(t2, name);
			s = s2;
		}
		if (!p || (p->flags & PARAM_NOCONFIG)) {
			note_ignored(c, name, xml_line(n));     /* or another program's setting */
			continue;
		}
		snprintf(origin, sizeof(origin), "%s:%ld", file, xml_line(n));
		v = xml_text(n);
		if (param_set(p, s, v, origin) < 0)
			rc = -1;
		free(v);
	}
	return rc;
}

static int read_daemons(struct project_config *c, xmlNode *daemons, const char *file)
{
	xmlNode *n;
	int rc = 0;

	xml_for_each(n, daemons, "daemon") {
		struct config_daemon d = { 0 };
		char *dis = xml_child_text(n, "disabled");

		d.cmd = xml_child_text(n, "cmd");
		d.output = xml_child_text(n, "output");
		d.pid_file = xml_child_text(n, "pid_file");
		d.disabled = dis && strcmp(dis, "0") != 0;
		free(dis);
		if (!d.cmd || !*d.cmd) {
			rc = log_error("%s:%ld: <daemon> without <cmd>", file, xml_line(n));
			free(d.cmd);
			free(d.output);
			free(d.pid_file);
			continue;
		}
		ARRAY_GROW(c->daemons, c->ndaemons);
		c->daemons[c->ndaemons++] = d;
	}
	return rc;
}

static int read_tasks(struct project_config *c, xmlNode *tasks, const char *file)
{
	xmlNode *n;
	int rc = 0;

	xml_for_each(n, tasks, "task") {
		struct config_task t = { 0 };
		char *dis = xml_child_text(n, "disabled");
		char *period = xml_child_text(n, "period");

		t.cmd = xml_child_text(n, "cmd");
		t.output = xml_child_text(n, "output");
		t.disabled = dis && strcmp(dis, "0") != 0;
		t.period = config_parse_period(period);
		if (!t.cmd || !*t.cmd)
			rc = log_error("%s:%ld: <task> without <cmd>", file, xml_line(n));
		else if (t.period <= 0)
			rc = log_error("%s:%ld: <task> needs a <period> like \"1 hour\" (got '%s')", file,
				       xml_line(n), period ? period : "");
		free(dis);
		free(period);
		if (!t.cmd || !*t.cmd || t.period <= 0) {
			free(t.cmd);
			free(t.output);
			continue;
		}
		ARRAY_GROW(c->tasks, c->ntasks);
		c->tasks[c->ntasks++] = t;
	}
	return rc;
}

static int check_urls(struct project_config *c, const char *file)
{
	size_t n = strlen(c->master_url);

	if (strncmp(c->master_url, "http://", 7) && strncmp(c->master_url, "https://", 8))
		return log_error("%s: master_url must start with http:// or https:// (got '%s')", file,
				 c->master_url);
	if (!n || c->master_url[n - 1] != '/') {
		char *u = xasprintf("%s/", c->master_url);
		free(c->master_url);
		c->master_url = u;
	}
	if (!c->download_url)
		c->download_url = xasprintf("%sdownload", c->master_url);
	return 0;
}

/* Read the document (its root and sections) into c; the doc is freed. */
static int config_from_doc(struct project_config *c, xmlDoc *doc, const struct param *prog_params,
			   void *prog_settings)
{
	xmlNode *root, *n;
	int rc = 0;

	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "boinc")) {
		log_error("%s:%ld: the root element must be <boinc> (got <%s>)", c->path, xml_line(root),
			  (const char *)root->name);
		xmlFreeDoc(doc);
		return -1;
	}
	n = xml_child(root, "config");
	if (!n) {
		log_error("%s:%ld: no <config> section", c->path, xml_line(root));
		xmlFreeDoc(doc);
		return -1;
	}
	if (read_params(c, n, c->path, project_params, c, prog_params, prog_settings) < 0)
		rc = -1;
	if ((n = xml_child(root, "daemons")) && read_daemons(c, n, c->path) < 0)
		rc = -1;
	if ((n = xml_child(root, "tasks")) && read_tasks(c, n, c->path) < 0)
		rc = -1;
	xmlFreeDoc(doc);
	if (param_check_required(project_params, c, c->path) < 0)
		rc = -1;
	if (rc == 0)
		rc = check_urls(c, c->path);
	if (absolutize(&c->upload_dir, c->project_dir, c->path, "upload_dir") < 0 ||
	    absolutize(&c->download_dir, c->project_dir, c->path, "download_dir") < 0 ||
	    absolutize(&c->key_dir, c->project_dir, c->path, "key_dir") < 0 ||
	    absolutize(&c->log_dir, c->project_dir, c->path, "log_dir") < 0 ||
	    absolutize(&c->pid_dir, c->project_dir, c->path, "pid_dir") < 0 ||
	    absolutize(&c->app_dir, c->project_dir, c->path, "app_dir") < 0)
		rc = -1;
	return rc;
}

static void config_defaults(struct project_config *c, const struct param *prog_params,
			    void *prog_settings)
{
	memset(c, 0, sizeof(*c));
	param_set_defaults(project_params, c);
	if (prog_params)
		param_set_defaults(prog_params, prog_settings);
}

/* c->path (allocated, absolute) and the project directory holding it. */
static void config_set_path(struct project_config *c, char *path)
{
	char *dir = xstrdup(path);

	c->path = path;
	c->project_dir = xstrdup(dirname(dir));
	free(dir);
}

int config_load(struct project_config *c, const char *path, const struct param *prog_params,
		void *prog_settings)
{
	char *located = NULL;

	config_defaults(c, prog_params, prog_settings);
	if (!path) {
		path = located = config_locate();
		if (!path)
			return -1;
	}
	config_set_path(c, abs_path(path));
	free(located);
	return config_from_doc(c, xml_read_file(c->path, NULL), prog_params, prog_settings);
}

int config_parse(struct project_config *c, const char *path, const char *text, size_t len,
		 const struct param *prog_params, void *prog_settings)
{
	config_defaults(c, prog_params, prog_settings);
	config_set_path(c, xstrdup(path));
	return config_from_doc(c, xml_read_memory(text, len, path, NULL), prog_params,
			       prog_settings);
}

void config_release(struct project_config *c)
{
	size_t i;

	param_free(project_params, c);
	for (i = 0; i < c->ndaemons; i++) {
		free(c->daemons[i].cmd);
		free(c->daemons[i].output);
		free(c->daemons[i].pid_file);
	}
	for (i = 0; i < c->ntasks; i++) {
		free(c->tasks[i].cmd);
		free(c->tasks[i].output);
	}
	for (i = 0; i < c->nignored; i++)
		free(c->ignored[i].name);
	free(c->ignored);
	free(c->daemons);
	free(c->tasks);
	free(c->project_dir);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
