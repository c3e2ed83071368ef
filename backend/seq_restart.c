/*
 * The restart rule of work sequences (seq_policy_restart_point) applied to
 * the database's state rows: the scheduler asks whether a reported segment
 * is a restart point, the validator goes back to the latest one before an
 * invalid segment, db_check asks about the segment a branch starts from,
 * the relocator turns its rows into the rule's (seq_state_rows_of). One
 * statement per question: the rows at the few seqnos the rule looks at.
 */
#include "sequence.h"
#include "config.h"
#include "db_sched.h"
#include "log.h"

int seq_view_load(const struct project_config *cfg, const struct db_sequence *s,
		  struct seq_view *v)
{
	struct seq_layout l;

	seq_view_of(s, v);
	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return log_error("sequence %s: its template cannot be read", s->name);
	seq_view_levels(v, &l);
	seq_layout_release(&l);
	return 0;
}

size_t seq_state_rows_of(const struct db_seq_file *f, size_t n, int64_t seq_id,
			 struct seq_state_row *rows, size_t *idx)
{
	size_t j, m = 0;
	int i;

	for (j = 0; j < n; j++) {
		if (f[j].seq_id != seq_id || f[j].kind != SEQ_FILE_STATE ||
		    (i = seq_state_index(f[j].name)) < 0)
			continue;
		rows[m] = (struct seq_state_row){ f[j].seqno, f[j].branch, (size_t)i,
						  f[j].upload != 0, f[j].uploaded != 0 };
		if (idx)
			idx[m] = j;
		m++;
	}
	return m;
}

struct files {
	struct db_seq_file *v;
	size_t n;
};

static int take(struct db_seq_file *f, void *arg)
{
	struct files *fs = arg;

	ARRAY_GROW(fs->v, fs->n);
	fs->v[fs->n++] = *f;
	memset(f, 0, sizeof(*f));
	return 0;
}

_Static_assert(SEQ_MAX_FILES + 2 <= DB_SEQ_SEQNOS_ONE, "a restart check is one short statement");

int seq_restart_check(struct db *db, const struct db_sequence *s, const struct seq_view *v,
		      int k, bool *is)
{
	int seqnos[SEQ_MAX_FILES + 2];
	size_t n = seq_policy_restart_seqnos(v, k, seqnos), m, j;
	struct files fs = { NULL, 0 };
	struct seq_state_row *rows;
	int rc;

	*is = false;
	rc = db_seq_file_states_many(db, &s->id, 1, seqnos, n, take, &fs);
	rows = xcalloc(fs.n + 1, sizeof(*rows));
	m = seq_state_rows_of(fs.v, fs.n, s->id, rows, NULL);
	*is = rc == DB_OK && seq_policy_restart_point(v, rows, m, k);
	for (j = 0; j < fs.n; j++)
		db_seq_file_release(&fs.v[j]);
	free(fs.v);
	free(rows);
	return rc;
}

int seq_restart_latest(struct db *db, const struct db_sequence *s, const struct seq_view *v,
		       int upto, int *k)
{
	bool is = false;
	int rc = DB_OK;

	/* only a segment that uploads a state can be one: the others cost no query */
	for (*k = upto; *k >= 1 && rc == DB_OK; (*k)--) {
		if (!seq_policy_state_mask(v, *k))
			continue;
		rc = seq_restart_check(db, s, v, *k, &is);
		if (rc == DB_OK && is)
			return DB_OK;
	}
	*k = 0;
	return rc;
}
