/*
 * Project preferences in upstream's XML (lib/prefs.h): read for one venue
 * by the scheduler on every RPC, checked whole when a volunteer or an
 * account manager stores them, written by the preferences page.
 */
#include "prefs.h"
#include "xml.h"
#include "xml_write.h"

#include <math.h>
#include <stdarg.h>

static const char *const rsc_tags[PREFS_NRSC] = {
	"no_cpu", "no_cuda", "no_ati", "no_intel_gpu", "no_apple_gpu", "no_other_coproc",
};
static const char *const rsc_labels[PREFS_NRSC] = {
	"CPU", "NVIDIA GPU", "AMD GPU", "Intel GPU", "Apple GPU", "Other coprocessors",
};

const char *const prefs_venues[] = { "", "home", "school", "work", NULL };

const char *prefs_rsc_tag(enum prefs_rsc r)
{
	return r < PREFS_NRSC ? rsc_tags[r] : "";
}

const char *prefs_rsc_label(enum prefs_rsc r)
{
	return r < PREFS_NRSC ? rsc_labels[r] : "";
}

bool prefs_venue_ok(const char *venue)
{
	size_t i;

	for (i = 0; prefs_venues[i]; i++)
		if (!strcmp(venue, prefs_venues[i]))
			return true;
	return false;
}

void prefs_project_init(struct prefs_project *p)
{
	memset(p, 0, sizeof(*p));
	p->resource_share = -1;
}

void prefs_project_release(struct prefs_project *p)
{
	free(p->specific);
	prefs_project_init(p);
}

bool prefs_project_selected(const struct prefs_project *p, int64_t appid)
{
	size_t i;

	if (p->napps == 0)
		return true;
	for (i = 0; i < p->napps; i++)
		if (p->apps[i] == appid)
			return true;
	return false;
}

static int fault(struct sbuf *err, const xmlNode *n, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fault(struct sbuf *err, const xmlNode *n, const char *fmt, ...)
{
	va_list ap;

	if (err && err->len == 0) {
		sbuf_addf(err, "project_prefs:%ld: ", n ? xml_line(n) : 0L);
		va_start(ap, fmt);
		sbuf_vaddf(err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* <tag>0|1</tag>, or <tag/> (true, as upstream's parse_bool). */
static int flag_of(const xmlNode *n, bool *v, struct sbuf *err)
{
	char *t = xml_text(n);
	int rc = 0;

	if (!*t || !strcmp(t, "1"))
		*v = true;
	else if (!strcmp(t, "0"))
		*v = false;
	else
		rc = fault(err, n, "<%s> must be 0 or 1", (const char *)n->name);
	free(t);
	return rc;
}

static int share_of(const xmlNode *n, double *v, struct sbuf *err)
{
	char *t = xml_text(n), *end;
	double d = strtod(t, &end);
	int rc = 0;

	if (!*t || *end || !isfinite(d) || d < 0 || d > 100000)
		rc = fault(err, n, "<%s> must be a number from 0 to 100000", "resource_share");
	else
		*v = d;
	free(t);
	return rc;
}

static int apps_of(const xmlNode *sel, struct prefs_project *p, struct sbuf *err)
{
	const xmlNode *c;

	xml_for_each(c, sel, NULL) {
		char *t, *end;
		long long id;

		if (!xml_is(c, "app_id"))
			continue;
		t = xml_text(c);
		id = strtoll(t, &end, 10);
		if (!*t || *end || id <= 0 || id > INT32_MAX) {
			free(t);
			return fault(err, c, "<%s> must be a positive app id", "app_id");
		}
		free(t);
		if (p->napps >= PREFS_MAX_APPS)
			return fault(err, c, "more than %d apps selected", PREFS_MAX_APPS);
		if (!prefs_project_selected(p, id) || p->napps == 0)
			p->apps[p->napps++] = id;
	}
	return 0;
}

/* <project_specific>: the apps selected, and the project's own text kept as it is. */
static int specific_of(const xmlNode *ps, struct prefs_project *p, struct sbuf *err)
{
	struct sbuf own = SBUF_INIT(PREFS_SPECIFIC_MAX + 1);
	const xmlNode *c;
	int rc = 0;

	xml_for_each(c, ps, NULL) {
		if (xml_is(c, "apps_selected"))
			rc = apps_of(c, p, err);
		else if (xml_is(c, "allow_non_preferred_apps"))
			rc = flag_of(c, &p->allow_others, err);
		else if (xml_serialize(c, &own) < 0 || own.len > PREFS_SPECIFIC_MAX)
			rc = fault(err, c, "the project-specific text is over %d bytes", PREFS_SPECIFIC_MAX);
		if (rc < 0)
			break;
		sbuf_addch(&own, '\n');
	}
	if (rc == 0 && own.len) {
		free(p->specific);
		p->specific = xstrdup(sbuf_str(&own));
	}
	sbuf_release(&own);
	return rc;
}

/* One block's elements into p (unknown elements are ignored, as upstream does). */
static int block_of(const xmlNode *blk, struct prefs_project *p, struct sbuf *err)
{
	const xmlNode *c;
	int r, rc = 0;

	xml_for_each(c, blk, NULL) {
		bool v;

		if (xml_is(c, "resource_share")) {
			rc = share_of(c, &p->resource_share, err);
		} else if (xml_is(c, "allow_beta_work")) {
			rc = flag_of(c, &p->allow_beta, err);
		} else if (xml_is(c, "no_gpus")) {      /* deprecated: every GPU */
			if ((rc = flag_of(c, &v, err)) == 0 && v)
				for (r = PREFS_NVIDIA; r < PREFS_NRSC; r++)
					p->no_rsc[r] = true;
		} else if (xml_is(c, "project_specific")) {
			rc = specific_of(c, p, err);
		} else {
			for (r = 0; r < PREFS_NRSC; r++)
				if (xml_is(c, rsc_tags[r]))
					rc = flag_of(c, &p->no_rsc[r], err);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static xmlDoc *read_doc(const char *xml, struct sbuf *err)
{
	size_t len = strlen(xml);
	xmlDoc *d;
	xmlNode *root;

	if (len > (size_t)PREFS_MAX_BYTES) {
		fault(err, NULL, "over %ld bytes", PREFS_MAX_BYTES);
		return NULL;
	}
	d = xml_read_memory(xml, len, "project_prefs", err);
	if (!d)
		return NULL;
	root = xmlDocGetRootElement(d);
	if (!root || !xml_is(root, "project_preferences") || d->intSubset) {
		fault(err, root, "the document must be one <%s> element", "project_preferences");
		xmlFreeDoc(d);
		return NULL;
	}
	return d;
}

static char *venue_name(const xmlNode *v)
{
	xmlChar *a = xmlGetProp(v, (const xmlChar *)"name");
	char *s = xstrdup(a ? (const char *)a : "");

	xmlFree(a);
	return s;
}

static const xmlNode *venue_block(const xmlNode *root, const char *venue)
{
	const xmlNode *v;

	if (!venue || !*venue)
		return NULL;
	xml_for_each(v, root, "venue") {
		char *n = venue_name(v);
		bool same = !strcmp(n, venue);

		free(n);
		if (same)
			return v;
	}
	return NULL;
}

int prefs_project_parse(const char *xml, const char *venue, struct prefs_project *p,
			struct sbuf *err)
{
	const xmlNode *root, *blk;
	xmlDoc *d;
	int rc;

	prefs_project_init(p);
	if (!xml || !*xml)
		return 0;
	if (!(d = read_doc(xml, err)))
		return -1;
	root = xmlDocGetRootElement(d);
	blk = venue_block(root, venue);
	rc = block_of(blk ? blk : root, p, err);
	xmlFreeDoc(d);
	if (rc < 0)
		prefs_project_release(p);
	return rc;
}

int prefs_project_check(const char *xml, struct sbuf *err)
{
	bool seen[4] = { false };
	const xmlNode *root, *v;
	struct prefs_project p;
	xmlDoc *d;
	int rc;

	if (!(d = read_doc(xml, err)))
		return -1;
	root = xmlDocGetRootElement(d);
	prefs_project_init(&p);
	rc = block_of(root, &p, err);
	prefs_project_release(&p);
	xml_for_each(v, root, "venue") {
		char *n = venue_name(v);
		size_t i;

		for (i = 1; prefs_venues[i] && strcmp(prefs_venues[i], n); i++)
			;
		if (rc == 0 && !prefs_venues[i])
			rc = fault(err, v, "<venue name=\"%s\">: a venue is home, school or work", n);
		else if (rc == 0 && seen[i])
			rc = fault(err, v, "venue %s given twice", n);
		else if (rc == 0)
			seen[i] = true;
		free(n);
		if (rc == 0) {
			rc = block_of(v, &p, err);
			prefs_project_release(&p);
		}
	}
	xmlFreeDoc(d);
	return rc;
}

int prefs_project_parse_all(const char *xml, struct prefs_project v[4], bool have[4],
			    struct sbuf *err)
{
	const xmlNode *root, *blk;
	xmlDoc *d;
	int i, rc = 0;

	for (i = 0; i < 4; i++) {
		prefs_project_init(&v[i]);
		have[i] = false;
	}
	if (!xml || !*xml)
		return 0;
	if (prefs_project_check(xml, err) < 0 || !(d = read_doc(xml, err)))
		return -1;
	root = xmlDocGetRootElement(d);
	have[0] = true;
	rc = block_of(root, &v[0], err);
	for (i = 1; rc == 0 && i < 4; i++)
		if ((blk = venue_block(root, prefs_venues[i])) != NULL) {
			have[i] = true;
			rc = block_of(blk, &v[i], err);
		}
	xmlFreeDoc(d);
	for (i = 0; rc < 0 && i < 4; i++) {
		prefs_project_release(&v[i]);
		have[i] = false;
	}
	return rc;
}

double prefs_global_mod_time(const char *xml)
{
	const char *m = xml ? strstr(xml, "<mod_time>") : NULL;
	double t;

	if (!m)
		return 0;
	t = strtod(m + 10, NULL);
	return isfinite(t) && t > 0 ? t : 0;
}

const struct prefs_global_field prefs_global_fields[PREFS_GLOBAL_NFIELDS] = {
	{ "max_ncpus_pct", "Use at most this % of the CPUs", 1, 100, 100, false },
	{ "cpu_usage_limit", "Use at most this % of CPU time", 1, 100, 100, false },
	{ "run_on_batteries", "Compute while on batteries", 0, 1, 0, true },
	{ "run_if_user_active", "Compute while the computer is in use", 0, 1, 1, true },
	{ "run_gpu_if_user_active", "Use the GPU while the computer is in use", 0, 1, 0, true },
	{ "idle_time_to_run", "'In use' means input within this many minutes", 0, 10000, 3, false },
	{ "suspend_cpu_usage", "Suspend when non-BOINC CPU usage is above this % (0: never)", 0,
	  100, 25, false },
	{ "start_hour", "Compute only from this hour (0-24) ...", 0, 24, 0, false },
	{ "end_hour", "... to this hour (the same: always)", 0, 24, 0, false },
	{ "work_buf_min_days", "Store at least this many days of work", 0, 10, 0.1, false },
	{ "work_buf_additional_days", "Store up to this many additional days of work", 0, 10, 0.5,
	  false },
	{ "disk_max_used_gb", "Use at most this many GB of disk", 0, 1e6, 100, false },
	{ "disk_max_used_pct", "Use at most this % of the disk", 0, 100, 90, false },
	{ "disk_min_free_gb", "Leave at least this many GB of disk free", 0, 1e6, 1, false },
	{ "ram_max_used_busy_pct", "Use at most this % of memory while the computer is in use", 1,
	  100, 50, false },
	{ "ram_max_used_idle_pct", "Use at most this % of memory while it is idle", 1, 100, 90,
	  false },
};

static int global_block(const xmlNode *blk, struct prefs_global *g, struct sbuf *err)
{
	const xmlNode *c;
	int i;

	for (i = 0; i < PREFS_GLOBAL_NFIELDS; i++)
		g->v[i] = prefs_global_fields[i].def;
	xml_for_each(c, blk, NULL) {
		char *t, *end;
		double d;

		for (i = 0; i < PREFS_GLOBAL_NFIELDS && !xml_is(c, prefs_global_fields[i].tag); i++)
			;
		if (i == PREFS_GLOBAL_NFIELDS)
			continue;
		t = xml_text(c);
		d = strtod(t, &end);
		if (!*t && prefs_global_fields[i].flag)
			d = 1, end = t;         /* <run_on_batteries/> */
		if (*end || !isfinite(d) || d < prefs_global_fields[i].min ||
		    d > prefs_global_fields[i].max) {
			free(t);
			return fault(err, c, "<%s> must be a number from %g to %g",
				     prefs_global_fields[i].tag, prefs_global_fields[i].min,
				     prefs_global_fields[i].max);
		}
		free(t);
		g->v[i] = d;
	}
	return 0;
}

int prefs_global_parse_all(const char *xml, struct prefs_global v[4], bool have[4],
			   struct sbuf *err)
{
	size_t len = xml ? strlen(xml) : 0;
	const xmlNode *root, *blk;
	xmlDoc *d;
	int i, rc;

	for (i = 0; i < 4; i++) {
		global_block(NULL, &v[i], NULL);
		have[i] = false;
	}
	if (!len)
		return 0;
	if (len > (size_t)PREFS_MAX_BYTES)
		return fault(err, NULL, "over %ld bytes", PREFS_MAX_BYTES);
	if (!(d = xml_read_memory(xml, len, "global_prefs", err)))
		return -1;
	root = xmlDocGetRootElement(d);
	rc = root && xml_is(root, "global_preferences") ? 0 :
	     fault(err, root, "the document must be one <%s> element", "global_preferences");
	if (rc == 0) {
		have[0] = true;
		rc = global_block(root, &v[0], err);
	}
	for (i = 1; rc == 0 && i < 4; i++)
		if ((blk = venue_block(root, prefs_venues[i])) != NULL) {
			have[i] = true;
			rc = global_block(blk, &v[i], err);
		}
	xmlFreeDoc(d);
	return rc;
}

static void global_fields(struct sbuf *b, const struct prefs_global *g, int ind)
{
	int i;

	for (i = 0; i < PREFS_GLOBAL_NFIELDS; i++)
		sbuf_addf(b, "%*s<%s>%.17g</%s>\n", ind, "", prefs_global_fields[i].tag, g->v[i],
			  prefs_global_fields[i].tag);
}

void prefs_global_write(struct sbuf *b, double mod_time, const struct prefs_global *const v[4])
{
	int i;

	sbuf_addf(b, "<global_preferences>\n    <mod_time>%.0f</mod_time>\n", mod_time);
	if (v[0])
		global_fields(b, v[0], 4);
	for (i = 1; i < 4; i++) {
		if (!v[i])
			continue;
		sbuf_addf(b, "    <venue name=\"%s\">\n", prefs_venues[i]);
		global_fields(b, v[i], 8);
		sbuf_addstr(b, "    </venue>\n");
	}
	sbuf_addstr(b, "</global_preferences>");
}

static void write_block(struct sbuf *b, const struct prefs_project *p, int ind)
{
	size_t i;
	int r;

	if (p->resource_share >= 0)
		sbuf_addf(b, "%*s<resource_share>%.17g</resource_share>\n", ind, "",
			  p->resource_share);
	for (r = 0; r < PREFS_NRSC; r++)
		if (p->no_rsc[r])
			sbuf_addf(b, "%*s<%s>1</%s>\n", ind, "", rsc_tags[r], rsc_tags[r]);
	if (p->allow_beta)
		sbuf_addf(b, "%*s<allow_beta_work>1</allow_beta_work>\n", ind, "");
	if (!p->napps && !p->allow_others && !p->specific)
		return;
	sbuf_addf(b, "%*s<project_specific>\n", ind, "");
	if (p->napps) {
		sbuf_addf(b, "%*s<apps_selected>\n", ind + 4, "");
		for (i = 0; i < p->napps; i++)
			sbuf_addf(b, "%*s<app_id>%" PRId64 "</app_id>\n", ind + 8, "", p->apps[i]);
		sbuf_addf(b, "%*s</apps_selected>\n", ind + 4, "");
	}
	if (p->allow_others)
		sbuf_addf(b, "%*s<allow_non_preferred_apps>1</allow_non_preferred_apps>\n", ind + 4,
			  "");
	if (p->specific)
		sbuf_addstr(b, p->specific);
	sbuf_addf(b, "%*s</project_specific>\n", ind, "");
}

void prefs_project_write(struct sbuf *b, const struct prefs_project *const venues[4])
{
	int i;

	sbuf_addstr(b, "<project_preferences>\n");
	if (venues[0])
		write_block(b, venues[0], 4);
	for (i = 1; i < 4; i++) {
		if (!venues[i])
			continue;
		sbuf_addf(b, "    <venue name=\"%s\">\n", prefs_venues[i]);
		write_block(b, venues[i], 8);
		sbuf_addstr(b, "    </venue>\n");
	}
	sbuf_addstr(b, "</project_preferences>");
}
