/*
 * Unit tests for plan classes (sched/plan_class_read.c, sched/plan_class.c):
 * plan_class_spec.xml files written as upstream projects write theirs
 * (test/data/plan_class/), and each rule's pass and fail against the
 * requests a real 7.20.5 client sent (test/data/client-7.20.5/) and edited
 * copies of them: compute capability too low, CUDA too old, too little GPU
 * RAM, two GPUs, an AMD GPU, one CPU; and the starter file make_project
 * writes (doc/plan_class_spec.xml.sample). Every FLOPS figure is worked by
 * hand in the comment beside it.
 */
#include "unit.h"
#include "fileutil.h"
#include "plan_class.h"

#include <math.h>

static char *data_path(const char *dir, const char *name)
{
	const char *src = getenv("WSEQ_SRCDIR");

	return xasprintf("%s/test/data/%s/%s", src ? src : ".", dir, name);
}

/* The recorded request name with each edit[2k] replaced by edit[2k+1] (which must be there). */
static void request(const char *name, const char *const *edit, struct sched_request *r)
{
	struct sbuf f = SBUF_INIT(1 << 20), err = SBUF_INIT(1024), b = SBUF_INIT(1 << 20);
	char *path = data_path("client-7.20.5", name), *text, *at;

	assert_int_equal(read_file(path, 1 << 20, &f), 0);
	text = sbuf_detach(&f, NULL);
	for (; edit && *edit; edit += 2) {
		at = strstr(text, edit[0]);
		assert_non_null(at);
		sbuf_reset(&b);
		sbuf_add(&b, text, (size_t)(at - text));
		sbuf_addstr(&b, edit[1]);
		sbuf_addstr(&b, at + strlen(edit[0]));
		free(text);
		text = sbuf_detach(&b, NULL);
	}
	memset(r, 0, sizeof(*r));
	assert_int_equal(sched_request_parse(text, strlen(text), r, &err), 0);
	free(text);
	free(path);
	sbuf_release(&err);
}

static void load(const char *name, struct plan_classes *pcs, struct sbuf *notes)
{
	struct sbuf err = SBUF_INIT(1024);
	char *path = data_path("plan_class", name);

	assert_int_equal(plan_classes_read(path, pcs, notes, &err), 0);
	free(path);
	sbuf_release(&err);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void assert_near(double a, double b)
{
	if (fabs(a - b) > 1e-9 * fabs(b))
		fprintf(stderr, "%.10g != %.10g\n", a, b);
	assert_true(fabs(a - b) <= 1e-9 * fabs(b));
}

/* Check class name of pcs against r: pass (why "") or fail with why containing want. */
static bool check(const struct plan_classes *pcs, const char *name, const struct sched_request *r,
		  struct host_usage *u, const char *want)
{
	const struct plan_class *pc = plan_class_find(pcs, name);
	char why[256];
	bool ok;

	assert_non_null(pc);
	ok = plan_class_check(pc, r, u, why, sizeof(why));
	if (want) {
		if (!strstr(why, want))
			fprintf(stderr, "%s: why '%s', wanted '%s'\n", name, why, want);
		assert_false(ok);
		assert_non_null(strstr(why, want));
	} else {
		if (!ok)
			fprintf(stderr, "%s: failed: %s\n", name, why);
		assert_true(ok);
	}
	return ok;
}

static void test_upstream_style_file(void **state)
{
	struct plan_classes pcs;
	struct sbuf notes = SBUF_INIT(1 << 16);
	const struct plan_class *pc;

	load("plan_class_spec.xml", &pcs, &notes);
	assert_int_equal(pcs.n, 13);
	/* the unclosed element (line 73) is read, noted, and the next ones are read too */
	pc = plan_class_find(&pcs, "opencl_nvidia");
	assert_int_equal(pc->min_opencl_version, 120);
	assert_int_equal((int)pc->min_gpu_ram_mb, 256);
	assert_non_null(strstr(sbuf_str(&notes), "plan_class_spec.xml:73: <min_opencl_version> is "
					       "closed with <min_opencl_version>"));
	assert_non_null(strstr(sbuf_str(&notes), ":90: <wsl> is not checked by wseq: the class "
					       "matches no host"));
	assert_non_null(strstr(sbuf_str(&notes), ":94: <docker> is not checked by wseq"));
	assert_int_equal(count(sbuf_str(&notes), "\n"), 3);
	pc = plan_class_find(&pcs, "mt");
	assert_true(pc->mt && pc->nthreads_cmdline);
	assert_int_equal(pc->min_ncpus, 2);
	assert_int_equal(pc->max_threads, 8);
	assert_string_equal(plan_class_find(&pcs, "amd_gpu")->gpu_type, "ATI");
	assert_string_equal(plan_class_find(&pcs, "amd_cal_only")->gpu_type, "ATI");
	assert_string_equal(plan_class_find(&pcs, "cuda")->gpu_type, "NVIDIA");
	assert_true(plan_class_find(&pcs, "cuda_half")->cuda);
	assert_near(plan_class_find(&pcs, "cuda_half")->ngpus, 0.5);
	assert_near(plan_class_find(&pcs, "amd_cal_only")->cpu_frac, 0.1);   /* upstream's default */
	pc = plan_class_find(&pcs, "avx2");
	assert_int_equal(pc->ncpu_features, 2);
	assert_string_equal(pc->cpu_features[0], "avx2");
	assert_true(plan_class_find(&pcs, "vbox64")->is64bit);
	plan_classes_release(&pcs);
	sbuf_release(&notes);
}

static void test_every_element_accepted(void **state)
{
	struct plan_classes pcs;
	struct sbuf notes = SBUF_INIT(1 << 16);

	load("every_element.xml", &pcs, &notes);
	assert_int_equal(pcs.n, 10);
	assert_null(strstr(sbuf_str(&notes), "not a plan class element"));
	/* 11 elements wseq accepts but does not check, each named */
	assert_int_equal(count(sbuf_str(&notes), "is not checked by wseq; ignored"), 11);
	assert_non_null(strstr(sbuf_str(&notes), "<user_id> is not checked by wseq: the class matches no host"));
	assert_non_null(strstr(sbuf_str(&notes), "<project_prefs_regex> is not checked by wseq"));
	assert_int_equal(count(sbuf_str(&notes), "\n"), 13);
	assert_string_equal(plan_class_find(&pcs, "linux_new")->project_prefs_tag, "use_new");
	assert_string_equal(plan_class_find(&pcs, "compcap_range")->gpu_type, "NVIDIA");
	plan_classes_release(&pcs);
	sbuf_release(&notes);
}

static void test_notes_and_refusals(void **state)
{
	static const char *const bad[] = {
		"", "plain text", "<boinc><plan_class/></boinc>", "<plan_classes><plan_class><name>x",
		"<plan_classes><plan_class><name>x</name></plan_class>", "<plan_classes><!-- x",
		"<plan_classes", "<plan_classes>\0</plan_classes>",
	};
	struct plan_classes pcs;
	struct sbuf notes = SBUF_INIT(1 << 16), err = SBUF_INIT(1024);
	const char *n;
	size_t i;

	load("notes.xml", &pcs, &notes);
	n = sbuf_str(&notes);
	assert_int_equal(pcs.n, 3);     /* bad_values, unclosed, after */
	assert_non_null(strstr(n, "notes.xml:4: <max_threads>: max_threads: 'lots' is not a number; ignored"));
	assert_non_null(strstr(n, "notes.xml:5: <min_ncpus>: min_ncpus: -3 is outside [0, 1000000]; 0 used"));
	assert_non_null(strstr(n, "notes.xml:6: <cpu_frac>: cpu_frac: inf is outside [0, 1e+06]; 1e+06 used"));
	assert_non_null(strstr(n, "notes.xml:7: <colour> is not a plan class element; ignored"));
	assert_non_null(strstr(n, "notes.xml:8: <os_regex> is not a regular expression: the class matches no host"));
	assert_non_null(strstr(n, "notes.xml:10: <plan_class> has no <name>; left out"));
	assert_non_null(strstr(n, "notes.xml:13: <plan_class> bad_values has a name used before; left out"));
	assert_non_null(strstr(n, "notes.xml:16: <stray> is not <plan_class>; ignored"));
	assert_non_null(strstr(n, "notes.xml:17: <plan_class> is not closed"));
	assert_int_equal(plan_class_find(&pcs, "bad_values")->max_threads, 1);
	assert_int_equal(plan_class_find(&pcs, "unclosed")->max_threads, 4);
	assert_non_null(plan_class_find(&pcs, "after"));
	plan_classes_release(&pcs);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* the last holds a NUL: its length is the literal's, without the final NUL */
		size_t len = i == ARRAY_SIZE(bad) - 1 ? sizeof("<plan_classes>\0</plan_classes>") - 1
						      : strlen(bad[i]);

		sbuf_reset(&err);
		assert_int_equal(plan_classes_parse(bad[i], len, "f.xml", &pcs, &notes, &err), -1);
		assert_non_null(strstr(sbuf_str(&err), "f.xml:"));
		plan_classes_release(&pcs);
	}
	assert_int_equal(plan_classes_parse("<?xml version=\"1.0\"?><plan_classes/>", 36, "f.xml", &pcs,
					    &notes, &err), 0);
	assert_int_equal(pcs.n, 0);
	plan_classes_release(&pcs);
	assert_int_equal(plan_classes_read("/nonexistent/plan_class_spec.xml", &pcs, NULL, &err), 0);
	assert_int_equal(pcs.n, 0);
	plan_classes_release(&pcs);
	sbuf_release(&notes);
	sbuf_release(&err);
}

/* The H200 host as recorded: 16 CPUs of 1e9 FLOPS, one H200 (compcap 900, CUDA 13.0, 3.345408e13 FLOPS). */
static void test_h200(void **state)
{
	struct plan_classes pcs, all;
	struct sched_request r;
	struct host_usage u;

	load("plan_class_spec.xml", &pcs, NULL);
	load("every_element.xml", &all, NULL);
	request("h200_request_2.xml", NULL, &r);

	check(&pcs, "mt", &r, &u, NULL);        /* min(16, 8) threads x 1e9 x 0.98 */
	assert_int_equal(u.rsc, 0);
	assert_near(u.avg_ncpus, 8);
	assert_near(u.max_ncpus, 8);
	assert_near(u.projected_flops, 7.84e9);
	assert_string_equal(u.cmdline, "--nthreads 8");

	check(&pcs, "cuda", &r, &u, NULL);      /* 3.345408e13 x 0.5 x 1 + 0.2 x 1e9 */
	assert_int_equal(u.rsc, 1);
	assert_near(u.ncoproc, 1);
	assert_near(u.avg_ncpus, 0.2);
	assert_near(u.gpu_ram, 1024 * 1048576.0);
	assert_near(u.projected_flops, 1.672724e13);
	assert_near(u.peak_flops, 1.672724e13);
	assert_string_equal(u.cmdline, "");

	check(&pcs, "cuda_two", &r, &u, "a job needs 2 NVIDIA GPUs, the host has 1");
	check(&pcs, "cuda_half", &r, &u, "CUDA version 13000 > 12080");
	check(&pcs, "opencl_nvidia", &r, &u, "the NVIDIA GPU has no OpenCL");
	check(&pcs, "amd_gpu", &r, &u, "no ATI GPU");
	check(&pcs, "asic", &r, &u, "no miner_asic GPU");
	/* VirtualBox: what the client reports, within the class's versions (min 50000) */
	check(&pcs, "vbox64", &r, &u, "the client reports no usable VirtualBox");
	r.vbox_version = xstrdup("4.3.40");
	check(&pcs, "vbox64", &r, &u, "VirtualBox 40340 < 50000");
	free(r.vbox_version);
	r.vbox_version = xstrdup("6.1.38");
	check(&pcs, "vbox64", &r, &u, NULL);
	free(r.vbox_version);
	r.vbox_version = NULL;
	check(&pcs, "in_wsl", &r, &u, "<wsl> is not checked by wseq");
	check(&pcs, "in_docker", &r, &u, "<docker> is not checked by wseq");

	check(&pcs, "nci", &r, &u, NULL);       /* 0.02 CPU x 1e9 x 1.02 */
	assert_near(u.avg_ncpus, 0.02);
	assert_near(u.max_ncpus, 1);
	assert_near(u.projected_flops, 2.04e7);
	check(&pcs, "avx2", &r, &u, NULL);      /* avx2 and fma are in its p_features: 1e9 x 1.2 */
	assert_near(u.projected_flops, 1.2e9);

	check(&all, "linux_new", &r, &u, NULL); /* libc 2.36, kernel 6.8.0 = 60800, client 72005 */
	check(&all, "any_gpu", &r, &u, NULL);   /* (3.345408e13 + 0.25 x 1e9) x 0.9 */
	assert_near(u.projected_flops, (3.345408e13 + 2.5e8) * 0.9);
	assert_near(u.avg_ncpus, 0.25);
	check(&all, "compcap_range", &r, &u, "compute capability 900 > 899");
	check(&all, "off", &r, &u, "plan class off is disabled");
	check(&all, "cl", &r, &u, "no intel_gpu GPU");
	check(&all, "apple", &r, &u, "no apple_gpu GPU");
	check(&all, "android", &r, &u, "not an Android host");
	check(&all, "one_user", &r, &u, "<user_id> is not checked by wseq");
	check(&all, "unchecked", &r, &u, "no ATI GPU");
	assert_true(plan_class_wu_ok(plan_class_find(&all, "linux_new"), 15, 3));
	assert_false(plan_class_wu_ok(plan_class_find(&all, "linux_new"), 9, 3));
	assert_false(plan_class_wu_ok(plan_class_find(&all, "linux_new"), 21, 4));
	assert_false(plan_class_wu_ok(plan_class_find(&all, "linux_new"), 15, 5));
	assert_true(plan_class_wu_ok(plan_class_find(&pcs, "mt"), 1, 1));

	host_usage_cpu(&r, &u);
	assert_near(u.avg_ncpus, 1);
	assert_near(u.projected_flops, 1e9);
	sched_request_release(&r);
	plan_classes_release(&pcs);
	plan_classes_release(&all);
}

/* Edited copies of the H200 request, each failing one rule -- or passing with two GPUs. */
static void test_h200_variants(void **state)
{
	static const char *const low_compcap[] = { "<major>9</major>", "<major>3</major>",
						   "<minor>0</minor>", "<minor>5</minor>", NULL };
	static const char *const old_cuda[] = { "<cudaVersion>13000", "<cudaVersion>10020", NULL };
	static const char *const little_ram[] = { "<available_ram>150109880320",
						  "<available_ram>1073741824", NULL };
	static const char *const two[] = { "<count>1</count>", "<count>2</count>", NULL };
	static const char *const old_client[] = { "<core_client_minor_version>20<",
						  "<core_client_minor_version>16<", NULL };
	static const char *const no_avx2[] = { " avx2 ", " ", NULL };
	struct plan_classes pcs, all;
	struct sched_request r;
	struct host_usage u;

	load("plan_class_spec.xml", &pcs, NULL);
	load("every_element.xml", &all, NULL);
	request("h200_request_2.xml", low_compcap, &r);
	check(&pcs, "cuda", &r, &u, "compute capability 305 < 500");
	sched_request_release(&r);
	request("h200_request_2.xml", old_cuda, &r);
	check(&pcs, "cuda", &r, &u, "CUDA version 10020 < 11000");
	check(&pcs, "cuda_half", &r, &u, NULL);         /* 3.345408e13 x 1 x 0.5 + 0.1 x 1e9 */
	assert_near(u.ncoproc, 0.5);
	assert_near(u.projected_flops, 1.672704e13 + 1e8);
	sched_request_release(&r);
	request("h200_request_2.xml", little_ram, &r);
	check(&pcs, "cuda", &r, &u, "GPU RAM 1024 MB < 2048 MB");
	sched_request_release(&r);
	request("h200_request_2.xml", two, &r);
	check(&pcs, "cuda_two", &r, &u, NULL);          /* 3.345408e13 x 1 x 2 + 0.5 x 1e9 */
	assert_near(u.ncoproc, 2);
	assert_near(u.projected_flops, 6.690816e13 + 5e8);
	sched_request_release(&r);
	request("h200_request_2.xml", old_client, &r);
	check(&all, "linux_new", &r, &u, "client version 71605 < 72000");
	sched_request_release(&r);
	request("h200_request_2.xml", no_avx2, &r);
	check(&pcs, "avx2", &r, &u, "the CPU lacks feature avx2");
	sched_request_release(&r);
	plan_classes_release(&pcs);
	plan_classes_release(&all);
}

#define ATI "<coproc_ati><count>1</count><name>AMD Radeon RX 7900 XTX</name>"                \
	"<peak_flops>61400000000000</peak_flops><CALVersion>1.4.1848</CALVersion>"       \
	"<localRAM>24560</localRAM><have_opencl>1</have_opencl>"                         \
	"<req_secs>3600</req_secs><req_instances>1</req_instances></coproc_ati>"

/* An AMD GPU in place of the H200; the two-core host of a generic coprocessor. */
static void test_ati_and_generic(void **state)
{
	static const char *const ati[] = { "<coproc_cuda>", ATI "<dropped>", "</coproc_cuda>",
					   "</dropped>", NULL };
	static const char *const old_driver[] = { "<coproc_cuda>", ATI "<dropped>", "</coproc_cuda>",
						  "</dropped>", "1.4.1848", "1.3.0", NULL };
	static const char *const one_cpu[] = { "<p_ncpus>2<", "<p_ncpus>1<", NULL };
	struct plan_classes pcs;
	struct sched_request r;
	struct host_usage u;

	load("plan_class_spec.xml", &pcs, NULL);
	request("h200_request_2.xml", ati, &r);
	check(&pcs, "cuda", &r, &u, "no NVIDIA GPU");
	check(&pcs, "amd_gpu", &r, &u, NULL);   /* 6.14e13 x 0.25 + 0.05 x 1e9; driver 1041848 */
	assert_near(u.projected_flops, 1.535e13 + 5e7);
	assert_near(u.gpu_ram, 400 * 1048576.0);
	check(&pcs, "amd_cal_only", &r, &u, "has OpenCL");
	sched_request_release(&r);
	request("h200_request_2.xml", old_driver, &r);
	check(&pcs, "amd_gpu", &r, &u, "driver version 1030000 < 1040000");
	sched_request_release(&r);

	request("cc_config_coproc_request.xml", NULL, &r);
	check(&pcs, "asic", &r, &u, NULL);      /* two miner_asic of 5e12: 5e12 x 1 + 0.01 x 1e9 */
	assert_int_equal(u.rsc, 1);
	assert_near(u.projected_flops, 5e12 + 1e7);
	check(&pcs, "mt", &r, &u, NULL);        /* two CPUs: 2 x 1e9 x 0.98 */
	assert_near(u.projected_flops, 1.96e9);
	assert_string_equal(u.cmdline, "--nthreads 2");
	check(&pcs, "cuda", &r, &u, "no NVIDIA GPU");
	sched_request_release(&r);
	request("cc_config_coproc_request.xml", one_cpu, &r);
	check(&pcs, "mt", &r, &u, "1 CPUs < min_ncpus 2");
	sched_request_release(&r);
	plan_classes_release(&pcs);
}

/* The starter file make_project writes: no note, and each class takes the hosts it should. */
static void test_starter_file(void **state)
{
	static const char *const ati[] = { "<coproc_cuda>", ATI "<dropped>", "</coproc_cuda>",
					   "</dropped>", NULL };
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/doc/plan_class_spec.xml.sample", src ? src : ".");
	struct sbuf notes = SBUF_INIT(1 << 16), err = SBUF_INIT(1024);
	struct plan_classes pcs;
	struct sched_request r;
	struct host_usage u;

	assert_int_equal(plan_classes_read(path, &pcs, &notes, &err), 0);
	assert_string_equal(sbuf_str(&notes), "");
	assert_int_equal(pcs.n, 5);
	request("h200_request_2.xml", NULL, &r);
	check(&pcs, "mt", &r, &u, NULL);        /* 16 threads x 1e9 x 0.99 */
	assert_near(u.projected_flops, 1.584e10);
	assert_string_equal(u.cmdline, "--nthreads 16");
	check(&pcs, "cuda", &r, &u, NULL);      /* 3.345408e13 x 0.2 + 0.1 x 1e9 */
	assert_near(u.projected_flops, 6.690816e12 + 1e8);
	check(&pcs, "opencl_nvidia", &r, &u, "the NVIDIA GPU has no OpenCL");
	check(&pcs, "opencl_ati", &r, &u, "no ATI GPU");
	check(&pcs, "opencl_intel_gpu", &r, &u, "no intel_gpu GPU");
	sched_request_release(&r);
	request("h200_request_2.xml", ati, &r); /* its OpenCL version is not sent: not held against it */
	check(&pcs, "opencl_ati", &r, &u, NULL);
	check(&pcs, "cuda", &r, &u, "no NVIDIA GPU");
	sched_request_release(&r);
	request("cc_config_coproc_request.xml", NULL, &r);
	check(&pcs, "mt", &r, &u, NULL);
	assert_string_equal(u.cmdline, "--nthreads 2");
	check(&pcs, "cuda", &r, &u, "no NVIDIA GPU");
	sched_request_release(&r);
	plan_classes_release(&pcs);
	free(path);
	sbuf_release(&notes);
	sbuf_release(&err);
}

static void test_describe(void **state)
{
	struct plan_classes pcs;
	struct sbuf d = SBUF_INIT(4096);

	load("plan_class_spec.xml", &pcs, NULL);
	plan_class_describe(plan_class_find(&pcs, "cuda"), &d);
	assert_string_equal(sbuf_str(&d), "NVIDIA GPU, CUDA, CUDA >= 11.0, compute capability >= 5.0, "
					  "driver >= 45000, 2048 MB GPU RAM, 1 GPU + 0.2 CPU");
	sbuf_reset(&d);
	plan_class_describe(plan_class_find(&pcs, "mt"), &d);
	assert_string_equal(sbuf_str(&d), "multi-threaded, 2..8 CPUs, --nthreads N, speed x 0.98");
	sbuf_reset(&d);
	plan_class_describe(plan_class_find(&pcs, "in_docker"), &d);
	assert_string_equal(sbuf_str(&d), "no host (<docker> is not checked by wseq)");
	assert_string_equal(plan_class_resource(plan_class_find(&pcs, "cuda")), "NVIDIA");
	assert_string_equal(plan_class_resource(plan_class_find(&pcs, "mt")), "CPU");
	assert_string_equal(plan_class_resource(plan_class_find(&pcs, "asic")), "miner_asic");
	sbuf_release(&d);
	plan_classes_release(&pcs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_style_file),
		cmocka_unit_test(test_every_element_accepted),
		cmocka_unit_test(test_notes_and_refusals),
		cmocka_unit_test(test_h200),
		cmocka_unit_test(test_h200_variants),
		cmocka_unit_test(test_ati_and_generic),
		cmocka_unit_test(test_starter_file),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
