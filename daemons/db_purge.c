/*
 * db_purge: deletes finished workunits and their results once they are old
 * enough, after writing them to XML archives (purge_archive.c, crash-safe),
 * as upstream BOINC's db_purge does, so the workunit and result tables do
 * not grow for ever. A daemon on the skeleton: run it as a <daemon>, or as
 * a daily <task> with --one_pass.
 *
 * A workunit is finished when its files are deleted (file_delete_state
 * DONE): the transitioner releases them only after assimilation, once
 * every result is over, and for a job of a remote-submission batch only
 * once the batch is retired -- its submitter fetches outputs by job until
 * then. db_purge checks all of it again rather than trust it: it purges a
 * workunit only if it is assimilated, every result is over with no file
 * left to delete, its batch (if any) is retired or aborted, and it last
 * changed --min_age_days ago. The rows of work sequences go only with the
 * whole sequence: when its head says ended (or error), the sequences of
 * its group have ended too, its batch is retired, and every segment of
 * every branch, live or dead, is finished and old enough -- a live
 * sequence's relocation restarts from earlier segments' rows. The head
 * (sequence), its files (seq_file), the group, batches and everything
 * else stay: only workunit and result rows are purged.
 *
 * A batch of workunits (--wus_per_txn, a sequence's segments never split)
 * is archived, then deleted with its results in one transaction.
 */
#include "daemon.h"
#include "db_daemons.h"
#include "db_purge.h"
#include "field.h"
#include "fileutil.h"
#include "log.h"
#include "purge_archive.h"
#include "wtime.h"
#include "xml_write.h"

#include <fcntl.h>
#include <sys/file.h>

struct pg_settings {
	double min_age_days;
	long max;
	long wus_per_txn;
	long max_wu_per_file;
	bool gzip, zlib, zip, no_archive, daily_dir, batch;
	char *archive_dir;
	char *app;
};

static struct pg_settings settings;

#define S(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct pg_settings, field), def, flags, min, max, arg, help }

static const struct param pg_params[] = {
	S("min_age_days", PARAM_DOUBLE, min_age_days, "0", PARAM_BOUNDED, 0, 36500, "X",
	  "purge workunits that last changed at least X days ago (fractions are fine)"),
	S("max", PARAM_INT, max, "0", PARAM_BOUNDED | PARAM_NOCONFIG, 0, 1e12, "N",
	  "purge at most N workunits in this run (0: no limit)"),
	S("wus_per_txn", PARAM_INT, wus_per_txn, "100", PARAM_BOUNDED, 1, 100000, "N",
	  "workunits archived and deleted per transaction (a sequence's segments go together)"),
	S("max_wu_per_file", PARAM_INT, max_wu_per_file, "0", PARAM_BOUNDED, 0, 1e9, "N",
	  "start a new pair of archive files after N workunits (0: one pair per pass)"),
	S("gzip", PARAM_BOOL, gzip, "1", 0, 0, 0, NULL,
	  "compress the archives with gzip, .xml.gz (the default; --gzip=0 writes plain .xml)"),
	S("zlib", PARAM_BOOL, zlib, "0", PARAM_NOCONFIG, 0, 0, NULL, "upstream's name for --gzip"),
	S("zip", PARAM_BOOL, zip, "0", PARAM_NOCONFIG, 0, 0, NULL, "upstream's zip archives: not supported, use --gzip"),
	S("no_archive", PARAM_BOOL, no_archive, "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "delete without writing archives (the rows are lost)"),
	S("daily_dir", PARAM_BOOL, daily_dir, "0", 0, 0, 0, NULL,
	  "put each day's archives in a directory of its own, ARCHIVE_DIR/YYYY_MM_DD (UTC)"),
	S("archive_dir", PARAM_STR, archive_dir, NULL, 0, 0, 0, "DIR",
	  "where the archives go (default: archives/ in the project)"),
	S("app", PARAM_STR, app, NULL, PARAM_NOCONFIG, 0, 0, "NAME", "purge only workunits of this app"),
	S("batch", PARAM_BOOL, batch, "0", PARAM_NOCONFIG, 0, 0, NULL,
	  "upstream's \"only retired batches' jobs\": always so here, accepted for upstream's task lines"),
	PARAM_TABLE_END
};

/* One workunit of the batch and the results it had when archived. */
struct pg_wu {
	int64_t id;
	int64_t *rids;
	size_t nr;
};

struct pg_cache {
	int64_t id;
	bool ok;
};

struct pg_state {
	struct purge_archive *archive;  /* NULL with --no_archive */
	int lock_fd;
	int64_t appid;
	long purged_wu, purged_res;     /* this run */
	/* one pass */
	int64_t cutoff;                 /* mod_time before this: old enough */
	struct pg_cache *batches, *seqs;
	size_t nbatches, nseqs;
	/* one batch */
	struct pg_wu *wus;
	size_t nwu;
	struct sbuf wu_xml, res_xml;
};

static void kill_point(void)
{
	daemon_test_kill_point("WSEQ_TEST_DB_PURGE_KILL");
}

/* ---- the archive records ------------------------------------------------- */

#define XML_MAX (256u << 20)


/* <elem> with every column of the row, by its column name. */
static void xml_record(struct sbuf *b, const char *elem, const struct db_table *t,
		       const void *rec)
{
	const char *base = rec;
	size_t i;

	sbuf_addf(b, "<%s>\n", elem);
	for (i = 0; i < t->ncols; i++) {
		const struct db_column *c = &t->cols[i];
		const void *v = base + c->offset;

		if (c->flags & DB_COL_EXPR)
			continue;
		switch (c->type) {
		case DB_T_INT:
			xml_elem_fmt(b, 2, c->name, "%d", *(const int *)v);
			break;
		case DB_T_I64:
			xml_elem_i64(b, 2, c->name, *(const int64_t *)v);
			break;
		case DB_T_DOUBLE:
			xml_elem_fmt(b, 2, c->name, "%.17g", *(const double *)v);
			break;
		case DB_T_STR:
			xml_elem_str(b, 2, c->name, *(char *const *)v);
			break;
		}
	}
	sbuf_addf(b, "</%s>\n", elem);
}

/* ---- what may go ------------------------------------------------------------- */



static bool cache_find(const struct pg_cache *c, size_t n, int64_t id, bool *ok)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].id == id) {
			*ok = c[i].ok;
			return true;
		}
	return false;
}

static void cache_add(struct pg_cache **c, size_t *n, int64_t id, bool ok)
{
	ARRAY_GROW(*c, *n);
	(*c)[*n].id = id;
	(*c)[(*n)++].ok = ok;
}

/* May jobs of this batch go? Only once its submitter is done with it (retired or aborted). */
static int batch_done(struct daemon_ctx *ctx, int64_t id, bool *ok)
{
	struct pg_state *st = ctx->priv;
	struct db_batch b = { 0 };
	int rc;

	if (!id) {
		*ok = true;
		return 0;
	}
	if (cache_find(st->batches, st->nbatches, id, ok))
		return 0;
	rc = db_batch_lookup_id(ctx->db, id, &b);
	if (rc == DB_ERROR)
		return -1;
	*ok = rc == DB_NOT_FOUND || b.state == BATCH_STATE_RETIRED || b.state == BATCH_STATE_ABORTED;
	db_batch_release(&b);
	cache_add(&st->batches, &st->nbatches, id, *ok);
	return 0;
}

/* Is the workunit finished and old enough, with its results (read into rs) all over? */
static int wu_finished(struct daemon_ctx *ctx, const struct db_workunit *wu,
		       struct db_result_list *rs, bool *ok)
{
	struct pg_state *st = ctx->priv;
	size_t i;

	*ok = wu->file_delete_state == FILE_DELETE_DONE && wu->assimilate_state == ASSIMILATE_DONE &&
	      wu->mod_time < st->cutoff;
	if (!*ok)
		return 0;
	if (db_result_enum_workunit(ctx->db, wu->id, db_result_list_take, rs) != DB_OK)
		return -1;
	for (i = 0; i < rs->n && *ok; i++)
		*ok = rs->v[i].server_state == RESULT_SERVER_STATE_OVER &&
		      rs->v[i].file_delete_state != FILE_DELETE_READY;
	return 0;
}

static void batch_add(struct pg_state *st, const struct db_workunit *wu,
		      const struct db_result_list *rs)
{
	struct pg_wu *w;
	size_t i;

	ARRAY_GROW(st->wus, st->nwu);
	w = &st->wus[st->nwu++];
	w->id = wu->id;
	w->nr = rs->n;
	w->rids = xcalloc(rs->n + 1, sizeof(*w->rids));
	for (i = 0; i < rs->n; i++) {
		w->rids[i] = rs->v[i].id;
		if (st->archive)
			xml_record(&st->res_xml, "result_archive", &db_result_table, &rs->v[i]);
	}
	if (st->archive)
		xml_record(&st->wu_xml, "workunit_archive", &db_workunit_table, wu);
}

static void batch_reset(struct pg_state *st)
{
	size_t i;

	for (i = 0; i < st->nwu; i++)
		free(st->wus[i].rids);
	free(st->wus);
	st->wus = NULL;
	st->nwu = 0;
	sbuf_reset(&st->wu_xml);
	sbuf_reset(&st->res_xml);
}

/* ---- sequences: all or nothing ------------------------------------------------ */

struct pg_segs {
	struct db_workunit *v;
	size_t n;
};

static int take_seg(struct db_workunit *wu, void *arg)
{
	struct pg_segs *s = arg;
	struct db_rows rows = DB_ROWS(s->v, s->n, 0);

	return db_rows_take(wu, &rows);
}

static int seq_member_live(struct db_sequence *s, void *arg)
{
	bool *live = arg;

	if (s->state == SEQ_STATE_ACTIVE)
		*live = true;
	return 0;
}

/* Has the sequence ended, with its group, and is its submitter done with it? */
static int seq_ended(struct daemon_ctx *ctx, int64_t seq_id, bool *ok)
{
	struct db_sequence s = { 0 };
	bool live = false;
	int rc = db_sequence_lookup_id(ctx->db, seq_id, &s);

	*ok = false;
	if (rc == DB_OK && s.state != SEQ_STATE_ACTIVE) {
		if (s.groupid && db_sequence_enum_group(ctx->db, s.groupid, seq_member_live,
							&live) != DB_OK)
			rc = DB_ERROR;
		else if (!live)
			rc = batch_done(ctx, s.batch, ok) < 0 ? DB_ERROR : DB_OK;
	}
	db_sequence_release(&s);
	return rc == DB_ERROR ? -1 : 0;
}

/* Every segment of an ended sequence into the batch, or none; *added tells. */
static int seq_add(struct daemon_ctx *ctx, int64_t seq_id, bool *added)
{
	struct pg_state *st = ctx->priv;
	struct pg_segs segs = { NULL, 0 };
	struct db_result_list *rs = NULL;
	bool ok;
	size_t i;
	int rc = seq_ended(ctx, seq_id, &ok);

	*added = false;
	if (rc == 0 && ok)
		rc = db_purge_enum_segments(ctx->db, seq_id, take_seg, &segs) == DB_OK ? 0 : -1;
	if (rc == 0 && ok && segs.n) {
		rs = xcalloc(segs.n, sizeof(*rs));
		for (i = 0; i < segs.n && rc == 0 && ok; i++)
			rc = wu_finished(ctx, &segs.v[i], &rs[i], &ok);
		for (i = 0; rc == 0 && ok && i < segs.n; i++)
			batch_add(st, &segs.v[i], &rs[i]);
		*added = rc == 0 && ok;
	}
	for (i = 0; i < segs.n; i++) {
		if (rs)
			db_result_list_release(&rs[i]);
		db_workunit_release(&segs.v[i]);
	}
	free(rs);
	free(segs.v);
	cache_add(&st->seqs, &st->nseqs, seq_id, *added);
	return rc;
}

/* Consider one candidate; it (or its whole sequence) may join the batch. */
static int consider(struct daemon_ctx *ctx, struct db_workunit *wu)
{
	struct pg_state *st = ctx->priv;
	struct db_result_list rs = { NULL, 0 };
	bool ok;
	int rc;

	if (!daemon_mod_owns(ctx, wu->id) || (st->appid && wu->appid != st->appid))
		return 0;
	if (wu->seq_id) {
		if (cache_find(st->seqs, st->nseqs, wu->seq_id, &ok))
			return 0;       /* taken with its sequence, or kept with it */
		return seq_add(ctx, wu->seq_id, &ok);
	}
	rc = batch_done(ctx, wu->batch, &ok);
	if (rc == 0 && ok)
		rc = wu_finished(ctx, wu, &rs, &ok);
	if (rc == 0 && ok)
		batch_add(st, wu, &rs);
	db_result_list_release(&rs);
	return rc;
}

/* ---- deleting a batch ------------------------------------------------------------ */

struct pg_rid_check {
	const struct pg_wu *w;
	size_t seen;
	bool same;
};

static int check_result(struct db_result *r, void *arg)
{
	struct pg_rid_check *c = arg;
	size_t i;

	for (i = 0; i < c->w->nr && c->w->rids[i] != r->id; i++)
		;
	if (i == c->w->nr)
		c->same = false;
	c->seen++;
	return 0;
}

/*
 * The transaction: each workunit locked and still finished, its results
 * (locked) the ones archived, then all of them deleted. Anything changed
 * meanwhile: roll back, the batch is settled as not purged.
 */
static int delete_batch(struct db *db, void *arg)
{
	struct pg_state *st = arg;
	int64_t nres = 0, total = 0;
	size_t i;
	int rc = DB_OK;

	for (i = 0; i < st->nwu && rc == DB_OK; i++) {
		const struct pg_wu *w = &st->wus[i];
		struct db_workunit wu = { 0 };
		struct pg_rid_check c = { w, 0, true };

		rc = db_workunit_lock(db, w->id, &wu);
		if (rc == DB_OK && wu.file_delete_state != FILE_DELETE_DONE)
			rc = DB_NOT_FOUND;
		db_workunit_release(&wu);
		if (rc == DB_OK)
			rc = db_result_enum_workunit_lock(db, w->id, check_result, &c);
		if (rc == DB_OK && (!c.same || c.seen != w->nr))
			rc = DB_NOT_FOUND;
		if (rc == DB_OK)
			rc = db_purge_delete_wu(db, w->id, &nres);
		if (rc == DB_NOT_FOUND)
			log_info("[WU#%" PRId64 "] changed since it was chosen: its batch is not "
				 "purged now", w->id);
		total += nres;
	}
	kill_point();
	if (rc == DB_OK)
		st->purged_res += (long)total;
	return rc;
}

/* How many of the workunits are still there (purge_rows_fn). */
static long rows_left(const int64_t *ids, size_t n, void *arg)
{
	struct daemon_ctx *ctx = arg;
	long left = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct db_workunit wu = { 0 };
		int rc = db_workunit_lookup_id(ctx->db, ids[i], &wu);

		db_workunit_release(&wu);
		if (rc == DB_ERROR)
			return log_error("cannot tell whether workunit %" PRId64 " was purged", ids[i]);
		if (rc == DB_OK)
			left++;
	}
	return left;
}

static int purge_batch(struct daemon_ctx *ctx)
{
	struct pg_state *st = ctx->priv;
	long before = st->purged_res;
	int64_t *ids = xcalloc(st->nwu, sizeof(*ids));
	size_t i;
	int rc = 0, txn;

	for (i = 0; i < st->nwu; i++)
		ids[i] = st->wus[i].id;
	if (st->archive)
		rc = purge_archive_append(st->archive, &st->wu_xml, &st->res_xml, ids, st->nwu);
	if (rc == 0) {
		txn = db_txn_run(ctx->db, delete_batch, st);
		kill_point();
		if (st->archive)
			rc = purge_archive_settle(st->archive, rows_left, ctx);
		else if (txn == DB_ERROR)
			rc = -1;
		/* the rows decide: none left, the batch is purged */
		if (rc == 0 && rows_left(ids, st->nwu, ctx) == 0) {
			st->purged_wu += (long)st->nwu;
			log_debug("purged %zu workunits, %ld results", st->nwu, st->purged_res - before);
		} else {
			st->purged_res = before;
		}
		if (rc == 0 && txn == DB_ERROR)
			rc = -1;
	}
	if (rc == 0 && st->archive && settings.max_wu_per_file &&
	    purge_archive_nwu(st->archive) >= settings.max_wu_per_file)
		rc = purge_archive_close(st->archive);
	free(ids);
	batch_reset(st);
	return rc;
}

/* ---- the pass ----------------------------------------------------------------- */

static int take_cand(struct db_workunit *wu, void *arg)
{
	return take_seg(wu, arg);
}

static bool max_reached(const struct pg_state *st)
{
	return settings.max && st->purged_wu >= settings.max;
}

/* One query's candidates into batches; *cursor moves past those looked at. */
static int purge_some(struct daemon_ctx *ctx, int64_t *cursor, bool *more)
{
	struct pg_state *st = ctx->priv;
	struct pg_segs c = { NULL, 0 };
	size_t i;
	int rc = db_purge_enum_candidates(ctx->db, *cursor, st->cutoff, (int)settings.wus_per_txn,
					  take_cand, &c) == DB_OK ? 0 : -1;

	*more = rc == 0 && c.n == (size_t)settings.wus_per_txn;
	for (i = 0; i < c.n && rc == 0; i++) {
		*cursor = c.v[i].id;
		rc = consider(ctx, &c.v[i]);
		if (rc == 0 && st->nwu >= (size_t)settings.wus_per_txn) {
			rc = purge_batch(ctx);
			if (daemon_stopping(ctx) || max_reached(st))
				break;
		}
	}
	if (rc == 0 && st->nwu)
		rc = purge_batch(ctx);
	if (i < c.n)
		*more = true;
	for (i = 0; i < c.n; i++)
		db_workunit_release(&c.v[i]);
	free(c.v);
	batch_reset(st);
	return rc;
}

static int pg_pass(struct daemon_ctx *ctx)
{
	struct pg_state *st = ctx->priv;
	long before = st->purged_wu, res_before = st->purged_res;
	int64_t cursor = 0;
	bool more = true;
	int rc = 0;

	if (max_reached(st))
		return DAEMON_PASS_IDLE;
	/* a batch a failed pass could not settle (the database was gone) is settled first */
	if (st->archive && purge_archive_recover(st->archive, rows_left, ctx) < 0)
		return DAEMON_PASS_ERROR;
	st->cutoff = (int64_t)now() - (int64_t)(settings.min_age_days * 86400.0);
	while (rc == 0 && more && !daemon_stopping(ctx) && !max_reached(st))
		rc = purge_some(ctx, &cursor, &more);
	if (st->archive && purge_archive_close(st->archive) < 0)
		rc = -1;
	free(st->batches);
	free(st->seqs);
	st->batches = st->seqs = NULL;
	st->nbatches = st->nseqs = 0;
	if (st->purged_wu > before)
		log_info("purged %ld workunits and %ld results%s", st->purged_wu - before,
			 st->purged_res - res_before, max_reached(st) ? " (--max reached)" : "");
	if (rc < 0)
		return DAEMON_PASS_ERROR;
	return st->purged_wu > before ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

/* ---- start and end -------------------------------------------------------------- */

static int check_options(struct daemon_ctx *ctx)
{
	if (settings.zip)
		return log_error("--zip is not supported: use --gzip (the default)");
	if (settings.zlib)
		settings.gzip = true;
	if (ctx->mod_n > 1 && !settings.no_archive)
		return log_error("--mod needs --no_archive: instances would share the archive journal");
	if (settings.no_archive && (settings.daily_dir || settings.max_wu_per_file))
		log_warn("--no_archive: --daily_dir and --max_wu_per_file do nothing");
	return 0;
}

/* One db_purge at a time in a project: the others find the lock taken. */
static int take_lock(struct daemon_ctx *ctx, struct pg_state *st)
{
	char *path = xasprintf("%s/db_purge.lock", ctx->cfg->pid_dir);
	int rc = 0;

	if (mkdir_p(ctx->cfg->pid_dir, 0755) < 0) {
		free(path);
		return -1;
	}
	st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (st->lock_fd < 0)
		rc = log_error("cannot open %s: %s", path, strerror(errno));
	else if (flock(st->lock_fd, LOCK_EX | LOCK_NB) < 0)
		rc = log_error("another db_purge is running (%s is locked)", path);
	free(path);
	return rc;
}

static void pg_fini(struct daemon_ctx *ctx)
{
	struct pg_state *st = ctx->priv;

	if (!st)
		return;
	if (st->archive) {
		purge_archive_close(st->archive);
		purge_archive_free(st->archive);
	}
	batch_reset(st);
	sbuf_release(&st->wu_xml);
	sbuf_release(&st->res_xml);
	free(st->batches);
	free(st->seqs);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	free(st);
	ctx->priv = NULL;
}

static int pg_init(struct daemon_ctx *ctx)
{
	struct pg_state *st = xcalloc(1, sizeof(*st));
	char *dir;
	int rc;

	st->lock_fd = -1;
	sbuf_init(&st->wu_xml, XML_MAX);
	sbuf_init(&st->res_xml, XML_MAX);
	ctx->priv = st;
	rc = check_options(ctx);
	if (rc == 0)
		rc = take_lock(ctx, st);
	if (rc == 0 && settings.app && db_app_id(ctx->db, settings.app, &st->appid) != DB_OK)
		rc = -1;
	if (rc == 0 && !settings.no_archive) {
		dir = settings.archive_dir && *settings.archive_dir
			      ? (settings.archive_dir[0] == '/'
					 ? xstrdup(settings.archive_dir)
					 : xasprintf("%s/%s", ctx->cfg->project_dir, settings.archive_dir))
			      : xasprintf("%s/archives", ctx->cfg->project_dir);
		st->archive = purge_archive_new(dir, settings.gzip, settings.daily_dir);
		free(dir);
		rc = purge_archive_recover(st->archive, rows_left, ctx);
	}
	if (rc < 0)
		pg_fini(ctx);
	return rc;
}

static const struct daemon_spec pg_spec = {
	.name = "db_purge",
	.summary = "Archive finished workunits and results older than --min_age_days to XML files\n"
		   "(archives/wu_archive_TIME.xml.gz, result_archive_TIME.xml.gz), then delete\n"
		   "them from the database; sequence heads and every row a live sequence or an\n"
		   "unretired batch needs stay. Crash-safe: killed and run again, every purged\n"
		   "row is in exactly one archive. As a daily task: db_purge --one_pass.",
	.params = pg_params,
	.settings = &settings,
	.needs_db = true,
	.init = pg_init,
	.pass = pg_pass,
	.fini = pg_fini,
};

int main(int argc, char **argv)
{
	return daemon_main(&pg_spec, argc, argv);
}
