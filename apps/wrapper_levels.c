/* The WSEQ_* variables of wseq_wrapper's tasks; see wrapper_levels.h. */
#include "wrapper_levels.h"
#include "app_seqno.h"
#include "seq_policy.h"

/* The segment state file s's input came from, by its physical name (-1: unknown). */
static long state_from(const struct wjob_state_file *s, wlevels_resolve_fn resolve)
{
	char path[PATH_MAX];

	if (!s->in || !*s->in)
		return -1;
	return app_state_seqno(resolve(s->in, path, sizeof(path)));
}

/* Does segment seqno upload a level of this period? The server's rule (seq_policy.h). */
static int level_uploads(long every, long seqno)
{
	struct seq_view v = { .nstate = 1, .state_every = { (int)every } };

	return (seq_policy_state_mask(&v, (int)seqno) & 1u) != 0;
}

static void push(char ***env, size_t *n, char *entry)
{
	ARRAY_GROW(*env, *n);
	(*env)[(*n)++] = entry;
}

long wlevels_env(const struct wjob *j, wlevels_resolve_fn resolve, char ***env, size_t *n)
{
	const struct wjob_state_file *s;
	long seqno = 0, from;
	size_t i;

	for (i = 0; i < j->nstates; i++)
		if ((from = state_from(&j->states[i], resolve)) + 1 > seqno)
			seqno = from + 1;
	push(env, n, xasprintf("WSEQ_NSTATES=%zu", j->nstates));
	if (seqno > 0)
		push(env, n, xasprintf("WSEQ_SEGMENT=%ld", seqno));
	for (i = 0; i < j->nstates; i++) {
		s = &j->states[i];
		push(env, n, xasprintf("WSEQ_STATE%zu_NAME=%s", i, s->name));
		if ((from = state_from(s, resolve)) >= 0)
			push(env, n, xasprintf("WSEQ_STATE%zu_FROM=%ld", i, from));
		if (s->level)
			push(env, n, xasprintf("WSEQ_STATE%zu_LEVEL=%s", i, s->level));
		if (seqno > 0 && s->upload_every)
			push(env, n, xasprintf("WSEQ_STATE%zu_UPLOAD=%d", i,
					       level_uploads(s->upload_every, seqno)));
	}
	return seqno;
}
