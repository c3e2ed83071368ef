/*
 * The sample app's state files (apps/wseq_sample.c): a state -- a step
 * count and a vector of 64-bit words -- and, for --levels, a delta: the
 * words of a state that differ from a full state, as (index, value) pairs.
 * A state input is another host's output, so the readers trust nothing in
 * it: every size and index is checked before use (test/fuzz/
 * fuzz_sample_state.c). Writers write path.tmp and rename it, so a kill
 * leaves the old file whole.
 *
 *   state: "WSEQSTATE1\n", step, nwords, nwords words
 *   delta: "WSEQDELTA1\n", the full state's step, the step it describes,
 *          nwords, npairs, npairs (index, value) pairs
 *
 * (words little-endian, as the x86-64 hosts write them)
 */
#ifndef WSEQ_SAMPLE_STATE_H
#define WSEQ_SAMPLE_STATE_H

#include <stdint.h>
#include <stdio.h>

#define STATE_MAGIC "WSEQSTATE1\n"
#define DELTA_MAGIC "WSEQDELTA1\n"
#define MAX_WORDS (1 << 24)

struct state {
	uint64_t step;
	uint64_t nwords;
	uint64_t *w;
};

int sample_state_write(const char *path, const struct state *s);
/* 0 ok (s->w allocated), 1 no such file or not a state file, -1 a damaged state file */
int sample_state_read(const char *path, struct state *s);
int sample_state_read_fp(FILE *fp, struct state *s);

int sample_delta_write(const char *path, const struct state *full, const struct state *s);
/*
 * Apply a delta to s, which holds its full state: 0, or -1 if it is damaged
 * or relative to another full state (s's words may then be half changed).
 */
int sample_delta_apply(const char *path, struct state *s);
int sample_delta_apply_fp(FILE *fp, struct state *s);

#endif
