/*
 * A host's resources for the pages (web_host.h): the description in
 * host.serialnum read back into its groups, and the rows that show CPUs
 * and GPUs. The description is split in place in a cleaned copy, so each
 * part is already valid text; web_html() escapes it where it is written.
 */
#include "web_host.h"
#include "field.h"
#include "page.h"
#include "web.h"

#define MAX_PARTS 8             /* parts of a group looked at; more are ignored */

/* The kinds of GPU group a description holds, and their resource. */
static const struct {
	const char *tag, *rsc;
} kinds[] = {
	{ "CUDA", "NVIDIA" }, { "CAL", "ATI" }, { "INTEL", "intel_gpu" }, { "apple_gpu", "apple_gpu" },
};

static const struct {
	const char *rsc, *label;
} labels[] = {
	{ "CPU", "CPU" }, { "NVIDIA", "NVIDIA GPU" }, { "ATI", "AMD GPU" },
	{ "intel_gpu", "Intel GPU" }, { "apple_gpu", "Apple GPU" },
};

const char *web_rsc_label(const char *rsc)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(labels); i++)
		if (!strcmp(rsc, labels[i].rsc))
			return labels[i].label;
	return rsc;
}

/* Split s at each '|' into at most MAX_PARTS parts; how many. */
static int split(char *s, char **part)
{
	int n = 0;

	part[n++] = s;
	while (n < MAX_PARTS && (s = strchr(s, '|'))) {
		*s++ = '\0';
		part[n++] = s;
	}
	return n;
}

/* "143156MB": the number of MB, -1 when it is not one. */
static int64_t ram_mb(char *s)
{
	size_t n = strlen(s);
	int64_t v;

	if (n > 2 && !strcmp(s + n - 2, "MB"))
		s[n - 2] = '\0';
	return field_int64("ram", s, 0, (int64_t)1e15, 0, &v, NULL) == FIELD_BAD ? -1 : v;
}

static int opencl_version(const char *s)
{
	int v;

	return field_int("opencl", s, 0, 10000, 0, &v, NULL) == FIELD_BAD ? 0 : v;
}

/* NVIDIA's driver is a number (58099: 580.99); others say theirs in text. */
static void driver(struct web_gpu *g, const char *s)
{
	int v;

	g->driver = s;
	if (!strcmp(g->rsc, "NVIDIA") && field_int("driver", s, 0, 100000000, 0, &v, NULL) != FIELD_BAD) {
		snprintf(g->driver_buf, sizeof(g->driver_buf), "%d.%02d", v / 100, v % 100);
		g->driver = v ? g->driver_buf : "";
	} else if (!strcmp(g->rsc, "apple_gpu") || !strcmp(s, "0")) {
		g->driver = "";         /* Apple's part is Metal support, not a driver */
	}
}

/*
 * A GPU group: [TAG|model|count|MB|driver|opencl], or a generic
 * coprocessor's [opencl_gpu|type|count|MB|opencl]. false: not one.
 */
static bool gpu_group(struct web_gpu *g, char **part, int n)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g->model = g->driver = "";
	g->ram_mb = -1;
	if (!strcmp(part[0], "opencl_gpu")) {
		if (n < 3 || !*part[1])
			return false;
		g->rsc = part[1];
		g->ram_mb = n > 3 ? ram_mb(part[3]) : -1;
		g->opencl = n > 4 ? opencl_version(part[4]) : 0;
	} else {
		for (i = 0; i < ARRAY_SIZE(kinds) && strcmp(part[0], kinds[i].tag); i++)
			;
		if (i == ARRAY_SIZE(kinds) || n < 3)
			return false;
		g->rsc = kinds[i].rsc;
		g->model = part[1];
		g->ram_mb = n > 3 ? ram_mb(part[3]) : -1;
		if (n > 4)
			driver(g, part[4]);
		g->opencl = n > 5 ? opencl_version(part[5]) : 0;
	}
	return field_int("count", part[2], 1, WEB_HOST_MAX_COUNT, 0, &g->count, NULL) != FIELD_BAD;
}

static void group(struct web_host_desc *d, char *s)
{
	char *part[MAX_PARTS];
	int n = split(s, part);

	if (!strcmp(part[0], "BOINC") && n > 1)
		d->client = part[1];
	else if (!strcmp(part[0], "vbox") && n > 1)
		d->vbox = part[1];
	else if (d->ngpus < WEB_HOST_MAX_GPUS && gpu_group(&d->gpu[d->ngpus], part, n))
		d->ngpus++;
}

void web_host_desc_parse(const char *serialnum, struct web_host_desc *d)
{
	char *p, *open, *close;

	memset(d, 0, sizeof(*d));
	d->client = d->vbox = "";
	if (field_str("serialnum", serialnum ? serialnum : "", WEB_HOST_DESC_CHARS,
		      FIELD_CUT | FIELD_CLEAN, &d->text, NULL) == FIELD_BAD)
		d->text = xstrdup("");
	for (p = d->text; (open = strchr(p, '[')) && (close = strchr(open + 1, ']')); p = close + 1) {
		*close = '\0';
		group(d, open + 1);
	}
}

void web_host_desc_release(struct web_host_desc *d)
{
	free(d->text);
	memset(d, 0, sizeof(*d));
}

/* ---- the rows ---- */

static void gflops(struct sbuf *b, double flops)
{
	page_num(b, flops / 1e9);
	sbuf_addstr(b, " GFLOPS");
}

static void cpu_row(struct sbuf *b, const struct db_host *h)
{
	sbuf_addf(b, "<tr class=\"cpu\"><th>CPUs</th><td>%d &times; ", h->p_ncpus);
	web_html(b, h->p_model && *h->p_model ? h->p_model : "CPU");
	if (h->p_vendor && *h->p_vendor) {
		sbuf_addstr(b, " (");
		web_html(b, h->p_vendor);
		sbuf_addstr(b, ")");
	}
	if (h->p_fpops > 0) {
		sbuf_addstr(b, ", ");
		gflops(b, h->p_fpops);
		sbuf_addstr(b, " each");
	}
	sbuf_addstr(b, "</td></tr>\n");
}

/* "1 × NVIDIA H200 (NVIDIA GPU, 143,156 MB, driver 580.99, OpenCL 3.0)" */
static void gpu_row(struct sbuf *b, const struct web_gpu *g)
{
	const char *label = web_rsc_label(g->rsc);

	sbuf_addf(b, "<tr class=\"gpu\"><th>GPU</th><td>%d &times; ", g->count);
	web_html(b, *g->model ? g->model : g->rsc);
	sbuf_addstr(b, " (");
	/* a generic coprocessor is named by its type: say what it is */
	web_html(b, label == g->rsc ? "coprocessor" : label);
	if (g->ram_mb > 0) {
		sbuf_addstr(b, ", ");
		page_int(b, g->ram_mb);
		sbuf_addstr(b, " MB");
	}
	if (*g->driver) {
		sbuf_addstr(b, ", driver ");
		web_html(b, g->driver);
	}
	if (g->opencl > 0)
		sbuf_addf(b, ", OpenCL %d.%d", g->opencl / 100, g->opencl % 100);
	sbuf_addstr(b, ")</td></tr>\n");
}

static void gpu_rows(struct sbuf *b, const struct db_host *h, const struct web_host_desc *d)
{
	int i;

	for (i = 0; i < d->ngpus; i++)
		gpu_row(b, &d->gpu[i]);
	if (!d->ngpus && h->p_ngpus > 0)
		sbuf_addf(b, "<tr class=\"gpu\"><th>GPU</th><td>%d, not described</td></tr>\n",
			  h->p_ngpus);
	else if (!d->ngpus)
		sbuf_addstr(b, "<tr class=\"no-gpu\"><th>GPU</th><td>none</td></tr>\n");
	if (h->p_gpu_fpops > 0) {
		sbuf_addstr(b, "<tr><th>GPU peak speed</th><td>");
		gflops(b, h->p_gpu_fpops);
		sbuf_addf(b, " (%d GPU%s in all)</td></tr>\n", h->p_ngpus, h->p_ngpus == 1 ? "" : "s");
	}
}

void web_host_resources(struct sbuf *b, const struct db_host *h)
{
	struct web_host_desc d;

	web_host_desc_parse(h->serialnum, &d);
	cpu_row(b, h);
	gpu_rows(b, h, &d);
	if (*d.client) {
		sbuf_addstr(b, "<tr><th>BOINC client</th><td>");
		web_html(b, d.client);
		sbuf_addstr(b, "</td></tr>\n");
	}
	if (*d.vbox) {
		sbuf_addstr(b, "<tr><th>VirtualBox</th><td>");
		web_html(b, d.vbox);
		sbuf_addstr(b, "</td></tr>\n");
	}
	web_host_desc_release(&d);
}
