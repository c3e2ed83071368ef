/*
 * wseq_submit's submit descriptions and job lists (gahp/wseq_submit_desc.c):
 * a scientist's file, or one copied from anywhere. The first byte picks
 * which (even: description, odd: job list). An item file named "items"
 * holds the description itself, so "queue ... from items" is reached.
 * Properties: a description that parses has 1..FUZZ_JOBS jobs numbered
 * 0, 1, ... and an app; one that fails says "FILE:LINE: why" with a line
 * inside the file.
 */
#include "fuzz.h"
#include "wseq_submit_desc.h"

#define FUZZ_JOBS 2000

static const char *cur_text;
static size_t cur_len;

static int read_items(const char *path, struct sbuf *out, void *arg)
{
	(void)arg;
	if (strcmp(path, "items") != 0) {
		errno = ENOENT;
		return -1;
	}
	return sbuf_add(out, cur_text, cur_len);
}

static void check(int rc, const struct submit_desc *d, const struct sbuf *err, const char *text,
		  size_t len)
{
	size_t i, lines = 1;

	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (rc == 0) {
		FUZZ_CHECK(d->njobs >= 1 && d->njobs <= FUZZ_JOBS && d->app && *d->app);
		for (i = 0; i < d->njobs; i++)
			FUZZ_CHECK(d->jobs[i].proc == (long)i && d->jobs[i].iwd);
	} else {
		long line = 0;
		const char *s = sbuf_str(err);

		FUZZ_CHECK(strncmp(s, "fuzz.sub:", 9) == 0);
		line = strtol(s + 9, NULL, 10);
		FUZZ_CHECK(line >= 1 && (size_t)line <= lines);
	}
}

static void description(const char *text, size_t len)
{
	struct desc_opts o = { "fuzz.sub", 3, FUZZ_JOBS, read_items, NULL };
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct submit_desc d;
	int rc;

	cur_text = text;
	cur_len = len;
	rc = desc_parse(&o, text, len, &d, &err);
	check(rc, &d, &err, text, len);
	if (rc == 0)
		desc_release(&d);
	sbuf_release(&err);
}

static void job_list(const char *text, size_t len)
{
	struct desc_opts o = { "fuzz.sub", 3, FUZZ_JOBS, NULL, NULL };
	struct sbuf err = SBUF_INIT(64 * 1024);
	struct submit_desc d;
	int rc;

	rc = desc_parse_job_list(&o, text, len, "app", false, &d, &err);
	check(rc, &d, &err, text, len);
	if (rc == 0)
		desc_release(&d);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, description, job_list);
	return 0;
}
