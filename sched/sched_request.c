/*
 * Parsing a BOINC scheduler request (client cs_scheduler.cpp
 * make_scheduler_request) into struct sched_request. The request comes from
 * strangers: it is parsed with the network and entities off, bounded counts,
 * and bytes that are not XML (binary junk in an app's stderr) replaced
 * rather than rejected, so a client with an ugly stderr is not locked out.
 */
#include "sched_types.h"
#include "sched_policy.h"
#include "log.h"
#include "xml.h"

#include <ctype.h>
#include <libxml/xmlstring.h>

#define MAX_LIST 10000

static double num(const xmlNode *n)
{
	char *t = xml_text(n);
	double d = 0;

	if (parse_double(t, &d) < 0)
		d = 0;
	free(t);
	return d;
}

/* A boolean element: <x/> or <x>1</x> is true, <x>0</x> false. */
static bool flag(const xmlNode *n)
{
	char *t = xml_text(n);
	bool v = !*t || (strcmp(t, "0") != 0 && strcmp(t, "false") != 0);

	free(t);
	return v;
}

static char *text_of(const xmlNode *n)
{
	return xml_text(n);
}

static void set_str(char **dst, const xmlNode *n)
{
	free(*dst);
	*dst = text_of(n);
}

/* The host figures a request reports, by tag; one table for parsing and copying. */
static const struct { const char *tag; size_t off; } host_dbls[] = {
	{ "p_fpops", offsetof(struct db_host, p_fpops) },
	{ "p_iops", offsetof(struct db_host, p_iops) },
	{ "p_membw", offsetof(struct db_host, p_membw) },
	{ "m_nbytes", offsetof(struct db_host, m_nbytes) },
	{ "m_cache", offsetof(struct db_host, m_cache) },
	{ "m_swap", offsetof(struct db_host, m_swap) },
	{ "d_total", offsetof(struct db_host, d_total) },
	{ "d_free", offsetof(struct db_host, d_free) },
	{ "on_frac", offsetof(struct db_host, on_frac) },
	{ "connected_frac", offsetof(struct db_host, connected_frac) },
	{ "active_frac", offsetof(struct db_host, active_frac) },
	{ "gpu_active_frac", offsetof(struct db_host, gpu_active_frac) },
	{ "bwup", offsetof(struct db_host, n_bwup) },
	{ "bwdown", offsetof(struct db_host, n_bwdown) },
	{ "d_boinc_used_total", offsetof(struct db_host, d_boinc_used_total) },
	{ "d_boinc_used_project", offsetof(struct db_host, d_boinc_used_project) },
	{ "d_project_share", offsetof(struct db_host, d_boinc_max) },
};
static const struct { const char *tag; size_t off; } host_strs[] = {
	{ "host_cpid", offsetof(struct db_host, host_cpid) },
	{ "domain_name", offsetof(struct db_host, domain_name) },
	{ "serialnum", offsetof(struct db_host, serialnum) },
	{ "ip_addr", offsetof(struct db_host, last_ip_addr) },
	{ "p_vendor", offsetof(struct db_host, p_vendor) },
	{ "p_model", offsetof(struct db_host, p_model) },
	{ "os_name", offsetof(struct db_host, os_name) },
	{ "os_version", offsetof(struct db_host, os_version) },
	{ "product_name", offsetof(struct db_host, product_name) },
};

#define HOST_DBL(h, i) (*(double *)((char *)(h) + host_dbls[i].off))
#define HOST_STR(h, i) (*(char **)((char *)(h) + host_strs[i].off))

/* <host_info>, <time_stats>, <net_stats>, <disk_usage> figures into the host record. */
static void parse_host_figures(const xmlNode *parent, struct db_host *h)
{
	const xmlNode *n;
	size_t i;

	xml_for_each(n, parent, NULL) {
		const char *tag = (const char *)n->name;

		if (!strcmp(tag, "p_ncpus")) {
			double v = num(n);
			h->p_ncpus = v > 0 && v < 100000 ? (int)v : 1;
			continue;
		}
		if (!strcmp(tag, "timezone")) {
			h->timezone = (int)num(n);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(host_dbls); i++)
			if (!strcmp(tag, host_dbls[i].tag))
				HOST_DBL(h, i) = num(n);
		for (i = 0; i < ARRAY_SIZE(host_strs); i++)
			if (!strcmp(tag, host_strs[i].tag))
				set_str(&HOST_STR(h, i), n);
	}
}

void sched_host_copy_figures(struct db_host *dst, const struct db_host *src)
{
	size_t i;

	dst->p_ncpus = src->p_ncpus ? src->p_ncpus : 1;
	dst->timezone = src->timezone;
	for (i = 0; i < ARRAY_SIZE(host_dbls); i++)
		HOST_DBL(dst, i) = HOST_DBL(src, i);
	for (i = 0; i < ARRAY_SIZE(host_strs); i++) {
		free(HOST_STR(dst, i));
		HOST_STR(dst, i) = xstrdup(HOST_STR(src, i) ? HOST_STR(src, i) : "");
	}
}

/* An MD5 as the client writes it: 32 hex digits. */
static bool md5_ok(const char *s)
{
	size_t i;

	for (i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[i] == '\0';
}

static int parse_result(const xmlNode *rn, struct sched_result_report *r)
{
	const xmlNode *n;
	struct sbuf doc = SBUF_INIT(1 << 20);

	xml_for_each(n, rn, NULL) {
		const char *tag = (const char *)n->name;

		if (!strcmp(tag, "name"))
			set_str(&r->name, n);
		else if (!strcmp(tag, "state"))
			r->state = (int)num(n);
		else if (!strcmp(tag, "exit_status"))
			r->exit_status = (int)num(n);
		else if (!strcmp(tag, "final_cpu_time"))
			r->final_cpu_time = num(n);
		else if (!strcmp(tag, "final_elapsed_time"))
			r->final_elapsed_time = num(n);
		else if (!strcmp(tag, "final_peak_working_set_size"))
			r->peak_working_set_size = num(n);
		else if (!strcmp(tag, "final_peak_swap_size"))
			r->peak_swap_size = num(n);
		else if (!strcmp(tag, "final_peak_disk_usage"))
			r->peak_disk_usage = num(n);
		else if (!strcmp(tag, "version_num") || !strcmp(tag, "app_version_num"))
			r->app_version_num = (int)num(n);
		else if (!strcmp(tag, "platform"))
			set_str(&r->platform, n);
		else if (!strcmp(tag, "plan_class"))
			set_str(&r->plan_class, n);
		else if (!strcmp(tag, "stderr_out")) {
			struct sbuf e = SBUF_INIT(1 << 20);
			xml_serialize_children(n, &e);
			free(r->stderr_out);
			r->stderr_out = sbuf_detach(&e, NULL);
		} else if (!strcmp(tag, "file_info")) {
			struct sched_file_report *f;
			char *md5;

			if (r->nfiles >= 1000)
				continue;
			r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
			f = &r->files[r->nfiles++];
			memset(f, 0, sizeof(*f));
			f->name = xml_child_text(n, "name");
			if (!f->name)
				f->name = xstrdup("");
			if (xml_child(n, "nbytes"))
				f->nbytes = num(xml_child(n, "nbytes"));
			if (xml_child(n, "max_nbytes"))
				f->max_nbytes = num(xml_child(n, "max_nbytes"));
			/* anything else is dropped: cut to 32 bytes it could end inside a character */
			md5 = xml_child_text(n, "md5_cksum");
			if (md5 && md5_ok(md5))
				wstrlcpy(f->md5_cksum, md5, sizeof(f->md5_cksum));
			free(md5);
			sbuf_addstr(&doc, "<file_info>\n    <name>");
			sbuf_add_xml_escaped(&doc, f->name);
			sbuf_addf(&doc, "</name>\n    <nbytes>%.0f</nbytes>\n    <max_nbytes>%.0f</max_nbytes>\n"
				  "    <md5_cksum>", f->nbytes, f->max_nbytes);
			sbuf_add_xml_escaped(&doc, f->md5_cksum);
			sbuf_addstr(&doc, "</md5_cksum>\n</file_info>\n");
		}
	}
	r->xml_doc_out = sbuf_detach(&doc, NULL);
	return r->name && *r->name ? 0 : -1;
}

/*
 * Make the bytes parseable: control characters other than tab, CR and LF
 * become '?', and a request that is not valid UTF-8 is read as Latin-1
 * (every byte is a character there).
 */
static char *clean_bytes(const char *buf, size_t len, const char **encoding)
{
	char *c = xmalloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		c[i] = (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f ? '?' : (char)ch;
	}
	c[len] = '\0';
	*encoding = xmlCheckUTF8((const xmlChar *)c) ? NULL : "ISO-8859-1";
	return c;
}

int sched_request_parse(const char *buf, size_t len, struct sched_request *r, struct sbuf *err)
{
	const char *encoding, *start;
	char *clean;
	xmlDoc *doc;
	xmlNode *root, *n;
	struct sbuf perr = SBUF_INIT(1024);
	int rc = 0;

	memset(r, 0, sizeof(*r));
	clean = clean_bytes(buf, len, &encoding);
	/* Whatever precedes the root (a stray header, an XML declaration) is skipped. */
	start = strstr(clean, "<scheduler_request");
	if (!start) {
		free(clean);
		sbuf_addstr(err, "no <scheduler_request> in the request");
		return -1;
	}
	doc = xml_read_memory_enc(start, strlen(start), "scheduler_request", encoding, &perr);
	free(clean);
	if (!doc) {
		sbuf_addf(err, "malformed request: %s", sbuf_str(&perr));
		sbuf_free(&perr);
		return -1;
	}
	sbuf_free(&perr);
	root = xmlDocGetRootElement(doc);
	xml_for_each(n, root, NULL) {
		const char *tag = (const char *)n->name;

		if (!strcmp(tag, "authenticator"))
			set_str(&r->authenticator, n);
		else if (!strcmp(tag, "hostid"))
			r->hostid = (int64_t)num(n);
		else if (!strcmp(tag, "rpc_seqno"))
			r->rpc_seqno = (int)num(n);
		else if (!strcmp(tag, "core_client_major_version"))
			r->core_major = (int)num(n);
		else if (!strcmp(tag, "core_client_minor_version"))
			r->core_minor = (int)num(n);
		else if (!strcmp(tag, "core_client_release"))
			r->core_release = (int)num(n);
		else if (!strcmp(tag, "platform_name") || !strcmp(tag, "alt_platform")) {
			char *p = !strcmp(tag, "platform_name") ? text_of(n) : xml_child_text(n, "name");
			if (p && *p && r->nplatforms < SCHED_MAX_PLATFORMS)
				r->platforms[r->nplatforms++] = p;
			else
				free(p);
		} else if (!strcmp(tag, "work_req_seconds"))
			r->work_req_seconds = num(n);
		else if (!strcmp(tag, "cpu_req_secs"))
			r->cpu_req_secs = num(n);
		else if (!strcmp(tag, "cpu_req_instances"))
			r->cpu_req_instances = num(n);
		else if (!strcmp(tag, "estimated_delay"))
			r->estimated_delay = num(n);
		else if (!strcmp(tag, "duration_correction_factor"))
			r->duration_correction_factor = num(n);
		else if (!strcmp(tag, "dont_send_work"))
			r->dont_send_work = flag(n);
		else if (!strcmp(tag, "code_sign_key"))
			r->has_code_sign_key = true;
		else if (!strcmp(tag, "host_info") || !strcmp(tag, "time_stats") ||
			 !strcmp(tag, "net_stats") || !strcmp(tag, "disk_usage"))
			parse_host_figures(n, &r->host);
		else if (!strcmp(tag, "result")) {
			if (r->nresults >= MAX_LIST) {
				rc = -1;
				sbuf_addstr(err, "too many results in the request");
				break;
			}
			r->results = xrealloc(r->results, (r->nresults + 1) * sizeof(*r->results));
			memset(&r->results[r->nresults], 0, sizeof(*r->results));
			if (parse_result(n, &r->results[r->nresults]) < 0) {
				rc = -1;
				sbuf_addstr(err, "a reported result has no name");
				r->nresults++;
				break;
			}
			r->nresults++;
		} else if (!strcmp(tag, "file_info")) {
			struct sched_sticky_file *f;

			if (r->nsticky >= MAX_LIST)
				continue;
			r->sticky = xrealloc(r->sticky, (r->nsticky + 1) * sizeof(*r->sticky));
			f = &r->sticky[r->nsticky++];
			memset(f, 0, sizeof(*f));
			f->name = xml_child_text(n, "name");
			if (!f->name)
				f->name = xstrdup("");
			if (xml_child(n, "nbytes"))
				f->nbytes = num(xml_child(n, "nbytes"));
			f->status = xml_child(n, "status") ? (int)num(xml_child(n, "status")) : 0;
		} else if (!strcmp(tag, "other_results")) {
			const xmlNode *o;
			xml_for_each(o, n, "other_result") {
				if (r->nother >= MAX_LIST)
					break;
				r->other = xrealloc(r->other, (r->nother + 1) * sizeof(*r->other));
				r->other[r->nother].name = xml_child_text(o, "name");
				if (!r->other[r->nother].name)
					r->other[r->nother].name = xstrdup("");
				r->nother++;
			}
		}
	}
	xmlFreeDoc(doc);
	if (rc == 0 && (!r->authenticator || !*r->authenticator)) {
		sbuf_addstr(err, "the request has no authenticator");
		rc = -1;
	}
	if (rc == 0 && r->nplatforms == 0) {
		sbuf_addstr(err, "the request names no platform");
		rc = -1;
	}
	return rc;
}

void sched_request_free(struct sched_request *r)
{
	size_t i, j;
	int k;

	free(r->authenticator);
	for (k = 0; k < r->nplatforms; k++)
		free(r->platforms[k]);
	db_host_free(&r->host);
	for (i = 0; i < r->nresults; i++) {
		struct sched_result_report *x = &r->results[i];
		free(x->name);
		free(x->platform);
		free(x->plan_class);
		free(x->stderr_out);
		free(x->xml_doc_out);
		for (j = 0; j < x->nfiles; j++)
			free(x->files[j].name);
		free(x->files);
	}
	free(r->results);
	for (i = 0; i < r->nsticky; i++)
		free(r->sticky[i].name);
	free(r->sticky);
	for (i = 0; i < r->nother; i++)
		free(r->other[i].name);
	free(r->other);
	memset(r, 0, sizeof(*r));
}
