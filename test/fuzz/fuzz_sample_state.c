/*
 * The sample app's state and delta files (apps/sample_state.c): a state
 * input is another host's upload, handed on by the relocator. The first
 * byte picks the reader. Properties: a state read has 1 to MAX_WORDS words
 * and all of them; a delta applied to a small full state of step 7 changes
 * only words that exist, never moves the step back, and a refused one
 * leaves the step alone.
 */
#include "fuzz.h"
#include "../../apps/sample_state.h"

#define NWORDS 16

static void state(const char *data, size_t size)
{
	FILE *fp = fmemopen((void *)data, size, "rb");
	struct state s = { 0, 0, NULL };

	if (!fp)
		return;
	if (sample_state_read_fp(fp, &s) == 0) {
		FUZZ_CHECK(s.nwords >= 1 && s.nwords <= MAX_WORDS && s.w != NULL);
		FUZZ_CHECK(size >= strlen(STATE_MAGIC) + 16 + s.nwords * 8);
	}
	free(s.w);
	fclose(fp);
}

static void delta(const char *data, size_t size)
{
	FILE *fp = fmemopen((void *)data, size, "rb");
	uint64_t w[NWORDS] = { 0 };
	struct state s = { 7, NWORDS, w };

	if (!fp)
		return;
	if (sample_delta_apply_fp(fp, &s) == 0)
		FUZZ_CHECK(s.step >= 7 && size >= strlen(DELTA_MAGIC) + 32);
	else
		FUZZ_CHECK(s.step == 7);
	fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, state, delta);
	return 0;
}
