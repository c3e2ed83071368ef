/*
 * Option lines: many jobs (or sequences) from standard input, one a line,
 * each line a command line of the tool's options and arguments. See
 * param_read_lines() in param.h.
 */
#include "param.h"
#include "log.h"
#include "sbuf.h"

/*
 * Split a line into words the way a shell would for simple cases: blanks
 * separate, '...' is literal, "..." allows \" and \\, a backslash outside
 * quotes escapes the next character.
 */
static int split_line(const char *line, const char *prog, long lineno, char ***argv_out,
		      int *argc_out)
{
	char **argv = xcalloc(2, sizeof(char *));
	int argc = 1, cap = 2;
	struct sbuf w = SBUF_INIT(65536);
	const char *p = line;
	bool in_word;

	argv[0] = xstrdup(prog);
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			break;
		sbuf_reset(&w);
		in_word = true;
		while (in_word && *p) {
			if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');

				if (!e)
					goto unterminated;
				sbuf_add(&w, p + 1, (size_t)(e - p - 1));
				p = e + 1;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
						p++;
					sbuf_addch(&w, *p);
				}
				if (!*p)
					goto unterminated;
				p++;
			} else if (*p == '\\' && p[1]) {
				sbuf_addch(&w, p[1]);
				p += 2;
			} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
				in_word = false;
			} else {
				sbuf_addch(&w, *p++);
			}
		}
		if (argc + 1 >= cap) {
			cap *= 2;
			argv = xrealloc(argv, (size_t)cap * sizeof(char *));
		}
		argv[argc++] = xstrdup(sbuf_str(&w));
		argv[argc] = NULL;
	}
	sbuf_release(&w);
	*argv_out = argv;
	*argc_out = argc;
	return 0;
unterminated:
	sbuf_release(&w);
	while (argc > 0)
		free(argv[--argc]);
	free(argv);
	return log_error("stdin line %ld: unterminated quote", lineno);
}

static void free_argv(char **argv, int argc)
{
	while (argc > 0)
		free(argv[--argc]);
	free(argv);
}

/* Refuse, with the line number, options that do not exist or belong to the whole run. */
static int check_line_options(const struct param *options, const char *const *global_only,
			      size_t nglobal, char **argv, int argc, long lineno)
{
	int i;
	size_t k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		char name[64];

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] != '-')
			continue;
		eq = strchr(a, '=');
		wstrlcpy(name, a + 2, eq && (size_t)(eq - a - 2) < sizeof(name) ?
			 (size_t)(eq - a - 1) : sizeof(name));
		if (!param_find(options, name))
			return log_error("stdin line %ld: unknown option %s", lineno, a);
		for (k = 0; k < nglobal; k++)
			if (strcmp(name, global_only[k]) == 0)
				return log_error("stdin line %ld: --%s belongs on the command line",
						 lineno, name);
		if (!eq && param_find(options, name)->type != PARAM_BOOL)
			i++;
	}
	return 0;
}

int param_read_lines(FILE *fp, const char *prog, const struct param *t,
		     const char *const *global_only, size_t nglobal,
		     int (*fn)(int argc, char **argv, long lineno, void *arg), void *arg)
{
	struct sbuf line = SBUF_INIT(1 << 20);
	char buf[8192], **argv = NULL;
	long lineno = 0;
	int argc = 0, rc = 0;
	bool eol = true;

	while (rc == 0) {
		if (eol)
			sbuf_reset(&line);
		if (!fgets(buf, sizeof(buf), fp)) {
			if (line.len == 0)
				break;
		} else {
			sbuf_addstr(&line, buf);
			eol = strchr(buf, '\n') != NULL;
			if (!eol && !feof(fp))
				continue;
		}
		eol = true;
		lineno++;
		if (split_line(sbuf_str(&line), prog, lineno, &argv, &argc)) {
			rc = -1;
			break;
		}
		if (argc > 1 && argv[1][0] != '#') {
			if (check_line_options(t, global_only, nglobal, argv, argc, lineno))
				rc = -1;
			else
				rc = fn(argc, argv, lineno, arg) ? -1 : 0;
		}
		free_argv(argv, argc);
	}
	sbuf_release(&line);
	if (rc == 0 && ferror(fp))
		rc = log_error("reading stdin: %s", strerror(errno));
	return rc;
}
