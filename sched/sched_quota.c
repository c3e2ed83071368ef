/*
 * Host policing: upstream BOINC's daily result quota. A host gets at most
 * max_results_day jobs a day per CPU (host.max_results_day, starting at the
 * project's daily_result_quota); each error it reports halves its
 * max_results_day (never below 1), each success doubles it back, up to the
 * project's quota. A host that errors on every job so gets fewer and fewer,
 * and one that works again is trusted again within a few jobs. Jobs sent
 * are counted in host.nresults_today, which starts again each UTC day.
 * Upstream keeps the count per host and app version and takes one off per
 * error; wseq keeps it per host, and halves, so a broken host is cut off
 * fast whatever it runs.
 */
#include "sched_policy.h"
#include "db_records.h"
#include "log.h"
#include "wtime.h"

int64_t sched_day(int64_t t)
{
	return t / 86400;
}

/* The host's per-CPU quota now: its own, once it has one, bounded by the project's. */
static long per_cpu(const struct sched_ctx *ctx, const struct db_host *host)
{
	long q = ctx->set->daily_result_quota;

	return host->max_results_day > 0 && host->max_results_day < q ? host->max_results_day : q;
}

long sched_quota_limit(const struct sched_ctx *ctx, const struct db_host *host)
{
	long q = per_cpu(ctx, host);

	if (ctx->set->daily_result_quota <= 0)
		return LONG_MAX;
	/* upstream's rule: a quota of 1 is not multiplied -- the host can barely run anything */
	return q == 1 ? 1 : q * (host->p_ncpus > 0 ? host->p_ncpus : 1);
}

long sched_quota_left(const struct sched_ctx *ctx, const struct db_host *host, size_t sent_now)
{
	long limit = sched_quota_limit(ctx, host);

	if (limit == LONG_MAX)
		return LONG_MAX;
	return limit - host->nresults_today - (long)sent_now;
}

void sched_quota_exceeded(const struct sched_ctx *ctx, const struct db_host *host,
			  struct sched_reply *reply)
{
	int64_t t = now();
	double to_midnight = (double)((sched_day(t) + 1) * 86400 - t);

	log_info("host %" PRId64 ": daily job limit (%ld) reached", host->id,
		 sched_quota_limit(ctx, host));
	sched_reply_message(reply, "low", "Daily job limit (%ld) has been reached",
			    sched_quota_limit(ctx, host));
	if (reply->njobs == 0 && reply->request_delay < to_midnight)
		reply->request_delay = to_midnight;
}

void sched_quota_report(const struct sched_ctx *ctx, const char *lbl, struct db_host *host,
			bool success)
{
	long q = ctx->set->daily_result_quota, old = per_cpu(ctx, host), n;

	if (q <= 0)
		return;
	n = success ? (old * 2 < q ? old * 2 : q) : (old / 2 > 1 ? old / 2 : 1);
	if (n != host->max_results_day)
		log_info("%s: daily quota per CPU %ld -> %ld after %s", lbl, old, n,
			 success ? "a success" : "an error");
	host->max_results_day = (int)n;
}
