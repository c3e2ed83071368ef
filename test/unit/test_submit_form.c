/*
 * Unit tests for the form bodies of the remote submission RPCs
 * (sched/submit_form.c): multipart as BOINC's C client and curl write it,
 * urlencoded as BOINC's Python client does, and the malformed bodies a
 * stranger may send.
 */
#include "unit.h"
#include "submit_form.h"

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
	form_free(&f);
	sbuf_free(&err);
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
	form_free(&f);
	sbuf_free(&err);
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
		form_free(&f);
		sbuf_free(&err);
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
	form_free(&f);
	/* the same when the first has a filename and no name */
	assert_int_equal(parse(CT, "------XyZ\r\nContent-Disposition: form-data; filename=\"a\"\r\n"
			       "Content-Disposition: form-data; name=\"b\"; filename=\"c\"\r\n\r\n"
			       "x\r\n------XyZ--\r\n", &f, &err), 0);
	assert_string_equal(f.parts[0].name, "");
	assert_string_equal(f.parts[0].filename, "a");
	form_free(&f);
	sbuf_free(&err);
}

static void test_bad_content_types(void **state)
{
	struct sbuf err = SBUF_INIT(1024);
	struct form f;

	(void)state;
	assert_int_equal(parse("multipart/form-data", "x", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "boundary"));
	form_free(&f);
	sbuf_reset(&err);
	assert_int_equal(parse("text/plain", "request=x", &f, &err), -1);
	assert_non_null(strstr(sbuf_str(&err), "not accepted"));
	form_free(&f);
	sbuf_free(&err);
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
	form_free(&f);
	/* a query string too; no Content-Type means urlencoded */
	assert_int_equal(form_parse_query("sessionID=ab%20c&ticket=1", &f, &err), 0);
	v = form_value(&f, "sessionID");
	assert_string_equal(v, "ab c");
	free(v);
	form_free(&f);
	assert_int_equal(form_parse(NULL, "x=1", 3, &f, &err), 0);
	form_free(&f);
	sbuf_free(&err);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
