/*
 * Plan classes: which hosts an app version may go to, and how it uses them,
 * read from the project's plan_class_spec.xml in upstream BOINC's format
 * (sched/plan_class_spec.cpp; a project's existing file works unchanged).
 *
 * A version without a plan class is a CPU version using one CPU. A version
 * whose plan class the file does not define is sent nowhere (logged once
 * per load; `wseq_config --check` and `update_versions` say so too).
 *
 * The reader (plan_class_read.c) reads the file as upstream's tag reader
 * does, not as strict XML: upstream's own sample leaves an element unclosed.
 * The matcher (plan_class.c) makes no database call; the scheduler keeps the
 * parsed file and reads it again when its mtime changes. doc/plan_classes.md
 * is the reference: every element, its default, what differs from upstream.
 */
#ifndef WSEQ_PLAN_CLASS_H
#define WSEQ_PLAN_CLASS_H

#include "common.h"
#include "sbuf.h"
#include "sched_types.h"

#include <regex.h>

#define PLAN_CLASS_FILE "plan_class_spec.xml"   /* in the project directory, as upstream */
#define PLAN_CLASS_NAME_LEN 128         /* app_version.plan_class is varchar(128) */
#define PLAN_CLASS_MAX_FEATURES 16
#define PLAN_CLASS_CMDLINE_LEN 256
#define PLAN_CLASS_MAX 1000             /* classes kept from one file */
#define PLAN_CLASS_FILE_MAX (4 << 20)   /* bytes read of plan_class_spec.xml */

/* One <plan_class>; every figure 0 (or false, "") when the file does not set it. */
struct plan_class {
	char name[PLAN_CLASS_NAME_LEN];
	/*
	 * The coprocessor the class runs on: "" for a CPU class; else upstream's
	 * resource name the <gpu_type> names -- "NVIDIA" (nvidia, cuda), "ATI"
	 * (amd, ati), "intel_gpu" (intel, intel_gpu), "apple_gpu" -- or any
	 * other name, matched against generic <coproc><type>s.
	 */
	char gpu_type[PLAN_CLASS_NAME_LEN];
	bool cuda, opencl;                      /* the GPU must support CUDA / OpenCL */
	int min_cuda_version, max_cuda_version; /* as the client sends cudaVersion (13000 = 13.0) */
	int min_nvidia_compcap, max_nvidia_compcap;     /* major * 100 + minor (upstream's form) */
	int min_driver_version, max_driver_version;     /* NVIDIA drvVersion form (58099) */
	int min_opencl_version;                 /* major * 100 + minor */
	double min_gpu_ram_mb;                  /* available RAM the device must have */
	double gpu_ram_used_mb;                 /* a job uses this much of it */
	double ngpus;                           /* devices a job uses (GPU class: default 1) */
	double gpu_peak_flops_scale;            /* default 1 */
	double cpu_frac;                        /* CPUs a GPU job uses besides (default 0.1, upstream's) */
	double min_gpu_peak_flops, max_gpu_peak_flops;  /* per device, when the host reports it */
	int max_opencl_version;
	int min_metal_support;                  /* Apple GPUs */
	bool without_opencl;                    /* AMD: only GPUs without OpenCL */
	bool have_gpu_type_regex;               /* any coprocessor whose type matches */
	regex_t gpu_type_regex;
	bool mt;                                /* multi-threaded: max_threads > 1 */
	int min_ncpus, max_threads;             /* max_threads: default 1, as upstream */
	bool nthreads_cmdline;                  /* send "--nthreads N" in the version's cmdline */
	double avg_ncpus;                       /* CPUs a job uses (CPU class; 0: 1 or threads) */
	double projected_flops_scale;           /* default 1 */
	char *cpu_features[PLAN_CLASS_MAX_FEATURES];    /* each must be in the host's p_features */
	int ncpu_features;
	int min_core_client_version, max_core_client_version;  /* major * 10000 + minor * 100 + release */
	bool have_os_regex;
	regex_t os_regex;                       /* matched against os_version, as upstream */
	bool have_cpu_vendor_regex, have_cpu_model_regex;
	regex_t cpu_vendor_regex, cpu_model_regex;
	double min_os_version, max_os_version;  /* numeric OS version (doc/plan_classes.md) */
	int min_android_version, max_android_version;   /* major * 10000 + minor * 100 + release */
	int min_libc_version;                   /* Linux "|libc 2.36": major * 100 + minor */
	int64_t min_wu_id, max_wu_id, min_batch, max_batch;     /* see plan_class_wu_ok() */
	bool virtualbox, is64bit;               /* matched on what the client reports */
	double min_vbox_version, max_vbox_version;
	bool disabled;                          /* <disabled/>: the class matches no host */
	char *project_prefs_tag;                /* accepted; used by the preferences issue */
	/*
	 * Not "": why the class matches no host -- it asks for what wseq cannot
	 * check (<docker/>, <user_id>, ...) or its regex does not compile. Safer
	 * than ignoring a requirement, which would send the version everywhere.
	 */
	char never[128];
	long line;                              /* where its <plan_class> starts */
};

struct plan_classes {
	struct plan_class *v;
	size_t n;
	char *path;             /* the file read ("" if none) */
	int64_t mtime;          /* its modification time when read: read again when it changes */
};

/*
 * Read plan_class_spec.xml (buffer form for the fuzzer). Lenient as
 * upstream is: unknown elements and unusable values are written, one line
 * "PATH:LINE: message" each, into notes (NULL: logged) and skipped; a class
 * without a <name> or with one seen before is left out, noted; a class
 * asking what wseq cannot check gets never[] (noted). -1, with "PATH:LINE:
 * why" in err and no class kept, only if the document is not tags, its root
 * is not <plan_classes>, or it ends before </plan_classes>.
 */
int plan_classes_parse(const char *buf, size_t len, const char *path, struct plan_classes *pcs,
		       struct sbuf *notes, struct sbuf *err);
/* The project's file: a missing file is no error (no classes). */
int plan_classes_read(const char *path, struct plan_classes *pcs, struct sbuf *notes,
		      struct sbuf *err);
void plan_classes_release(struct plan_classes *pcs);
/*
 * Read PROJECT_DIR/plan_class_spec.xml and print each note as "warning:
 * NOTE" on fp, or the error as "error: ..."; the notes' count, or -1 if the
 * file cannot be used -- what `wseq_config --check` and the tools show.
 */
int plan_classes_check_file(const char *project_dir, struct plan_classes *pcs, FILE *fp);
const struct plan_class *plan_class_find(const struct plan_classes *pcs, const char *name);

/*
 * Upstream's <min_wu_id>/<max_wu_id>/<min_batch>/<max_batch>: may a job of
 * this workunit go out with a version of pc? (0 in the file: no bound.)
 */
bool plan_class_wu_ok(const struct plan_class *pc, int64_t wuid, int64_t batch);

/* How a version of a plan class uses a host (upstream's HOST_USAGE). */
struct host_usage {
	int rsc;                /* index into req->rsc: 0 the CPU, else the coprocessor type */
	double avg_ncpus;       /* CPUs a job uses on average */
	double max_ncpus;       /* and at most */
	double ncoproc;         /* devices of rsc a job uses (0 for the CPU) */
	double gpu_ram;         /* bytes of the device's RAM a job uses */
	double projected_flops; /* the job's expected speed on this host */
	double peak_flops;      /* the peak of what it uses (CPU + devices) */
	char cmdline[PLAN_CLASS_CMDLINE_LEN];   /* "--nthreads N" or "" */
};

/*
 * The usage of a CPU version without a plan class: one CPU, p_fpops (1e9
 * if the host reports none).
 */
void host_usage_cpu(const struct sched_request *req, struct host_usage *u);

/*
 * Does the host of req satisfy pc? true: *u says how a job of it uses the
 * host (projected FLOPS: the CPU's p_fpops x threads x projected_flops_scale;
 * a GPU's peak_flops x gpu_peak_flops_scale x ngpus, plus cpu_frac CPUs,
 * times projected_flops_scale). false: *why (static text) names the first
 * rule the host fails ("no NVIDIA GPU", "compute capability 350 < 500", ...).
 */
bool plan_class_check(const struct plan_class *pc, const struct sched_request *req,
		      struct host_usage *u, char *why, size_t whylen);

/*
 * What a class needs, in one line for admins ("NVIDIA GPU, CUDA >= 11.0,
 * compute capability >= 5.0, 1 GPU + 0.1 CPU"; "multi-threaded, 2..16 CPUs";
 * "CPU"), into out.
 */
void plan_class_describe(const struct plan_class *pc, struct sbuf *out);

/* The resource name a class runs on, as the ops pages and server_status count it: "CPU" or gpu_type. */
const char *plan_class_resource(const struct plan_class *pc);

#endif
