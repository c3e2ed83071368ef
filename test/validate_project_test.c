/*
 * A project's own validator plug-in, linked into test/validator_project as
 * doc/validator-plugins.md says (t3260): its check says valid when the
 * first output file starts with "OK", invalid when with "BAD", and cannot
 * tell otherwise; its comparison treats results as equivalent when their
 * first files have the same first line (bitwise would not).
 */
#include "validate.h"
#include "db_records.h"
#include "log.h"

/* The first line of the result's first file (up to 63 bytes), or -1. */
static int first_line(const struct vresult *r, char *buf, size_t len)
{
	FILE *f = r->nfiles ? fopen(r->files[0].path, "rb") : NULL;
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int mine_check(const struct vresult *r, const char *arg, const char *project_dir)
{
	char line[64];

	(void)arg;
	(void)project_dir;
	if (first_line(r, line, sizeof(line)) < 0)
		return VALIDATE_CHECK_RETRY;
	if (!strncmp(line, "OK", 2))
		return VALIDATE_CHECK_VALID;
	if (!strncmp(line, "BAD", 3)) {
		log_info("[RESULT#%" PRId64 " %s] mine: says BAD", r->r->id, r->r->name);
		return VALIDATE_CHECK_INVALID;
	}
	log_info("[RESULT#%" PRId64 " %s] mine: cannot tell", r->r->id, r->r->name);
	return VALIDATE_CHECK_RETRY;
}

static int mine_compare(const struct vresult *a, const struct vresult *b, const char *arg,
			const char *project_dir)
{
	char la[64], lb[64];

	(void)arg;
	(void)project_dir;
	if (first_line(a, la, sizeof(la)) < 0 || first_line(b, lb, sizeof(lb)) < 0)
		return VALIDATE_CANNOT_TELL;
	return strcmp(la, lb) ? VALIDATE_DIFFERENT : VALIDATE_EQUIVALENT;
}

const struct validate_plugin validate_project = { "mine", mine_compare, mine_check };
