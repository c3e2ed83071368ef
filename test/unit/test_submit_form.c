/*
 * Unit tests for the form bodies of the remote submission RPCs
 * (lib/form.c): multipart as BOINC's C client and curl write it,
 * urlencoded as BOINC's Python client does, and the malformed bodies a
 * stranger may send.
 */
#include "unit.h"
#include "form.h"

#define CT "multipart/form-data; boundary=----XyZ"

static int parse(const char *ct, const char *body, struct form *f, struct sbuf *err)
{
	return form_parse(ct, body, strlen(body), f, err);
}

static void test_multipart_fields_and_files(void **state)
{
	static const char body[] =
		"------XyZ\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n"
		"<ping/>\r\n"
		"------XyZ\r\nContent-Disposition: form-data; name=\"file_0\"; filename=\"a b.dat\"\r\n"
		"Content-Type: application/octet-stream\r\n\r\n"
		"line 1\r\n------XyZnot a boundary\r\n\r\n"
		"------XyZ--\r\n";
	struct sbuf err = SBUF_INIT(1024);
	struct form f;
	const struct form_part *p;
	char *v;

	(void)state;
	assert_int_equal(parse(CT, body, &f, &err), 0);
	assert_int_equal(f.n, 2);
	v = form_value(&f, "request");
	assert_string_equal(v, "<ping/>");
	free(v);
	p = form_get(&f, "file_0");
	assert_non_null(p);
	assert_string_equal(p->filename, "a b.dat");
	/* the part's data is everything up to CRLF + the delimiter, lookalikes included */
	assert_int_equal(p->len, strlen("line 1\r\n------XyZnot a boundary\r\n"));
	assert_memory_equal(p->data, "line 1\r\n------XyZnot a boundary\r\n", p->len);
	assert_null(form_get(&f, "file_1"));
	form_release(&f);
	sbuf_release(&err);
}

static void test_multipart_binary_part(void **state)
{
	char body[256];
	size_t n = 0;
	struct sbuf err = SBUF_INIT(1024);
	struct form f;
	const struct form_part *p;

	(void)state;
	n += (size_t)snprintf(body + n, sizeof(body) - n,
			      "------XyZ\r\nContent-Disposition: form-data; name=\"file_0\"\r\n\r\n");
	memcpy(body + n, "a\0b\0", 4);
	n += 4;
	n += (size_t)snprintf(body + n, sizeof(body) - n, "\r\n------XyZ--\r\n");
	assert_int_equal(form_parse(CT, body, n, &f, &err), 0);
	p = form_get(&f, "file_0");
	assert_non_null(p);
	assert_int_equal(p->len, 4);
	assert_memory_equal(p->data, "a\0b\0", 4);
	assert_null(form_value(&f, "file_0"));  /* not a string: it holds NUL bytes */
	form_release(&f);
	sbuf_release(&err);
}

static void test_multipart_malformed(void **state)
{
	static const char *const bodies[] = {
		/* truncated: no closing delimiter */
		"------XyZ\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n<ping/>",
		/* truncated inside the headers */
		"------XyZ\r\nContent-Disposition: form-da",
		/* no boundary at all */
		"<ping/>",
		/* garbage after a delimiter */
		"------XyZ junk",
		"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bodies); i++) {
		struct sbuf err = SBUF_INIT(1024);
		struct form f;

		assert_int_equal(parse(CT, bodies[i], &f, &err), -1);
		assert_true(err.len > 0);
		form_release(&f);
		sbuf_release(&err);
	}
}

/* Found by fuzz_submit_form: the second header's name leaked the first's. */
static void test_multipart_two_dispositions(void **state)
{
	static const char body[] =
		"------XyZ\r\nContent-Disposition: form-data; name=\"request\"\r\n"
		"Content-Disposition: form-data; name=\"file_0\"; filename=\"f\"\r\n\r\n"
		"<ping/>\r\n------XyZ--\r\n";
	struct sbuf err = SBUF_INIT(1024);
	struct form f;
	char *v;

	(void)state;
	assert_int_equal(parse(CT, body, &f, &err), 0);
	assert_int_equal(f.n, 1);
	v = form_value(&f, "request");
	assert_string_equal(v, "<ping/>");
	free(v);
	assert_null(f.parts[0].filename);
	form_release(&f);
	/* the same when the first has a filename and no name */
	assert_int_equal(parse(CT, "------XyZ\r\nContent-Disposition: form-data; filename=\"a\"\r\n"
			       "Content-Disposition: form-data; name=\"b\"; filename=\"c\"\r\n\r\n"
			       "x\r\n------XyZ--\r\n", &f, &err), 0);
	assert_string_equal(f.parts[0].name, "");
	assert_string_equal(f.parts[0].filename, "a");
	form_release(&f);
	sbuf_release(&err);
}

static void test_bad_content_types(void **state)
{
	struct sbuf err = SBUF_INIT(1024);
	struct form f;

	(void)state;
	assert_int_equal(parse("multipart/form-data", "x", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "boundary"));
	form_release(&f);
	sbuf_reset(&err);
	assert_int_equal(parse("text/plain", "request=x", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "not accepted"));
	form_release(&f);
	sbuf_release(&err);
}

static void test_urlencoded(void **state)
{
	struct sbuf err = SBUF_INIT(1024);
	struct form f;
	char *v;

	(void)state;
	assert_int_equal(parse("application/x-www-form-urlencoded",
			       "a=1&request=%3Cping%2F%3E+x%zz%4&&flag&empty=", &f, &err), 0);
	v = form_value(&f, "request");
	assert_string_equal(v, "<ping/> x%zz%4");     /* bad escapes kept as they are */
	free(v);
	v = form_value(&f, "flag");
	assert_string_equal(v, "");
	free(v);
	v = form_value(&f, "empty");
	assert_string_equal(v, "");
	free(v);
	assert_int_equal(f.n, 4);
	form_release(&f);
	/* a query string too; no Content-Type means urlencoded */
	assert_int_equal(form_parse_query("sessionID=ab%20c&ticket=1", &f, &err), 0);
	v = form_value(&f, "sessionID");
	assert_string_equal(v, "ab c");
	free(v);
	form_release(&f);
	assert_int_equal(form_parse(NULL, "x=1", 3, &f, &err), 0);
	form_release(&f);
	sbuf_release(&err);
}

/* a body of one part with this Content-Disposition header value */
static int one_part(const char *disposition, struct form *f, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(1 << 16);
	int rc;

	sbuf_addf(&b, "------XyZ\r\nContent-Disposition: %s\r\n\r\nvalue\r\n------XyZ--\r\n",
		  disposition);
	rc = form_parse(CT, b.buf, b.len, f, err);
	sbuf_release(&b);
	return rc;
}

static void test_field_names_are_text(void **state)
{
	static const struct {
		const char *disposition, *why;
	} bad[] = {
		{ "form-data; name=\"re\001quest\"", "form field name: byte 0x01 at offset 2 is not allowed" },
		{ "form-data; name=\"\xff\xfe\"", "form field name: byte 0xff at offset 0 is not UTF-8" },
		{ "form-data; name=\"\xc0\xaf\"", "is not UTF-8" },     /* an overlong '/' */
	};
	struct sbuf err = SBUF_INIT(1024), d = SBUF_INIT(1024);
	struct form f;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sbuf_reset(&err);
		assert_int_equal(one_part(bad[i].disposition, &f, &err), -1);
		assert_non_null(strstr(sbuf_str(&err), bad[i].why));
		form_release(&f);
	}
	/* 256 characters (UTF-8: 512 bytes) are a name; 257 are not */
	sbuf_addstr(&d, "form-data; name=\"");
	for (i = 0; i < 256; i++)
		sbuf_addstr(&d, "\xc3\xa9");
	sbuf_addstr(&d, "\"");
	assert_int_equal(one_part(sbuf_str(&d), &f, &err), 0);
	form_release(&f);
	sbuf_reset(&d);
	sbuf_addf(&d, "form-data; name=\"%0257d\"", 0);
	sbuf_reset(&err);
	assert_int_equal(one_part(sbuf_str(&d), &f, &err), -1);
	assert_string_equal(sbuf_str(&err), "form field name: longer than 256 characters");
	form_release(&f);
	/* urlencoded names: the same, after decoding */
	sbuf_reset(&err);
	assert_int_equal(parse("application/x-www-form-urlencoded", "request%00x=1", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "NUL"));
	form_release(&f);
	sbuf_reset(&err);
	assert_int_equal(parse("application/x-www-form-urlencoded", "a=1&%0a=2", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "form field name: byte 0x0a"));
	form_release(&f);
	sbuf_release(&err);
	sbuf_release(&d);
}

static void test_filename_cut_and_cleaned_and_one_disposition(void **state)
{
	struct sbuf err = SBUF_INIT(1024), d = SBUF_INIT(4096);
	struct form f;
	const struct form_part *p;
	size_t i;

	(void)state;
	sbuf_addstr(&d, "form-data; name=\"file_0\"; filename=\"\xff");
	for (i = 0; i < 300; i++)
		sbuf_addch(&d, 'x');
	sbuf_addstr(&d, "\"\r\nContent-Disposition: form-data; name=\"other\"; filename=\"o\"");
	assert_int_equal(one_part(sbuf_str(&d), &f, &err), 0);
	p = form_get(&f, "file_0");         /* the first Content-Disposition counts */
	assert_non_null(p);
	assert_int_equal(strlen(p->filename), 254);
	assert_int_equal(p->filename[0], '?');
	assert_null(form_get(&f, "other"));
	form_release(&f);
	/* the first one counts even without a name= (a second one leaked the first's filename) */
	assert_int_equal(one_part("form-data; filename=\"a\"\r\nContent-Disposition: form-data; "
				  "name=\"x\"; filename=\"b\"", &f, &err), 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.parts[0].name, "");
	assert_string_equal(f.parts[0].filename, "a");
	form_release(&f);
	sbuf_release(&err);
	sbuf_release(&d);
}

static long read_mem(void *arg, char *buf, size_t n)
{
	const char **p = arg;
	size_t k = strlen(*p);

	if (k > n)
		k = n;
	memcpy(buf, *p, k);
	*p += k;
	return (long)k;
}

static void test_content_length(void **state)
{
	static const struct {
		const char *cl, *why;
	} bad[] = {
		{ NULL, "no Content-Length" },
		{ "", "no Content-Length" },
		{ "abc", "Content-Length: 'abc' is not a number" },
		{ "nan", "Content-Length: 'nan' is not a number" },
		{ "-1", "Content-Length: -1 is outside [0, 100]" },
		{ "101", "Content-Length: 101 is outside [0, 100]" },
		{ "1e999", "Content-Length: inf is outside [0, 100]" },
		{ "10", "request body cut short: 3 of the 10 bytes of its Content-Length" },
	};
	size_t i, len;
	char *b;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sbuf why = SBUF_INIT(1024);
		const char *data = "abc";

		assert_null(form_read_body_from(bad[i].cl, 100, read_mem, &data, &len, &why));
		assert_string_equal(sbuf_str(&why), bad[i].why);
		sbuf_release(&why);
	}
	{
		struct sbuf why = SBUF_INIT(1024);
		const char *data = "abc";

		b = form_read_body_from("3", 100, read_mem, &data, &len, &why);
		assert_non_null(b);
		assert_int_equal(len, 3);
		assert_string_equal(b, "abc");
		free(b);
		sbuf_release(&why);
	}
}

/* A body's head: whole parts, the one it is cut in so far, a part with its headers cut left out. */
static void test_head(void **state)
{
	static const char ct[] = "multipart/form-data; boundary=B";
	static const char body[] = "--B\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n"
				   "<r><authenticator>k</authenticator></r>\r\n--B\r\n"
				   "Content-Disposition: form-data; name=\"file_0\"\r\n\r\nDATADATA";
	const char *cut = strstr(body, "DATA"), *mid = strstr(body, "<authenticator>");
	struct sbuf err = SBUF_INIT(1024);
	struct form f;

	(void)state;
	assert_int_equal(form_parse_head(ct, body, sizeof(body) - 1, &f, &err), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(form_get(&f, "request")->len, strlen("<r><authenticator>k</authenticator></r>"));
	assert_int_equal(form_get(&f, "file_0")->len, 8);
	form_release(&f);
	assert_int_equal(form_parse(ct, body, sizeof(body) - 1, &f, &err), -1);
	form_release(&f);
	sbuf_reset(&err);
	assert_int_equal(form_parse_head(ct, body, (size_t)(cut - body) - 10, &f, &err), 0);
	assert_int_equal(f.n, 1);
	form_release(&f);
	assert_int_equal(form_parse_head(ct, body, (size_t)(mid - body) + 5, &f, &err), 0); /* "<r><auth" */
	assert_int_equal(f.n, 1);
	assert_int_equal(form_get(&f, "request")->len, 8);
	form_release(&f);
	assert_int_equal(form_parse_head("application/x-www-form-urlencoded",
					 "a=1&request=%3Cr%3E%3Cauth", 26, &f, &err), 0);
	assert_memory_equal(form_get(&f, "request")->data, "<r><auth", 8);
	form_release(&f);
	sbuf_release(&err);
}

struct gate_seen {
	size_t len;
	long total;
	int calls, answer;
};

static int gate_check(void *arg, const char *head, size_t len, long total, struct sbuf *why)
{
	struct gate_seen *g = arg;

	(void)head;
	g->len = len;
	g->total = total;
	g->calls++;
	if (g->answer)
		sbuf_addstr(why, "not you");
	return g->answer;
}

/* The gate sees the first head bytes of a longer body only; a refusal reads no further. */
static void test_gated(void **state)
{
	static const char text[] = "0123456789abcdefghij";
	struct gate_seen g = { 0 };
	struct form_gate gate = { 8, gate_check, &g };
	struct sbuf why = SBUF_INIT(1024);
	const char *data = text;
	size_t len;
	char *b;

	(void)state;
	b = form_read_body_gated("20", 100, &gate, read_mem, &data, &len, &why);
	assert_non_null(b);
	assert_int_equal(len, 20);
	assert_int_equal(g.calls, 1);
	assert_int_equal(g.len, 8);
	assert_int_equal(g.total, 20);
	free(b);
	data = text;
	b = form_read_body_gated("8", 100, &gate, read_mem, &data, &len, &why);
	assert_non_null(b);
	assert_int_equal(g.calls, 1);      /* not over head: no question */
	free(b);
	data = text;
	g.answer = -1;
	assert_null(form_read_body_gated("20", 100, &gate, read_mem, &data, &len, &why));
	assert_string_equal(sbuf_str(&why), "not you");
	assert_string_equal(data, "89abcdefghij");    /* the rest unread */
	sbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multipart_fields_and_files),
		cmocka_unit_test(test_multipart_binary_part),
		cmocka_unit_test(test_multipart_malformed),
		cmocka_unit_test(test_multipart_two_dispositions),
		cmocka_unit_test(test_bad_content_types),
		cmocka_unit_test(test_urlencoded),
		cmocka_unit_test(test_field_names_are_text),
		cmocka_unit_test(test_filename_cut_and_cleaned_and_one_disposition),
		cmocka_unit_test(test_content_length),
		cmocka_unit_test(test_head),
		cmocka_unit_test(test_gated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
