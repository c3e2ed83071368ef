/*
 * relocator: moves a work sequence to another host when its host missed a
 * segment's deadline (the transitioner flags it), returned an erroneous
 * segment or lost its state (the scheduler flags it). From Wi, the segment
 * after the latest restart point (seq_policy_restart_point: with state
 * levels, the finest level's), it makes a new branch -- W'i, reading by
 * download each state file's latest version on the server up to that
 * point (the scheduler makes the later ones when they are due) -- retires
 * what was left of the old branch (the dead branch stays in the
 * database), and resets the head: unassigned, first unsent = i. Sequences are moved in batches of DB_SEQ_BATCH, each batch
 * one transaction of a few statements: killed at any point, a restart finds
 * the flags still set and does the whole batch again. A sequence whose
 * states are missing from the server cannot be moved; it ends in error.
 */
#include "daemon.h"
#include "db_daemons.h"
#include "db_sched.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sequence.h"
#include "wtime.h"

#include <signal.h>
#include <sys/stat.h>

struct settings {
	long batch;
};

static struct settings settings;

static const struct param params[] = {
	{ "batch", PARAM_INT, offsetof(struct settings, batch), "100", PARAM_BOUNDED, 1, 100000, "N",
	  "sequences relocated per pass at most" },
	PARAM_TABLE_END
};

/*
 * Make the uploaded state available in the download hierarchy (idempotent).
 * Its MD5 and size come from its seq_file row (recorded at upload), so a
 * gigabyte state is not read again; a row without them, or whose size is
 * not the file's, has the file hashed.
 */
static int publish_state(const struct project_config *cfg, const struct db_seq_file *f,
			 char md5[33], double *nbytes, struct sbuf *url)
{
	struct sbuf up = SBUF_INIT(PATH_MAX), down = SBUF_INIT(PATH_MAX);
	struct stat st;
	long long n = 0;
	int rc = dirhier_path(f->name, cfg->download_dir, cfg->uldl_dir_fanout, true, &down);

	if (rc == 0 && access(sbuf_str(&down), F_OK) != 0) {
		rc = dirhier_path(f->name, cfg->upload_dir, cfg->uldl_dir_fanout, false, &up);
		if (rc == 0 && link(sbuf_str(&up), sbuf_str(&down)) < 0 && errno != EEXIST &&
		    (remove_stale_temps(sbuf_str(&down)) < 0 ||
		     copy_file(sbuf_str(&up), sbuf_str(&down), 0644) < 0))
			rc = log_error("cannot publish state %s for download", f->name);
	}
	if (rc == 0 && f->md5_cksum && strlen(f->md5_cksum) == 32 && f->nbytes > 0 &&
	    stat(sbuf_str(&down), &st) == 0 && (double)st.st_size == f->nbytes) {
		memcpy(md5, f->md5_cksum, 33);
		*nbytes = f->nbytes;
	} else if (rc == 0 && (rc = md5_file(sbuf_str(&down), md5, &n)) == 0) {
		*nbytes = (double)n;
	}
	if (rc == 0)
		rc = dirhier_url(f->name, cfg->download_url, cfg->uldl_dir_fanout, url);
	sbuf_release(&up);
	sbuf_release(&down);
	return rc;
}

static const char *reason_name(int reason)
{
	switch (reason) {
	case SEQ_RELOCATE_DEADLINE: return "a segment missed its deadline";
	case SEQ_RELOCATE_ERROR: return "a segment failed or was invalid, or the host lost the state";
	case SEQ_RELOCATE_SLOW: return "the host is too slow";
	case SEQ_RELOCATE_ADMIN: return "asked by the admin";
	default: return "unknown reason";
	}
}

/* One batch of at most DB_SEQ_BATCH sequences, relocated in one transaction. */
struct batch {
	const struct project_config *cfg;
	const int64_t *ids;
	size_t n;
	struct db_sequence heads[DB_SEQ_BATCH];
	size_t nheads;
	struct db_seq_file *files;      /* uploaded states of the heads' candidate segments */
	size_t nfiles, cap;
	size_t done;
	/* the template of the latest sequence, kept for the next one of the same */
	char *layout_path;
	struct seq_layout layout;
	bool have_layout;
};

static int take_head(struct db_sequence *s, void *arg)
{
	struct batch *b = arg;

	if (b->nheads == DB_SEQ_BATCH)
		return 1;
	b->heads[b->nheads++] = *s;
	memset(s, 0, sizeof(*s));
	return 0;
}

static int take_file(struct db_seq_file *f, void *arg)
{
	struct batch *b = arg;

	if (b->nfiles == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->files = xrealloc(b->files, b->cap * sizeof(*b->files));
	}
	b->files[b->nfiles++] = *f;
	memset(f, 0, sizeof(*f));
	return 0;
}

static void batch_clear(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->nheads; i++)
		db_sequence_release(&b->heads[i]);
	for (i = 0; i < b->nfiles; i++)
		db_seq_file_release(&b->files[i]);
	b->nheads = b->nfiles = b->done = 0;
}

static const struct seq_layout *batch_layout(struct batch *b, const struct db_sequence *s)
{
	const char *path = s->wu_template ? s->wu_template : "";

	if (b->have_layout && !strcmp(b->layout_path, path))
		return &b->layout;
	if (b->have_layout) {
		seq_layout_release(&b->layout);
		free(b->layout_path);
		b->have_layout = false;
	}
	if (seq_layout_load(b->cfg->project_dir, path, &b->layout) < 0)
		return NULL;
	b->layout_path = xstrdup(path);
	b->have_layout = true;
	return &b->layout;
}

/*
 * The states a new branch after segment k reads: for every state file its
 * version seq_policy_restart_input picks among the batch's rows of s, from
 * segment seq_policy_state_source or later; pointers into b->files in the
 * files' order. How many state files have one (all of them: k is usable).
 */
static size_t pick_states(const struct batch *b, const struct db_sequence *s,
			  const struct seq_view *v, size_t nstate, int k,
			  const struct db_seq_file **out)
{
	struct seq_state_row *rows = xcalloc(b->nfiles + 1, sizeof(*rows));
	size_t *idx = xcalloc(b->nfiles + 1, sizeof(*idx));
	size_t m = seq_state_rows_of(b->files, b->nfiles, s->id, rows, idx), i, n = 0;
	int j;

	for (i = 0; i < nstate && i < SEQ_MAX_FILES; i++) {
		j = seq_policy_restart_input(rows, m, i, k);
		if (j < 0 || rows[j].seqno < seq_policy_state_source(v, i, k))
			continue;
		out[i] = &b->files[idx[j]];
		n++;
	}
	free(rows);
	free(idx);
	return n;
}

/* A sequence that cannot be moved: it ends in error, what is left of it retired. */
static int give_up(struct db *db, struct db_sequence *s, const char *why)
{
	int rc;

	log_error("sequence %s: cannot relocate: %s; the sequence ends in error", s->name, why);
	rc = db_result_retire_live(db, &s->id, 1);
	s->state = SEQ_STATE_ERROR;
	s->need_relocate = 0;
	s->hostid = 0;
	free(s->error_msg);
	s->error_msg = xasprintf("cannot relocate: %s", why);
	return rc == DB_OK ? db_sequence_update(db, s) : rc;
}

/*
 * Relocate one locked head: add W'i to rows, its id to moved[] (the new
 * branch starts after its last uploaded state, the head is written with the
 * others in one statement) or, when it restarts from its initial states or
 * has nothing left to compute, write the head itself after the retirement
 * (later[]).
 */
static int plan(struct db *db, struct batch *b, struct db_sequence *s, struct seq_rows *rows,
		int64_t *moved, size_t *nmoved, struct db_sequence **later, size_t *nlater)
{
	const struct seq_layout *l = batch_layout(b, s);
	const struct db_seq_file *f[SEQ_MAX_FILES];
	struct seq_input in[SEQ_MAX_FILES];
	struct sbuf url[SEQ_MAX_FILES];
	char md5[SEQ_MAX_FILES][33], why[200];
	double nbytes[SEQ_MAX_FILES];
	struct sbuf names = SBUF_INIT(4096);
	struct seq_view v;
	struct seq_restart r;
	size_t k, nf, nlast;
	int rc = DB_OK, i;

	if (!l)
		return give_up(db, s, "its sequence template cannot be read");
	if (seq_layout_check_every(l, s->state_upload_every, s->name) < 0)
		return give_up(db, s, "its template's levels do not nest with its state_upload_every");
	/* Wi: seq_policy_restart_from, from the states found on the server. */
	seq_view_of(s, &v);
	seq_view_levels(&v, l);
	nlast = pick_states(b, s, &v, l->nstate, s->last_state_seqno, f);
	nf = pick_states(b, s, &v, l->nstate, 0, f);
	seq_policy_restart_from(&v, l->nstate, nlast, nf, &r);
	i = r.seqno;
	nf = pick_states(b, s, &v, l->nstate, i - 1, f);
	if (r.kind == SEQ_RESTART_IMPOSSIBLE) {
		snprintf(why, sizeof(why), "%zu initial states on the server, %zu expected", r.nfound,
			 l->nstate);
		return give_up(db, s, why);
	}
	if (r.kind == SEQ_RESTART_NOTHING_LEFT) {
		/* every segment's state is on the server: nothing to compute again */
		s->hostid = 0;
		s->need_relocate = 0;
		b->done++;
		return db_sequence_update(db, s);
	}
	for (k = 0; k < nf; k++)
		sbuf_init(&url[k], 4096);
	for (k = 0; k < nf && rc == DB_OK; k++) {
		if (publish_state(b->cfg, f[k], md5[k], &nbytes[k], &url[k]) < 0)
			rc = DB_ERROR;
		in[k] = (struct seq_input){ f[k]->name, sbuf_str(&url[k]), md5[k], nbytes[k], false };
		sbuf_addf(&names, "%s%s", k ? ", " : "", f[k]->name);
	}
	if (rc == DB_OK) {
		log_info("sequence %s: relocating (%s): branch %d from segment %d (input%s %s), "
			 "%d sent segments computed again", s->name, reason_name(s->need_relocate),
			 s->branch + 1, i, nf > 1 ? "s" : "", sbuf_str(&names), r.recompute);
		/* The head as it will be: W'i only, the scheduler makes each later one when due. */
		s->branch++;
		s->hostid = 0;
		s->first_unsent_seqno = i;
		if (s->first_unvalidated_seqno > i)
			s->first_unvalidated_seqno = i;
		s->need_relocate = 0;
		s->nrelocations++;
		seq_rows_add(rows, b->cfg, s, l, i, i, in);
		moved[(*nmoved)++] = s->id;
		if (i != s->last_state_seqno + 1)
			later[(*nlater)++] = s;
		b->done++;
	}
	for (k = 0; k < nf; k++)
		sbuf_release(&url[k]);
	sbuf_release(&names);
	return rc;
}

/*
 * Add the seqnos whose state rows the restart rule reads for s (its
 * restart point and the initial states: seq_policy_restart_seqnos) to
 * seqnos[0..n), each once; the new number. At most SEQ_MAX_FILES + 2 a
 * sequence: DB_SEQ_SEQNOS holds a batch's.
 */
static size_t restart_seqnos(struct batch *b, const struct db_sequence *s, int *seqnos, size_t n)
{
	const struct seq_layout *l = batch_layout(b, s);
	int want[SEQ_MAX_FILES + 2];
	struct seq_view v;
	size_t i, j, m;

	seq_view_of(s, &v);
	if (l)
		seq_view_levels(&v, l);
	m = seq_policy_restart_seqnos(&v, s->last_state_seqno, want);
	for (i = 0; i < m; i++) {
		for (j = 0; j < n && seqnos[j] != want[i]; j++)
			;
		if (j == n && n < DB_SEQ_SEQNOS)
			seqnos[n++] = want[i];
	}
	return n;
}

/*
 * Relocate a batch: lock the heads, read their uploaded states, retire the
 * old branches, make every W'i, write the heads -- a few statements for the
 * whole batch. One transaction: killed at any point, a restart finds the
 * flags still set and does the whole batch again.
 */
static int relocate(struct db *db, void *arg)
{
	struct batch *b = arg;
	struct seq_rows rows = { 0 };
	struct db_sequence *later[DB_SEQ_BATCH];
	int64_t ids[DB_SEQ_BATCH], moved[DB_SEQ_BATCH];
	int seqnos[DB_SEQ_SEQNOS];
	size_t i, n = 0, nseqnos = 0, nmoved = 0, nlater = 0;
	int rc;

	batch_clear(b);
	rc = db_sequence_lock_many(db, b->ids, b->n, take_head, b);
	for (i = 0; i < b->nheads; i++) {
		struct db_sequence *s = &b->heads[i];

		if (s->need_relocate && s->state == SEQ_STATE_ACTIVE) {   /* else an earlier try did it */
			ids[n++] = s->id;
			nseqnos = restart_seqnos(b, s, seqnos, nseqnos);
		}
	}
	if (rc != DB_OK || !n)
		return rc;
	rc = db_seq_file_states_many(db, ids, n, seqnos, nseqnos, take_file, b);
	for (i = 0; rc == DB_OK && i < b->nheads; i++)
		if (b->heads[i].need_relocate && b->heads[i].state == SEQ_STATE_ACTIVE)
			rc = plan(db, b, &b->heads[i], &rows, moved, &nmoved, later, &nlater);
	/* The old branches become dead: nothing of them is sent or awaited any more. */
	if (rc == DB_OK && nmoved)
		rc = db_result_retire_live(db, moved, nmoved);
	if (rc == DB_OK && nmoved) {
		int r = seq_rows_insert(db, &rows);

		rc = r == 0 ? DB_OK : r == DB_RETRY ? DB_RETRY : DB_ERROR;
	}
	if (rc == DB_OK && nmoved)
		rc = db_sequence_relocated(db, moved, nmoved);
	/* Those from their initial states: the statement above set them from a state they lack. */
	for (i = 0; rc == DB_OK && i < nlater; i++)
		rc = db_sequence_update(db, later[i]);
	seq_rows_release(&rows);
	/* Tests kill the relocator here to show the transaction keeps it whole. */
	if (rc == DB_OK && b->done && getenv("WSEQ_TEST_RELOCATOR_KILL"))
		raise(SIGKILL);
	return rc;
}

static int take_id(struct db_sequence *s, void *arg)
{
	return db_ids_add(arg, s->id);
}

static int rl_pass(struct daemon_ctx *ctx)
{
	struct db_ids l = { NULL, 0 };
	struct batch b = { .cfg = ctx->cfg };
	size_t i;
	int rc, done = 0;

	rc = db_sequence_enum_relocate(ctx->db, ctx->mod_n, ctx->mod_i, (int)settings.batch, take_id,
				       &l);
	for (i = 0; rc == DB_OK && i < l.n && !daemon_stopping(ctx); i += b.n) {
		b.ids = l.v + i;
		b.n = l.n - i < DB_SEQ_BATCH ? l.n - i : DB_SEQ_BATCH;
		rc = db_txn_run(ctx->db, relocate, &b);
		if (rc == DB_OK)
			done += (int)b.done;
	}
	batch_clear(&b);
	free(b.files);
	if (b.have_layout) {
		seq_layout_release(&b.layout);
		free(b.layout_path);
	}
	free(l.v);
	if (rc != DB_OK)
		return DAEMON_PASS_ERROR;
	return done ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

static const struct daemon_spec rl_spec = {
	.name = "relocator",
	.summary = "Move work sequences whose host failed them to a new branch for another host.",
	.params = params,
	.settings = &settings,
	.needs_db = true,
	.pass = rl_pass,
};

int main(int argc, char **argv)
{
	return daemon_main(&rl_spec, argc, argv);
}
