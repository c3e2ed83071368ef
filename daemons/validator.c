/*
 * validator: looks at workunits with need_validate=1 and decides which of
 * their successful results agree, as BOINC's validator does. Without a
 * canonical result yet, the first result that min_quorum results
 * (itself included) are equivalent to becomes canonical: those are VALID,
 * the others INVALID; without such agreement the results are INCONCLUSIVE
 * and target_nresults grows so the transitioner issues another. With a
 * canonical result, each new result is compared with it. A result whose
 * output files are missing or corrupt on the server is INVALID with
 * outcome VALIDATE_ERROR. Equivalence is a plug-in's (validate.h).
 * Before any comparison each result goes through the check, if there is
 * one (--check_cmd, --check_plugin): failing it makes the result INVALID
 * with outcome VALIDATE_ERROR at once; a check that cannot tell (crashed,
 * timed out) leaves the workunit for a later pass (doc/validator-plugins.md).
 *
 * Each workunit is one transaction under the workunit's and its results'
 * row locks; it ends with need_validate=0 and transition_time=now so the
 * transitioner acts on the outcome.
 */
#include "daemon.h"
#include "db_account.h"
#include "db_daemons.h"
#include "db_queries.h"
#include "db_sched.h"
#include "credit.h"
#include "dirhier.h"
#include "filelist.h"
#include "log.h"
#include "sequence.h"
#include "validate.h"
#include "val_credit.h"
#include "wtime.h"

#include <sys/stat.h>

struct val_settings {
	char *app;
	char *compare_cmd;
	char *check_cmd;
	char *check_plugin;
	char *check_arg;
	double cmd_timeout;
	double credit;
	double max_credit;
	double speed_factor;
	char *credit_rule;
	long batch;
};

static struct val_settings settings;

#define V(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct val_settings, field), def, flags, min, max, arg, help }

static const struct param val_params[] = {
	V("app", PARAM_STR, app, NULL, 0, 0, 0, "NAME", "validate this app's workunits only "
	  "(default: every app)"),
	V("compare_cmd", PARAM_STR, compare_cmd, NULL, 0, 0, 0, "CMD",
	  "compare two results with CMD A_FILES... -- B_FILES... (exit 0: equivalent, "
	  "1: different) instead of bitwise"),
	V("check_cmd", PARAM_STR, check_cmd, NULL, 0, 0, 0, "CMD",
	  "check each result before any comparison with CMD FILES... (exit 0: valid, 1: "
	  "invalid at once, else or a signal or --cmd_timeout: the result waits)"),
	V("check_plugin", PARAM_STR, check_plugin, NULL, 0, 0, 0, "NAME",
	  "check each result with a linked plug-in's check: sample (doc/validator-plugins.md) "
	  "or the project's own validate_project"),
	V("check_arg", PARAM_STR, check_arg, NULL, 0, 0, 0, "ARG",
	  "the argument of --check_plugin's check (sample: \"size=N min=X max=Y\")"),
	V("cmd_timeout", PARAM_DOUBLE, cmd_timeout, "300", PARAM_BOUNDED, 0, 1e6, "S",
	  "kill --check_cmd or --compare_cmd after S seconds: it cannot tell (0: no bound)"),
	V("credit", PARAM_DOUBLE, credit, "0", PARAM_BOUNDED, 0, 1e12, "C",
	  "grant C credit per valid result, unless the job names its own (create_work "
	  "--credit); 0: the canonical result's claimed credit, else from rsc_fpops_est"),
	V("max_granted_credit", PARAM_DOUBLE, max_credit, "100000", PARAM_BOUNDED, 0, 1e12, "C",
	  "grant no result more than C credit, whatever the job or the host claims (0: no cap)"),
	V("credit_speed_factor", PARAM_DOUBLE, speed_factor, "10", PARAM_BOUNDED, 0, 1e6, "F",
	  "credit from rsc_fpops_est or a host's claim is at most F times what the host's "
	  "benchmark (p_fpops) computes in the result's time, bounded by the time from sending "
	  "to receipt (0: no bound)"),
	V("credit_rule", PARAM_STR, credit_rule, NULL, 0, 0, 0, "RULE",
	  "fixed (--credit C), fpops (rsc_fpops_est) or runtime (the result's time at "
	  "its host's measured speed for its version, the same for CPU and GPU; "
	  "doc/credit.md); default: fixed with --credit, else fpops"),
	V("batch", PARAM_INT, batch, "500", PARAM_BOUNDED, 1, 100000, "N",
	  "workunits read per query"),
	PARAM_TABLE_END
};

struct val_priv {
	int64_t appid;          /* --app's id, 0: every app */
	enum credit_rule rule;
	const struct validate_plugin *plugin;
	const struct validate_plugin *checker;  /* NULL: no check */
	const char *check_arg;
};

struct results {
	struct db_result *v;
	size_t n;
};

struct val_job {
	const struct daemon_ctx *ctx;
	struct db *db;          /* inside the transaction */
	int64_t wuid;
	bool retry;             /* the plug-in could not tell: try again next pass */
};

/* What the validator knows about one result in a transaction. */
struct vitem {
	struct db_result *r;
	struct vresult vr;
	int was;                /* validate_state as read */
	bool loaded;
	bool changed;
	bool check_retry;       /* its check could not tell: it waits (VALIDATE_WHY_CHECK_RETRY) */
};

static int take_result(struct db_result *r, void *arg)
{
	struct results *rs = arg;
	struct db_rows rows = DB_ROWS(rs->v, rs->n, 0);

	return db_rows_take(r, &rows);
}

static void vresult_release(struct vresult *vr)
{
	size_t i;

	for (i = 0; i < vr->nfiles; i++) {
		free(vr->files[i].name);
		free(vr->files[i].open_name);
		free(vr->files[i].path);
	}
	free(vr->files);
	vr->files = NULL;
	vr->nfiles = 0;
}

/*
 * Gather a result's output files from the upload hierarchy: 0 when every
 * one is there (and matches the reported md5), 1 when one is missing or
 * corrupt (the result is invalid), -1 on an error that may pass.
 */
static int vresult_load(const struct project_config *cfg, const struct db_result *r,
			struct vresult *vr)
{
	struct job_filelist l;
	size_t i;
	int rc = 0;

	memset(vr, 0, sizeof(*vr));
	vr->r = r;
	if (filelist_result_outputs(r, &l) < 0)
		return 1;       /* unreadable XML will not mend */
	vr->files = xcalloc(l.n + 1, sizeof(*vr->files));
	for (i = 0; i < l.n && rc == 0; i++) {
		struct vfile *f;
		struct sbuf path = SBUF_INIT(PATH_MAX);
		struct stat st;

		/* Compared are the files the server gets; a file kept on the host is not. */
		if (!l.f[i].upload && !l.f[i].reported)
			continue;
		f = &vr->files[vr->nfiles++];
		f->name = xstrdup(l.f[i].name);
		f->open_name = l.f[i].open_name ? xstrdup(l.f[i].open_name) : NULL;
		if (dirhier_path(f->name, cfg->upload_dir, cfg->uldl_dir_fanout, false, &path) < 0) {
			sbuf_release(&path);
			rc = 1;
			break;
		}
		f->path = sbuf_detach(&path, NULL);
		if (stat(f->path, &st) < 0) {
			if (errno == ENOENT) {
				log_info("[RESULT#%" PRId64 " %s] output file %s is missing", r->id,
					 r->name, f->name);
				rc = 1;
			} else {
				rc = log_error("cannot stat %s: %s", f->path, strerror(errno));
			}
		} else if (md5_file(f->path, f->md5, &f->nbytes) < 0) {
			rc = -1;
		} else if (l.f[i].md5[0] && strcmp(l.f[i].md5, f->md5) != 0) {
			log_info("[RESULT#%" PRId64 " %s] output file %s does not match its reported "
				 "md5", r->id, r->name, f->name);
			rc = 1;
		}
	}
	filelist_release(&l);
	return rc;
}

static int compare(const struct daemon_ctx *ctx, const struct vresult *a, const struct vresult *b)
{
	const struct val_priv *p = ctx->priv;

	return p->plugin->compare(a, b, settings.compare_cmd, ctx->cfg->project_dir);
}

/*
 * The job's own (create_work --credit, set before any canonical result),
 * then ours -- both the admin's, *claimed false -- else what the host or
 * the submitter claims; never more than max_granted_credit.
 */
static double credit_for(const struct db_workunit *wu, const struct db_result *canon,
			 bool *claimed)
{
	double c = wu->rsc_fpops_est * COBBLESTONE_SCALE;

	*claimed = !(wu->canonical_credit > 0) && !(settings.credit > 0);
	if (wu->canonical_credit > 0)
		c = wu->canonical_credit;
	else if (settings.credit > 0)
		c = settings.credit;
	else if (canon->claimed_credit > 0)
		c = canon->claimed_credit;
	return settings.max_credit > 0 && c > settings.max_credit ? settings.max_credit : c;
}

/*
 * What valid result r earns of credit: a claimed credit at most what its
 * host could compute in the result's time (credit_cap). 0 if the host
 * cannot be read (-1).
 */
static int speed_capped(struct val_job *j, const struct db_result *r, double credit,
			double *granted)
{
	double fpops = 0;
	int rc = db_host_fpops(j->db, r->hostid, &fpops);

	*granted = 0;
	if (rc != DB_OK && rc != DB_NOT_FOUND)
		return -1;
	*granted = credit_cap(credit, settings.max_credit, settings.speed_factor, fpops,
			      r->elapsed_time, (double)(r->received_time - r->sent_time));
	if (*granted < credit)
		log_info("[RESULT#%" PRId64 " %s] credit %g bounded to %g by its host's speed "
			 "(%g FLOPS, %.0f s)", r->id, r->name, credit, *granted, fpops,
			 r->elapsed_time);
	return 0;
}

/*
 * The runtime rule's credit of a workunit whose agreeing results are
 * viable[k] with agree[k]: the lowest of their claims (one host inflating
 * its time gains nothing; an unmeasured version's estimate bounded as by
 * the fpops rule), at most max_granted_credit.
 */
static int runtime_credit(struct val_job *j, const struct db_workunit *wu, struct vitem **viable,
			  const bool *agree, size_t nv, double *credit)
{
	size_t k;

	*credit = -1;
	for (k = 0; k < nv; k++) {
		double c;
		bool measured;

		if (!agree[k])
			continue;
		if (val_runtime_claim(j->db, wu, viable[k]->r, &c, &measured) != DB_OK ||
		    (!measured && speed_capped(j, viable[k]->r, c, &c)))
			return -1;
		if (*credit < 0 || c < *credit)
			*credit = c;
	}
	if (settings.max_credit > 0 && *credit > settings.max_credit)
		*credit = settings.max_credit;
	return 0;
}

/*
 * why: VALIDATE_WHY_DISAGREED (outvoted), else the result itself is bad
 * (its files, its check) and its outcome is VALIDATE_ERROR.
 */
static void set_invalid(struct vitem *it, int why)
{
	bool validate_error = why != VALIDATE_WHY_DISAGREED;

	it->r->validate_state = VALIDATE_STATE_INVALID;
	it->r->validate_why = why;
	if (validate_error)
		it->r->outcome = RESULT_OUTCOME_VALIDATE_ERROR;
	it->changed = true;
	log_info("[RESULT#%" PRId64 " %s] invalid%s", it->r->id, it->r->name,
		 validate_error ? " (validate error)" : "");
}

/* The result's check, if any: 0 believable, 1 invalid, -1 cannot tell now (logged). */
static int check_result(const struct daemon_ctx *ctx, const struct vresult *vr)
{
	const struct val_priv *p = ctx->priv;
	int c;

	if (!p->checker)
		return 0;
	c = p->checker->check(vr, p->check_arg, ctx->cfg->project_dir);
	if (c == VALIDATE_CHECK_VALID)
		return 0;
	if (c == VALIDATE_CHECK_INVALID) {
		log_info("[RESULT#%" PRId64 " %s] fails its check (%s)", vr->r->id, vr->r->name,
			 p->checker->name);
		return 1;
	}
	return -1;
}

/*
 * Load the item's files and check them (unless a pass has checked them
 * already: VALIDATE_WHY_CHECK_OK on a result still waiting); false if the
 * result turned out invalid (or -1 in *err, it->check_retry if the check
 * could not tell).
 */
static bool load(const struct daemon_ctx *ctx, struct vitem *it, int *err)
{
	bool checked = it->r->validate_why == VALIDATE_WHY_CHECK_OK &&
		       (it->r->validate_state == VALIDATE_STATE_INIT ||
			it->r->validate_state == VALIDATE_STATE_INCONCLUSIVE);
	int rc, why = VALIDATE_WHY_FILES;

	if (it->loaded)
		return true;
	rc = vresult_load(ctx->cfg, it->r, &it->vr);
	if (rc == 0 && !checked) {
		why = VALIDATE_WHY_CHECK_FAILED;
		rc = check_result(ctx, &it->vr);
		it->check_retry = rc < 0;
	}
	if (rc < 0) {
		*err = -1;
		return false;
	}
	if (rc > 0) {
		set_invalid(it, why);
		return false;
	}
	it->loaded = true;
	return true;
}

/* Compare new results with the canonical one. */
static int check_against(struct val_job *j, struct db_workunit *wu, struct vitem *items, size_t n,
			 struct vitem *canon)
{
	int err = 0, lost;
	size_t i;

	lost = vresult_load(j->ctx->cfg, canon->r, &canon->vr);
	if (lost < 0)
		return -1;
	if (lost)
		log_error("[WU#%" PRId64 " %s] canonical result %s has lost its output files: "
			  "new results cannot be checked", wu->id, wu->name, canon->r->name);
	canon->loaded = !lost;
	for (i = 0; i < n; i++) {
		struct vitem *it = &items[i];
		int c;

		if (it == canon || it->r->server_state != RESULT_SERVER_STATE_OVER ||
		    it->r->outcome != RESULT_OUTCOME_SUCCESS ||
		    (it->r->validate_state != VALIDATE_STATE_INIT &&
		     it->r->validate_state != VALIDATE_STATE_INCONCLUSIVE))
			continue;
		if (lost) {
			it->r->validate_state = VALIDATE_STATE_TOO_LATE;
			it->changed = true;
			continue;
		}
		if (!load(j->ctx, it, &err)) {
			if (err)
				return err;
			continue;
		}
		c = compare(j->ctx, &it->vr, &canon->vr);
		if (c == VALIDATE_CANNOT_TELL) {
			j->retry = true;
			return -1;
		}
		if (c == VALIDATE_EQUIVALENT) {
			it->r->validate_state = VALIDATE_STATE_VALID;
			it->r->validate_why = VALIDATE_WHY_AGREED;
			/* already bounded: by the cap, and a claim by the canonical host's speed */
			it->r->granted_credit = canon->r->granted_credit;
			it->changed = true;
			log_info("[RESULT#%" PRId64 " %s] valid (agrees with canonical %s)",
				 it->r->id, it->r->name, canon->r->name);
		} else {
			set_invalid(it, VALIDATE_WHY_DISAGREED);
		}
	}
	return 0;
}

/*
 * Fewer than a quorum of results: each new one is checked alone (its files,
 * the project's check), so one that fails is INVALID at once and the
 * transitioner replaces it without waiting for the others; one that passes
 * waits, marked VALIDATE_WHY_CHECK_OK so it is not checked again.
 */
static int check_alone(struct val_job *j, struct vitem **viable, size_t nv)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nv; i++) {
		struct vitem *it = viable[i];

		if (it->r->validate_state != VALIDATE_STATE_INIT ||
		    it->r->validate_why == VALIDATE_WHY_CHECK_OK)
			continue;
		if (load(j->ctx, it, &err)) {
			it->r->validate_why = VALIDATE_WHY_CHECK_OK;
			it->changed = true;
		} else if (err) {
			return err;
		}
	}
	return 0;
}

/*
 * No canonical result yet: look for quorum equivalent results among the
 * items. With them, the first becomes *canon, the agreeing ones VALID
 * (credited) and the others INVALID; without, the viable ones are
 * INCONCLUSIVE. *nsuccess: the successful results (if at least quorum, they
 * were judged); *nviable: those of them with their files intact.
 */
static int check_set(struct val_job *j, const struct db_workunit *wu, struct vitem *items,
		     size_t n, int quorum, struct vitem **canon_out, size_t *nsuccess,
		     size_t *nviable)
{
	struct vitem **viable = xcalloc(n + 1, sizeof(*viable));
	bool *agree = xcalloc(n + 1, sizeof(*agree));
	size_t nv = 0, i, k, canon = SIZE_MAX;
	int err = 0;

	*canon_out = NULL;
	for (i = 0; i < n; i++) {
		struct vitem *it = &items[i];

		if (it->r->server_state == RESULT_SERVER_STATE_OVER &&
		    it->r->outcome == RESULT_OUTCOME_SUCCESS &&
		    it->r->validate_state != VALIDATE_STATE_INVALID)
			viable[nv++] = it;
	}
	*nsuccess = *nviable = nv;
	if (nv < (size_t)quorum) {
		err = check_alone(j, viable, nv);
		goto out;
	}
	for (i = 0, k = 0; i < nv; i++) {
		if (load(j->ctx, viable[i], &err))
			viable[k++] = viable[i];
		else if (err)
			goto out;
	}
	*nviable = nv = k;
	for (i = 0; i < nv && canon == SIZE_MAX; i++) {
		size_t nagree = 1;

		memset(agree, 0, (n + 1) * sizeof(*agree));
		agree[i] = true;
		for (k = 0; k < nv; k++) {
			int c;

			if (k == i)
				continue;
			c = compare(j->ctx, &viable[i]->vr, &viable[k]->vr);
			if (c == VALIDATE_CANNOT_TELL) {
				j->retry = true;
				err = -1;
				goto out;
			}
			if (c == VALIDATE_EQUIVALENT) {
				agree[k] = true;
				nagree++;
			}
		}
		if (nagree >= (size_t)quorum)
			canon = i;
	}
	if (canon != SIZE_MAX) {
		bool claimed;
		double credit = credit_for(wu, viable[canon]->r, &claimed);
		const struct val_priv *p = j->ctx->priv;

		if (claimed && p->rule == CREDIT_RULE_RUNTIME) {
			claimed = false;
			if (runtime_credit(j, wu, viable, agree, nv, &credit)) {
				err = -2;
				goto out;
			}
		}
		*canon_out = viable[canon];
		for (k = 0; k < nv; k++) {
			if (agree[k]) {
				viable[k]->r->validate_state = VALIDATE_STATE_VALID;
				viable[k]->r->validate_why = quorum > 1 ? VALIDATE_WHY_AGREED
									: VALIDATE_WHY_CHECK_OK;
				viable[k]->r->granted_credit = credit;
				viable[k]->changed = true;
				if (claimed && speed_capped(j, viable[k]->r, credit,
							    &viable[k]->r->granted_credit)) {
					err = -2;
					goto out;
				}
			} else {
				set_invalid(viable[k], VALIDATE_WHY_DISAGREED);
			}
		}
	} else {
		for (k = 0; k < nv; k++) {
			if (viable[k]->r->validate_state == VALIDATE_STATE_INIT) {
				viable[k]->r->validate_state = VALIDATE_STATE_INCONCLUSIVE;
				viable[k]->r->validate_why = VALIDATE_WHY_CHECK_OK;
				viable[k]->changed = true;
			}
		}
	}
out:
	free(agree);
	free(viable);
	return err;
}

/* The workunit's canonical result is chosen: credit it, hand it to the assimilator. */
static void set_canonical(struct db_workunit *wu, const struct db_result *canon)
{
	wu->canonical_resultid = canon->id;
	wu->canonical_credit = canon->granted_credit;
	if (wu->assimilate_state == ASSIMILATE_INIT)
		wu->assimilate_state = ASSIMILATE_READY;
	log_info("[WU#%" PRId64 " %s] canonical result %s; granting %g credit", wu->id, wu->name,
		 canon->name, canon->granted_credit);
}

/* An ordinary workunit (or a lone sequence's segment): its own results decide. */
static int validate_workunit(struct val_job *j, struct db_workunit *wu, struct vitem *items,
			     size_t n)
{
	struct vitem *canon = NULL;
	size_t i, ns = 0, nv = 0;
	int rc;

	for (i = 0; i < n; i++)
		if (wu->canonical_resultid && items[i].r->id == wu->canonical_resultid)
			canon = &items[i];
	if (wu->canonical_resultid && !canon) {
		log_error("[WU#%" PRId64 " %s] canonical result %" PRId64 " not found", wu->id,
			  wu->name, wu->canonical_resultid);
		return 0;
	}
	if (canon)
		return check_against(j, wu, items, n, canon);
	rc = check_set(j, wu, items, n, wu->min_quorum, &canon, &ns, &nv);
	if (rc < 0)
		return rc;
	if (canon) {
		set_canonical(wu, canon->r);
		/* no more sending: the transitioner would do it too, a moment later */
		for (i = 0; i < n; i++) {
			struct db_result *r = items[i].r;

			if (r->server_state == RESULT_SERVER_STATE_UNSENT) {
				r->server_state = RESULT_SERVER_STATE_OVER;
				r->outcome = RESULT_OUTCOME_DIDNT_NEED;
				items[i].changed = true;
			}
		}
	} else if (ns >= (size_t)wu->min_quorum) {
		log_info("[WU#%" PRId64 " %s] no consensus among %zu results", wu->id, wu->name, nv);
		if (nv > (size_t)wu->max_success_results)
			wu->error_mask |= WU_ERROR_TOO_MANY_SUCCESS_RESULTS;
		if (nv >= (size_t)wu->target_nresults)
			wu->target_nresults = (int)nv + 1;
	}
	return 0;
}

/*
 * A segment of a sequence group: the corresponding segments of the group's
 * members (the newest workunit of each for that seqno) are compared as the
 * results of one workunit would be, against the group's canonical result
 * once there is one. A member's segment gets its own workunit's canonical
 * result when it is valid. All present and no consensus: the group fails.
 */
static int validate_group(struct val_job *j, const struct db_sequence_group *g,
			  struct db_workunit *wus, size_t nwus, struct vitem *items, size_t n)
{
	struct vitem *canon = NULL;
	size_t i, k, ns = 0, nv = 0;
	int rc;

	if (g->state != SEQ_STATE_ACTIVE)
		return 0;       /* stopped (no consensus): nothing more to judge */
	for (i = 0; i < n && !canon; i++)
		if (items[i].r->validate_state == VALIDATE_STATE_VALID)
			canon = &items[i];
	if (canon)
		rc = check_against(j, &wus[0], items, n, canon);
	else
		rc = check_set(j, &wus[0], items, n, g->min_quorum, &canon, &ns, &nv);
	if (rc < 0)
		return rc;
	for (k = 0; k < nwus; k++)
		for (i = 0; i < n; i++)
			if (items[i].r->workunitid == wus[k].id && !wus[k].canonical_resultid &&
			    items[i].r->validate_state == VALIDATE_STATE_VALID)
				set_canonical(&wus[k], items[i].r);
	if (!canon && nv >= (size_t)g->nmembers && nv >= (size_t)g->min_quorum) {
		char *why = xasprintf("no consensus at segment %d among %zu results", wus[0].seqno,
				      nv);

		log_error("group %s: %s: the group is stopped (state error)", g->name, why);
		rc = db_sequence_group_fail(j->db, g->id, why) == DB_OK ? 0 : -2;
		free(why);
	}
	return rc;
}

static int take_member(struct db_sequence *s, void *arg)
{
	struct db_sequence **v = arg;
	size_t n = 0;

	while ((*v)[n].id)
		n++;
	ARRAY_GROW(*v, n + 1);
	(*v)[n] = *s;
	memset(&(*v)[n + 1], 0, sizeof(**v));
	memset(s, 0, sizeof(*s));
	return 0;
}

/*
 * The workunits whose results are judged together: the one that needs
 * validation, and for a segment of a sequence group the newest workunit of
 * the same segment of every other member. *group is set for a group.
 * DB_NOT_FOUND: nothing to judge (a dead branch's segment).
 */
static int gather(struct db *db, struct db_workunit *first, struct db_sequence_group *group,
		  struct db_workunit **wus, size_t *nwus)
{
	struct db_sequence s = { 0 }, *members = xcalloc(1, sizeof(*members));
	struct db_workunit w = { 0 };
	size_t i;
	int rc = DB_OK;

	*wus = xcalloc(1, sizeof(**wus));
	**wus = *first;
	memset(first, 0, sizeof(*first));
	*nwus = 1;
	if (!(*wus)[0].seq_id)
		goto out;
	rc = db_sequence_lookup_id(db, (*wus)[0].seq_id, &s);
	if (rc == DB_NOT_FOUND)
		rc = DB_OK;     /* judged alone */
	if (rc != DB_OK || !s.groupid)
		goto out;
	rc = db_sequence_group_lookup_id(db, s.groupid, group);
	if (rc == DB_NOT_FOUND) {
		log_error("[WU#%" PRId64 " %s] sequence group %" PRId64 " is missing: judged alone",
			  (*wus)[0].id, (*wus)[0].name, s.groupid);
		group->id = 0;
		rc = DB_OK;
		goto out;
	}
	if (rc == DB_OK)
		rc = db_sequence_enum_group(db, s.groupid, take_member, &members);
	for (i = 0; rc == DB_OK && members[i].id; i++) {
		rc = db_workunit_lock_segment(db, members[i].id, (*wus)[0].seqno, &w);
		if (rc == DB_NOT_FOUND) {
			rc = DB_OK;     /* that member has no such segment (yet) */
		} else if (rc == DB_OK && members[i].id == s.id) {
			if (w.id != (*wus)[0].id)
				rc = DB_NOT_FOUND;
		} else if (rc == DB_OK) {
			ARRAY_GROW(*wus, *nwus);
			(*wus)[(*nwus)++] = w;
			memset(&w, 0, sizeof(w));
		}
	}
out:
	for (i = 0; members[i].id; i++)
		db_sequence_release(&members[i]);
	free(members);
	db_workunit_release(&w);
	db_sequence_release(&s);
	return rc;
}

/*
 * Where an invalid segment's sequence restarts: the latest restart point
 * before its first unvalidated segment (seq_restart_latest; 0 if its
 * template cannot be read: from the initial states).
 */
static int restart_before(struct db *db, const struct project_config *cfg, int64_t seq_id,
			  int *last)
{
	struct db_sequence s = { 0 };
	struct seq_view v;
	int rc = db_sequence_lookup_id(db, seq_id, &s), upto;

	*last = 0;
	if (rc == DB_OK && seq_view_load(cfg, &s, &v) == 0) {
		upto = s.first_unvalidated_seqno - 1 < s.last_state_seqno
			? s.first_unvalidated_seqno - 1 : s.last_state_seqno;
		rc = seq_restart_latest(db, &s, &v, upto, last);
	}
	db_sequence_release(&s);
	return rc;
}

/* A sequence's segment was judged: move its validated mark, or relocate it if wrong. */
static int segment_judged(struct db *db, const struct project_config *cfg,
			  const struct db_workunit *wu, const struct db_result *r)
{
	if (!wu->seq_id)
		return DB_OK;
	if (r->validate_state == VALIDATE_STATE_VALID)
		return db_sequence_advance_validated(db, wu->seq_id);
	if (r->validate_state == VALIDATE_STATE_INVALID) {
		/* as if its branch were live: the UPDATE checks that it is, and the sequence active */
		struct seq_view v = { .active = true, .branch = wu->branch };
		struct seg_view g = { wu->seqno, wu->branch, r->hostid, SEG_INVALID, 0, 0 };
		enum seq_reason why;
		int rc, last;

		if (seq_policy_after_segment(&v, &g, &why) != SEQ_NEXT_RELOCATE)
			return DB_OK;
		/* a late result of a branch the sequence has left moves nothing */
		log_info("[WU#%" PRId64 " %s] invalid segment: the sequence will be relocated "
			 "(if branch %d is still its own)", wu->id, wu->name, wu->branch);
		rc = restart_before(db, cfg, wu->seq_id, &last);
		return rc == DB_OK ? db_sequence_flag_invalid(db, wu->seq_id, wu->branch, (int)why,
							      last) : rc;
	}
	return DB_OK;
}

/*
 * A result that has just become valid earns its credit for its host, user
 * and team -- in the transaction that makes it valid, so a validator killed
 * at any point grants it once or not at all.
 */
static int grant(struct db *db, const struct vitem *it)
{
	const struct db_result *r = it->r;
	int rc;

	if (r->validate_state != VALIDATE_STATE_VALID || it->was == VALIDATE_STATE_VALID ||
	    !(r->granted_credit > 0))
		return DB_OK;
	rc = db_credit_grant(db, r->hostid, r->userid, r->granted_credit, (double)r->sent_time,
			     dnow());
	if (rc == DB_OK)
		rc = val_credit_by_app(db, r);
	/* crash tests: WSEQ_TEST_VALIDATOR_KILL=N kills it after its Nth grant, mid-transaction */
	daemon_test_kill_point("WSEQ_TEST_VALIDATOR_KILL");
	return rc;
}

/*
 * A valid result earns trust (adaptive replication) only when verified: one
 * of a workunit that adaptive replication left single (target_nresults 1
 * of an app with more) is HAV_VALID_UNVERIFIED; a sequence's segment is
 * always judged on its own (by the check) and counts as verified.
 */
static int valid_outcome(struct db *db, const struct db_workunit *wu, const struct db_result *r,
			 enum hav_outcome *o)
{
	struct db_app app = { 0 };
	int rc;

	*o = HAV_VALID;
	if (r->seq_id || !wu || wu->target_nresults != 1)
		return DB_OK;
	rc = db_app_lookup_id(db, r->appid, &app);
	if (rc == DB_OK && app.target_nresults > 1)
		*o = HAV_VALID_UNVERIFIED;
	db_app_release(&app);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

/*
 * A verdict just reached on a result counts for its host's record of its
 * app version (host_app_version), in the same transaction.
 */
static int count_verdict(struct db *db, const struct db_workunit *wus, size_t nwus,
			 const struct vitem *it)
{
	const struct db_result *r = it->r;
	const struct db_workunit *wu = NULL;
	enum hav_outcome o = HAV_INVALID;
	int v = r->validate_state, rc = DB_OK;
	size_t k;

	if (r->app_version_id <= 0 || v == it->was ||
	    (v != VALIDATE_STATE_VALID && v != VALIDATE_STATE_INVALID))
		return DB_OK;
	for (k = 0; k < nwus; k++)
		if (wus[k].id == r->workunitid)
			wu = &wus[k];
	if (v == VALIDATE_STATE_VALID)
		rc = valid_outcome(db, wu, r, &o);
	return rc == DB_OK ? db_hav_outcome(db, r->hostid, r->app_version_id, o,
					     r->sent_time > 0 && r->received_time >= r->sent_time ?
					     (double)(r->received_time - r->sent_time) : -1.0) : rc;
}

/*
 * The workunit waits for a later pass: nothing judged now is written but
 * the mark of the results whose check could not tell (DB_NOT_FOUND: no
 * such result, nothing to commit).
 */
static int check_retried(struct db *db, const struct vitem *items, size_t n)
{
	size_t i;
	int rc = DB_NOT_FOUND;

	for (i = 0; i < n && rc != DB_ERROR && rc != DB_RETRY; i++)
		if (items[i].check_retry)
			rc = db_result_set_validate_why(db, items[i].r->id,
							VALIDATE_WHY_CHECK_RETRY);
	return rc;
}

static int validate(struct db *db, void *arg)
{
	struct val_job *j = arg;
	struct db_workunit first = { 0 }, *wus = NULL;
	struct db_sequence_group group = { 0 };
	struct results rs = { NULL, 0 };
	struct vitem *items = NULL;
	size_t i, k, nwus = 0;
	int rc;

	j->retry = false;
	j->db = db;
	rc = db_workunit_lock(db, j->wuid, &first);
	if (rc != DB_OK)
		goto out;
	if (!first.need_validate) {
		rc = DB_NOT_FOUND;
		goto out;
	}
	rc = gather(db, &first, &group, &wus, &nwus);
	for (k = 0; rc == DB_OK && k < nwus; k++)
		rc = db_result_enum_workunit_lock(db, wus[k].id, take_result, &rs);
	if (rc == DB_NOT_FOUND && nwus)
		goto done;      /* a dead branch's segment: nothing to compare it with */
	if (rc != DB_OK)
		goto out;
	items = xcalloc(rs.n + 1, sizeof(*items));
	for (i = 0; i < rs.n; i++) {
		items[i].r = &rs.v[i];
		items[i].was = rs.v[i].validate_state;
	}
	rc = group.id ? validate_group(j, &group, wus, nwus, items, rs.n)
		      : validate_workunit(j, &wus[0], items, rs.n);
	if (rc == -2) {
		rc = DB_ERROR;
		goto out;
	}
	if (rc < 0) {
		if (!j->retry)
			log_error("[WU#%" PRId64 " %s] cannot validate now", wus[0].id, wus[0].name);
		j->retry = true;
		rc = check_retried(db, items, rs.n);
		goto out;
	}
	for (i = 0; rc == DB_OK && i < rs.n; i++)
		if (items[i].changed)
			rc = db_result_update_state(db, &rs.v[i]);
	for (i = 0; rc == DB_OK && i < rs.n; i++)
		if (items[i].changed)
			rc = grant(db, &items[i]);
	for (i = 0; rc == DB_OK && i < rs.n; i++)
		if (items[i].changed)
			rc = count_verdict(db, wus, nwus, &items[i]);
done:
	for (k = 0; (rc == DB_OK || rc == DB_NOT_FOUND) && k < nwus; k++) {
		wus[k].need_validate = 0;
		wus[k].transition_time = now();
		rc = db_workunit_update_state(db, &wus[k]);
	}
	/* With the workunits' canonical results written, the sequences can follow. */
	for (i = 0; rc == DB_OK && i < rs.n; i++)
		for (k = 0; rc == DB_OK && items && items[i].changed && k < nwus; k++)
			if (wus[k].id == rs.v[i].workunitid)
				rc = segment_judged(db, j->ctx->cfg, &wus[k], &rs.v[i]);
out:
	if (items)
		for (i = 0; i < rs.n; i++)
			vresult_release(&items[i].vr);
	free(items);
	for (i = 0; i < rs.n; i++)
		db_result_release(&rs.v[i]);
	free(rs.v);
	for (k = 0; k < nwus; k++)
		db_workunit_release(&wus[k]);
	free(wus);
	db_workunit_release(&first);
	db_sequence_group_release(&group);
	return rc;
}

static int take_id(struct db_workunit *wu, void *arg)
{
	return db_ids_add(arg, wu->id);
}

/* Every workunit of the app needing validation; a cursor steps past ones left for later. */
static int validate_app(struct daemon_ctx *ctx, int64_t appid, bool *worked)
{
	int64_t after = 0;

	for (;;) {
		struct db_ids l = { NULL, 0 };
		size_t i;
		int rc = db_workunit_enum_need_validate_mod(ctx->db, appid, ctx->mod_n, ctx->mod_i,
							    after, (int)settings.batch, take_id, &l);

		for (i = 0; i < l.n && rc == DB_OK; i++) {
			struct val_job j = { ctx, NULL, l.v[i], false };

			if (daemon_stopping(ctx))
				break;
			rc = db_txn_run(ctx->db, validate, &j);
			if (rc == DB_OK && !j.retry)
				*worked = true;
			else if (rc == DB_NOT_FOUND)
				rc = DB_OK;
			after = l.v[i];
		}
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (l.n < (size_t)settings.batch || daemon_stopping(ctx))
			return 0;
	}
}

static int val_pass(struct daemon_ctx *ctx)
{
	const struct val_priv *p = ctx->priv;
	int64_t *apps = NULL;
	size_t napps = 0;
	bool worked = false;
	int rc = 0;
	size_t i;

	if (p->appid) {
		rc = validate_app(ctx, p->appid, &worked);
	} else if (db_app_ids(ctx->db, &apps, &napps) != DB_OK) {
		rc = -1;
	} else {
		/* the sweep master judges its own app's results (a project may have none) */
		struct db_app sweep = { 0 };

		if (db_app_lookup_name(ctx->db, SWEEP_APP_NAME, &sweep) != DB_OK)
			sweep.id = 0;
		for (i = 0; i < napps && rc == 0; i++)
			if (apps[i] != sweep.id)
				rc = validate_app(ctx, apps[i], &worked);
		db_app_release(&sweep);
	}
	free(apps);
	if (rc < 0)
		return DAEMON_PASS_ERROR;
	return worked ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

double validate_cmd_timeout;

/* The check: --check_cmd, or --check_plugin's among those linked; -1 if unknown. */
static int val_checker(struct val_priv *p)
{
	const char *name = settings.check_plugin;

	if (settings.check_cmd && *settings.check_cmd) {
		p->checker = &validate_check_cmd;
		p->check_arg = settings.check_cmd;
	} else if (name && *name) {
		if (!strcmp(name, validate_sample.name))
			p->checker = &validate_sample;
		else if (&validate_project && validate_project.check &&
			 !strcmp(name, validate_project.name))
			p->checker = &validate_project;
		else
			return log_error("--check_plugin %s: no such plug-in is linked in", name);
		p->check_arg = settings.check_arg;
	}
	if (p->checker)
		log_info("checking each result with %s%s%s", p->checker->name,
			 p->check_arg ? " " : "", p->check_arg ? p->check_arg : "");
	return 0;
}

static int val_init(struct daemon_ctx *ctx)
{
	struct val_priv *p;
	int64_t appid = 0;

	if (settings.app && *settings.app && db_app_id(ctx->db, settings.app, &appid) != DB_OK)
		return -1;
	p = xcalloc(1, sizeof(*p));
	p->appid = appid;
	p->rule = settings.credit > 0 ? CREDIT_RULE_FIXED : CREDIT_RULE_FPOPS;
	if (settings.credit_rule && *settings.credit_rule &&
	    credit_rule_parse(settings.credit_rule, &p->rule)) {
		log_error("--credit_rule %s: not fixed, fpops or runtime", settings.credit_rule);
		free(p);
		return -1;
	}
	if ((p->rule == CREDIT_RULE_FIXED) != (settings.credit > 0)) {
		log_error("--credit C goes with --credit_rule fixed, and fixed needs it");
		free(p);
		return -1;
	}
	p->plugin = settings.compare_cmd && *settings.compare_cmd ? &validate_cmd : &validate_bitwise;
	if (!settings.compare_cmd && &validate_project && validate_project.compare)
		p->plugin = &validate_project;
	validate_cmd_timeout = settings.cmd_timeout;
	ctx->priv = p;
	if (val_checker(p) < 0) {
		free(p);
		ctx->priv = NULL;
		return -1;
	}
	log_info("validating %s%s with %s%s%s", appid ? "app " : "every app",
		 appid ? settings.app : "", p->plugin->name,
		 p->plugin == &validate_cmd ? " " : "",
		 p->plugin == &validate_cmd ? settings.compare_cmd : "");
	return 0;
}

static void val_fini(struct daemon_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

static const struct daemon_spec val_spec = {
	.name = "validator",
	.summary = "Compare the successful results of workunits and choose canonical results.",
	.params = val_params,
	.settings = &settings,
	.needs_db = true,
	.init = val_init,
	.pass = val_pass,
	.fini = val_fini,
};

int main(int argc, char **argv)
{
	return daemon_main(&val_spec, argc, argv);
}
