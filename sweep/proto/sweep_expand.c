/* Placeholder substitution and command-line splitting; see sweep_expand.h. */
#include "sweep_expand.h"
#include "sweep_util.h"

/*
 * Read the placeholder at s (just after the '$'); on success append its
 * value to out (nothing when only checking) and return the bytes consumed.
 */
static int placeholder(const char *s, const struct sweep_vars *vars, struct sbuf *out,
		       struct sbuf *err, size_t *used)
{
	const char *name = s;
	size_t n = 0, k;

	if (*s == '$') {
		*used = 1;
		return vars && vars->values ? sbuf_addch(out, '$') : 0;
	}
	if (*s == '{') {
		const char *close = strchr(s, '}');

		if (!close)
			return sweep_fail(err, "'${' without a closing '}'");
		name = s + 1;
		n = (size_t)(close - name);
		if (!sweep_is_name(name, n))
			return sweep_fail(err, "bad parameter name '${%.*s}'", (int)(n > 64 ? 64 : n), name);
		*used = n + 2;
	} else {
		while (sweep_is_name_char((unsigned char)s[n]))
			n++;
		if (!n)
			return sweep_fail(err, "'$' not followed by a parameter name (write $$ for a '$')");
		*used = n;
	}
	if (!vars)
		return 0;
	for (k = 0; k < vars->n; k++)
		if (strlen(vars->names[k]) == n && !memcmp(vars->names[k], name, n))
			break;
	if (k == vars->n)
		return sweep_fail(err, "unknown parameter $%.*s", (int)(n > 64 ? 64 : n), name);
	return vars->values ? sbuf_addstr(out, vars->values[k]) : 0;
}

/*
 * GNU parallel's placeholders at s (a '{'): "{#}" (with a seq) and
 * "{name}" of a parameter get their value appended to out (nothing when
 * only checking); the bytes consumed, or 0 when s is plain text.
 */
static size_t brace(const char *s, const struct sweep_vars *vars, struct sbuf *out)
{
	const char *close = strchr(s, '}');
	size_t n = close ? (size_t)(close - s - 1) : 0, k;

	if (!vars || !close)
		return 0;
	if (n == 1 && s[1] == '#') {
		if (!vars->seq)
			return 0;
		if (vars->values)
			sbuf_addf(out, "%zu", vars->seq);
		return 3;
	}
	for (k = 0; k < vars->n; k++)
		if (strlen(vars->names[k]) == n && !memcmp(vars->names[k], s + 1, n))
			break;
	if (!n || k == vars->n)
		return 0;
	if (vars->values)
		sbuf_addstr(out, vars->values[k]);
	return n + 2;
}

int sweep_expand_text(const char *tmpl, const struct sweep_vars *vars, struct sbuf *out,
		      struct sbuf *err)
{
	const char *p = tmpl;
	bool copy = vars && vars->values;

	while (*p) {
		const char *at = strpbrk(p, "${");
		size_t used;

		if (!at)
			return copy ? sbuf_addstr(out, p) : 0;
		if (copy && sbuf_add(out, p, (size_t)(at - p)) < 0)
			return sweep_fail(err, "expanded text too large");
		if (*at == '{') {
			used = brace(at, vars, out);
			if (!used && copy)
				sbuf_addch(out, '{');
			p = at + (used ? used : 1);
			continue;
		}
		if (placeholder(at + 1, vars, out, err, &used) < 0)
			return -1;
		p = at + 1 + used;
	}
	return 0;
}

void sweep_argv_release(struct sweep_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

static void argv_push(struct sweep_argv *a, char *s)
{
	ARRAY_GROW(a->v, a->n + 1);     /* and the NULL after it */
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

int sweep_expand_argv(const char *pattern, const struct sweep_vars *vars, struct sweep_argv *out,
		      struct sbuf *err)
{
	const char *p = pattern;
	struct sbuf word = SBUF_INIT(SIZE_MAX - 1);
	/* A check-only pass must still track words, so substitute "" then. */
	char **blank = NULL;
	struct sweep_vars v = { NULL, NULL, 0, 0 };
	const struct sweep_vars *vp = vars ? &v : NULL;
	size_t k;

	out->v = NULL;
	out->n = 0;
	if (vars)
		v = *vars;
	if (vars && !vars->values) {
		blank = xcalloc(vars->n + 1, sizeof(*blank));
		for (k = 0; k < vars->n; k++)
			blank[k] = (char *)"";
		v.values = blank;
	}
	for (;;) {
		bool in_word = false;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		sbuf_reset(&word);
		while (*p && *p != ' ' && *p != '\t') {
			size_t used;

			in_word = true;
			if (*p == '\'') {
				const char *close = strchr(p + 1, '\'');

				if (!close) {
					sweep_fail(err, "a ' without its closing '");
					goto fail;
				}
				sbuf_add(&word, p + 1, (size_t)(close - p - 1));
				p = close + 1;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$')) {
						sbuf_addch(&word, *++p);
					} else if (*p == '$') {
						if (placeholder(p + 1, vp, &word, err, &used) < 0)
							goto fail;
						p += used;
					} else if (*p == '{' && (used = brace(p, vp, &word))) {
						p += used - 1;
					} else {
						sbuf_addch(&word, *p);
					}
				}
				if (!*p) {
					sweep_fail(err, "a \" without its closing \"");
					goto fail;
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					sweep_fail(err, "a '\\' at the end of the command line");
					goto fail;
				}
				sbuf_addch(&word, p[1]);
				p += 2;
			} else if (*p == '$') {
				if (placeholder(p + 1, vp, &word, err, &used) < 0)
					goto fail;
				p += 1 + used;
			} else if (*p == '{' && (used = brace(p, vp, &word))) {
				p += used;
			} else {
				sbuf_addch(&word, *p++);
			}
		}
		if (in_word)
			argv_push(out, word.buf ? xstrndup(word.buf, word.len) : xstrdup(""));
	}
	if (!out->n) {
		sweep_fail(err, "empty command line");
		goto fail;
	}
	sbuf_release(&word);
	free(blank);
	return 0;
fail:
	sbuf_release(&word);
	free(blank);
	sweep_argv_release(out);
	return -1;
}

static bool bare_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!sweep_is_name_char((unsigned char)*s) && !strchr("-.,/:=+@%^", *s))
			return false;
	return true;
}

int sweep_argv_join(char *const *argv, size_t n, struct sbuf *out)
{
	size_t i;
	const char *p;

	for (i = 0; i < n; i++) {
		if (i && sbuf_addch(out, ' ') < 0)
			return -1;
		if (strpbrk(argv[i], "\n"))
			return -1;
		if (bare_ok(argv[i])) {
			if (sbuf_addstr(out, argv[i]) < 0)
				return -1;
			continue;
		}
		if (sbuf_addch(out, '\'') < 0)
			return -1;
		for (p = argv[i]; *p; p++) {
			if (*p == '\'' ? sbuf_addstr(out, "'\\''") < 0 : sbuf_addch(out, *p) < 0)
				return -1;
		}
		if (sbuf_addch(out, '\'') < 0)
			return -1;
	}
	return 0;
}
