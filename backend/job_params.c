/*
 * Job parameters (template.h): the estimates and bounds a job gets from its
 * input template, the command line and upstream's defaults.
 */
#include "template.h"
#include "log.h"

void job_params_unset(struct job_params *p)
{
	p->rsc_fpops_est = p->rsc_fpops_bound = -1;
	p->rsc_memory_bound = p->rsc_disk_bound = -1;
	p->delay_bound = -1;
	p->min_quorum = p->target_nresults = p->max_error_results = -1;
	p->max_total_results = p->max_success_results = -1;
	p->priority = JOB_PRIORITY_UNSET;
}

/* tools/create_work.cpp's JOB_DESC defaults. */
void job_params_boinc_defaults(struct job_params *p)
{
	p->rsc_fpops_est = 3600e9;
	p->rsc_fpops_bound = 86400e9;
	p->rsc_memory_bound = 5e8;
	p->rsc_disk_bound = 1e9;
	p->delay_bound = 7 * 86400;
	p->min_quorum = 2;
	p->target_nresults = 2;
	p->max_error_results = 3;
	p->max_total_results = 10;
	p->max_success_results = 6;
	p->priority = 0;
}

void job_params_override(struct job_params *dst, const struct job_params *src)
{
#define OVR(f) do { if (src->f >= 0) dst->f = src->f; } while (0)
	OVR(rsc_fpops_est);
	OVR(rsc_fpops_bound);
	OVR(rsc_memory_bound);
	OVR(rsc_disk_bound);
	OVR(delay_bound);
	OVR(min_quorum);
	OVR(target_nresults);
	OVR(max_error_results);
	OVR(max_total_results);
	OVR(max_success_results);
#undef OVR
	if (src->priority != JOB_PRIORITY_UNSET)
		dst->priority = src->priority;
}

int job_params_finish(struct job_params *p)
{
	if (p->rsc_fpops_est <= 0 || p->rsc_fpops_bound <= 0)
		return log_error("rsc_fpops_est and rsc_fpops_bound must be above 0");
	if (p->delay_bound <= 0)
		return log_error("delay_bound must be above 0");
	if (p->min_quorum < 1)
		return log_error("min_quorum must be at least 1");
	if (p->max_error_results < 1 || p->max_total_results < 1 || p->max_success_results < 1)
		return log_error("max_error_results, max_total_results and max_success_results must be at least 1");
	if (p->rsc_memory_bound < 0 || p->rsc_disk_bound < 0)
		return log_error("rsc_memory_bound and rsc_disk_bound must not be negative");
	if (p->target_nresults < p->min_quorum)
		p->target_nresults = p->min_quorum;
	if (p->max_success_results < p->target_nresults)
		p->max_success_results = p->target_nresults;
	if (p->max_total_results < p->target_nresults)
		p->max_total_results = p->target_nresults;
	return 0;
}
