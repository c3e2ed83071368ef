/*
 * Worker specification reader. The keys live in one table (name, section,
 * kind, where the value goes, bounds) that drives parsing, duplicate and
 * misplaced-key errors; doc/sweep-formats.md lists the same keys for users.
 */
#include "sweep_spec.h"
#include "sweep_util.h"

#include <arpa/inet.h>

#define SHOW 64

enum sect { S_TOP, S_WORKER, S_INPUT, S_RESULT, S_COUNT };
static const char *const sect_name[] = { "the top", "[Worker]", "[Input]", "[Result]" };

enum ktype {
	K_STR,          /* trimmed, ends at a " #" comment */
	K_TEXT,         /* trimmed, runs to the end of the line */
	K_LONG,
	K_YESNO,
	K_COLLECT,
	K_SERVER,
	K_CONTENT,      /* verbatim, repeatable: one line of a template */
};

struct key {
	const char *name;
	enum sect sect;
	enum ktype type;
	size_t off;             /* in the section's struct */
	long lo, hi;
	int line_off;           /* offset of an int line field, or -1 */
};

#define TOP(f) offsetof(struct sweep_spec, f)
#define WRK(f) offsetof(struct sweep_spec_worker, f)
#define INP(f) offsetof(struct sweep_spec_input, f)
#define RES(f) offsetof(struct sweep_spec_result, f)

static const struct key keys[] = {
	{ "CommandLine", S_TOP, K_TEXT, TOP(command_line), 0, 0, (int)TOP(command_line_line) },
	{ "Timeout", S_TOP, K_LONG, TOP(timeout), 1, 365L * 86400, -1 },
	{ "MaxAssign", S_TOP, K_LONG, TOP(max_assign), 1, 1000, -1 },
	{ "MaxTotal", S_TOP, K_LONG, TOP(max_total), 1, 100000, -1 },
	{ "Validate", S_TOP, K_TEXT, TOP(validate), 0, 0, (int)TOP(validate_line) },
	{ "Collect", S_TOP, K_COLLECT, TOP(collect), 0, 0, -1 },
	{ "Output", S_TOP, K_STR, TOP(output), 0, 0, -1 },
	{ "DeleteWorker", S_TOP, K_YESNO, TOP(delete_worker), 0, 0, -1 },
	{ "DeleteClient", S_TOP, K_YESNO, TOP(delete_client), 0, 0, -1 },
	{ "Ping", S_TOP, K_LONG, TOP(ping), 0, 86400, -1 },
	{ "Jobs", S_TOP, K_LONG, TOP(jobs), 0, 1024, -1 },
	{ "Server", S_TOP, K_SERVER, 0, 0, 0, -1 },
	{ "ServerName", S_TOP, K_STR, TOP(server_name), 0, 0, -1 },
	{ "WorkerName", S_TOP, K_STR, TOP(worker_name), 0, 0, -1 },
	{ "Parameters", S_TOP, K_STR, TOP(parameters), 0, 0, -1 },
	{ "Cluster", S_TOP, K_STR, TOP(cluster), 0, 0, -1 },
	{ "Platform", S_WORKER, K_STR, WRK(platform), 0, 0, -1 },
	{ "File", S_WORKER, K_STR, WRK(file), 0, 0, -1 },
	{ "File", S_INPUT, K_STR, INP(file), 0, 0, -1 },
	{ "Parameter", S_INPUT, K_STR, INP(parameter), 0, 0, -1 },
	{ "Content", S_INPUT, K_CONTENT, 0, 0, 0, -1 },
	{ "Source", S_INPUT, K_STR, INP(source), 0, 0, -1 },
	{ "Name", S_RESULT, K_STR, RES(name), 0, 0, -1 },
	{ "File", S_RESULT, K_STR, RES(file), 0, 0, -1 },
};

struct parser {
	const char *name;
	struct sweep_spec *s;
	struct sbuf *err;
	int lineno;
	enum sect sect;
	int sect_line;
	int seen[ARRAY_SIZE(keys)];     /* line of each key in the current section */
	struct sweep_spec_worker w;
	struct sweep_spec_input in;
	struct sweep_spec_result r;
};

static int pfail(struct parser *ps, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int pfail(struct parser *ps, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT(4096);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	sweep_fail(ps->err, "%s:%d: %s", ps->name, ps->lineno, sbuf_str(&b));
	sbuf_release(&b);
	return -1;
}

static void input_release(struct sweep_spec_input *in)
{
	size_t i;

	free(in->file);
	free(in->parameter);
	free(in->source);
	free(in->data);
	for (i = 0; i < in->ncontent; i++)
		free(in->content[i].text);
	free(in->content);
	memset(in, 0, sizeof(*in));
}

static void worker_release(struct sweep_spec_worker *w)
{
	free(w->platform);
	free(w->file);
	memset(w, 0, sizeof(*w));
}

static void result_release(struct sweep_spec_result *r)
{
	free(r->name);
	free(r->file);
	memset(r, 0, sizeof(*r));
}

void sweep_spec_release(struct sweep_spec *s)
{
	size_t i;

	for (i = 0; i < s->nworkers; i++)
		worker_release(&s->workers[i]);
	for (i = 0; i < s->ninputs; i++)
		input_release(&s->inputs[i]);
	for (i = 0; i < s->nresults; i++)
		result_release(&s->results[i]);
	free(s->workers);
	free(s->inputs);
	free(s->results);
	free(s->name);
	free(s->dir);
	free(s->command_line);
	free(s->validate);
	free(s->output);
	free(s->server_host);
	free(s->server_name);
	free(s->worker_name);
	free(s->parameters);
	free(s->cluster);
	memset(s, 0, sizeof(*s));
}

static bool token_ok(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (!sweep_is_name_char((unsigned char)*v) && *v != '.' && *v != '-')
			return false;
	return true;
}

/* Server=[host][:port], [v6addr]:port, or a bare host; port 80 by default. */
static int parse_server(struct parser *ps, const char *v)
{
	const char *colon;
	char *host;
	long port = 80;

	if (v[0] == '[') {
		const char *close = strchr(v, ']');
		struct in6_addr a;

		if (!close)
			return pfail(ps, "Server: no ']' after '['");
		host = xstrndup(v + 1, (size_t)(close - v - 1));
		if (inet_pton(AF_INET6, host, &a) != 1) {
			free(host);
			return pfail(ps, "Server: bad IPv6 address");
		}
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon) {
			free(host);
			return pfail(ps, "Server: text after ']'");
		}
	} else {
		colon = strrchr(v, ':');
		host = colon ? xstrndup(v, (size_t)(colon - v)) : xstrdup(v);
		if (strchr(host, ':') || (*host && !token_ok(host))) {
			free(host);
			return pfail(ps, "Server: bad address '%.*s' (host:port, or [address]:port for IPv6)",
				     SHOW, v);
		}
	}
	if (colon && sweep_parse_bounded(colon + 1, 1, 65535, &port) < 0) {
		free(host);
		return pfail(ps, "Server: bad port '%.*s'", SHOW, colon + 1);
	}
	free(ps->s->server_host);
	ps->s->server_host = *host ? host : (free(host), xstrdup("0.0.0.0"));
	ps->s->server_port = (int)port;
	return 0;
}

static void *sect_struct(struct parser *ps, enum sect sect)
{
	switch (sect) {
	case S_TOP:
		return ps->s;
	case S_WORKER:
		return &ps->w;
	case S_INPUT:
		return &ps->in;
	default:
		return &ps->r;
	}
}

static int set_key(struct parser *ps, const struct key *k, const char *raw, size_t rawlen)
{
	char *base = sect_struct(ps, k->sect);
	const char *v = raw;
	size_t n = rawlen;
	char *val;
	int rc = 0;

	if (k->type == K_CONTENT) {
		struct sweep_spec_input *in = &ps->in;

		ARRAY_GROW(in->content, in->ncontent);
		in->content[in->ncontent].text = xstrndup(raw, rawlen);
		in->content[in->ncontent].line = ps->lineno;
		in->ncontent++;
		return 0;
	}
	if (k->type != K_TEXT) {
		size_t i;

		for (i = 0; i < n; i++)
			if (v[i] == '#' && (i == 0 || v[i - 1] == ' ' || v[i - 1] == '\t')) {
				n = i;
				break;
			}
	}
	sweep_trim(&v, &n);
	val = xstrndup(v, n);
	if (!*val && k->type != K_TEXT) {
		rc = pfail(ps, "%s has no value", k->name);
		goto out;
	}
	switch (k->type) {
	case K_STR:
	case K_TEXT:
		if (!*val) {
			rc = pfail(ps, "%s has no value", k->name);
			break;
		}
		free(*(char **)(base + k->off));
		*(char **)(base + k->off) = val;
		val = NULL;
		if (k->line_off >= 0)
			*(int *)(base + k->line_off) = ps->lineno;
		break;
	case K_LONG:
		if (sweep_parse_bounded(val, k->lo, k->hi, (long *)(base + k->off)) < 0)
			rc = pfail(ps, "%s must be a whole number from %ld to %ld, not '%.*s'", k->name,
				   k->lo, k->hi, SHOW, val);
		break;
	case K_YESNO:
		if (sweep_parse_yesno(val, (bool *)(base + k->off)) < 0)
			rc = pfail(ps, "%s must be Yes or No, not '%.*s'", k->name, SHOW, val);
		break;
	case K_COLLECT:
		if (!strcasecmp(val, "plain"))
			ps->s->collect = SWEEP_COLLECT_PLAIN;
		else if (!strcasecmp(val, "blocks"))
			ps->s->collect = SWEEP_COLLECT_BLOCKS;
		else if (!strcasecmp(val, "tag"))
			ps->s->collect = SWEEP_COLLECT_TAG;
		else
			rc = pfail(ps, "Collect must be plain, blocks or tag, not '%.*s'", SHOW, val);
		break;
	case K_SERVER:
		rc = parse_server(ps, val);
		break;
	case K_CONTENT:
		break;
	}
out:
	free(val);
	return rc;
}

/* Check the section just finished and add it to the spec. */
static int end_section(struct parser *ps)
{
	struct sweep_spec *s = ps->s;
	int save = ps->lineno, rc = 0;
	size_t i;

	ps->lineno = ps->sect_line;
	if (ps->sect == S_WORKER) {
		if (!ps->w.platform)
			rc = pfail(ps, "[Worker] without Platform");
		else if (!ps->w.file)
			rc = pfail(ps, "[Worker] without File");
		else if (!token_ok(ps->w.platform))
			rc = pfail(ps, "bad Platform '%.*s'", SHOW, ps->w.platform);
		for (i = 0; !rc && i < s->nworkers; i++)
			if (!strcmp(s->workers[i].platform, ps->w.platform))
				rc = pfail(ps, "a second [Worker] for %s (the first at line %d)",
					   ps->w.platform, s->workers[i].line);
		if (!rc) {
			ps->w.line = ps->sect_line;
			ARRAY_GROW(s->workers, s->nworkers);
			s->workers[s->nworkers++] = ps->w;
			memset(&ps->w, 0, sizeof(ps->w));
		}
	} else if (ps->sect == S_INPUT) {
		if (!ps->in.file)
			rc = pfail(ps, "[Input] without File");
		else if (strcmp(ps->in.file, "stdin") && !sweep_safe_filename(ps->in.file))
			rc = pfail(ps, "[Input] File '%.*s' must be a relative name without '..'", SHOW,
				   ps->in.file);
		else if (!ps->in.parameter && !ps->in.ncontent && !ps->in.source)
			rc = pfail(ps, "[Input] for '%s' needs Parameter=, Content= or Source=",
				   ps->in.file);
		else if (!!ps->in.parameter + !!ps->in.ncontent + !!ps->in.source > 1)
			rc = pfail(ps, "[Input] for '%s' takes one of Parameter=, Content= and Source=",
				   ps->in.file);
		else if (ps->in.parameter && !sweep_is_name(ps->in.parameter, strlen(ps->in.parameter)))
			rc = pfail(ps, "bad Parameter name '%.*s'", SHOW, ps->in.parameter);
		for (i = 0; !rc && i < s->ninputs; i++)
			if (!strcmp(s->inputs[i].file, ps->in.file))
				rc = pfail(ps, "a second [Input] for '%s' (the first at line %d)",
					   ps->in.file, s->inputs[i].line);
		for (i = 0; !rc && i < ps->in.ncontent; i++) {
			struct sbuf e = SBUF_INIT(1024);

			if (sweep_expand_text(ps->in.content[i].text, NULL, NULL, &e) < 0) {
				ps->lineno = ps->in.content[i].line;
				rc = pfail(ps, "Content: %s", sbuf_str(&e));
			}
			sbuf_release(&e);
		}
		if (!rc) {
			ps->in.line = ps->sect_line;
			ARRAY_GROW(s->inputs, s->ninputs);
			s->inputs[s->ninputs++] = ps->in;
			memset(&ps->in, 0, sizeof(ps->in));
		}
	} else if (ps->sect == S_RESULT) {
		if (!ps->r.name)
			rc = pfail(ps, "[Result] without Name");
		else if (!ps->r.file)
			rc = pfail(ps, "[Result] '%s' without File", ps->r.name);
		else if (!token_ok(ps->r.name) || ps->r.name[0] == '.' || ps->r.name[0] == '-')
			rc = pfail(ps, "bad result Name '%.*s' (letters, digits, _ . -)", SHOW, ps->r.name);
		else if (strcmp(ps->r.file, "stdout") && !sweep_safe_filename(ps->r.file))
			rc = pfail(ps, "[Result] File '%.*s' must be a relative name without '..'", SHOW,
				   ps->r.file);
		for (i = 0; !rc && i < s->nresults; i++)
			if (!strcmp(s->results[i].name, ps->r.name))
				rc = pfail(ps, "a second [Result] called '%s' (the first at line %d)",
					   ps->r.name, s->results[i].line);
		if (!rc) {
			ps->r.line = ps->sect_line;
			ARRAY_GROW(s->results, s->nresults);
			s->results[s->nresults++] = ps->r;
			memset(&ps->r, 0, sizeof(ps->r));
		}
	}
	worker_release(&ps->w);
	input_release(&ps->in);
	result_release(&ps->r);
	memset(ps->seen, 0, sizeof(ps->seen));
	ps->lineno = save;
	return rc;
}

/* Where a key that is not allowed here does belong, for the error message. */
static const char *belongs(const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].name) == n && !memcmp(keys[i].name, key, n))
			return keys[i].sect == S_TOP ? "before the first section" :
			       keys[i].sect == S_WORKER ? "in [Worker]" :
			       keys[i].sect == S_INPUT ? "in [Input]" : "in [Result]";
	return NULL;
}

static int key_line(struct parser *ps, const char *t, size_t tn, const char *line, size_t n)
{
	const char *eq = memchr(t, '=', tn);
	const char *k = t;
	size_t kn, i;
	const char *where;

	if (!eq)
		return pfail(ps, "expected Key=Value or [Section], not '%.*s'",
			     (int)(tn < SHOW ? tn : SHOW), t);
	kn = (size_t)(eq - t);
	sweep_trim(&k, &kn);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *key = &keys[i];
		const char *v;
		size_t vn;

		if (key->sect != ps->sect || strlen(key->name) != kn || memcmp(key->name, k, kn))
			continue;
		if (ps->seen[i] && key->type != K_CONTENT)
			return pfail(ps, "duplicate %s (first at line %d)", key->name, ps->seen[i]);
		ps->seen[i] = ps->lineno;
		/* The raw value: everything after '=' in the untrimmed line. */
		v = memchr(line, '=', n) + 1;
		vn = n - (size_t)(v - line);
		return set_key(ps, key, v, vn);
	}
	where = belongs(k, kn);
	if (where)
		return pfail(ps, "%.*s is not allowed in %s (it belongs %s)", (int)kn, k,
			     sect_name[ps->sect], where);
	return pfail(ps, "unknown key '%.*s'", (int)(kn < SHOW ? kn : SHOW), k);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Default Output: the spec file's name with its extension replaced by ".out". */
static char *default_output(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = base + strlen(base);
	return xasprintf("%.*s.out", (int)(dot - base), base);
}

static int finish(struct parser *ps)
{
	struct sweep_spec *s = ps->s;
	struct sweep_argv argv = { NULL, 0 };
	struct sbuf e = SBUF_INIT(1024);
	int rc = 0;

	if (!s->command_line)
		return sweep_fail(ps->err, "%s: no CommandLine", ps->name);
	if (!s->nworkers)
		return sweep_fail(ps->err, "%s: no [Worker] section", ps->name);
	if (!s->nresults)
		return sweep_fail(ps->err, "%s: no [Result] section", ps->name);
	if (s->max_total < s->max_assign)
		return sweep_fail(ps->err, "%s: MaxTotal %ld is less than MaxAssign %ld", ps->name,
				  s->max_total, s->max_assign);
	ps->lineno = s->command_line_line;
	if (sweep_expand_argv(s->command_line, NULL, &argv, &e) < 0) {
		rc = pfail(ps, "CommandLine: %s", sbuf_str(&e));
		goto out;
	}
	if (!s->worker_name) {
		const char *slash = strrchr(argv.v[0], '/');
		const char *w = slash ? slash + 1 : argv.v[0];

		if (!*w) {
			rc = pfail(ps, "the first word of CommandLine names no worker; give WorkerName=");
			goto out;
		}
		s->worker_name = xstrdup(w);
	}
	if (!sweep_safe_filename(s->worker_name) || strchr(s->worker_name, '/')) {
		rc = sweep_fail(ps->err, "%s: bad worker name '%.*s' (a file name without '/')",
				ps->name, SHOW, s->worker_name);
		goto out;
	}
	if (s->validate) {
		sweep_argv_release(&argv);
		sbuf_reset(&e);
		ps->lineno = s->validate_line;
		if (sweep_expand_argv(s->validate, NULL, &argv, &e) < 0) {
			rc = pfail(ps, "Validate: %s", sbuf_str(&e));
			goto out;
		}
	}
	if (!s->output)
		s->output = default_output(ps->name);
out:
	sweep_argv_release(&argv);
	sbuf_release(&e);
	return rc;
}

int sweep_spec_parse(const char *name, const char *buf, size_t len, struct sweep_spec *s,
		     struct sbuf *err)
{
	struct parser ps;
	struct sweep_lines it;
	const char *line;
	size_t n;

	memset(s, 0, sizeof(*s));
	memset(&ps, 0, sizeof(ps));
	s->name = xstrdup(name);
	s->dir = dir_of(name);
	s->timeout = 3600;
	s->max_assign = 1;
	s->max_total = 3;
	s->collect = SWEEP_COLLECT_PLAIN;
	s->ping = 10;
	s->jobs = 1;
	s->server_host = xstrdup("0.0.0.0");
	s->server_port = 0;      /* a port the kernel picks (a project: 8080) */
	ps.name = name;
	ps.s = s;
	ps.err = err;
	ps.sect = S_TOP;
	sweep_lines_init(&it, buf, len);
	while (sweep_lines_next(&it, &line, &n)) {
		const char *t = line;
		size_t tn = n;

		ps.lineno = it.lineno;
		if (memchr(line, '\0', n)) {
			pfail(&ps, "NUL byte in the line");
			goto fail;
		}
		sweep_trim(&t, &tn);
		if (!tn || t[0] == '#')
			continue;
		if (t[0] == '[') {
			const char *close = memchr(t, ']', tn);
			const char *rest;
			size_t rn;
			enum sect sect;

			if (!close) {
				pfail(&ps, "no ']' after '['");
				goto fail;
			}
			rest = close + 1;
			rn = tn - (size_t)(rest - t);
			sweep_trim(&rest, &rn);
			if (rn && rest[0] != '#') {
				pfail(&ps, "text after the section header");
				goto fail;
			}
			if (close - t == 7 && !memcmp(t, "[Worker", 7))
				sect = S_WORKER;
			else if (close - t == 6 && !memcmp(t, "[Input", 6))
				sect = S_INPUT;
			else if (close - t == 7 && !memcmp(t, "[Result", 7))
				sect = S_RESULT;
			else {
				pfail(&ps, "unknown section %.*s (known: [Worker], [Input], [Result])",
				      (int)(close - t + 1 < SHOW ? close - t + 1 : SHOW), t);
				goto fail;
			}
			if (end_section(&ps) < 0)
				goto fail;
			ps.sect = sect;
			ps.sect_line = it.lineno;
			continue;
		}
		if (key_line(&ps, t, tn, line, n) < 0)
			goto fail;
	}
	ps.lineno = it.lineno;
	if (end_section(&ps) < 0 || finish(&ps) < 0)
		goto fail;
	return 0;
fail:
	worker_release(&ps.w);
	input_release(&ps.in);
	result_release(&ps.r);
	sweep_spec_release(s);
	return -1;
}

/* The bytes of an [Input]'s Source= file (relative to the spec's directory). */
static int load_source(const struct sweep_spec *s, struct sweep_spec_input *in, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(SWEEP_SOURCE_MAX);
	struct sbuf e = SBUF_INIT(1024);
	char *path = in->source[0] == '/' ? xstrdup(in->source)
		: xasprintf("%s/%s", s->dir, in->source);
	int rc = sweep_read_file(path, SWEEP_SOURCE_MAX, &b, &e);

	if (rc < 0)
		sweep_fail(err, "%s:%d: [Input] for '%s': %s", s->name, in->line, in->file, sbuf_str(&e));
	else if (b.len && memchr(b.buf, '\0', b.len))
		rc = sweep_fail(err, "%s:%d: [Input] for '%s': %s holds a NUL byte (a task body is "
				"text)", s->name, in->line, in->file, path);
	if (rc == 0) {
		in->len = b.len;
		in->data = b.buf ? sbuf_detach(&b, NULL) : xstrdup("");
	}
	free(path);
	sbuf_release(&b);
	sbuf_release(&e);
	return rc;
}

int sweep_spec_read(const char *path, struct sweep_spec *s, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(SWEEP_SPEC_MAX);
	int rc;

	memset(s, 0, sizeof(*s));
	if (sweep_read_file(path, SWEEP_SPEC_MAX, &b, err) < 0) {
		sbuf_release(&b);
		return -1;
	}
	rc = sweep_spec_parse(path, b.buf, b.len, s, err);
	sbuf_release(&b);
	return rc;
}

int sweep_spec_load_sources(struct sweep_spec *s, struct sbuf *err)
{
	size_t i;

	for (i = 0; i < s->ninputs; i++)
		if (s->inputs[i].source && !s->inputs[i].data && load_source(s, &s->inputs[i], err) < 0)
			return -1;
	return 0;
}

static void param_list(const struct sweep_params *p, struct sbuf *out)
{
	size_t k;

	for (k = 0; k < p->nnames && out->len < 200; k++)
		sbuf_addf(out, "%s%s", k ? ", " : "", p->names[k]);
	if (k < p->nnames)
		sbuf_addstr(out, ", ...");
}

static int check_one(const struct sweep_spec *s, const struct sweep_params *p, const char *what,
		     const char *text, int line, bool argv, struct sbuf *err)
{
	struct sweep_vars vars = { p->names, NULL, p->nnames, 0 };
	struct sweep_argv a = { NULL, 0 };
	struct sbuf e = SBUF_INIT(1024), names = SBUF_INIT(1024);
	int rc;

	rc = argv ? sweep_expand_argv(text, &vars, &a, &e) : sweep_expand_text(text, &vars, NULL, &e);
	if (rc < 0) {
		param_list(p, &names);
		sweep_fail(err, "%s:%d: %s: %s (the parameter file has %s)", s->name, line, what,
			   sbuf_str(&e), sbuf_str(&names));
	}
	sweep_argv_release(&a);
	sbuf_release(&e);
	sbuf_release(&names);
	return rc;
}

int sweep_spec_check_params(const struct sweep_spec *s, const struct sweep_params *p,
			    struct sbuf *err)
{
	size_t i, j;

	if (check_one(s, p, "CommandLine", s->command_line, s->command_line_line, true, err) < 0)
		return -1;
	if (s->validate &&
	    check_one(s, p, "Validate", s->validate, s->validate_line, true, err) < 0)
		return -1;
	for (i = 0; i < s->ninputs; i++) {
		const struct sweep_spec_input *in = &s->inputs[i];

		if (in->parameter && sweep_params_index(p, in->parameter, strlen(in->parameter)) < 0) {
			struct sbuf names = SBUF_INIT(1024);

			param_list(p, &names);
			sweep_fail(err, "%s:%d: [Input] for '%s': no parameter '%s' (the parameter file has %s)",
				   s->name, in->line, in->file, in->parameter, sbuf_str(&names));
			sbuf_release(&names);
			return -1;
		}
		for (j = 0; j < in->ncontent; j++)
			if (check_one(s, p, "Content", in->content[j].text, in->content[j].line, false,
				      err) < 0)
				return -1;
	}
	return 0;
}

const struct sweep_spec_worker *sweep_spec_worker_for(const struct sweep_spec *s,
						      const char *platform)
{
	size_t i;

	for (i = 0; i < s->nworkers; i++)
		if (!strcmp(s->workers[i].platform, platform))
			return &s->workers[i];
	return NULL;
}

int sweep_spec_command(const char *pattern, const struct sweep_params *p, size_t row,
		       struct sweep_argv *argv, struct sbuf *err)
{
	struct sweep_vars vars = { p->names, p->rows[row].values, p->nnames, row + 1 };

	return sweep_expand_argv(pattern, &vars, argv, err);
}

int sweep_spec_input_content(const struct sweep_spec_input *in, const struct sweep_params *p,
			     size_t row, struct sbuf *out, struct sbuf *err)
{
	struct sweep_vars vars = { p->names, p->rows[row].values, p->nnames, row + 1 };
	size_t j;

	if (in->source) {
		if (!in->data)
			return sweep_fail(err, "input file '%s': its Source was not read", in->file);
		if (sbuf_add(out, in->data, in->len) < 0)
			return sweep_fail(err, "input file '%s' too large", in->file);
		return 0;
	}
	if (in->parameter) {
		int k = sweep_params_index(p, in->parameter, strlen(in->parameter));

		if (k < 0)
			return sweep_fail(err, "no parameter '%s'", in->parameter);
		if (sbuf_addstr(out, p->rows[row].values[k]) < 0 || sbuf_addch(out, '\n') < 0)
			return sweep_fail(err, "input file '%s' too large", in->file);
		return 0;
	}
	for (j = 0; j < in->ncontent; j++)
		if (sweep_expand_text(in->content[j].text, &vars, out, err) < 0 ||
		    sbuf_addch(out, '\n') < 0)
			return sweep_fail(err, "input file '%s': cannot expand line %d", in->file,
					  in->content[j].line);
	return 0;
}
