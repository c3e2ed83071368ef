/*
 * Unit tests for a host's resources on the pages (html/web_host.c): the
 * description in host.serialnum as the scheduler writes it for the recorded
 * H200 host, as upstream's scheduler wrote it (NVIDIA, AMD, Intel, Apple,
 * generic coprocessors, VirtualBox), broken ones, and markup in it.
 */
#include "unit.h"
#include "web_host.h"

static void test_h200(void **state)
{
	struct web_host_desc d;

	(void)state;
	web_host_desc_parse("[BOINC|7.20.5][CUDA|NVIDIA H200|1|143156MB|58099|0]", &d);
	assert_string_equal(d.client, "7.20.5");
	assert_string_equal(d.vbox, "");
	assert_int_equal(d.ngpus, 1);
	assert_string_equal(d.gpu[0].rsc, "NVIDIA");
	assert_string_equal(d.gpu[0].model, "NVIDIA H200");
	assert_int_equal(d.gpu[0].count, 1);
	assert_int_equal(d.gpu[0].ram_mb, 143156);
	assert_string_equal(d.gpu[0].driver, "580.99");
	assert_int_equal(d.gpu[0].opencl, 0);
	web_host_desc_release(&d);
}

static void test_upstream_kinds(void **state)
{
	struct web_host_desc d;

	(void)state;
	web_host_desc_parse("[BOINC|7.16.3][CUDA|GeForce GTX 750 Ti|2|2048MB|34052|102]"
			    "[CAL|Radeon RX 7900|1|24560MB|1.4.1848|200][INTEL|HD 4600|1|1298MB||102]"
			    "[apple_gpu|Apple M2|1|10922MB|3|300][opencl_gpu|miner_asic|4|0MB|0]"
			    "[vbox|6.1.2]", &d);
	assert_string_equal(d.vbox, "6.1.2");
	assert_int_equal(d.ngpus, 5);
	assert_string_equal(d.gpu[0].driver, "340.52");
	assert_int_equal(d.gpu[0].count, 2);
	assert_int_equal(d.gpu[0].opencl, 102);
	assert_string_equal(d.gpu[1].rsc, "ATI");
	assert_string_equal(d.gpu[1].driver, "1.4.1848");
	assert_string_equal(d.gpu[2].rsc, "intel_gpu");
	assert_string_equal(d.gpu[2].driver, "");
	assert_string_equal(d.gpu[3].rsc, "apple_gpu");
	assert_string_equal(d.gpu[3].driver, "");       /* Metal support, not a driver */
	assert_string_equal(d.gpu[4].rsc, "miner_asic");
	assert_string_equal(d.gpu[4].model, "");
	assert_int_equal(d.gpu[4].count, 4);
	assert_int_equal(d.gpu[4].ram_mb, 0);
	web_host_desc_release(&d);
}

/* Groups that do not parse are left out; the rest stand. */
static void test_broken(void **state)
{
	struct web_host_desc d;

	(void)state;
	web_host_desc_parse("junk[CUDA|a|abc|1MB|1|0][CUDA|b|0|1MB][CUDA|c|65|1MB][nosuch|d|1]"
			    "[CUDA|e][opencl_gpu||1|1MB|0][CAL|ok|3|xMB|v|x][BOINC|7.20.5", &d);
	assert_int_equal(d.ngpus, 1);
	assert_string_equal(d.gpu[0].model, "ok");
	assert_int_equal(d.gpu[0].count, 3);
	assert_int_equal(d.gpu[0].ram_mb, -1);
	assert_int_equal(d.gpu[0].opencl, 0);
	assert_string_equal(d.client, "");
	web_host_desc_release(&d);
	web_host_desc_parse(NULL, &d);
	assert_int_equal(d.ngpus, 0);
	web_host_desc_release(&d);
}

static char *rows(const char *serialnum, int ngpus, double gpu_fpops)
{
	struct db_host h = { 0 };
	struct sbuf b = SBUF_INIT(1 << 16);

	h.serialnum = (char *)serialnum;
	h.p_ncpus = 16;
	h.p_model = (char *)"Xeon <i>";
	h.p_vendor = (char *)"GenuineIntel";
	h.p_fpops = 5.2e9;
	h.p_ngpus = ngpus;
	h.p_gpu_fpops = gpu_fpops;
	web_host_resources(&b, &h);
	return sbuf_detach(&b, NULL);
}

static void test_rows(void **state)
{
	char *s;

	(void)state;
	s = rows("[BOINC|7.20.5][CUDA|NVIDIA H200|1|143156MB|58099|0]", 1, 33454080000000.0);
	assert_non_null(strstr(s, "<tr class=\"cpu\"><th>CPUs</th><td>16 &times; Xeon &lt;i&gt; "
				  "(GenuineIntel), 5.20 GFLOPS each</td></tr>"));
	assert_non_null(strstr(s, "<tr class=\"gpu\"><th>GPU</th><td>1 &times; NVIDIA H200 "
				  "(NVIDIA GPU, 143,156 MB, driver 580.99)</td></tr>"));
	assert_non_null(strstr(s, "<th>GPU peak speed</th><td>33,454.08 GFLOPS (1 GPU in all)"));
	assert_non_null(strstr(s, "<th>BOINC client</th><td>7.20.5</td>"));
	free(s);
	s = rows("[BOINC|7.20.5]", 0, 0);
	assert_non_null(strstr(s, "<tr class=\"no-gpu\"><th>GPU</th><td>none</td></tr>"));
	assert_null(strstr(s, "peak speed"));
	free(s);
	s = rows("[BOINC|7.20.5][CUDA|cut", 2, 2e12);
	assert_non_null(strstr(s, "<td>2, not described</td>"));
	free(s);
}

/* Markup in any part comes out as text. */
static void test_markup(void **state)
{
	char *s;

	(void)state;
	s = rows("[BOINC|<b>7</b>][CUDA|<script>alert(1)</script> & \"x\"|1|8MB|1|0]"
		 "[CAL|y|1|1MB|<img src=x>|0][opencl_gpu|<i>t</i>|1|1MB|0]", 3, 1e12);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_null(strstr(s, "<b>"));
	assert_null(strstr(s, "<i>"));
	assert_non_null(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
	assert_non_null(strstr(s, "driver &lt;img src=x&gt;"));
	assert_non_null(strstr(s, "1 &times; &lt;i&gt;t&lt;/i&gt; (coprocessor, 1 MB)"));
	free(s);
}

static void test_labels(void **state)
{
	(void)state;
	assert_string_equal(web_rsc_label("CPU"), "CPU");
	assert_string_equal(web_rsc_label("NVIDIA"), "NVIDIA GPU");
	assert_string_equal(web_rsc_label("ATI"), "AMD GPU");
	assert_string_equal(web_rsc_label("intel_gpu"), "Intel GPU");
	assert_string_equal(web_rsc_label("apple_gpu"), "Apple GPU");
	assert_string_equal(web_rsc_label("miner_asic"), "miner_asic");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h200),
		cmocka_unit_test(test_upstream_kinds),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_markup),
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
