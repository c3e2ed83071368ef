/*
 * The validator's credit rules and its record of credit per user per app
 * (val_credit.h, doc/credit.md).
 */
#include "val_credit.h"
#include "credit.h"
#include "db_account.h"
#include "db_sched.h"
#include "log.h"

#include <inttypes.h>
#include <string.h>

int credit_rule_parse(const char *s, enum credit_rule *out)
{
	static const char *const names[] = { "fixed", "fpops", "runtime" };
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum credit_rule)i;
			return 0;
		}
	}
	return -1;
}

struct hav_find {
	int64_t avid;
	double speed;
};

static int take_speed(struct db_host_app_version *v, void *arg)
{
	struct hav_find *f = arg;

	if (v->app_version_id == f->avid && v->n_jobs >= CREDIT_MIN_SAMPLES && v->flops_avg > 0)
		f->speed = v->flops_avg;
	return 0;
}

int val_runtime_claim(struct db *db, const struct db_workunit *wu, const struct db_result *r,
		      double *claim, bool *measured)
{
	struct hav_find f = { r->app_version_id, 0 };
	double wall = (double)(r->received_time - r->sent_time);
	int rc = DB_OK;

	if (r->app_version_id > 0 && r->hostid > 0)
		rc = db_hav_enum_host(db, r->hostid, take_speed, &f);
	if (rc != DB_OK && rc != DB_NOT_FOUND)
		return rc;
	*claim = credit_runtime(r->elapsed_time, r->cpu_time, r->sent_time > 0 ? wall : 0,
				f.speed, wu->rsc_fpops_bound);
	*measured = f.speed > 0;
	if (!*measured)
		*claim = wu->rsc_fpops_est > 0 ? wu->rsc_fpops_est * COBBLESTONE_SCALE : 0;
	log_info("[RESULT#%" PRId64 " %s] runtime claim %g (%.0f s at %g FLOPS%s)", r->id,
		 r->name, *claim, r->elapsed_time, f.speed,
		 f.speed > 0 ? "" : ": not measured, the job's estimate");
	return db_credit_claimed(db, r->id, *claim);
}

int val_credit_by_app(struct db *db, const struct db_result *r)
{
	if (r->userid <= 0 || !(r->granted_credit > 0))
		return DB_OK;
	return db_credit_by_app(db, r->userid, r->appid, r->granted_credit);
}
