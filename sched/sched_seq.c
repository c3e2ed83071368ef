/*
 * Work sequences in the scheduler (doc/sequences-design.md): every RPC the
 * host's sticky files are checked against the sequences assigned to it --
 * files of sequences it no longer holds (ended, relocated, dead branches,
 * states no segment needs any more) are deleted and their segments aborted;
 * a sequence whose state the host lost is taken from it -- then its
 * segments are topped up to the high-water mark, and a host without a
 * sequence may get an unassigned one it is fast enough for.
 */
#include "sched_policy.h"
#include "db_sched.h"
#include "dirhier.h"
#include "log.h"
#include "sequence.h"
#include "wtime.h"

#include <sys/stat.h>

/* The sequences assigned to the host, and its in-progress segments. */
struct host_seqs {
	struct db_sequence *s;
	size_t n;
	struct db_result *inprog;       /* this host's in-progress segment results */
	size_t ninprog;
};

static int take_seq(struct db_sequence *r, void *arg)
{
	struct host_seqs *h = arg;
	struct db_rows rows = DB_ROWS(h->s, h->n, 0);

	return db_rows_take(r, &rows);
}

static int take_inprog(struct db_result *r, void *arg)
{
	struct host_seqs *h = arg;
	struct db_rows rows = DB_ROWS(h->inprog, h->ninprog, 0);

	return r->seq_id ? db_rows_take(r, &rows) : 0;
}

static void host_seqs_release(struct host_seqs *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		db_sequence_release(&h->s[i]);
	for (i = 0; i < h->ninprog; i++)
		db_result_release(&h->inprog[i]);
	free(h->s);
	free(h->inprog);
}

static struct db_sequence *held(struct host_seqs *h, int64_t seq_id)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->s[i].id == seq_id)
			return &h->s[i];
	return NULL;
}

/* Branch and seqno of a segment result of s from its name "S_b<b>_s<k>_0"; -1 if not one. */
static int segment_of(const struct db_sequence *s, const char *result_name, int *branch)
{
	size_t n = strlen(s->name);
	int b, k, end = 0;

	if (strncmp(result_name, s->name, n) != 0 ||
	    sscanf(result_name + n, "_b%d_s%d_0%n", &b, &k, &end) != 2 || result_name[n + (size_t)end])
		return -1;
	*branch = b;
	return k;
}

/* Lowest seqno of the host's in-progress segments of s on its live branch (0: none). */
static int lowest_in_progress(const struct host_seqs *h, const struct db_sequence *s, int *count)
{
	size_t i;
	int low = 0, b, k;

	*count = 0;
	for (i = 0; i < h->ninprog; i++) {
		if (h->inprog[i].seq_id != s->id)
			continue;
		k = segment_of(s, h->inprog[i].name, &b);
		if (k < 0 || b != s->branch)
			continue;
		(*count)++;
		if (!low || k < low)
			low = k;
	}
	return low;
}

static void abort_segments(struct host_seqs *h, int64_t seq_id, struct sched_reply *reply)
{
	size_t i;

	for (i = 0; i < h->ninprog; i++)
		if (h->inprog[i].seq_id == seq_id)
			sched_reply_add(&reply->aborts, &reply->naborts, h->inprog[i].name);
}

static bool sticky_present(const struct sched_request *req, const char *name)
{
	size_t i;

	for (i = 0; i < req->nsticky; i++)
		if (!strcmp(req->sticky[i].name, name))
			return req->sticky[i].status == 1;
	return false;
}

/*
 * Sticky files: keep only what a held sequence still needs. A state file is
 * needed if it is on the live branch and no older than the input of the
 * host's oldest segment in flight (or of the next segment to send).
 */
struct sticky_arg {
	struct host_seqs *h;
	struct sched_reply *reply;
};

/* One of the host's sticky files that is a sequence file (the others are not ours to judge). */
static int check_one_sticky(struct db_seq_file *f, void *arg)
{
	struct sticky_arg *a = arg;
	struct db_sequence *s = held(a->h, f->seq_id);
	bool keep = false;

	if (s && f->branch == s->branch) {
		struct seq_view v;
		int n, low = lowest_in_progress(a->h, s, &n);

		seq_view_of(s, &v);
		keep = f->seqno >= seq_policy_oldest_needed_state(&v, low);
	}
	if (!keep)
		sched_reply_add(&a->reply->delete_files, &a->reply->ndelete_files, f->name);
	return 0;
}

/* The sticky files' rows, DB_SEQ_BATCH names a statement. */
static int check_sticky(const struct sched_ctx *ctx, const struct sched_request *req,
			struct host_seqs *h, struct sched_reply *reply)
{
	struct sticky_arg a = { h, reply };
	const char *names[DB_SEQ_BATCH];
	size_t i, n = 0;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < req->nsticky; i++) {
		names[n++] = req->sticky[i].name;
		if (n == DB_SEQ_BATCH || i + 1 == req->nsticky) {
			rc = db_seq_file_enum_names(ctx->db, names, n, check_one_sticky, &a);
			n = 0;
		}
	}
	return rc;
}

/* A segment's state files: how many, how many the host lists, how many are on the server. */
struct seg_states {
	const struct sched_request *req;        /* NULL: do not look at the host's files */
	size_t n, present;
};

static int count_states(struct db_seq_file *f, void *arg)
{
	struct seg_states *st = arg;

	if (f->kind != SEQ_FILE_STATE)
		return 0;
	st->n++;
	if (st->req && sticky_present(st->req, f->name))
		st->present++;
	return 0;
}

/* The result called name among the host's segments in progress, or NULL. */
static const struct db_result *in_progress(const struct host_seqs *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->ninprog; i++)
		if (!strcmp(h->inprog[i].name, name))
			return &h->inprog[i];
	return NULL;
}

/*
 * Did the host lose a state its next segment reads? That segment's row is
 * one of the host's in progress (read already), or read now.
 */
static int state_lost(const struct sched_ctx *ctx, const struct sched_request *req,
		      const struct db_host *host, const struct host_seqs *h,
		      const struct db_sequence *s, bool *lost)
{
	int need = s->first_unsent_seqno - 1, rc = DB_OK;
	char *rname;
	const struct db_result *known;
	struct db_result r = { 0 };

	*lost = false;
	if (need < 1)
		return DB_OK;
	rname = xasprintf("%s_b%d_s%d_0", s->name, s->branch, need);
	known = in_progress(h, rname);
	if (!known)
		rc = db_result_lookup_name(ctx->db, rname, &r);
	if (rc == DB_OK) {
		struct seg_states st = { req, 0, 0 };
		struct seq_view v;
		struct seg_view prev;

		seq_view_of(s, &v);
		seg_view_of(known ? known : &r, need, s->branch, &prev);
		/* the files are looked at only if the segment could have left any here */
		if (seq_policy_state_lost(&v, &prev, host->id, 1, 0))
			rc = db_seq_file_enum_segment(ctx->db, s->id, s->branch, need, count_states,
						      &st);
		*lost = rc == DB_OK && seq_policy_state_lost(&v, &prev, host->id, st.n, st.present);
	}
	db_result_release(&r);
	free(rname);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

/*
 * resend_lost_results: a segment of seq_id in progress on the host that its
 * client no longer lists. Its state went with it: the sequence moves on
 * from the last safe point elsewhere, never resent to the same host.
 */
static bool segment_lost(const struct sched_ctx *ctx, const struct sched_request *req,
			 const struct host_seqs *h, int64_t seq_id)
{
	bool *listed = xcalloc(h->ninprog + 1, sizeof(*listed)), lost;
	size_t i, n = 0;

	for (i = 0; i < h->ninprog; i++)
		if (h->inprog[i].seq_id == seq_id)
			listed[n++] = sched_client_has(req, h->inprog[i].name);
	lost = seq_policy_segment_lost(ctx->set->resend_lost_results, req->has_other, listed, n);
	free(listed);
	return lost;
}

/*
 * The resource s runs on at this host: that of its segment in progress here
 * or of one the request reports; -1 if neither (a new sequence, or none
 * here now) -- the sequence stays on one device type while it is here.
 */
static int sequence_rsc(const struct sched_request *req, const struct sched_reply *reply,
			const struct host_seqs *h, const struct db_sequence *s)
{
	const struct sched_bav *b;
	size_t i;
	int branch;

	for (i = 0; i < h->ninprog; i++)
		if (h->inprog[i].seq_id == s->id &&
		    (b = sched_usable_by_id(reply, h->inprog[i].app_version_id)))
			return b->u.rsc;
	for (i = 0; i < req->nresults; i++) {
		const struct sched_result_report *rr = &req->results[i];

		if (segment_of(s, rr->name, &branch) < 0)
			continue;
		for (b = reply->usable; b < reply->usable + reply->nusable; b++)
			if (b->av->appid == s->appid && b->av->version_num == rr->app_version_num &&
			    !strcmp(b->av->plan_class ? b->av->plan_class : "",
				    rr->plan_class ? rr->plan_class : ""))
				return b->u.rsc;
	}
	return -1;
}

/*
 * Adaptive replication of a sequence: a segment cannot be replicated (its
 * state is on the host), so segment k of an untrusted host, or a spot
 * check, is verified by the validator's check before the sequence builds
 * on it: segment k + 1 waits until k is VALID. True: k + 1 may go now.
 */
static bool segment_verified(const struct sched_ctx *ctx, const struct db_host *host,
			     const struct db_app *app, const struct sched_bav *bav,
			     const struct db_sequence *s)
{
	struct db_workunit one = { .target_nresults = 1, .min_quorum = 1 };
	int k = s->first_unsent_seqno - 1;
	enum sched_ar d;
	struct db_result r = { 0 };
	char *name;
	bool ok;
	int rc;

	if (k < 1)
		return true;
	d = sched_ar_decide(app, bav, &one, sched_ar_segment_draw(s->id, s->branch, k));
	if (d == SCHED_AR_OFF || d == SCHED_AR_SINGLE)
		return true;
	name = xasprintf("%s_b%d_s%d_0", s->name, s->branch, k);
	/*
	 * not on this branch (a relocated branch starts further on): the
	 * relocator judged it; a database error sends nothing unverified
	 */
	rc = db_result_lookup_name(ctx->db, name, &r);
	ok = rc == DB_NOT_FOUND || (rc == DB_OK && r.validate_state == VALIDATE_STATE_VALID);
	if (!ok)
		log_info("host %" PRId64 ": sequence %s segment %d waits for segment %d to be "
			 "valid (%s)", host->id, s->name, k + 1, k, sched_ar_name(d));
	db_result_release(&r);
	free(name);
	return ok;
}

/*
 * Send segments of s until high_water are in flight on the host, as the
 * best version on the sequence's resource here; a sequence not yet running
 * here starts on a resource the request wants work for if it can.
 */
static int top_up(const struct sched_ctx *ctx, const struct sched_request *req,
		  const struct db_host *host, const struct sched_apps *apps,
		  struct host_seqs *h, struct db_sequence *s, struct sched_reply *reply)
{
	const struct db_app *app = sched_app_by_id(apps, s->appid);
	int rsc = sequence_rsc(req, reply, h, s);
	const struct sched_bav *bav;
	struct seq_view v;
	int inflight, rc = DB_OK, *send;
	size_t i, nsend;

	lowest_in_progress(h, s, &inflight);
	bav = app ? sched_choose(req, reply, s->appid, NULL, rsc >= 0 ? rsc : SCHED_RSC_WANTED) : NULL;
	if (!bav && app && inflight == 0)
		bav = sched_choose(req, reply, s->appid, NULL, rsc >= 0 ? rsc : SCHED_RSC_ANY);
	if (!bav)
		return DB_OK;
	seq_view_of(s, &v);
	send = xcalloc(s->high_water > 0 ? (size_t)s->high_water : 1, sizeof(*send));
	nsend = seq_policy_segments_to_send(&v, inflight, send,
					    s->high_water > 0 ? (size_t)s->high_water : 0);
	for (i = 0; rc == DB_OK && i < nsend && segment_verified(ctx, host, app, bav, s); i++) {
		struct db_result r = { 0 };
		struct db_workunit wu = { 0 };
		char *rname = xasprintf("%s_b%d_s%d_0", s->name, s->branch, s->first_unsent_seqno);

		rc = db_result_lookup_name(ctx->db, rname, &r);
		if (rc == DB_NOT_FOUND && s->first_unsent_seqno > 1) {
			/* a relocated branch grows as it is sent (the relocator made its first) */
			int m = seq_make_following(ctx->db, ctx->cfg, s, s->first_unsent_seqno,
						   s->first_unsent_seqno);

			rc = m == 0 ? DB_OK : m == DB_RETRY ? DB_RETRY : DB_ERROR;
			if (rc == DB_OK)
				rc = db_result_lookup_name(ctx->db, rname, &r);
		}
		if (rc == DB_OK)
			rc = db_workunit_lookup_id(ctx->db, r.workunitid, &wu);
		if (rc == DB_OK)
			rc = sched_exec_check(ctx, app, &wu);
		if (rc == DB_OK) {
			sched_result_assign(host, bav, &wu, &r);
			rc = db_result_activate(ctx->db, &r);
		}
		if (rc == DB_OK)
			rc = db_sequence_advance(ctx->db, s->id, host->id, s->first_unsent_seqno,
						 s->first_unsent_seqno + 1);
		if (rc == DB_OK)
			rc = sched_job_append(app, bav, &r, &wu, reply, true);
		if (rc == DB_OK) {
			log_info("host %" PRId64 ": sequence %s segment %d sent", host->id, s->name,
				 s->first_unsent_seqno);
			s->first_unsent_seqno++;
		} else if (rc == DB_NOT_FOUND) {
			log_warn("host %" PRId64 ": sequence %s segment %d cannot be sent (%s)", host->id,
				 s->name, s->first_unsent_seqno, rname);
		}
		db_result_release(&r);
		db_workunit_release(&wu);
		free(rname);
	}
	free(send);
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

/* The host as the sequence policy sees it; its speed that of flops (0: its benchmark). */
static void host_view_of(const struct sched_ctx *ctx, const struct db_host *host, double flops,
			 struct host_view *hv)
{
	*hv = (struct host_view){ host->id, flops > 0 ? flops : host->p_fpops,
				  host->avg_turnaround, sched_host_ncpus(ctx, host), 0,
				  sched_host_ngpus(ctx, host) };
}

/*
 * May the host take s (seq_policy_may_take, with its past failures of s
 * from the database)? h: what the host holds; user: what all its user's
 * hosts hold (one_result_per_user_per_wu: no two of a group in one account,
 * at once or one after the other).
 */
static int may_take(const struct sched_ctx *ctx, const struct db_host *host, double flops,
		    const struct host_seqs *h, const struct host_seqs *user,
		    const struct db_sequence *s, bool *ok)
{
	size_t nu = ctx->set->one_result_per_user ? user->n : 0, n = h->n + nu, i;
	struct seq_view v, *held = xcalloc(n + 1, sizeof(*held));
	struct host_view hv;
	int64_t failed = 0, ran = 0;
	int rc = DB_OK;

	host_view_of(ctx, host, flops, &hv);
	seq_view_of(s, &v);
	for (i = 0; i < h->n; i++)
		seq_view_of(&h->s[i], &held[i]);
	for (i = 0; i < nu; i++)
		seq_view_of(&user->s[i], &held[h->n + i]);
	/* the failures are counted only if nothing else rules s out */
	*ok = seq_policy_may_take(&hv, &v, held, n);
	if (*ok) {
		rc = db_result_seq_host_failed(ctx->db, s->id, host->id, s->max_result_time,
					       &failed);
		hv.failures = failed > 1000 ? 1000 : (int)failed;
		*ok = rc == DB_OK && seq_policy_may_take(&hv, &v, held, n);
	}
	/* nor a member of a group another member of which the user ran, even one ended */
	if (*ok && s->groupid && ctx->set->one_result_per_user) {
		rc = db_result_group_user(ctx->db, s->groupid, s->id, host->userid, &ran);
		*ok = rc == DB_OK && ran == 0;
	}
	free(held);
	return rc;
}

/*
 * Whether the host has the memory and free disk a sequence needs. The first
 * time an RPC finds it has not, say so (*told): without the line, a host
 * that gets no sequence for want of disk looks like a scheduler fault.
 */
static bool seq_fits(const struct db_host *host, const struct db_sequence *s, bool *told)
{
	if (sched_host_fits(host, s->rsc_memory_bound, s->rsc_disk_bound))
		return true;
	if (!*told)
		log_info("host %" PRId64 ": sequence %s needs %.0f MB of memory and %.0f MB of "
			 "disk; the host has %.0f MB and %.0f MB free", host->id, s->name,
			 s->rsc_memory_bound / 1e6, s->rsc_disk_bound / 1e6,
			 host->m_nbytes / 1e6, host->d_free / 1e6);
	*told = true;
	return false;
}

/*
 * Unassigned sequences the host can finish segments of in time, up to its
 * allowance and its user's (max_sequences_per_user; by default one host's:
 * made-up host_cpids gain nothing).
 */
static int assign_new(const struct sched_ctx *ctx, const struct sched_request *req,
		      const struct db_host *host, const struct sched_apps *apps,
		      struct host_seqs *h, struct sched_reply *reply)
{
	struct host_seqs cand = { 0 }, user = { 0 };
	struct host_view hv;
	size_t i, want, user_want, nuser;
	bool told = false;
	int rc;

	host_view_of(ctx, host, 0, &hv);
	want = seq_policy_allowance(&hv, ctx->set->seqs_per_host, ctx->set->seqs_per_cpu,
				    ctx->set->seqs_per_gpu);
	user_want = ctx->set->seqs_per_user > 0 ? (size_t)ctx->set->seqs_per_user : want;

	/* a host over its daily quota takes no new sequence (the ones it holds go on) */
	if (h->n >= want || sched_quota_left(ctx, host, 0) <= 0)
		return DB_OK;
	/* the free ones first: most RPCs find none and need not count the user's */
	rc = db_sequence_enum_unassigned(ctx->db, 20, take_seq, &cand);
	if (rc == DB_OK && cand.n > 0)
		rc = db_sequence_enum_user(ctx->db, host->userid, take_seq, &user);
	nuser = user.n;
	if (rc == DB_OK && cand.n > 0 && nuser >= user_want)
		log_info("host %" PRId64 ": its user holds %zu sequences, the most an account may",
			 host->id, nuser);
	if (rc == DB_OK && cand.n > 0 && nuser < user_want)
		rc = sched_usable(ctx, req, host, apps, reply);
	for (i = 0; rc == DB_OK && i < cand.n && h->n < want && nuser < user_want; i++) {
		struct db_sequence *s = &cand.s[i];
		/* judged by the speed of its app's best version here (none: not for this host) */
		double flops = sched_app_flops(req, reply, s->appid);
		bool ok;

		if (flops <= 0 || !seq_fits(host, s, &told))
			continue;
		rc = may_take(ctx, host, flops, h, &user, s, &ok);
		if (rc != DB_OK || !ok)
			continue;
		rc = db_sequence_assign(ctx->db, s->id, host->id, now(), s->first_unsent_seqno);
		if (rc == DB_NOT_FOUND) {
			rc = DB_OK;     /* another host was quicker */
			continue;
		}
		if (rc == DB_OK) {
			log_info("host %" PRId64 ": assigned sequence %s", host->id, s->name);
			s->hostid = host->id;
			take_seq(s, h);
			nuser++;
		}
	}
	host_seqs_release(&cand);
	host_seqs_release(&user);
	return rc;
}

struct others {
	const struct db_host *host;
	struct host_seqs *h;
	struct sched_reply *reply;
};

static int abort_other(struct db_result *r, void *arg)
{
	struct others *o = arg;

	if (r->seq_id && (r->server_state != RESULT_SERVER_STATE_IN_PROGRESS ||
			  r->hostid != o->host->id || !held(o->h, r->seq_id)))
		sched_reply_add(&o->reply->aborts, &o->reply->naborts, r->name);
	return 0;
}

/*
 * Segments the client still has (other_results) that are no longer its to
 * run -- retired by a relocation, or of a sequence it lost -- are aborted.
 * Those in progress on this host are known already (h->inprog); the others
 * are read DB_SEQ_BATCH names a statement.
 */
static int abort_others(const struct sched_ctx *ctx, const struct sched_request *req,
			const struct db_host *host, struct host_seqs *h, struct sched_reply *reply)
{
	struct others o = { host, h, reply };
	const char *names[DB_SEQ_BATCH];
	size_t i, j, n = 0;
	int rc = DB_OK;

	for (i = 0; rc == DB_OK && i < req->nother; i++) {
		const char *name = req->other[i].name;

		for (j = 0; name && j < h->ninprog; j++)
			if (!strcmp(h->inprog[j].name, name))
				break;
		if (!name)
			continue;
		if (j < h->ninprog) {
			if (!held(h, h->inprog[j].seq_id))
				sched_reply_add(&reply->aborts, &reply->naborts, name);
			continue;
		}
		names[n++] = name;
		if (n == DB_SEQ_BATCH) {
			rc = db_result_enum_names(ctx->db, names, n, abort_other, &o);
			n = 0;
		}
	}
	if (rc == DB_OK && n > 0)
		rc = db_result_enum_names(ctx->db, names, n, abort_other, &o);
	return rc;
}

int sched_seq_work(const struct sched_ctx *ctx, const struct sched_request *req,
		   const struct db_host *host, const struct sched_apps *apps,
		   struct sched_reply *reply)
{
	struct host_seqs h = { 0 };
	size_t i;
	int rc;

	/* a project that never made a sequence has none to read (sched_apps_get asks) */
	if (!apps->have_sequences)
		return DB_OK;
	rc = db_sequence_enum_host(ctx->db, host->id, take_seq, &h);
	if (rc == DB_OK)
		rc = db_result_enum_host_seq_in_progress(ctx->db, host->id, take_inprog, &h);
	for (i = 0; rc == DB_OK && i < h.n; i++) {
		bool lost = false;

		rc = state_lost(ctx, req, host, &h, &h.s[i], &lost);
		if (rc == DB_OK && !lost && segment_lost(ctx, req, &h, h.s[i].id)) {
			log_warn("host %" PRId64 ": lost a segment of sequence %s; it will be relocated",
				 host->id, h.s[i].name);
			lost = true;
		} else if (rc == DB_OK && lost) {
			log_warn("host %" PRId64 ": lost the state of sequence %s; it will be relocated",
				 host->id, h.s[i].name);
		}
		if (rc == DB_OK && lost) {
			rc = db_sequence_deassign(ctx->db, h.s[i].id, host->id, SEQ_RELOCATE_ERROR);
			if (rc == DB_OK || rc == DB_NOT_FOUND) {
				abort_segments(&h, h.s[i].id, reply);
				h.s[i].id = -1;         /* no longer held: its files go too */
				rc = DB_OK;
			}
		}
	}
	/* Segments of sequences the host no longer holds (ended, taken away): abort them. */
	for (i = 0; rc == DB_OK && i < h.ninprog; i++) {
		size_t j;
		bool seen = false;

		for (j = 0; j < i; j++)
			seen = seen || h.inprog[j].seq_id == h.inprog[i].seq_id;
		if (!seen && !held(&h, h.inprog[i].seq_id))
			abort_segments(&h, h.inprog[i].seq_id, reply);
	}
	if (rc == DB_OK)
		rc = abort_others(ctx, req, host, &h, reply);
	if (rc == DB_OK)
		rc = check_sticky(ctx, req, &h, reply);
	if (rc == DB_OK)
		rc = assign_new(ctx, req, host, apps, &h, reply);
	for (i = 0; rc == DB_OK && i < h.n; i++)
		if (h.s[i].id > 0 && (rc = sched_usable(ctx, req, host, apps, reply)) == DB_OK)
			rc = top_up(ctx, req, host, apps, &h, &h.s[i], reply);
	host_seqs_release(&h);
	return rc;
}

/* Is the uploaded file f on the server, with the size the host reports? */
static bool on_server(const struct sched_ctx *ctx, const struct sched_file_report *f)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	struct stat st;
	bool there = dirhier_path(f->name, ctx->cfg->upload_dir, ctx->cfg->uldl_dir_fanout, false,
				  &path) == 0 &&
		     stat(sbuf_str(&path), &st) == 0 && (double)st.st_size == f->nbytes;

	if (!there)
		log_warn("output %s is reported uploaded, but the server has no such file of %.0f bytes",
			 f->name, f->nbytes);
	sbuf_release(&path);
	return there;
}

int sched_seq_reported(const struct sched_ctx *ctx, const struct db_result *res,
		       const struct sched_result_report *rr, const struct sched_outputs *own,
		       bool ok)
{
	struct db_sequence s = { 0 };
	int rc = db_sequence_lookup_id(ctx->db, res->seq_id, &s), branch, k;
	size_t i;

	if (rc != DB_OK) {
		db_sequence_release(&s);
		return rc == DB_NOT_FOUND ? DB_OK : rc;
	}
	k = segment_of(&s, res->name, &branch);
	/* only this segment's own files change, and only those really on the server */
	for (i = 0; rc == DB_OK && ok && k > 0 && i < own->n; i++) {
		if (!on_server(ctx, own->f[i]))
			continue;
		rc = db_seq_file_set_uploaded(ctx->db, s.id, branch, k, own->f[i]->name,
					      own->f[i]->nbytes, own->f[i]->md5_cksum, now());
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	if (s.state != SEQ_STATE_ACTIVE)
		k = -1;         /* ended or failed: a late or aborted segment changes nothing */
	/*
	 * Reported after it timed out: its workunit is closed (no result will be
	 * validated) and the sequence is to be moved from its last state on the
	 * server. It neither ends nor moves the sequence; its files count.
	 */
	if (res->server_state == RESULT_SERVER_STATE_OVER)
		k = -1;
	/* A restart point (its uploads here, the coarser levels' too): relocation can start after k. */
	if (rc == DB_OK && ok && k > 0 && branch == s.branch && own->n) {
		struct seq_view v;
		bool is = false;

		if (seq_view_load(ctx->cfg, &s, &v) == 0)
			rc = seq_restart_check(ctx->db, &s, &v, k, &is);
		if (rc == DB_OK && is)
			rc = db_sequence_state_uploaded(ctx->db, s.id, branch, k);
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	if (rc == DB_OK && k > 0) {
		struct seq_view v;
		struct seg_view g = { k, branch, res->hostid, ok ? SEG_SUCCESS : SEG_ERROR, 0,
				      rr->final_elapsed_time };
		enum seq_reason why;
		enum seq_next next;

		seq_view_of(&s, &v);
		next = seq_policy_after_segment(&v, &g, &why);
		if (next == SEQ_NEXT_RELOCATE && why == SEQ_REASON_SLOW)
			log_warn("sequence %s: segment %d took %.0f s on host %" PRId64 ", more than its "
				 "max_result_time %.0f s; it will be relocated", s.name, k,
				 rr->final_elapsed_time, res->hostid, s.max_result_time);
		else if (next == SEQ_NEXT_RELOCATE)
			log_warn("sequence %s: segment %d failed on host %" PRId64 "; it will be relocated",
				 s.name, k, res->hostid);
		else if (next == SEQ_NEXT_END)
			log_info("sequence %s: last segment %d done", s.name, k);
		if (next == SEQ_NEXT_RELOCATE)
			rc = db_sequence_deassign(ctx->db, s.id, res->hostid, (int)why);
		else if (next == SEQ_NEXT_END)
			rc = db_sequence_end(ctx->db, s.id, branch, SEQ_STATE_ENDED);
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	db_sequence_release(&s);
	return rc;
}
