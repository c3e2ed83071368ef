/*
 * The sweep parameter file (sweep/proto/sweep_params.c): a '|' table with quoted
 * cells, as the user writes it and the master reads it. Property: the
 * table, formatted (sweep_params_format) and parsed again, is the same
 * table -- the master's copy in the database reads back as it was.
 */
#include "fuzz.h"
#include "sweep_params.h"

static void check_same(const struct sweep_params *a, const struct sweep_params *b)
{
	size_t i, k;

	FUZZ_CHECK(a->nnames == b->nnames && a->nrows == b->nrows);
	for (k = 0; k < a->nnames; k++) {
		FUZZ_CHECK(!strcmp(a->names[k], b->names[k]));
		FUZZ_CHECK(sweep_params_index(a, a->names[k], strlen(a->names[k])) == (int)k);
	}
	for (i = 0; i < a->nrows; i++)
		for (k = 0; k < a->nnames; k++)
			FUZZ_CHECK(!strcmp(a->rows[i].values[k], b->rows[i].values[k]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep_params p, q;
	struct sbuf out = SBUF_INIT(SWEEP_PARAMS_MAX), err = SBUF_INIT(4096);

	fuzz_setup();
	if (sweep_params_parse("params", (const char *)data, size, &p, &err) == 0) {
		FUZZ_CHECK(sweep_params_format(&p, &out) == 0);
		FUZZ_CHECK(sweep_params_parse("formatted", out.buf, out.len, &q, &err) == 0);
		check_same(&p, &q);
		sweep_params_release(&q);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	sweep_params_release(&p);
	sbuf_release(&out);
	sbuf_release(&err);
	return 0;
}
