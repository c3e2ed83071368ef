/*
 * The BOINC scheduler as a function from request bytes to reply bytes, with
 * the database handle and configuration passed in (no globals), so the same
 * code runs behind CGI, inside benchmarks and in a simulator.
 */
#ifndef WSEQ_SCHED_H
#define WSEQ_SCHED_H

#include "common.h"
#include "config.h"
#include "crypt_rsa.h"
#include "db.h"
#include "param.h"
#include "sbuf.h"

/* Scheduler settings from config.xml (sched_params). */
struct sched_settings {
	long max_request_bytes;   /* larger requests are refused */
	long next_rpc_delay;      /* ask clients to come back after this many seconds (0: no) */
	long error_delay;         /* request_delay after a refused request */
	long down_delay;          /* request_delay while the database is unavailable */
	long max_wus_in_progress; /* per CPU; 0: no limit */
	long max_wus_in_progress_gpu; /* per GPU; 0: no limit */
	double gpu_multiplier;    /* a GPU counts as this many CPUs in the daily quota */
	long candidates;          /* unsent results examined per request */
	long claim_ahead;         /* unsent results a FastCGI process claims ahead at most ... */
	long claim_ahead_min;     /* ... and at least, when it runs out (its rate decides) */
	long claim_ahead_lease;   /* seconds a result claimed ahead is held */
	long seqs_per_host;       /* work sequences a host holds at once ... */
	long seqs_per_cpu;        /* ... or, if > 0, this many per CPU */
	long seqs_per_gpu;        /* ... plus, if > 0, this many per GPU */
	double sequence_share;    /* fraction of a request's seconds sequence work may take */
	long daily_result_quota;  /* jobs a day per CPU a reliable host gets; 0: no quota */
	bool resend_lost_results; /* jobs a client lost are sent again (or given up) */
	bool one_result_per_user; /* never two results of a workunit, or two members of a
				     sequence group, to one account's hosts */
	long seqs_per_user;       /* work sequences one account's hosts hold; 0: as one host */
	long max_ncpus;           /* CPUs a host is believed to have at most */
};

extern const struct param sched_params[];

struct sched_apps;

struct sched_ctx {
	const struct project_config *cfg;
	const struct sched_settings *set;
	struct db *db;              /* NULL: the database is unavailable */
	const char *code_sign_key;  /* keys/code_sign_public text */
	EVP_PKEY *upload_key;       /* keys/upload_private: signs upload certificates (NULL: unreadable) */
	const char *remote_addr;    /* the client's address, for the log */
	/* apps, platforms, app versions kept across requests (NULL: read for this one) */
	struct sched_apps *apps;
	/* results claimed ahead, kept across requests (NULL: none, as a CGI program) */
	struct sched_pool *pool;
};

/* A FastCGI process's results claimed ahead (sched_lease.c): none yet. */
struct sched_pool *sched_pool_new(void);
/* Give back what p still holds (with db, in a transaction of its own; NULL: let the leases end), free it. */
void sched_pool_free(struct sched_pool *p, struct db *db);

/*
 * Handle one request; the reply is always a well-formed <scheduler_reply>.
 * DB_OK, or the database error the reply told the client about (the
 * caller may want a fresh connection for the next request).
 */
int sched_handle(const struct sched_ctx *ctx, const char *req, size_t len, struct sbuf *reply);

/* The reply to a request too large to read (the CGI does not read it). */
void sched_reply_refused(const struct sched_ctx *ctx, const char *why, struct sbuf *reply);

#endif
