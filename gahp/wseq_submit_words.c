/*
 * Splitting words for wseq_submit's reader (wseq_submit_desc_int.h):
 * HTCondor's two arguments syntaxes, comma lists, and the job list, whose
 * lines are split as a shell would in simple cases.
 */
#include "wseq_submit_desc_int.h"

void desc_strv_push(struct strv *s, char *p)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = p;
}

void desc_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int desc_perr(struct parser *p, long line, const char *fmt, ...)
{
	va_list ap;

	sbuf_addf(p->err, "%s:%ld: ", p->o->file ? p->o->file : "-", line);
	va_start(ap, fmt);
	sbuf_vaddf(p->err, fmt, ap);
	va_end(ap);
	return -1;
}

bool desc_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

char *desc_trim(char *s)
{
	size_t n;

	while (desc_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && desc_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* ---- arguments and lists ----------------------------------------------------- */

/* The new syntax: "a 'b c' d""e" -- blanks separate, '...' groups, doubled quotes are literal. */
static int split_new(const char *s, size_t n, struct strv *out, struct sbuf *why)
{
	struct sbuf a = SBUF_INIT(DESC_MAX_BYTES);
	bool in_word = false, quoted = false;
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (quoted) {
			if (c == '\'' && i + 1 < n && s[i + 1] == '\'') {
				sbuf_addch(&a, '\'');
				i++;
			} else if (c == '\'') {
				quoted = false;
			} else {
				sbuf_addch(&a, c);
			}
			continue;
		}
		if (c == '"' && i + 1 < n && s[i + 1] == '"') {
			sbuf_addch(&a, '"');
			in_word = true;
			i++;
		} else if (c == '"') {
			sbuf_addstr(why, "a lone \" inside the quoted arguments (write \"\" for one)");
			sbuf_release(&a);
			return -1;
		} else if (c == '\'') {
			quoted = true;
			in_word = true;
		} else if (desc_blank(c)) {
			if (in_word)
				desc_strv_push(out, xstrdup(sbuf_str(&a)));
			sbuf_reset(&a);
			in_word = false;
		} else {
			sbuf_addch(&a, c);
			in_word = true;
		}
	}
	if (quoted) {
		sbuf_addstr(why, "an unterminated ' in the arguments");
		sbuf_release(&a);
		return -1;
	}
	if (in_word)
		desc_strv_push(out, xstrdup(sbuf_str(&a)));
	sbuf_release(&a);
	return 0;
}

int desc_split_args(const char *value, char ***argv, size_t *argc, struct sbuf *why)
{
	struct strv out = { NULL, 0, 0 };
	size_t n = strlen(value);
	const char *s = value;

	*argv = NULL;
	*argc = 0;
	if (n >= 2 && value[0] == '"' && value[n - 1] == '"') {
		if (split_new(value + 1, n - 2, &out, why) < 0) {
			desc_strv_free(out.v, out.n);
			return -1;
		}
	} else {
		/* the old syntax: blanks separate, \" is a quote */
		struct sbuf a = SBUF_INIT(DESC_MAX_BYTES);

		while (*s) {
			while (desc_blank(*s))
				s++;
			if (!*s)
				break;
			sbuf_reset(&a);
			while (*s && !desc_blank(*s)) {
				if (s[0] == '\\' && s[1] == '"')
					s++;
				sbuf_addch(&a, *s++);
			}
			desc_strv_push(&out, xstrdup(sbuf_str(&a)));
		}
		sbuf_release(&a);
	}
	*argv = out.v;
	*argc = out.n;
	return 0;
}

/* "a, b ,c" -> a b c (empty items dropped); sep is the separator. */
void desc_split_list(const char *v, char sep, struct strv *out)
{
	char *copy = xstrdup(v), *s = copy, *next;

	do {
		char *t;

		next = strchr(s, sep);
		if (next)
			*next++ = '\0';
		t = desc_trim(s);
		if (*t)
			desc_strv_push(out, xstrdup(t));
		s = next;
	} while (s);
	free(copy);
}

/* A job list line split as a shell would in simple cases; an unquoted "<" separates the inputs. */
static int split_shell(struct parser *p, long line, const char *s, struct strv *args,
		       struct strv *inputs)
{
	struct sbuf w = SBUF_INIT(DESC_MAX_BYTES);
	bool in_word = false, literal = false, to_inputs = false;
	char q = 0;

	for (;; s++) {
		char c = *s;

		if (q) {
			if (!c) {
				sbuf_release(&w);
				return desc_perr(p, line, "an unterminated %c", q);
			}
			if (c == q)
				q = 0;
			else if (q == '"' && c == '\\' && (s[1] == '"' || s[1] == '\\'))
				sbuf_addch(&w, *++s);
			else
				sbuf_addch(&w, c);
			continue;
		}
		if (!c || desc_blank(c)) {
			if (in_word && !literal && !to_inputs && strcmp(sbuf_str(&w), "<") == 0)
				to_inputs = true;
			else if (in_word)
				desc_strv_push(to_inputs ? inputs : args, xstrdup(sbuf_str(&w)));
			sbuf_reset(&w);
			in_word = literal = false;
			if (!c)
				break;
			continue;
		}
		in_word = true;
		if (c == '\'' || c == '"') {
			q = c;
			literal = true;
		} else if (c == '\\' && s[1]) {
			sbuf_addch(&w, *++s);
			literal = true;
		} else {
			sbuf_addch(&w, c);
		}
	}
	sbuf_release(&w);
	return 0;
}

int desc_parse_job_list(const struct desc_opts *o, const char *text, size_t len, const char *app,
			bool sequence, struct submit_desc *d, struct sbuf *err)
{
	struct parser p;
	size_t pos = 0;
	long lineno = 0;

	if (desc_parser_start(&p, o, text, len, d, err, "a job list") < 0)
		return -1;
	if (!app || !*app)
		return desc_perr(&p, 1, "a job list needs the app's name (--app)");
	d->app = xstrdup(app);
	d->app_line = 1;
	d->sequence = sequence;
	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		struct strv args = { NULL, 0, 0 }, inputs = { NULL, 0, 0 };
		struct desc_job *j;
		char *line = xstrndup(s, n), *t = desc_trim(line);

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (!*t || *t == '#') {
			free(line);
			continue;
		}
		if (split_shell(&p, lineno, t, &args, &inputs) < 0 || !(j = desc_new_job(&p, lineno))) {
			desc_strv_free(args.v, args.n);
			desc_strv_free(inputs.v, inputs.n);
			free(line);
			desc_release(d);
			return -1;
		}
		free(line);
		j->iwd = xstrdup("");
		j->args = args.v;
		j->nargs = args.n;
		j->inputs = inputs.v;
		j->ninputs = inputs.n;
		j->inputs_line = lineno;
		j->suffix_proc = true;
		j->error = xasprintf("stderr.%ld", j->proc);
	}
	if (d->njobs == 0) {
		desc_perr(&p, lineno > 0 ? lineno : 1, "no jobs in the list");
		desc_release(d);
		return -1;
	}
	return 0;
}
