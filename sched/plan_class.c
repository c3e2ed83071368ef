/*
 * Matching a host against a plan class (see plan_class.h), and describing
 * a class for admins. The rules follow upstream's PLAN_CLASS_SPEC::check:
 * CPU features, CPU count, OS, client version, then the coprocessor the
 * class names and its figures; what differs is in doc/plan_classes.md.
 * No database here: the scheduler calls this for every version of every
 * job it considers.
 */
#include "plan_class.h"

#include <ctype.h>
#include <math.h>

#define MEGA 1048576.0          /* upstream's MEGA, for the *_mb elements */
#define DEFAULT_FPOPS 1e9       /* a host that reports no benchmark */

/* The failing rule, as static-length text into why; always false. */
static bool PRINTF_LIKE(3, 4) no(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return false;
}

static double host_fpops(const struct sched_request *req)
{
	return req->host.p_fpops > 0 ? req->host.p_fpops : DEFAULT_FPOPS;
}

static int host_ncpus(const struct sched_request *req)
{
	return req->host.p_ncpus > 0 ? req->host.p_ncpus : 1;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

void host_usage_cpu(const struct sched_request *req, struct host_usage *u)
{
	memset(u, 0, sizeof(*u));
	u->avg_ncpus = u->max_ncpus = 1;
	u->projected_flops = u->peak_flops = host_fpops(req);
}

bool plan_class_wu_ok(const struct plan_class *pc, int64_t wuid, int64_t batch)
{
	return !(pc->min_wu_id && wuid < pc->min_wu_id) && !(pc->max_wu_id && wuid > pc->max_wu_id) &&
	       !(pc->min_batch && batch < pc->min_batch) && !(pc->max_batch && batch > pc->max_batch);
}

/*
 * Is each feature in the host's p_features, or in the [...] upstream's older
 * clients append to p_model? Compared as whole lower-case words.
 */
static bool features_ok(const struct plan_class *pc, const struct sched_request *req,
			char *why, size_t whylen)
{
	const char *model = str(req->host.p_model), *br = strrchr(model, '[');
	char *all = xasprintf(" %s %s ", str(req->p_features), br ? br + 1 : "");
	char *want;
	int i;
	bool ok = true;

	for (char *q = all; *q; q++)
		*q = *q == ']' ? ' ' : (char)tolower((unsigned char)*q);
	for (i = 0; ok && i < pc->ncpu_features; i++) {
		want = xasprintf(" %s ", pc->cpu_features[i]);
		if (!strstr(all, want))
			ok = no(why, whylen, "the CPU lacks feature %s", pc->cpu_features[i]);
		free(want);
	}
	free(all);
	return ok;
}

/*
 * Upstream's numeric OS version: macOS (Darwin) and Android a.b.c as
 * a*10000+b*100+c, Linux likewise from the kernel after '[', Windows
 * "(a.b.c.d)" as a*1e8+b*1e6+c*100+d; 0 if it cannot be told.
 */
static double os_version_num(const struct sched_request *req)
{
	const char *name = str(req->host.os_name), *v = str(req->host.os_version), *p;
	unsigned a, b, c, d;

	if (strstr(name, "Windows")) {
		p = strrchr(v, '(');
		if (p && sscanf(p, "(%u.%u.%u.%u)", &a, &b, &c, &d) == 4)
			return 1e8 * a + 1e6 * b + 100.0 * c + d;
		return 0;
	}
	if (!strstr(name, "Darwin") && !strstr(name, "Android") && !strstr(name, "Linux"))
		return 0;
	p = strstr(name, "Linux") && strchr(v, '[') ? strchr(v, '[') + 1 : v;
	if (sscanf(p, "%u.%u.%u", &a, &b, &c) == 3)
		return 1e4 * a + 100.0 * b + c;
	return 0;
}

/* "... (Android 4.3.1)": 40301; "|libc 2.36": 236; 0 if absent. */
static int android_version(const char *v)
{
	const char *p = strstr(v, "(Android ");
	unsigned a = 0, b = 0, c = 0;

	if (!p || sscanf(p + 9, "%u.%u.%u", &a, &b, &c) < 1 || a > 1000 || b > 99 || c > 99)
		return 0;
	return (int)(a * 10000 + b * 100 + c);
}

static int libc_version(const char *v)
{
	const char *p = strstr(v, "|libc ");
	unsigned a, b;

	if (!p || sscanf(p + 6, "%u.%u", &a, &b) != 2 || a > 1000 || b > 99)
		return 0;
	return (int)(a * 100 + b);
}

static bool os_ok(const struct plan_class *pc, const struct sched_request *req, char *why,
		  size_t whylen)
{
	const char *v = str(req->host.os_version);
	double num;
	int n;

	if (pc->have_os_regex && regexec(&pc->os_regex, v, 0, NULL, 0))
		return no(why, whylen, "OS version does not match os_regex");
	if (pc->min_os_version || pc->max_os_version) {
		num = os_version_num(req);
		if (!num)
			return no(why, whylen, "OS version cannot be told from os_version");
		if (pc->min_os_version && num < pc->min_os_version)
			return no(why, whylen, "OS version %.0f < %.0f", num, pc->min_os_version);
		if (pc->max_os_version && num > pc->max_os_version)
			return no(why, whylen, "OS version %.0f > %.0f", num, pc->max_os_version);
	}
	if (pc->min_android_version || pc->max_android_version) {
		n = android_version(v);
		if (strcasecmp(str(req->host.os_name), "Android") || !n)
			return no(why, whylen, "not an Android host of known version");
		if (pc->min_android_version && n < pc->min_android_version)
			return no(why, whylen, "Android version %d < %d", n, pc->min_android_version);
		if (pc->max_android_version && n > pc->max_android_version)
			return no(why, whylen, "Android version %d > %d", n, pc->max_android_version);
	}
	n = libc_version(v);
	if (pc->min_libc_version && n < pc->min_libc_version)
		return no(why, whylen, "libc version %d < %d", n, pc->min_libc_version);
	return true;
}

/* "6.1.38" as upstream counts it: 60138; 0 if it cannot be read. */
static double vbox_num(const char *v)
{
	unsigned a, b, c;

	if (!v || sscanf(v, "%u.%u.%u", &a, &b, &c) != 3 || a > 1000 || b > 99 || c > 99)
		return 0;
	return 1e4 * a + 100.0 * b + c;
}

/*
 * A VirtualBox class: the client reports VirtualBox (<virtualbox_version>),
 * within the class's versions (wseq does not run VMs: the app version does).
 */
static bool vbox_ok(const struct plan_class *pc, const struct sched_request *req, char *why,
		    size_t whylen)
{
	double v = vbox_num(req->vbox_version);

	if (!pc->virtualbox)
		return true;
	if (!v)
		return no(why, whylen, "the client reports no usable VirtualBox");
	if (pc->min_vbox_version && v < pc->min_vbox_version)
		return no(why, whylen, "VirtualBox %.0f < %.0f", v, pc->min_vbox_version);
	if (pc->max_vbox_version && v > pc->max_vbox_version)
		return no(why, whylen, "VirtualBox %.0f > %.0f", v, pc->max_vbox_version);
	/* a 64-bit VM image: the host's own platform must be a 64-bit one */
	if (pc->is64bit && (req->nplatforms < 1 || !strstr(req->platforms[0], "64")))
		return no(why, whylen, "a 64-bit VirtualBox image needs a 64-bit platform");
	return true;
}

/* What does not depend on the coprocessor: CPU, OS, client. */
static bool host_ok(const struct plan_class *pc, const struct sched_request *req, char *why,
		    size_t whylen)
{
	int core = req->core_major * 10000 + req->core_minor * 100 + req->core_release;

	if (pc->disabled)
		return no(why, whylen, "plan class %s is disabled", pc->name);
	if (*pc->never)
		return no(why, whylen, "%s", pc->never);
	if (!features_ok(pc, req, why, whylen))
		return false;
	if (pc->min_ncpus && host_ncpus(req) < pc->min_ncpus)
		return no(why, whylen, "%d CPUs < min_ncpus %d", host_ncpus(req), pc->min_ncpus);
	if (!os_ok(pc, req, why, whylen))
		return false;
	if (pc->have_cpu_vendor_regex && regexec(&pc->cpu_vendor_regex, str(req->host.p_vendor), 0, NULL, 0))
		return no(why, whylen, "CPU vendor does not match cpu_vendor_regex");
	if (pc->have_cpu_model_regex && regexec(&pc->cpu_model_regex, str(req->host.p_model), 0, NULL, 0))
		return no(why, whylen, "CPU model does not match cpu_model_regex");
	if (pc->min_core_client_version && core < pc->min_core_client_version)
		return no(why, whylen, "client version %d < %d", core, pc->min_core_client_version);
	if (pc->max_core_client_version && core > pc->max_core_client_version)
		return no(why, whylen, "client version %d > %d", core, pc->max_core_client_version);
	return vbox_ok(pc, req, why, whylen);
}

/* The coprocessor of the class's type in the request: its index, or 0. */
static int find_rsc(const struct plan_class *pc, const struct sched_request *req)
{
	int i;

	for (i = 1; i < req->nrsc; i++) {
		if (*pc->gpu_type ? !strcasecmp(req->rsc[i].type, pc->gpu_type)
				  : !regexec(&pc->gpu_type_regex, req->rsc[i].type, 0, NULL, 0))
			return i;
	}
	return 0;
}

/* AMD CALVersion "1.4.1848" as upstream's ati_version_int: 1041848; 0 if not that form. */
static int ati_driver(const char *v)
{
	unsigned a, b, c;

	if (sscanf(v, "%u.%u.%u", &a, &b, &c) != 3 || a > 1000 || b > 99 || c > 9999)
		return 0;
	return (int)(a * 1000000 + b * 10000 + c);
}

static bool nvidia_ok(const struct plan_class *pc, const struct sched_rsc *r, char *why,
		      size_t whylen)
{
	if (pc->min_nvidia_compcap && r->compcap < pc->min_nvidia_compcap)
		return no(why, whylen, "compute capability %d < %d", r->compcap, pc->min_nvidia_compcap);
	if (pc->max_nvidia_compcap && r->compcap > pc->max_nvidia_compcap)
		return no(why, whylen, "compute capability %d > %d", r->compcap, pc->max_nvidia_compcap);
	if (!pc->cuda)
		return true;
	if (!r->have_cuda)
		return no(why, whylen, "the NVIDIA GPU has no CUDA");
	if (pc->min_cuda_version && r->cuda_version < pc->min_cuda_version)
		return no(why, whylen, "CUDA version %d < %d", r->cuda_version, pc->min_cuda_version);
	if (pc->max_cuda_version && r->cuda_version > pc->max_cuda_version)
		return no(why, whylen, "CUDA version %d > %d", r->cuda_version, pc->max_cuda_version);
	return true;
}

/* The rules of the coprocessor's own kind, then OpenCL, RAM, driver, speed, count. */
static bool rsc_ok(const struct plan_class *pc, const struct sched_rsc *r, char *why, size_t whylen)
{
	int drv = r->kind == SCHED_RSC_NVIDIA ? r->driver_version
		  : r->kind == SCHED_RSC_ATI ? ati_driver(r->driver_text) : 0;

	if (r->kind == SCHED_RSC_NVIDIA && !nvidia_ok(pc, r, why, whylen))
		return false;
	if (r->kind == SCHED_RSC_ATI && pc->without_opencl && r->have_opencl)
		return no(why, whylen, "the AMD GPU has OpenCL (without_opencl)");
	if (r->kind == SCHED_RSC_APPLE && r->metal_support < pc->min_metal_support)
		return no(why, whylen, "Metal support %d < %d", r->metal_support, pc->min_metal_support);
	if (pc->opencl && !r->have_opencl)
		return no(why, whylen, "the %s GPU has no OpenCL", r->type);
	if (pc->opencl && r->opencl_version && pc->min_opencl_version &&
	    r->opencl_version < pc->min_opencl_version)
		return no(why, whylen, "OpenCL version %d < %d", r->opencl_version, pc->min_opencl_version);
	if (pc->opencl && r->opencl_version && pc->max_opencl_version &&
	    r->opencl_version > pc->max_opencl_version)
		return no(why, whylen, "OpenCL version %d > %d", r->opencl_version, pc->max_opencl_version);
	if (pc->min_gpu_ram_mb && r->ram < pc->min_gpu_ram_mb * MEGA)
		return no(why, whylen, "GPU RAM %.0f MB < %.0f MB", r->ram / MEGA, pc->min_gpu_ram_mb);
	if (drv && pc->min_driver_version && drv < pc->min_driver_version)
		return no(why, whylen, "driver version %d < %d", drv, pc->min_driver_version);
	if (drv && pc->max_driver_version && drv > pc->max_driver_version)
		return no(why, whylen, "driver version %d > %d", drv, pc->max_driver_version);
	if (r->peak_flops && pc->min_gpu_peak_flops && r->peak_flops < pc->min_gpu_peak_flops)
		return no(why, whylen, "GPU peak %g FLOPS < %g", r->peak_flops, pc->min_gpu_peak_flops);
	if (r->peak_flops && pc->max_gpu_peak_flops && r->peak_flops > pc->max_gpu_peak_flops)
		return no(why, whylen, "GPU peak %g FLOPS > %g", r->peak_flops, pc->max_gpu_peak_flops);
	if (pc->ngpus > r->count)
		return no(why, whylen, "a job needs %g %s GPUs, the host has %d", pc->ngpus, r->type,
			  r->count);
	return true;
}

/*
 * A GPU job: ngpus devices and cpu_frac CPUs (avg_ncpus if given), at the
 * devices' peak x gpu_peak_flops_scale plus those CPUs' speed, all times
 * projected_flops_scale. A device of unknown peak counts as a CPU, as upstream.
 */
static void gpu_usage(const struct plan_class *pc, const struct sched_request *req, int i,
		      struct host_usage *u)
{
	const struct sched_rsc *r = &req->rsc[i];
	double gpu = r->peak_flops * pc->gpu_peak_flops_scale * pc->ngpus;

	u->rsc = i;
	u->ncoproc = pc->ngpus;
	u->gpu_ram = (pc->gpu_ram_used_mb ? pc->gpu_ram_used_mb : pc->min_gpu_ram_mb) * MEGA;
	u->avg_ncpus = pc->avg_ncpus ? pc->avg_ncpus : pc->cpu_frac;
	u->max_ncpus = u->avg_ncpus > 1 ? u->avg_ncpus : 1;
	u->peak_flops = gpu + u->avg_ncpus * host_fpops(req);
	u->projected_flops = (r->peak_flops ? u->peak_flops : host_fpops(req)) * pc->projected_flops_scale;
}

/* A CPU job: avg_ncpus if given, else min(CPUs, max_threads) threads. */
static void cpu_usage(const struct plan_class *pc, const struct sched_request *req,
		      struct host_usage *u)
{
	int n = host_ncpus(req);

	u->avg_ncpus = pc->avg_ncpus ? pc->avg_ncpus : n < pc->max_threads ? n : pc->max_threads;
	u->max_ncpus = u->avg_ncpus > 1 ? u->avg_ncpus : 1;
	u->peak_flops = host_fpops(req) * u->avg_ncpus;
	u->projected_flops = u->peak_flops * pc->projected_flops_scale;
	if (pc->nthreads_cmdline)
		snprintf(u->cmdline, sizeof(u->cmdline), "--nthreads %d", (int)u->avg_ncpus);
}

bool plan_class_check(const struct plan_class *pc, const struct sched_request *req,
		      struct host_usage *u, char *why, size_t whylen)
{
	int i;

	memset(u, 0, sizeof(*u));
	if (why && whylen)
		*why = '\0';
	if (!host_ok(pc, req, why, whylen))
		return false;
	if (!*pc->gpu_type && !pc->have_gpu_type_regex) {
		cpu_usage(pc, req, u);
		return true;
	}
	i = find_rsc(pc, req);
	if (!i)
		return no(why, whylen, "no %s GPU", *pc->gpu_type ? pc->gpu_type : "matching");
	if (!rsc_ok(pc, &req->rsc[i], why, whylen))
		return false;
	gpu_usage(pc, req, i, u);
	return true;
}

const char *plan_class_resource(const struct plan_class *pc)
{
	if (*pc->gpu_type)
		return pc->gpu_type;
	return pc->have_gpu_type_regex ? "GPU" : "CPU";
}

/* "CUDA >= 11.0" from 11000, as the client writes cudaVersion. */
static void add_version(struct sbuf *out, const char *what, const char *op, int v, int unit)
{
	sbuf_addf(out, ", %s %s %d.%d", what, op, v / unit, (v % unit) / (unit / 100 ? unit / 100 : 1));
}

static void describe_gpu(const struct plan_class *pc, struct sbuf *out)
{
	sbuf_addf(out, "%s GPU", plan_class_resource(pc));
	if (pc->cuda)
		sbuf_addstr(out, ", CUDA");
	if (pc->opencl)
		sbuf_addstr(out, ", OpenCL");
	if (pc->min_cuda_version)
		add_version(out, "CUDA", ">=", pc->min_cuda_version, 1000);
	if (pc->max_cuda_version)
		add_version(out, "CUDA", "<=", pc->max_cuda_version, 1000);
	if (pc->min_nvidia_compcap)
		add_version(out, "compute capability", ">=", pc->min_nvidia_compcap, 100);
	if (pc->max_nvidia_compcap)
		add_version(out, "compute capability", "<=", pc->max_nvidia_compcap, 100);
	if (pc->min_opencl_version)
		add_version(out, "OpenCL", ">=", pc->min_opencl_version, 100);
	if (pc->min_driver_version)
		sbuf_addf(out, ", driver >= %d", pc->min_driver_version);
	if (pc->min_gpu_ram_mb)
		sbuf_addf(out, ", %g MB GPU RAM", pc->min_gpu_ram_mb);
	sbuf_addf(out, ", %g GPU + %g CPU", pc->ngpus, pc->avg_ncpus ? pc->avg_ncpus : pc->cpu_frac);
}

void plan_class_describe(const struct plan_class *pc, struct sbuf *out)
{
	int i;

	if (pc->disabled || *pc->never) {
		sbuf_addf(out, "no host (%s)", pc->disabled ? "disabled" : pc->never);
		return;
	}
	if (*pc->gpu_type || pc->have_gpu_type_regex)
		describe_gpu(pc, out);
	else if (pc->mt)
		sbuf_addf(out, "multi-threaded, %d..%d CPUs%s", pc->min_ncpus ? pc->min_ncpus : 1,
			  pc->max_threads, pc->nthreads_cmdline ? ", --nthreads N" : "");
	else if (pc->avg_ncpus)
		sbuf_addf(out, "CPU, %g CPUs", pc->avg_ncpus);
	else
		sbuf_addstr(out, "CPU");
	for (i = 0; i < pc->ncpu_features; i++)
		sbuf_addf(out, "%s%s", i ? " " : ", CPU features ", pc->cpu_features[i]);
	if (pc->min_ncpus && !pc->mt)
		sbuf_addf(out, ", >= %d CPUs", pc->min_ncpus);
	if (pc->min_core_client_version)
		sbuf_addf(out, ", client >= %d", pc->min_core_client_version);
	if (pc->have_os_regex || pc->min_os_version || pc->max_os_version)
		sbuf_addstr(out, ", OS rules");
	if (pc->projected_flops_scale != 1)
		sbuf_addf(out, ", speed x %g", pc->projected_flops_scale);
}
