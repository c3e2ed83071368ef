/*
 * A joblog read back for `sweep --resume-failed` (sweep/master/sweep_joblog.c):
 * the sweep's own, or one GNU parallel wrote. Properties: every set it
 * shows done is within bounds, and a line the sweep writes -- whatever host
 * and command it holds -- reads back as one run of its set, done exactly
 * when its Exitval and Signal are 0.
 */
#include "fuzz.h"
#include "sweep_joblog.h"

static void round_trip(const uint8_t *data, size_t size)
{
	struct sbuf line = SBUF_INIT(1 << 20), err = SBUF_INIT(4096);
	struct sweep_joblog_run r = { 0 };
	char *text = xstrndup((const char *)data, size);
	bool *ok;
	size_t n;

	r.seq = size % 1000 + 1;
	r.host = text;
	r.command = text;
	r.start = (int64_t)size;
	r.runtime = 0.5;
	r.exitval = size % 3 == 0 ? 0 : (int)(size % 256) - 2;
	r.signal = size % 5 == 0 ? (int)(size % 64) : 0;
	sweep_joblog_line(&line, &r);
	FUZZ_CHECK(sweep_joblog_parse("line", line.buf, line.len, &ok, &n, &err) == 0);
	FUZZ_CHECK(r.exitval || r.signal ? n == 0 : n == r.seq && ok[r.seq - 1]);
	free(ok);
	free(text);
	sbuf_release(&line);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT(4096);
	bool *ok;
	size_t n;

	fuzz_setup();
	if (sweep_joblog_parse("joblog", (const char *)data, size, &ok, &n, &err) == 0) {
		FUZZ_CHECK(n <= (size_t)SWEEP_JOBLOG_SEQ_MAX);
		FUZZ_CHECK(!n || ok[n - 1]);
		free(ok);
	} else {
		FUZZ_CHECK(err.len > 0 && !ok && !n);
	}
	round_trip(data, size);
	sbuf_release(&err);
	return 0;
}
