/*
 * The embedded HTTP server's readers (serve/serve_http_msg.c): the request
 * target a stranger sends, split into PATH_INFO and QUERY_STRING, and the
 * CGI reply a handler writes (whose body may hold a host's bytes). Even
 * first byte: the target, under "" and "/sweep"; property: a target taken
 * has a PATH_INFO without NUL that is "" or starts with '/', and a refusal
 * says why. Odd: the reply; property: a reply taken has a status of
 * 100..599, header names without ':' or blanks and values without line
 * ends, and a body inside the text.
 */
#include "fuzz.h"
#include "serve_http_msg.h"

static void target_under(const char *s, const char *script)
{
	struct sbuf why = SBUF_INIT(256);
	char *path = NULL, *query = NULL;
	int rc = serve_http_target(s, script, &path, &query, &why);

	if (rc == 0) {
		FUZZ_CHECK(path && query);
		FUZZ_CHECK(!*path || *path == '/');
		FUZZ_CHECK(strlen(query) <= strlen(s));
	} else {
		FUZZ_CHECK((rc == 400 || rc == 404) && why.len > 0 && !path && !query);
	}
	free(path);
	free(query);
	sbuf_release(&why);
}

static void target(const char *data, size_t size)
{
	char *s = fuzz_cstr((const uint8_t *)data, size);

	target_under(s, "");
	target_under(s, "/sweep");
	free(s);
}

static void reply(const char *data, size_t size)
{
	struct serve_http_reply rp;
	struct sbuf why = SBUF_INIT(256);
	size_t i;

	if (serve_http_reply_parse(data, size, &rp, &why) == 0) {
		FUZZ_CHECK(rp.status >= 100 && rp.status <= 599);
		FUZZ_CHECK(rp.body <= size && rp.nh <= SERVE_HTTP_MAX_HEADERS);
		for (i = 0; i < rp.nh; i++) {
			FUZZ_CHECK(*rp.h[i].name && !strpbrk(rp.h[i].name, ": \t\r\n"));
			FUZZ_CHECK(!strpbrk(rp.h[i].value, "\r\n"));
		}
	} else {
		FUZZ_CHECK(why.len > 0);
	}
	serve_http_reply_release(&rp);
	sbuf_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, target, reply);
	return 0;
}
