/*
 * The files of a work sequence app (backend/seq_layout.c): the sequence
 * template (templates/APP_layout: the state and answer files of every
 * segment) and the plan of a sequence app (templates/APP_seq: what a job
 * submitted through the remote submission RPCs becomes). The first byte
 * picks which (even: template, odd: plan). Properties: a template that
 * parses has 1..SEQ_MAX_FILES states with safe open names and periods
 * (state levels) of 0 (the sequence's M) or 1..1e6 that nest; a plan that
 * parses has its numbers inside their documented ranges.
 */
#include "fuzz.h"
#include "sequence.h"

static void layout(const char *text, size_t len)
{
	struct seq_layout l;
	int p[SEQ_MAX_FILES];
	size_t i, n = 0, bad;

	if (seq_layout_parse(text, len, "fuzz_layout", &l) < 0)
		return;
	FUZZ_CHECK(l.nstate >= 1 && l.nstate <= SEQ_MAX_FILES && l.nanswer <= SEQ_MAX_FILES);
	for (i = 0; i < l.nstate; i++) {
		FUZZ_CHECK(l.state[i].open_in[0] && !strchr(l.state[i].open_in, '/') &&
			   l.state[i].max_nbytes >= 0);
		FUZZ_CHECK(l.state[i].upload_every >= 0 && l.state[i].upload_every <= 1000000);
		if (l.state[i].upload_every > 0)
			p[n++] = l.state[i].upload_every;
	}
	FUZZ_CHECK(seq_policy_levels_nest(p, n, &bad));
	for (i = 0; i < l.nanswer; i++)
		FUZZ_CHECK(l.answer[i].open_name[0] && !strchr(l.answer[i].open_name, '/'));
	seq_layout_release(&l);
}

static void plan(const char *text, size_t len)
{
	struct seq_spec spec;
	struct sbuf err = SBUF_INIT(1024);

	memset(&spec, 0, sizeof(spec));
	if (seq_app_plan_parse(text, len, "fuzz_seq", &spec, &err) > 0) {
		FUZZ_CHECK(spec.segments >= 1 && spec.segments <= 1000000);
		FUZZ_CHECK(spec.high_water >= 1 && spec.high_water <= 100);
		FUZZ_CHECK(spec.delay_bound > 0);
		free((char *)spec.seq_template);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, layout, plan);
	return 0;
}
