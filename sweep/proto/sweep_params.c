/* Parameter file reader and writer; see sweep_params.h for the format. */
#include "sweep_params.h"
#include "sweep_util.h"

#define SHOW 64

struct cells {
	char **v;
	size_t n, alloc;
};

static void cells_release(struct cells *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = c->alloc = 0;
}

static void cells_push(struct cells *c, char *s)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 8;
		c->v = xrealloc(c->v, c->alloc * sizeof(*c->v));
	}
	c->v[c->n++] = s;
}

/* Split one line into cells, unquoting and trimming them. */
static int split_cells(const char *name, int lineno, const char *s, size_t n, struct cells *c,
		       struct sbuf *err)
{
	size_t i = 0;

	for (;;) {
		struct sbuf cell = SBUF_INIT(SIZE_MAX - 1);

		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < n && s[i] == '"') {
			bool closed = false;

			for (i++; i < n; i++) {
				if (s[i] == '"') {
					if (i + 1 < n && s[i + 1] == '"') {
						sbuf_addch(&cell, '"');
						i++;
						continue;
					}
					closed = true;
					i++;
					break;
				}
				sbuf_addch(&cell, s[i]);
			}
			if (!closed) {
				sbuf_release(&cell);
				return sweep_fail(err, "%s:%d: cell %zu: no closing quote", name, lineno,
						  c->n + 1);
			}
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i < n && s[i] != '|') {
				sbuf_release(&cell);
				return sweep_fail(err, "%s:%d: cell %zu: text after the closing quote",
						  name, lineno, c->n + 1);
			}
		} else {
			const char *start = s + i;
			const char *bar = memchr(start, '|', n - i);
			size_t len = bar ? (size_t)(bar - start) : n - i;

			i += len;
			sweep_trim(&start, &len);
			sbuf_add(&cell, start, len);
		}
		cells_push(c, cell.buf ? sbuf_detach(&cell, NULL) : xstrdup(""));
		if (i >= n)
			return 0;
		i++;    /* the '|' */
	}
}

static void rows_release(struct sweep_params *p)
{
	size_t r, k;

	for (r = 0; r < p->nrows; r++) {
		for (k = 0; k < p->nnames; k++)
			free(p->rows[r].values[k]);
		free(p->rows[r].values);
	}
	free(p->rows);
	p->rows = NULL;
	p->nrows = 0;
}

void sweep_params_release(struct sweep_params *p)
{
	size_t k;

	rows_release(p);
	for (k = 0; k < p->nnames; k++)
		free(p->names[k]);
	free(p->names);
	p->names = NULL;
	p->nnames = 0;
}

static int check_names(const char *name, int lineno, const struct cells *c, struct sbuf *err)
{
	size_t k, j;

	for (k = 0; k < c->n; k++) {
		const char *s = c->v[k];

		if (!*s)
			return sweep_fail(err, "%s:%d: parameter %zu has no name", name, lineno, k + 1);
		if (!sweep_is_name(s, strlen(s)))
			return sweep_fail(err, "%s:%d: bad parameter name '%.*s' (letters, digits and _ only)",
					  name, lineno, SHOW, s);
		for (j = 0; j < k; j++)
			if (!strcmp(c->v[j], s))
				return sweep_fail(err, "%s:%d: duplicate parameter name '%s' (cells %zu and %zu)",
						  name, lineno, s, j + 1, k + 1);
	}
	return 0;
}

int sweep_params_parse(const char *name, const char *buf, size_t len, struct sweep_params *p,
		       struct sbuf *err)
{
	struct sweep_lines it;
	const char *line;
	size_t n, alloc = 0;
	bool have_headline = false;

	memset(p, 0, sizeof(*p));
	sweep_lines_init(&it, buf, len);
	while (sweep_lines_next(&it, &line, &n)) {
		const char *t = line;
		size_t tn = n;
		struct cells c = { NULL, 0, 0 };

		if (memchr(line, '\0', n)) {
			sweep_fail(err, "%s:%d: NUL byte in the line", name, it.lineno);
			goto fail;
		}
		sweep_trim(&t, &tn);
		if (!tn || t[0] == '#')
			continue;
		if (split_cells(name, it.lineno, line, n, &c, err) < 0) {
			cells_release(&c);
			goto fail;
		}
		if (!have_headline) {
			if (check_names(name, it.lineno, &c, err) < 0) {
				cells_release(&c);
				goto fail;
			}
			p->names = c.v;
			p->nnames = c.n;
			p->headline = it.lineno;
			have_headline = true;
			continue;
		}
		if (c.n != p->nnames) {
			sweep_fail(err, "%s:%d: %zu cell%s, the headline has %zu", name, it.lineno, c.n,
				   c.n == 1 ? "" : "s", p->nnames);
			cells_release(&c);
			goto fail;
		}
		if (p->nrows == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			p->rows = xrealloc(p->rows, alloc * sizeof(*p->rows));
		}
		p->rows[p->nrows].values = c.v;
		p->rows[p->nrows].line = it.lineno;
		p->nrows++;
	}
	if (!have_headline) {
		sweep_fail(err, "%s: empty (no headline)", name);
		goto fail;
	}
	if (!p->nrows) {
		sweep_fail(err, "%s:%d: no parameter sets after the headline", name, p->headline);
		goto fail;
	}
	return 0;
fail:
	sweep_params_release(p);
	return -1;
}

int sweep_params_read(const char *path, struct sweep_params *p, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(SWEEP_PARAMS_MAX);
	int rc;

	memset(p, 0, sizeof(*p));
	if (sweep_read_file(path, SWEEP_PARAMS_MAX, &b, err) < 0) {
		sbuf_release(&b);
		return -1;
	}
	rc = sweep_params_parse(path, b.buf, b.len, p, err);
	sbuf_release(&b);
	return rc;
}

int sweep_params_index(const struct sweep_params *p, const char *name, size_t len)
{
	size_t k;

	for (k = 0; k < p->nnames; k++)
		if (strlen(p->names[k]) == len && !memcmp(p->names[k], name, len))
			return (int)k;
	return -1;
}

int sweep_params_quote(const char *value, struct sbuf *out)
{
	size_t n = strlen(value);
	bool quote = !n || value[0] == ' ' || value[0] == '\t' || value[n - 1] == ' ' ||
		     value[n - 1] == '\t' || value[0] == '#' || strpbrk(value, "|\"\r");
	const char *p;

	if (strchr(value, '\n'))
		return -1;
	if (!quote)
		return sbuf_addstr(out, value);
	if (sbuf_addch(out, '"') < 0)
		return -1;
	for (p = value; *p; p++)
		if ((*p == '"' && sbuf_addch(out, '"') < 0) || sbuf_addch(out, *p) < 0)
			return -1;
	return sbuf_addch(out, '"');
}

int sweep_params_format(const struct sweep_params *p, struct sbuf *out)
{
	size_t r, k;

	for (k = 0; k < p->nnames; k++)
		if ((k && sbuf_addch(out, '|') < 0) || sbuf_addstr(out, p->names[k]) < 0)
			return -1;
	if (sbuf_addch(out, '\n') < 0)
		return -1;
	for (r = 0; r < p->nrows; r++) {
		for (k = 0; k < p->nnames; k++)
			if ((k && sbuf_addch(out, '|') < 0) ||
			    sweep_params_quote(p->rows[r].values[k], out) < 0)
				return -1;
		if (sbuf_addch(out, '\n') < 0)
			return -1;
	}
	return 0;
}
