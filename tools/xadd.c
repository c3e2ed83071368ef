/*
 * xadd: register the apps and platforms listed in the project's
 * project.xml (BOINC's format) in the database. Every element upstream's
 * project.xml gives an app is stored in its column, and a warning names those
 * wseq does not act on; an existing app or platform is brought up to the
 * file (upstream updates the name shown and min_version), so running it
 * again is harmless; it reports what it did.
 *
 *   <boinc>
 *     <app><name>A</name><user_friendly_name>..</user_friendly_name>
 *       <adaptive_replication><replicas>2</replicas><trust_after>10</trust_after>
 *         <spot_check>0.1</spot_check></adaptive_replication></app>
 *     <platform><name>x86_64-pc-linux-gnu</name><user_friendly_name>..</user_friendly_name></platform>
 *   </boinc>
 */
#include "common.h"
#include "config.h"
#include "db.h"
#include "db_records.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "wtime.h"
#include "xml.h"

struct options {
	char *file;
	bool quiet;
};

static const struct param options[] = {
	{ "file", PARAM_STR, offsetof(struct options, file), NULL, PARAM_NOCONFIG, 0, 0, "FILE",
	  "read FILE instead of project.xml in the project directory" },
	{ "quiet", PARAM_BOOL, offsetof(struct options, quiet), "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "print only errors" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: xadd [options]\n"
	"\n"
	"Add the apps and platforms of the project's project.xml to the database.\n"
	"Those already there are brought up to the file's attributes. Every\n"
	"element of upstream's <app> is stored; a warning names those wseq does\n"
	"not act on (weight, beta, homogeneous_redundancy, ...).\n"
	"\n"
	"<adaptive_replication> in an <app> (or upstream's <target_nresults> above 1)\n"
	"turns on adaptive replication for its jobs made single: <replicas>N</replicas>\n"
	"(2..100, default 2), <trust_after>K</trust_after> (default 10),\n"
	"<spot_check>P</spot_check> (0..1, default 0.1); README, \"Believable results\".\n";

struct item {
	bool is_app;
	char *name;
	long line;
	struct db_app app;              /* the <app>'s attributes given (is_app) */
	struct db_platform platform;    /* the <platform>'s */
	unsigned given;                 /* bit i: attrs[i] was given */
};

enum attr_type { ATTR_INT, ATTR_DBL, ATTR_STR };

/* Adaptive replication's defaults, the schema's (016_reliability.sql) */
#define AR_TRUST_AFTER 10
#define AR_SPOT_CHECK 0.1

/*
 * The elements of an <app> or <platform> in upstream's project.xml, the
 * column each fills, and -- for what wseq stores but does not act on -- why
 * a warning names it.
 */
static const struct attr {
	bool app;
	const char *name;
	enum attr_type type;
	size_t off;
	const char *unused;
} attrs[] = {
#define A(n, t, why) { true, #n, t, offsetof(struct db_app, n), why }
#define P(n, t) { false, #n, t, offsetof(struct db_platform, n), NULL }
	A(user_friendly_name, ATTR_STR, NULL),
	A(deprecated, ATTR_INT, NULL),
	A(keywords, ATTR_STR, NULL),
	A(min_version, ATTR_INT, "wseq sends the newest version a host can run"),
	A(weight, ATTR_DBL, "wseq does not weight the app mix"),
	A(beta, ATTR_INT, "wseq has no beta apps"),
	A(target_nresults, ATTR_INT, NULL),     /* > 1: adaptive replication, the defaults */
	A(homogeneous_redundancy, ATTR_INT, "wseq has no homogeneous redundancy"),
	A(homogeneous_app_version, ATTR_INT, "wseq does not pin a job's results to one version"),
	A(non_cpu_intensive, ATTR_INT, "wseq does not tell clients an app is non-CPU-intensive"),
	A(locality_scheduling, ATTR_INT, "wseq has no locality scheduling (work sequences keep "
	  "their state on one host instead)"),
	A(n_size_classes, ATTR_INT, "wseq has no job size matching"),
	A(fraction_done_exact, ATTR_INT, "wseq does not send it to clients"),
	A(host_scale_check, ATTR_INT, "wseq's credit does not scale by host"),
	/* wseq's own: jobs bring their executable, run by wseq_wrapper (README, Applications) */
	A(any_executable, ATTR_INT, NULL),
	/* wseq's own, read from <adaptive_replication> only (read_adaptive) */
	A(trust_after, ATTR_INT, NULL),
	A(spot_check, ATTR_DBL, NULL),
	P(user_friendly_name, ATTR_STR),
	P(deprecated, ATTR_INT),
#undef A
#undef P
};

static void items_free(struct item *it, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(it[i].name);
		db_app_release(&it[i].app);
		db_platform_release(&it[i].platform);
	}
	free(it);
}

static void *attr_field(struct item *x, const struct attr *at)
{
	return (char *)(at->app ? (void *)&x->app : (void *)&x->platform) + at->off;
}

static size_t attr_index(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (attrs[i].app && !strcmp(attrs[i].name, name))
			break;
	return i;
}

/* A number of <adaptive_replication>'s child e within [min, max], into the column it names. */
static int read_ar_value(const char *path, struct item *x, const xmlNode *e, const char *column,
			 bool whole, double min, double max)
{
	char *v = xml_text(e), *end;
	double d;
	int rc = 0;

	errno = 0;
	d = strtod(v, &end);
	if (!*v || *end || errno || !(d >= min && d <= max) || (whole && d != (double)(long)d))
		rc = log_error("%s:%ld: <adaptive_replication><%s> must be %s from %g to %g "
			       "(got '%s')", path, xml_line(e), (const char *)e->name,
			       whole ? "a whole number" : "a number", min, max, v);
	else if (whole)
		*(int *)((char *)&x->app + attrs[attr_index(column)].off) = (int)d;
	else
		*(double *)((char *)&x->app + attrs[attr_index(column)].off) = d;
	x->given |= 1u << attr_index(column);
	free(v);
	return rc;
}

/*
 * <adaptive_replication><replicas>N</replicas><trust_after>K</trust_after>
 * <spot_check>P</spot_check></adaptive_replication>: app.target_nresults,
 * trust_after and spot_check; what is left out keeps its default (2, 10,
 * 0.1) or, for an app already there, its value.
 */
static int read_adaptive(const char *path, struct item *x, const xmlNode *ar)
{
	const xmlNode *e;
	bool replicas = false;

	xml_for_each(e, ar, NULL) {
		const char *tag = (const char *)e->name;
		int rc;

		if (!strcmp(tag, "replicas")) {
			rc = read_ar_value(path, x, e, "target_nresults", true, 2, 100);
			replicas = true;
		} else if (!strcmp(tag, "trust_after")) {
			rc = read_ar_value(path, x, e, "trust_after", true, 0, 1e6);
		} else if (!strcmp(tag, "spot_check")) {
			rc = read_ar_value(path, x, e, "spot_check", false, 0, 1);
		} else {
			rc = log_error("%s:%ld: <adaptive_replication> takes <replicas>, <trust_after> "
				       "and <spot_check>, not <%s>", path, xml_line(e), tag);
		}
		if (rc < 0)
			return rc;
	}
	if (!replicas) {        /* on, with upstream's two results a job */
		x->app.target_nresults = 2;
		x->given |= 1u << attr_index("target_nresults");
	}
	return 0;
}

/* One element of an <app> or <platform>: its column, or a warning that it is not upstream's. */
static int read_attr(const char *path, struct item *x, const xmlNode *e, bool *warned)
{
	const char *tag = (const char *)e->name;
	char *v, *end;
	size_t i;
	int rc = 0;

	if (!strcmp(tag, "name"))
		return 0;
	if (x->is_app && !strcmp(tag, "adaptive_replication"))
		return read_adaptive(path, x, e);
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (attrs[i].app == x->is_app && !strcmp(attrs[i].name, tag) &&
		    strcmp(tag, "trust_after") && strcmp(tag, "spot_check"))
			break;
	if (i == ARRAY_SIZE(attrs)) {
		log_warn("%s:%ld: <%s> is not an element of upstream's <%s>; ignored", path,
			 xml_line(e), tag, x->is_app ? "app" : "platform");
		return 0;
	}
	v = xml_text(e);
	errno = 0;
	switch (attrs[i].type) {
	case ATTR_STR:
		free(*(char **)attr_field(x, &attrs[i]));
		*(char **)attr_field(x, &attrs[i]) = v;
		v = NULL;
		break;
	case ATTR_INT: {
		long n = *v ? strtol(v, &end, 10) : 1;  /* <beta/> is 1, as BOINC reads flags */

		if ((*v && (*end || errno)) || n < INT_MIN || n > INT_MAX)
			rc = log_error("%s:%ld: <%s> must be a whole number (got '%s')", path,
				       xml_line(e), tag, v);
		*(int *)attr_field(x, &attrs[i]) = (int)n;
		break;
	}
	case ATTR_DBL: {
		double d = strtod(v, &end);

		if (!*v || *end || errno || !(d >= 0 && d < 1e12))
			rc = log_error("%s:%ld: <%s> must be a number (got '%s')", path, xml_line(e),
				       tag, v);
		*(double *)attr_field(x, &attrs[i]) = d;
		break;
	}
	}
	free(v);
	x->given |= 1u << i;
	if (rc == 0 && attrs[i].unused && !warned[i]) {
		warned[i] = true;
		log_warn("%s:%ld: <%s> is stored in app.%s, but %s", path, xml_line(e), tag, tag,
			 attrs[i].unused);
	}
	return rc;
}

/* Read and check the whole file before touching the database. */
static int read_project_xml(const char *path, struct item **out, size_t *nout)
{
	xmlDoc *doc = xml_read_file(path, NULL);
	const xmlNode *root, *c, *e;
	struct item *it = NULL;
	bool warned[ARRAY_SIZE(attrs)] = { false };
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
		ARRAY_GROW(it, n);
		x = &it[n++];
		memset(x, 0, sizeof(*x));
		x->is_app = is_app;
		x->line = xml_line(c);
		x->name = xml_child_text(c, "name");
		x->app.weight = 1;
		xml_for_each(e, c, NULL)
			if (read_attr(path, x, e, warned) < 0)
				goto fail;
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

/* Copy the attributes x gives into rec (an app or platform row); true if any changed. */
static bool apply_given(struct item *x, void *rec)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		const struct attr *at = &attrs[i];
		void *src = attr_field(x, at), *dst = (char *)rec + at->off;

		if (!(x->given & (1u << i)))
			continue;
		switch (at->type) {
		case ATTR_STR:
			if (strcmp(*(char **)dst ? *(char **)dst : "", *(char **)src ? *(char **)src : "")) {
				free(*(char **)dst);
				*(char **)dst = xstrdup(*(char **)src ? *(char **)src : "");
				changed = true;
			}
			break;
		case ATTR_INT:
			changed |= *(int *)dst != *(int *)src;
			*(int *)dst = *(int *)src;
			break;
		case ATTR_DBL:
			changed |= *(double *)dst != *(double *)src;
			*(double *)dst = *(double *)src;
			break;
		}
	}
	return changed;
}

/*
 * Add the app or platform, or bring an existing one's attributes up to
 * project.xml (upstream's xadd updates the name shown and min_version).
 */
static int add_item(struct db *db, struct item *x, bool quiet)
{
	const char *what = x->is_app ? "app" : "platform";
	int rc;

	if (x->is_app) {
		struct db_app a = { 0 };

		rc = db_app_lookup_name(db, x->name, &a);
		if (rc == DB_NOT_FOUND) {
			a.name = xstrdup(x->name);
			a.user_friendly_name = xstrdup(x->name);
			a.keywords = xstrdup("");
			a.weight = 1;
			a.min_avg_pfc = 1;
			a.trust_after = AR_TRUST_AFTER;
			a.spot_check = AR_SPOT_CHECK;
			apply_given(x, &a);
			a.create_time = now();
			rc = db_app_insert(db, &a);
			if (rc == DB_OK && !quiet)
				printf("added app %s (id %" PRId64 ")\n", x->name, a.id);
		} else if (rc == DB_OK && apply_given(x, &a)) {
			rc = db_app_update(db, &a);
			if (rc == DB_OK && !quiet)
				printf("updated app %s from project.xml (id %" PRId64 ")\n", x->name, a.id);
		} else if (rc == DB_OK && !quiet) {
			printf("app %s already exists (id %" PRId64 ")\n", x->name, a.id);
		}
		if (rc == DB_OK && !quiet && a.target_nresults > 1)
			printf("app %s: adaptive replication: a job made single goes with %d results "
			       "until the host has %d consecutive valid results of its version, then "
			       "alone, spot-checked at %g\n", x->name, a.target_nresults,
			       a.trust_after, a.spot_check);
		db_app_release(&a);
	} else {
		struct db_platform p = { 0 };

		rc = db_platform_lookup_name(db, x->name, &p);
		if (rc == DB_NOT_FOUND) {
			p.name = xstrdup(x->name);
			p.user_friendly_name = xstrdup(x->name);
			apply_given(x, &p);
			p.create_time = now();
			rc = db_platform_insert(db, &p);
			if (rc == DB_OK && !quiet)
				printf("added platform %s (id %" PRId64 ")\n", x->name, p.id);
		} else if (rc == DB_OK && apply_given(x, &p)) {
			rc = db_platform_update(db, &p);
			if (rc == DB_OK && !quiet)
				printf("updated platform %s from project.xml (id %" PRId64 ")\n", x->name,
				       p.id);
		} else if (rc == DB_OK && !quiet) {
			printf("platform %s already exists (id %" PRId64 ")\n", x->name, p.id);
		}
		db_platform_release(&p);
	}
	if (rc != DB_OK)
		return log_error("cannot add %s %s", what, x->name);
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct db *db = ctx->db;
	struct item *items = NULL;
	size_t n = 0, i;
	char *xml = o->file ? xstrdup(o->file) : xasprintf("%s/project.xml", ctx->cfg.project_dir);
	int rc = -1;

	if (read_project_xml(xml, &items, &n) == 0 && db_begin(db) == DB_OK) {
		for (i = 0; i < n; i++)
			if (add_item(db, &items[i], o->quiet))
				break;
		if (i == n && db_commit(db) == DB_OK)
			rc = 0;
		else
			db_rollback(db);
	}
	items_free(items, n);
	free(xml);
	return rc;
}

static struct options opts;

static const struct tool_spec xadd_spec = {
	.name = "xadd",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&xadd_spec, argc, argv);
}
