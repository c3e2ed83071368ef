/*
 * The scheduler policy: who is asking (authenticator → user, hostid → host),
 * what they report (results → database, each acknowledged), and what they
 * get (sched_send.c). Every refusal is a normal reply with a message the
 * client shows and a request_delay -- never an HTTP error.
 */
#include "sched_policy.h"
#include "sched_hav.h"
#include "db_sched.h"
#include "db_account.h"
#include "account.h"
#include "account_mail.h"
#include "passwd.h"
#include "field.h"
#include "filelist.h"
#include "log.h"
#include "wtime.h"
#include "xml_write.h"

#include <openssl/crypto.h>

#define S(name, field, def, lo, hi, arg, help) \
	{ name, PARAM_INT, offsetof(struct sched_settings, field), def, PARAM_BOUNDED, lo, hi, arg, help }

const struct param sched_params[] = {
	S("sched_max_request_bytes", max_request_bytes, "16000000", 1000, 1e9, "N",
	  "largest scheduler request accepted"),
	S("next_rpc_delay", next_rpc_delay, "0", 0, 1e7, "S", "ask clients to contact the scheduler again after S seconds"),
	S("sched_error_delay", error_delay, "3600", 0, 1e7, "S", "request_delay after a refused request"),
	S("sched_down_delay", down_delay, "600", 0, 1e7, "S", "request_delay while the database is unavailable"),
	S("max_wus_in_progress", max_wus_in_progress, "0", 0, 1e6, "N",
	  "most CPU jobs in progress per CPU of a host (0: no limit)"),
	S("max_wus_in_progress_gpu", max_wus_in_progress_gpu, "0", 0, 1e6, "N",
	  "most GPU jobs in progress per GPU of a host (0: no limit)"),
	{ "gpu_multiplier", PARAM_DOUBLE, offsetof(struct sched_settings, gpu_multiplier), "1",
	  PARAM_BOUNDED, 0, 1000, "F",
	  "in the daily quota a host's GPU counts as F CPUs (upstream's gpu_multiplier)" },
	S("sched_candidates", candidates, "200", 1, 1e5, "N", "unsent results examined per request"),
	S("sched_claim_ahead", claim_ahead, "32", 0, 1000, "N",
	  "unsent results a FastCGI scheduler process claims ahead at most when it runs out, half "
	  "a second of its sending (0: none; doc/scheduler.md)"),
	S("sched_claim_ahead_min", claim_ahead_min, "0", 0, 1000, "N",
	  "and at least (up to sched_claim_ahead)"),
	S("sched_claim_ahead_lease", claim_ahead_lease, "5", 3, 3600, "S",
	  "a result claimed ahead is held this long: others take it after, or before when they "
	  "have no other work"),
	S("max_sequences_per_host", seqs_per_host, "1", 0, 1000, "N",
	  "work sequences a host holds at once (0: none)"),
	S("max_sequences_per_cpu", seqs_per_cpu, "0", 0, 1000, "N",
	  "if set, a host holds N work sequences per CPU instead"),
	S("max_sequences_per_gpu", seqs_per_gpu, "0", 0, 1000, "N",
	  "if set, a host holds N work sequences per GPU (beside max_sequences_per_cpu's)"),
	{ "sequence_share", PARAM_DOUBLE, offsetof(struct sched_settings, sequence_share), "0.5",
	  PARAM_BOUNDED, 0, 1, "F",
	  "sequence segments fill at most this fraction of the work a client asks for; ordinary "
	  "jobs fill the rest" },
	{ "resend_lost_results", PARAM_BOOL, offsetof(struct sched_settings, resend_lost_results), "0",
	  0, 0, 0, NULL,
	  "a job a host's client no longer has (not in its <other_results>) is sent again with a new "
	  "deadline, or, if too late for that, ended as no reply so another host gets it; a lost "
	  "sequence segment relocates the sequence" },
	S("daily_result_quota", daily_result_quota, "0", 0, 1e6, "N",
	  "jobs a host gets a day per CPU (0: no quota); halved on each error, doubled on each "
	  "success up to N again"),
	{ "one_result_per_user_per_wu", PARAM_BOOL,
	  offsetof(struct sched_settings, one_result_per_user), "1", 0, 0, 0, NULL,
	  "never send two results of one workunit, or two sequences of one group, to hosts of "
	  "one account (0: only never to one host)" },
	S("max_sequences_per_user", seqs_per_user, "0", 0, 100000, "N",
	  "work sequences all hosts of one account hold at once (0: as many as one host may)"),
	S("max_ncpus", max_ncpus, "64", 1, 100000, "N",
	  "a host claiming more CPUs counts as N for its quota, jobs in progress and sequences"),
	PARAM_TABLE_END
};

static const char *host_label(const struct sched_ctx *ctx, int64_t hostid, char *buf, size_t n)
{
	snprintf(buf, n, "host %" PRId64 " [%s]", hostid, ctx->remote_addr ? ctx->remote_addr : "?");
	return buf;
}

static void refuse(const struct sched_ctx *ctx, struct sched_reply *reply, const char *priority,
		   const char *msg)
{
	sched_reply_message(reply, priority, "%s", msg);
	reply->request_delay = (double)ctx->set->error_delay;
}

void sched_reply_refused(const struct sched_ctx *ctx, const char *why, struct sbuf *out)
{
	struct sched_reply reply;

	sched_reply_init(&reply);
	reply.project_name = ctx->cfg->long_name;
	refuse(ctx, &reply, "low", why);
	sched_reply_write(&reply, out);
	sched_reply_release(&reply);
}

/*
 * The same machine as host h? (upstream's obviously_different, inverted):
 * a client that lost its host id but sends a known host_cpid is the same
 * machine unless its hardware says otherwise.
 */
static bool same_machine(const struct db_host *h, const struct db_host *req)
{
	double x = req->m_nbytes > 0 ? h->m_nbytes / req->m_nbytes : 1;

	return h->p_ncpus == (req->p_ncpus ? req->p_ncpus : 1) &&
	       !strcmp(h->p_vendor ? h->p_vendor : "", req->p_vendor ? req->p_vendor : "") &&
	       !strcmp(h->p_model ? h->p_model : "", req->p_model ? req->p_model : "") &&
	       !strcmp(h->os_name ? h->os_name : "", req->os_name ? req->os_name : "") &&
	       x >= 0.9 && x <= 1.1;
}

/*
 * Find the host the request speaks for: by its host id, or -- when it has
 * none the account owns (a client detached and attached again, or lost its
 * state) -- by the user's host with its host_cpid, as upstream does, so one
 * machine does not become many hosts (each holding sequences). Otherwise a
 * new host, inserted. A host id the client did not send goes into the
 * reply. A host found is read locked and updated in memory; *existing
 * tells the caller to write it (once, after the reports).
 */
static int identify_host(const struct sched_ctx *ctx, const struct sched_request *req,
			 const struct db_user *user, struct db_host *host, struct sched_reply *reply,
			 bool *existing)
{
	int rc = DB_NOT_FOUND;
	char lbl[96];
	bool locked = false;

	if (req->hostid > 0) {
		/* read locked: credit the validator grants meanwhile is not written over */
		rc = db_host_lock(ctx->db, req->hostid, host);
		locked = rc == DB_OK && host->userid == user->id;
		if (rc == DB_OK && host->userid != user->id) {
			log_warn("%s: hostid belongs to another account; not using it",
				 host_label(ctx, req->hostid, lbl, sizeof(lbl)));
			rc = DB_NOT_FOUND;
		} else if (rc == DB_NOT_FOUND) {
			log_warn("%s: unknown hostid", host_label(ctx, req->hostid, lbl, sizeof(lbl)));
		}
	}
	if (rc == DB_NOT_FOUND && req->host.host_cpid && *req->host.host_cpid) {
		rc = db_host_lookup_cpid(ctx->db, user->id, req->host.host_cpid, host);
		if (rc == DB_OK && !same_machine(host, &req->host)) {
			log_info("%s: has the request's host_cpid but other hardware; a new host",
				 host_label(ctx, host->id, lbl, sizeof(lbl)));
			rc = DB_NOT_FOUND;
		} else if (rc == DB_OK) {
			log_info("%s: request without its host id, found by its host_cpid",
				 host_label(ctx, host->id, lbl, sizeof(lbl)));
			reply->hostid = host->id;
		}
	}
	/* found by its host_cpid: the row again, locked */
	if (rc == DB_OK && !locked)
		rc = db_host_lock(ctx->db, host->id, host);
	if (rc == DB_ERROR || rc == DB_RETRY)
		return rc;
	if (rc == DB_OK) {
		sched_host_copy_figures(host, &req->host);
		host->rpc_seqno = req->rpc_seqno;
		if (sched_day(host->rpc_time) != sched_day(now()))
			host->nresults_today = 0;       /* a new day: the daily quota starts again */
		host->rpc_time = now();
		free(host->external_ip_addr);
		host->external_ip_addr = xstrdup(ctx->remote_addr ? ctx->remote_addr : "");
		*existing = true;       /* written after the reports: one UPDATE for both */
		return DB_OK;
	}
	db_host_release(host);
	memset(host, 0, sizeof(*host));
	sched_host_copy_figures(host, &req->host);
	host->userid = user->id;
	host->create_time = host->rpc_time = now();
	host->rpc_seqno = 0;
	host->duration_correction_factor = 1;
	host->venue = xstrdup(user->venue ? user->venue : "");    /* the account's default venue */
	host->external_ip_addr = xstrdup(ctx->remote_addr ? ctx->remote_addr : "");
	rc = db_host_insert(ctx->db, host);
	if (rc == DB_OK) {
		reply->hostid = host->id;
		log_info("%s: new host for user %" PRId64 " (%s, %d CPUs)",
			 host_label(ctx, host->id, lbl, sizeof(lbl)), user->id, host->domain_name,
			 host->p_ncpus);
	}
	return rc;
}

/*
 * The files of report rr that are result res's own uploaded outputs (its
 * xml_doc_in names them with an upload URL), and their <file_info>s for
 * xml_doc_out. Any other name -- another result's output, another
 * sequence's state, a download file -- is ignored and logged: a host's
 * report never acts on what is not the result's.
 */
static void own_outputs(const char *lbl, const struct db_result *res,
			const struct sched_result_report *rr, struct sched_outputs *own,
			struct sbuf *doc)
{
	struct db_result in = *res;
	struct job_filelist outs = { NULL, 0 };
	size_t i, j;

	in.xml_doc_out = NULL;
	memset(own, 0, sizeof(*own));
	if (rr->nfiles && filelist_result_outputs(&in, &outs) < 0)
		log_error("%s: result %s: cannot read its outputs; its report names none", lbl, res->name);
	for (i = 0; i < rr->nfiles; i++) {
		const struct sched_file_report *f = &rr->files[i];
		struct sbuf q = SBUF_INIT(512);

		for (j = 0; j < outs.n && (strcmp(outs.f[j].name, f->name) || !outs.f[j].upload); j++)
			;
		for (size_t k = 0; j < outs.n && k < own->n; k++)
			if (!strcmp(own->f[k]->name, f->name))
				j = outs.n;     /* named twice: the first counts */
		if (j == outs.n) {
			field_quote(&q, f->name, 100);
			log_warn("%s: result %s reported file '%s', which is not one of its uploaded "
				 "outputs; ignored", lbl, res->name, sbuf_str(&q));
			sbuf_release(&q);
			continue;
		}
		ARRAY_GROW(own->f, own->n);
		own->f[own->n++] = f;
		sbuf_addstr(doc, "<file_info>\n    <name>");
		xml_add_text(doc, f->name);
		sbuf_addf(doc, "</name>\n    <nbytes>%.0f</nbytes>\n    <max_nbytes>%.0f</max_nbytes>\n"
			  "    <md5_cksum>%s</md5_cksum>\n</file_info>\n", f->nbytes, f->max_nbytes,
			  f->md5_cksum);
	}
	filelist_release(&outs);
}

/* A report about to be recorded: what the result row gets, and what it names. */
struct report {
	const struct db_result *res;
	const struct sched_result_report *rr;
	struct db_result_report rep;
	struct sched_outputs own;
	struct sbuf doc;                /* rep.xml_doc_out */
	bool ok;
};

/* What report r of result res (sent to this host) records. */
static void report_prepare(const char *lbl, const struct db_host *host, const struct db_result *res,
			   const struct sched_result_report *rr, struct report *r)
{
	memset(r, 0, sizeof(*r));
	r->res = res;
	r->rr = rr;
	r->ok = rr->state == RESULT_FILES_UPLOADED && rr->exit_status == 0;
	sbuf_init(&r->doc, 1 << 20);
	own_outputs(lbl, res, rr, &r->own, &r->doc);
	r->rep.id = res->id;
	r->rep.hostid = host->id;
	r->rep.outcome = r->ok ? RESULT_OUTCOME_SUCCESS : RESULT_OUTCOME_CLIENT_ERROR;
	r->rep.client_state = rr->state;
	r->rep.exit_status = rr->exit_status;
	r->rep.app_version_num = rr->app_version_num;
	r->rep.cpu_time = rr->final_cpu_time;
	r->rep.elapsed_time = rr->final_elapsed_time;
	r->rep.peak_working_set_size = rr->peak_working_set_size;
	r->rep.peak_swap_size = rr->peak_swap_size;
	r->rep.peak_disk_usage = rr->peak_disk_usage;
	r->rep.received_time = now();
	r->rep.stderr_out = rr->stderr_out ? rr->stderr_out : "";
	r->rep.xml_doc_out = sbuf_str(&r->doc);
}

static void report_release(struct report *r)
{
	free(r->own.f);
	sbuf_release(&r->doc);
}

/*
 * What follows a report recorded: the host's quota and turnaround (in the
 * host row the RPC writes at its end), the sequence's next step, the
 * workunit's transition time, a success's measured speed or an error's
 * count against its version's reliability (in hav, written after the
 * reports).
 */
static int report_recorded(const struct sched_ctx *ctx, const char *lbl, struct db_host *host,
			   struct report *r, struct sched_reply *reply, struct sched_hav *hav)
{
	const struct db_result *res = r->res;
	int rc = DB_OK;

	if (r->ok)
		sched_hav_add(hav, res, r->rep.elapsed_time);
	else
		sched_hav_error(hav, res, res->sent_time > 0 && r->rep.received_time >= res->sent_time ?
				(double)(r->rep.received_time - res->sent_time) : -1.0);

	/* only a report recorded counts: one sent twice is not a second error */
	sched_quota_report(ctx, lbl, host, r->ok);
	if (r->ok && res->sent_time > 0 && r->rep.received_time >= res->sent_time) {
		double t = (double)(r->rep.received_time - res->sent_time);

		host->avg_turnaround = host->avg_turnaround > 0 ?
				       0.7 * host->avg_turnaround + 0.3 * t : t;
	}
	if (res->seq_id)
		rc = sched_seq_reported(ctx, res, r->rr, &r->own, r->ok);
	log_info("%s: result %s reported: %s (state %d, exit %d)", lbl, res->name,
		 r->ok ? "success" : "error", r->rr->state, r->rr->exit_status);
	sched_reply_touch(reply, res->workunitid, now());
	return rc;
}

/*
 * Can a report of res be recorded (db_result_report's condition): in
 * progress, or timed out -- a late report is still welcome.
 */
static bool reportable(const struct db_result *res)
{
	return res->server_state == RESULT_SERVER_STATE_IN_PROGRESS ||
	       (res->server_state == RESULT_SERVER_STATE_OVER &&
		res->outcome == RESULT_OUTCOME_NO_REPLY);
}

/*
 * Record the reports of ordinary jobs r[0..n), DB_SEQ_BATCH a statement.
 * Each was reportable when read; if one no longer is (the transitioner
 * moved it meanwhile), DB_RETRY: the RPC runs again and reads it anew.
 */
static int record_batch(const struct sched_ctx *ctx, const char *lbl, struct db_host *host,
			struct report *r, size_t n, struct sched_reply *reply, struct sched_hav *hav)
{
	struct db_result_report rep[DB_SEQ_BATCH];
	size_t i, k;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < n; i += k) {
		int64_t matched = 0;

		for (k = 0; k < DB_SEQ_BATCH && i + k < n; k++)
			rep[k] = r[i + k].rep;
		rc = db_result_report_many(ctx->db, rep, k, &matched);
		if (rc == DB_OK && matched != (int64_t)k) {
			log_info("%s: %" PRId64 " of %zu reports could be recorded; reading them again",
				 lbl, matched, k);
			rc = DB_RETRY;
		}
	}
	for (i = 0; rc == DB_OK && i < n; i++)
		rc = report_recorded(ctx, lbl, host, &r[i], reply, hav);
	return rc;
}

static bool may_be_result(const char *name)
{
	return *name && strlen(name) <= FIELD_COLUMN_CHARS * 4;
}

/*
 * The results the request reports, read DB_SEQ_BATCH names a statement
 * (not one statement each: a host reporting ten jobs made ten).
 */
static int read_reported(const struct sched_ctx *ctx, const struct sched_request *req,
			 struct db_result_list *f)
{
	const char *names[DB_SEQ_BATCH];
	size_t i, n = 0;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < req->nresults; i++) {
		if (may_be_result(req->results[i].name))
			names[n++] = req->results[i].name;
		if (n > 0 && (n == DB_SEQ_BATCH || i + 1 == req->nresults)) {
			rc = db_result_enum_names(ctx->db, names, n, db_result_list_take, f);
			n = 0;
		}
	}
	return rc;
}

/*
 * The transition times the RPC moves (sched_reply_touch), DB_SEQ_BATCH
 * workunits a statement: written once, at its end.
 */
static int write_touches(const struct sched_ctx *ctx, const struct sched_reply *reply)
{
	int64_t ids[DB_SEQ_BATCH], times[DB_SEQ_BATCH];
	size_t i, n = 0;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < reply->ntouches; i++) {
		ids[n] = reply->touches[i].wuid;
		times[n++] = reply->touches[i].t;
		if (n == DB_SEQ_BATCH || i + 1 == reply->ntouches) {
			rc = db_workunit_touch_each(ctx->db, ids, times, n);
			n = 0;
		}
	}
	return rc;
}

/*
 * Record the reported results; every one is acknowledged, recorded or not.
 * Ordinary jobs' reports are recorded together (record_batch); a sequence
 * segment's at once, in the order reported, since each may move its
 * sequence on.
 */
static int handle_results(const struct sched_ctx *ctx, const struct sched_request *req,
			  struct db_host *host, struct sched_reply *reply)
{
	struct db_result_list f = { NULL, 0 };
	struct report *batch = xcalloc(req->nresults + 1, sizeof(*batch));
	struct sched_hav hav = { NULL, 0 };
	size_t i, j, nbatch = 0;
	char lbl[96];
	int rc = read_reported(ctx, req, &f);

	host_label(ctx, host->id, lbl, sizeof(lbl));
	for (i = 0; rc == DB_OK && i < req->nresults; i++) {
		const struct sched_result_report *rr = &req->results[i];
		struct sbuf q = SBUF_INIT(512);

		field_quote(&q, rr->name, 100);
		for (j = 0; may_be_result(rr->name) && j < f.n && strcmp(f.v[j].name, rr->name); j++)
			;
		if (!may_be_result(rr->name) || j == f.n) {
			log_warn("%s: reported result '%s' does not exist", lbl, sbuf_str(&q));
		} else if (f.v[j].hostid != host->id) {
			log_warn("%s: reported result %s, which was not sent to it; ignored", lbl,
				 sbuf_str(&q));
		} else if (!reportable(&f.v[j]) || sched_reply_acked(reply, rr->name)) {
			log_warn("%s: result %s reported again (or not in progress); ignored", lbl,
				 sbuf_str(&q));
		} else if (!f.v[j].seq_id) {
			report_prepare(lbl, host, &f.v[j], rr, &batch[nbatch++]);
		} else {
			struct report one;

			report_prepare(lbl, host, &f.v[j], rr, &one);
			rc = db_result_report(ctx->db, &one.rep);
			if (rc == DB_OK)
				rc = report_recorded(ctx, lbl, host, &one, reply, &hav);
			else if (rc == DB_NOT_FOUND)
				rc = DB_RETRY;  /* reportable when read: moved meanwhile */
			report_release(&one);
		}
		sbuf_release(&q);
		if (rc == DB_OK && *rr->name)
			sched_reply_add(&reply->acks, &reply->nacks, rr->name);
	}
	if (rc == DB_OK && nbatch)
		rc = record_batch(ctx, lbl, host, batch, nbatch, reply, &hav);
	if (rc == DB_OK)
		rc = sched_hav_record(ctx, lbl, host->id, &hav);
	sched_hav_release(&hav);
	for (i = 0; i < nbatch; i++)
		report_release(&batch[i]);
	free(batch);
	db_result_list_release(&f);
	return rc;
}

/*
 * The host's work, in the RPC's transaction: a segment is activated, its
 * sequence advanced and its job put into the reply together, or none of
 * it. DB_ERROR when it fails: handle_db() then runs the RPC again without
 * sending work -- the reports stand, and work not sent is no error the
 * client must see (it asks again later). DB_RETRY when the whole
 * transaction is gone (a lost connection): the RPC runs again.
 */
static int send_work(const struct sched_ctx *ctx, const struct sched_request *req,
		     const struct db_host *host, struct sched_apps *apps, struct sched_reply *reply)
{
	/* the versions the host can use: now if it asks for work, else only if its sequences need them */
	int rc = sched_any_rsc_wants(req, reply) ? sched_usable(ctx, req, host, apps, reply) : DB_OK;

	if (rc == DB_OK)
		rc = sched_resend_lost(ctx, req, host, apps, reply);
	if (rc == DB_OK)
		rc = sched_send_assigned(ctx, req, host, apps, reply);
	if (rc == DB_OK)
		rc = sched_seq_work(ctx, req, host, apps, reply);
	if (rc == DB_OK)
		rc = sched_send_work(ctx, req, host, apps, reply);
	return rc;
}

/*
 * The account of the request's authenticator: the account key itself, or
 * a weak authenticator "<userid>_<md5(key + stored password hash)>" (which
 * account managers hand out; it stops working when the password changes).
 * *weak tells which.
 */
static int find_user(const struct sched_ctx *ctx, const char *auth, struct db_user *user,
		     bool *weak)
{
	const char *us = strchr(auth, '_');
	char want[33];
	int64_t id;
	int rc;

	*weak = false;
	rc = db_user_lookup_auth(ctx->db, auth, user);
	if (rc != DB_NOT_FOUND || !us || strlen(us + 1) != 32)
		return rc;
	{
		char *num = xstrndup(auth, (size_t)(us - auth));
		int ok = field_int64("userid", num, 1, INT64_MAX, 0, &id, NULL);

		free(num);
		if (ok != FIELD_OK)
			return DB_NOT_FOUND;
	}
	rc = db_user_lookup_id(ctx->db, id, user);
	if (rc != DB_OK)
		return rc;
	passwd_hash_of(user->authenticator, user->passwd_hash ? user->passwd_hash : "", want);
	if (CRYPTO_memcmp(want, us + 1, 32) != 0)
		return DB_NOT_FOUND;
	*weak = true;
	return DB_OK;
}

static char *dup0(const char *s)
{
	return xstrdup(s ? s : "");
}

/* What the reply says about the account, its host and its team. */
static int describe_account(const struct sched_ctx *ctx, const struct db_user *user,
			    const struct db_host *host, struct sched_reply_account *a)
{
	struct db_team t = { 0 };
	int rc = DB_OK;

	a->known = true;
	a->userid = user->id;
	a->user_name = dup0(user->name);
	a->user_total_credit = user->total_credit;
	a->user_expavg_credit = user->expavg_credit;
	a->user_create_time = user->create_time;
	a->cross_project_id = dup0(user->cross_project_id);
	account_email_hash(user, a->email_hash);
	account_external_cpid(user, a->external_cpid);
	account_rss_auth(user->id, user->authenticator, a->rss_auth);
	a->project_prefs = dup0(user->project_prefs);
	a->host_total_credit = host->total_credit;
	a->host_expavg_credit = host->expavg_credit;
	a->host_create_time = host->create_time;
	a->host_venue = dup0(host->venue);
	if (user->teamid > 0) {
		rc = db_team_lookup_id(ctx->db, user->teamid, &t);
		if (rc == DB_OK) {
			a->teamid = t.id;
			a->team_name = dup0(t.name);
		} else if (rc == DB_NOT_FOUND) {
			rc = DB_OK;
		}
	}
	db_team_release(&t);
	return rc;
}

/*
 * The client sends the cross-project id it chose for this e-mail address
 * (the earliest any project gave it); take it, so stats sites see one id
 * across projects -- but not from a weak authenticator's holder.
 */
static int adopt_cpid(const struct sched_ctx *ctx, const struct sched_request *req,
		      struct db_user *user, bool weak)
{
	const char *c = req->cross_project_id;

	if (weak || !c || !passwd_hash_ok(c) || !strcmp(c, user->cross_project_id))
		return DB_OK;
	free(user->cross_project_id);
	user->cross_project_id = xstrdup(c);
	return db_user_set_cpid(ctx->db, user->id, c);
}

/* Undo what an attempt of handle_db() put into the reply, to run it again. */
static void reply_back_to_start(struct sched_reply *reply, struct sched_reply_mark mark)
{
	sched_reply_back_to(reply, mark);
	reply->usable_known = false;    /* the apps may be read again: worked out again */
	reply->hostid = 0;
	free(reply->account.user_name);
	free(reply->account.cross_project_id);
	free(reply->account.project_prefs);
	free(reply->account.host_venue);
	free(reply->account.team_name);
	free(reply->account.global_prefs);
	memset(&reply->account, 0, sizeof(reply->account));
	prefs_project_release(&reply->prefs);
	reply->others_ok = false;
	while (reply->nacks)
		free(reply->acks[--reply->nacks]);
}

/*
 * Everything that needs the database, as one transaction with one commit:
 * the account, the host, the reports, the work sent. Run again (up to
 * three times) when it was lost: a broken connection, a deadlock's victim;
 * or when sending work failed: then without sending any.
 */
static int handle_db(const struct sched_ctx *ctx, const struct sched_request *req,
		     struct sched_apps *apps, struct sched_reply *reply, bool *known_user)
{
	struct sched_reply_mark mark = sched_reply_mark(reply);
	struct db_user user = { 0 };
	struct db_host host = { 0 };
	bool weak = false, send = false, existing = false, send_failed = false;
	int rc, attempt;

	for (attempt = 0; attempt < 3 + send_failed; attempt++) {
		db_user_release(&user);
		db_host_release(&host);
		memset(&user, 0, sizeof(user));
		memset(&host, 0, sizeof(host));
		existing = false;
		/* the RPC's transaction begins here (db_set_implicit_transactions) or at db_begin */
		rc = find_user(ctx, req->authenticator, &user, &weak);
		if (rc != DB_OK)
			break;
		*known_user = true;
		send = !req->dont_send_work && !send_failed;
		if (send && !ctx->upload_key && !ctx->cfg->ignore_upload_certificates) {
			/* work sent now could never be uploaded: the handler needs its certificates */
			log_error("no work sent: the upload key (%s/upload_private) cannot be read, so "
				  "outputs would have no upload certificates", ctx->cfg->key_dir);
			send = false;
		}
		rc = send ? sched_apps_get(ctx->db, ctx->cfg->project_dir, apps) : DB_OK;
		if (rc == DB_OK)
			rc = db_begin(ctx->db);
		if (rc == DB_OK)
			rc = identify_host(ctx, req, &user, &host, reply, &existing);
		if (rc == DB_OK)
			rc = handle_results(ctx, req, &host, reply);
		if (rc == DB_OK)
			rc = adopt_cpid(ctx, req, &user, weak);
		if (rc == DB_OK)
			rc = describe_account(ctx, &user, &host, &reply->account);
		if (rc == DB_OK)
			sched_prefs_read(&user, &host, reply);
		if (rc == DB_OK)
			rc = sched_global_prefs(ctx, req, &user, weak, reply);
		if (rc == DB_OK && send) {
			rc = send_work(ctx, req, &host, apps, reply);
			if (rc == DB_ERROR && !db_deadlock(ctx->db)) {
				log_error("host %" PRId64 ": sending work failed, nothing sent: %s",
					  host.id, db_error(ctx->db));
				send_failed = true;
				rc = DB_RETRY;  /* the reports again, without sending */
			}
		}
		/* the host row once, after the work: its jobs count against the daily quota */
		if (rc == DB_OK && reply->njobs > 0)
			host.nresults_today += (int)reply->njobs;
		if (rc == DB_OK)
			rc = write_touches(ctx, reply);
		if (rc == DB_OK && (existing || reply->njobs > 0))
			rc = db_host_update(ctx->db, &host);
		if (rc == DB_OK)
			rc = db_commit(ctx->db);
		else if (db_in_transaction(ctx->db))
			db_rollback(ctx->db);
		if (ctx->pool)
			sched_pool_end(ctx->pool, rc == DB_OK, now());
		/* InnoDB rolled a deadlock's victim back whole: it may simply run again */
		if (rc == DB_ERROR && db_deadlock(ctx->db))
			rc = DB_RETRY;
		if (rc != DB_RETRY)
			break;
		/* The transaction was rolled back: start the reply over. */
		log_info("host %" PRId64 ": the transaction was lost; running it again", host.id);
		reply_back_to_start(reply, mark);
	}
	if (rc == DB_NOT_FOUND) {
		log_warn("[%s]: unknown authenticator", ctx->remote_addr ? ctx->remote_addr : "?");
		refuse(ctx, reply, "notice",
		       "Invalid or missing account key. To fix, remove and add this project.");
		rc = DB_OK;
	}
	if (rc != DB_OK)
		reply_back_to_start(reply, mark);
	db_user_release(&user);
	db_host_release(&host);
	return rc;
}

int sched_handle(const struct sched_ctx *ctx, const char *buf, size_t len, struct sbuf *out)
{
	int rc = DB_OK;
	struct sched_request req;
	struct sched_reply reply;
	struct sched_apps own = { 0 };      /* the reply's jobs point into the apps */
	struct sched_apps *apps = ctx->apps ? ctx->apps : &own;
	struct sbuf err = SBUF_INIT(2048);
	bool known_user = false;

	sched_reply_init(&reply);
	reply.project_name = ctx->cfg->long_name;
	reply.upload_key = ctx->upload_key;
	if (sched_request_parse(buf, len, &req, &err) < 0) {
		log_warn("[%s]: bad request: %s", ctx->remote_addr ? ctx->remote_addr : "?", sbuf_str(&err));
		refuse(ctx, &reply, "low", "The project could not read the scheduler request.");
	} else if (!ctx->db) {
		reply.project_is_down = true;
		reply.request_delay = (double)ctx->set->down_delay;
		sched_reply_message(&reply, "low", "The project is temporarily unavailable.");
	} else if ((rc = handle_db(ctx, &req, apps, &reply, &known_user)) != DB_OK) {
		log_error("host %" PRId64 " [%s]: database error: %s", req.hostid,
			  ctx->remote_addr ? ctx->remote_addr : "?", db_error(ctx->db));
		sched_reply_release(&reply);
		sched_reply_init(&reply);
		reply.project_name = ctx->cfg->long_name;
		reply.project_is_down = true;
		reply.request_delay = (double)ctx->set->down_delay;
		sched_reply_message(&reply, "low", "The project is temporarily unavailable.");
	} else if (known_user) {
		if (req.notes && *req.notes) {
			log_warn("host %" PRId64 " [%s]: request corrected: %s", req.hostid,
				 ctx->remote_addr ? ctx->remote_addr : "?", req.notes);
			sched_reply_message(&reply, "low", "The project corrected fields of the "
					    "scheduler request: %s", req.notes);
		}
		if (!req.has_code_sign_key)
			reply.code_sign_key = ctx->code_sign_key;
		if (ctx->set->next_rpc_delay > 0)
			reply.next_rpc_delay = (double)ctx->set->next_rpc_delay;
		sched_reply_gui_urls(&reply, ctx->cfg, reply.hostid ? reply.hostid : req.hostid);
	}
	if (sched_reply_write(&reply, out) < 0) {
		log_error("host %" PRId64 ": reply too large", req.hostid);
		sbuf_reset(out);
		sched_reply_release(&reply);
		sched_reply_init(&reply);
		reply.request_delay = (double)ctx->set->error_delay;
		sched_reply_write(&reply, out);
	}
	sched_request_release(&req);
	sched_reply_release(&reply);
	sched_apps_release(&own);
	sbuf_release(&err);
	return rc;
}
