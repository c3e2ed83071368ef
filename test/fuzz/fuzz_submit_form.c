/*
 * The form bodies of the remote submission RPCs (lib/form.c):
 * multipart/form-data as the C client and boinc_gahp send it,
 * application/x-www-form-urlencoded as BOINC's Python client does, and the
 * query string of get_output.php. The input is
 *
 *   CONTENT_TYPE \n CONTENT_LENGTH \n body
 *
 * read by form_read_body_gated() -- its first GATE_HEAD bytes parsed by
 * form_parse_head() before the rest is read -- and parsed by form_parse();
 * a CONTENT_TYPE of "?" parses the body as a query string instead.
 * Properties: every part lies inside the body (or head) or owns its bytes,
 * form_get finds each name, and a body that parses whole parses as a head
 * to the same parts.
 */
#include "fuzz.h"
#include "form.h"

#define MAX_BODY (1L << 20)
#define GATE_HEAD 64

struct reader {
	const char *p;
	size_t left;
};

/* Hands out the body a few bytes at a time, as a slow connection would. */
static long rd(void *arg, char *buf, size_t n)
{
	struct reader *r = arg;

	if (n > r->left)
		n = r->left;
	if (n > 1000)
		n = 1000;
	memcpy(buf, r->p, n);
	r->p += n;
	r->left -= n;
	return (long)n;
}

static void check_form(const struct form *f, const char *body, size_t len)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct form_part *p = &f->parts[i];
		const struct form_part *g = form_get(f, p->name);
		char *v;

		FUZZ_CHECK(p->name != NULL);
		FUZZ_CHECK(p->owned ? p->data == p->owned
				    : p->data >= body && p->data + p->len <= body + len);
		FUZZ_CHECK(g != NULL && !strcmp(g->name, p->name));
		v = form_value(f, p->name);
		free(v);
	}
}

/* The gate: the head as submit_cgi.c's check parses it; lets every body through. */
static int check_head(void *arg, const char *head, size_t len, long total, struct sbuf *why)
{
	struct form f;

	FUZZ_CHECK(len == GATE_HEAD && total > GATE_HEAD);
	if (form_parse_head(arg, head, len, &f, why) == 0)
		check_form(&f, head, len);
	form_release(&f);
	sbuf_reset(why);
	return 0;
}

/* The whole body as a head: what form_parse() found, part for part. */
static void check_whole_head(const char *ctype, const char *body, size_t len, const struct form *whole)
{
	struct sbuf err = SBUF_INIT(1024);
	struct form h;
	size_t i;

	FUZZ_CHECK(form_parse_head(ctype, body, len, &h, &err) == 0);
	FUZZ_CHECK(h.n == whole->n);
	for (i = 0; i < h.n; i++)
		FUZZ_CHECK(h.parts[i].len == whole->parts[i].len &&
			   !strcmp(h.parts[i].name, whole->parts[i].name));
	form_release(&h);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *nl1, *nl2, *body;
	struct form f;
	struct sbuf err = SBUF_INIT(1024), why = SBUF_INIT(1024);
	struct reader r;
	struct form_gate gate = { GATE_HEAD, check_head, NULL };
	size_t len = 0;

	fuzz_setup();
	if (!(nl1 = memchr(in, '\n', size)) || !(nl2 = memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - in))))
		goto out;
	*nl1 = *nl2 = '\0';
	r.p = nl2 + 1;
	r.left = size - (size_t)(nl2 + 1 - in);
	gate.arg = in;
	body = form_read_body_gated(nl1 + 1, MAX_BODY, &gate, rd, &r, &len, &why);
	if (!body) {
		FUZZ_CHECK(why.len > 0);
		goto out;
	}
	FUZZ_CHECK(body[len] == '\0');
	if (!strcmp(in, "?")) {
		if (form_parse_query(body, &f, &err) == 0)
			check_form(&f, body, len);
	} else if (form_parse(in, body, len, &f, &err) == 0) {
		check_form(&f, body, len);
		check_whole_head(in, body, len, &f);
	} else {
		FUZZ_CHECK(err.len > 0);
	}
	form_release(&f);
	free(body);
out:
	sbuf_release(&err);
	sbuf_release(&why);
	free(in);
	return 0;
}
