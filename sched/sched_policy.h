/* Scheduler policy parts shared between sched_handle.c and sched_send.c. */
#ifndef WSEQ_SCHED_POLICY_H
#define WSEQ_SCHED_POLICY_H

#include "scheduler.h"
#include "sched_types.h"

/* The apps and app versions the host can run, loaded once per request. */
struct sched_apps {
	struct db_app *apps;
	size_t napps;
	struct db_platform *platforms;
	size_t nplatforms;
	struct db_app_version *versions;
	size_t nversions;
};

int sched_apps_load(struct db *db, struct sched_apps *a);
void sched_apps_free(struct sched_apps *a);
const struct db_app *sched_app_by_id(const struct sched_apps *a, int64_t appid);
/*
 * The newest app version of appid for the host's platforms (the first
 * platform listed wins ties); *platform gets its platform name.
 */
const struct db_app_version *sched_best_version(const struct sched_apps *a, int64_t appid,
						 const struct sched_request *req,
						 const char **platform);

/* Add jobs to the reply as the request asks (sched_send.c). */
int sched_send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		    const struct db_host *host, const struct sched_apps *apps,
		    struct sched_reply *reply);

/* Copy the figures a request reports (host_info etc.) onto a host record (sched_request.c). */
void sched_host_copy_figures(struct db_host *dst, const struct db_host *src);

#endif
