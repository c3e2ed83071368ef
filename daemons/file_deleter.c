/*
 * file_deleter: removes the files the transitioner released
 * (file_delete_state READY): a workunit's input files from the download
 * hierarchy and a result's output files from the upload hierarchy, then
 * marks the row DONE (ERROR, logged, when a file could not be removed for a
 * reason other than being gone already). It also removes remote-submission
 * job files whose lease has passed.
 *
 * Input files are shared by many workunits, so an input file stays while
 * any other workunit whose files are not deleted yet uses it. The table
 * wu_file records which live workunit uses which file; this daemon fills it
 * for every workunit not yet indexed (files_indexed=0) before it deletes
 * anything, and drops a workunit's rows with its files. An input file also
 * stays when its file_info says <no_delete/>, and while it is a job file
 * (it then goes with its lease). A job file goes when its delete_time has
 * passed, no batch that is neither ABORTED nor RETIRED (nor left in INIT past
 * its expire_time) refers to it, and no live workunit uses it; and when an app version names it among its files,
 * only its job_file row goes: the file is the project's.
 *
 * Uploaded state versions of work sequences go once no restart can read
 * them, nor the group's comparison, and their segment is assimilated
 * (backend/seq_keep.h): under the heads' row locks -- so a relocation
 * that is reading a version finishes first -- one transaction per batch of
 * sequences marks the superseded versions gone (uploaded=0, READY); then the
 * files are unlinked and the rows marked DONE. Killed at any point, a restart
 * carries on with the READY rows: a row never says uploaded of a file that
 * is gone (an orphan file at worst, removed by a later pass).
 */
#include "daemon.h"
#include "db_daemons.h"
#include "dirhier.h"
#include "filelist.h"
#include "db_sched.h"
#include "db_seq_keep.h"
#include "log.h"
#include "seq_keep.h"
#include "wtime.h"

struct fd_settings {
	long batch;
};

static struct fd_settings settings;

static const struct param fd_params[] = {
	{ "batch", PARAM_INT, offsetof(struct fd_settings, batch), "500", PARAM_BOUNDED, 1, 100000,
	  "N", "rows read per query" },
	PARAM_TABLE_END
};

/* Beside an input file in the download hierarchy: its checksum and compressed copies. */
static const char *const input_suffixes[] = { "", ".md5", ".gz", ".gz.md5" };

struct fd_job {
	const struct daemon_ctx *ctx;
	int64_t id;
	bool not_ready;         /* some workunit is not indexed yet: wait */
};

/* Remove path; 0 if it is gone (or never was), -1 (logged) if it stays. */
static int remove_file(const char *path)
{
	if (unlink(path) == 0) {
		log_debug("deleted %s", path);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	return log_error("cannot delete %s: %s", path, strerror(errno));
}

static int remove_input(const struct project_config *cfg, const char *name)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	int rc = dirhier_path(name, cfg->download_dir, cfg->uldl_dir_fanout, false, &path);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(input_suffixes) && rc == 0; i++) {
		char *p = xasprintf("%s%s", sbuf_str(&path), input_suffixes[i]);

		rc = remove_file(p);
		free(p);
	}
	if (rc == 0)
		log_info("deleted input file %s", name);
	sbuf_release(&path);
	return rc;
}

/* ---- the input file index ---------------------------------------------- */

static int index_wu(struct db *db, void *arg)
{
	struct fd_job *j = arg;
	struct db_workunit wu = { 0 };
	struct job_filelist l = { NULL, 0 };
	size_t i;
	int rc = db_workunit_lock(db, j->id, &wu);

	if (rc != DB_OK || wu.files_indexed)
		goto out;
	/* a workunit whose files are gone already holds on to nothing */
	if (wu.file_delete_state == FILE_DELETE_INIT || wu.file_delete_state == FILE_DELETE_READY) {
		if (filelist_wu_inputs(&wu, &l) < 0)
			log_error("[WU#%" PRId64 " %s] input files unknown: none kept for it", wu.id,
				  wu.name);
		for (i = 0; i < l.n && rc == DB_OK; i++)
			rc = db_wu_file_add(db, l.f[i].name, wu.id);
	}
	if (rc == DB_OK)
		rc = db_workunit_set_indexed(db, wu.id);
out:
	filelist_release(&l);
	db_workunit_release(&wu);
	return rc;
}

static int take_wu_id(struct db_workunit *wu, void *arg)
{
	return db_ids_add(arg, wu->id);
}

/* Index every workunit not indexed yet: 1 when done, 0 when stopped early, -1 on error. */
static int index_all(struct daemon_ctx *ctx, bool *worked)
{
	for (;;) {
		struct db_ids l = { NULL, 0 };
		size_t i;
		int rc = db_workunit_enum_unindexed(ctx->db, (int)settings.batch, take_wu_id, &l);

		for (i = 0; i < l.n && rc == DB_OK; i++) {
			struct fd_job j = { ctx, l.v[i], false };

			if (daemon_stopping(ctx))
				break;
			rc = db_txn_run(ctx->db, index_wu, &j);
			if (rc == DB_NOT_FOUND)
				rc = DB_OK;
			*worked = true;
		}
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (l.n == 0)
			return 1;
		if (daemon_stopping(ctx))
			return 0;
	}
}

/* ---- workunits ----------------------------------------------------------- */

/* Whether this workunit's input file may go now (it is locked for us either way). */
static int input_unused(struct db *db, const struct db_workunit *wu,
			const struct job_fileref *f, bool *unused)
{
	struct db_job_file jf = { 0 };
	int64_t others = 0;
	int rc;

	*unused = false;
	if (f->no_delete)
		return DB_OK;
	rc = db_wu_file_count_others(db, f->name, wu->id, &others);
	if (rc != DB_OK || others > 0)
		return rc;
	rc = db_job_file_lookup_name(db, f->name, &jf);
	db_job_file_release(&jf);
	if (rc == DB_OK)
		return DB_OK;           /* a job file: its lease decides */
	if (rc != DB_NOT_FOUND)
		return rc;
	*unused = true;
	return DB_OK;
}

static int delete_wu_files(struct db *db, void *arg)
{
	struct fd_job *j = arg;
	struct db_workunit wu = { 0 };
	struct job_filelist l = { NULL, 0 };
	bool failed = false;
	size_t i;
	int rc = db_workunit_lock(db, j->id, &wu);

	if (rc == DB_OK && wu.file_delete_state != FILE_DELETE_READY)
		rc = DB_NOT_FOUND;
	if (rc != DB_OK)
		goto out;
	/* a workunit created since the index was brought up to date may share a file */
	rc = db_workunit_any_unindexed(db);
	if (rc == DB_OK) {
		j->not_ready = true;
		rc = DB_NOT_FOUND;
		goto out;
	}
	if (rc != DB_NOT_FOUND)
		goto out;
	rc = DB_OK;
	if (filelist_wu_inputs(&wu, &l) < 0)
		failed = true;
	for (i = 0; i < l.n && rc == DB_OK; i++) {
		bool unused;

		rc = input_unused(db, &wu, &l.f[i], &unused);
		if (rc == DB_OK && unused && remove_input(j->ctx->cfg, l.f[i].name) < 0)
			failed = true;
		else if (rc == DB_OK && !unused)
			log_debug("[WU#%" PRId64 " %s] keeping input file %s", wu.id, wu.name,
				  l.f[i].name);
	}
	if (rc == DB_OK)
		rc = db_wu_file_drop(db, wu.id);
	if (rc == DB_OK) {
		wu.file_delete_state = failed ? FILE_DELETE_ERROR : FILE_DELETE_DONE;
		if (failed)
			log_error("[WU#%" PRId64 " %s] file_delete_state =>ERROR", wu.id, wu.name);
		rc = db_workunit_update_state(db, &wu);
	}
out:
	filelist_release(&l);
	db_workunit_release(&wu);
	return rc;
}

static int delete_wus(struct daemon_ctx *ctx, bool *worked)
{
	int64_t after = 0;

	for (;;) {
		struct db_ids l = { NULL, 0 };
		bool reindex = false;
		size_t i, n;
		int rc = db_workunit_enum_file_delete_mod(ctx->db, ctx->mod_n, ctx->mod_i, after,
							  (int)settings.batch, take_wu_id, &l);

		for (i = 0; i < l.n && rc == DB_OK && !daemon_stopping(ctx); i++) {
			struct fd_job j = { ctx, l.v[i], false };

			rc = db_txn_run(ctx->db, delete_wu_files, &j);
			if (rc == DB_OK)
				*worked = true;
			else if (rc == DB_NOT_FOUND)
				rc = DB_OK;
			if (j.not_ready) {
				reindex = true;
				break;
			}
			after = l.v[i];
		}
		n = l.n;
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (daemon_stopping(ctx))
			return 0;
		if (reindex) {
			/* workunits were created meanwhile: index them, then carry on */
			rc = index_all(ctx, worked);
			if (rc <= 0)
				return rc;
		} else if (n < (size_t)settings.batch) {
			return 0;
		}
	}
}

/* ---- results --------------------------------------------------------------- */

/*
 * A work-sequence segment's state and answer files are recorded in
 * seq_file and live as long as the sequence needs them, not as long as the
 * result: they are left to whoever deletes seq_files.
 */
static int is_seq_file(struct db *db, const struct db_result *r, const char *name, bool *yes)
{
	struct db_seq_file sf = { 0 };
	int rc;

	*yes = false;
	if (!r->seq_id)
		return DB_OK;
	rc = db_seq_file_lookup_name(db, name, &sf);
	db_seq_file_release(&sf);
	if (rc == DB_OK)
		*yes = true;
	return rc == DB_NOT_FOUND ? DB_OK : rc;
}

/* 0 done, 1 failed (ERROR), -1 database error. */
static int delete_result_files(struct daemon_ctx *ctx, const struct db_result *r)
{
	struct job_filelist l;
	bool failed = false;
	size_t i;
	int rc = DB_OK;

	if (filelist_result_outputs(r, &l) < 0)
		return 1;
	for (i = 0; i < l.n && rc == DB_OK; i++) {
		struct sbuf path = SBUF_INIT(PATH_MAX);
		bool keep;

		rc = is_seq_file(ctx->db, r, l.f[i].name, &keep);
		if (rc != DB_OK || keep) {
			sbuf_release(&path);
			continue;
		}
		if (dirhier_path(l.f[i].name, ctx->cfg->upload_dir, ctx->cfg->uldl_dir_fanout, false,
				 &path) < 0 || remove_file(sbuf_str(&path)) < 0)
			failed = true;
		else
			log_debug("[RESULT#%" PRId64 " %s] deleted output file %s", r->id, r->name,
				  l.f[i].name);
		sbuf_release(&path);
	}
	filelist_release(&l);
	if (rc != DB_OK)
		return -1;
	return failed ? 1 : 0;
}

struct rlist {
	struct db_result *v;
	size_t n;
};

static int take_result(struct db_result *r, void *arg)
{
	struct rlist *l = arg;
	struct db_rows rows = DB_ROWS(l->v, l->n, 0);

	return db_rows_take(r, &rows);
}

static int delete_results(struct daemon_ctx *ctx, bool *worked)
{
	int64_t after = 0;

	for (;;) {
		struct rlist l = { NULL, 0 };
		size_t i;
		int rc = db_result_enum_file_delete_mod(ctx->db, ctx->mod_n, ctx->mod_i, after,
							(int)settings.batch, take_result, &l);

		for (i = 0; i < l.n && rc == DB_OK; i++) {
			const struct db_result *r = &l.v[i];
			int d;

			after = r->id;
			if (daemon_stopping(ctx))
				break;
			d = delete_result_files(ctx, r);
			if (d < 0) {
				rc = DB_ERROR;
				break;
			}
			if (d > 0)
				log_error("[RESULT#%" PRId64 " %s] file_delete_state =>ERROR", r->id,
					  r->name);
			rc = db_result_set_file_delete(ctx->db, r->id,
						       d ? FILE_DELETE_ERROR : FILE_DELETE_DONE);
			if (rc == DB_OK)
				*worked = true;
			else if (rc == DB_NOT_FOUND)
				rc = DB_OK;
		}
		for (i = 0; i < l.n; i++)
			db_result_release(&l.v[i]);
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (l.n < (size_t)settings.batch || daemon_stopping(ctx))
			return 0;
	}
}

/* ---- superseded state versions of work sequences ------------------------------ */

/* Tests kill the file deleter between any two steps: WSEQ_TEST_FILE_DELETER_KILL=N. */
#define KILL_POINT() daemon_test_kill_point("WSEQ_TEST_FILE_DELETER_KILL")

struct keep_batch {
	const int64_t *ids;
	size_t n;
	struct db_sequence heads[DB_SEQ_BATCH];
	size_t nheads;
	struct db_seq_file *files;      /* the heads' uploaded state versions */
	size_t nfiles;
	struct db_sequence *members;    /* the members of the heads' groups */
	size_t nmembers;
	struct db_ids marked;
};

DB_ROWS_TAKER(take_version, struct db_seq_file)

static int take_head(struct db_sequence *s, void *arg)
{
	struct keep_batch *b = arg;

	if (b->nheads == DB_SEQ_BATCH)
		return 1;
	b->heads[b->nheads++] = *s;
	memset(s, 0, sizeof(*s));
	return 0;
}

static void keep_batch_clear(struct keep_batch *b)
{
	size_t i;

	for (i = 0; i < b->nheads; i++)
		db_sequence_release(&b->heads[i]);
	for (i = 0; i < b->nfiles; i++)
		db_seq_file_release(&b->files[i]);
	for (i = 0; i < b->nmembers; i++)
		db_sequence_release(&b->members[i]);
	free(b->files);
	free(b->members);
	free(b->marked.v);
	b->files = NULL;
	b->members = NULL;
	b->marked.v = NULL;
	b->nheads = b->nfiles = b->nmembers = b->marked.n = 0;
}

DB_ROWS_TAKER(take_member, struct db_sequence)

/* The members of the heads' groups, whose K holds the heads' back (if any is in a group). */
static int read_members(struct db *db, struct keep_batch *b)
{
	int64_t groups[DB_SEQ_BATCH];
	size_t i, n = 0;
	struct db_rows rows = DB_ROWS(b->members, b->nmembers, 0);

	for (i = 0; i < b->nheads; i++)
		if (b->heads[i].groupid)
			groups[n++] = b->heads[i].groupid;
	return n ? db_seq_keep_members(db, groups, n, take_member, &rows) : DB_OK;
}

/* The superseded versions of head s among f[0..n) (its rows, in order) into b->marked. */
static int pick_superseded(struct keep_batch *b, const struct db_sequence *s,
			   const struct db_seq_file *f, size_t n)
{
	bool *gone = xcalloc(n ? n : 1, sizeof(*gone));
	size_t j;
	int rc = DB_OK;

	if (s->state == SEQ_STATE_ACTIVE || s->state == SEQ_STATE_ENDED)
		seq_keep_classify(s, seq_keep_group_point(s, b->members, b->nmembers), f, n, NULL,
				  gone);
	for (j = 0; j < n && rc == DB_OK; j++) {
		if (!gone[j])
			continue;
		log_debug("sequence %s: state version %s is superseded", s->name, f[j].name);
		rc = db_ids_add(&b->marked, f[j].id);
	}
	free(gone);
	return rc;
}

/* Lock the heads, read their versions, mark the superseded ones gone: one transaction. */
static int mark_superseded(struct db *db, void *arg)
{
	struct keep_batch *b = arg;
	size_t i, j = 0, k;
	int rc;

	keep_batch_clear(b);
	rc = db_sequence_lock_many(db, b->ids, b->n, take_head, b);
	if (rc == DB_OK && b->nheads) {
		struct db_rows rows = DB_ROWS(b->files, b->nfiles, 0);

		rc = db_seq_keep_versions(db, b->ids, b->n, take_version, &rows);
	}
	if (rc == DB_OK)
		rc = read_members(db, b);
	/* heads and versions both by sequence id */
	for (i = 0; i < b->nheads && rc == DB_OK; i++) {
		while (j < b->nfiles && b->files[j].seq_id < b->heads[i].id)
			j++;
		for (k = j; k < b->nfiles && b->files[k].seq_id == b->heads[i].id; k++)
			;
		rc = pick_superseded(b, &b->heads[i], b->files + j, k - j);
		j = k;
	}
	for (i = 0; i < b->marked.n && rc == DB_OK; i += DB_SEQ_BATCH)
		rc = db_seq_keep_mark(db, b->marked.v + i, b->marked.n - i < DB_SEQ_BATCH ?
				      b->marked.n - i : DB_SEQ_BATCH);
	if (rc == DB_OK && b->marked.n)
		KILL_POINT();
	return rc;
}

/* Remove a superseded version's file from the upload hierarchy: whether it is gone. */
static bool unlink_version(const struct project_config *cfg, const struct db_seq_file *f)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	bool gone = dirhier_path(f->name, cfg->upload_dir, cfg->uldl_dir_fanout, false, &path) == 0 &&
		    remove_file(sbuf_str(&path)) == 0;

	if (gone)
		log_info("deleted superseded state version %s", f->name);
	else
		log_error("superseded state version %s stays: file_delete_state =>ERROR", f->name);
	sbuf_release(&path);
	return gone;
}

/* Unlink the files of READY versions and mark them DONE (ERROR if one stays). */
static int unlink_marked(struct daemon_ctx *ctx, bool *worked)
{
	for (;;) {
		struct db_seq_file *v = NULL;
		size_t n = 0, i, ndone = 0, nfailed = 0;
		struct db_rows rows = DB_ROWS(v, n, 0);
		int64_t done[DB_SEQ_BATCH], failed[DB_SEQ_BATCH];
		int rc = db_seq_file_enum_delete(ctx->db, DB_SEQ_BATCH, take_version, &rows);

		for (i = 0; i < n && rc == DB_OK; i++) {
			if (unlink_version(ctx->cfg, &v[i]))
				done[ndone++] = v[i].id;
			else
				failed[nfailed++] = v[i].id;
			KILL_POINT();
		}
		if (rc == DB_OK && ndone)
			rc = db_seq_keep_done(ctx->db, done, ndone, FILE_DELETE_DONE);
		if (rc == DB_OK && nfailed)
			rc = db_seq_keep_done(ctx->db, failed, nfailed, FILE_DELETE_ERROR);
		for (i = 0; i < n; i++)
			db_seq_file_release(&v[i]);
		free(v);
		if (rc != DB_OK)
			return -1;
		*worked |= n > 0;
		if (n < DB_SEQ_BATCH || daemon_stopping(ctx))
			return 0;
	}
}

static int take_seq_id(struct db_sequence *s, void *arg)
{
	return db_ids_add(arg, s->id);
}

/* Mark the superseded versions of every sequence that has some, then unlink them. */
static int delete_superseded(struct daemon_ctx *ctx, bool *worked)
{
	struct keep_batch b = { 0 };
	int64_t after = 0;
	int rc = unlink_marked(ctx, worked);   /* what a killed pass left */

	while (rc == 0 && !daemon_stopping(ctx)) {
		struct db_ids l = { NULL, 0 };

		rc = db_seq_keep_candidates(ctx->db, ctx->mod_n, ctx->mod_i, after, DB_SEQ_BATCH,
					    take_seq_id, &l) == DB_OK ? 0 : -1;
		if (rc == 0 && l.n) {
			b.ids = l.v;
			b.n = l.n;
			rc = db_txn_run(ctx->db, mark_superseded, &b) == DB_OK ? 0 : -1;
			*worked |= b.marked.n > 0;
			after = l.v[l.n - 1];
			if (rc == 0 && b.marked.n)
				KILL_POINT();
		}
		keep_batch_clear(&b);
		if (rc == 0)
			rc = unlink_marked(ctx, worked);
		free(l.v);
		if (l.n < DB_SEQ_BATCH)
			break;
	}
	return rc;
}

/* ---- job files ------------------------------------------------------------- */

/*
 * A job file's name a file of the project's also has (an app version's, as
 * a submitter could once name any file): the file is the project's, so only
 * the job_file row goes. Content-addressed names make this a mishap of old
 * rows, but the file deleter never trusts a name to say whose file it is.
 */
static int project_file(struct db *db, const struct db_job_file *jf, bool *yes)
{
	int64_t versions = 0;
	int rc = db_app_version_count_file(db, jf->name, &versions);

	*yes = rc == DB_OK && versions > 0;
	if (*yes)
		log_warn("job file %s is a file of %" PRId64 " app version(s): it stays, only its "
			 "job_file row goes", jf->name, versions);
	return rc;
}

static int delete_job_file(struct db *db, void *arg)
{
	struct fd_job *j = arg;
	struct db_job_file jf = { 0 };
	int64_t live = 0, users = 0;
	bool keep_file = false;
	int rc = db_job_file_lock(db, j->id, &jf);

	if (rc == DB_OK && jf.delete_time >= dnow())
		rc = DB_NOT_FOUND;      /* its lease was renewed */
	if (rc == DB_OK)
		rc = db_job_file_count_live_batches(db, jf.id, dnow(), &live);
	if (rc == DB_OK)
		rc = db_wu_file_count_others(db, jf.name, 0, &users);
	if (rc == DB_OK && (live > 0 || users > 0)) {
		log_debug("keeping job file %s: %" PRId64 " live batches, %" PRId64 " workunits",
			  jf.name, live, users);
		rc = DB_NOT_FOUND;
	}
	if (rc == DB_OK) {
		/* a new workunit not indexed yet may use it: wait for the next pass */
		rc = db_workunit_any_unindexed(db);
		if (rc == DB_OK)
			rc = DB_NOT_FOUND;
		else if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	if (rc == DB_OK)
		rc = project_file(db, &jf, &keep_file);
	if (rc == DB_OK && !keep_file && remove_input(j->ctx->cfg, jf.name) < 0) {
		log_error("job file %s stays", jf.name);
		rc = DB_NOT_FOUND;
	}
	if (rc == DB_OK)
		rc = db_batch_file_assoc_drop_file(db, jf.id);
	if (rc == DB_OK)
		rc = db_job_file_delete(db, &jf);
	db_job_file_release(&jf);
	return rc;
}

static int take_jf(struct db_job_file *jf, void *arg)
{
	return db_ids_add(arg, jf->id);
}

static int delete_job_files(struct daemon_ctx *ctx, bool *worked)
{
	int64_t after = 0;

	for (;;) {
		struct db_ids l = { NULL, 0 };
		size_t i;
		int rc = db_job_file_enum_expired_after(ctx->db, dnow(), after, (int)settings.batch,
							take_jf, &l);

		for (i = 0; i < l.n && rc == DB_OK; i++) {
			struct fd_job j = { ctx, l.v[i], false };

			after = l.v[i];
			if (!daemon_mod_owns(ctx, l.v[i]))
				continue;
			if (daemon_stopping(ctx))
				break;
			rc = db_txn_run(ctx->db, delete_job_file, &j);
			if (rc == DB_OK)
				*worked = true;
			else if (rc == DB_NOT_FOUND)
				rc = DB_OK;
		}
		free(l.v);
		if (rc != DB_OK)
			return -1;
		if (l.n < (size_t)settings.batch || daemon_stopping(ctx))
			return 0;
	}
}

static int fd_pass(struct daemon_ctx *ctx)
{
	bool worked = false;
	int rc = index_all(ctx, &worked);

	if (rc > 0)
		rc = delete_wus(ctx, &worked);
	if (rc >= 0)
		rc = delete_results(ctx, &worked);
	if (rc >= 0 && !daemon_stopping(ctx))
		rc = delete_superseded(ctx, &worked);
	if (rc >= 0 && !daemon_stopping(ctx))
		rc = delete_job_files(ctx, &worked);
	if (rc < 0)
		return DAEMON_PASS_ERROR;
	return worked ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

static const struct daemon_spec fd_spec = {
	.name = "file_deleter",
	.summary = "Delete input and output files the transitioner released, expired job files, "
		   "and superseded state versions of work sequences.",
	.params = fd_params,
	.settings = &settings,
	.needs_db = true,
	.pass = fd_pass,
};

int main(int argc, char **argv)
{
	return daemon_main(&fd_spec, argc, argv);
}
