/*
 * Unit tests for what the embedded HTTP server reads (serve/serve_http_msg.c):
 * the request target split into PATH_INFO and QUERY_STRING under a base
 * path, and a handler's CGI reply turned into a status and headers.
 */
#include "unit.h"
#include "serve_http_msg.h"

/* The target under script: its code, and "PATH_INFO|QUERY_STRING" in out when taken. */
static int target(const char *uri, const char *script, char *out, size_t n)
{
	struct sbuf why = SBUF_INIT(256);
	char *path, *query;
	int rc = serve_http_target(uri, script, &path, &query, &why);

	if (rc == 0)
		snprintf(out, n, "%s|%s", path, query);
	else
		assert_true(why.len > 0 && !path && !query);
	free(path);
	free(query);
	sbuf_release(&why);
	return rc;
}

static void test_targets_taken(void **state)
{
	static const struct {
		const char *uri, *script, *want;
	} ok[] = {
		{ "/task?sessionID=ab&ticket=1", "", "/task|sessionID=ab&ticket=1" },
		{ "/", "", "/|" },
		{ "/sweep/task?x", "/sweep", "/task|x" },
		{ "/sweep", "/sweep", "|" },
		{ "/sweep?q", "/sweep", "|q" },
		{ "/%65nv?a=%20b", "", "/env|a=%20b" },         /* the path decoded, the query not */
		{ "/a%2Fb", "", "/a/b|" },
		{ "/a?b?c", "", "/a|b?c" },
	};
	char out[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(target(ok[i].uri, ok[i].script, out, sizeof(out)), 0);
		assert_string_equal(out, ok[i].want);
	}
}

static void test_targets_refused(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(target("/env", "/sweep", out, sizeof(out)), 404);
	assert_int_equal(target("/sweeper/env", "/sweep", out, sizeof(out)), 404);
	assert_int_equal(target("/swe", "/sweep", out, sizeof(out)), 404);
	assert_int_equal(target("env", "", out, sizeof(out)), 400);
	assert_int_equal(target("*", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a%00b", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a%0Ab", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a%7f", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a%zz", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a%4", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a\tb", "", out, sizeof(out)), 400);
	assert_int_equal(target("/a?b\x7f", "", out, sizeof(out)), 400);
}

static int reply(const char *text, struct serve_http_reply *rp)
{
	struct sbuf why = SBUF_INIT(256);
	int rc = serve_http_reply_parse(text, strlen(text), rp, &why);

	assert_true(rc == 0 || why.len > 0);
	sbuf_release(&why);
	return rc;
}

static void test_replies_read(void **state)
{
	static const char sweep[] = "Status: 404 Not Found\r\nContent-Type: text/plain\r\n"
				    "Content-Length: 16\r\nX-Content-Type-Options: none\r\n\r\n"
				    "no such request\n";
	struct serve_http_reply rp;

	(void)state;
	assert_int_equal(reply(sweep, &rp), 0);
	assert_int_equal(rp.status, 404);
	assert_int_equal(rp.nh, 1);             /* Content-Length and the nosniff are the server's */
	assert_string_equal(rp.h[0].name, "Content-Type");
	assert_string_equal(rp.h[0].value, "text/plain");
	assert_true(rp.has_type);
	assert_string_equal(sweep + rp.body, "no such request\n");
	serve_http_reply_release(&rp);
	/* the upload handler's: bare LFs, a lower-case name, no Status */
	assert_int_equal(reply("Content-type: text/plain\n\nbody\n--end content--\n", &rp), 0);
	assert_int_equal(rp.status, 200);
	assert_true(rp.has_type);
	serve_http_reply_release(&rp);
	assert_int_equal(reply("Location: /x\r\n\r\n", &rp), 0);
	assert_int_equal(rp.status, 302);
	assert_false(rp.has_type);
	serve_http_reply_release(&rp);
	assert_int_equal(reply("Status: 204 No Content\r\n\r\n", &rp), 0);
	assert_int_equal(rp.status, 204);
	assert_int_equal(rp.nh, 0);
	serve_http_reply_release(&rp);
}

static void test_replies_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"Status: 200 OK\r\nno blank line follows",
		"Status: 200 OK\r\nno colon\r\n\r\n",
		"Status: 99 Low\r\n\r\n",
		"Status: 600 High\r\n\r\n",
		"Status: 2000\r\n\r\n",
		"Status: OK\r\n\r\n",
		"Bad Name: x\r\n\r\n",
		": x\r\n\r\n",
		"X-A: a\rb\r\n\r\n",
	};
	struct serve_http_reply rp;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(reply(bad[i], &rp), -1);
		serve_http_reply_release(&rp);
	}
}

static void test_too_many_headers(void **state)
{
	struct sbuf text = SBUF_INIT(65536);
	struct serve_http_reply rp;
	int i;

	(void)state;
	for (i = 0; i <= SERVE_HTTP_MAX_HEADERS; i++)
		sbuf_addf(&text, "X-H%d: v\r\n", i);
	sbuf_addstr(&text, "\r\n");
	assert_int_equal(reply(sbuf_str(&text), &rp), -1);
	serve_http_reply_release(&rp);
	sbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets_taken),
		cmocka_unit_test(test_targets_refused),
		cmocka_unit_test(test_replies_read),
		cmocka_unit_test(test_replies_refused),
		cmocka_unit_test(test_too_many_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
