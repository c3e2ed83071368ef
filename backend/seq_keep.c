/* Which state versions of a work sequence a restart may still need; see seq_keep.h. */
#include "seq_keep.h"
#include "common.h"
#include "seq_policy.h"
#include "sequence.h"

int seq_keep_point(const struct db_sequence *s)
{
	int k = s->last_state_seqno;

	if (s->first_unvalidated_seqno - 1 < k)
		k = s->first_unvalidated_seqno - 1;
	return k > 0 ? k : 0;
}

int seq_keep_group_point(const struct db_sequence *s, const struct db_sequence *m, size_t n)
{
	int k = seq_keep_point(s);
	size_t i;

	for (i = 0; i < n && s->groupid; i++)
		if (m[i].groupid == s->groupid && seq_keep_point(&m[i]) < k)
			k = seq_keep_point(&m[i]);
	return k;
}

int seq_keep_file_index(const struct db_seq_file *f)
{
	return f->kind == SEQ_FILE_STATE ? seq_state_index(f->name) : -1;
}

void seq_keep_level_name(const struct seq_layout *l, size_t i, char *out, size_t n)
{
	if (i < l->nstate && l->state[i].level && *l->state[i].level)
		snprintf(out, n, "%s", l->state[i].level);
	else if (l->nstate == 1)
		snprintf(out, n, "state");
	else
		snprintf(out, n, "state file %zu", i);
}

void seq_keep_classify(const struct db_sequence *s, int k, const struct db_seq_file *f, size_t n,
		       bool *need, bool *superseded)
{
	bool seen[SEQ_MAX_FILES] = { false };
	size_t j;

	for (j = 0; j < n; j++) {
		int i = seq_keep_file_index(&f[j]);
		bool first = i >= 0 && f[j].seqno <= k && !seen[i];

		if (first)
			seen[i] = true;
		if (need)
			need[j] = first;
		if (superseded)
			superseded[j] = i >= 0 && f[j].seqno > 0 && f[j].seqno <= k && !first;
	}
}
