/*
 * The validator's credit rules (doc/credit.md): fixed (--credit C), fpops
 * (the job's rsc_fpops_est) and runtime (the result's time at its host's
 * measured speed for its app version, host_app_version); and the record of
 * granted credit per user per app (credit_by_app).
 */
#ifndef WSEQ_VAL_CREDIT_H
#define WSEQ_VAL_CREDIT_H

#include "db.h"
#include "db_records.h"

#include <stdbool.h>

enum credit_rule { CREDIT_RULE_FIXED, CREDIT_RULE_FPOPS, CREDIT_RULE_RUNTIME };

/* "fixed", "fpops" or "runtime" into *out; -1 for anything else. */
int credit_rule_parse(const char *s, enum credit_rule *out);

/*
 * The runtime rule's claim of result r of wu (credit_runtime) at the speed
 * r's host measured for r's app version after CREDIT_MIN_SAMPLES jobs;
 * without such a measurement (*measured false), the job's estimate
 * (rsc_fpops_est), for the caller to bound as the fpops rule does. The
 * claim is written to r's claimed_credit; a database error is returned.
 */
int val_runtime_claim(struct db *db, const struct db_workunit *wu, const struct db_result *r,
		      double *claim, bool *measured);

/* Credit granted to r's user for r's app, added to credit_by_app (a DB_ status). */
int val_credit_by_app(struct db *db, const struct db_result *r);

#endif
