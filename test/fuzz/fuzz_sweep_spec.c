/*
 * The sweep worker specification (sweep/proto/sweep_spec.c) and the placeholder
 * expansion it drives (sweep/proto/sweep_expand.c). The input is a spec, and
 * optionally "\n--params--\n" and a parameter file: when both parse, the
 * spec is checked against the parameters and the command line, Validate
 * and every input file are expanded for the first rows, as the master does
 * for each task. Property: a command line, joined into one string
 * (sweep_argv_join) and split again, gives back the same words.
 */
#include "fuzz.h"
#include "sweep_spec.h"

#define SEPARATOR "\n--params--\n"
#define MAX_ROWS 4

static void check_join(const struct sweep_argv *a)
{
	struct sbuf line = SBUF_INIT(1 << 22), err = SBUF_INIT(4096);
	struct sweep_argv b;
	size_t i;

	if (sweep_argv_join(a->v, a->n, &line) == 0) {
		FUZZ_CHECK(sweep_expand_argv(line.buf ? line.buf : "", NULL, &b, &err) == 0);
		FUZZ_CHECK(b.n == a->n);
		for (i = 0; i < a->n; i++)
			FUZZ_CHECK(!strcmp(a->v[i], b.v[i]));
		sweep_argv_release(&b);
	}
	sbuf_release(&line);
	sbuf_release(&err);
}

static void expand(const struct sweep_spec *s, const struct sweep_params *p)
{
	struct sbuf err = SBUF_INIT(4096), content = SBUF_INIT(1 << 22);
	struct sweep_argv a;
	size_t row, i;

	if (sweep_spec_check_params(s, p, &err) < 0)
		goto out;
	for (row = 0; row < p->nrows && row < MAX_ROWS; row++) {
		/* checked above: every placeholder names a parameter */
		FUZZ_CHECK(sweep_spec_command(s->command_line, p, row, &a, &err) == 0);
		check_join(&a);
		sweep_argv_release(&a);
		if (s->validate) {
			FUZZ_CHECK(sweep_spec_command(s->validate, p, row, &a, &err) == 0);
			sweep_argv_release(&a);
		}
		for (i = 0; i < s->ninputs; i++) {
			sbuf_reset(&content);
			sweep_spec_input_content(&s->inputs[i], p, row, &content, &err);
		}
	}
out:
	sbuf_release(&err);
	sbuf_release(&content);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *sep = memmem(buf, size, SEPARATOR, strlen(SEPARATOR));
	size_t slen = sep ? (size_t)(sep - buf) : size;
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_spec s;
	struct sweep_params p;

	fuzz_setup();
	if (sweep_spec_parse("dir/spec", buf, slen, &s, &err) < 0) {
		FUZZ_CHECK(err.len > 0);
		goto out;
	}
	sweep_spec_worker_for(&s, "x86_64-pc-linux-gnu");
	if (sep) {
		const char *pbuf = sep + strlen(SEPARATOR);

		if (sweep_params_parse("params", pbuf, size - (size_t)(pbuf - buf), &p, &err) == 0)
			expand(&s, &p);
		sweep_params_release(&p);
	}
	sweep_spec_release(&s);
out:
	sbuf_release(&err);
	return 0;
}
