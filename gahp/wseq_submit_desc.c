/*
 * The submit description reader (wseq_submit_desc.h). Commands are kept as
 * written, with their line numbers, and expanded at each queue statement, as
 * condor_submit does: a command changed between two queue statements applies
 * to the jobs of the later one. Only known commands are taken -- a typing
 * mistake is an error, not a silently ignored macro.
 */
#include "wseq_submit_desc_int.h"
#include "log.h"

static const struct {
	const char *name;
	enum cmd cmd;
	bool attr;              /* +Name (or MY.Name) */
} cmds[] = {
	{ "executable", C_EXECUTABLE, false },
	{ "arguments", C_ARGUMENTS, false },
	{ "transfer_input_files", C_INPUTS, false },
	{ "transfer_output_files", C_OUTPUTS, false },
	{ "transfer_output_remaps", C_REMAPS, false },
	{ "input", C_INPUT, false },
	{ "output", C_OUTPUT, false },
	{ "error", C_ERROR, false },
	{ "log", C_LOG, false },
	{ "initialdir", C_INITIALDIR, false },
	{ "grid_resource", C_GRID_RESOURCE, false },
	{ "boinc_authenticator_file", C_AUTH_FILE, false },
	{ "WseqApp", A_APP, true },
	{ "WseqSequence", A_SEQUENCE, true },
	{ "WseqProject", A_PROJECT, true },
	{ "WseqAuthenticatorFile", A_AUTH_FILE, true },
	{ "WseqBatch", A_BATCH, true },
	{ "rsc_fpops_est", A_FPOPS_EST, true },
	{ "rsc_fpops_bound", A_FPOPS_BOUND, true },
	{ "rsc_memory_bound", A_MEM_BOUND, true },
	{ "rsc_disk_bound", A_DISK_BOUND, true },
	{ "delay_bound", A_DELAY_BOUND, true },
	{ "app_version_num", A_APP_VERSION, true },
	/* HTCondor's, meaningless for a BOINC project: taken so a file written for HTCondor reads */
	{ "universe", C_IGNORED, false },
	{ "request_cpus", C_IGNORED, false },
	{ "request_memory", C_IGNORED, false },
	{ "request_disk", C_IGNORED, false },
	{ "should_transfer_files", C_IGNORED, false },
	{ "when_to_transfer_output", C_IGNORED, false },
	{ "notification", C_IGNORED, false },
	{ "notify_user", C_IGNORED, false },
	{ "getenv", C_IGNORED, false },
	{ "requirements", C_IGNORED, false },
	{ "rank", C_IGNORED, false },
	{ "priority", C_IGNORED, false },
	{ "batch_name", C_IGNORED, false },
};

/* A ClassAd string literal "..." loses its quotes; anything else stays. */
static char *unquote(const char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return xstrndup(v + 1, n - 2);
	return xstrdup(v);
}

/* ---- macros ---------------------------------------------------------------- */

struct macros {
	const char **names;
	const char **values;
	size_t n;
};

static const char *macro_value(const struct macros *m, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->names[i]) == len && strncasecmp(m->names[i], name, len) == 0)
			return m->values[i];
	return NULL;
}

/* v with every $(NAME) replaced: allocated, or NULL after an error. */
static char *expand(struct parser *p, long line, const char *v, const struct macros *m)
{
	struct sbuf b = SBUF_INIT(DESC_MAX_BYTES);
	const char *s = v;

	while (*s) {
		const char *end, *val;

		if (s[0] != '$' || s[1] != '(') {
			sbuf_addch(&b, *s++);
			continue;
		}
		end = strchr(s + 2, ')');
		if (!end) {
			desc_perr(p, line, "unterminated $( in '%s'", v);
			sbuf_release(&b);
			return NULL;
		}
		val = macro_value(m, s + 2, (size_t)(end - s - 2));
		if (!val) {
			desc_perr(p, line, "unknown macro $(%.*s) (known: $(Process), $(ProcId), $(Cluster), "
			     "$(ClusterId), $(Step), $(Row), $(ItemIndex) and the variables of queue)",
			     (int)(end - s - 2), s + 2);
			sbuf_release(&b);
			return NULL;
		}
		if (sbuf_addstr(&b, val) < 0) {
			desc_perr(p, line, "a value longer than %ld bytes after its macros", DESC_MAX_BYTES);
			sbuf_release(&b);
			return NULL;
		}
		s = end + 1;
	}
	if (!b.buf)
		return xstrdup("");
	return sbuf_detach(&b, NULL);
}

/* ---- queue ------------------------------------------------------------------- */

static bool is_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (!(s[0] >= 'A' && s[0] <= 'Z') && !(s[0] >= 'a' && s[0] <= 'z') && s[0] != '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!(s[i] >= 'A' && s[i] <= 'Z') && !(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

static char *value_of(struct parser *p, enum cmd c, long line, const struct macros *m)
{
	(void)line;
	return p->val[c] ? expand(p, p->line[c], p->val[c], m) : NULL;
}

/* Fill one job from the commands as they stand; 0 / -1. */
static int make_job(struct parser *p, long line, const struct macros *m, struct desc_job *j)
{
	struct strv v = { NULL, 0, 0 };
	char *s;

	s = value_of(p, C_INITIALDIR, line, m);
	if (p->val[C_INITIALDIR] && !s)
		return -1;
	j->iwd = s ? s : xstrdup("");
	if (p->val[C_ARGUMENTS]) {
		struct sbuf why = SBUF_INIT(1024);
		int rc;

		if (!(s = value_of(p, C_ARGUMENTS, line, m)))
			return -1;
		rc = desc_split_args(desc_trim(s), &j->args, &j->nargs, &why);
		if (rc < 0)
			desc_perr(p, p->line[C_ARGUMENTS], "arguments: %s", sbuf_str(&why));
		sbuf_release(&why);
		free(s);
		if (rc < 0)
			return -1;
	}
	j->inputs_line = p->val[C_INPUTS] ? p->line[C_INPUTS] : p->val[C_INPUT] ? p->line[C_INPUT] : line;
	if (p->val[C_INPUTS]) {
		if (!(s = value_of(p, C_INPUTS, line, m)))
			return -1;
		desc_split_list(s, ',', &v);
		free(s);
	}
	if (p->val[C_INPUT]) {
		if (!(s = value_of(p, C_INPUT, line, m))) {
			j->inputs = v.v;
			j->ninputs = v.n;
			return -1;
		}
		desc_strv_push(&v, s);
	}
	j->inputs = v.v;
	j->ninputs = v.n;
	if (p->val[C_OUTPUTS]) {
		struct strv o = { NULL, 0, 0 };

		if (!(s = value_of(p, C_OUTPUTS, line, m)))
			return -1;
		desc_split_list(s, ',', &o);
		free(s);
		j->outputs = o.v;
		j->noutputs = o.n;
		j->outputs_given = true;
	}
	if (p->val[C_REMAPS]) {
		struct strv r = { NULL, 0, 0 }, from = { NULL, 0, 0 }, to = { NULL, 0, 0 };
		size_t i;
		int bad = 0;

		if (!(s = value_of(p, C_REMAPS, line, m)))
			return -1;
		{
			char *u = unquote(desc_trim(s));

			desc_split_list(u, ';', &r);
			free(u);
		}
		free(s);
		for (i = 0; i < r.n; i++) {
			char *eq = strchr(r.v[i], '=');

			if (!eq || !*desc_trim(eq + 1) || (*eq = '\0', !*desc_trim(r.v[i]))) {
				bad = 1;
				break;
			}
			desc_strv_push(&from, xstrdup(desc_trim(r.v[i])));
			desc_strv_push(&to, xstrdup(desc_trim(eq + 1)));
		}
		desc_strv_free(r.v, r.n);
		j->remap_from = from.v;
		j->remap_to = to.v;
		j->nremaps = from.n;
		if (bad)
			return desc_perr(p, p->line[C_REMAPS], "transfer_output_remaps: want \"NAME = FILE; ...\"");
	}
	if (p->val[C_OUTPUT] && !(j->output = value_of(p, C_OUTPUT, line, m)))
		return -1;
	if (p->val[C_ERROR] && !(j->error = value_of(p, C_ERROR, line, m)))
		return -1;
	if (p->val[C_LOG] && !(j->log = value_of(p, C_LOG, line, m)))
		return -1;
	return 0;
}

static void job_release(struct desc_job *j)
{
	free(j->iwd);
	desc_strv_free(j->args, j->nargs);
	desc_strv_free(j->inputs, j->ninputs);
	desc_strv_free(j->outputs, j->noutputs);
	desc_strv_free(j->remap_from, j->nremaps);
	desc_strv_free(j->remap_to, j->nremaps);
	free(j->output);
	free(j->error);
	free(j->log);
}

struct desc_job *desc_new_job(struct parser *p, long line)
{
	struct submit_desc *d = p->d;
	struct desc_job *j;

	if ((long)d->njobs >= p->max_jobs) {
		desc_perr(p, line, "more than %ld jobs", p->max_jobs);
		return NULL;
	}
	if (d->njobs == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		d->jobs = xrealloc(d->jobs, p->cap * sizeof(*d->jobs));
	}
	j = &d->jobs[d->njobs++];
	memset(j, 0, sizeof(*j));
	j->proc = (long)d->njobs - 1;
	j->line = line;
	return j;
}

/* The app this queue statement's jobs run: one app a batch. */
static int queue_app(struct parser *p, long line)
{
	const char *app = p->val[A_APP] ? p->val[A_APP] : p->val[C_EXECUTABLE];
	char *a;

	if (!app || !*app)
		return desc_perr(p, line, "no executable: give the app's name as executable, or +WseqApp");
	a = unquote(app);
	if (!*a || strstr(a, "$(")) {
		free(a);
		return desc_perr(p, p->val[A_APP] ? p->line[A_APP] : p->line[C_EXECUTABLE],
			    "the app's name must be a plain name");
	}
	if (p->d->app && strcmp(p->d->app, a) != 0) {
		desc_perr(p, line, "one app a batch: these jobs would run %s, the jobs before %s", a,
		     p->d->app);
		free(a);
		return -1;
	}
	if (!p->d->app) {
		p->d->app = a;
		p->d->app_line = p->val[A_APP] ? p->line[A_APP] : p->line[C_EXECUTABLE];
	} else {
		free(a);
	}
	if (p->val[A_APP] && p->val[C_EXECUTABLE] && !p->d->executable) {
		p->d->executable = unquote(p->val[C_EXECUTABLE]);
		p->d->exec_line = p->line[C_EXECUTABLE];
	}
	return 0;
}

/* The rows of "from FILE" or "in (...)": each row a list of nvars values. */
static int read_rows(struct parser *p, long line, const char *src, bool from_file, size_t nvars,
		     struct strv *rows)
{
	struct sbuf text = SBUF_INIT(DESC_MAX_BYTES);
	char *s, *next;

	if (from_file) {
		if (!p->o->read)
			return desc_perr(p, line, "queue from %s: no item files here", src);
		errno = 0;
		if (p->o->read(src, &text, p->o->read_arg) < 0) {
			desc_perr(p, line, "cannot read %s: %s", src, errno ? strerror(errno) : "too large");
			sbuf_release(&text);
			return -1;
		}
		if (memchr(sbuf_str(&text), '\0', text.len)) {
			sbuf_release(&text);
			return desc_perr(p, line, "%s: a NUL byte", src);
		}
	} else {
		/* in (a, b, c): one item each */
		struct strv items = { NULL, 0, 0 };
		size_t i;

		desc_split_list(src, ',', &items);
		for (i = 0; i < items.n; i++) {
			sbuf_addstr(&text, items.v[i]);
			sbuf_addch(&text, '\n');
		}
		desc_strv_free(items.v, items.n);
	}
	s = text.buf;
	while (s && *s) {
		char *row, *f;
		size_t k;

		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		row = desc_trim(s);
		s = next;
		if (!*row || *row == '#')
			continue;
		/* every variable but the last takes one field; the last takes the rest */
		for (k = 0, f = row; k < nvars; k++) {
			char *e;

			if (k == nvars - 1) {
				desc_strv_push(rows, xstrdup(desc_trim(f)));
				break;
			}
			e = f + strcspn(f, ", \t");
			desc_strv_push(rows, xstrndup(f, (size_t)(e - f)));
			f = e;
			while (*f && (desc_blank(*f) || *f == ','))
				f++;
		}
	}
	sbuf_release(&text);
	return 0;
}

/* An optional leading count: "queue N ...". Moves *s past it. */
static int queue_count(struct parser *p, long line, char **s, long *count)
{
	char *e, save;

	if (!((**s >= '0' && **s <= '9') || **s == '-' || **s == '+'))
		return 0;
	e = *s + strcspn(*s, " \t");
	save = *e;
	*e = '\0';
	if (parse_long(*s, count) < 0 || *count < 1 || *count > p->max_jobs)
		return desc_perr(p, line, "queue: bad count '%s' (want 1 to %ld)", *s, p->max_jobs);
	*e = save;
	*s = desc_trim(e);
	return 0;
}

/* The variable names before "from" or "in"; returns that keyword, or NULL. */
static char *queue_vars(struct parser *p, long line, char *t, struct strv *vars)
{
	while (*t) {
		size_t n = strcspn(t, ", \t");

		if ((n == 4 && strncasecmp(t, "from", 4) == 0) || (n == 2 && strncasecmp(t, "in", 2) == 0))
			return t;
		if (!is_name(t, n)) {
			desc_perr(p, line, "queue: '%.*s' is not a count, a variable name, 'from' or 'in'",
				  (int)n, t);
			return NULL;
		}
		desc_strv_push(vars, xstrndup(t, n));
		t += n;
		while (*t && (desc_blank(*t) || *t == ','))
			t++;
	}
	desc_perr(p, line, "queue: want 'queue', 'queue N', 'queue [N] [VARS] from FILE' or "
		  "'queue [N] [VARS] in (ITEMS)'");
	return NULL;
}

/* VAR[, VAR...] from FILE | VAR[, VAR...] in (ITEM, ...): the names and the rows. */
static int queue_items(struct parser *p, long line, char *s, struct strv *vars, struct strv *rows)
{
	char *kw = queue_vars(p, line, s, vars), *src;
	bool from_file;

	if (!kw)
		return -1;
	from_file = kw[0] == 'f' || kw[0] == 'F';
	src = desc_trim(kw + (from_file ? 4 : 2));
	if (!from_file) {
		size_t n = strlen(src);

		if (n < 2 || src[0] != '(' || src[n - 1] != ')')
			return desc_perr(p, line, "queue ... in: want the items in parentheses on the line");
		src[n - 1] = '\0';
		src++;
	}
	if (from_file && !*src)
		return desc_perr(p, line, "queue ... from: no file named");
	if (vars->n == 0)
		desc_strv_push(vars, xstrdup("Item"));
	if (read_rows(p, line, src, from_file, vars->n, rows) < 0)
		return -1;
	if (rows->n / vars->n == 0)
		return desc_perr(p, line, "queue: no items %s %s",
				 from_file ? "in" : "between the parentheses", from_file ? src : "");
	return 0;
}

/* One job of the queue: row r of the items, step of the count. */
static int queue_job(struct parser *p, long line, const struct strv *vars, const struct strv *rows,
		     size_t r, long step)
{
	char proc[32], cluster[32], stp[32], row[32];
	const char *names[8 + 64], *values[8 + 64];
	struct macros m = { names, values, 0 };
	struct desc_job *j;
	size_t k;

	if (vars->n > 64)
		return desc_perr(p, line, "queue: more than 64 variables");
	if (!(j = desc_new_job(p, line)))
		return -1;
	snprintf(proc, sizeof(proc), "%ld", j->proc);
	snprintf(cluster, sizeof(cluster), "%ld", p->o->cluster);
	snprintf(stp, sizeof(stp), "%ld", step);
	snprintf(row, sizeof(row), "%zu", r);
	names[0] = "Process", values[0] = proc;
	names[1] = "ProcId", values[1] = proc;
	names[2] = "Cluster", values[2] = cluster;
	names[3] = "ClusterId", values[3] = cluster;
	names[4] = "Step", values[4] = stp;
	names[5] = "Row", values[5] = row;
	names[6] = "ItemIndex", values[6] = row;
	m.n = 7;
	for (k = 0; k < vars->n; k++, m.n++) {
		names[m.n] = vars->v[k];
		values[m.n] = rows->v[r * vars->n + k];
	}
	return make_job(p, line, &m, j);
}

static int do_queue(struct parser *p, long line, char *rest)
{
	struct strv vars = { NULL, 0, 0 }, rows = { NULL, 0, 0 };
	char *s = desc_trim(rest);
	size_t r, nrows = 1;
	long count = 1, step;
	int ret = 0;

	if (queue_app(p, line) < 0 || queue_count(p, line, &s, &count) < 0)
		return -1;
	if (*s) {
		ret = queue_items(p, line, s, &vars, &rows);
		if (ret == 0)
			nrows = rows.n / vars.n;
	}
	for (r = 0; ret == 0 && r < nrows; r++)
		for (step = 0; ret == 0 && step < count; step++)
			ret = queue_job(p, line, &vars, &rows, r, step);
	desc_strv_free(vars.v, vars.n);
	desc_strv_free(rows.v, rows.n);
	return ret;
}

/* ---- the file ------------------------------------------------------------------ */

static int find_cmd(const char *name, size_t n, bool attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].attr == attr && strlen(cmds[i].name) == n &&
		    strncasecmp(cmds[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

static int parse_bool(const char *v, bool *b)
{
	char *u = unquote(v);
	int ret = 0;

	if (!strcasecmp(u, "true") || !strcmp(u, "1") || !strcasecmp(u, "yes"))
		*b = true;
	else if (!strcasecmp(u, "false") || !strcmp(u, "0") || !strcasecmp(u, "no"))
		*b = false;
	else
		ret = -1;
	free(u);
	return ret;
}

/* The batch's own values (+Wseq..., +rsc_...), from the commands as they stand at the end. */
static int batch_values(struct parser *p)
{
	static const struct { enum cmd c; const char *name; double max; } nums[] = {
		{ A_FPOPS_EST, "rsc_fpops_est", 1e30 }, { A_FPOPS_BOUND, "rsc_fpops_bound", 1e30 },
		{ A_MEM_BOUND, "rsc_memory_bound", 1e18 }, { A_DISK_BOUND, "rsc_disk_bound", 1e18 },
		{ A_DELAY_BOUND, "delay_bound", 1e9 }, { A_APP_VERSION, "app_version_num", 2147483647.0 },
	};
	struct submit_desc *d = p->d;
	double v[ARRAY_SIZE(nums)];
	size_t i;

	if (p->val[A_SEQUENCE] && parse_bool(p->val[A_SEQUENCE], &d->sequence) < 0)
		return desc_perr(p, p->line[A_SEQUENCE], "+WseqSequence: want true or false");
	for (i = 0; i < ARRAY_SIZE(nums); i++) {
		char *u;
		int bad;

		v[i] = 0;
		if (!p->val[nums[i].c])
			continue;
		u = unquote(p->val[nums[i].c]);
		bad = parse_double(u, &v[i]) < 0 || v[i] < 0 || v[i] > nums[i].max ||
		      (nums[i].c == A_APP_VERSION && v[i] != (double)(long)v[i]);
		free(u);
		if (bad)
			return desc_perr(p, p->line[nums[i].c], "+%s: want a number from 0 to %g%s",
				    nums[i].name, nums[i].max,
				    nums[i].c == A_APP_VERSION ? ", a whole one" : "");
	}
	d->params.fpops_est = v[0];
	d->params.fpops_bound = v[1];
	d->params.mem_bound = v[2];
	d->params.disk_bound = v[3];
	d->params.delay_bound = v[4];
	d->params.app_version_num = (long)v[5];
	if (p->val[A_PROJECT]) {
		d->project = unquote(p->val[A_PROJECT]);
	} else if (p->val[C_GRID_RESOURCE]) {
		char *g = xstrdup(p->val[C_GRID_RESOURCE]), *t = desc_trim(g);

		if (strncasecmp(t, "boinc", 5) != 0 || !desc_blank(t[5]) || !*desc_trim(t + 5)) {
			free(g);
			return desc_perr(p, p->line[C_GRID_RESOURCE], "grid_resource: want 'boinc URL'");
		}
		d->project = xstrdup(desc_trim(t + 5));
		free(g);
	}
	if (p->val[A_AUTH_FILE])
		d->auth_file = unquote(p->val[A_AUTH_FILE]);
	else if (p->val[C_AUTH_FILE])
		d->auth_file = xstrdup(p->val[C_AUTH_FILE]);
	if (p->val[A_BATCH])
		d->batch = unquote(p->val[A_BATCH]);
	return 0;
}

/* The next logical line (continuations joined) from *pos; NULL at the end. */
static char *next_line(const char *text, size_t len, size_t *pos, long *lineno, long *first)
{
	struct sbuf b = SBUF_INIT(DESC_MAX_BYTES + 1);
	bool more = true;

	if (*pos >= len)
		return NULL;
	*first = *lineno + 1;
	while (more && *pos < len) {
		const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
		size_t n = nl ? (size_t)(nl - s) : len - *pos;

		*pos += n + (nl ? 1 : 0);
		(*lineno)++;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		more = n > 0 && s[n - 1] == '\\';
		sbuf_add(&b, s, more ? n - 1 : n);
		if (more)
			sbuf_addch(&b, ' ');
	}
	if (!b.buf)
		return xstrdup("");
	return sbuf_detach(&b, NULL);
}

int desc_parser_start(struct parser *p, const struct desc_opts *o, const char *text, size_t len,
		      struct submit_desc *d, struct sbuf *err, const char *what)
{
	memset(d, 0, sizeof(*d));
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->err = err;
	p->d = d;
	p->max_jobs = o->max_jobs > 0 ? o->max_jobs : DESC_MAX_JOBS;
	if (len > (size_t)DESC_MAX_BYTES)
		return desc_perr(p, 1, "larger than %ld bytes", DESC_MAX_BYTES);
	if (memchr(text, '\0', len))
		return desc_perr(p, 1, "a NUL byte: not %s", what);
	return 0;
}

int desc_parse(const struct desc_opts *o, const char *text, size_t len, struct submit_desc *d,
	       struct sbuf *err)
{
	struct parser p;
	size_t pos = 0, i;
	long lineno = 0, first = 0;
	bool queued = false;
	char *raw;
	int ret = -1;

	if (desc_parser_start(&p, o, text, len, d, err, "a submit description") < 0)
		return -1;
	while ((raw = next_line(text, len, &pos, &lineno, &first)) != NULL) {
		char *s = desc_trim(raw), *eq, *name;
		size_t n;
		bool attr = false;
		int c;

		if (!*s || *s == '#') {
			free(raw);
			continue;
		}
		n = strcspn(s, " \t=");
		if (n == 5 && strncasecmp(s, "queue", 5) == 0 && s[5] != '=' && !strchr(s, '=')) {
			c = do_queue(&p, first, s + 5);
			free(raw);
			if (c < 0)
				goto out;
			queued = true;
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			desc_perr(&p, first, "want 'COMMAND = VALUE' or 'queue ...', not '%s'", s);
			free(raw);
			goto out;
		}
		*eq = '\0';
		name = desc_trim(s);
		if (name[0] == '+') {
			attr = true;
			name++;
		} else if (strncasecmp(name, "MY.", 3) == 0) {
			attr = true;
			name += 3;
		}
		c = find_cmd(name, strlen(name), attr);
		if (c < 0 && attr) {
			/* an attribute of HTCondor's job ad: nothing here reads it */
			log_debug("%s:%ld: +%s ignored", o->file ? o->file : "-", first, name);
			free(raw);
			continue;
		}
		if (c < 0) {
			desc_perr(&p, first, "unknown command '%s'", name);
			free(raw);
			goto out;
		}
		free(p.val[cmds[c].cmd]);
		p.val[cmds[c].cmd] = xstrdup(desc_trim(eq + 1));
		p.line[cmds[c].cmd] = first;
		free(raw);
	}
	if (!queued) {
		desc_perr(&p, lineno > 0 ? lineno : 1, "no queue statement: nothing to submit");
		goto out;
	}
	if (batch_values(&p) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < NCMDS; i++)
		free(p.val[i]);
	if (ret < 0)
		desc_release(d);
	return ret;
}

void desc_release(struct submit_desc *d)
{
	size_t i;

	for (i = 0; i < d->njobs; i++)
		job_release(&d->jobs[i]);
	free(d->jobs);
	free(d->app);
	free(d->executable);
	free(d->project);
	free(d->auth_file);
	free(d->batch);
	memset(d, 0, sizeof(*d));
}

