/*
 * The sweep parameter file: a table with cells separated by '|', the
 * parameter names in the headline and one parameter set on every following
 * line. A cell in double quotes may hold '|', '#' and leading or trailing
 * blanks; "" inside it is one '"'. '#' comment lines and blank lines are
 * skipped, CRLF is accepted. doc/sweep-formats.md is the reference.
 */
#ifndef WSEQ_SWEEP_PARAMS_H
#define WSEQ_SWEEP_PARAMS_H

#include "common.h"
#include "sbuf.h"

#define SWEEP_PARAMS_MAX (256u << 20)   /* bytes a parameter file may have */

struct sweep_pset {
	char **values;          /* one per name, in headline order */
	int line;               /* in the parameter file */
};

struct sweep_params {
	char **names;
	size_t nnames;
	struct sweep_pset *rows;
	size_t nrows;
	int headline;           /* line of the headline */
};

/*
 * Parse a parameter file held in buf; name is used in errors
 * ("params:7: 3 cells, the headline has 4"). 0, or -1 with the error
 * appended to err (logged if err is NULL).
 */
int sweep_params_parse(const char *name, const char *buf, size_t len, struct sweep_params *p,
		       struct sbuf *err);
int sweep_params_read(const char *path, struct sweep_params *p, struct sbuf *err);
void sweep_params_release(struct sweep_params *p);

/* Index of the parameter called name (len bytes), or -1. */
int sweep_params_index(const struct sweep_params *p, const char *name, size_t len);

/*
 * Append value as one cell, quoted when it must be (empty, '|', '"', '#',
 * leading or trailing blanks, CR). -1 if value holds a newline or out is full.
 */
int sweep_params_quote(const char *value, struct sbuf *out);
/* Append the whole table in the file format; parsing it gives p back. */
int sweep_params_format(const struct sweep_params *p, struct sbuf *out);

#endif
