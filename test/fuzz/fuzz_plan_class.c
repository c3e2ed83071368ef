/*
 * A project's plan_class_spec.xml, read by plan_classes_parse() (sched/
 * plan_class_read.c), and every class it keeps checked against a fixed
 * host -- 16 CPUs, an NVIDIA H200, an AMD GPU and a generic coprocessor --
 * by plan_class_check() and described by plan_class_describe() (sched/
 * plan_class.c). Properties: a refusal says where; kept classes have
 * distinct names of fewer than 128 bytes; the notes and descriptions are
 * valid text; a failed check says why; a passed one gives finite,
 * non-negative figures on a resource the host has.
 */
#include "fuzz.h"
#include "field.h"
#include "plan_class.h"

#include <math.h>

static void add_rsc(struct sched_request *r, enum sched_rsc_kind kind, const char *type, int count,
		    double peak)
{
	struct sched_rsc *x = &r->rsc[r->nrsc++];

	x->kind = kind;
	wstrlcpy(x->type, type, sizeof(x->type));
	x->count = count;
	x->peak_flops = peak;
	x->ram = 8e9;
	x->have_opencl = kind != SCHED_RSC_NVIDIA;
	x->have_cuda = kind == SCHED_RSC_NVIDIA;
	x->cuda_version = x->have_cuda ? 13000 : 0;
	x->driver_version = x->have_cuda ? 58099 : 0;
	x->compcap = x->have_cuda ? 900 : 0;
	x->opencl_version = 300;
	wstrlcpy(x->driver_text, "1.4.1848", sizeof(x->driver_text));
}

static void host(struct sched_request *r)
{
	static char os_name[] = "Linux Ubuntu", vendor[] = "GenuineIntel", features[] = "fpu sse2 avx avx2 fma";
	static char os_version[] = "Ubuntu 24.04.3 LTS [6.8.0-generic|libc 2.36]";
	static char model[] = "Intel(R) Xeon(R) Processor [Family 6 Model 207 Stepping 2]";

	memset(r, 0, sizeof(*r));
	r->core_major = 7, r->core_minor = 20, r->core_release = 5;
	r->host.p_ncpus = 16;
	r->host.p_fpops = 1e9;
	r->host.os_name = os_name;
	r->host.os_version = os_version;
	r->host.p_vendor = vendor;
	r->host.p_model = model;
	r->p_features = features;
	add_rsc(r, SCHED_RSC_CPU, "CPU", 16, 1e9);
	add_rsc(r, SCHED_RSC_NVIDIA, "NVIDIA", 1, 3.345408e13);
	add_rsc(r, SCHED_RSC_ATI, "ATI", 2, 6.14e13);
	add_rsc(r, SCHED_RSC_OTHER, "miner_asic", 2, 0);
}

static void check_usage(const struct sched_request *r, const struct host_usage *u)
{
	FUZZ_CHECK(u->rsc >= 0 && u->rsc < r->nrsc);
	FUZZ_CHECK(isfinite(u->avg_ncpus) && u->avg_ncpus >= 0);
	FUZZ_CHECK(isfinite(u->max_ncpus) && u->max_ncpus >= u->avg_ncpus);
	FUZZ_CHECK(isfinite(u->ncoproc) && u->ncoproc >= 0 && u->ncoproc <= r->rsc[u->rsc].count);
	FUZZ_CHECK(isfinite(u->projected_flops) && u->projected_flops >= 0);
	FUZZ_CHECK(isfinite(u->peak_flops) && u->peak_flops >= 0);
	FUZZ_CHECK(isfinite(u->gpu_ram) && u->gpu_ram >= 0);
	FUZZ_CHECK(strlen(u->cmdline) < sizeof(u->cmdline));
}

static void check_class(const struct plan_classes *pcs, size_t i, const struct sched_request *r)
{
	const struct plan_class *pc = &pcs->v[i];
	struct sbuf d = SBUF_INIT(1 << 16);
	struct host_usage u;
	char why[256];

	FUZZ_CHECK(*pc->name && strlen(pc->name) < PLAN_CLASS_NAME_LEN);
	FUZZ_CHECK(plan_class_find(pcs, pc->name) == pc);
	if (plan_class_check(pc, r, &u, why, sizeof(why)))
		check_usage(r, &u);
	else
		FUZZ_CHECK(*why != '\0');
	plan_class_describe(pc, &d);
	FUZZ_CHECK(d.len > 0 && field_text_ok(sbuf_str(&d), d.len, false));
	FUZZ_CHECK(*plan_class_resource(pc));
	sbuf_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf notes = SBUF_INIT(1 << 22), err = SBUF_INIT(4096);
	struct plan_classes pcs;
	struct sched_request r;
	size_t i;

	fuzz_setup();
	host(&r);
	if (plan_classes_parse((const char *)data, size, "spec.xml", &pcs, &notes, &err) < 0) {
		FUZZ_CHECK(pcs.n == 0 && !strncmp(sbuf_str(&err), "spec.xml:", 9));
	} else {
		FUZZ_CHECK(pcs.n <= PLAN_CLASS_MAX);
		for (i = 0; i < pcs.n; i++)
			check_class(&pcs, i, &r);
	}
	FUZZ_CHECK(field_text_ok(sbuf_str(&notes), notes.len, true));
	plan_classes_release(&pcs);
	sbuf_release(&notes);
	sbuf_release(&err);
	return 0;
}
