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
 *
 * A host is only a host_cpid the client makes up, so its figures are
 * bounded: its CPUs count up to max_ncpus, and while it has no history of
 * its own (it has reported nothing yet) it shares its user's: the lowest
 * quota per CPU any of the user's hosts earned, and one allowance of jobs
 * today and jobs in progress with the user's other hosts without a history.
 */
#include "sched_policy.h"
#include "db_records.h"
#include "db_sched.h"
#include "db_ops.h"
#include "log.h"
#include "wtime.h"

int64_t sched_day(int64_t t)
{
	return t / 86400;
}

int sched_host_ncpus(const struct sched_ctx *ctx, const struct db_host *host)
{
	long n = host->p_ncpus > 0 ? host->p_ncpus : 1;

	return (int)(ctx->set->max_ncpus > 0 && n > ctx->set->max_ncpus ? ctx->set->max_ncpus : n);
}

int sched_host_ngpus(const struct sched_ctx *ctx, const struct db_host *host)
{
	long n = host->p_ngpus > 0 ? host->p_ngpus : 0;

	return (int)(ctx->set->max_ncpus > 0 && n > ctx->set->max_ncpus ? ctx->set->max_ncpus : n);
}

bool sched_host_untried(const struct db_host *host)
{
	return host->max_results_day == 0 && host->avg_turnaround == 0;
}

/*
 * What an untried host shares with its user's other untried hosts (all
 * zero for a host with a history): making up host_cpids gains one host's
 * allowance at most, and a new host starts from the user's lowest quota.
 */
static int pool_of(const struct sched_ctx *ctx, const struct db_host *host,
		   struct db_untried_pool *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (!sched_host_untried(host) || !ctx->db || host->userid <= 0)
		return DB_OK;
	rc = db_user_untried_pool(ctx->db, host->userid, host->id, sched_day(now()) * 86400, p);
	if (rc != DB_OK)
		log_error("host %" PRId64 ": cannot read its user's other hosts; no new work",
			  host->id);
	return rc;
}

/* The host's per-CPU quota now: its own or its user's lowest, bounded by the project's. */
static long per_cpu(const struct sched_ctx *ctx, const struct db_host *host,
		    const struct db_untried_pool *p)
{
	long q = ctx->set->daily_result_quota;

	if (host->max_results_day > 0 && host->max_results_day < q)
		q = host->max_results_day;
	return p->min_quota > 0 && p->min_quota < q ? (long)p->min_quota : q;
}

static long limit_of(const struct sched_ctx *ctx, const struct db_host *host,
		     const struct db_untried_pool *p)
{
	long q = per_cpu(ctx, host, p);

	if (ctx->set->daily_result_quota <= 0)
		return LONG_MAX;
	/* upstream's rule: a quota of 1 is not multiplied -- the host can barely run anything */
	return q == 1 ? 1 : (long)((double)q * (sched_host_ncpus(ctx, host) +
					    ctx->set->gpu_multiplier * sched_host_ngpus(ctx, host)));
}

long sched_quota_limit(const struct sched_ctx *ctx, const struct db_host *host)
{
	struct db_untried_pool p;

	if (ctx->set->daily_result_quota <= 0)
		return LONG_MAX;
	return pool_of(ctx, host, &p) == DB_OK ? limit_of(ctx, host, &p) : 0;
}

long sched_quota_left(const struct sched_ctx *ctx, const struct db_host *host, size_t sent_now)
{
	struct db_untried_pool p;

	if (ctx->set->daily_result_quota <= 0)
		return LONG_MAX;
	if (pool_of(ctx, host, &p) != DB_OK)
		return 0;
	return limit_of(ctx, host, &p) - host->nresults_today - (long)p.sent_today - (long)sent_now;
}

struct busy {
	const struct sched_request *req;
	const struct sched_reply *reply;
	int64_t n[SCHED_MAX_RSC];
};

/* A job in progress counts on the resource its version uses here (the CPU if unknown). */
static int count_busy(struct db_ops_count *c, void *arg)
{
	struct busy *b = arg;
	const struct sched_bav *bav = sched_usable_by_id(b->reply, c->a);

	b->n[bav ? bav->u.rsc : 0] += c->n;
	return 0;
}

int sched_in_progress_room(const struct sched_ctx *ctx, const struct sched_request *req,
			   const struct db_host *host, struct sched_reply *reply)
{
	struct busy b = { req, reply, { 0 } };
	struct db_untried_pool p;
	int i, rc = DB_OK;

	reply->rooms_known = false;
	if (ctx->set->max_wus_in_progress <= 0 && ctx->set->max_wus_in_progress_gpu <= 0)
		return DB_OK;
	if (host->id > 0)
		rc = db_host_versions_in_progress(ctx->db, host->id, count_busy, &b);
	if (rc == DB_OK)
		rc = pool_of(ctx, host, &p);
	if (rc != DB_OK)
		return rc;
	b.n[0] += p.in_progress;
	for (i = 0; i < req->nrsc; i++) {
		long per = i ? ctx->set->max_wus_in_progress_gpu : ctx->set->max_wus_in_progress;
		long count = i ? req->rsc[i].count : sched_host_ncpus(ctx, host);
		long limit = per * (count < ctx->set->max_ncpus ? count : ctx->set->max_ncpus);

		reply->rsc_room[i] = per <= 0 ? LONG_MAX : b.n[i] >= limit ? 0 : limit - (long)b.n[i];
	}
	reply->rooms_known = true;
	return DB_OK;
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
	long q = ctx->set->daily_result_quota, old, n;
	struct db_untried_pool p;

	if (q <= 0)
		return;
	if (pool_of(ctx, host, &p) != DB_OK)
		memset(&p, 0, sizeof(p));
	old = per_cpu(ctx, host, &p);
	n = success ? (old * 2 < q ? old * 2 : q) : (old / 2 > 1 ? old / 2 : 1);
	if (n != host->max_results_day)
		log_info("%s: daily quota per CPU %ld -> %ld after %s", lbl, old, n,
			 success ? "a success" : "an error");
	host->max_results_day = (int)n;
}
