/*
 * A sample per-result check plug-in, for a project to copy: every output
 * file must be exactly size=N bytes (if given) and hold only
 * whitespace-separated numbers, none NaN or infinite, each within
 * [min, max]. A host's output is untrusted: tokens are bounded, nothing is
 * read whole into memory. Selected with --check_plugin sample; its limits
 * are --check_arg "size=N min=X max=Y" (each optional).
 */
#include "validate.h"
#include "validate_sample.h"
#include "db_records.h"
#include "log.h"

#include <ctype.h>
#include <math.h>
#include <sys/stat.h>

#define SAMPLE_TOKEN_MAX 63

int sample_limits_parse(const char *arg, struct sample_limits *lim)
{
	char *copy = xstrdup(arg ? arg : ""), *save = NULL, *w;
	int rc = 0;

	lim->size = -1;
	lim->numbers = true;
	lim->min = -HUGE_VAL;
	lim->max = HUGE_VAL;
	for (w = strtok_r(copy, " \t", &save); w && rc == 0; w = strtok_r(NULL, " \t", &save)) {
		double v;

		if (!strncmp(w, "size=", 5) && parse_double(w + 5, &v) == 0 && v >= 0 &&
		    v == floor(v))
			lim->size = (long long)v;
		else if (!strncmp(w, "min=", 4) && parse_double(w + 4, &v) == 0)
			lim->min = v;
		else if (!strncmp(w, "max=", 4) && parse_double(w + 4, &v) == 0)
			lim->max = v;
		else if (!strcmp(w, "bytes"))
			lim->numbers = false;   /* the size only, any content */
		else
			rc = log_error("sample check: bad --check_arg word \"%s\" (size=N, min=X, "
				       "max=Y, bytes)", w);
	}
	free(copy);
	return rc;
}

/* One token of the file: VALIDATE_CHECK_VALID if a number within the limits. */
static int sample_token(const char *tok, const struct sample_limits *lim, char *why,
			size_t whylen)
{
	double v;

	if (parse_double(tok, &v) < 0) {
		snprintf(why, whylen, "\"%.20s\" is not a finite number", tok);
		return VALIDATE_CHECK_INVALID;
	}
	if (v < lim->min || v > lim->max) {
		snprintf(why, whylen, "%g is outside [%g, %g]", v, lim->min, lim->max);
		return VALIDATE_CHECK_INVALID;
	}
	return VALIDATE_CHECK_VALID;
}

static int sample_numbers(FILE *f, const struct sample_limits *lim, char *why, size_t whylen)
{
	char tok[SAMPLE_TOKEN_MAX + 1];
	size_t n = 0;
	int c, rc = VALIDATE_CHECK_VALID;

	while (rc == VALIDATE_CHECK_VALID && (c = getc(f)) != EOF) {
		if (c == 0) {
			snprintf(why, whylen, "a NUL byte");
			return VALIDATE_CHECK_INVALID;
		}
		if (!isspace(c)) {
			if (n == SAMPLE_TOKEN_MAX) {
				snprintf(why, whylen, "a word longer than %d bytes", SAMPLE_TOKEN_MAX);
				return VALIDATE_CHECK_INVALID;
			}
			tok[n++] = (char)c;
			continue;
		}
		tok[n] = 0;
		if (n)
			rc = sample_token(tok, lim, why, whylen);
		n = 0;
	}
	tok[n] = 0;
	if (rc == VALIDATE_CHECK_VALID && n)
		rc = sample_token(tok, lim, why, whylen);
	if (rc == VALIDATE_CHECK_VALID && ferror(f)) {
		snprintf(why, whylen, "read error");
		return VALIDATE_CHECK_RETRY;
	}
	return rc;
}

int sample_check_file(const char *path, const struct sample_limits *lim, char *why,
		      size_t whylen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int rc;

	if (!f || fstat(fileno(f), &st) < 0) {
		snprintf(why, whylen, "cannot read it: %s", strerror(errno));
		if (f)
			fclose(f);
		return VALIDATE_CHECK_RETRY;
	}
	if (lim->size >= 0 && (long long)st.st_size != lim->size) {
		snprintf(why, whylen, "%lld bytes, not %lld", (long long)st.st_size, lim->size);
		rc = VALIDATE_CHECK_INVALID;
	} else {
		rc = lim->numbers ? sample_numbers(f, lim, why, whylen) : VALIDATE_CHECK_VALID;
	}
	fclose(f);
	return rc;
}

static int sample_check(const struct vresult *r, const char *arg, const char *project_dir)
{
	struct sample_limits lim;
	char why[160] = "";
	size_t i;
	int rc = VALIDATE_CHECK_VALID;

	(void)project_dir;
	if (sample_limits_parse(arg, &lim) < 0)
		return VALIDATE_CHECK_RETRY;    /* the admin's mistake, not the host's */
	for (i = 0; i < r->nfiles && rc == VALIDATE_CHECK_VALID; i++) {
		rc = sample_check_file(r->files[i].path, &lim, why, sizeof(why));
		if (rc != VALIDATE_CHECK_VALID)
			log_info("[RESULT#%" PRId64 " %s] sample check: %s: %s", r->r->id,
				 r->r->name, r->files[i].name, why);
	}
	return rc;
}

const struct validate_plugin validate_sample = { "sample", NULL, sample_check };
