/* The scheduler's queries: recording reports and the checks before sending. */
#include "db_sched.h"
#include "db_internal.h"
#include "log.h"
#include "wtime.h"

/*
 * A result that timed out may still be reported, as in BOINC; its files may
 * have been released and deleted since, and the late upload would stay for
 * ever: the transitioner releases them again (file_delete_state INIT).
 */
const struct db_query dbq_result_report = {
	"result_report", NULL,
	"UPDATE result SET server_state=5, outcome=?, client_state=?, exit_status=?, cpu_time=?, "
	"elapsed_time=?, received_time=?, stderr_out=?, xml_doc_out=?, app_version_num=?, "
	"peak_working_set_size=?, peak_swap_size=?, peak_disk_usage=?, validate_state=0, "
	"file_delete_state=0 "
	"WHERE id=? AND hostid=? AND (server_state=4 OR (server_state=5 AND outcome=4))",
	"iiiddissidddii"
};
const struct db_query dbq_result_wu_host = {
	"result_wu_host", NULL,
	"SELECT COUNT(*) FROM result WHERE workunitid=? AND (hostid=? OR userid=?)", "iii"
};
/*
 * The pool a user's hosts without a history of their own share: the
 * smallest daily quota per CPU any of the user's hosts earned (0: none has
 * one), the jobs the pool's other hosts got today, and its jobs in progress.
 * A host has a history once it reported a result (max_results_day or
 * avg_turnaround set).
 */
#define UNTRIED "max_results_day=0 AND avg_turnaround=0"
/* A host's benchmark, whole FLOPS (the validator's bound on credit). */
const struct db_query dbq_host_fpops = {
	"host_fpops", NULL,
	"SELECT CAST(LEAST(GREATEST(p_fpops, 0), 1e18) AS SIGNED) FROM host WHERE id=?", "i"
};
const struct db_query dbq_user_min_quota = {
	"user_min_quota", NULL,
	"SELECT COALESCE(MIN(max_results_day), 0) FROM host WHERE userid=? AND max_results_day>0",
	"i"
};
const struct db_query dbq_user_untried_today = {
	"user_untried_today", NULL,
	"SELECT COALESCE(SUM(nresults_today), 0) FROM host WHERE userid=? AND id<>? AND "
	"rpc_time>=? AND " UNTRIED, "iii"
};
const struct db_query dbq_user_untried_in_progress = {
	"user_untried_in_progress", NULL,
	"SELECT COUNT(*) FROM host h JOIN result r ON r.hostid=h.id AND r.server_state=4 "
	"WHERE h.userid=? AND h." UNTRIED " AND h.id<>?", "ii"
};
const struct db_query dbq_result_host_count = {
	"result_host_count", NULL,
	"SELECT COUNT(*) FROM result WHERE hostid=? AND server_state=4", "i"
};

/* resend_lost_results: a host's ordinary jobs in progress, and the two fates of a lost one */
const struct db_query dbq_result_host_jobs_in_progress = {
	"result_host_jobs_in_progress", &db_result_table,
	"WHERE hostid=? AND server_state=4 AND seq_id=0 ORDER BY id LIMIT 1000", "i"
};
const struct db_query dbq_result_resend = {
	"result_resend", NULL,
	"UPDATE result SET sent_time=?, report_deadline=?, app_version_id=?, app_version_num=? "
	"WHERE id=? AND hostid=? AND server_state=4", "iiiiii"
};
/* as a timeout marks it (no reply): a late report is still taken */
const struct db_query dbq_result_lost = {
	"result_lost", NULL,
	"UPDATE result SET server_state=5, outcome=4 WHERE id=? AND hostid=? AND server_state=4", "ii"
};

int db_result_enum_host_jobs_in_progress(struct db *db, int64_t hostid,
					 int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_result_query(db, &dbq_result_host_jobs_in_progress, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_resend(struct db *db, const struct db_result *r)
{
	struct db_val v[] = {
		DBV_INT(r->sent_time), DBV_INT(r->report_deadline), DBV_INT(r->app_version_id),
		DBV_INT(r->app_version_num), DBV_INT(r->id), DBV_INT(r->hostid),
	};
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_resend, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_result_mark_lost(struct db *db, int64_t id, int64_t hostid)
{
	struct db_val v[] = { DBV_INT(id), DBV_INT(hostid) };
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_lost, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_result_report(struct db *db, const struct db_result_report *r)
{
	struct db_val v[] = {
		DBV_INT(r->outcome), DBV_INT(r->client_state), DBV_INT(r->exit_status),
		DBV_DBL(r->cpu_time), DBV_DBL(r->elapsed_time), DBV_INT(r->received_time),
		DBV_STR(r->stderr_out), DBV_STR(r->xml_doc_out), DBV_INT(r->app_version_num),
		DBV_DBL(r->peak_working_set_size), DBV_DBL(r->peak_swap_size),
		DBV_DBL(r->peak_disk_usage), DBV_INT(r->id), DBV_INT(r->hostid),
	};
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_report, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_result_count_wu_host(struct db *db, int64_t wuid, int64_t hostid, int64_t userid,
			    int64_t *n)
{
	struct db_val v[] = { DBV_INT(wuid), DBV_INT(hostid), DBV_INT(userid) };

	return db_select_i64(db, dbq_result_wu_host.sql, v, ARRAY_SIZE(v), n);
}

int db_result_count_host_in_progress(struct db *db, int64_t hostid, int64_t *n)
{
	struct db_val v[] = { DBV_INT(hostid) };

	return db_select_i64(db, dbq_result_host_count.sql, v, ARRAY_SIZE(v), n);
}

int db_host_fpops(struct db *db, int64_t hostid, double *fpops)
{
	struct db_val v[] = { DBV_INT(hostid) };
	int64_t f = 0;
	int rc = db_select_i64(db, dbq_host_fpops.sql, v, ARRAY_SIZE(v), &f);

	*fpops = (double)f;
	return rc;
}

int db_user_untried_pool(struct db *db, int64_t userid, int64_t hostid, int64_t day_start,
			 struct db_untried_pool *p)
{
	struct db_val u[] = { DBV_INT(userid) };
	struct db_val t[] = { DBV_INT(userid), DBV_INT(hostid), DBV_INT(day_start) };
	struct db_val b[] = { DBV_INT(userid), DBV_INT(hostid) };
	int rc;

	memset(p, 0, sizeof(*p));
	rc = db_select_i64(db, dbq_user_min_quota.sql, u, ARRAY_SIZE(u), &p->min_quota);
	if (rc == DB_OK)
		rc = db_select_i64(db, dbq_user_untried_today.sql, t, ARRAY_SIZE(t), &p->sent_today);
	if (rc == DB_OK)
		rc = db_select_i64(db, dbq_user_untried_in_progress.sql, b, ARRAY_SIZE(b),
				   &p->in_progress);
	return rc;
}

/*
 * Rows are added to app, platform and app_version (update_versions,
 * make_project) and deprecated; never otherwise changed in place. Their
 * counts, largest ids and deprecated counts say when a copy is stale. The
 * tables are small: the scans cost microseconds.
 */
#define FP_OF(t) "(SELECT COUNT(*) FROM " t "), (SELECT MAX(id) FROM " t "), " \
	"(SELECT SUM(deprecated) FROM " t ")"
/* adaptive replication's settings: an admin's xadd takes effect at the next request */
#define AR_OF_APPS "(SELECT SUM(target_nresults) FROM app), " \
	"(SELECT SUM(trust_after) FROM app), (SELECT SUM(spot_check) FROM app)"
const struct db_query dbq_apps_fingerprint = {
	"apps_fingerprint", NULL,
	"SELECT CRC32(CONCAT_WS(',', " FP_OF("app") ", " FP_OF("platform") ", "
	FP_OF("app_version") ", " AR_OF_APPS "))", ""
};

/*
 * Any assigned job, any work sequence at all (bits 1 and 2)? Asked once a
 * second, not per request: a project without them reads nothing for them.
 */
const struct db_query dbq_work_kinds = {
	"work_kinds", NULL,
	"SELECT ((SELECT MAX(id) FROM assignment) IS NOT NULL) | "
	"(((SELECT MAX(id) FROM sequence) IS NOT NULL) << 1)", ""
};
/*
 * The waiting results of jobs assigned to this host, its user or the
 * user's team. Not locked: db_result_claim_assigned() takes each one only
 * if it is still waiting, so two hosts of one user never both get it.
 */
const struct db_query dbq_result_assigned = {
	"result_assigned", &db_result_table,
	"WHERE server_state=1 AND workunitid IN (SELECT workunitid FROM assignment WHERE "
	"(target_type=1 AND target_id=?) OR (target_type=2 AND target_id=?) OR "
	"(target_type=3 AND target_id<>0 AND target_id=(SELECT teamid FROM user WHERE id=?))) "
	"ORDER BY priority DESC, id LIMIT ?", "iiii"
};
const struct db_query dbq_result_claim_assigned = {
	"result_claim_assigned", NULL,
	"UPDATE result SET server_state=4, hostid=?, userid=?, sent_time=?, report_deadline=?, "
	"app_version_id=?, app_version_num=? WHERE id=? AND server_state=1", "iiiiiii"
};

int db_work_kinds(struct db *db, bool *assignments, bool *sequences)
{
	int64_t k = 0;
	int rc = db_select_i64(db, dbq_work_kinds.sql, NULL, 0, &k);

	*assignments = rc == DB_OK && (k & 1);
	*sequences = rc == DB_OK && (k & 2);
	return rc;
}

int db_result_enum_assigned(struct db *db, int64_t hostid, int64_t userid, int limit,
			    int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[] = { DBV_INT(hostid), DBV_INT(userid), DBV_INT(userid), DBV_INT(limit) };

	return db_result_query(db, &dbq_result_assigned, v, ARRAY_SIZE(v), fn, arg);
}

int db_result_claim_assigned(struct db *db, const struct db_result *r)
{
	struct db_val v[] = {
		DBV_INT(r->hostid), DBV_INT(r->userid), DBV_INT(r->sent_time),
		DBV_INT(r->report_deadline), DBV_INT(r->app_version_id), DBV_INT(r->app_version_num),
		DBV_INT(r->id),
	};
	int64_t matched = 0;
	int rc = db_query_exec(db, &dbq_result_claim_assigned, v, ARRAY_SIZE(v), &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

/* A job of the host timed out: its own daily quota (0: the project's, q) halves, at least 1. */
const struct db_query dbq_host_quota_halve = {
	"host_quota_halve", NULL,
	"UPDATE host SET max_results_day=GREATEST(1, LEAST(IF(max_results_day>0, max_results_day, ?), "
	"?) DIV 2) WHERE id=?", "iii"
};

int db_host_quota_halve(struct db *db, int64_t hostid, long q)
{
	struct db_val v[] = { DBV_INT(q), DBV_INT(q), DBV_INT(hostid) };

	return db_query_exec(db, &dbq_host_quota_halve, v, ARRAY_SIZE(v), NULL);
}

int db_apps_fingerprint(struct db *db, int64_t *fp)
{
	return db_select_i64(db, dbq_apps_fingerprint.sql, NULL, 0, fp);
}

const struct db_query dbq_result_seq_host_failed = {
	"result_seq_host_failed", NULL,
	"SELECT COUNT(*) FROM result WHERE seq_id=? AND hostid=? AND server_state=5 AND "
	"(outcome IN (3, 6) OR validate_state=2 OR (outcome=1 AND elapsed_time>?))", "iid"
};

/* Segments userid ran of the other members of group groupid (one_result_per_user_per_wu). */
const struct db_query dbq_result_group_user = {
	"result_group_user", NULL,
	"SELECT COUNT(*) FROM sequence s JOIN result r ON r.seq_id=s.id "
	"WHERE s.groupid=? AND s.id<>? AND r.userid=?", "iii"
};

int db_result_group_user(struct db *db, int64_t groupid, int64_t seq_id, int64_t userid,
			 int64_t *n)
{
	struct db_val v[] = { DBV_INT(groupid), DBV_INT(seq_id), DBV_INT(userid) };

	return db_select_i64(db, dbq_result_group_user.sql, v, ARRAY_SIZE(v), n);
}

int db_result_seq_host_failed(struct db *db, int64_t seq_id, int64_t hostid, double max_time,
			      int64_t *n)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(hostid), DBV_DBL(max_time) };

	return db_select_i64(db, dbq_result_seq_host_failed.sql, v, ARRAY_SIZE(v), n);
}


const struct db_query dbq_result_activate = {
	"result_activate", NULL,
	"UPDATE result SET server_state=4, hostid=?, userid=?, sent_time=?, report_deadline=?, "
	"app_version_id=?, app_version_num=? WHERE id=? AND server_state=1", "iiiiiii"
};
const struct db_query dbq_seq_advance = {
	"seq_advance", NULL,
	"UPDATE sequence SET first_unsent_seqno=? WHERE id=? AND hostid=? AND first_unsent_seqno=?",
	"iiii"
};
const struct db_query dbq_seq_deassign = {
	"seq_deassign", NULL,
	"UPDATE sequence SET hostid=0, need_relocate=? WHERE id=? AND hostid=?", "iii"
};
const struct db_query dbq_seq_state_uploaded = {
	"seq_state_uploaded", NULL,
	"UPDATE sequence SET last_state_seqno=GREATEST(last_state_seqno, ?) "
	"WHERE id=? AND branch=? AND need_relocate=0",
	"iii"
};
const struct db_query dbq_seq_end = {
	"seq_end", NULL,
	"UPDATE sequence SET state=?, need_relocate=0 "
	"WHERE id=? AND branch=? AND state=0 AND need_relocate NOT IN (?, ?)", "iiiii"
};
const struct db_query dbq_seq_file_uploaded = {
	"seq_file_uploaded", NULL,
	"UPDATE seq_file SET uploaded=1, nbytes=?, md5_cksum=?, upload_time=? "
	"WHERE name=? AND seq_id=? AND branch=? AND seqno=? AND file_delete_state=0", "dsisiii"
};

static int exec_matched(struct db *db, const struct db_query *q, const struct db_val *v, size_t n)
{
	int64_t matched = 0;
	int rc = db_query_exec(db, q, v, n, &matched);

	return rc == DB_OK && matched == 0 ? DB_NOT_FOUND : rc;
}

int db_result_activate(struct db *db, const struct db_result *r)
{
	struct db_val v[] = { DBV_INT(r->hostid), DBV_INT(r->userid), DBV_INT(r->sent_time),
			      DBV_INT(r->report_deadline), DBV_INT(r->app_version_id),
			      DBV_INT(r->app_version_num), DBV_INT(r->id) };

	return exec_matched(db, &dbq_result_activate, v, ARRAY_SIZE(v));
}

int db_sequence_advance(struct db *db, int64_t seq_id, int64_t hostid, int from, int to)
{
	struct db_val v[] = { DBV_INT(to), DBV_INT(seq_id), DBV_INT(hostid), DBV_INT(from) };

	return exec_matched(db, &dbq_seq_advance, v, ARRAY_SIZE(v));
}

int db_sequence_deassign(struct db *db, int64_t seq_id, int64_t hostid, int reason)
{
	struct db_val v[] = { DBV_INT(reason), DBV_INT(seq_id), DBV_INT(hostid) };

	return exec_matched(db, &dbq_seq_deassign, v, ARRAY_SIZE(v));
}

int db_sequence_state_uploaded(struct db *db, int64_t seq_id, int branch, int seqno)
{
	struct db_val v[] = { DBV_INT(seqno), DBV_INT(seq_id), DBV_INT(branch) };

	return exec_matched(db, &dbq_seq_state_uploaded, v, ARRAY_SIZE(v));
}

int db_sequence_end(struct db *db, int64_t seq_id, int branch, int state)
{
	struct db_val v[] = { DBV_INT(state), DBV_INT(seq_id), DBV_INT(branch),
			      DBV_INT(SEQ_RELOCATE_DEADLINE), DBV_INT(SEQ_RELOCATE_ERROR) };

	return exec_matched(db, &dbq_seq_end, v, ARRAY_SIZE(v));
}

int db_seq_file_set_uploaded(struct db *db, int64_t seq_id, int branch, int seqno, const char *name,
			     double nbytes, const char *md5, int64_t t)
{
	struct db_val v[] = { DBV_DBL(nbytes), DBV_STR(md5), DBV_INT(t), DBV_STR(name),
			      DBV_INT(seq_id), DBV_INT(branch), DBV_INT(seqno) };

	return exec_matched(db, &dbq_seq_file_uploaded, v, ARRAY_SIZE(v));
}

const struct db_query dbq_seq_flag_relocate = {
	"seq_flag_relocate", NULL,
	"UPDATE sequence SET need_relocate=? WHERE id=? AND branch=? AND state=0 AND need_relocate=0",
	"iii"
};
const struct db_query dbq_seq_file_state_uploaded = {
	"seq_file_state_uploaded", &db_seq_file_table,
	"WHERE seq_id=? AND seqno=? AND kind=1 AND uploaded=1 ORDER BY branch DESC, id", "ii"
};

/* Relocation in batches: DB_SEQ_BATCH placeholders (Q32, db_internal.h). */
#define I8 "iiiiiiii"
const struct db_query dbq_seq_lock_many = {
	"seq_lock_many", &db_sequence_table, "WHERE id IN (" Q32 ") ORDER BY id FOR UPDATE", I32
};
/* DB_SEQ_SEQNOS = 10 x DB_SEQ_BATCH seqnos. */
#define Q320 Q32 "," Q32 "," Q32 "," Q32 "," Q32 "," Q32 "," Q32 "," Q32 "," Q32 "," Q32
#define I320 I32 I32 I32 I32 I32 I32 I32 I32 I32 I32
/*
 * One sequence's at up to DB_SEQ_SEQNOS_ONE segments (the scheduler's
 * restart check): MariaDB plans a prepared statement at every execution,
 * and 352 places cost a scheduler RPC more than the rows it read.
 */
#define Q10 "?,?,?,?,?,?,?,?,?,?"
const struct db_query dbq_seq_file_states_many[2] = {
	{ "seq_file_states_one", &db_seq_file_table,
	  "WHERE seq_id=? AND seqno IN (" Q10 ") AND kind=1 ORDER BY seqno DESC, branch DESC, id",
	  "i" "iiiiiiiiii" },
	{ "seq_file_states_many", &db_seq_file_table,
	  "WHERE seq_id IN (" Q32 ") AND seqno IN (" Q320 ") AND kind=1 "
	  "ORDER BY seq_id, seqno DESC, branch DESC, id", I32 I320 },
};
const struct db_query dbq_result_seq_retire = {
	"result_seq_retire", NULL,
	"UPDATE result SET server_state=5, outcome=5 WHERE seq_id IN (" Q32 ") "
	"AND server_state IN (1, 2, 4)", I32
};
/* The workunits of those results: the transitioner closes them now, not at their safety net. */
const struct db_query dbq_wu_seq_retire_touch = {
	"wu_seq_retire_touch", NULL,
	"UPDATE workunit w JOIN result r ON r.workunitid=w.id SET w.transition_time=? "
	"WHERE r.seq_id IN (" Q32 ") AND r.server_state IN (1, 2, 4) AND w.transition_time>?",
	"i" I32 "i"
};
const struct db_query dbq_seq_relocated = {
	"seq_relocated", NULL,
	"UPDATE sequence SET branch=branch+1, hostid=0, first_unsent_seqno=last_state_seqno+1, "
	"first_unvalidated_seqno=LEAST(first_unvalidated_seqno, last_state_seqno+1), "
	"need_relocate=0, nrelocations=nrelocations+1 WHERE id IN (" Q32 ")", I32
};

int db_sequence_flag_relocate(struct db *db, int64_t seq_id, int branch, int reason)
{
	struct db_val v[] = { DBV_INT(reason), DBV_INT(seq_id), DBV_INT(branch) };

	return exec_matched(db, &dbq_seq_flag_relocate, v, ARRAY_SIZE(v));
}

struct state_files {
	struct db_seq_file *v;
	size_t max, n;
};

/* The files of the newest branch only, in the order they were made (the state files' order). */
static int take_state(struct db_seq_file *f, void *arg)
{
	struct state_files *sf = arg;

	if (sf->n && f->branch != sf->v[0].branch)
		return 1;
	if (sf->n == sf->max)
		return 1;
	sf->v[sf->n++] = *f;
	memset(f, 0, sizeof(*f));
	return 0;
}

int db_seq_file_states(struct db *db, int64_t seq_id, int seqno, struct db_seq_file *out,
		       size_t max, size_t *n)
{
	struct db_val v[] = { DBV_INT(seq_id), DBV_INT(seqno) };
	struct state_files sf = { out, max, 0 };
	size_t i;
	int rc;

	for (i = 0; i < max; i++)
		db_seq_file_release(&out[i]);
	rc = db_seq_file_query(db, &dbq_seq_file_state_uploaded, v, ARRAY_SIZE(v), take_state, &sf);
	*n = sf.n;
	return rc;
}

int db_sequence_lock_many(struct db *db, const int64_t *ids, size_t n,
			  int (*fn)(struct db_sequence *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];

	if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	return db_sequence_query(db, &dbq_seq_lock_many, v, ARRAY_SIZE(v), fn, arg);
}

int db_seq_file_states_many(struct db *db, const int64_t *ids, size_t n, const int *seqnos,
			    size_t nseqnos, int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH + DB_SEQ_SEQNOS];
	bool one = n == 1 && nseqnos <= DB_SEQ_SEQNOS_ONE;
	size_t nids = one ? 1 : DB_SEQ_BATCH, width = one ? DB_SEQ_SEQNOS_ONE : DB_SEQ_SEQNOS, i;

	if (nseqnos < 1 || nseqnos > DB_SEQ_SEQNOS) {
		log_error("database error: %zu segments of a batch's states", nseqnos);
		return DB_ERROR;
	}
	if (one)
		v[0] = DBV_INT(ids[0]);
	else if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	for (i = 0; i < width; i++)
		v[nids + i] = DBV_INT(seqnos[i < nseqnos ? i : 0]);
	return db_seq_file_query(db, &dbq_seq_file_states_many[!one], v, nids + width, fn, arg);
}

int db_result_retire_live(struct db *db, const int64_t *ids, size_t n)
{
	struct db_val v[DB_SEQ_BATCH], t[DB_SEQ_BATCH + 2];
	int64_t tnow = now();
	int rc;

	if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	t[0] = DBV_INT(tnow);
	memcpy(&t[1], v, sizeof(v));
	t[DB_SEQ_BATCH + 1] = DBV_INT(tnow);
	rc = db_query_exec(db, &dbq_wu_seq_retire_touch, t, ARRAY_SIZE(t), NULL);
	if (rc == DB_OK)
		rc = db_query_exec(db, &dbq_result_seq_retire, v, ARRAY_SIZE(v), NULL);
	return rc;
}

int db_sequence_relocated(struct db *db, const int64_t *ids, size_t n)
{
	struct db_val v[DB_SEQ_BATCH];

	if (db_batch_vals(v, ids, n) < 0)
		return DB_ERROR;
	return db_query_exec(db, &dbq_seq_relocated, v, ARRAY_SIZE(v), NULL);
}

/*
 * Sending ordinary jobs: the results the scheduler read locked are marked
 * sent in one statement per app version and deadline. The id list is 1, 4
 * or 32 wide, padded with its first id: MariaDB plans a prepared statement
 * at every execution, and 32 places for one id cost it more than the
 * statement saved.
 *
 * The workunits an RPC reported or sent a result of get their transition
 * times moved in one statement at its end, each to its own time (now for a
 * report, the deadline for a job sent): the times in a CASE, padded as the
 * ids. (A deadline taken from each workunit by a subquery made an UPDATE
 * twice as slow.)
 */
#define CLAIM_SQL(in) \
	"UPDATE result SET server_state=4, hostid=?, userid=?, sent_time=?, report_deadline=?, " \
	"app_version_id=?, app_version_num=? WHERE id IN (" in ") AND server_state=2"
#define W4 "WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? "
#define TOUCH_SQL(when, in) \
	"UPDATE workunit SET transition_time=LEAST(transition_time, CASE id " when \
	"ELSE transition_time END) WHERE id IN (" in ")"
const struct db_query dbq_result_claim_many[3] = {
	{ "result_claim_1", NULL, CLAIM_SQL("?"), "iiiiii" "i" },
	{ "result_claim_4", NULL, CLAIM_SQL(Q4), "iiiiii" "iiii" },
	{ "result_claim_32", NULL, CLAIM_SQL(Q32), "iiiiii" I32 },
};
#define LEASE_SQL(in) "UPDATE result SET lease_until=? WHERE id IN (" in ") AND server_state=2"
const struct db_query dbq_result_lease[3] = {
	{ "result_lease_1", NULL, LEASE_SQL("?"), "i" "i" },
	{ "result_lease_4", NULL, LEASE_SQL(Q4), "i" "iiii" },
	{ "result_lease_32", NULL, LEASE_SQL(Q32), "i" I32 },
};
const struct db_query dbq_wu_touch_each[3] = {
	{ "wu_touch_1", NULL, TOUCH_SQL("WHEN ? THEN ? ", "?"), "ii" "i" },
	{ "wu_touch_4", NULL, TOUCH_SQL(W4, Q4), I8 "iiii" },
	{ "wu_touch_32", NULL, TOUCH_SQL(W4 W4 W4 W4 W4 W4 W4 W4, Q32), I32 I32 I32 },
};

/* Which of the widths 1, 4, DB_SEQ_BATCH holds n (-1: none, logged). */
static int list_width(size_t n, size_t *width)
{
	static const size_t widths[] = { 1, 4, DB_SEQ_BATCH };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(widths) && widths[k] < n; k++)
		;
	if (n < 1 || k == ARRAY_SIZE(widths))
		return log_error("database error: a list of %zu results", n);
	*width = widths[k];
	return (int)k;
}

/* The list_width() of n ids, with v[0..width) the ids padded with the first. */
static int id_list(struct db_val *v, const int64_t *ids, size_t n, size_t *width)
{
	int k = list_width(n, width);
	size_t i;

	for (i = 0; k >= 0 && i < *width; i++)
		v[i] = DBV_INT(ids[i < n ? i : 0]);
	return k;
}

#define S32 "ssssssssssssssssssssssssssssssss"
const struct db_query dbq_result_by_names[3] = {
	{ "result_by_names_1", &db_result_table, "WHERE name IN (?)", "s" },
	{ "result_by_names_4", &db_result_table, "WHERE name IN (" Q4 ")", "ssss" },
	{ "result_by_names_32", &db_result_table, "WHERE name IN (" Q32 ")", S32 },
};

const struct db_query dbq_seq_file_by_names[3] = {
	{ "seq_file_by_names_1", &db_seq_file_table, "WHERE name IN (?)", "s" },
	{ "seq_file_by_names_4", &db_seq_file_table, "WHERE name IN (" Q4 ")", "ssss" },
	{ "seq_file_by_names_32", &db_seq_file_table, "WHERE name IN (" Q32 ")", S32 },
};

/* The list_width() of n names, with v[0..width) the names padded with the first. */
static int name_list(struct db_val *v, const char *const *names, size_t n, size_t *width)
{
	int k = list_width(n, width);
	size_t i;

	for (i = 0; k >= 0 && i < *width; i++)
		v[i] = DBV_STR(names[i < n ? i : 0]);
	return k;
}

int db_result_enum_names(struct db *db, const char *const *names, size_t n,
			 int (*fn)(struct db_result *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];
	size_t width;
	int k = name_list(v, names, n, &width);

	return k < 0 ? DB_ERROR : db_result_query(db, &dbq_result_by_names[k], v, width, fn, arg);
}

int db_seq_file_enum_names(struct db *db, const char *const *names, size_t n,
			   int (*fn)(struct db_seq_file *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];
	size_t width;
	int k = name_list(v, names, n, &width);

	return k < 0 ? DB_ERROR : db_seq_file_query(db, &dbq_seq_file_by_names[k], v, width, fn, arg);
}

/*
 * The workunits of candidates the scheduler read, of which the host has no
 * result yet: one statement instead of a lookup and a count per candidate.
 * An anti-join through res_wuid, a few index entries a workunit: NOT
 * EXISTS was planned as the host's every result put in a temporary table
 * (MariaDB's exists_to_in), whose cost grows with what the host ever ran.
 */
#define WU_FOR_HOST_SQL(in) \
	"LEFT JOIN result r FORCE INDEX (res_wuid) ON r.workunitid=workunit.id AND " \
	"(r.hostid=? OR r.userid=?) " \
	"WHERE workunit.id IN (" in ") AND r.id IS NULL"
const struct db_query dbq_wu_for_host[3] = {
	{ "wu_for_host_1", &db_workunit_joined, WU_FOR_HOST_SQL("?"), "ii" "i" },
	{ "wu_for_host_4", &db_workunit_joined, WU_FOR_HOST_SQL(Q4), "ii" "iiii" },
	{ "wu_for_host_32", &db_workunit_joined, WU_FOR_HOST_SQL(Q32), "ii" I32 },
};

int db_workunit_enum_for_host(struct db *db, const int64_t *ids, size_t n, int64_t hostid,
			      int64_t userid, int (*fn)(struct db_workunit *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH + 2] = { DBV_INT(hostid), DBV_INT(userid) };
	size_t width;
	int k = id_list(v + 2, ids, n, &width);

	if (k < 0)
		return DB_ERROR;
	return db_workunit_query(db, &dbq_wu_for_host[k], v, width + 2, fn, arg);
}

/* What the measured speed of a host's reported jobs needs of their workunits (sched_hav.c). */
static const struct db_column wu_fpops_cols[] = {
	{ "id", DB_T_I64, offsetof(struct db_wu_fpops, id), DB_COL_ID },
	{ "rsc_fpops_est", DB_T_DOUBLE, offsetof(struct db_wu_fpops, rsc_fpops_est), 0 },
};
const struct db_table db_wu_fpops_table = {
	"workunit", sizeof(struct db_wu_fpops), wu_fpops_cols, ARRAY_SIZE(wu_fpops_cols), false
};
const struct db_query dbq_wu_fpops[3] = {
	{ "wu_fpops_1", &db_wu_fpops_table, "WHERE id IN (?)", "i" },
	{ "wu_fpops_4", &db_wu_fpops_table, "WHERE id IN (" Q4 ")", "iiii" },
	{ "wu_fpops_32", &db_wu_fpops_table, "WHERE id IN (" Q32 ")", I32 },
};

int db_workunit_enum_fpops(struct db *db, const int64_t *ids, size_t n,
			   int (*fn)(struct db_wu_fpops *, void *), void *arg)
{
	struct db_val v[DB_SEQ_BATCH];
	size_t width;
	int k = id_list(v, ids, n, &width);

	if (k < 0)
		return DB_ERROR;
	return db_query_rows(db, &dbq_wu_fpops[k], v, width, (db_row_fn)fn, arg);
}

int db_result_claim_many(struct db *db, const int64_t *ids, size_t n, int64_t hostid,
			 int64_t userid, int64_t t, int64_t deadline, int64_t av_id, int av_num,
			 int64_t *matched)
{
	struct db_val v[6 + DB_SEQ_BATCH] = {
		DBV_INT(hostid), DBV_INT(userid), DBV_INT(t), DBV_INT(deadline), DBV_INT(av_id),
		DBV_INT(av_num),
	};
	size_t width;
	int k = id_list(v + 6, ids, n, &width);

	if (k < 0)
		return DB_ERROR;
	return db_query_exec(db, &dbq_result_claim_many[k], v, 6 + width, matched);
}

int db_result_lease(struct db *db, const int64_t *ids, size_t n, int64_t until)
{
	struct db_val v[1 + DB_SEQ_BATCH] = { DBV_INT(until) };
	size_t width;
	int k = id_list(v + 1, ids, n, &width);

	if (k < 0)
		return DB_ERROR;
	return db_query_exec(db, &dbq_result_lease[k], v, 1 + width, NULL);
}

int db_workunit_touch_each(struct db *db, const int64_t *ids, const int64_t *times, size_t n)
{
	struct db_val v[3 * DB_SEQ_BATCH];
	size_t width, i;
	int k = list_width(n, &width);

	if (k < 0)
		return DB_ERROR;
	for (i = 0; i < width; i++) {
		v[2 * i] = DBV_INT(ids[i < n ? i : 0]);
		v[2 * i + 1] = DBV_INT(times[i < n ? i : 0]);
		v[2 * width + i] = DBV_INT(ids[i < n ? i : 0]);
	}
	return db_query_exec(db, &dbq_wu_touch_each[k], v, 3 * width, NULL);
}

/*
 * Reports of many results of one host in one statement: each column's
 * value picked by the row's id (CASE), the lists 4 or 32 wide, padded with
 * the first report (one report alone is dbq_result_report).
 */
#define RW4(t) "WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? "
#define RW32(t) RW4(t) RW4(t) RW4(t) RW4(t) RW4(t) RW4(t) RW4(t) RW4(t)
#define RCOL(c, W) c "=CASE id " W(0) "END, "
#define REPORT_MANY_SQL(W, in) \
	"UPDATE result SET server_state=5, " RCOL("outcome", W) RCOL("client_state", W) \
	RCOL("exit_status", W) RCOL("cpu_time", W) RCOL("elapsed_time", W) \
	RCOL("received_time", W) RCOL("stderr_out", W) RCOL("xml_doc_out", W) \
	RCOL("app_version_num", W) RCOL("peak_working_set_size", W) RCOL("peak_swap_size", W) \
	RCOL("peak_disk_usage", W) "validate_state=0, file_delete_state=0 " \
	"WHERE id IN (" in ") AND hostid=? AND (server_state=4 OR (server_state=5 AND outcome=4))"
#define P4(x) x x x x
#define P32(x) P4(x) P4(x) P4(x) P4(x) P4(x) P4(x) P4(x) P4(x)
#define REPORT_MANY_TYPES(P) \
	P("ii") P("ii") P("ii") P("id") P("id") P("ii") P("is") P("is") P("ii") P("id") P("id") \
	P("id") P("i") "i"
const struct db_query dbq_result_report_many[2] = {
	{ "result_report_4", NULL, REPORT_MANY_SQL(RW4, Q4), REPORT_MANY_TYPES(P4) },
	{ "result_report_32", NULL, REPORT_MANY_SQL(RW32, Q32), REPORT_MANY_TYPES(P32) },
};

int db_result_report_many(struct db *db, const struct db_result_report *r, size_t n,
			  int64_t *matched)
{
	struct db_val v[12 * 2 * DB_SEQ_BATCH + DB_SEQ_BATCH + 1];
	size_t width, i, c, k = 0;
	int w = list_width(n, &width);

	*matched = 0;
	if (w < 0)
		return DB_ERROR;
	if (width == 1) {
		int rc = db_result_report(db, r);

		*matched = rc == DB_OK;
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	}
	for (c = 0; c < 12; c++) {
		for (i = 0; i < width; i++) {
			const struct db_result_report *p = &r[i < n ? i : 0];
			struct db_val col[12] = {
				DBV_INT(p->outcome), DBV_INT(p->client_state), DBV_INT(p->exit_status),
				DBV_DBL(p->cpu_time), DBV_DBL(p->elapsed_time), DBV_INT(p->received_time),
				DBV_STR(p->stderr_out), DBV_STR(p->xml_doc_out), DBV_INT(p->app_version_num),
				DBV_DBL(p->peak_working_set_size), DBV_DBL(p->peak_swap_size),
				DBV_DBL(p->peak_disk_usage),
			};

			v[k++] = DBV_INT(p->id);
			v[k++] = col[c];
		}
	}
	for (i = 0; i < width; i++)
		v[k++] = DBV_INT(r[i < n ? i : 0].id);
	v[k++] = DBV_INT(r[0].hostid);
	return db_query_exec(db, &dbq_result_report_many[w - 1], v, k, matched);
}
