/*
 * Project preferences (lib/prefs.c), as am_set_info and the preferences
 * page take them from strangers and the scheduler reads them on every RPC.
 * Properties: a document the check accepts parses for every venue; a
 * parsed venue written out is accepted and parses back the same. The same
 * input as computing prefs (the web page's reading of user.global_prefs):
 * what parses, written out, parses back the same.
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

static void global(const char *s)
{
	struct prefs_global v[4], back[4];
	const struct prefs_global *w[4];
	struct sbuf b = SBUF_INIT(PREFS_MAX_BYTES * 2), err = SBUF_INIT(1024);
	bool have[4], have2[4];
	int i;

	if (prefs_global_parse_all(s, v, have, &err) == 0) {
		for (i = 0; i < 4; i++)
			w[i] = have[i] ? &v[i] : NULL;
		prefs_global_write(&b, 1e9, w);
		sbuf_reset(&err);
		FUZZ_CHECK(prefs_global_parse_all(sbuf_str(&b), back, have2, &err) == 0);
		for (i = 0; i < 4; i++)
			FUZZ_CHECK(!have[i] || !memcmp(v[i].v, back[i].v, sizeof(v[i].v)));
	}
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
	global(s);
	sbuf_release(&err);
	free(s);
	return 0;
}
