/*
 * A host's <coprocs> as a BOINC client -- or anyone -- sends it in a
 * scheduler request, parsed by sched_coprocs_parse() (sched/sched_coproc.c)
 * and described by sched_rsc_describe() for host.serialnum. Properties:
 * at most SCHED_MAX_COPROCS types, each with a count in [1, 64], a type
 * that is neither empty, "CPU" nor one already kept, valid text within
 * its bounds, figures finite and within theirs; the description and the
 * notes are text a VARCHAR(254) column and an XML reply can hold.
 */
#include "fuzz.h"
#include "field.h"
#include "sched_coproc.h"
#include "xml.h"

#include <math.h>
#include <strings.h>

static void check_text(const char *s, size_t max_chars)
{
	size_t chars = 0;

	FUZZ_CHECK(field_text_ok(s, strlen(s), false));
	for (const char *p = s; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	FUZZ_CHECK(chars <= max_chars);
}

static void check_figure(double v, double max)
{
	FUZZ_CHECK(isfinite(v) && v >= 0 && v <= max);
}

static void check_rsc(const struct sched_rsc *rsc, int n)
{
	int i, j;

	FUZZ_CHECK(n >= 1 && n <= SCHED_MAX_RSC);
	for (i = 1; i < n; i++) {
		const struct sched_rsc *r = &rsc[i];

		FUZZ_CHECK(r->kind != SCHED_RSC_CPU);
		FUZZ_CHECK(r->count >= 1 && r->count <= SCHED_COPROC_MAX_COUNT);
		FUZZ_CHECK(*r->type && strcasecmp(r->type, "CPU") != 0);
		for (j = 1; j < i; j++)
			FUZZ_CHECK(strcasecmp(r->type, rsc[j].type) != 0);
		check_text(r->type, 63);
		check_text(r->model, 63);
		check_text(r->driver_text, 63);
		check_figure(r->peak_flops, 1e18);
		check_figure(r->ram, 1e18 * 1048576.0);
		check_figure(r->req_secs, 1e9);
		check_figure(r->req_instances, SCHED_COPROC_MAX_COUNT);
		check_figure(r->estimated_delay, 1e9);
		FUZZ_CHECK(r->compcap >= 0 && r->opencl_version >= 0 && r->driver_version >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sched_rsc rsc[SCHED_MAX_RSC] = { { 0 } };
	struct sbuf notes = SBUF_INIT(1 << 16);
	char *desc = NULL;
	xmlDoc *doc;
	int n = 1;

	fuzz_setup();
	doc = xml_read_memory((const char *)data, size, "coprocs", NULL);
	if (!doc) {
		sbuf_release(&notes);
		return 0;
	}
	wstrlcpy(rsc[0].type, "CPU", sizeof(rsc[0].type));
	sched_coprocs_parse(xmlDocGetRootElement(doc), rsc, &n, &notes);
	check_rsc(rsc, n);
	FUZZ_CHECK(field_text_ok(sbuf_str(&notes), notes.len, false));
	sched_rsc_describe(rsc, n, 7, 20, 5, &desc);
	check_text(desc, FIELD_COLUMN_CHARS);
	FUZZ_CHECK(!strncmp(desc, "[BOINC|7.20.5]", 14));
	free(desc);
	xmlFreeDoc(doc);
	sbuf_release(&notes);
	return 0;
}
