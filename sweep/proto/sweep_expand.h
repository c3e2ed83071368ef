/*
 * Parameter substitution for the sweep: "$name" and "${name}" become the
 * value of a parameter, "$$" a single '$'; as in GNU parallel, "{name}" is
 * a parameter's value too and "{#}" the set's number (its row, from 1),
 * while any other '{' is plain text. Command lines are never given to
 * a shell: a pattern is split into words first (blanks separate words,
 * '...' and "..." group, backslash escapes) and substituted inside each word,
 * so a value with blanks or quotes in it stays one argument.
 * doc/sweep-formats.md describes the rules for users.
 */
#ifndef WSEQ_SWEEP_EXPAND_H
#define WSEQ_SWEEP_EXPAND_H

#include "common.h"
#include "sbuf.h"

/*
 * Names and values of one parameter set. With values NULL the functions
 * only check that every placeholder names a parameter; with no sweep_vars at
 * all (NULL) they check the syntax and accept any name.
 */
struct sweep_vars {
	char *const *names;
	char *const *values;
	size_t n;
	size_t seq;             /* what {#} becomes; 0: {#} is plain text */
};

struct sweep_argv {
	char **v;               /* NULL-terminated */
	size_t n;
};

/*
 * Substitute into a text (an input file's Content). 0, or -1 with a message
 * such as "unknown parameter $gamma" appended to err (no file:line: the
 * caller knows where the text came from).
 */
int sweep_expand_text(const char *tmpl, const struct sweep_vars *vars, struct sbuf *out,
		      struct sbuf *err);

/* Split a command-line pattern into words and substitute inside each. */
int sweep_expand_argv(const char *pattern, const struct sweep_vars *vars, struct sweep_argv *out,
		      struct sbuf *err);
void sweep_argv_release(struct sweep_argv *a);

/*
 * Append argv as one command line that sweep_expand_argv (with no
 * parameters) splits back into the same words: words with anything but
 * letters, digits and "_-.,/:=+@%^" are put in single quotes.
 */
int sweep_argv_join(char *const *argv, size_t n, struct sbuf *out);

#endif
