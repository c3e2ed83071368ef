/*
 * A host's resources as the pages show them (web_host.c): its CPUs from
 * p_ncpus and p_fpops, its GPUs from p_ngpus, p_gpu_fpops and the
 * description the scheduler keeps in host.serialnum -- upstream's
 * "[BOINC|7.20.5][CUDA|NVIDIA H200|1|143156MB|58099|0]", written by
 * sched_rsc_describe() (or by upstream's scheduler, in a migrated
 * database). That text came from a stranger's client: it is read
 * defensively (a group that does not parse is left out) and every part
 * of it is escaped where it is shown. The ops host page and the
 * volunteers' host page show the same rows.
 */
#ifndef WSEQ_WEB_HOST_H
#define WSEQ_WEB_HOST_H

#include "common.h"
#include "sbuf.h"
#include "db_records.h"

#define WEB_HOST_MAX_GPUS 8             /* GPU groups shown; more are left out */
#define WEB_HOST_MAX_COUNT 64           /* devices of one group (upstream's MAX_COPROC_INSTANCES) */
#define WEB_HOST_DESC_CHARS 1024        /* characters of a description read; the rest is left out */

/* One [KIND|model|count|MB|driver|opencl] group: a type of GPU and how many the host has. */
struct web_gpu {
	const char *rsc;        /* upstream's resource: NVIDIA, ATI, intel_gpu, apple_gpu, or a type */
	const char *model;      /* "NVIDIA H200"; "" if not said */
	int count;              /* in [1, WEB_HOST_MAX_COUNT] */
	int64_t ram_mb;         /* available RAM a device, MB; -1 unknown */
	const char *driver;     /* as shown: "580.99" for NVIDIA, else the text sent; "" none */
	int opencl;             /* OpenCL version, major * 100 + minor; 0 none */
	char driver_buf[16];    /* an NVIDIA driver number, formatted */
};

/* What a description says; every string points into text (clean UTF-8, no control characters). */
struct web_host_desc {
	char *text;             /* the description cleaned and cut, split in place */
	const char *client;     /* the BOINC client's version, "" unknown */
	const char *vbox;       /* the VirtualBox version, "" none */
	struct web_gpu gpu[WEB_HOST_MAX_GPUS];
	int ngpus;
};

/*
 * Read a description (NULL: none). Never fails: what does not parse --
 * an unclosed group, an unknown kind, a count that is not a number in
 * [1, 64] -- is left out.
 */
void web_host_desc_parse(const char *serialnum, struct web_host_desc *d);
void web_host_desc_release(struct web_host_desc *d);

/*
 * A resource name (plan_class_resource(), a GPU's rsc) for people: "CPU",
 * "NVIDIA GPU", "AMD GPU", "Intel GPU", "Apple GPU", else the name itself.
 */
const char *web_rsc_label(const char *rsc);

/*
 * The rows (<tr><th>..</th><td>..</td></tr>) of a host's resources, for a
 * table of facts: CPUs (count, model, speed), a row of class "gpu" for
 * each GPU group (or one saying none), the GPUs' peak speed, the BOINC
 * client's version. Everything from the host row escaped.
 */
void web_host_resources(struct sbuf *b, const struct db_host *h);

#endif
