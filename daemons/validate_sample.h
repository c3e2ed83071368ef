/*
 * The sample per-result check (validate_sample.c), split out so it can be
 * tested alone: a project copies it as the start of its own plug-in.
 */
#ifndef WSEQ_VALIDATE_SAMPLE_H
#define WSEQ_VALIDATE_SAMPLE_H

#include "common.h"

/* What an output file must be; from --check_arg "size=N min=X max=Y". */
struct sample_limits {
	long long size;         /* exact bytes, -1: any */
	bool numbers;           /* must hold whitespace-separated finite numbers */
	double min, max;        /* every number within [min, max] */
};

/* Parse arg (NULL or "": numbers, any size, any finite value); -1 on a bad one (logged). */
int sample_limits_parse(const char *arg, struct sample_limits *lim);

/*
 * Check the file at path: VALIDATE_CHECK_VALID, _INVALID (why says what is
 * wrong) or _RETRY (it cannot be read now).
 */
int sample_check_file(const char *path, const struct sample_limits *lim, char *why,
		      size_t whylen);

#endif
