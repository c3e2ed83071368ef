/*
 * BOINC remote job submission RPCs over libcurl, shared by boinc_gahp and
 * wseq_submit; see submit_client.h and doc/boinc_gahp.md for the exact
 * requests. Transfers give up when the program's stop hook says so (the gahp
 * at the end of its input), so quitting is prompt even with requests in flight.
 */
#include "submit_client.h"
#include "log.h"
#include "xml_write.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>

#define MAX_REPLY (256L * 1024 * 1024)

static mode_t file_mode = 0644;
static bool (*stop_hook)(void);
static const char *user_agent = "wseq boinc_gahp";

void rpc_set_stop_hook(bool (*fn)(void))
{
	stop_hook = fn;
}

bool rpc_stopping(void)
{
	return stop_hook && stop_hook();
}

void rpc_set_user_agent(const char *ua)
{
	user_agent = ua;
}

int rpc_global_init(void)
{
	mode_t m = umask(022);

	umask(m);
	file_mode = 0666 & ~m;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return log_error("cannot initialize libcurl");
	xmlInitParser();
	return 0;
}

void rpc_global_cleanup(void)
{
	curl_global_cleanup();
	xmlCleanupParser();
}

void rpc_begin(struct sbuf *b, const char *root, const char *auth)
{
	sbuf_addf(b, "<%s>\n", root);
	if (auth)
		xml_elem_str(b, 0, "authenticator", auth);
}

void rpc_end(struct sbuf *b, const char *root)
{
	sbuf_addf(b, "</%s>\n", root);
}

static int progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		    curl_off_t ulnow)
{
	(void)arg;
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return stop_hook && stop_hook() ? 1 : 0;
}

static size_t to_sbuf(char *p, size_t size, size_t n, void *arg)
{
	struct sbuf *b = arg;

	return sbuf_add(b, p, size * n) < 0 ? 0 : size * n;
}

static CURL *handle(char *errbuf)
{
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, user_agent);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	/* a stalled server, not a slow one, is an error */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 300L);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	return c;
}

static void transport_error(struct sbuf *err, CURLcode rc, const char *errbuf)
{
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		sbuf_addstr(err, "interrupted: the gahp is quitting");
	else
		sbuf_addf(err, "HTTP error: %s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
}

/* The reply's <error> (as root or a child of root) if its error_num is not 0. */
static int reply_error(xmlNode *root, struct sbuf *err)
{
	xmlNode *e = xml_is(root, "error") ? root : xml_child(root, "error");
	char *num, *msg;
	long n = -1;

	if (!e)
		return 0;
	num = xml_child_text(e, "error_num");
	if (num && parse_long(num, &n) == 0 && n == 0) {
		free(num);
		return 0;
	}
	msg = xml_child_text(e, "error_msg");
	sbuf_addstr(err, msg && *msg ? msg : "the server reported an error");
	free(num);
	free(msg);
	return -1;
}

int rpc_reply_parse(const char *body, size_t len, const char *script, const char *root_name,
		    xmlDoc **docp, struct sbuf *err)
{
	xmlDoc *doc = xml_read_memory(body, len, script, NULL);
	xmlNode *root;

	*docp = NULL;
	if (!doc) {
		sbuf_addf(err, "the reply of %s is not XML", script);
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (reply_error(root, err) < 0) {
		xmlFreeDoc(doc);
		return RPC_REFUSED;
	}
	if (!xml_is(root, root_name)) {
		sbuf_addf(err, "unexpected reply <%s> from %s", (const char *)root->name, script);
		xmlFreeDoc(doc);
		return -1;
	}
	*docp = doc;
	return 0;
}

int rpc_post(const char *url, const char *script, const struct sbuf *request,
	     char *const *files, size_t nfiles, const char *root_name, xmlDoc **docp,
	     struct sbuf *err)
{
	char errbuf[CURL_ERROR_SIZE];
	struct sbuf body = SBUF_INIT(MAX_REPLY);
	struct sbuf target = SBUF_INIT(64 * 1024);
	curl_mime *form = NULL;
	curl_mimepart *part;
	CURL *c;
	CURLcode rc;
	long status = 0;
	size_t i;
	int ret = -1;

	*docp = NULL;
	c = handle(errbuf);
	if (!c) {
		sbuf_addstr(err, "cannot create a curl handle");
		return -1;
	}
	sbuf_addstr(&target, url);
	sbuf_addstr(&target, script);
	form = curl_mime_init(c);
	part = curl_mime_addpart(form);
	curl_mime_name(part, "request");
	curl_mime_data(part, request->buf ? request->buf : "", request->len);
	for (i = 0; i < nfiles; i++) {
		char name[32];

		snprintf(name, sizeof(name), "file_%zu", i);
		part = curl_mime_addpart(form);
		curl_mime_name(part, name);
		if (curl_mime_filedata(part, files[i]) != CURLE_OK) {
			sbuf_addf(err, "cannot read %s", files[i]);
			goto out;
		}
	}
	curl_easy_setopt(c, CURLOPT_URL, sbuf_str(&target));
	curl_easy_setopt(c, CURLOPT_MIMEPOST, form);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, to_sbuf);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (rc == CURLE_WRITE_ERROR && body.len >= body.max)
			sbuf_addstr(err, "reply too large");
		else
			transport_error(err, rc, errbuf);
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		sbuf_addf(err, "HTTP status %ld from %s", status, script);
		goto out;
	}
	ret = rpc_reply_parse(body.buf ? body.buf : "", body.len, script, root_name, docp, err);
out:
	curl_mime_free(form);
	curl_easy_cleanup(c);
	sbuf_release(&body);
	sbuf_release(&target);
	return ret;
}

int rpc_simple(const char *url, const struct sbuf *request, const char *root_name,
	       struct sbuf *err)
{
	xmlDoc *doc;
	int ret = 0;

	if (rpc_post(url, "submit_rpc_handler.php", request, NULL, 0, root_name, &doc, err) < 0)
		return -1;
	if (!xml_child(xmlDocGetRootElement(doc), "success")) {
		sbuf_addf(err, "no <success> in the reply to %s", root_name);
		ret = -1;
	}
	xmlFreeDoc(doc);
	return ret;
}

char *rpc_child_text(xmlNode *root, const char *name)
{
	return xml_child_text(root, name);
}

static char *escaped(CURL *c, const char *s)
{
	char *e = curl_easy_escape(c, s, 0);
	char *r = xstrdup(e ? e : "");

	curl_free(e);
	return r;
}

int rpc_get_output(const char *url, const char *auth, const char *job, int file_num,
		   const char *dest, struct sbuf *err)
{
	char errbuf[CURL_ERROR_SIZE];
	struct sbuf target = SBUF_INIT(64 * 1024);
	char *tmp = NULL, *a, *j;
	FILE *fp = NULL;
	CURL *c;
	CURLcode rc;
	long status = 0;
	int fd, ret = -1;

	c = handle(errbuf);
	if (!c) {
		sbuf_addstr(err, "cannot create a curl handle");
		return -1;
	}
	a = escaped(c, auth);
	j = escaped(c, job);
	sbuf_addf(&target, "%sget_output.php?cmd=workunit_file&auth_str=%s&wu_name=%s&file_num=%d",
		  url, a, j, file_num);
	free(a);
	free(j);
	tmp = xasprintf("%s.gahp-XXXXXX", dest);
	fd = mkstemp(tmp);
	if (fd < 0) {
		sbuf_addf(err, "cannot create %s: %s", dest, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	fchmod(fd, file_mode);
	fp = fdopen(fd, "w+");
	if (!fp) {
		close(fd);
		sbuf_addf(err, "cannot write %s: %s", dest, strerror(errno));
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_URL, sbuf_str(&target));
	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, fp);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		transport_error(err, rc, errbuf);
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		char text[160];
		size_t n;

		rewind(fp);
		n = fread(text, 1, sizeof(text) - 1, fp);
		text[n] = '\0';
		text[strcspn(text, "\r\n")] = '\0';
		sbuf_addf(err, "HTTP status %ld for output file %d%s%s", status, file_num,
			  text[0] ? ": " : "", text);
		goto out;
	}
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0 || ferror(fp)) {
		sbuf_addf(err, "cannot write %s: %s", dest, strerror(errno));
		goto out;
	}
	if (rename(tmp, dest) != 0) {
		sbuf_addf(err, "cannot rename to %s: %s", dest, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	ret = 0;
out:
	if (fp)
		fclose(fp);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	curl_easy_cleanup(c);
	sbuf_release(&target);
	return ret;
}

static void collect_open_names(xmlNode *n, char ***v, size_t *count)
{
	xmlNode *c;

	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (xml_is(c, "open_name")) {
			ARRAY_GROW(*v, *count);
			(*v)[(*count)++] = xml_text(c);
		} else {
			collect_open_names(c, v, count);
		}
	}
}

static xmlNode *find_elem(xmlNode *n, const char *name)
{
	xmlNode *c, *f;

	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (xml_is(c, name))
			return c;
		if ((f = find_elem(c, name)) != NULL)
			return f;
	}
	return NULL;
}

int rpc_templates_from_reply(xmlDoc *doc, struct rpc_templates *t, struct sbuf *err)
{
	xmlNode *tpl = find_elem(xmlDocGetRootElement(doc), "templates"), *in, *out;

	memset(t, 0, sizeof(*t));
	if (!tpl) {
		sbuf_addstr(err, "no <templates> in the reply");
		return -1;
	}
	/* templates without their root elements (older BOINC) have bare
	 * <workunit> and <result> parts holding the open_names */
	in = find_elem(tpl, "input_template");
	if (!in)
		in = find_elem(tpl, "workunit");
	out = find_elem(tpl, "output_template");
	if (!out)
		out = find_elem(tpl, "result");
	if (in)
		collect_open_names(in, &t->in, &t->nin);
	if (out)
		collect_open_names(out, &t->out, &t->nout);
	t->any_executable = find_elem(tpl, "any_executable") != NULL;
	return 0;
}

int rpc_get_templates(const char *url, const char *auth, const char *app, const char *job,
		      struct rpc_templates *t, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	xmlDoc *doc;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	rpc_begin(&req, "get_templates", auth);
	if (app)
		xml_elem_str(&req, 0, "app_name", app);
	else
		xml_elem_str(&req, 0, "job_name", job);
	rpc_end(&req, "get_templates");
	if (rpc_post(url, "submit_rpc_handler.php", &req, NULL, 0, "get_templates", &doc, err) == 0) {
		ret = rpc_templates_from_reply(doc, t, err);
		xmlFreeDoc(doc);
	}
	sbuf_release(&req);
	return ret;
}

void rpc_templates_release(struct rpc_templates *t)
{
	size_t i;

	for (i = 0; i < t->nin; i++)
		free(t->in[i]);
	for (i = 0; i < t->nout; i++)
		free(t->out[i]);
	free(t->in);
	free(t->out);
	memset(t, 0, sizeof(*t));
}

void rpc_job_status_free(struct rpc_job_status *jobs, size_t njobs)
{
	size_t i;

	for (i = 0; i < njobs; i++) {
		free(jobs[i].name);
		free(jobs[i].status);
	}
	free(jobs);
}

int rpc_query_batch(const char *url, const char *auth, const char *batch,
		    struct rpc_job_status **jobsp, size_t *njobsp, double *server_time,
		    struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	struct rpc_job_status *jobs = NULL;
	size_t n = 0, cap = 0;
	long size = -1;
	xmlDoc *doc;
	xmlNode *root, *c;
	char *st;
	int ret = -1;

	*jobsp = NULL;
	*njobsp = 0;
	rpc_begin(&req, "query_batch2", auth);
	xml_elem_str(&req, 0, "min_mod_time", "0");
	xml_elem_str(&req, 0, "batch_name", batch);
	rpc_end(&req, "query_batch2");
	if (rpc_post(url, "submit_rpc_handler.php", &req, NULL, 0, "query_batch2", &doc, err) < 0) {
		sbuf_release(&req);
		return -1;
	}
	sbuf_release(&req);
	root = xmlDocGetRootElement(doc);
	st = xml_child_text(root, "server_time");
	if (!st || parse_double(st, server_time) < 0) {
		sbuf_addstr(err, "no <server_time> in the reply");
		goto out;
	}
	for (c = root->children; c; c = c->next) {
		if (xml_is(c, "batch_size")) {
			char *t = xml_text(c);

			if (size >= 0 || parse_long(t, &size) < 0 || size < 0) {
				free(t);
				sbuf_addstr(err, "bad <batch_size> in the reply");
				goto out;
			}
			free(t);
		} else if (xml_is(c, "job")) {
			char *name = xml_child_text(c, "job_name");
			char *status = xml_child_text(c, "status");

			if (!name || !*name || !status || !*status || size < 0 || (long)n >= size) {
				free(name);
				free(status);
				sbuf_addstr(err, "a <job> of the reply does not fit its <batch_size>");
				goto out;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				jobs = xrealloc(jobs, cap * sizeof(*jobs));
			}
			jobs[n].name = name;
			jobs[n].status = status;
			n++;
		}
	}
	if (size < 0 || (long)n != size) {
		sbuf_addstr(err, "the reply does not list the batch's jobs");
		goto out;
	}
	*jobsp = jobs;
	*njobsp = n;
	jobs = NULL;
	n = 0;
	ret = 0;
out:
	rpc_job_status_free(jobs, n);
	free(st);
	xmlFreeDoc(doc);
	return ret;
}

void rpc_unescape_entities(char *s)
{
	static const struct { const char *name; char c; } ents[] = {
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	char *r = s, *w = s;

	while (*r) {
		size_t i;
		bool done = false;

		if (*r == '&') {
			for (i = 0; i < ARRAY_SIZE(ents) && !done; i++) {
				size_t l = strlen(ents[i].name);

				if (strncmp(r, ents[i].name, l) == 0) {
					*w++ = ents[i].c;
					r += l;
					done = true;
				}
			}
			if (!done && r[1] == '#') {
				char *end;
				long v = r[2] == 'x' ? strtol(r + 3, &end, 16) : strtol(r + 2, &end, 10);

				if (*end == ';' && v > 0 && v < 256) {
					*w++ = (char)v;
					r = end + 1;
					done = true;
				}
			}
		}
		if (!done)
			*w++ = *r++;
	}
	*w = '\0';
}

static long child_long(xmlNode *n, const char *name)
{
	char *t = xml_child_text(n, name);
	long v = 0;

	if (!t || parse_long(t, &v) < 0)
		v = 0;
	free(t);
	return v;
}

static double child_double(xmlNode *n, const char *name)
{
	char *t = xml_child_text(n, name);
	double v = 0;

	if (!t || parse_double(t, &v) < 0)
		v = 0;
	free(t);
	return v;
}

void rpc_completed_release(struct rpc_completed *c)
{
	free(c->stderr_out);
	memset(c, 0, sizeof(*c));
}

int rpc_query_completed_job(const char *url, const char *auth, const char *job,
			    struct rpc_completed *c, struct sbuf *err)
{
	struct sbuf req = SBUF_INIT(64 * 1024);
	xmlDoc *doc;
	xmlNode *j, *se;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	rpc_begin(&req, "query_completed_job", auth);
	xml_elem_str(&req, 0, "job_name", job);
	rpc_end(&req, "query_completed_job");
	if (rpc_post(url, "submit_rpc_handler.php", &req, NULL, 0, "query_completed_job", &doc,
		     err) < 0) {
		sbuf_release(&req);
		return -1;
	}
	sbuf_release(&req);
	j = xml_child(xmlDocGetRootElement(doc), "completed_job");
	if (!j) {
		sbuf_addstr(err, "no <completed_job> in the reply");
	} else {
		c->canonical_resultid = child_long(j, "canonical_resultid");
		c->error_resultid = child_long(j, "error_resultid");
		c->error_mask = child_long(j, "error_mask");
		c->exit_status = child_long(j, "exit_status");
		c->elapsed_time = child_double(j, "elapsed_time");
		c->cpu_time = child_double(j, "cpu_time");
		se = xml_child(j, "stderr_out");
		if (se) {
			xmlChar *text = xmlNodeGetContent(se);

			c->stderr_out = xstrdup(text ? (const char *)text : "");
			xmlFree(text);
			rpc_unescape_entities(c->stderr_out);
		}
		ret = 0;
	}
	xmlFreeDoc(doc);
	return ret;
}
