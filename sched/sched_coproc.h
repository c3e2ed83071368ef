/*
 * A host's resources as its scheduler request declares them: the CPU, and
 * each coprocessor type of <coprocs> (client lib/coproc.cpp
 * COPROCS::write_xml) -- NVIDIA <coproc_cuda>, AMD <coproc_ati>,
 * <coproc_intel_gpu>, <coproc_apple_gpu>, and generic <coproc><type>
 * declared in cc_config.xml. One array the scheduler walks per resource:
 * element 0 is the CPU, the rest the coprocessors in the request's order.
 */
#ifndef WSEQ_SCHED_COPROC_H
#define WSEQ_SCHED_COPROC_H

#include "common.h"
#include "sbuf.h"

#include <libxml/tree.h>

#define SCHED_MAX_COPROCS 8             /* coprocessor types kept; more are ignored */
#define SCHED_MAX_RSC (1 + SCHED_MAX_COPROCS)
#define SCHED_COPROC_MAX_COUNT 64       /* upstream's MAX_COPROC_INSTANCES */
#define SCHED_RSC_TEXT_LEN 253         /* bytes: any text of 63 characters fits */

/* Which element a resource came from (the CPU is not in <coprocs>). */
enum sched_rsc_kind {
	SCHED_RSC_CPU,
	SCHED_RSC_NVIDIA,       /* <coproc_cuda> */
	SCHED_RSC_ATI,          /* <coproc_ati> */
	SCHED_RSC_INTEL,        /* <coproc_intel_gpu> */
	SCHED_RSC_APPLE,        /* <coproc_apple_gpu> */
	SCHED_RSC_OTHER,        /* <coproc><type>NAME</type> */
};

struct sched_rsc {
	enum sched_rsc_kind kind;
	/* upstream's resource name: CPU, NVIDIA, ATI, intel_gpu, apple_gpu, or the generic type */
	char type[SCHED_RSC_TEXT_LEN];
	char model[SCHED_RSC_TEXT_LEN];         /* "NVIDIA H200"; "" if not sent */
	int count;                              /* devices (CPU: p_ncpus) */
	double peak_flops;                      /* per device (CPU: p_fpops); 0: not sent */
	double ram;                             /* available RAM per device, bytes; 0: unknown */
	int driver_version;                     /* NVIDIA drvVersion (58099 = 580.99) */
	char driver_text[SCHED_RSC_TEXT_LEN];   /* AMD CALVersion, else the OpenCL driver version */
	int cuda_version;                       /* cudaVersion (13000 = 13.0) */
	int compcap;                            /* compute capability, major * 100 + minor */
	bool have_cuda, have_opencl;
	int opencl_version;                     /* the device's OpenCL version, major * 100 + minor */
	int metal_support;                      /* Apple */
	double req_secs, req_instances, estimated_delay;
};

/*
 * Parse <coprocs> into rsc[*n...]: each coprocessor element checked with
 * lib/field.h rules (figures clamped, text cut and cleaned, each noted);
 * one that cannot be read (a figure not a number, no count, a generic
 * coprocessor without a type or with a type already seen) is left out, as
 * are the types past SCHED_MAX_RSC -- each noted in notes, never a refusal.
 */
void sched_coprocs_parse(const xmlNode *coprocs, struct sched_rsc *rsc, int *n, struct sbuf *notes);

/*
 * Upstream's host description (sched/handle_request.cpp get_misc_info and
 * COPROCS::summary_string, 2024): "[BOINC|7.20.5][CUDA|NVIDIA H200|1|143156MB|58099|0]",
 * at most 254 characters, into *out (allocated).
 */
void sched_rsc_describe(const struct sched_rsc *rsc, int n, int major, int minor, int release,
			char **out);

#endif
