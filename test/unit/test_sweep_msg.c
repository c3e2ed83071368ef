/* Unit tests for the sweep protocol bodies (sweep/proto/sweep_msg.c). */
#include "test_sweep_util.h"
#include "sweep_msg.h"

#define MAX (1u << 22)

static unsigned rnd_state = 4711;

static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 16;
}

/* Contents that break a naive reader: the end marker, NULs, CRs, no final newline. */
static void tricky_contents(char ***data, size_t **lens, size_t *n)
{
	static const char *const fixed[] = {
		"",
		"\n",
		"no newline at the end",
		"line\n",
		"--end content--",
		"--end content--\n",
		"\n--end content--\n",
		"a\n--end content--\nb\n--end content--\n",
		"\r\n--end content--\r\n",
		"--begin content--\n",
		"[Result]\nName=x\n",
	};
	size_t i, k = 0, total = ARRAY_SIZE(fixed) + 4;

	*data = xcalloc(total, sizeof(char *));
	*lens = xcalloc(total, sizeof(size_t));
	for (i = 0; i < ARRAY_SIZE(fixed); i++, k++) {
		(*lens)[k] = strlen(fixed[i]);
		(*data)[k] = xstrdup(fixed[i]);
	}
	/* All 256 byte values, twice, in order. */
	(*lens)[k] = 512;
	(*data)[k] = xmalloc(512);
	for (i = 0; i < 512; i++)
		(*data)[k][i] = (char)(i & 0xff);
	k++;
	/* NULs only. */
	(*lens)[k] = 100;
	(*data)[k] = xcalloc(1, 100);
	k++;
	/* Random bytes with markers planted in them. */
	for (; k < total; k++) {
		size_t len = 3000 + rnd() % 3000;

		(*lens)[k] = len;
		(*data)[k] = xmalloc(len);
		for (i = 0; i < len; i++)
			(*data)[k][i] = (char)rnd();
		memcpy((*data)[k] + 100, "\n--end content--\n", 17);
		memcpy((*data)[k] + len - 16, "\n--end content--", 16);
	}
	*n = total;
}

static void free_contents(char **data, size_t *lens, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(data[i]);
	free(data);
	free(lens);
}

static void build_task(struct sweep_task *t, char **data, size_t *lens, size_t n)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->ticket = xstrdup("48213");
	t->timeout = 60;
	t->command_line = xstrdup("./worker -a 1 'two words'");
	for (i = 0; i < n; i++) {
		char *name = xasprintf("in%zu.dat", i);

		sweep_task_add_input(t, i == 0 ? "stdin" : name, data[i], lens[i]);
		free(name);
	}
	sweep_task_add_result(t, "out", "stdout");
	sweep_task_add_result(t, "log", "sub/worker.log");
}

static void test_task_round_trip(void **state)
{
	char **data;
	size_t *lens, n, i;
	struct sweep_task t, u;
	struct sbuf out = SBUF_INIT(MAX), err = SBUF_INIT(4096);

	(void)state;
	tricky_contents(&data, &lens, &n);
	build_task(&t, data, lens, n);
	assert_int_equal(sweep_task_encode(&t, &out, &err), 0);
	if (sweep_task_decode(out.buf, out.len, MAX, &u, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	assert_string_equal(u.ticket, "48213");
	assert_int_equal(u.timeout, 60);
	assert_string_equal(u.command_line, "./worker -a 1 'two words'");
	assert_int_equal(u.ninputs, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(u.inputs[i].file, t.inputs[i].file);
		assert_int_equal(u.inputs[i].len, lens[i]);
		assert_memory_equal(u.inputs[i].data, data[i], lens[i] ? lens[i] : 1);
		assert_int_equal(u.inputs[i].data[lens[i]], '\0');
	}
	assert_int_equal(u.nresults, 2);
	assert_string_equal(u.results[1].name, "log");
	assert_string_equal(u.results[1].file, "sub/worker.log");
	sweep_task_release(&u);
	sweep_task_release(&t);
	free_contents(data, lens, n);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void test_complete_round_trip(void **state)
{
	char **data;
	size_t *lens, n, i;
	struct sweep_complete c, d;
	struct sbuf out = SBUF_INIT(MAX), err = SBUF_INIT(4096);

	(void)state;
	memset(&c, 0, sizeof(c));
	tricky_contents(&data, &lens, &n);
	for (i = 0; i < n; i++) {
		char *name = xasprintf("r%zu", i);

		sweep_complete_add(&c, name, data[i], lens[i]);
		free(name);
	}
	assert_int_equal(sweep_complete_encode(&c, &out, &err), 0);
	if (sweep_complete_decode(out.buf, out.len, MAX, &d, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	assert_int_equal(d.nresults, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(d.results[i].name, c.results[i].name);
		assert_int_equal(d.results[i].len, lens[i]);
		assert_memory_equal(d.results[i].data, data[i], lens[i] ? lens[i] : 1);
	}
	assert_non_null(sweep_complete_find(&d, "r3"));
	assert_null(sweep_complete_find(&d, "r99"));
	sweep_complete_release(&d);
	sweep_complete_release(&c);
	free_contents(data, lens, n);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void expect_config_error(const char *body, const char *want);

/* Exit, Signal, [Stdout] and [Stderr]: written, read back, the cut marked by Size. */
static void test_output_round_trip(void **state)
{
	struct sweep_complete c = { 0 }, d;
	struct sbuf out = SBUF_INIT(MAX), err = SBUF_INIT(4096);
	char *big = xmalloc(SWEEP_OUTPUT_MAX);

	(void)state;
	memset(big, 'e', SWEEP_OUTPUT_MAX);
	c.have_exit = true;
	c.exit_status = 3;
	sweep_complete_add(&c, "out", "42\n", 3);
	sweep_complete_stream(&c.out, "42\n--end content--\n", 19, 19);
	sweep_complete_stream(&c.err, big, SWEEP_OUTPUT_MAX, 5u * SWEEP_OUTPUT_MAX);
	assert_int_equal(sweep_complete_encode(&c, &out, &err), 0);
	assert_true(!strncmp(sbuf_str(&out), "Exit=3\n[Result]\nName=out\n", 25));
	assert_non_null(strstr(sbuf_str(&out), "[Stdout]\nSize=19\nLength=19\n"));
	assert_non_null(strstr(sbuf_str(&out), "[Stderr]\nSize=5242880\nLength=1048576\n"));
	assert_int_equal(sweep_complete_decode(out.buf, out.len, MAX, &d, &err), 0);
	assert_true(d.have_exit);
	assert_int_equal(d.exit_status, 3);
	assert_int_equal(d.signal, 0);
	assert_int_equal(d.nresults, 1);
	assert_true(d.out.present && d.err.present);
	assert_int_equal(d.out.len, 19);
	assert_memory_equal(d.out.data, "42\n--end content--\n", 19);
	assert_int_equal(d.out.size, 19);
	assert_int_equal(d.err.len, SWEEP_OUTPUT_MAX);
	assert_int_equal(d.err.size, 5u * SWEEP_OUTPUT_MAX);
	sweep_complete_release(&d);

	/* /failed's body: no [Result] needed; a signal, no Exit. /complete's needs one. */
	sweep_complete_release(&c);
	c.signal = 9;
	sweep_complete_stream(&c.err, "boom", 4, 4);
	sbuf_reset(&out);
	assert_int_equal(sweep_failed_encode(&c, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "Signal=9\n[Stderr]\nSize=4\nLength=4\n"
			    "--begin content--\nboom\n--end content--\n");
	assert_int_equal(sweep_failed_decode(out.buf, out.len, MAX, &d, &err), 0);
	assert_false(d.have_exit);
	assert_int_equal(d.signal, 9);
	assert_false(d.out.present);
	assert_string_equal(d.err.data, "boom");
	sweep_complete_release(&d);
	assert_int_equal(sweep_complete_encode(&c, &out, &err), -1);
	assert_int_equal(sweep_failed_decode("", 0, MAX, &d, &err), 0);
	assert_false(d.have_exit || d.err.present || d.nresults);

	/* An old reader's view: the streams only go where SendOutput asked for them. */
	assert_int_equal(sweep_complete_decode(out.buf, out.len, MAX, &d, &err), -1);
	sweep_complete_release(&c);
	free(big);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void expect_failed_error(const char *body, const char *want)
{
	struct sweep_complete c;
	struct sbuf err = SBUF_INIT(4096);

	if (sweep_failed_decode(body, strlen(body), MAX, &c, &err) != -1)
		fail_msg("decoded, but should fail with %s:\n%s", want, body);
	assert_err(&err, want);
	assert_null(c.results);
	assert_null(c.out.data);
	assert_null(c.err.data);
	sbuf_release(&err);
}

#define BLOCK "--begin content--\nx\n--end content--\n"

static void test_output_errors(void **state)
{
	struct sweep_complete c = { 0 };
	struct sbuf out = SBUF_INIT(MAX), err = SBUF_INIT(4096);
	char *big = xmalloc(SWEEP_OUTPUT_MAX + 2);
	size_t n;

	(void)state;
	expect_failed_error("Exit=256\n", "failed:1: bad Exit '256' (0 to 255)");
	expect_failed_error("Exit=-1\n", "failed:1: bad Exit '-1' (0 to 255)");
	expect_failed_error("Exit=1\nExit=1\n", "failed:2: duplicate Exit");
	expect_failed_error("Signal=0\n", "failed:1: bad Signal '0' (1 to 127)");
	expect_failed_error("Signal=9\nSignal=9\n", "failed:2: duplicate Signal");
	expect_failed_error("[Stdout]\n", "failed:1: [Stdout] without a content block");
	expect_failed_error("[Stderr]\n" BLOCK "[Stderr]\n" BLOCK, "failed:5: a second [Stderr]");
	expect_failed_error("[Stderr]\nSize=0\n" BLOCK, "failed:1: [Stderr]: Size=0 is less than its 1 bytes");
	expect_failed_error("[Stderr]\nSize=x\n", "failed:2: bad Size 'x'");
	expect_failed_error("[Stderr]\nSize=1\nSize=1\n", "failed:3: duplicate Size in [Stderr]");
	expect_failed_error("[Stdin]\n", "failed:1: unknown section [Stdin] in a failed body");
	expect_failed_error(BLOCK, "failed:1: content block outside a [Result], [Stdout] or [Stderr] section");
	expect_config_error("SendOutput=Maybe\n", "config:1: SendOutput must be Yes or No, not 'Maybe'");
	expect_config_error("[Stdout]\n", "config:1: unknown section [Stdout] in a config body");

	/* A stream over the bound: refused by the decoder and the encoder. */
	n = (size_t)snprintf(big, 64, "[Stdout]\nLength=%u\n--begin content--\n", SWEEP_OUTPUT_MAX + 1);
	sbuf_add(&out, big, n);
	memset(big, 'o', SWEEP_OUTPUT_MAX + 1);
	sbuf_add(&out, big, SWEEP_OUTPUT_MAX + 1);
	sbuf_addstr(&out, "\n--end content--\n");
	assert_int_equal(sweep_failed_decode(out.buf, out.len, MAX, &c, &err), -1);
	assert_err(&err, "failed:1: [Stdout] of 1048577 bytes, more than the 1048576 a stream may bring");
	sweep_complete_stream(&c.out, big, SWEEP_OUTPUT_MAX + 1, SWEEP_OUTPUT_MAX + 1);
	sbuf_reset(&out);
	assert_int_equal(sweep_failed_encode(&c, &out, &err), -1);
	sweep_complete_release(&c);
	c.have_exit = true;
	c.exit_status = 300;
	assert_int_equal(sweep_failed_encode(&c, &out, &err), -1);
	assert_int_equal(out.len, 0);
	free(big);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void test_config(void **state)
{
	struct sweep_config c = { true, false, 15, false }, d;
	struct sbuf out = SBUF_INIT(4096), err = SBUF_INIT(4096);
	const char *seed = "DeleteWorker = yes\r\nDeleteClient = No\r\nPing = 0\r\n";

	(void)state;
	assert_int_equal(sweep_config_encode(&c, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "DeleteWorker=Yes\nDeleteClient=No\nPing=15\n");
	assert_int_equal(sweep_config_decode(out.buf, out.len, 4096, &d, &err), 0);
	assert_true(d.delete_worker);
	assert_false(d.delete_client);
	assert_int_equal(d.ping, 15);
	assert_int_equal(sweep_config_decode(seed, strlen(seed), 4096, &d, &err), 0);
	assert_true(d.delete_worker);
	assert_int_equal(d.ping, 0);
	/* Missing keys keep the defaults (No, No, no ping); unknown ones are skipped. */
	assert_int_equal(sweep_config_decode("Colour=blue\n", 12, 4096, &d, &err), 0);
	assert_false(d.delete_worker);
	assert_int_equal(d.ping, 0);
	assert_false(d.send_output);
	/* SendOutput is written only when set: without it the body is an old master's. */
	c.send_output = true;
	sbuf_reset(&out);
	assert_int_equal(sweep_config_encode(&c, &out, &err), 0);
	assert_string_equal(sbuf_str(&out), "DeleteWorker=Yes\nDeleteClient=No\nPing=15\nSendOutput=Yes\n");
	assert_int_equal(sweep_config_decode(out.buf, out.len, 4096, &d, &err), 0);
	assert_true(d.send_output);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void expect_task_error(const char *body, const char *want)
{
	struct sweep_task t;
	struct sbuf err = SBUF_INIT(4096);

	if (sweep_task_decode(body, strlen(body), MAX, &t, &err) != -1)
		fail_msg("decoded, but should fail with %s:\n%s", want, body);
	assert_err(&err, want);
	assert_null(t.ticket);
	assert_null(t.inputs);
	assert_null(t.results);
	sbuf_release(&err);
}

static void expect_complete_error(const char *body, const char *want)
{
	struct sweep_complete c;
	struct sbuf err = SBUF_INIT(4096);

	if (sweep_complete_decode(body, strlen(body), MAX, &c, &err) != -1)
		fail_msg("decoded, but should fail with %s:\n%s", want, body);
	assert_err(&err, want);
	assert_null(c.results);
	sbuf_release(&err);
}

static void expect_config_error(const char *body, const char *want)
{
	struct sweep_config c;
	struct sbuf err = SBUF_INIT(4096);

	if (sweep_config_decode(body, strlen(body), MAX, &c, &err) != -1)
		fail_msg("decoded, but should fail with %s:\n%s", want, body);
	assert_err(&err, want);
	sbuf_release(&err);
}

#define HEAD "Ticket=1\nTimeout=5\nCommandLine=w\n"
#define RES "[Result]\nName=out\nFile=stdout\n"

static void test_task_errors(void **state)
{
	(void)state;
	expect_task_error(HEAD "Ticket=2\n" RES, "task:4: duplicate Ticket");
	expect_task_error(HEAD "Timeout=7\n" RES, "task:4: duplicate Timeout");
	expect_task_error("Timeout=5\nCommandLine=w\n" RES, "task: no Ticket");
	expect_task_error("Ticket=1\nCommandLine=w\n" RES, "task: no Timeout");
	expect_task_error("Ticket=1\nTimeout=5\n" RES, "task: no CommandLine");
	expect_task_error(HEAD, "task: no [Result] section");
	expect_task_error("", "task: no Ticket");
	expect_task_error("Ticket=12 34\n", "task:1: bad Ticket '12 34' (letters and digits, at most 64)");
	expect_task_error("Ticket=1\nTimeout=-5\n", "task:2: bad Timeout '-5'");
	expect_task_error(HEAD "[Output]\n", "task:4: unknown section [Output] in a task body");
	expect_task_error(HEAD "[Result\n", "task:4: no ']' after '[' in '[Result'");
	expect_task_error(HEAD "garbage\n", "task:4: expected Key=Value, a [Section] or a content block, not 'garbage'");
	expect_task_error(HEAD "--begin content--\nx\n--end content--\n" RES,
			  "task:4: content block outside an [Input] section");
	expect_task_error(HEAD RES "--begin content--\nx\n--end content--\n",
			  "task:7: content block outside an [Input] section");
	expect_task_error(HEAD "--end content--\n", "task:4: '--end content--' without '--begin content--'");
	expect_task_error(HEAD "[Input]\nFile=a\n--begin content--\nabc\n",
			  "task:6: content block without an '--end content--' line");
	expect_task_error(HEAD "[Input]\nFile=a\n--begin content--\nabc\n--end content--x\n",
			  "task:6: content block without an '--end content--' line");
	expect_task_error(HEAD "[Input]\nFile=a\nLength=100\n--begin content--\nabc\n--end content--\n",
			  "task:7: Length=100 runs past the end of the body (20 bytes left)");
	expect_task_error(HEAD "[Input]\nFile=a\nLength=2\n--begin content--\nabc\n--end content--\n",
			  "task:7: no '--end content--' line right after the 2 bytes of Length");
	expect_task_error(HEAD "[Input]\nFile=a\nLength=x\n", "task:6: bad Length 'x'");
	expect_task_error(HEAD "[Input]\nFile=a\nLength=1\nLength=1\n", "task:7: duplicate Length in [Input]");
	expect_task_error(HEAD "[Input]\nFile=a\n--begin content--\n--end content--\nLength=0\n",
			  "task:8: Length after the content block");
	expect_task_error(HEAD "[Input]\nFile=a\n--begin content--\n--end content--\n--begin content--\n--end content--\n",
			  "task:8: a second content block in [Input]");
	expect_task_error(HEAD "[Input]\nFile=a\nFile=b\n", "task:6: duplicate File in [Input]");
	expect_task_error(HEAD "[Input]\nFile=../etc/x\n", "task:5: unsafe file name '../etc/x' (relative, without '..')");
	expect_task_error(HEAD "[Input]\nFile=/etc/x\n", "task:5: unsafe file name '/etc/x' (relative, without '..')");
	/* found by fuzz_sweep_msg: decoded, but no encoder can write it back */
	expect_task_error("Ticket=1\nTimeout=5\nCommandLine=w\rx\n" RES, "task:3: CommandLine with a CR in it");
	expect_task_error(HEAD "[Result]\nName=out\nFile=/tmp/out\n",
			  "task:6: unsafe file name '/tmp/out' (relative, without '..')");
	expect_task_error(HEAD "[Input]\n--begin content--\n--end content--\n" RES, "task:4: [Input] without File");
	expect_task_error(HEAD "\n[Input]\nFile=a\n" RES, "task:5: [Input] for 'a' without a content block");
	expect_task_error(HEAD "[Input]\nFile=a\n--begin content--\n--end content--\n"
			  "[Input]\nFile=a\n--begin content--\n--end content--\n" RES,
			  "task:8: a second [Input] for 'a'");
	expect_task_error(HEAD "[Input]\nFile=stdin\n--begin content--\n--end content--\n"
			  "[Input]\nFile=stdin\n", "task:9: a second [Input] for stdin");
	expect_task_error(HEAD RES RES, "task:7: a second [Result] called 'out'");
	expect_task_error(HEAD "[Result]\nFile=stdout\n", "task:4: [Result] without Name");
	expect_task_error(HEAD "[Result]\nName=out\n", "task:4: [Result] 'out' without File");
	expect_task_error(HEAD "[Result]\nName=../x\n", "task:5: bad result Name '../x'");
}

static void test_other_errors(void **state)
{
	struct sweep_task t;
	struct sweep_complete c;
	struct sbuf err = SBUF_INIT(4096);
	static const char nul_body[] = "Ticket=1\nTime\0out=5\n";

	(void)state;
	expect_complete_error("", "complete: no [Result] section");
	expect_complete_error("[Result]\nName=a\n", "complete:1: [Result] 'a' without a content block");
	expect_complete_error("[Result]\n--begin content--\n--end content--\n", "complete:1: [Result] without Name");
	expect_complete_error("[Input]\n", "complete:1: unknown section [Input] in a complete body");
	expect_complete_error("[Result]\nName=a\nLength=5\n--begin content--\nabc",
			      "complete:4: Length=5 runs past the end of the body (3 bytes left)");
	expect_complete_error("[Result]\nName=a\nLength=0\n--begin content--\n",
			      "complete:4: no '--end content--' line right after the 0 bytes of Length");
	expect_config_error("DeleteWorker=Perhaps\n", "config:1: DeleteWorker must be Yes or No, not 'Perhaps'");
	expect_config_error("Ping=10\nPing=20\n", "config:2: duplicate Ping");
	expect_config_error("Ping=often\n", "config:1: bad Ping 'often'");
	expect_config_error("[Result]\n", "config:1: unknown section [Result] in a config body");

	/* A NUL outside a content block, and a body over the maximum. */
	assert_int_equal(sweep_task_decode(nul_body, sizeof(nul_body) - 1, MAX, &t, &err), -1);
	assert_err(&err, "task:2: NUL byte outside a content block");
	sbuf_reset(&err);
	assert_int_equal(sweep_task_decode(HEAD RES, strlen(HEAD RES), 10, &t, &err), -1);
	assert_err(&err, "task: a body of 63 bytes, more than the 10 allowed");
	sbuf_reset(&err);
	assert_int_equal(sweep_complete_decode(NULL, 0, MAX, &c, &err), -1);
	assert_err(&err, "complete: no [Result] section");
	sbuf_release(&err);
}

/* The sweep design's own framing, without Length lines, as an old writer sends it. */
static void test_old_style(void **state)
{
	const char *body =
		"Ticket=12345\r\n"
		"Timeout=30\r\n"
		"CommandLine=./worker -x 3\r\n"
		"Unknown=skipped\r\n"
		"[Input]\n"
		"File=params.in\n"
		"--begin content--\n"
		"x = 3\n"
		"--end content--\n"
		"[Input]\n"
		"File=empty1\n"
		"--begin content--\n"
		"--end content--\n"
		"[Input]\n"
		"File=empty2\n"
		"--begin content--\n"
		"\n"
		"--end content--\n"
		"[Input]\n"
		"File=stdin\n"
		"--begin content--\n"
		"no final newline\n"
		"--end content--not a marker\n"
		"--end content--";
	const char *rest = "\n[Result]\nName=out\nFile=stdout\n";
	struct sbuf b = SBUF_INIT(4096), err = SBUF_INIT(4096);
	struct sweep_task t;

	(void)state;
	sbuf_addstr(&b, body);
	sbuf_addstr(&b, rest);
	if (sweep_task_decode(b.buf, b.len, MAX, &t, &err) < 0)
		fail_msg("%s", sbuf_str(&err));
	assert_string_equal(t.ticket, "12345");
	assert_int_equal(t.ninputs, 4);
	assert_string_equal(t.inputs[0].data, "x = 3");
	assert_int_equal(t.inputs[1].len, 0);
	assert_int_equal(t.inputs[2].len, 0);
	assert_string_equal(t.inputs[3].data, "no final newline\n--end content--not a marker");
	assert_int_equal(t.nresults, 1);
	sweep_task_release(&t);

	/* The end marker as the very last bytes of the body (no newline) still ends the block. */
	sbuf_reset(&b);
	sbuf_addstr(&b, "[Result]\nName=r\n--begin content--\nabc\n--end content--");
	{
		struct sweep_complete c;

		assert_int_equal(sweep_complete_decode(b.buf, b.len, MAX, &c, &err), 0);
		assert_string_equal(c.results[0].data, "abc");
		sweep_complete_release(&c);
	}
	/* Without Length an embedded marker ends the block early: why Length exists. */
	sbuf_reset(&b);
	sbuf_addstr(&b, "[Result]\nName=r\n--begin content--\na\n--end content--\nb\n--end content--\n");
	{
		struct sweep_complete c;

		assert_int_equal(sweep_complete_decode(b.buf, b.len, MAX, &c, &err), -1);
		assert_err(&err, "complete:6: expected Key=Value, a [Section] or a content block, not 'b'");
	}
	sbuf_release(&b);
	sbuf_release(&err);
}

/* Line numbers after a block count the block's lines. */
static void test_line_numbers(void **state)
{
	(void)state;
	expect_task_error(HEAD "[Input]\nFile=a\nLength=5\n--begin content--\n1\n2\n3\n--end content--\nFile=b\n",
			  "task:12: duplicate File in [Input]");
}

static void test_encode_errors(void **state)
{
	struct sweep_task t;
	struct sweep_complete c;
	struct sbuf out = SBUF_INIT(100), err = SBUF_INIT(4096);
	char big[200];

	(void)state;
	memset(big, 'x', sizeof(big));
	memset(&t, 0, sizeof(t));
	t.ticket = xstrdup("1");
	t.timeout = 1;
	t.command_line = xstrdup("w");
	sweep_task_add_result(&t, "out", "stdout");
	sweep_task_add_input(&t, "a", big, sizeof(big));
	sbuf_addstr(&out, "keep");
	assert_int_equal(sweep_task_encode(&t, &out, &err), -1);
	assert_err(&err, "task: the message would be larger than 100 bytes");
	assert_string_equal(sbuf_str(&out), "keep");      /* nothing half-written */
	free(t.inputs[0].file);
	t.inputs[0].file = xstrdup("../a");
	sbuf_reset(&err);
	assert_int_equal(sweep_task_encode(&t, &out, &err), -1);
	assert_err(&err, "task: bad input file name '../a'");
	free(t.command_line);
	t.command_line = xstrdup("w\nTicket=2");
	sbuf_reset(&err);
	assert_int_equal(sweep_task_encode(&t, &out, &err), -1);
	assert_err(&err, "task: empty command line, or one with a line break or blanks at an end");
	sweep_task_release(&t);

	memset(&c, 0, sizeof(c));
	sweep_complete_add(&c, "bad name", "x", 1);
	sbuf_reset(&err);
	assert_int_equal(sweep_complete_encode(&c, &out, &err), -1);
	assert_err(&err, "complete: bad result name 'bad name'");
	sweep_complete_release(&c);
	sbuf_release(&out);
	sbuf_release(&err);
}

/*
 * Every prefix of a valid body either decodes or fails with an error, and
 * so does every body with one byte changed; ASan and LeakSanitizer watch.
 */
static void test_prefixes_and_mutations(void **state)
{
	char **data;
	size_t *lens, n, cut, i;
	struct sweep_task t, u;
	struct sweep_complete c, d;
	struct sbuf out = SBUF_INIT(MAX), cout = SBUF_INIT(MAX), err = SBUF_INIT(1 << 20);
	static const char pokes[] = { '\n', '\r', '[', ']', '=', '-', '\0', 'x', '9' };

	(void)state;
	tricky_contents(&data, &lens, &n);
	build_task(&t, data, lens, 11);     /* the small fixed contents only: keeps it quick */
	assert_int_equal(sweep_task_encode(&t, &out, &err), 0);
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 11; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%zu", i);
		sweep_complete_add(&c, name, data[i], lens[i]);
	}
	assert_int_equal(sweep_complete_encode(&c, &cout, &err), 0);

	for (cut = 0; cut <= out.len; cut++) {
		/* A copy of exactly cut bytes, so ASan sees any read past it. */
		char *p = xmalloc(cut ? cut : 1);

		memcpy(p, out.buf, cut);
		sbuf_reset(&err);
		if (sweep_task_decode(p, cut, MAX, &u, &err) == 0)
			sweep_task_release(&u);
		else
			assert_true(err.len > 0);
		free(p);
	}
	for (cut = 0; cut <= cout.len; cut++) {
		char *p = xmalloc(cut ? cut : 1);

		memcpy(p, cout.buf, cut);
		sbuf_reset(&err);
		if (sweep_complete_decode(p, cut, MAX, &d, &err) == 0)
			sweep_complete_release(&d);
		else
			assert_true(err.len > 0);
		free(p);
	}
	for (i = 0; i < out.len; i++) {
		char *p = xmalloc(out.len);

		memcpy(p, out.buf, out.len);
		p[i] = pokes[i % ARRAY_SIZE(pokes)];
		sbuf_reset(&err);
		if (sweep_task_decode(p, out.len, MAX, &u, &err) == 0)
			sweep_task_release(&u);
		else
			assert_true(err.len > 0);
		free(p);
	}
	sweep_task_release(&t);
	sweep_complete_release(&c);
	free_contents(data, lens, n);
	sbuf_release(&out);
	sbuf_release(&cout);
	sbuf_release(&err);
}

static void test_doc_examples(void **state)
{
	static const char *const kinds[] = { "task", "complete", "config", "failed" };
	struct sbuf err = SBUF_INIT(4096);
	size_t k, i, total = 0;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct doc_block *b;
		size_t n = doc_blocks("doc/sweep-protocol.md", kinds[k], &b);

		total += n;
		assert_true(n >= 1);
		for (i = 0; i < n; i++) {
			size_t len = strlen(b[i].text);
			int rc;

			sbuf_reset(&err);
			if (k == 0) {
				struct sweep_task t;

				rc = sweep_task_decode(b[i].text, len, MAX, &t, &err);
				if (!rc)
					sweep_task_release(&t);
			} else if (k == 1) {
				struct sweep_complete c;

				rc = sweep_complete_decode(b[i].text, len, MAX, &c, &err);
				if (!rc)
					sweep_complete_release(&c);
			} else if (k == 2) {
				struct sweep_config c;

				rc = sweep_config_decode(b[i].text, len, MAX, &c, &err);
			} else {
				struct sweep_complete c;

				rc = sweep_failed_decode(b[i].text, len, MAX, &c, &err);
				if (!rc)
					sweep_complete_release(&c);
			}
			if (rc < 0)
				fail_msg("doc/sweep-protocol.md:%d: %s", b[i].line, sbuf_str(&err));
		}
		doc_blocks_free(b, n);
	}
	assert_true(total >= 4);
	sbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_round_trip),
		cmocka_unit_test(test_complete_round_trip),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_output_round_trip),
		cmocka_unit_test(test_output_errors),
		cmocka_unit_test(test_task_errors),
		cmocka_unit_test(test_other_errors),
		cmocka_unit_test(test_old_style),
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_prefixes_and_mutations),
		cmocka_unit_test(test_doc_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
