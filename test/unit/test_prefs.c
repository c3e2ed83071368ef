/*
 * Unit tests for project preferences (lib/prefs.c): a venue's block or the
 * default, upstream's elements, the checks a stored document passes, and
 * a written document read back the same.
 */
#include "unit.h"
#include "prefs.h"

static const char doc[] =
	"<project_preferences>\n"
	"<resource_share>50</resource_share>\n"
	"<no_cuda>1</no_cuda>\n"
	"<project_specific><apps_selected><app_id>2</app_id></apps_selected>"
	"<color>blue</color></project_specific>\n"
	"<venue name=\"work\">\n"
	"  <no_cpu/>\n<no_gpus>1</no_gpus>\n<allow_beta_work>1</allow_beta_work>\n"
	"  <project_specific><apps_selected><app_id>3</app_id><app_id>3</app_id>"
	"<app_id>4</app_id></apps_selected>"
	"<allow_non_preferred_apps>1</allow_non_preferred_apps></project_specific>\n"
	"</venue>\n"
	"</project_preferences>\n";

static void test_default_and_venue(void **state)
{
	struct sbuf err = SBUF_INIT(1024);
	struct prefs_project p;

	(void)state;
	assert_int_equal(prefs_project_parse(doc, "", &p, &err), 0);
	assert_true(p.resource_share == 50);
	assert_true(p.no_rsc[PREFS_NVIDIA]);
	assert_false(p.no_rsc[PREFS_CPU]);
	assert_int_equal(p.napps, 1);
	assert_true(prefs_project_selected(&p, 2));
	assert_false(prefs_project_selected(&p, 3));
	assert_false(p.allow_others);
	assert_non_null(strstr(p.specific, "<color>blue</color>"));
	prefs_project_release(&p);
	/* a venue without a block of its own takes the default */
	assert_int_equal(prefs_project_parse(doc, "home", &p, &err), 0);
	assert_int_equal(p.napps, 1);
	prefs_project_release(&p);

	assert_int_equal(prefs_project_parse(doc, "work", &p, &err), 0);
	assert_true(p.resource_share < 0);
	assert_true(p.no_rsc[PREFS_CPU] && p.no_rsc[PREFS_NVIDIA] && p.no_rsc[PREFS_ATI] &&
		    p.no_rsc[PREFS_INTEL] && p.no_rsc[PREFS_APPLE] && p.no_rsc[PREFS_OTHER]);
	assert_true(p.allow_beta && p.allow_others);
	assert_int_equal(p.napps, 2);   /* 3 given twice counts once */
	assert_true(prefs_project_selected(&p, 3) && prefs_project_selected(&p, 4));
	assert_false(prefs_project_selected(&p, 2));
	prefs_project_release(&p);
	sbuf_release(&err);
}

static void test_empty_is_every_app(void **state)
{
	struct sbuf err = SBUF_INIT(1024);
	struct prefs_project p;

	(void)state;
	assert_int_equal(prefs_project_parse("", "work", &p, &err), 0);
	assert_int_equal(p.napps, 0);
	assert_true(prefs_project_selected(&p, 77));
	assert_false(p.no_rsc[PREFS_CPU]);
	assert_int_equal(prefs_project_parse(NULL, NULL, &p, &err), 0);
	assert_int_equal(prefs_project_parse("<project_preferences/>", "x", &p, &err), 0);
	assert_int_equal(err.len, 0);
	sbuf_release(&err);
}

static void test_bad_documents(void **state)
{
	static const struct {
		const char *xml, *says;
	} bad[] = {
		{ "<project_preferences>", "project_prefs" },
		{ "<global_preferences/>", "one <project_preferences> element" },
		{ "<project_preferences><resource_share>x</resource_share></project_preferences>",
		  "resource_share" },
		{ "<project_preferences><resource_share>-1</resource_share></project_preferences>",
		  "0 to 100000" },
		{ "<project_preferences><resource_share>1e300</resource_share></project_preferences>",
		  "0 to 100000" },
		{ "<project_preferences><no_cpu>yes</no_cpu></project_preferences>", "<no_cpu> must be 0 or 1" },
		{ "<project_preferences><project_specific><apps_selected><app_id>0</app_id>"
		  "</apps_selected></project_specific></project_preferences>", "positive app id" },
		{ "<project_preferences><project_specific><apps_selected><app_id>1x</app_id>"
		  "</apps_selected></project_specific></project_preferences>", "positive app id" },
		{ "<project_preferences><venue name=\"mars\"/></project_preferences>", "home, school or work" },
		{ "<project_preferences><venue name=\"home\"/><venue name=\"home\"/></project_preferences>",
		  "given twice" },
		{ "<project_preferences><venue name=\"work\"><no_ati>2</no_ati></venue>"
		  "</project_preferences>", "<no_ati> must be 0 or 1" },
	};
	struct sbuf err = SBUF_INIT(1024);
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sbuf_reset(&err);
		assert_int_equal(prefs_project_check(bad[i].xml, &err), -1);
		if (!strstr(sbuf_str(&err), bad[i].says))
			fail_msg("%s: %s", bad[i].xml, sbuf_str(&err));
	}
	sbuf_reset(&err);
	assert_int_equal(prefs_project_check(doc, &err), 0);
	sbuf_release(&err);
}

static void test_too_many_apps_and_too_long(void **state)
{
	struct sbuf d = SBUF_INIT(PREFS_MAX_BYTES * 2), err = SBUF_INIT(1024);
	struct prefs_project p;
	int i;

	(void)state;
	sbuf_addstr(&d, "<project_preferences><project_specific><apps_selected>");
	for (i = 1; i <= PREFS_MAX_APPS + 1; i++)
		sbuf_addf(&d, "<app_id>%d</app_id>", i);
	sbuf_addstr(&d, "</apps_selected></project_specific></project_preferences>");
	assert_int_equal(prefs_project_parse(sbuf_str(&d), "", &p, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "more than 256 apps"));
	assert_int_equal(p.napps, 0);   /* the defaults */
	sbuf_reset(&d);
	sbuf_reset(&err);
	sbuf_addstr(&d, "<project_preferences>");
	while (d.len <= PREFS_MAX_BYTES)
		sbuf_addstr(&d, "<x>1</x>");
	sbuf_addstr(&d, "</project_preferences>");
	assert_int_equal(prefs_project_check(sbuf_str(&d), &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "over 65536 bytes"));
	sbuf_release(&d);
	sbuf_release(&err);
}

static void test_write_reads_back(void **state)
{
	struct sbuf b = SBUF_INIT(PREFS_MAX_BYTES), err = SBUF_INIT(1024);
	struct prefs_project d, w, r;
	const struct prefs_project *v[4] = { &d, NULL, NULL, &w };

	(void)state;
	prefs_project_init(&d);
	prefs_project_init(&w);
	d.resource_share = 25;
	d.specific = xstrdup("<color>red</color>\n");
	w.no_rsc[PREFS_NVIDIA] = true;
	w.apps[w.napps++] = 1;
	w.allow_others = true;
	prefs_project_write(&b, v);
	assert_int_equal(prefs_project_check(sbuf_str(&b), &err), 0);
	assert_int_equal(prefs_project_parse(sbuf_str(&b), "work", &r, &err), 0);
	assert_true(r.no_rsc[PREFS_NVIDIA] && r.allow_others && r.napps == 1 && r.apps[0] == 1);
	assert_true(r.resource_share < 0);
	prefs_project_release(&r);
	assert_int_equal(prefs_project_parse(sbuf_str(&b), "school", &r, &err), 0);
	assert_true(r.resource_share == 25);
	assert_string_equal(r.specific, "<color>red</color>\n");
	prefs_project_release(&r);
	prefs_project_release(&d);
	sbuf_release(&b);
	sbuf_release(&err);
}

static void test_venues(void **state)
{
	(void)state;
	assert_true(prefs_venue_ok("") && prefs_venue_ok("home") && prefs_venue_ok("work") &&
		    prefs_venue_ok("school"));
	assert_false(prefs_venue_ok("Work") || prefs_venue_ok("office"));
	assert_string_equal(prefs_rsc_tag(PREFS_INTEL), "no_intel_gpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_and_venue),
		cmocka_unit_test(test_empty_is_every_app),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_too_many_apps_and_too_long),
		cmocka_unit_test(test_write_reads_back),
		cmocka_unit_test(test_venues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
