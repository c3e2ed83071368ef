/* --halt's rule, parsed and applied (sweep_halt.h). */
#include "sweep_halt.h"
#include "sweep_util.h"

static int parse_fail(const char *s, struct sweep_halt *h)
{
	size_t n = strlen(s);
	char *num;
	int rc;

	h->pct = n && s[n - 1] == '%';
	num = xstrndup(s, h->pct ? n - 1 : n);
	rc = sweep_parse_bounded(num, 1, h->pct ? 100 : 100000000, &h->fail);
	free(num);
	return rc;
}

int sweep_halt_parse(const char *s, struct sweep_halt *h, struct sbuf *err)
{
	const char *comma = strchr(s, ',');

	h->when = SWEEP_HALT_NEVER;
	h->fail = 1;
	h->pct = false;
	if (!strcmp(s, "never") || !strcmp(s, "0") || !*s)
		return 0;
	if (!strcmp(s, "1") || !strcmp(s, "2")) {
		h->when = *s == '1' ? SWEEP_HALT_SOON : SWEEP_HALT_NOW;
		return 0;
	}
	if (comma && comma - s == 4 && !strncmp(s, "soon", 4))
		h->when = SWEEP_HALT_SOON;
	else if (comma && comma - s == 3 && !strncmp(s, "now", 3))
		h->when = SWEEP_HALT_NOW;
	if (h->when == SWEEP_HALT_NEVER || strncmp(comma + 1, "fail=", 5) ||
	    parse_fail(comma + 6, h) < 0) {
		h->when = SWEEP_HALT_NEVER;
		return sbuf_fail(err, "--halt is now|soon,fail=N or now|soon,fail=P%% (1 to 100), "
				 "or never (got '%.64s')", s);
	}
	return 0;
}

bool sweep_halt_reached(const struct sweep_halt *h, size_t failed, size_t total)
{
	if (h->when == SWEEP_HALT_NEVER || !failed)
		return false;
	if (h->pct)
		return (double)failed * 100.0 >= (double)h->fail * (double)total;
	return failed >= (size_t)h->fail;
}
