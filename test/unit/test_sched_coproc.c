/*
 * Unit tests for a host's resources in the scheduler request
 * (sched/sched_coproc.c, sched/sched_request.c): the requests a real 7.20.5
 * client sent (test/data/client-7.20.5/) and variants of them -- two GPUs,
 * AMD, Intel and Apple GPUs, a generic coprocessor, a malformed one, too many.
 */
#include "unit.h"
#include "field.h"
#include "fileutil.h"
#include "sched_types.h"

/* The recorded request called name, its <coprocs> replaced by coprocs if not NULL. */
static char *fixture(const char *name, const char *coprocs)
{
	const char *src = getenv("WSEQ_SRCDIR");
	char path[4096];
	struct sbuf b = SBUF_INIT(1 << 20), f = SBUF_INIT(1 << 20);
	char *text, *start, *end;

	snprintf(path, sizeof(path), "%s/test/data/client-7.20.5/%s", src ? src : ".", name);
	assert_int_equal(read_file(path, 1 << 20, &f), 0);
	text = sbuf_detach(&f, NULL);
	start = strstr(text, "<coprocs>");
	end = strstr(text, "</coprocs>");
	if (!coprocs || !start || !end) {
		assert_true(!coprocs || (start && end));
		return text;
	}
	sbuf_add(&b, text, (size_t)(start - text));
	sbuf_addf(&b, "<coprocs>%s", coprocs);
	sbuf_addstr(&b, end);
	free(text);
	return sbuf_detach(&b, NULL);
}

static void parse(const char *name, const char *coprocs, struct sched_request *r)
{
	struct sbuf err = SBUF_INIT(1024);
	char *text = fixture(name, coprocs);

	assert_int_equal(sched_request_parse(text, strlen(text), r, &err), 0);
	free(text);
	sbuf_release(&err);
}

#define CUDA(count, extra)                                                               \
	"<coproc_cuda><count>" count "</count><name>NVIDIA H200</name>"                  \
	"<available_ram>150109880320</available_ram><have_cuda>1</have_cuda>"            \
	"<req_secs>51840</req_secs><req_instances>1</req_instances>"                     \
	"<estimated_delay>0</estimated_delay><peak_flops>33454080000000</peak_flops>"    \
	"<cudaVersion>13000</cudaVersion><drvVersion>58099</drvVersion>"                 \
	"<totalGlobalMem>150109880320</totalGlobalMem><major>9</major><minor>0</minor>"  \
	extra "</coproc_cuda>"

#define ATI                                                                              \
	"<coproc_ati><count>1</count><name>AMD Radeon RX 7900 XTX</name>"                \
	"<peak_flops>61400000000000</peak_flops><CALVersion>1.4.1848</CALVersion>"       \
	"<localRAM>24560</localRAM><req_secs>3600</req_secs><req_instances>1</req_instances>" \
	"<coproc_opencl><name>gfx1100</name>"                                            \
	"<opencl_device_version>OpenCL 2.0 AMD-APP (3614.0)</opencl_device_version>"     \
	"</coproc_opencl></coproc_ati>"

/* What a real client sends by design is never "corrected": no note for any fixture. */
static void test_fixtures_without_notes(void **state)
{
	static const char *const names[] = {
		"h200_request_1.xml", "h200_request_2.xml", "cc_config_coproc_request.xml",
	};
	struct sched_request r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		parse(names[i], NULL, &r);
		assert_string_equal(r.notes, "");
		assert_int_equal(r.nrsc, 2);
		sched_request_release(&r);
	}
}

static void test_h200(void **state)
{
	struct sched_request r;
	const struct sched_rsc *g;

	parse("h200_request_2.xml", NULL, &r);
	assert_true(r.host.connected_frac == -1);       /* the client's "unknown", kept */
	assert_non_null(strstr(r.p_features, " avx512f "));
	assert_string_equal(r.rsc[0].type, "CPU");
	assert_int_equal(r.rsc[0].count, 16);
	assert_true(r.rsc[0].req_secs == 829440 && r.rsc[0].req_instances == 16);
	g = &r.rsc[1];
	assert_int_equal(g->kind, SCHED_RSC_NVIDIA);
	assert_string_equal(g->type, "NVIDIA");
	assert_string_equal(g->model, "NVIDIA H200");
	assert_int_equal(g->count, 1);
	assert_true(g->peak_flops == 33454080000000.0 && g->ram == 150109880320.0);
	assert_int_equal(g->cuda_version, 13000);
	assert_int_equal(g->driver_version, 58099);
	assert_int_equal(g->compcap, 900);
	assert_true(g->have_cuda && !g->have_opencl);
	assert_true(g->req_secs == 51840 && g->req_instances == 1 && g->estimated_delay == 0);
	assert_int_equal(r.host.p_ngpus, 1);
	assert_true(r.host.p_gpu_fpops == 33454080000000.0);
	/* upstream truncates totalGlobalMem / 2^20 (143155.9); the client's log rounds it */
	assert_string_equal(r.host.serialnum, "[BOINC|7.20.5][CUDA|NVIDIA H200|1|143155MB|58099|0]");
	sched_request_release(&r);
}

static void test_two_gpus_and_amd(void **state)
{
	struct sched_request r;

	parse("h200_request_2.xml", CUDA("2", "") ATI, &r);
	assert_string_equal(r.notes, "");
	assert_int_equal(r.nrsc, 3);
	assert_int_equal(r.rsc[1].count, 2);
	assert_string_equal(r.rsc[2].type, "ATI");
	assert_string_equal(r.rsc[2].model, "AMD Radeon RX 7900 XTX");
	assert_true(r.rsc[2].ram == 24560 * 1048576.0);  /* localRAM, MiB, without available_ram */
	assert_string_equal(r.rsc[2].driver_text, "1.4.1848");
	assert_int_equal(r.rsc[2].opencl_version, 200);
	assert_int_equal(r.host.p_ngpus, 3);
	assert_true(r.host.p_gpu_fpops == 2 * 33454080000000.0 + 61400000000000.0);
	assert_string_equal(r.host.serialnum, "[BOINC|7.20.5][CUDA|NVIDIA H200|2|143155MB|58099|0]"
			    "[CAL|AMD Radeon RX 7900 XTX|1|24560MB|1.4.1848|200]");
	sched_request_release(&r);
}

static void test_intel_and_apple(void **state)
{
	struct sched_request r;

	parse("h200_request_2.xml",
	      "<coproc_intel_gpu><count>1</count><peak_flops>1e12</peak_flops><have_opencl>1</have_opencl>"
	      "<coproc_opencl><name>Intel(R) UHD Graphics 770</name><global_mem_size>2147483648</global_mem_size>"
	      "<opencl_device_version>OpenCL 3.0 NEO</opencl_device_version>"
	      "<opencl_driver_version>23.52.28202</opencl_driver_version></coproc_opencl></coproc_intel_gpu>"
	      "<coproc_apple_gpu><count>1</count><model>Apple M2</model><peak_flops>3.6e12</peak_flops>"
	      "<available_ram>17179869184</available_ram><metal_support>3</metal_support></coproc_apple_gpu>",
	      &r);
	assert_string_equal(r.notes, "");
	assert_int_equal(r.nrsc, 3);
	assert_string_equal(r.rsc[1].type, "intel_gpu");
	assert_true(r.rsc[1].ram == 2147483648.0 && r.rsc[1].have_opencl);
	assert_string_equal(r.rsc[2].type, "apple_gpu");
	assert_string_equal(r.host.serialnum, "[BOINC|7.20.5]"
			    "[INTEL|Intel(R) UHD Graphics 770|1|2048MB|23.52.28202|300]"
			    "[apple_gpu|Apple M2|1|16384MB|3|0]");
	sched_request_release(&r);
}

/* An OpenCL version with a sign is no version (fuzz_sched_coprocs: "-13.0" wrapped to < 0). */
static void test_signed_opencl_version(void **state)
{
	static const char *const bad[] = { "OpenCL -13.0 NEO", "OpenCL 3.-1 NEO", "OpenCL +3.0" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sched_request r;
		char *c = xasprintf("<coproc_intel_gpu><count>1</count><coproc_opencl>"
				    "<opencl_device_version>%s</opencl_device_version>"
				    "</coproc_opencl></coproc_intel_gpu>", bad[i]);

		parse("h200_request_2.xml", c, &r);
		assert_int_equal(r.nrsc, 2);
		assert_int_equal(r.rsc[1].opencl_version, 0);
		sched_request_release(&r);
		free(c);
	}
}

static void test_generic_coproc(void **state)
{
	struct sched_request r;
	const struct sched_rsc *g;

	parse("cc_config_coproc_request.xml", NULL, &r);
	g = &r.rsc[1];
	assert_int_equal(g->kind, SCHED_RSC_OTHER);
	assert_string_equal(g->type, "miner_asic");
	assert_int_equal(g->count, 2);
	assert_true(g->peak_flops == 5e12 && g->req_secs == 103680 && g->req_instances == 2);
	assert_true(r.rsc[0].req_secs == 103680 && r.rsc[0].req_instances == 2);
	assert_int_equal(r.host.p_ngpus, 2);
	assert_true(r.host.p_gpu_fpops == 1e13);
	assert_string_equal(r.host.serialnum, "[BOINC|7.20.5][opencl_gpu|miner_asic|2|0MB|0]");
	sched_request_release(&r);
}

/* A coprocessor that cannot be read is left out and named; the rest of the request stands. */
static void test_malformed_ignored(void **state)
{
	struct sched_request r;

	parse("h200_request_2.xml", CUDA("many", "") ATI, &r);
	assert_int_equal(r.nrsc, 2);
	assert_string_equal(r.rsc[1].type, "ATI");
	assert_non_null(strstr(r.notes, "coproc_cuda ignored: count: 'many' is not"));
	assert_true(r.rsc[0].req_secs == 829440);
	sched_request_release(&r);

	parse("h200_request_2.xml",
	      CUDA("0", "") CUDA("1", "<peak_flops>fast</peak_flops>") CUDA("1", "") CUDA("1", "")
	      "<coproc><count>1</count></coproc><coproc><type>cpu</type><count>1</count></coproc>"
	      "<coproc><type>x|y]</type><count>1</count><req_secs>-5</req_secs></coproc>", &r);
	assert_int_equal(r.nrsc, 3);            /* the CPU, one NVIDIA, x|y] */
	assert_non_null(strstr(r.notes, "coproc_cuda ignored: count: 0 is outside [1, 64]"));
	assert_non_null(strstr(r.notes, "coproc_cuda ignored: peak_flops: 'fast' is not a number"));
	assert_non_null(strstr(r.notes, "coproc_cuda ignored: a type already declared"));
	assert_non_null(strstr(r.notes, "coproc ignored: no type"));
	assert_non_null(strstr(r.notes, "coproc ignored: type CPU is the CPU's"));
	assert_non_null(strstr(r.notes, "coproc: req_secs: -5 is outside"));
	assert_true(r.rsc[2].req_secs == 0);
	assert_string_equal(r.host.serialnum, "[BOINC|7.20.5][CUDA|NVIDIA H200|1|143155MB|58099|0]"
			    "[opencl_gpu|x?y?|1|0MB|0]");
	sched_request_release(&r);
}

static void test_too_many_types(void **state)
{
	struct sched_request r;
	struct sbuf c = SBUF_INIT(1 << 16);
	int i;

	for (i = 0; i < SCHED_MAX_COPROCS + 3; i++)
		sbuf_addf(&c, "<coproc><type>t%d</type><count>1</count></coproc>", i);
	parse("h200_request_2.xml", sbuf_str(&c), &r);
	assert_int_equal(r.nrsc, SCHED_MAX_RSC);
	assert_string_equal(r.rsc[SCHED_MAX_RSC - 1].type, "t7");
	assert_non_null(strstr(r.notes, "coproc ignored: more than 8 coprocessor types"));
	assert_int_equal(r.host.p_ngpus, SCHED_MAX_COPROCS);
	sched_request_release(&r);
	sbuf_release(&c);
}

/* Long names are cut, and the description stays within its column. */
static void test_long_text_bounded(void **state)
{
	struct sched_request r;
	struct sbuf c = SBUF_INIT(1 << 16);
	int i;

	for (i = 0; i < SCHED_MAX_COPROCS; i++) {
		sbuf_addf(&c, "<coproc><type>t%d", i);
		for (int j = 0; j < 100; j++)
			sbuf_addstr(&c, "\xc3\xa9");
		sbuf_addstr(&c, "</type><count>1</count></coproc>");
	}
	parse("h200_request_2.xml", sbuf_str(&c), &r);
	assert_int_equal(r.nrsc, SCHED_MAX_RSC);
	assert_non_null(strstr(r.notes, "coproc: type: longer than 63 characters; cut"));
	assert_true(field_text_ok(r.host.serialnum, strlen(r.host.serialnum), false));
	assert_true(strlen(r.host.serialnum) <= 4 * FIELD_COLUMN_CHARS);
	sched_request_release(&r);
	sbuf_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_without_notes),
		cmocka_unit_test(test_h200),
		cmocka_unit_test(test_two_gpus_and_amd),
		cmocka_unit_test(test_intel_and_apple),
		cmocka_unit_test(test_signed_opencl_version),
		cmocka_unit_test(test_generic_coproc),
		cmocka_unit_test(test_malformed_ignored),
		cmocka_unit_test(test_too_many_types),
		cmocka_unit_test(test_long_text_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
