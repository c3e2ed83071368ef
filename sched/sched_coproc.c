/*
 * Parsing a scheduler request's <coprocs> into struct sched_rsc (see
 * sched_coproc.h), and upstream's one-line description of a host's GPUs
 * for host.serialnum. What a stranger's client says about its GPUs is
 * bounded like every other field: a coprocessor that cannot be read is
 * left out and noted, the rest of the request stands.
 */
#include "sched_coproc.h"
#include "field.h"
#include "xml.h"

#include <strings.h>

#define BIG 1e18
#define MEBI 1048576.0
#define TEXT_CHARS ((SCHED_RSC_TEXT_LEN - 1) / 4)     /* any UTF-8 text of this many fits */

/* One coprocessor element as read: the resource and the figures its fallbacks come from. */
struct raw {
	struct sched_rsc r;
	bool has_count;
	double total_mem;               /* NVIDIA totalGlobalMem, bytes */
	double local_ram_mb;            /* AMD localRAM, MiB */
	double cl_mem;                  /* <coproc_opencl> global_mem_size, bytes */
	int major, minor, cl_major, cl_minor;
	char cl_name[SCHED_RSC_TEXT_LEN];
	char cl_version[SCHED_RSC_TEXT_LEN];    /* "OpenCL 3.0 CUDA" */
	char cl_driver[SCHED_RSC_TEXT_LEN];
};

enum ftype { F_DBL, F_INT, F_COUNT, F_BOOL, F_TEXT };

/* A field: its tag, how it is read, where it goes in struct raw, its upper bound. */
struct field {
	const char *tag;
	enum ftype type;
	size_t off;
	double max;
};

#define R(f) offsetof(struct raw, r.f)
#define W(f) offsetof(struct raw, f)

/* The children of a coprocessor element (any kind: each writes only what it has). */
static const struct field coproc_fields[] = {
	{ "count", F_COUNT, R(count), SCHED_COPROC_MAX_COUNT },
	{ "type", F_TEXT, R(type), 0 },
	{ "name", F_TEXT, R(model), 0 },
	{ "model", F_TEXT, R(model), 0 },
	{ "peak_flops", F_DBL, R(peak_flops), BIG },
	{ "available_ram", F_DBL, R(ram), BIG },
	{ "req_secs", F_DBL, R(req_secs), 1e9 },
	{ "req_instances", F_DBL, R(req_instances), SCHED_COPROC_MAX_COUNT },
	{ "estimated_delay", F_DBL, R(estimated_delay), 1e9 },
	{ "have_cuda", F_BOOL, R(have_cuda), 0 },
	{ "have_opencl", F_BOOL, R(have_opencl), 0 },
	{ "cudaVersion", F_INT, R(cuda_version), 1e6 },
	{ "drvVersion", F_INT, R(driver_version), 1e8 },
	{ "CALVersion", F_TEXT, R(driver_text), 0 },
	{ "metal_support", F_INT, R(metal_support), 1e6 },
	{ "totalGlobalMem", F_DBL, W(total_mem), BIG },
	{ "localRAM", F_DBL, W(local_ram_mb), 1e12 },
	{ "major", F_INT, W(major), 1000 },
	{ "minor", F_INT, W(minor), 1000 },
};

/* The children of <coproc_opencl> (client lib/opencl_boinc.cpp OPENCL_DEVICE_PROP). */
static const struct field opencl_fields[] = {
	{ "name", F_TEXT, W(cl_name), 0 },
	{ "opencl_device_version", F_TEXT, W(cl_version), 0 },
	{ "opencl_driver_version", F_TEXT, W(cl_driver), 0 },
	{ "global_mem_size", F_DBL, W(cl_mem), BIG },
	{ "nv_compute_capability_major", F_INT, W(cl_major), 1000 },
	{ "nv_compute_capability_minor", F_INT, W(cl_minor), 1000 },
};

/* The coprocessor elements and upstream's name of each kind's resource. */
static const struct { const char *tag; enum sched_rsc_kind kind; const char *type; } kinds[] = {
	{ "coproc_cuda", SCHED_RSC_NVIDIA, "NVIDIA" },
	{ "coproc_ati", SCHED_RSC_ATI, "ATI" },
	{ "coproc_intel_gpu", SCHED_RSC_INTEL, "intel_gpu" },
	{ "coproc_apple_gpu", SCHED_RSC_APPLE, "apple_gpu" },
	{ "coproc", SCHED_RSC_OTHER, NULL },
};

/* <x/>, <x>1</x>: true; <x>0</x>: false (the client writes 0 or 1). */
static int read_bool(const char *tag, const char *t, bool *out, struct sbuf *why)
{
	int v = 1;
	int rc = *t ? field_int(tag, t, 0, 1, FIELD_CLAMP, &v, why) : FIELD_OK;

	if (rc != FIELD_BAD)
		*out = v != 0;
	return rc;
}

/* One field's text into raw; FIELD_BAD when it cannot be read. */
static int read_field(const struct field *f, const char *t, struct raw *raw, struct sbuf *why)
{
	void *p = (char *)raw + f->off;
	char *s = NULL;
	int rc;

	switch (f->type) {
	case F_DBL:
		return field_double(f->tag, t, 0, f->max, FIELD_CLAMP, p, why);
	case F_INT:
		return field_int(f->tag, t, 0, (int)f->max, FIELD_CLAMP, p, why);
	case F_COUNT:   /* a count out of range is no device count at all */
		rc = field_int(f->tag, t, 1, (int)f->max, 0, p, why);
		raw->has_count = rc != FIELD_BAD;
		return rc;
	case F_BOOL:
		return read_bool(f->tag, t, p, why);
	case F_TEXT:
		rc = field_str(f->tag, t, TEXT_CHARS, FIELD_CUT | FIELD_CLEAN, &s, why);
		if (rc != FIELD_BAD)
			wstrlcpy(p, s, SCHED_RSC_TEXT_LEN);
		free(s);
		return rc;
	}
	return FIELD_BAD;
}

/* The children of parent named in table into raw; false if one could not be read. */
static bool read_fields(const xmlNode *parent, const struct field *table, size_t n, struct raw *raw,
			struct sbuf *why)
{
	const xmlNode *c;
	bool ok = true;
	size_t i;

	xml_for_each(c, parent, NULL) {
		if (table == coproc_fields && xml_is(c, "coproc_opencl")) {
			ok = read_fields(c, opencl_fields, ARRAY_SIZE(opencl_fields), raw, why) && ok;
			continue;
		}
		for (i = 0; i < n; i++) {
			if (strcmp((const char *)c->name, table[i].tag) != 0)
				continue;
			char *t = xml_text(c);

			ok = read_field(&table[i], t, raw, why) != FIELD_BAD && ok;
			free(t);
			break;
		}
	}
	return ok;
}

/* "OpenCL 3.0 CUDA" -> 300 (upstream's opencl_device_version_int); 0 if not that form. */
static int opencl_version(const char *v)
{
	char major[4], minor[4];

	/* digits only: %u would take "-13" and wrap it */
	if (sscanf(v, "OpenCL %3[0-9].%3[0-9]", major, minor) != 2)
		return 0;
	return atoi(major) * 100 + atoi(minor);
}

/* What upstream's parsers fill in when the client left it out. */
static void fill_defaults(struct raw *raw)
{
	struct sched_rsc *r = &raw->r;

	if (!r->ram)
		r->ram = r->kind == SCHED_RSC_NVIDIA ? raw->total_mem
			 : r->kind == SCHED_RSC_ATI ? raw->local_ram_mb * MEBI : raw->cl_mem;
	r->compcap = raw->major ? raw->major * 100 + raw->minor : raw->cl_major * 100 + raw->cl_minor;
	r->opencl_version = opencl_version(raw->cl_version);
	if (!*r->model)
		wstrlcpy(r->model, raw->cl_name, sizeof(r->model));
	if (!*r->driver_text)
		wstrlcpy(r->driver_text, raw->cl_driver, sizeof(r->driver_text));
}

/* Why a coprocessor read without field errors is still not one to keep; NULL if it is. */
static const char *unusable(const struct raw *raw, const struct sched_rsc *rsc, int n)
{
	int i;

	if (!raw->has_count)
		return "no count";
	if (!*raw->r.type)
		return "no type";
	if (!strcasecmp(raw->r.type, "CPU"))
		return "type CPU is the CPU's";
	for (i = 0; i < n; i++)
		if (!strcasecmp(rsc[i].type, raw->r.type))
			return "a type already declared";
	return NULL;
}

/* "TAG ignored: why" or, for a field only corrected, "TAG: why" into notes. */
static void note(struct sbuf *notes, const char *tag, bool ignored, const char *why)
{
	sbuf_addf(notes, "%s%s%s: %s", notes->len ? "; " : "", tag, ignored ? " ignored" : "", why);
}

/* One coprocessor element of kind k into rsc[*n], or noted as ignored. */
static void parse_one(const xmlNode *e, size_t k, struct sched_rsc *rsc, int *n, struct sbuf *notes)
{
	struct sbuf why = SBUF_INIT(1024);
	struct raw *raw = xcalloc(1, sizeof(*raw));
	const char *bad = NULL;
	char many[64];

	snprintf(many, sizeof(many), "more than %d coprocessor types", SCHED_MAX_COPROCS);
	raw->r.kind = kinds[k].kind;
	if (!read_fields(e, coproc_fields, ARRAY_SIZE(coproc_fields), raw, &why))
		bad = sbuf_str(&why);
	if (kinds[k].type)      /* a GPU kind's <type>, if any, names nothing */
		wstrlcpy(raw->r.type, kinds[k].type, sizeof(raw->r.type));
	if (!bad)
		bad = unusable(raw, rsc, *n);
	if (!bad && *n >= SCHED_MAX_RSC)
		bad = many;
	if (bad) {
		note(notes, kinds[k].tag, true, bad);
	} else {
		if (why.len)
			note(notes, kinds[k].tag, false, sbuf_str(&why));
		fill_defaults(raw);
		rsc[(*n)++] = raw->r;
	}
	free(raw);
	sbuf_release(&why);
}

void sched_coprocs_parse(const xmlNode *coprocs, struct sched_rsc *rsc, int *n, struct sbuf *notes)
{
	const xmlNode *e;
	size_t k;

	xml_for_each(e, coprocs, NULL)
		for (k = 0; k < ARRAY_SIZE(kinds); k++)
			if (xml_is(e, kinds[k].tag)) {
				parse_one(e, k, rsc, n, notes);
				break;
			}
}

/* Text for a description: the separators upstream's form uses would forge fields. */
static void add_part(struct sbuf *b, const char *s)
{
	for (; *s; s++)
		sbuf_addch(b, strchr("[]|", *s) ? '?' : *s);
}

/* One resource's [TAG|model|count|MB|driver|opencl] as upstream writes it. */
static void describe_one(struct sbuf *b, const struct sched_rsc *r)
{
	static const char *const tags[] = {
		[SCHED_RSC_NVIDIA] = "CUDA", [SCHED_RSC_ATI] = "CAL",
		[SCHED_RSC_INTEL] = "INTEL", [SCHED_RSC_APPLE] = "apple_gpu",
	};
	/* MiB, truncated as upstream does; a figure no device has (up to 1e18 bytes
	 * from localRAM's MiB) is written at the cap, not cast out of range */
	double mbf = r->ram / MEBI;
	long long mb = mbf < 1e15 ? (long long)mbf : (long long)1e15;

	if (r->kind == SCHED_RSC_OTHER) {       /* upstream: [opencl_gpu|type|count|MB|opencl] */
		sbuf_addstr(b, "[opencl_gpu|");
		add_part(b, r->type);
		sbuf_addf(b, "|%d|%lldMB|%d]", r->count, mb, r->opencl_version);
		return;
	}
	sbuf_addf(b, "[%s|", tags[r->kind]);
	add_part(b, r->model);
	sbuf_addf(b, "|%d|%lldMB|", r->count, mb);
	if (r->kind == SCHED_RSC_NVIDIA)
		sbuf_addf(b, "%d", r->driver_version);
	else if (r->kind == SCHED_RSC_APPLE)
		sbuf_addf(b, "%d", r->metal_support);
	else
		add_part(b, r->driver_text);
	sbuf_addf(b, "|%d]", r->opencl_version);
}

void sched_rsc_describe(const struct sched_rsc *rsc, int n, int major, int minor, int release,
			char **out)
{
	struct sbuf b = SBUF_INIT(4096);
	int i;

	sbuf_addf(&b, "[BOINC|%d.%d.%d]", major, minor, release);
	for (i = 0; i < n; i++)
		if (rsc[i].kind != SCHED_RSC_CPU)
			describe_one(&b, &rsc[i]);
	free(*out);
	*out = NULL;
	field_str("serialnum", sbuf_str(&b), FIELD_COLUMN_CHARS, FIELD_CUT | FIELD_CLEAN, out, NULL);
	sbuf_release(&b);
}
