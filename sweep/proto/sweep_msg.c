/*
 * Encoders and decoders of the sweep protocol bodies; see sweep_msg.h.
 * One decoder walks all three kinds of body line by line; what a key or a
 * section means depends on the kind and the section it is in.
 */
#include "sweep_msg.h"
#include "sweep_util.h"

#define BEGIN_MARK "--begin content--"
#define END_MARK "--end content--"
#define SHOW 64

enum kind { MSG_TASK, MSG_COMPLETE, MSG_CONFIG, MSG_FAILED };
enum sect { S_TOP, S_INPUT, S_RESULT, S_STDOUT, S_STDERR };

static const char *const kind_name[] = { "task", "complete", "config", "failed" };
static const char *const sect_name[] = { "", "[Input]", "[Result]", "[Stdout]", "[Stderr]" };

/* A results body: /complete's, or /failed's (the same, its results may be missing). */
#define REPORT(kind) ((kind) == MSG_COMPLETE || (kind) == MSG_FAILED)

struct dec {
	enum kind kind;
	bool head_only;         /* stop at the first section */
	const char *buf;
	size_t len, pos;
	int lineno;
	struct sbuf *err;

	enum sect sect;
	int sect_line;
	char *name, *file;
	int file_line;
	bool have_length, have_size;
	size_t length, size;
	bool have_block;
	char *data;
	size_t dlen;

	bool have_ticket, have_timeout, have_cmd, have_dw, have_dc, have_ping, have_so;
	struct sweep_task *task;
	struct sweep_complete *comp;
	struct sweep_config *conf;
};

static bool ticket_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > SWEEP_TICKET_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* Result names: letters, digits, '_', '.', '-'; the master may use them in file names. */
static bool result_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > 255 || s[0] == '.' || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!sweep_is_name_char((unsigned char)s[i]) && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

static bool file_ok(const char *s, const char *special)
{
	return !strcmp(s, special) || sweep_safe_filename(s);
}

/* A value the decoder gives back unchanged: no line breaks, no blanks at the ends. */
static bool value_ok(const char *s)
{
	size_t n = strlen(s);

	return !strpbrk(s, "\r\n") &&
	       !(n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t'));
}

/* ---- building ---- */

void sweep_task_add_input(struct sweep_task *t, const char *file, const void *data, size_t len)
{
	struct sweep_msg_input *in;

	ARRAY_GROW(t->inputs, t->ninputs);
	in = &t->inputs[t->ninputs++];
	in->file = xstrdup(file);
	in->data = xmalloc(len + 1);
	if (len)
		memcpy(in->data, data, len);
	in->data[len] = '\0';
	in->len = len;
}

void sweep_task_add_result(struct sweep_task *t, const char *name, const char *file)
{
	ARRAY_GROW(t->results, t->nresults);
	t->results[t->nresults].name = xstrdup(name);
	t->results[t->nresults].file = xstrdup(file);
	t->nresults++;
}

void sweep_complete_add(struct sweep_complete *c, const char *name, const void *data, size_t len)
{
	struct sweep_msg_output *o;

	ARRAY_GROW(c->results, c->nresults);
	o = &c->results[c->nresults++];
	o->name = xstrdup(name);
	o->data = xmalloc(len + 1);
	if (len)
		memcpy(o->data, data, len);
	o->data[len] = '\0';
	o->len = len;
}

void sweep_complete_stream(struct sweep_msg_stream *s, const void *data, size_t len, size_t size)
{
	free(s->data);
	s->present = true;
	s->data = xmalloc(len + 1);
	if (len)
		memcpy(s->data, data, len);
	s->data[len] = '\0';
	s->len = len;
	s->size = size < len ? len : size;
}

void sweep_task_release(struct sweep_task *t)
{
	size_t i;

	for (i = 0; i < t->ninputs; i++) {
		free(t->inputs[i].file);
		free(t->inputs[i].data);
	}
	for (i = 0; i < t->nresults; i++) {
		free(t->results[i].name);
		free(t->results[i].file);
	}
	free(t->inputs);
	free(t->results);
	free(t->ticket);
	free(t->command_line);
	memset(t, 0, sizeof(*t));
}

void sweep_complete_release(struct sweep_complete *c)
{
	size_t i;

	for (i = 0; i < c->nresults; i++) {
		free(c->results[i].name);
		free(c->results[i].data);
	}
	free(c->results);
	free(c->out.data);
	free(c->err.data);
	memset(c, 0, sizeof(*c));
}

const struct sweep_msg_output *sweep_complete_find(const struct sweep_complete *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nresults; i++)
		if (!strcmp(c->results[i].name, name))
			return &c->results[i];
	return NULL;
}

/* ---- encoding ---- */

static int add_block(struct sbuf *out, const char *data, size_t len)
{
	if (sbuf_addf(out, "Length=%zu\n" BEGIN_MARK "\n", len) < 0 || sbuf_add(out, data, len) < 0 ||
	    sbuf_addstr(out, "\n" END_MARK "\n") < 0)
		return -1;
	return 0;
}

static int too_large(const char *what, struct sbuf *out, size_t start, struct sbuf *err)
{
	sbuf_truncate(out, start);
	return sweep_fail(err, "%s: the message would be larger than %zu bytes", what, out->max);
}

int sweep_task_encode(const struct sweep_task *t, struct sbuf *out, struct sbuf *err)
{
	size_t start = out->len, i;

	if (!t->ticket || !ticket_ok(t->ticket))
		return sweep_fail(err, "task: bad ticket");
	if (t->timeout < 0)
		return sweep_fail(err, "task: negative timeout");
	if (!t->command_line || !*t->command_line || !value_ok(t->command_line))
		return sweep_fail(err, "task: empty command line, or one with a line break or blanks at an end");
	if (!t->nresults)
		return sweep_fail(err, "task: no results asked for");
	for (i = 0; i < t->ninputs; i++)
		if (!file_ok(t->inputs[i].file, "stdin") || !value_ok(t->inputs[i].file))
			return sweep_fail(err, "task: bad input file name '%.*s'", SHOW, t->inputs[i].file);
	for (i = 0; i < t->nresults; i++) {
		if (!result_name_ok(t->results[i].name))
			return sweep_fail(err, "task: bad result name '%.*s'", SHOW, t->results[i].name);
		if (!file_ok(t->results[i].file, "stdout") || !value_ok(t->results[i].file))
			return sweep_fail(err, "task: bad result file name '%.*s'", SHOW, t->results[i].file);
	}
	if (sbuf_addf(out, "Ticket=%s\nTimeout=%ld\nCommandLine=%s\n", t->ticket, t->timeout,
		      t->command_line) < 0)
		return too_large("task", out, start, err);
	for (i = 0; i < t->ninputs; i++)
		if (sbuf_addf(out, "[Input]\nFile=%s\n", t->inputs[i].file) < 0 ||
		    add_block(out, t->inputs[i].data, t->inputs[i].len) < 0)
			return too_large("task", out, start, err);
	for (i = 0; i < t->nresults; i++)
		if (sbuf_addf(out, "[Result]\nName=%s\nFile=%s\n", t->results[i].name,
			      t->results[i].file) < 0)
			return too_large("task", out, start, err);
	return 0;
}

/* [Stdout] or [Stderr]: Size= (the whole stream's), and the part of it kept. */
static int add_stream(struct sbuf *out, const char *sect, const struct sweep_msg_stream *s)
{
	if (!s->present)
		return 0;
	if (sbuf_addf(out, "%s\nSize=%zu\n", sect, s->size) < 0)
		return -1;
	return add_block(out, s->data ? s->data : "", s->len);
}

static int encode_report(const struct sweep_complete *c, enum kind kind, struct sbuf *out,
			 struct sbuf *err)
{
	const char *what = kind_name[kind];
	size_t start = out->len, i;

	if (kind == MSG_COMPLETE && !c->nresults)
		return sweep_fail(err, "complete: no results");
	for (i = 0; i < c->nresults; i++)
		if (!result_name_ok(c->results[i].name))
			return sweep_fail(err, "%s: bad result name '%.*s'", what, SHOW, c->results[i].name);
	if ((c->have_exit && (c->exit_status < 0 || c->exit_status > 255)) ||
	    c->signal < 0 || c->signal > 127)
		return sweep_fail(err, "%s: exit status or signal out of range", what);
	for (i = 0; i < 2; i++) {
		const struct sweep_msg_stream *s = i ? &c->err : &c->out;

		if (s->present && (s->len > SWEEP_OUTPUT_MAX || s->size < s->len))
			return sweep_fail(err, "%s: a stream of more than %u bytes, or larger than its Size",
					  what, SWEEP_OUTPUT_MAX);
	}
	if ((c->have_exit && sbuf_addf(out, "Exit=%d\n", c->exit_status) < 0) ||
	    (c->signal && sbuf_addf(out, "Signal=%d\n", c->signal) < 0))
		return too_large(what, out, start, err);
	for (i = 0; i < c->nresults; i++)
		if (sbuf_addf(out, "[Result]\nName=%s\n", c->results[i].name) < 0 ||
		    add_block(out, c->results[i].data, c->results[i].len) < 0)
			return too_large(what, out, start, err);
	if (add_stream(out, "[Stdout]", &c->out) < 0 || add_stream(out, "[Stderr]", &c->err) < 0)
		return too_large(what, out, start, err);
	return 0;
}

int sweep_complete_encode(const struct sweep_complete *c, struct sbuf *out, struct sbuf *err)
{
	return encode_report(c, MSG_COMPLETE, out, err);
}

int sweep_failed_encode(const struct sweep_complete *c, struct sbuf *out, struct sbuf *err)
{
	return encode_report(c, MSG_FAILED, out, err);
}

int sweep_config_encode(const struct sweep_config *c, struct sbuf *out, struct sbuf *err)
{
	size_t start = out->len;

	if (c->ping < 0)
		return sweep_fail(err, "config: negative ping interval");
	if (sbuf_addf(out, "DeleteWorker=%s\nDeleteClient=%s\nPing=%ld\n",
		      c->delete_worker ? "Yes" : "No", c->delete_client ? "Yes" : "No", c->ping) < 0 ||
	    (c->send_output && sbuf_addstr(out, "SendOutput=Yes\n") < 0))
		return too_large("config", out, start, err);
	return 0;
}

/* ---- decoding ---- */

static int dfail(struct dec *d, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int dfail(struct dec *d, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT(4096);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	sweep_fail(d->err, "%s:%d: %s", kind_name[d->kind], d->lineno, sbuf_str(&b));
	sbuf_release(&b);
	return -1;
}

static bool next_line(struct dec *d, const char **line, size_t *n)
{
	const char *nl;

	if (d->pos >= d->len)
		return false;
	*line = d->buf + d->pos;
	nl = memchr(*line, '\n', d->len - d->pos);
	*n = nl ? (size_t)(nl - *line) : d->len - d->pos;
	d->pos += *n + (nl ? 1 : 0);
	if (*n && (*line)[*n - 1] == '\r')
		(*n)--;
	d->lineno++;
	return true;
}

/* Bytes of an end-marker line at off ("--end content--" and "\n", "\r\n" or the end), or 0. */
static size_t marker_at(const struct dec *d, size_t off)
{
	size_t m = sizeof(END_MARK) - 1;

	if (off > d->len || d->len - off < m || memcmp(d->buf + off, END_MARK, m))
		return 0;
	off += m;
	if (off == d->len)
		return m;
	if (d->buf[off] == '\n')
		return m + 1;
	if (d->buf[off] == '\r' && off + 1 < d->len && d->buf[off + 1] == '\n')
		return m + 2;
	return 0;
}

static void count_lines(struct dec *d, size_t from, size_t to)
{
	const char *p = d->buf + from, *end = d->buf + to;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		d->lineno++;
		p++;
	}
}

/* The "--begin content--" line has been read; take the content and the end marker. */
static int read_block(struct dec *d)
{
	size_t cs = d->pos, start = d->pos, m;
	int begin_line = d->lineno;

	if (d->have_length) {
		size_t off;

		if (d->length > d->len - cs)
			return dfail(d, "Length=%zu runs past the end of the body (%zu bytes left)",
				     d->length, d->len - cs);
		off = cs + d->length;
		if (off >= d->len || d->buf[off] != '\n' || !(m = marker_at(d, off + 1)))
			return dfail(d, "no '" END_MARK "' line right after the %zu bytes of Length",
				     d->length);
		d->dlen = d->length;
		d->pos = off + 1 + m;
	} else if ((m = marker_at(d, cs)) != 0) {
		d->dlen = 0;
		d->pos = cs + m;
	} else {
		size_t i = cs;
		const char *nl;

		for (;;) {
			nl = memchr(d->buf + i, '\n', d->len - i);
			if (!nl)
				return dfail(d, "content block without an '" END_MARK "' line");
			i = (size_t)(nl - d->buf);
			if ((m = marker_at(d, i + 1)) != 0)
				break;
			i++;
		}
		d->dlen = i - cs;
		d->pos = i + 1 + m;
	}
	d->data = xmalloc(d->dlen + 1);
	if (d->dlen)
		memcpy(d->data, d->buf + cs, d->dlen);
	d->data[d->dlen] = '\0';
	d->have_block = true;
	d->lineno = begin_line;
	count_lines(d, start, d->pos);
	return 0;
}

static void sect_reset(struct dec *d)
{
	free(d->name);
	free(d->file);
	free(d->data);
	d->name = d->file = d->data = NULL;
	d->have_length = d->have_block = d->have_size = false;
	d->length = d->dlen = d->size = 0;
}

/* A [Stdout] or [Stderr] section just finished: one bounded block, at most its Size. */
static int end_stream(struct dec *d, struct sweep_msg_stream *s)
{
	const char *sect = sect_name[d->sect];

	if (s->present)
		return dfail(d, "a second %s", sect);
	if (!d->have_block)
		return dfail(d, "%s without a content block", sect);
	if (d->dlen > SWEEP_OUTPUT_MAX)
		return dfail(d, "%s of %zu bytes, more than the %u a stream may bring", sect, d->dlen,
			     SWEEP_OUTPUT_MAX);
	if (d->have_size && d->size < d->dlen)
		return dfail(d, "%s: Size=%zu is less than its %zu bytes", sect, d->size, d->dlen);
	sweep_complete_stream(s, d->data, d->dlen, d->have_size ? d->size : d->dlen);
	return 0;
}

/* Check the section just finished and move it into the message. */
static int end_section(struct dec *d)
{
	size_t i;
	int save = d->lineno;
	int rc = 0;

	d->lineno = d->sect_line;
	if (d->sect == S_INPUT) {
		if (!d->file)
			rc = dfail(d, "[Input] without File");
		else if (!d->have_block)
			rc = dfail(d, "[Input] for '%.*s' without a content block", SHOW, d->file);
		for (i = 0; !rc && i < d->task->ninputs; i++)
			if (!strcmp(d->task->inputs[i].file, d->file))
				rc = dfail(d, "a second [Input] for '%.*s'", SHOW, d->file);
		if (!rc) {
			sweep_task_add_input(d->task, d->file, d->data, d->dlen);
		}
	} else if (d->sect == S_RESULT && d->kind == MSG_TASK) {
		if (!d->name)
			rc = dfail(d, "[Result] without Name");
		else if (!d->file)
			rc = dfail(d, "[Result] '%s' without File", d->name);
		for (i = 0; !rc && i < d->task->nresults; i++)
			if (!strcmp(d->task->results[i].name, d->name))
				rc = dfail(d, "a second [Result] called '%s'", d->name);
		if (!rc)
			sweep_task_add_result(d->task, d->name, d->file);
	} else if (d->sect == S_RESULT) {
		if (!d->name)
			rc = dfail(d, "[Result] without Name");
		else if (!d->have_block)
			rc = dfail(d, "[Result] '%s' without a content block", d->name);
		if (!rc && sweep_complete_find(d->comp, d->name))
			rc = dfail(d, "a second [Result] called '%s'", d->name);
		if (!rc)
			sweep_complete_add(d->comp, d->name, d->data, d->dlen);
	} else if (d->sect == S_STDOUT || d->sect == S_STDERR) {
		rc = end_stream(d, d->sect == S_STDOUT ? &d->comp->out : &d->comp->err);
	}
	sect_reset(d);
	d->lineno = save;
	return rc;
}

static int set_once(struct dec *d, char **field, const char *key, const char *val)
{
	if (*field)
		return dfail(d, "duplicate %s in %s", key, sect_name[d->sect]);
	*field = xstrdup(val);
	return 0;
}

static int top_key(struct dec *d, const char *key, const char *val)
{
	long v;

	if (d->kind == MSG_TASK) {
		if (!strcmp(key, "Ticket")) {
			if (d->have_ticket)
				return dfail(d, "duplicate Ticket");
			if (!ticket_ok(val))
				return dfail(d, "bad Ticket '%.*s' (letters and digits, at most %d)", SHOW,
					     val, SWEEP_TICKET_MAX);
			d->task->ticket = xstrdup(val);
			d->have_ticket = true;
		} else if (!strcmp(key, "Timeout")) {
			if (d->have_timeout)
				return dfail(d, "duplicate Timeout");
			if (sweep_parse_bounded(val, 0, INT_MAX, &v) < 0)
				return dfail(d, "bad Timeout '%.*s'", SHOW, val);
			d->task->timeout = v;
			d->have_timeout = true;
		} else if (!strcmp(key, "CommandLine")) {
			if (d->have_cmd)
				return dfail(d, "duplicate CommandLine");
			if (!*val)
				return dfail(d, "empty CommandLine");
			if (!value_ok(val))     /* a CR inside: no encoder could have written it */
				return dfail(d, "CommandLine with a CR in it");
			d->task->command_line = xstrdup(val);
			d->have_cmd = true;
		}
	} else if (REPORT(d->kind) && (!strcmp(key, "Exit") || !strcmp(key, "Signal"))) {
		bool ex = key[0] == 'E';

		if (ex ? d->comp->have_exit : d->comp->signal != 0)
			return dfail(d, "duplicate %s", key);
		if (sweep_parse_bounded(val, ex ? 0 : 1, ex ? 255 : 127, &v) < 0)
			return dfail(d, "bad %s '%.*s' (%s)", key, SHOW, val, ex ? "0 to 255" : "1 to 127");
		if (ex) {
			d->comp->exit_status = (int)v;
			d->comp->have_exit = true;
		} else {
			d->comp->signal = (int)v;
		}
	} else if (d->kind == MSG_CONFIG) {
		bool yes;

		if (!strcmp(key, "DeleteWorker") || !strcmp(key, "DeleteClient")) {
			bool *seen = key[6] == 'W' ? &d->have_dw : &d->have_dc;

			if (*seen)
				return dfail(d, "duplicate %s", key);
			if (sweep_parse_yesno(val, &yes) < 0)
				return dfail(d, "%s must be Yes or No, not '%.*s'", key, SHOW, val);
			*(key[6] == 'W' ? &d->conf->delete_worker : &d->conf->delete_client) = yes;
			*seen = true;
		} else if (!strcmp(key, "Ping")) {
			if (d->have_ping)
				return dfail(d, "duplicate Ping");
			if (sweep_parse_bounded(val, 0, INT_MAX, &v) < 0)
				return dfail(d, "bad Ping '%.*s'", SHOW, val);
			d->conf->ping = v;
			d->have_ping = true;
		} else if (!strcmp(key, "SendOutput")) {
			if (d->have_so)
				return dfail(d, "duplicate SendOutput");
			if (sweep_parse_yesno(val, &yes) < 0)
				return dfail(d, "SendOutput must be Yes or No, not '%.*s'", SHOW, val);
			d->conf->send_output = yes;
			d->have_so = true;
		}
	}
	return 0;       /* unknown keys are skipped */
}

static int sect_key(struct dec *d, const char *key, const char *val)
{
	bool has_block = d->sect == S_INPUT || REPORT(d->kind);
	bool stream = d->sect == S_STDOUT || d->sect == S_STDERR;

	if (!strcmp(key, "Size") && stream) {
		long v;

		if (d->have_size)
			return dfail(d, "duplicate Size in %s", sect_name[d->sect]);
		if (sweep_parse_bounded(val, 0, LONG_MAX, &v) < 0)
			return dfail(d, "bad Size '%.*s'", SHOW, val);
		d->have_size = true;
		d->size = (size_t)v;
	} else if (!strcmp(key, "Name") && d->sect == S_RESULT) {
		if (set_once(d, &d->name, key, val) < 0)
			return -1;
		if (!result_name_ok(val))
			return dfail(d, "bad result Name '%.*s'", SHOW, val);
	} else if (!strcmp(key, "File") && (d->sect == S_INPUT || d->kind == MSG_TASK)) {
		const char *special = d->sect == S_INPUT ? "stdin" : "stdout";
		size_t i;

		if (set_once(d, &d->file, key, val) < 0)
			return -1;
		if (!file_ok(val, special))
			return dfail(d, "unsafe file name '%.*s' (relative, without '..')", SHOW, val);
		if (d->sect == S_INPUT && !strcmp(val, "stdin"))
			for (i = 0; i < d->task->ninputs; i++)
				if (!strcmp(d->task->inputs[i].file, "stdin"))
					return dfail(d, "a second [Input] for stdin");
	} else if (!strcmp(key, "Length") && has_block) {
		long v;

		if (d->have_length)
			return dfail(d, "duplicate Length in %s", sect_name[d->sect]);
		if (d->have_block)
			return dfail(d, "Length after the content block");
		if (sweep_parse_bounded(val, 0, LONG_MAX, &v) < 0)
			return dfail(d, "bad Length '%.*s'", SHOW, val);
		d->have_length = true;
		d->length = (size_t)v;
	}
	return 0;
}

static int decode(struct dec *d)
{
	const char *line;
	size_t n;

	while (next_line(d, &line, &n)) {
		const char *t = line, *eq;
		size_t tn = n;

		sweep_trim(&t, &tn);
		if (!tn)
			continue;
		if (t[0] == '[') {
			enum sect s;

			if (d->head_only)
				return 0;
			if (t[tn - 1] != ']')
				return dfail(d, "no ']' after '[' in '%.*s'", (int)(tn < SHOW ? tn : SHOW), t);
			if (tn == 7 && !memcmp(t, "[Input]", 7) && d->kind == MSG_TASK)
				s = S_INPUT;
			else if (tn == 8 && !memcmp(t, "[Result]", 8) && d->kind != MSG_CONFIG)
				s = S_RESULT;
			else if (tn == 8 && !memcmp(t, "[Stdout]", 8) && REPORT(d->kind))
				s = S_STDOUT;
			else if (tn == 8 && !memcmp(t, "[Stderr]", 8) && REPORT(d->kind))
				s = S_STDERR;
			else
				return dfail(d, "unknown section %.*s in a %s body",
					     (int)(tn < SHOW ? tn : SHOW), t, kind_name[d->kind]);
			if (end_section(d) < 0)
				return -1;
			d->sect = s;
			d->sect_line = d->lineno;
			continue;
		}
		if (tn == sizeof(BEGIN_MARK) - 1 && !memcmp(t, BEGIN_MARK, tn)) {
			if (!(d->sect == S_INPUT || (d->sect != S_TOP && REPORT(d->kind))))
				return dfail(d, "content block outside %s",
					     d->kind == MSG_TASK ? "an [Input] section" :
					     REPORT(d->kind) ? "a [Result], [Stdout] or [Stderr] section" :
					     "any section");
			if (d->have_block)
				return dfail(d, "a second content block in %s", sect_name[d->sect]);
			if (read_block(d) < 0)
				return -1;
			continue;
		}
		if (tn == sizeof(END_MARK) - 1 && !memcmp(t, END_MARK, tn))
			return dfail(d, "'" END_MARK "' without '" BEGIN_MARK "'");
		if (memchr(t, '\0', tn))
			return dfail(d, "NUL byte outside a content block");
		eq = memchr(t, '=', tn);
		if (!eq || eq == t)
			return dfail(d, "expected Key=Value, a [Section] or a content block, not '%.*s'",
				     (int)(tn < SHOW ? tn : SHOW), t);
		{
			const char *k = t, *v = eq + 1;
			size_t kn = (size_t)(eq - t), vn = tn - kn - 1;
			char *key, *val;
			int rc;

			sweep_trim(&k, &kn);
			sweep_trim(&v, &vn);
			key = xstrndup(k, kn);
			val = xstrndup(v, vn);
			rc = d->sect == S_TOP ? top_key(d, key, val) : sect_key(d, key, val);
			free(key);
			free(val);
			if (rc < 0)
				return -1;
		}
	}
	if (end_section(d) < 0)
		return -1;
	if (d->kind == MSG_TASK) {
		if (!d->have_ticket)
			return sweep_fail(d->err, "task: no Ticket");
		if (!d->have_timeout)
			return sweep_fail(d->err, "task: no Timeout");
		if (!d->have_cmd)
			return sweep_fail(d->err, "task: no CommandLine");
		if (!d->task->nresults)
			return sweep_fail(d->err, "task: no [Result] section");
	} else if (d->kind == MSG_COMPLETE && !d->comp->nresults) {
		return sweep_fail(d->err, "complete: no [Result] section");
	}
	return 0;
}

static int decode_kind(struct dec *d, const char *buf, size_t len, size_t max)
{
	int rc;

	d->buf = buf;
	d->len = buf ? len : 0;
	if (len > max)
		return sweep_fail(d->err, "%s: a body of %zu bytes, more than the %zu allowed",
				  kind_name[d->kind], len, max);
	rc = decode(d);
	sect_reset(d);
	return rc;
}

int sweep_task_decode(const char *buf, size_t len, size_t max, struct sweep_task *t,
		      struct sbuf *err)
{
	struct dec d;

	memset(&d, 0, sizeof(d));
	memset(t, 0, sizeof(*t));
	d.kind = MSG_TASK;
	d.err = err;
	d.task = t;
	if (decode_kind(&d, buf, len, max) < 0) {
		sweep_task_release(t);
		return -1;
	}
	return 0;
}

static int decode_report(const char *buf, size_t len, size_t max, enum kind kind,
			 struct sweep_complete *c, struct sbuf *err)
{
	struct dec d;

	memset(&d, 0, sizeof(d));
	memset(c, 0, sizeof(*c));
	d.kind = kind;
	d.err = err;
	d.comp = c;
	if (decode_kind(&d, buf, len, max) < 0) {
		sweep_complete_release(c);
		return -1;
	}
	return 0;
}

int sweep_complete_decode(const char *buf, size_t len, size_t max, struct sweep_complete *c,
			  struct sbuf *err)
{
	return decode_report(buf, len, max, MSG_COMPLETE, c, err);
}

int sweep_complete_head(const char *buf, size_t len, struct sweep_complete *c, struct sbuf *err)
{
	const char *nl = len ? memrchr(buf, '\n', len) : NULL;
	struct dec d;

	memset(&d, 0, sizeof(d));
	memset(c, 0, sizeof(*c));
	d.kind = MSG_FAILED;
	d.head_only = true;
	d.err = err;
	d.comp = c;
	if (decode_kind(&d, buf, nl ? (size_t)(nl - buf) + 1 : 0, SWEEP_COMPLETE_MAX) < 0) {
		sweep_complete_release(c);
		return -1;
	}
	return 0;
}

int sweep_failed_decode(const char *buf, size_t len, size_t max, struct sweep_complete *c,
			struct sbuf *err)
{
	return decode_report(buf, len, max, MSG_FAILED, c, err);
}

int sweep_config_decode(const char *buf, size_t len, size_t max, struct sweep_config *c,
			struct sbuf *err)
{
	struct dec d;

	memset(&d, 0, sizeof(d));
	memset(c, 0, sizeof(*c));
	d.kind = MSG_CONFIG;
	d.err = err;
	d.conf = c;
	if (decode_kind(&d, buf, len, max) < 0) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	return 0;
}
