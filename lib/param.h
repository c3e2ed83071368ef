/*
 * Parameter tables. Every program describes its settings once, in a table of
 * struct param: the name (used as the config.xml element and as the --option),
 * the type, where the value lives in the program's settings struct, the
 * default, bounds, and the help text. The same table drives command-line
 * parsing, reading config.xml, --help, and the generated reference in doc/.
 */
#ifndef WSEQ_PARAM_H
#define WSEQ_PARAM_H

#include "common.h"

enum param_type {
	PARAM_STR,      /* char *, allocated (param_free() releases it) */
	PARAM_INT,      /* long */
	PARAM_DOUBLE,   /* double */
	PARAM_BOOL,     /* bool: "--x" on the command line; <x/>, <x>1</x>, <x>0</x> in XML */
	PARAM_END
};

enum param_flags {
	PARAM_REQUIRED = 1 << 0,  /* an error when neither given nor defaulted */
	PARAM_SECRET = 1 << 1,    /* never logged or shown; registered with log_add_secret() */
	PARAM_NOCONFIG = 1 << 2,  /* command line only (not read from config.xml) */
	PARAM_NOOPTION = 1 << 3,  /* config.xml only (no --option) */
	PARAM_BOUNDED = 1 << 4,   /* min and max apply */
	PARAM_IN_ARGS = 1 << 5,   /* an option that is an argument: param_split_args() leaves
				     it, and as many values as its arg names words, among the
				     arguments in its place (create_work's --remote_file URL
				     NBYTES MD5 among the input files) */
};

struct param {
	const char *name;       /* lower case with underscores (never dashes) */
	enum param_type type;
	size_t offset;          /* offsetof(settings struct, field) */
	const char *def;        /* default, as text; NULL for none */
	int flags;
	double min, max;        /* with PARAM_BOUNDED */
	const char *arg;        /* placeholder in --help ("N", "DIR"); NULL for booleans */
	const char *help;
};

#define PARAM_TABLE_END { NULL, PARAM_END, 0, NULL, 0, 0, 0, NULL, NULL }

/* Fill every field from its default (strings are copied). */
void param_set_defaults(const struct param *t, void *settings);
/*
 * Set one parameter from text. origin names where the text came from
 * ("--x", "config.xml:12") for the error, which is logged; returns 0 / -1.
 */
int param_set(const struct param *p, void *settings, const char *value, const char *origin);
const struct param *param_find(const struct param *t, const char *name);
/* Errors (logged, naming each missing one) for required parameters left unset. */
int param_check_required(const struct param *t, const void *settings, const char *where);
void param_free(const struct param *t, void *settings);
/*
 * Parse --name VALUE, --name=VALUE and --flag options of t from argv[1..],
 * stopping at the first non-option or after "--". Upstream BOINC's
 * single-dash spelling (-name VALUE) is taken for the names of t; any other
 * single-dash word ("-", "-x") ends the options like a non-option. Returns
 * the index of the first argument left (dashes in a name are read as
 * underscores: --one-pass is --one_pass), -1 on an error (logged, naming the
 * option), or -2 when -h/--help was given.
 */
int param_parse_args(const struct param *t, void *settings, int argc, char **argv);
/* "--name[=v]" or "-name[=v]" (two characters at least): the name part, else NULL. */
const char *param_option_name(const char *arg);
/*
 * The entry of t an option's text names ("name" or "name=value", without the
 * dashes before it); a dash in the name is read as an underscore, so
 * --max-starts is --max_starts. NULL if none.
 */
const struct param *param_find_option(const struct param *t, const char *arg);
/*
 * One vector of param_split_args(): the options of table t (argv[0] first,
 * NULL-terminated); v must hold argc + 1 words.
 */
struct param_argv {
	const struct param *t;
	char **v;
	int n;
	bool unknown;           /* takes "--x" options no table names (default: the last) */
	bool drop_dashdash;     /* (the last vector) "--" is not copied ... */
	int after_dashdash;     /* ... out: the index in v of the first word after it (n: none) */
};
/*
 * Split argv[1..] for a skeleton that parses its own options and hands the
 * rest on: own() is asked first about each word and returns 1 when it took
 * it (moving *i past any value it read), 0 when not, -1 on an error (logged);
 * a word own() leaves goes, with its value when the option takes one, to the
 * first out[k] whose table names it, else to out[nout - 1] (as does "--" and
 * everything after it; a "--x" option no table names goes to the vector marked
 * unknown, if any). An option of a table flagged PARAM_IN_ARGS goes to
 * out[nout - 1] with its values. Returns 0, 1 for -h/--help, or -1.
 * With drop_dashdash on out[nout - 1], the "--" itself is left out and
 * after_dashdash tells where the words after it begin.
 */
int param_split_args(int argc, char **argv, struct param_argv *out, size_t nout,
		     int (*own)(void *arg, int argc, char **argv, int *i), void *arg);
/* How many values p takes: the words of its arg ("URL NBYTES MD5": 3), 0 for a boolean. */
int param_nvalues(const struct param *p);
/* Print "  --name ARG   help (default: x)" lines for each command-line parameter. */
void param_print_help(const struct param *t, FILE *fp);

/*
 * Option lines (create_work --stdin, create_sequence --stdin): read fp line
 * by line; split each like a shell would in simple cases (blanks separate,
 * '...' is literal, "..." allows \" and \\, a backslash escapes the next
 * character); skip blank lines and lines starting with #; refuse, naming the
 * line, options not in t or named in global_only (they belong on the command
 * line). fn gets argv[0] = prog, the line's words and its number; a non-zero
 * return stops the reading. 0, or -1 (logged).
 */
int param_read_lines(FILE *fp, const char *prog, const struct param *t,
		     const char *const *global_only, size_t nglobal,
		     int (*fn)(int argc, char **argv, long lineno, void *arg), void *arg);

#endif
