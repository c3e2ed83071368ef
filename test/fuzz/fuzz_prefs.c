/*
 * Project preferences (lib/prefs.c), as am_set_info and the preferences
 * page take them from strangers and the scheduler reads them on every RPC.
 * Properties: a document the check accepts parses for every venue; a
 * parsed venue written out is accepted and parses back the same.
 */
#include "fuzz.h"
#include "prefs.h"

static bool same(const struct prefs_project *a, const struct prefs_project *b)
{
	return a->resource_share == b->resource_share && a->allow_beta == b->allow_beta &&
	       !memcmp(a->no_rsc, b->no_rsc, sizeof(a->no_rsc)) && a->napps == b->napps &&
	       !memcmp(a->apps, b->apps, a->napps * sizeof(a->apps[0])) &&
	       a->allow_others == b->allow_others;
}

static void round_trip(const struct prefs_project *p)
{
	const struct prefs_project *v[4] = { p, NULL, NULL, NULL };
	struct sbuf b = SBUF_INIT(PREFS_MAX_BYTES * 2), err = SBUF_INIT(1024);
	struct prefs_project back;

	prefs_project_write(&b, v);
	FUZZ_CHECK(prefs_project_check(sbuf_str(&b), &err) == 0);
	FUZZ_CHECK(prefs_project_parse(sbuf_str(&b), "", &back, &err) == 0);
	FUZZ_CHECK(same(p, &back));
	prefs_project_release(&back);
	sbuf_release(&b);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	struct sbuf err = SBUF_INIT(1024);
	struct prefs_project p;
	bool ok;
	size_t i;

	fuzz_setup();
	s = fuzz_cstr(data, size);
	ok = prefs_project_check(s, &err) == 0;
	FUZZ_CHECK(ok == (err.len == 0));
	for (i = 0; prefs_venues[i]; i++) {
		sbuf_reset(&err);
		if (prefs_project_parse(s, prefs_venues[i], &p, &err) == 0) {
			round_trip(&p);
			prefs_project_release(&p);
		} else {
			FUZZ_CHECK(!ok && err.len > 0);
		}
	}
	sbuf_release(&err);
	free(s);
	return 0;
}
