/*
 * A host's description (host.serialnum, "[BOINC|7.20.5][CUDA|NVIDIA
 * H200|1|143156MB|58099|0]") as the pages read it back: web_host_desc_parse()
 * and the rows web_host_resources() writes (html/web_host.c). The text is a
 * stranger's, through the scheduler or a migrated database. Two ways
 * (first byte):
 *
 *   even: the rest is a description. Every part is valid text, counts in
 *         [1, 64], at most 8 GPUs; the rows hold no markup but their own
 *         tags (every '<' opens or closes tr, th or td).
 *   odd:  the rest is a <coprocs> element: parsed as the scheduler does,
 *         described with sched_rsc_describe(), read back -- each GPU group
 *         read is the coprocessor written (resource, count, model, MB), in
 *         order, and every one comes back when the description was not cut.
 */
#include "fuzz.h"
#include "field.h"
#include "sched_coproc.h"
#include "web_host.h"
#include "xml.h"

static void check_text(const char *s)
{
	FUZZ_CHECK(s && field_text_ok(s, strlen(s), false));
}

static void check_desc(const struct web_host_desc *d)
{
	int i;

	FUZZ_CHECK(d->ngpus >= 0 && d->ngpus <= WEB_HOST_MAX_GPUS);
	check_text(d->client);
	check_text(d->vbox);
	for (i = 0; i < d->ngpus; i++) {
		const struct web_gpu *g = &d->gpu[i];

		FUZZ_CHECK(g->count >= 1 && g->count <= WEB_HOST_MAX_COUNT);
		FUZZ_CHECK(*g->rsc);
		check_text(g->rsc);
		check_text(g->model);
		check_text(g->driver);
		FUZZ_CHECK(g->ram_mb >= -1 && g->opencl >= 0);
	}
}

/* Every '<' of the rows is one of their own tags. */
static void check_rows(const char *html)
{
	static const char *const tags[] = { "<tr>", "<tr class=\"", "</tr>", "<th>", "</th>",
					    "<td>", "</td>" };
	const char *p;
	size_t i;

	for (p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
		for (i = 0; i < ARRAY_SIZE(tags) && strncmp(p, tags[i], strlen(tags[i])); i++)
			;
		FUZZ_CHECK(i < ARRAY_SIZE(tags));
	}
}

static void description(const char *s, size_t len)
{
	struct web_host_desc d;
	struct db_host h = { 0 };
	struct sbuf b = SBUF_INIT(1 << 20);
	char *text = fuzz_cstr((const uint8_t *)s, len);

	web_host_desc_parse(text, &d);
	check_desc(&d);
	web_host_desc_release(&d);
	h.serialnum = text;
	h.p_model = text;
	h.p_ncpus = 16;
	h.p_ngpus = 2;
	h.p_gpu_fpops = 1e13;
	web_host_resources(&b, &h);
	check_rows(sbuf_str(&b));
	sbuf_release(&b);
	free(text);
}

/* What sched_rsc_describe() writes of a text part: its separators made '?'. */
static void expect_part(char *out, size_t size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		out[i] = strchr("[]|", s[i]) ? '?' : s[i];
	out[i] = '\0';
}

static void check_round_trip(const struct sched_rsc *r, const struct web_gpu *g)
{
	char want[SCHED_RSC_TEXT_LEN];
	double mb = r->ram / 1048576.0;

	FUZZ_CHECK(g->count == r->count);
	expect_part(want, sizeof(want), r->kind == SCHED_RSC_OTHER ? r->type : r->model);
	if (r->kind == SCHED_RSC_OTHER) {
		FUZZ_CHECK(!strcmp(g->rsc, want));
	} else {
		FUZZ_CHECK(!strcmp(g->rsc, r->type));
		FUZZ_CHECK(!strcmp(g->model, want));
	}
	FUZZ_CHECK(g->ram_mb == (mb < 1e15 ? (int64_t)mb : (int64_t)1e15));
}

static void round_trip(const char *s, size_t len)
{
	struct sched_rsc rsc[SCHED_MAX_RSC] = { { 0 } };
	struct sbuf notes = SBUF_INIT(1 << 16);
	struct web_host_desc d;
	char *desc = NULL;
	xmlDoc *doc = xml_read_memory(s, len, "coprocs", NULL);
	int i, n = 1;

	if (!doc)
		goto out;
	wstrlcpy(rsc[0].type, "CPU", sizeof(rsc[0].type));
	sched_coprocs_parse(xmlDocGetRootElement(doc), rsc, &n, &notes);
	sched_rsc_describe(rsc, n, 7, 20, 5, &desc);
	web_host_desc_parse(desc, &d);
	check_desc(&d);
	FUZZ_CHECK(!strcmp(d.client, "7.20.5"));
	FUZZ_CHECK(d.ngpus <= n - 1);
	if (strlen(desc) < FIELD_COLUMN_CHARS)  /* not cut: every coprocessor is there */
		FUZZ_CHECK(d.ngpus == n - 1);
	for (i = 0; i < d.ngpus; i++)
		check_round_trip(&rsc[i + 1], &d.gpu[i]);
	web_host_desc_release(&d);
	free(desc);
	xmlFreeDoc(doc);
out:
	sbuf_release(&notes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, description, round_trip);
	return 0;
}
