/*
 * make_project's Apache configuration snippet, NAME.httpd.conf: every URL of
 * the project under its own three prefixes (URL_BASE/NAME/, NAME_cgi/,
 * NAME_ops/), so projects of other names share one Apache, and the programs
 * that run as FastCGI servers where mod_fcgid is loaded.
 */
#include "common.h"
#include "make_project_httpd.h"
#include "serve.h"

/* The path part of url_base ("" or "/x"), for the Apache snippet's Alias lines. */
static char *url_path(const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p ? strchr(p + 3, '/') : NULL;
	if (!p)
		return xstrdup("");
	n = strlen(p);
	while (n && p[n - 1] == '/')
		n--;
	return xstrndup(p, n);
}

/* The same path as a regular expression: every character taken literally. */
static char *url_path_regex(const char *path)
{
	struct sbuf b = SBUF_INIT(4096);

	for (; *path; path++) {
		if (strchr("\\.^$|?*+()[]{}", *path))
			sbuf_addch(&b, '\\');
		sbuf_addch(&b, *path);
	}
	return sbuf_detach(&b, NULL);
}

#define WEB_RPC_NAMES "get_project_config|create_account|lookup_account|am_get_info|" \
	"am_set_info|show_user|team_lookup"

#define WEB_PAGE_NAMES "index\\.php|join|login|logout|account|host|results|teams|team|" \
	"team_create|team_join|team_leave|apps|server_status|server_status\\.php|" \
	"get_passwd\\.php|reset_passwd|edit_email_form\\.php|confirm_email|opt_out\\.php|" \
	"delete_account_request\\.php|delete_account_confirm\\.php|account_data|news|notices\\.php|" \
	"rss_main\\.php|prefs_edit\\.php"

/*
 * The programs that run as FastCGI servers under mod_fcgid (each also runs
 * as plain CGI where the module is not loaded), and for each how many
 * processes at most and at least. Every process renews itself after
 * FCGI_MAX_REQUESTS requests plus up to half again (serve.c: it executes its
 * program afresh, same pid, same socket), so mod_fcgid is told no request
 * limit and no lifetime: a process it retired would leave a gap that makes
 * requests wait a second, and processes started together would be retired
 * together (by count, or at one idle scan by age). The upload handler stays plain CGI:
 * mod_fcgid reads a whole request body before the program sees a byte, so
 * a large upload could not resume where a broken one stopped, and no body
 * could pass FcgidMaxRequestLen.
 */
static const struct {
	const char *prog;
	int max_processes, min_processes;
} fcgi_progs[] = {
	{ "cgi", 16, 2 },       /* the scheduler */
	{ "web", 8, 1 },
	{ "submit", 8, 1 },
	{ "sweep", 16, 2 },
	{ "ops", 2, 0 },        /* the admins' pages */
};
#define FCGI_MAX_REQUESTS 10000

/*
 * download/: app versions, inputs, and files a submitter uploaded or a host
 * made (a sequence's state) -- served as downloads, never as pages, never
 * run: one fixed type for every file, whatever its name or content says;
 * as an attachment; not sniffed; and were a browser to show it anyway, in
 * a sandbox with no script and no cookie of the project's origin. No
 * handler runs there (the Files section comes after any server-wide one,
 * such as PHP's, and wins). BOINC clients ignore all of it.
 */
static void download_dir_conf(struct sbuf *b, const char *root)
{
	sbuf_addf(b, "<Directory \"%s/download\">\n"
		      "    Options -Indexes -ExecCGI -Includes -MultiViews\n"
		      "    AllowOverride None\n"
		      "    Require all granted\n"
		      "    <Files \"*\">\n"
		      "        SetHandler default-handler\n"
		      "        ForceType application/octet-stream\n"
		      "    </Files>\n"
		      "    <IfModule mod_php.c>\n        php_admin_flag engine off\n    </IfModule>\n"
		      "    <IfModule mod_php7.c>\n        php_admin_flag engine off\n    </IfModule>\n"
		      "    Header always set Content-Disposition attachment\n"
		      "    Header always set X-Content-Type-Options nosniff\n"
		      "    Header always set Content-Security-Policy \"%s\"\n"
		      "</Directory>\n\n", root, SERVE_UNTRUSTED_CSP);
}

void make_project_httpd_conf(struct sbuf *b, const char *url_base, const char *name,
			     const char *root)
{
	char *base = url_path(url_base), *re = url_path_regex(base);
	char *rel = xasprintf("%s.httpd.conf", name);

	sbuf_addf(b, "# Apache configuration for the wseq project %s, made by make_project.\n"
		      "# Include it from the server configuration: Include %s/%s\n"
		      "# (needs mod_alias, mod_cgid or mod_cgi, mod_authz_core, mod_mime, mod_headers;\n"
		      "# mod_fcgid if loaded\n"
		      "# runs the scheduler, the web program, submit, sweep and ops as FastCGI servers).\n#\n"
		      "# Every URL of the project is under one of its own three prefixes, so that\n"
		      "# projects sharing one Apache never answer for each other:\n"
		      "#   %s/%s/      master URL: home page, volunteers' pages, account RPCs\n"
		      "#        (get_project_config.php ...), submit RPCs, download/, stats/\n"
		      "#   %s/%s_cgi/  cgi-bin: the scheduler (cgi), the upload handler\n"
		      "#        (file_upload_handler) and the parameter sweep (sweep/config, sweep/task ...)\n"
		      "#   %s/%s_ops/  the ops pages (cgi-bin/ops)\n"
		      "# Nothing answers at the server's root. The one server-wide line is\n"
		      "# FcgidMaxRequestLen, below.\n\n",
		  name, root, rel, base, name, base, name, base, name);
	/* BOINC's remote submission URLs: first, so the Alias of html/user below does not take them */
	sbuf_addf(b, "ScriptAliasMatch ^%s/%s/(submit_rpc_handler|job_file|get_output2?)\\.php$ "
		      "%s/cgi-bin/submit\n", re, name, root);
	/*
	 * The account RPCs clients and account managers call, at their
	 * protocol names: the volunteers' web program answers them.
	 */
	sbuf_addf(b, "ScriptAliasMatch ^%s/%s/(%s)\\.php$ %s/cgi-bin/web\n", re, name,
		  WEB_RPC_NAMES, root);
	/* ... and the volunteers' pages, the home page (the master URL) first */
	sbuf_addf(b, "ScriptAliasMatch ^%s/%s/(%s)?$ %s/cgi-bin/web\n", re, name,
		  WEB_PAGE_NAMES, root);
	/*
	 * The ops pages: every URL under the ops path goes to the ops program,
	 * which answers 401 to all of them until an admin signs in (no
	 * "Require local": admins work from afar, and a proxy is local).
	 */
	sbuf_addf(b, "ScriptAliasMatch ^%s/%s_ops(/.*)?$ %s/cgi-bin/ops\n", re, name, root);
	/*
	 * With mod_fcgid a few persistent processes answer each program's
	 * requests, each keeping its configuration, keys and database
	 * connection; else one CGI process a request.
	 */
	sbuf_addstr(b, "<IfModule mod_fcgid.c>\n");
	for (size_t i = 0; i < ARRAY_SIZE(fcgi_progs); i++)
		sbuf_addf(b, "FcgidCmdOptions %s/cgi-bin/%s MaxProcesses %d MinProcesses %d "
			      "IdleTimeout 300 MaxProcessLifetime 0 IOTimeout 300 "
			      "MaxRequestsPerProcess 0 InitialEnv WSEQ_FCGI_MAX_REQUESTS=%d\n",
			  root, fcgi_progs[i].prog, fcgi_progs[i].max_processes,
			  fcgi_progs[i].min_processes, FCGI_MAX_REQUESTS);
	/*
	 * mod_fcgid reads a whole request body before the program sees a byte
	 * and refuses one past FcgidMaxRequestLen (128 KiB by default), which it
	 * takes per server or virtual host only, never per directory.
	 */
	sbuf_addstr(b, "# Server-wide (mod_fcgid allows no narrower place): the most it buffers of\n"
			"# a request body, 1 GiB for a sweep's results (/complete) or a submit\n"
			"# request. Every wseq project writes the same value, so projects agree. A\n"
			"# ceiling, not a limit any wseq program relies on: each bounds the bodies\n"
			"# it takes itself. To keep it from other FastCGI applications of this\n"
			"# server, Include this file inside a <VirtualHost>.\n"
			"FcgidMaxRequestLen 1073741824\n</IfModule>\n");
	sbuf_addf(b, "Alias %s/%s/download %s/download\n", base, name, root);
	/* the statistics export (db_dump), before the web root's Alias that would take it */
	sbuf_addf(b, "Alias %s/%s/stats %s/html/stats\n", base, name, root);
	sbuf_addf(b, "Alias %s/%s %s/html/user\n", base, name, root);
	sbuf_addf(b, "# The scheduler (%s_cgi/cgi), the upload handler, and the parameter sweep's\n"
		      "# endpoints: %s_cgi/sweep is the base URL the sweep master gives\n"
		      "# sweep_client, and the protocol's own paths follow it (the sweep design's /task is\n"
		      "# %s_cgi/sweep/task, PATH_INFO to cgi-bin/sweep).\n", name, name, name);
	sbuf_addf(b, "ScriptAlias %s/%s_cgi %s/cgi-bin\n\n", base, name, root);
	sbuf_addf(b, "<Directory \"%s/html/user\">\n    Options -Indexes\n    AllowOverride None\n"
		      "    DirectoryIndex index.html\n    Require all granted\n</Directory>\n\n", root);
	sbuf_addf(b, "<Directory \"%s/html/stats\">\n    Options Indexes\n    AllowOverride None\n"
		      "    Require all granted\n</Directory>\n\n", root);
	download_dir_conf(b, root);
	/*
	 * Uploads: no web server limit on the body (Apache's default is 1 GiB,
	 * less than a large state file); the upload handler enforces each
	 * file's signed max_nbytes and answers every refusal in its protocol.
	 */
	sbuf_addf(b, "<Directory \"%s/cgi-bin\">\n    Options +ExecCGI -Indexes\n    AllowOverride None\n"
		      "    Require all granted\n"
		      "    <Files \"file_upload_handler\">\n        LimitRequestBody 0\n    </Files>\n"
		      "    <Files \"web\">\n        LimitRequestBody 67108864\n    </Files>\n"
		      "    <Files \"ops\">\n        LimitRequestBody 1048576\n    </Files>\n"
		      "    <IfModule mod_fcgid.c>\n        <FilesMatch \"^(cgi|web|submit|sweep|ops)$\">\n"
		      "            SetHandler fcgid-script\n        </FilesMatch>\n    </IfModule>\n"
		      "</Directory>\n", root);
	free(rel);
	free(base);
	free(re);
}
