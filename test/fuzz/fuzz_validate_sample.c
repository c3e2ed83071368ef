/*
 * The sample per-result check (daemons/validate_sample.c) on a host's
 * output file: the first byte picks the limits (even: any size, numbers in
 * [-1e6, 1e6]; odd: "size=16 min=0 max=1"), the rest is the file.
 * Properties: a readable file is never "cannot tell"; a valid one holds no
 * NUL byte, no nan or inf, and has the size asked for; an invalid one says
 * why.
 */
#include "fuzz.h"
#include "fileutil.h"
#include "validate.h"
#include "validate_sample.h"

static void check(const char *data, size_t len, const char *arg)
{
	struct sample_limits lim;
	char path[PATH_MAX], why[160] = "", *s;
	int v;

	snprintf(path, sizeof(path), "%s/out", fuzz_scratch_dir());
	FUZZ_CHECK(write_file_atomic(path, data, len, 0644) == 0);
	FUZZ_CHECK(sample_limits_parse(arg, &lim) == 0);
	v = sample_check_file(path, &lim, why, sizeof(why));
	FUZZ_CHECK(v == VALIDATE_CHECK_VALID || v == VALIDATE_CHECK_INVALID);
	if (v == VALIDATE_CHECK_INVALID) {
		FUZZ_CHECK(why[0] != 0);
		return;
	}
	FUZZ_CHECK(memchr(data, 0, len) == NULL);
	FUZZ_CHECK(lim.size < 0 || (long long)len == lim.size);
	s = fuzz_cstr((const uint8_t *)data, len);
	FUZZ_CHECK(!strcasestr(s, "nan") && !strcasestr(s, "inf"));
	free(s);
}

static void wide(const char *data, size_t len)
{
	check(data, len, "min=-1e6 max=1e6");
}

static void unit(const char *data, size_t len)
{
	check(data, len, "size=16 min=0 max=1");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_two_ways(data, size, wide, unit);
	return 0;
}
