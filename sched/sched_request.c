/*
 * Parsing a BOINC scheduler request (client cs_scheduler.cpp
 * make_scheduler_request) into struct sched_request. The request comes from
 * strangers: it is parsed with the network and entities off, bounded counts,
 * and bytes that are not XML (binary junk in an app's stderr) replaced
 * rather than rejected, so a client with an ugly stderr is not locked out.
 */
#include "sched_types.h"
#include "sched_policy.h"
#include "field.h"
#include "log.h"
#include "xml.h"

#include <math.h>

#define MAX_LIST 10000
#define MAX_FILES 1000
#define NOTES_MAX 2000
#define P_FEATURES_CHARS 8191   /* upstream's client holds 8192 bytes */
/* Bounds for figures: far beyond any real machine, small enough for any arithmetic. */
#define BIG 1e18

/* State while reading one request: where corrections to its fields are noted. */
struct parse {
	struct sched_request *r;
	struct sbuf notes;
};

/* A number field, clamped into [min, max]; anything unreadable leaves *out and is noted. */
static void get_double(struct parse *ps, const xmlNode *n, double min, double max, double *out)
{
	char *t = xml_text(n);

	field_double((const char *)n->name, t, min, max, FIELD_CLAMP, out, &ps->notes);
	free(t);
}

static void get_int(struct parse *ps, const xmlNode *n, int min, int max, int *out)
{
	char *t = xml_text(n);

	field_int((const char *)n->name, t, min, max, FIELD_CLAMP, out, &ps->notes);
	free(t);
}

/* A string field: at most max characters, bytes XML cannot carry as '?'. */
static void get_text(struct parse *ps, const xmlNode *n, size_t max, char **out)
{
	char *t = xml_text(n), *v = NULL;

	if (field_str((const char *)n->name, t, max, FIELD_CUT | FIELD_CLEAN, &v,
		      &ps->notes) != FIELD_BAD) {
		free(*out);
		*out = v;
	}
	free(t);
}

/* A string field: at most a column's characters. */
static void get_str(struct parse *ps, const xmlNode *n, char **out)
{
	get_text(ps, n, FIELD_COLUMN_CHARS, out);
}

/* A name as sent (it is echoed back in acks and aborts); "" if absent. */
static char *child_name(const xmlNode *n, const char *tag)
{
	char *t = xml_child_text(n, tag);

	return t ? t : xstrdup("");
}

/* One more zeroed element at the end of array arr of n elements; NULL when max are there. */
#define APPEND(arr, n, max)                                                              \
	((n) < (max) ? (ARRAY_GROW(arr, n),                                              \
			memset(&(arr)[(n)], 0, sizeof(*(arr))), &(arr)[(n)++])           \
		     : NULL)

/* A boolean element: <x/> or <x>1</x> is true, <x>0</x> false. */
static bool flag(const xmlNode *n)
{
	char *t = xml_text(n);
	bool v = !*t || (strcmp(t, "0") != 0 && strcmp(t, "false") != 0);

	free(t);
	return v;
}

/*
 * The host figures a request reports, by tag, with their bounds; one table
 * for parsing and copying. A bound is never below what a real client sends
 * by design: 7.20 sends connected_frac -1 for "unknown" (stored as upstream does).
 */
static const struct { const char *tag; size_t off; double min, max; } host_dbls[] = {
	{ "p_fpops", offsetof(struct db_host, p_fpops), 0, BIG },
	{ "p_iops", offsetof(struct db_host, p_iops), 0, BIG },
	{ "p_membw", offsetof(struct db_host, p_membw), 0, BIG },
	{ "m_nbytes", offsetof(struct db_host, m_nbytes), 0, BIG },
	{ "m_cache", offsetof(struct db_host, m_cache), 0, BIG },
	{ "m_swap", offsetof(struct db_host, m_swap), 0, BIG },
	{ "d_total", offsetof(struct db_host, d_total), 0, BIG },
	{ "d_free", offsetof(struct db_host, d_free), 0, BIG },
	{ "on_frac", offsetof(struct db_host, on_frac), 0, 1 },
	{ "connected_frac", offsetof(struct db_host, connected_frac), -1, 1 },
	{ "active_frac", offsetof(struct db_host, active_frac), 0, 1 },
	{ "gpu_active_frac", offsetof(struct db_host, gpu_active_frac), 0, 1 },
	{ "bwup", offsetof(struct db_host, n_bwup), 0, BIG },
	{ "bwdown", offsetof(struct db_host, n_bwdown), 0, BIG },
	{ "d_boinc_used_total", offsetof(struct db_host, d_boinc_used_total), 0, BIG },
	{ "d_boinc_used_project", offsetof(struct db_host, d_boinc_used_project), 0, BIG },
	{ "d_project_share", offsetof(struct db_host, d_boinc_max), 0, BIG },
};
static const struct { const char *tag; size_t off; } host_strs[] = {
	{ "host_cpid", offsetof(struct db_host, host_cpid) },
	{ "domain_name", offsetof(struct db_host, domain_name) },
	{ NULL, offsetof(struct db_host, serialnum) },  /* made here, not read: sched_rsc_describe() */
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
static void parse_host_figures(struct parse *ps, const xmlNode *parent, struct db_host *h)
{
	const xmlNode *n;
	size_t i;

	xml_for_each(n, parent, NULL) {
		const char *tag = (const char *)n->name;

		if (!strcmp(tag, "p_ncpus")) {
			get_int(ps, n, 1, 100000, &h->p_ncpus);
			continue;
		}
		if (!strcmp(tag, "timezone")) {
			get_int(ps, n, -86400, 86400, &h->timezone);
			continue;
		}
		if (!strcmp(tag, "p_features")) {
			get_text(ps, n, P_FEATURES_CHARS, &ps->r->p_features);
			continue;
		}
		if (!strcmp(tag, "virtualbox_version")) {
			get_text(ps, n, 63, &ps->r->vbox_version);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(host_dbls); i++)
			if (!strcmp(tag, host_dbls[i].tag))
				get_double(ps, n, host_dbls[i].min, host_dbls[i].max, &HOST_DBL(h, i));
		for (i = 0; i < ARRAY_SIZE(host_strs); i++)
			if (host_strs[i].tag && !strcmp(tag, host_strs[i].tag))
				get_str(ps, n, &HOST_STR(h, i));
	}
}

void sched_host_copy_figures(struct db_host *dst, const struct db_host *src)
{
	size_t i;

	dst->p_ncpus = src->p_ncpus ? src->p_ncpus : 1;
	dst->timezone = src->timezone;
	dst->p_ngpus = src->p_ngpus;
	dst->p_gpu_fpops = src->p_gpu_fpops;
	for (i = 0; i < ARRAY_SIZE(host_dbls); i++)
		HOST_DBL(dst, i) = HOST_DBL(src, i);
	for (i = 0; i < ARRAY_SIZE(host_strs); i++) {
		free(HOST_STR(dst, i));
		HOST_STR(dst, i) = xstrdup(HOST_STR(src, i) ? HOST_STR(src, i) : "");
	}
}

/* An uploaded output as the client lists it in a report (client FILE_INFO::write). */
static void parse_report_file(struct parse *ps, const xmlNode *n, struct sched_result_report *r)
{
	struct sched_file_report *f;
	const xmlNode *c;
	char *md5;

	if (!(f = APPEND(r->files, r->nfiles, MAX_FILES)))
		return;
	f->name = child_name(n, "name");
	if ((c = xml_child(n, "nbytes")))
		get_double(ps, c, 0, BIG, &f->nbytes);
	if ((c = xml_child(n, "max_nbytes")))
		get_double(ps, c, 0, BIG, &f->max_nbytes);
	md5 = xml_child_text(n, "md5_cksum");
	if (md5 && strlen(md5) == 32 && strspn(md5, "0123456789abcdefABCDEF") == 32)
		wstrlcpy(f->md5_cksum, md5, sizeof(f->md5_cksum));
	else if (md5 && *md5)
		sbuf_addf(&ps->notes, "%smd5_cksum: not 32 hex digits", ps->notes.len ? "; " : "");
	free(md5);
}

static void parse_result(struct parse *ps, const xmlNode *rn, struct sched_result_report *r)
{
	const xmlNode *n;

	r->state = -1;
	xml_for_each(n, rn, NULL) {
		const char *tag = (const char *)n->name;

		if (!strcmp(tag, "name")) {
			free(r->name);
			r->name = xml_text(n);
		} else if (!strcmp(tag, "state"))
			get_int(ps, n, -1, 100, &r->state);
		else if (!strcmp(tag, "exit_status"))
			get_int(ps, n, INT_MIN, INT_MAX, &r->exit_status);
		else if (!strcmp(tag, "final_cpu_time"))
			get_double(ps, n, 0, BIG, &r->final_cpu_time);
		else if (!strcmp(tag, "final_elapsed_time"))
			get_double(ps, n, 0, BIG, &r->final_elapsed_time);
		else if (!strcmp(tag, "final_peak_working_set_size"))
			get_double(ps, n, 0, BIG, &r->peak_working_set_size);
		else if (!strcmp(tag, "final_peak_swap_size"))
			get_double(ps, n, 0, BIG, &r->peak_swap_size);
		else if (!strcmp(tag, "final_peak_disk_usage"))
			get_double(ps, n, 0, BIG, &r->peak_disk_usage);
		else if (!strcmp(tag, "version_num") || !strcmp(tag, "app_version_num"))
			get_int(ps, n, 0, INT_MAX, &r->app_version_num);
		else if (!strcmp(tag, "platform"))
			get_str(ps, n, &r->platform);
		else if (!strcmp(tag, "plan_class"))
			get_str(ps, n, &r->plan_class);
		else if (!strcmp(tag, "stderr_out")) {
			struct sbuf e = SBUF_INIT(1 << 20);

			xml_serialize_children(n, &e);
			free(r->stderr_out);
			r->stderr_out = sbuf_detach(&e, NULL);
		} else if (!strcmp(tag, "file_info"))
			parse_report_file(ps, n, r);
	}
	if (!r->name)
		r->name = xstrdup("");
}

/* A sticky file the client lists (top-level <file_info>). */
static void parse_sticky(struct parse *ps, const xmlNode *n)
{
	struct sched_request *r = ps->r;
	struct sched_sticky_file *f;
	const xmlNode *c;

	if (!(f = APPEND(r->sticky, r->nsticky, MAX_LIST)))
		return;
	f->name = child_name(n, "name");
	if ((c = xml_child(n, "nbytes")))
		get_double(ps, c, 0, BIG, &f->nbytes);
	if ((c = xml_child(n, "status")))
		get_int(ps, c, -1000000, 1000000, &f->status);
}

static void parse_other(struct parse *ps, const xmlNode *n)
{
	struct sched_request *r = ps->r;
	const xmlNode *o;

	xml_for_each(o, n, "other_result") {
		struct sched_other_result *x = APPEND(r->other, r->nother, MAX_LIST);

		if (!x)
			break;
		x->name = child_name(o, "name");
	}
}

static void parse_platform(struct parse *ps, const xmlNode *n)
{
	struct sched_request *r = ps->r;
	const xmlNode *v = xml_is(n, "platform_name") ? n : xml_child(n, "name");
	char *p = NULL;

	if (v)
		get_str(ps, v, &p);
	if (p && *p && r->nplatforms < SCHED_MAX_PLATFORMS)
		r->platforms[r->nplatforms++] = p;
	else
		free(p);
}

/* <mod_time> of a <global_preferences>, or of the one inside <working_global_preferences>. */
static double prefs_time(const xmlNode *n)
{
	const xmlNode *g = xml_child(n, "global_preferences");
	char *t = xml_child_text(g ? g : n, "mod_time");
	double d = t ? strtod(t, NULL) : 0;

	free(t);
	return isfinite(d) && d > 0 ? d : 0;
}

/*
 * The client's computing prefs (upstream's handle_global_prefs): the
 * master copy kept whole (to be stored if newer than the account's), the
 * working copy's (host-specific prefs) time only.
 */
static void parse_global_prefs(struct parse *ps, const xmlNode *n, bool working)
{
	struct sbuf b = SBUF_INIT(PREFS_MAX_BYTES);

	if (working) {
		ps->r->working_prefs_mod_time = prefs_time(n);
		return;
	}
	ps->r->global_prefs_mod_time = prefs_time(n);
	free(ps->r->global_prefs);
	ps->r->global_prefs = NULL;
	if (xml_serialize(n, &b) == 0)
		ps->r->global_prefs = sbuf_detach(&b, NULL);
	else
		sbuf_addstr(&ps->notes, "global_preferences ignored: over 64 KB; ");
	sbuf_release(&b);
}

/* One child of <scheduler_request>. */
static void parse_top(struct parse *ps, const xmlNode *n)
{
	struct sched_request *r = ps->r;
	const char *tag = (const char *)n->name;

	if (!strcmp(tag, "authenticator"))
		get_str(ps, n, &r->authenticator);
	else if (!strcmp(tag, "cross_project_id"))
		get_str(ps, n, &r->cross_project_id);
	else if (!strcmp(tag, "hostid")) {
		char *t = xml_text(n);

		field_int64("hostid", t, 0, INT64_MAX, FIELD_CLAMP, &r->hostid, &ps->notes);
		free(t);
	} else if (!strcmp(tag, "rpc_seqno"))
		get_int(ps, n, 0, INT_MAX, &r->rpc_seqno);
	else if (!strcmp(tag, "core_client_major_version"))
		get_int(ps, n, 0, 1000000, &r->core_major);
	else if (!strcmp(tag, "core_client_minor_version"))
		get_int(ps, n, 0, 1000000, &r->core_minor);
	else if (!strcmp(tag, "core_client_release"))
		get_int(ps, n, 0, 1000000, &r->core_release);
	else if (!strcmp(tag, "platform_name") || !strcmp(tag, "alt_platform"))
		parse_platform(ps, n);
	else if (!strcmp(tag, "work_req_seconds"))
		get_double(ps, n, 0, 1e9, &r->work_req_seconds);
	else if (!strcmp(tag, "cpu_req_secs"))
		get_double(ps, n, 0, 1e9, &r->cpu_req_secs);
	else if (!strcmp(tag, "cpu_req_instances"))
		get_double(ps, n, 0, 1e6, &r->cpu_req_instances);
	else if (!strcmp(tag, "estimated_delay"))
		get_double(ps, n, 0, 1e9, &r->estimated_delay);
	else if (!strcmp(tag, "duration_correction_factor"))
		get_double(ps, n, 0, 1e6, &r->duration_correction_factor);
	else if (!strcmp(tag, "dont_send_work"))
		r->dont_send_work = flag(n);
	else if (!strcmp(tag, "code_sign_key"))
		r->has_code_sign_key = true;
	else if (!strcmp(tag, "host_info") || !strcmp(tag, "time_stats") ||
		 !strcmp(tag, "net_stats") || !strcmp(tag, "disk_usage"))
		parse_host_figures(ps, n, &r->host);
	else if (!strcmp(tag, "result")) {
		struct sched_result_report *x = APPEND(r->results, r->nresults, MAX_LIST);

		if (x)  /* past the limit: the rest come again in the next request */
			parse_result(ps, n, x);
	} else if (!strcmp(tag, "file_info"))
		parse_sticky(ps, n);
	else if (!strcmp(tag, "coprocs"))
		sched_coprocs_parse(n, r->rsc, &r->nrsc, &ps->notes);
	else if (!strcmp(tag, "global_preferences"))
		parse_global_prefs(ps, n, false);
	else if (!strcmp(tag, "working_global_preferences"))
		parse_global_prefs(ps, n, true);
	else if (!strcmp(tag, "global_prefs_source_email_hash"))
		get_str(ps, n, &r->global_prefs_source_email_hash);
	else if (!strcmp(tag, "other_results")) {
		ps->r->has_other = true;
		parse_other(ps, n);
	}
}

/*
 * The request as XML: bytes libxml2 would refuse (an app's stderr, mostly)
 * made readable first; if it still does not parse and an app's stderr was
 * in it, libxml2's recovery makes what it can of it -- a host is not locked
 * out by what its apps print.
 */
static xmlDoc *read_request(const char *buf, size_t len, struct sbuf *err)
{
	struct sbuf perr = SBUF_INIT(1024);
	bool had_stderr;
	char *clean = sched_request_clean(buf, len, &had_stderr);
	const char *start = strstr(clean, "<scheduler_request");
	xmlDoc *doc = NULL;

	/* Whatever precedes the root (a stray header, an XML declaration) is skipped. */
	if (!start) {
		sbuf_addstr(err, "no <scheduler_request> in the request");
	} else {
		doc = xml_read_memory_enc(start, strlen(start), "scheduler_request", "UTF-8", &perr);
		if (!doc && had_stderr)
			doc = xml_read_memory_recover(start, strlen(start), "scheduler_request");
		if (!doc)
			sbuf_addf(err, "malformed request: %s", sbuf_str(&perr));
	}
	free(clean);
	sbuf_release(&perr);
	return doc;
}

/*
 * The CPU as resource 0 (its figures and request are top-level and in
 * <host_info>), and the host's GPU figures and description upstream keeps.
 */
static void finish_resources(struct sched_request *r)
{
	struct sched_rsc *cpu = &r->rsc[0];
	int i;

	cpu->kind = SCHED_RSC_CPU;
	wstrlcpy(cpu->type, "CPU", sizeof(cpu->type));
	cpu->count = r->host.p_ncpus ? r->host.p_ncpus : 1;
	cpu->peak_flops = r->host.p_fpops;
	cpu->ram = r->host.m_nbytes;
	/* a client without coprocessors may ask in work_req_seconds alone (before BOINC 6.6) */
	cpu->req_secs = r->nrsc == 1 && r->work_req_seconds > r->cpu_req_secs ? r->work_req_seconds
									    : r->cpu_req_secs;
	cpu->req_instances = r->cpu_req_instances;
	cpu->estimated_delay = r->estimated_delay;
	r->host.p_ngpus = 0;
	r->host.p_gpu_fpops = 0;
	for (i = 1; i < r->nrsc; i++) {
		r->host.p_ngpus += r->rsc[i].count;
		r->host.p_gpu_fpops += r->rsc[i].count * r->rsc[i].peak_flops;
	}
	sched_rsc_describe(r->rsc, r->nrsc, r->core_major, r->core_minor, r->core_release,
			   &r->host.serialnum);
	if (!r->p_features)
		r->p_features = xstrdup("");
}

int sched_request_parse(const char *buf, size_t len, struct sched_request *r, struct sbuf *err)
{
	struct parse ps = { r, SBUF_INIT(NOTES_MAX) };
	xmlDoc *doc;
	xmlNode *n;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->nrsc = 1;            /* rsc[0], the CPU, is filled at the end */
	doc = read_request(buf, len, err);
	if (!doc) {
		sbuf_release(&ps.notes);
		return -1;
	}
	xml_for_each(n, xmlDocGetRootElement(doc), NULL)
		parse_top(&ps, n);
	xmlFreeDoc(doc);
	finish_resources(r);
	if (!r->authenticator || !*r->authenticator) {
		sbuf_addstr(err, "the request has no authenticator");
		rc = -1;
	} else if (r->nplatforms == 0) {
		sbuf_addstr(err, "the request names no platform");
		rc = -1;
	}
	r->notes = sbuf_detach(&ps.notes, NULL);
	return rc;
}

void sched_request_release(struct sched_request *r)
{
	size_t i, j;
	int k;

	free(r->authenticator);
	free(r->cross_project_id);
	free(r->p_features);
	free(r->vbox_version);
	for (k = 0; k < r->nplatforms; k++)
		free(r->platforms[k]);
	db_host_release(&r->host);
	for (i = 0; i < r->nresults; i++) {
		struct sched_result_report *x = &r->results[i];
		free(x->name);
		free(x->platform);
		free(x->plan_class);
		free(x->stderr_out);
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
	free(r->notes);
	free(r->global_prefs);
	free(r->global_prefs_source_email_hash);
	memset(r, 0, sizeof(*r));
}
