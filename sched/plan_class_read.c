/*
 * Reading plan_class_spec.xml (see plan_class.h). Upstream reads this file
 * with a tag-by-tag reader, not an XML parser, and projects' files -- its
 * own sample among them -- lean on that: an element left unclosed
 * ("<min_opencl_version> 101 <min_opencl_version>") costs upstream that
 * value and nothing else. So this is a small tag reader too: a document of
 * <plan_class>es under <plan_classes>, each a flat list of elements. Every
 * value is bounded as lib/field.h bounds a stranger's; whatever cannot be
 * used is noted with its line and skipped. Only a document that is not
 * tags at all, has another root, or ends before </plan_classes> is refused.
 */
#include "plan_class.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"

#include <ctype.h>
#include <sys/stat.h>

#define VALUE_CHARS 1024        /* the longest value kept (regexes) */

/* One token of the document: a tag or the text between two tags. */
struct tok {
	enum { TOK_EOF, TOK_OPEN, TOK_CLOSE, TOK_EMPTY, TOK_TEXT } kind;
	char name[64];          /* tags: the element's name, cut */
	char *text;             /* TOK_TEXT: trimmed, entities decoded (allocated) */
	long line;
};

struct reader {
	const char *p, *end;
	long line;
	struct tok back;        /* a token given back (kind != TOK_EOF) */
	bool has_back;
	const char *path;
	struct sbuf *notes;
	struct sbuf *err;
	bool failed;
};

static void PRINTF_LIKE(3, 4) note(struct reader *r, long line, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT(2048);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (r->notes)
		sbuf_addf(r->notes, "%s:%ld: %s\n", r->path, line, sbuf_str(&b));
	else
		log_warn("%s:%ld: %s", r->path, line, sbuf_str(&b));
	sbuf_release(&b);
}

static int PRINTF_LIKE(3, 4) fail(struct reader *r, long line, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT(1024);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	r->failed = true;
	sbuf_fail(r->err, "%s:%ld: %s", r->path, line, sbuf_str(&b));
	log_error("%s:%ld: %s", r->path, line, sbuf_str(&b));
	sbuf_release(&b);
	return -1;
}

/* Advance past the first occurrence of s, counting lines; false if none. */
static bool skip_past(struct reader *r, const char *s)
{
	size_t n = strlen(s);

	for (; r->p + n <= r->end; r->p++) {
		if (!memcmp(r->p, s, n)) {
			r->p += n;
			return true;
		}
		r->line += *r->p == '\n';
	}
	return false;
}

/* &lt; &gt; &amp; &quot; &apos; decoded in place; anything else kept as written. */
static void unescape(char *s)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	char *out = s;
	size_t i;

	while (*s) {
		for (i = 0; i < ARRAY_SIZE(ents); i++)
			if (!strncmp(s, ents[i].ent, strlen(ents[i].ent)))
				break;
		if (i < ARRAY_SIZE(ents)) {
			*out++ = ents[i].c;
			s += strlen(ents[i].ent);
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* A tag from just after its '<': name, closing or empty; -1 if it never ends. */
static int read_tag(struct reader *r, struct tok *t)
{
	const char *start = r->p, *q;
	size_t n;

	if (!skip_past(r, ">"))
		return fail(r, t->line, "a tag is not closed before the end of the file");
	q = start;
	t->kind = TOK_OPEN;
	if (*q == '/') {
		t->kind = TOK_CLOSE;
		q++;
	} else if (r->p - 2 >= start && r->p[-2] == '/') {
		t->kind = TOK_EMPTY;
	}
	for (n = 0; q + n < r->p - 1 && !isspace((unsigned char)q[n]) && q[n] != '/'; n++)
		;
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, q, n);
	t->name[n] = '\0';
	for (char *c = t->name; *c; c++)     /* a name goes into notes as it is */
		if (!isgraph((unsigned char)*c))
			*c = '?';
	return 0;
}

/* The next tag or text; comments, <?...?> and <!...> declarations skipped. */
static int next(struct reader *r, struct tok *t)
{
	const char *start;

	if (r->has_back) {
		*t = r->back;
		r->has_back = false;
		return 0;
	}
	memset(t, 0, sizeof(*t));
	for (;;) {
		while (r->p < r->end && isspace((unsigned char)*r->p))
			r->line += *r->p++ == '\n';
		t->line = r->line;
		if (r->p >= r->end)
			return 0;       /* TOK_EOF */
		if (*r->p != '<')
			break;
		r->p++;
		if (r->end - r->p >= 3 && !memcmp(r->p, "!--", 3)) {
			if (!skip_past(r, "-->"))
				return fail(r, t->line, "a comment is not closed before the end of the file");
		} else if (r->end - r->p >= 8 && !memcmp(r->p, "![CDATA[", 8)) {
			start = r->p + 8;
			if (!skip_past(r, "]]>"))
				return fail(r, t->line, "a CDATA section is not closed");
			t->kind = TOK_TEXT;
			t->text = trimmed(start, (size_t)(r->p - 3 - start));
			return 0;
		} else if (r->p < r->end && (*r->p == '?' || *r->p == '!')) {
			if (!skip_past(r, ">"))
				return fail(r, t->line, "a declaration is not closed");
		} else {
			return read_tag(r, t);
		}
	}
	start = r->p;
	while (r->p < r->end && *r->p != '<')
		r->line += *r->p++ == '\n';
	t->kind = TOK_TEXT;
	t->text = trimmed(start, (size_t)(r->p - start));
	unescape(t->text);
	return 0;
}

static void give_back(struct reader *r, struct tok *t)
{
	r->back = *t;
	r->has_back = true;
}

/* What an element's value is and where it goes. */
enum etype {
	E_NAME, E_GPU_TYPE, E_BOOL, E_INT, E_DBL, E_I64, E_FEATURE, E_REGEX, E_TAG,
	E_NEVER_IF_TRUE,        /* a requirement wseq cannot check: the class matches no host */
	E_NEVER,                /* the same for any value */
	E_UNCHECKED,            /* accepted, not checked: noted */
	E_INERT,                /* accepted; no effect in wseq (nor, mostly, upstream) */
};

struct elem {
	const char *tag;
	enum etype type;
	size_t off;
	double min, max;
};

#define O(f) offsetof(struct plan_class, f)
#define BIGF 1e18

/* Every element upstream's PLAN_CLASS_SPEC::parse reads, and <disabled>. */
static const struct elem elems[] = {
	{ "name", E_NAME, 0, 0, 0 },
	{ "gpu_type", E_GPU_TYPE, 0, 0, 0 },
	{ "cuda", E_BOOL, O(cuda), 0, 0 },
	{ "opencl", E_BOOL, O(opencl), 0, 0 },
	{ "virtualbox", E_BOOL, O(virtualbox), 0, 0 },
	{ "is64bit", E_BOOL, O(is64bit), 0, 0 },
	{ "disabled", E_BOOL, O(disabled), 0, 0 },
	{ "nthreads_cmdline", E_BOOL, O(nthreads_cmdline), 0, 0 },
	{ "without_opencl", E_BOOL, O(without_opencl), 0, 0 },
	{ "min_cuda_version", E_INT, O(min_cuda_version), 0, 1e7 },
	{ "max_cuda_version", E_INT, O(max_cuda_version), 0, 1e7 },
	{ "min_nvidia_compcap", E_INT, O(min_nvidia_compcap), 0, 1e5 },
	{ "max_nvidia_compcap", E_INT, O(max_nvidia_compcap), 0, 1e5 },
	{ "min_driver_version", E_INT, O(min_driver_version), -1e9, 1e9 },
	{ "max_driver_version", E_INT, O(max_driver_version), 0, 1e9 },
	{ "min_opencl_version", E_INT, O(min_opencl_version), 0, 1e5 },
	{ "max_opencl_version", E_INT, O(max_opencl_version), 0, 1e5 },
	{ "min_metal_support", E_INT, O(min_metal_support), 0, 1e6 },
	{ "min_gpu_ram_mb", E_DBL, O(min_gpu_ram_mb), 0, 1e12 },
	{ "gpu_ram_used_mb", E_DBL, O(gpu_ram_used_mb), 0, 1e12 },
	{ "ngpus", E_DBL, O(ngpus), 0, SCHED_COPROC_MAX_COUNT },
	{ "gpu_peak_flops_scale", E_DBL, O(gpu_peak_flops_scale), 0, 1e6 },
	{ "cpu_frac", E_DBL, O(cpu_frac), 0, 1e6 },
	{ "min_gpu_peak_flops", E_DBL, O(min_gpu_peak_flops), 0, BIGF },
	{ "max_gpu_peak_flops", E_DBL, O(max_gpu_peak_flops), 0, BIGF },
	{ "min_ncpus", E_INT, O(min_ncpus), 0, 1e6 },
	{ "max_threads", E_INT, O(max_threads), 1, 1e6 },
	{ "avg_ncpus", E_DBL, O(avg_ncpus), 0, 1e6 },
	{ "projected_flops_scale", E_DBL, O(projected_flops_scale), 0, 1e6 },
	{ "cpu_feature", E_FEATURE, 0, 0, 0 },
	{ "min_core_client_version", E_INT, O(min_core_client_version), 0, 1e9 },
	{ "max_core_client_version", E_INT, O(max_core_client_version), 0, 1e9 },
	{ "os_regex", E_REGEX, O(os_regex), O(have_os_regex), 0 },
	{ "cpu_vendor_regex", E_REGEX, O(cpu_vendor_regex), O(have_cpu_vendor_regex), 0 },
	{ "cpu_model_regex", E_REGEX, O(cpu_model_regex), O(have_cpu_model_regex), 0 },
	{ "gpu_type_regex", E_REGEX, O(gpu_type_regex), O(have_gpu_type_regex), 0 },
	{ "min_os_version", E_DBL, O(min_os_version), 0, BIGF },
	{ "max_os_version", E_DBL, O(max_os_version), 0, BIGF },
	{ "min_android_version", E_INT, O(min_android_version), 0, 1e9 },
	{ "max_android_version", E_INT, O(max_android_version), 0, 1e9 },
	{ "min_libc_version", E_INT, O(min_libc_version), 0, 1e6 },
	{ "min_vbox_version", E_DBL, O(min_vbox_version), 0, 1e9 },
	{ "max_vbox_version", E_DBL, O(max_vbox_version), 0, 1e9 },
	{ "min_wu_id", E_I64, O(min_wu_id), 0, 0 },
	{ "max_wu_id", E_I64, O(max_wu_id), 0, 0 },
	{ "min_batch", E_I64, O(min_batch), 0, 0 },
	{ "max_batch", E_I64, O(max_batch), 0, 0 },
	{ "project_prefs_tag", E_TAG, 0, 0, 0 },
	{ "wsl", E_NEVER_IF_TRUE, 0, 0, 0 },
	{ "docker", E_NEVER_IF_TRUE, 0, 0, 0 },
	{ "user_id", E_NEVER, 0, 0, 0 },
	{ "project_prefs_regex", E_NEVER, 0, 0, 0 },
	{ "need_ati_libs", E_UNCHECKED, 0, 0, 0 },
	{ "need_amd_libs", E_UNCHECKED, 0, 0, 0 },
	{ "min_cal_target", E_UNCHECKED, 0, 0, 0 },
	{ "max_cal_target", E_UNCHECKED, 0, 0, 0 },
	{ "min_opencl_driver_revision", E_UNCHECKED, 0, 0, 0 },
	{ "max_opencl_driver_revision", E_UNCHECKED, 0, 0, 0 },
	{ "double_precision_fp", E_UNCHECKED, 0, 0, 0 },
	{ "mem_usage_base_mb", E_UNCHECKED, 0, 0, 0 },
	{ "mem_usage_per_cpu_mb", E_UNCHECKED, 0, 0, 0 },
	{ "gpu_utilization_tag", E_UNCHECKED, 0, 0, 0 },
	{ "infeasible_random", E_UNCHECKED, 0, 0, 0 },
	{ "cal", E_INERT, 0, 0, 0 },
	{ "project_prefs_default_true", E_INERT, 0, 0, 0 },
	{ "min_boinc_wsl_distro_version", E_INERT, 0, 0, 0 },
	{ "exclude_vbox_version", E_INERT, 0, 0, 0 },
	{ "vm_accel_required", E_INERT, 0, 0, 0 },
};

#define FIELD(pc, e, type) ((type *)((char *)(pc) + (e)->off))

/* Upstream's gpu_type spellings to the resource name sched_coproc.c gives each kind. */
static void set_gpu_type(struct plan_class *pc, const char *v)
{
	if (!strcasecmp(v, "nvidia") || !strcasecmp(v, "cuda"))
		v = "NVIDIA";
	else if (!strcasecmp(v, "amd") || !strcasecmp(v, "ati"))
		v = "ATI";
	else if (!strncasecmp(v, "intel", 5))
		v = "intel_gpu";
	else if (!strcasecmp(v, "apple") || !strcasecmp(v, "apple_gpu"))
		v = "apple_gpu";
	wstrlcpy(pc->gpu_type, v, sizeof(pc->gpu_type));
}

/* The first reason the class cannot match: "<docker> is not checked by wseq". */
static void set_never(struct plan_class *pc, const char *tag, const char *what)
{
	if (!*pc->never)
		snprintf(pc->never, sizeof(pc->never), "<%s> %s", tag, what);
}

/* <x/>, <x></x>, <x>1</x>: true; <x>0</x>: false. */
static int read_bool(const char *tag, const char *v, bool *out, struct sbuf *why)
{
	long n = 1;

	if (*v && parse_long(v, &n) < 0) {
		sbuf_addf(why, "%s: not 0 or 1", tag);
		return FIELD_BAD;
	}
	*out = n != 0;
	return FIELD_OK;
}

/* Does an extended regex put a quantifier (*, +, ?, {}) right after another one? */
static bool stacked_quantifiers(const char *v)
{
	const char *p;

	for (p = v; *p && p[1]; p++) {
		if (*p == '\\') {
			p++;            /* an escaped character quantifies nothing */
			continue;
		}
		if (strchr("*+?}", *p) && strchr("*+?{", p[1]))
			return true;
	}
	return false;
}

/* A regex element: e->off is its regex_t, e->min the offset of its have_ flag. */
static int read_regex(struct plan_class *pc, const struct elem *e, const char *v)
{
	bool *have = (bool *)((char *)pc + (size_t)e->min);
	regex_t *re = FIELD(pc, e, regex_t);

	if (*have)
		regfree(re);
	*have = false;
	/* a quantifier on a quantifier ("a+++", "a{9}{9}") makes glibc's regcomp exponential */
	if (stacked_quantifiers(v)) {
		set_never(pc, e->tag, "has a quantifier on a quantifier");
		return FIELD_OK;
	}
	if (regcomp(re, v, REG_EXTENDED | REG_NOSUB) != 0) {
		set_never(pc, e->tag, "is not a regular expression");
		return FIELD_OK;        /* noted by the caller with the class's fate */
	}
	*have = true;
	return FIELD_OK;
}

static int read_feature(struct plan_class *pc, const char *v, struct sbuf *why)
{
	char *s;

	if (pc->ncpu_features >= PLAN_CLASS_MAX_FEATURES) {
		sbuf_addf(why, "cpu_feature: more than %d", PLAN_CLASS_MAX_FEATURES);
		return FIELD_BAD;
	}
	if (!*v || strchr(v, ' ')) {
		sbuf_addstr(why, "cpu_feature: not one feature name");
		return FIELD_BAD;
	}
	s = xstrdup(v);
	for (char *q = s; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	pc->cpu_features[pc->ncpu_features++] = s;
	return FIELD_OK;
}

/* <name>, <gpu_type>, <project_prefs_tag>: text of fewer than 128 bytes. */
static int read_name(struct plan_class *pc, const struct elem *e, const char *v, struct sbuf *why)
{
	char *s = NULL;
	int rc = field_str(e->tag, v, PLAN_CLASS_NAME_LEN - 1, 0, &s, why);

	if (rc == FIELD_OK && strlen(s) >= PLAN_CLASS_NAME_LEN) {
		sbuf_addf(why, "%s: longer than %d bytes", e->tag, PLAN_CLASS_NAME_LEN - 1);
		rc = FIELD_BAD;
	}
	if (rc == FIELD_OK && e->type == E_NAME) {
		wstrlcpy(pc->name, s, sizeof(pc->name));
	} else if (rc == FIELD_OK && e->type == E_GPU_TYPE) {
		set_gpu_type(pc, s);
	} else if (rc == FIELD_OK) {
		free(pc->project_prefs_tag);
		pc->project_prefs_tag = xstrdup(s);
	}
	free(s);
	return rc;
}

/* Put one element's value into pc; FIELD_BAD (why says why) leaves the default. */
static int set_value(struct plan_class *pc, const struct elem *e, const char *v, struct sbuf *why)
{
	bool b = true;

	switch (e->type) {
	case E_NAME:
	case E_GPU_TYPE:
	case E_TAG:
		return read_name(pc, e, v, why);
	case E_BOOL:
		return read_bool(e->tag, v, FIELD(pc, e, bool), why);
	case E_INT:
		return field_int(e->tag, v, (int)e->min, (int)e->max, FIELD_CLAMP, FIELD(pc, e, int), why);
	case E_DBL:
		return field_double(e->tag, v, e->min, e->max, FIELD_CLAMP, FIELD(pc, e, double), why);
	case E_I64:
		return field_int64(e->tag, v, 0, INT64_MAX, FIELD_CLAMP, FIELD(pc, e, int64_t), why);
	case E_FEATURE:
		return read_feature(pc, v, why);
	case E_REGEX:
		return read_regex(pc, e, v);
	case E_NEVER_IF_TRUE:
		if (read_bool(e->tag, v, &b, why) == FIELD_BAD)
			return FIELD_BAD;
		if (b)
			set_never(pc, e->tag, "is not checked by wseq");
		return FIELD_OK;
	case E_NEVER:
		set_never(pc, e->tag, "is not checked by wseq");
		return FIELD_OK;
	case E_UNCHECKED:
	case E_INERT:
		return FIELD_OK;
	}
	return FIELD_BAD;
}

static const struct elem *find_elem(const char *tag)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(elems); i++)
		if (!strcmp(elems[i].tag, tag))
			return &elems[i];
	return NULL;
}

/*
 * The value of the element whose start tag t is: the text up to the next
 * tag, which should be its end tag. A start tag of the same name in its
 * place (a missing slash) is taken as one, and another tag is given back:
 * either is noted. Allocated.
 */
static int element_value(struct reader *r, const struct tok *t, char **out)
{
	struct tok v, end;

	*out = NULL;
	if (t->kind == TOK_EMPTY) {
		*out = xstrdup("");
		return 0;
	}
	if (next(r, &v) < 0)
		return -1;
	if (v.kind != TOK_TEXT) {
		end = v;
		v.text = xstrdup("");
	} else if (next(r, &end) < 0) {
		free(v.text);
		return -1;
	}
	*out = v.text;
	if (end.kind == TOK_CLOSE && !strcmp(end.name, t->name))
		return 0;
	if (end.kind == TOK_OPEN && !strcmp(end.name, t->name)) {
		note(r, end.line, "<%s> is closed with <%s>, not </%s>; read as its end", t->name,
		     end.name, end.name);
		return 0;
	}
	note(r, t->line, "<%s> is not closed", t->name);
	if (end.kind == TOK_TEXT)
		free(end.text);
	else
		give_back(r, &end);
	return 0;
}

/* One element of a class: its value checked and stored, or noted. */
static int class_element(struct reader *r, struct plan_class *pc, const struct tok *t)
{
	const struct elem *e = find_elem(t->name);
	struct sbuf why = SBUF_INIT(1024), q = SBUF_INIT(1024);
	char *v;

	if (!e) {
		note(r, t->line, "<%s> is not a plan class element; ignored", t->name);
		return 0;
	}
	if (element_value(r, t, &v) < 0)
		return -1;
	bool had_never = *pc->never != '\0';

	if (strlen(v) > VALUE_CHARS * 4 || !field_text_ok(v, strlen(v), false)) {
		field_quote(&q, v, 64);
		note(r, t->line, "<%s>: '%s' is not a value wseq keeps; ignored", t->name, sbuf_str(&q));
	} else {
		int rc = set_value(pc, e, v, &why);

		if (rc == FIELD_BAD)
			note(r, t->line, "<%s>: %s; ignored", t->name, sbuf_str(&why));
		else if (rc == FIELD_FIXED)
			note(r, t->line, "<%s>: %s", t->name, sbuf_str(&why));
	}
	if (e->type == E_UNCHECKED)
		note(r, t->line, "<%s> is not checked by wseq; ignored", t->name);
	if (!had_never && *pc->never)
		note(r, t->line, "%s: the class matches no host", pc->never);
	free(v);
	sbuf_release(&why);
	sbuf_release(&q);
	return 0;
}

static void class_init(struct plan_class *pc, long line)
{
	memset(pc, 0, sizeof(*pc));
	pc->ngpus = 1;
	pc->gpu_peak_flops_scale = 1;
	pc->cpu_frac = 0.1;
	pc->max_threads = 1;
	pc->projected_flops_scale = 1;
	pc->line = line;
}

static void class_release(struct plan_class *pc)
{
	int i;

	for (i = 0; i < pc->ncpu_features; i++)
		free(pc->cpu_features[i]);
	if (pc->have_os_regex)
		regfree(&pc->os_regex);
	if (pc->have_cpu_vendor_regex)
		regfree(&pc->cpu_vendor_regex);
	if (pc->have_cpu_model_regex)
		regfree(&pc->cpu_model_regex);
	if (pc->have_gpu_type_regex)
		regfree(&pc->gpu_type_regex);
	free(pc->project_prefs_tag);
	memset(pc, 0, sizeof(*pc));
}

/* What a whole class asks that wseq cannot check: it matches no host (noted). */
static void class_never(struct reader *r, struct plan_class *pc)
{
	bool had = *pc->never != '\0';

	if (pc->opencl && !*pc->gpu_type && !pc->have_gpu_type_regex)
		set_never(pc, "opencl", "without a GPU type (OpenCL on the CPU) is not checked by wseq");
	if (!had && *pc->never)
		note(r, pc->line, "plan class %s: %s: the class matches no host", pc->name, pc->never);
}

/* Keep pc in pcs if it has a name not seen before; else noted and freed. */
static void class_keep(struct reader *r, struct plan_classes *pcs, struct plan_class *pc)
{
	const char *why = NULL;

	if (!*pc->name)
		why = "has no <name>";
	else if (plan_class_find(pcs, pc->name))
		why = "has a name used before";
	else if (pcs->n >= PLAN_CLASS_MAX)
		why = "is past the most classes wseq reads";
	if (why) {
		note(r, pc->line, "<plan_class> %s%s%s; left out", *pc->name ? pc->name : "", *pc->name ? " " : "", why);
		class_release(pc);
		return;
	}
	class_never(r, pc);
	pc->mt = pc->max_threads > 1;
	if (pc->ngpus == 0)     /* upstream: 0 is "one device" */
		pc->ngpus = 1;
	ARRAY_GROW(pcs->v, pcs->n);
	pcs->v[pcs->n++] = *pc;
}

/* The elements of one <plan_class> up to its end (or the start of the next). */
static int read_class(struct reader *r, struct plan_classes *pcs, long line)
{
	struct plan_class pc;
	struct tok t;

	class_init(&pc, line);
	for (;;) {
		if (next(r, &t) < 0)
			break;
		if (t.kind == TOK_EOF) {
			fail(r, line, "<plan_class> is not closed before the end of the file");
			break;
		}
		if (t.kind == TOK_TEXT) {
			free(t.text);
			continue;
		}
		if (t.kind == TOK_CLOSE && !strcmp(t.name, "plan_class"))
			break;
		if ((t.kind == TOK_OPEN && !strcmp(t.name, "plan_class")) ||
		    (t.kind == TOK_CLOSE && !strcmp(t.name, "plan_classes"))) {
			note(r, line, "<plan_class> is not closed");
			give_back(r, &t);
			break;
		}
		if (t.kind != TOK_CLOSE && class_element(r, &pc, &t) < 0)
			break;
	}
	if (r->failed) {
		class_release(&pc);
		return -1;
	}
	class_keep(r, pcs, &pc);
	return 0;
}

/* After the root's start tag: its <plan_class>es up to </plan_classes>. */
static int read_classes(struct reader *r, struct plan_classes *pcs)
{
	struct tok t;

	for (;;) {
		if (next(r, &t) < 0)
			return -1;
		switch (t.kind) {
		case TOK_EOF:
			return fail(r, t.line, "the file ends before </plan_classes>");
		case TOK_TEXT:
			free(t.text);
			break;
		case TOK_CLOSE:
			if (!strcmp(t.name, "plan_classes"))
				return 0;
			break;
		case TOK_OPEN:
			if (!strcmp(t.name, "plan_class")) {
				if (read_class(r, pcs, t.line) < 0)
					return -1;
				break;
			}
			/* fall through */
		case TOK_EMPTY:
			note(r, t.line, "<%s> is not <plan_class>; ignored", t.name);
			break;
		}
	}
}

int plan_classes_parse(const char *buf, size_t len, const char *path, struct plan_classes *pcs,
		       struct sbuf *notes, struct sbuf *err)
{
	struct reader r = { buf, buf + len, 1, { 0 }, false, path ? path : "plan_class_spec.xml",
			    notes, err, false };
	struct tok t;

	memset(pcs, 0, sizeof(*pcs));
	pcs->path = xstrdup(path ? path : "");
	if (memchr(buf, '\0', len))
		return fail(&r, 1, "not a text file (a NUL byte)");
	if (next(&r, &t) < 0)
		return -1;
	if (t.kind == TOK_TEXT)
		free(t.text);
	if ((t.kind != TOK_OPEN && t.kind != TOK_EMPTY) || strcmp(t.name, "plan_classes"))
		return fail(&r, t.line, "the document is not <plan_classes>");
	if (t.kind == TOK_EMPTY)
		return 0;       /* <plan_classes/>: none */
	if (read_classes(&r, pcs) < 0) {
		plan_classes_release(pcs);
		pcs->path = xstrdup(path ? path : "");
		return -1;
	}
	return 0;
}

int plan_classes_read(const char *path, struct plan_classes *pcs, struct sbuf *notes,
		      struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(PLAN_CLASS_FILE_MAX);
	struct stat st;
	int rc;

	memset(pcs, 0, sizeof(*pcs));
	if (stat(path, &st) < 0 && errno == ENOENT) {
		pcs->path = xstrdup("");
		return 0;
	}
	if (read_file(path, PLAN_CLASS_FILE_MAX, &b) < 0) {
		sbuf_release(&b);
		pcs->path = xstrdup(path);
		return sbuf_fail(err, "%s: cannot be read (or is over %d bytes)", path,
				 PLAN_CLASS_FILE_MAX);
	}
	rc = plan_classes_parse(b.buf ? b.buf : "", b.len, path, pcs, notes, err);
	pcs->mtime = (int64_t)st.st_mtime;
	sbuf_release(&b);
	return rc;
}

void plan_classes_release(struct plan_classes *pcs)
{
	size_t i;

	for (i = 0; i < pcs->n; i++)
		class_release(&pcs->v[i]);
	free(pcs->v);
	free(pcs->path);
	memset(pcs, 0, sizeof(*pcs));
}

int plan_classes_check_file(const char *project_dir, struct plan_classes *pcs, FILE *fp)
{
	struct sbuf notes = SBUF_INIT(1 << 20), err = SBUF_INIT(4096);
	char *path = xasprintf("%s/%s", project_dir, PLAN_CLASS_FILE);
	const char *p, *nl;
	int n = 0;

	if (plan_classes_read(path, pcs, &notes, &err) < 0) {
		fprintf(fp, "error: %s\n", sbuf_str(&err));
		n = -1;
	}
	for (p = sbuf_str(&notes); n >= 0 && (nl = strchr(p, '\n')); p = nl + 1, n++)
		fprintf(fp, "warning: %.*s\n", (int)(nl - p), p);
	sbuf_release(&notes);
	sbuf_release(&err);
	free(path);
	return n;
}

const struct plan_class *plan_class_find(const struct plan_classes *pcs, const char *name)
{
	size_t i;

	for (i = 0; i < pcs->n; i++)
		if (!strcmp(pcs->v[i].name, name))
			return &pcs->v[i];
	return NULL;
}
