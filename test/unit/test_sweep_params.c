/* Unit tests for the sweep parameter file (sweep/proto/sweep_params.c). */
#include "test_sweep_util.h"
#include "sweep_params.h"

static int parse(const char *text, struct sweep_params *p, struct sbuf *err)
{
	sbuf_reset(err);
	return sweep_params_parse("params", text, strlen(text), p, err);
}

static void expect_error(const char *text, const char *want)
{
	struct sweep_params p;
	struct sbuf err = SBUF_INIT(4096);

	if (parse(text, &p, &err) != -1)
		fail_msg("parsed, but should fail with %s:\n%s", want, text);
	assert_err(&err, want);
	assert_null(p.names);
	assert_null(p.rows);
	sbuf_release(&err);
}

static void test_good(void **state)
{
	struct sweep_params p;
	struct sbuf err = SBUF_INIT(4096);
	const char *text =
		"# comment before the headline\r\n"
		"\r\n"
		" alpha | beta|label \r\n"
		"1|2|plain words\r\n"
		"  # a comment line\n"
		"\t\n"
		"3 |  | \"a|b\"\n"
		"\"5\"|\" 6 \"|\"say \"\"hi\"\"\"  \n"
		"7|8|#not a comment in the last cell\n"
		"9|10|x\"y";

	(void)state;
	assert_int_equal(parse(text, &p, &err), 0);
	assert_int_equal(p.nnames, 3);
	assert_string_equal(p.names[0], "alpha");
	assert_string_equal(p.names[1], "beta");
	assert_string_equal(p.names[2], "label");
	assert_int_equal(p.headline, 3);
	assert_int_equal(p.nrows, 5);
	assert_int_equal(p.rows[0].line, 4);
	assert_string_equal(p.rows[0].values[2], "plain words");
	assert_int_equal(p.rows[1].line, 7);
	assert_string_equal(p.rows[1].values[0], "3");
	assert_string_equal(p.rows[1].values[1], "");
	assert_string_equal(p.rows[1].values[2], "a|b");
	assert_int_equal(p.rows[2].line, 8);
	assert_string_equal(p.rows[2].values[0], "5");
	assert_string_equal(p.rows[2].values[1], " 6 ");
	assert_string_equal(p.rows[2].values[2], "say \"hi\"");
	assert_string_equal(p.rows[3].values[2], "#not a comment in the last cell");
	assert_int_equal(p.rows[4].line, 10);
	assert_string_equal(p.rows[4].values[2], "x\"y");
	assert_int_equal(sweep_params_index(&p, "beta", 4), 1);
	assert_int_equal(sweep_params_index(&p, "bet", 3), -1);
	sweep_params_release(&p);
	sbuf_release(&err);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("a|b|c|d\n1|2|3|4\n\n# x\n1|2|3|4\n1|2|3|4\n1|2|3\n",
		     "params:7: 3 cells, the headline has 4");
	expect_error("a|b\n1|2|3\n", "params:2: 3 cells, the headline has 2");
	expect_error("a|b\n1\n", "params:2: 1 cell, the headline has 2");
	expect_error("a|b\n1|\"x|y\"|z\n", "params:2: 3 cells, the headline has 2");
	expect_error("", "params: empty (no headline)");
	expect_error("\n# only comments\n   \n", "params: empty (no headline)");
	expect_error("# c\na|b\n", "params:2: no parameter sets after the headline");
	expect_error("a|b|a\n1|2|3\n", "params:1: duplicate parameter name 'a' (cells 1 and 3)");
	expect_error("\nx|y|z|y\n", "params:2: duplicate parameter name 'y' (cells 2 and 4)");
	expect_error("a|b-c\n1|2\n", "params:1: bad parameter name 'b-c' (letters, digits and _ only)");
	expect_error("a||c\n1|2|3\n", "params:1: parameter 2 has no name");
	expect_error("a|b\n1|\"open\n", "params:2: cell 2: no closing quote");
	expect_error("a|b\n\"x\" y|2\n", "params:2: cell 1: text after the closing quote");
}

static void test_nul(void **state)
{
	struct sweep_params p;
	struct sbuf err = SBUF_INIT(4096);

	(void)state;
	assert_int_equal(sweep_params_parse("params", "a\n1\n2\0\n", 7, &p, &err), -1);
	assert_err(&err, "params:3: NUL byte in the line");
	sbuf_release(&err);
}

/* Values that need quoting, and plain ones, survive format then parse. */
static void test_quote_round_trip(void **state)
{
	static const char *const vals[] = {
		"plain", "", " lead", "trail ", "\tboth\t", "a|b", "|", "\"", "\"\"",
		"say \"hi\"", "#hash", "a#b", "x\ry", "end\r", "  \" | \"  ", "ünïcødé",
	};
	struct sweep_params p, q;
	struct sbuf out = SBUF_INIT(1 << 20), err = SBUF_INIT(4096);
	size_t nv = ARRAY_SIZE(vals), r, k;
	unsigned seed = 12345;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.nnames = 3;
	p.names = xcalloc(3, sizeof(char *));
	p.names[0] = xstrdup("first");
	p.names[1] = xstrdup("second");
	p.names[2] = xstrdup("third");
	p.nrows = 3 * nv;
	p.rows = xcalloc(p.nrows, sizeof(*p.rows));
	for (r = 0; r < p.nrows; r++) {
		p.rows[r].values = xcalloc(3, sizeof(char *));
		for (k = 0; k < 3; k++) {
			/* every value in every column, then random mixes */
			seed = seed * 1103515245u + 12345u;
			p.rows[r].values[k] = xstrdup(vals[r < nv ? r : (seed >> 16) % nv]);
		}
	}
	assert_int_equal(sweep_params_format(&p, &out), 0);
	if (sweep_params_parse("params", out.buf, out.len, &q, &err) < 0)
		fail_msg("%s\n%s", sbuf_str(&err), sbuf_str(&out));
	assert_int_equal(q.nnames, 3);
	assert_int_equal(q.nrows, p.nrows);
	for (r = 0; r < p.nrows; r++)
		for (k = 0; k < 3; k++)
			assert_string_equal(q.rows[r].values[k], p.rows[r].values[k]);
	sweep_params_release(&q);

	/* A single column of empty values: each row must not read as a blank line. */
	sbuf_reset(&out);
	assert_int_equal(sweep_params_quote("", &out), 0);
	assert_string_equal(sbuf_str(&out), "\"\"");
	assert_int_equal(sweep_params_quote("a\nb", &out), -1);
	sweep_params_release(&p);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void test_doc_examples(void **state)
{
	struct doc_block *b;
	size_t n = doc_blocks("doc/sweep-formats.md", "params", &b), i;
	struct sbuf err = SBUF_INIT(4096);
	struct sweep_params p;
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/test/data/sweep/params", src ? src : "..");

	(void)state;
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		if (parse(b[i].text, &p, &err) < 0)
			fail_msg("doc/sweep-formats.md:%d: %s", b[i].line, sbuf_str(&err));
		assert_true(p.nrows > 0);
		sweep_params_release(&p);
	}
	doc_blocks_free(b, n);
	assert_int_equal(sweep_params_read(path, &p, &err), 0);
	assert_true(p.nrows >= 3);
	sweep_params_release(&p);
	free(path);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_doc_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
