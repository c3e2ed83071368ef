/*
 * The bodies of the sweep HTTP protocol (sweep/proto/sweep_msg.c): the task
 * sweep_client fetches (GET /task), the results it posts (POST /complete,
 * read by the sweep CGI from anyone who can reach it), the output a client
 * posts to /failed (the same body, results optional) and the client
 * configuration (GET /config). The first byte picks the decoder; the rest
 * is the body. Property: what decodes encodes, and decodes again to the
 * same message (the master, the CGI and the client agree on every body).
 */
#include "fuzz.h"
#include "sweep_msg.h"

#define MAX (1u << 20)

static bool same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || !memcmp(a, b, alen));
}

static void task(const char *buf, size_t len)
{
	struct sweep_task t, u;
	struct sbuf out = SBUF_INIT(4 * MAX), err = SBUF_INIT(4096);
	size_t i;

	if (sweep_task_decode(buf, len, MAX, &t, &err) < 0) {
		FUZZ_CHECK(err.len > 0 && t.ninputs == 0 && t.nresults == 0 && !t.ticket);
		goto out;
	}
	FUZZ_CHECK(sweep_task_encode(&t, &out, &err) == 0);
	FUZZ_CHECK(sweep_task_decode(out.buf, out.len, 4 * MAX, &u, &err) == 0);
	FUZZ_CHECK(!strcmp(t.ticket, u.ticket) && t.timeout == u.timeout &&
		   !strcmp(t.command_line, u.command_line));
	FUZZ_CHECK(t.ninputs == u.ninputs && t.nresults == u.nresults);
	for (i = 0; i < t.ninputs; i++)
		FUZZ_CHECK(!strcmp(t.inputs[i].file, u.inputs[i].file) &&
			   same_bytes(t.inputs[i].data, t.inputs[i].len, u.inputs[i].data,
				      u.inputs[i].len));
	for (i = 0; i < t.nresults; i++)
		FUZZ_CHECK(!strcmp(t.results[i].name, u.results[i].name) &&
			   !strcmp(t.results[i].file, u.results[i].file));
	sweep_task_release(&u);
	sweep_task_release(&t);
out:
	sbuf_release(&out);
	sbuf_release(&err);
}

static bool same_stream(const struct sweep_msg_stream *a, const struct sweep_msg_stream *b)
{
	return a->present == b->present && a->size == b->size &&
	       same_bytes(a->data, a->len, b->data, b->len) && (!a->present || a->size >= a->len);
}

/* A /complete body, or (failed) a /failed one. */
static void complete(const char *buf, size_t len, bool failed)
{
	int (*decode)(const char *, size_t, size_t, struct sweep_complete *, struct sbuf *) =
		failed ? sweep_failed_decode : sweep_complete_decode;
	struct sweep_complete c, d;
	struct sbuf out = SBUF_INIT(4 * MAX), err = SBUF_INIT(4096);
	size_t i;

	struct sweep_complete h;
	int hrc = sweep_complete_head(buf, len, &h, &err);

	if (decode(buf, len, MAX, &c, &err) < 0) {
		FUZZ_CHECK(err.len > 0 && c.nresults == 0 && !c.out.data && !c.err.data);
		sweep_complete_release(&h);
		goto out;
	}
	/* the head alone (what the joblog reads) says what the whole body says */
	if (len && buf[len - 1] == '\n')
		FUZZ_CHECK(hrc == 0 && h.have_exit == c.have_exit && h.exit_status == c.exit_status &&
			   h.signal == c.signal);
	sweep_complete_release(&h);
	FUZZ_CHECK((failed ? sweep_failed_encode : sweep_complete_encode)(&c, &out, &err) == 0);
	FUZZ_CHECK(decode(out.buf, out.len, 4 * MAX, &d, &err) == 0);
	FUZZ_CHECK(c.nresults == d.nresults && c.have_exit == d.have_exit &&
		   c.exit_status == d.exit_status && c.signal == d.signal);
	FUZZ_CHECK(same_stream(&c.out, &d.out) && same_stream(&c.err, &d.err));
	FUZZ_CHECK(c.out.len <= SWEEP_OUTPUT_MAX && c.err.len <= SWEEP_OUTPUT_MAX);
	for (i = 0; i < c.nresults; i++) {
		FUZZ_CHECK(!strcmp(c.results[i].name, d.results[i].name));
		FUZZ_CHECK(same_bytes(c.results[i].data, c.results[i].len, d.results[i].data,
				      d.results[i].len));
		FUZZ_CHECK(sweep_complete_find(&c, c.results[i].name) == &c.results[i]);
	}
	sweep_complete_release(&d);
	sweep_complete_release(&c);
out:
	sbuf_release(&out);
	sbuf_release(&err);
}

static void config(const char *buf, size_t len)
{
	struct sweep_config c, d;
	struct sbuf out = SBUF_INIT(4096), err = SBUF_INIT(4096);

	if (sweep_config_decode(buf, len, MAX, &c, &err) == 0) {
		FUZZ_CHECK(sweep_config_encode(&c, &out, &err) == 0);
		FUZZ_CHECK(sweep_config_decode(out.buf, out.len, MAX, &d, &err) == 0);
		FUZZ_CHECK(c.delete_worker == d.delete_worker && c.delete_client == d.delete_client &&
			   c.ping == d.ping && c.send_output == d.send_output);
	}
	sbuf_release(&out);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data + 1;

	fuzz_setup();
	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0: task(body, size - 1); break;
	case 1: complete(body, size - 1, false); break;
	case 2: config(body, size - 1); break;
	default: complete(body, size - 1, true); break;
	}
	return 0;
}
