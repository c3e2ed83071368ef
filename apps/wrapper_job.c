/*
 * wseq_wrapper's job file (wrapper_job.h). Upstream's element names; an
 * element this wrapper does not know is an error naming its line, so a typo
 * fails the job at once rather than running something else than meant.
 */
#include "wrapper_job.h"
#include "xml.h"

#include <ctype.h>

#define WJOB_MAX_TASKS 1000
#define WJOB_MAX_ITEMS 10000
#define WJOB_MAX_PERIOD 1000000         /* as a sequence template's <upload_every> */
#define WJOB_MAX_LEVEL_NAME 64

static int wj_fail(struct sbuf *err, const char *name, const xmlNode *n, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
static int wj_fail(struct sbuf *err, const char *name, const xmlNode *n, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	sbuf_addf(err, "%s:%ld: ", name, xml_line(n));
	va_start(ap, fmt);
	sbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* upstream's parse_bool: <x/>, <x>1</x>, <x>0</x> */
static int wj_bool(const xmlNode *n, bool *out, const char *name, struct sbuf *err)
{
	char *t = xml_text(n);
	int rc = 0;

	if (!*t || !strcmp(t, "1") || !strcmp(t, "true"))
		*out = true;
	else if (!strcmp(t, "0") || !strcmp(t, "false"))
		*out = false;
	else
		rc = wj_fail(err, name, n, "<%s>: expected 0 or 1", (const char *)n->name);
	free(t);
	return rc;
}

static int wj_double(const xmlNode *n, double *out, const char *name, struct sbuf *err)
{
	char *t = xml_text(n);
	int rc = 0;

	if (parse_double(t, out) < 0 || *out < 0 || *out > 1e12)
		rc = wj_fail(err, name, n, "<%s>: expected a number from 0 to 1e12",
			     (const char *)n->name);
	free(t);
	return rc;
}

/* A string element given once; *out is set. */
static int wj_string(const xmlNode *n, char **out, const char *name, struct sbuf *err)
{
	if (*out)
		return wj_fail(err, name, n, "<%s> given twice", (const char *)n->name);
	*out = xml_text(n);
	return 0;
}

/* A file the wrapper itself opens in the slot: a plain name, no path. */
static int wj_plain_name(const xmlNode *n, char **out, const char *name, struct sbuf *err)
{
	if (wj_string(n, out, name, err) < 0)
		return -1;
	if (!**out || strchr(*out, '/') || !strcmp(*out, ".") || !strcmp(*out, ".."))
		return wj_fail(err, name, n, "<%s>: '%s' is not a plain file name",
			       (const char *)n->name, *out);
	return 0;
}

static char **wj_push(char **v, size_t *n, char *s)
{
	ARRAY_GROW(v, *n);
	v[(*n)++] = s;
	return v;
}

static int wj_task(struct wjob_task *t, const xmlNode *tn, const char *name, struct sbuf *err)
{
	const xmlNode *c;
	bool ignored;

	t->weight = 1;
	t->line = xml_line(tn);
	xml_for_each(c, tn, NULL) {
		const char *e = (const char *)c->name;
		int rc;

		if (xml_is(c, "application"))
			rc = wj_string(c, &t->application, name, err);
		else if (xml_is(c, "command_line"))
			rc = wj_string(c, &t->command_line, name, err);
		else if (xml_is(c, "stdin_filename"))
			rc = wj_string(c, &t->stdin_name, name, err);
		else if (xml_is(c, "stdout_filename"))
			rc = wj_string(c, &t->stdout_name, name, err);
		else if (xml_is(c, "stderr_filename"))
			rc = wj_string(c, &t->stderr_name, name, err);
		else if (xml_is(c, "checkpoint_filename"))
			rc = wj_string(c, &t->checkpoint_name, name, err);
		else if (xml_is(c, "fraction_done_filename"))
			rc = wj_string(c, &t->fraction_done_name, name, err);
		else if (xml_is(c, "weight"))
			rc = wj_double(c, &t->weight, name, err);
		else if (xml_is(c, "time_limit"))
			rc = wj_double(c, &t->time_limit, name, err);
		else if (xml_is(c, "daemon"))
			rc = wj_bool(c, &t->daemon, name, err);
		else if (xml_is(c, "append_cmdline_args"))
			rc = wj_bool(c, &t->append_cmdline_args, name, err);
		else if (xml_is(c, "input_application"))
			rc = wj_bool(c, &t->input_application, name, err);
		else if (xml_is(c, "setenv")) {
			char *v = xml_text(c);
			char *eq = strchr(v, '=');

			if (!eq || eq == v || t->nenv >= WJOB_MAX_ITEMS) {
				free(v);
				return wj_fail(err, name, c, "<setenv>: expected NAME=VALUE");
			}
			t->env = wj_push(t->env, &t->nenv, v);
			rc = 0;
		} else if (xml_is(c, "forward_slashes") || xml_is(c, "multi_process"))
			rc = wj_bool(c, &ignored, name, err);   /* Windows only; no effect here */
		else if (xml_is(c, "priority"))
			rc = 0;         /* tasks always run at the lowest priority (nice 19) */
		else
			return wj_fail(err, name, c, "<task>: unknown element <%s>%s", e,
				       xml_is(c, "exec_dir") ? " (not supported by wseq_wrapper)" : "");
		if (rc < 0)
			return -1;
	}
	if (!t->application || !*t->application)
		return wj_fail(err, name, tn, "<task> without <application>");
	return 0;
}

static int wj_zip(struct wjob *j, const xmlNode *zn, const char *name, struct sbuf *err)
{
	const xmlNode *c;

	if (j->zip_output)
		return wj_fail(err, name, zn, "<zip_output> given twice");
	j->zip_output = true;
	xml_for_each(c, zn, NULL) {
		if (xml_is(c, "zipfilename")) {
			if (wj_plain_name(c, &j->zip_name, name, err) < 0)
				return -1;
		} else if (xml_is(c, "filename")) {
			char *p = xml_text(c);

			if (!*p || j->nzip_patterns >= WJOB_MAX_ITEMS) {
				free(p);
				return wj_fail(err, name, c, "<filename>: empty pattern");
			}
			j->zip_patterns = wj_push(j->zip_patterns, &j->nzip_patterns, p);
		} else
			return wj_fail(err, name, c, "<zip_output>: unknown element <%s>",
				       (const char *)c->name);
	}
	if (!j->nzip_patterns)
		return wj_fail(err, name, zn, "<zip_output> without <filename>");
	return 0;
}

/* <upload_every>: a whole number of segments, 1 to WJOB_MAX_PERIOD. */
static int wj_period(const xmlNode *n, long *out, const char *name, struct sbuf *err)
{
	char *t = xml_text(n);
	int rc = 0;

	if (parse_long(t, out) < 0 || *out < 1 || *out > WJOB_MAX_PERIOD)
		rc = wj_fail(err, name, n, "<upload_every>: expected a whole number from 1 to %d, "
			     "not '%.32s'", WJOB_MAX_PERIOD, t);
	free(t);
	return rc;
}

/* <level>: a name the tasks see in their environment: letters, digits, '_' and '-'. */
static int wj_level(const xmlNode *n, char **out, const char *name, struct sbuf *err)
{
	const char *p;

	if (wj_string(n, out, name, err) < 0)
		return -1;
	for (p = *out; *p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'); p++)
		;
	if (!**out || *p || p - *out > WJOB_MAX_LEVEL_NAME)
		return wj_fail(err, name, n, "<level>: '%.64s' is not a name (1 to %d letters, digits, "
			       "'_' or '-')", *out, WJOB_MAX_LEVEL_NAME);
	return 0;
}

/*
 * State files of one level have one period: s takes the one given on an
 * earlier state file of its level, or gives it to them.
 */
static int wj_level_period(struct wjob *j, struct wjob_state_file *s, const xmlNode *sn,
			   const char *name, struct sbuf *err)
{
	size_t i;

	for (i = 0; s->level && i + 1 < j->nstates; i++) {
		struct wjob_state_file *o = &j->states[i];

		if (!o->level || strcmp(o->level, s->level) != 0)
			continue;
		if (o->upload_every && s->upload_every && o->upload_every != s->upload_every)
			return wj_fail(err, name, sn, "level %s: <upload_every> %ld here, %ld at line %ld",
				       s->level, s->upload_every, o->upload_every, o->line);
		if (!s->upload_every)
			s->upload_every = o->upload_every;
		else
			o->upload_every = s->upload_every;
	}
	return 0;
}

static int wj_state(struct wjob *j, const xmlNode *sn, const char *name, struct sbuf *err)
{
	struct wjob_state_file *s;
	const xmlNode *c;
	size_t i;

	if (j->nstates >= WJOB_MAX_ITEMS)
		return wj_fail(err, name, sn, "too many <state_file>s");
	ARRAY_GROW(j->states, j->nstates);
	s = &j->states[j->nstates++];
	memset(s, 0, sizeof(*s));
	s->line = xml_line(sn);
	xml_for_each(c, sn, NULL) {
		int rc;

		if (xml_is(c, "name"))
			rc = wj_plain_name(c, &s->name, name, err);
		else if (xml_is(c, "in"))
			rc = wj_string(c, &s->in, name, err);
		else if (xml_is(c, "out"))
			rc = wj_string(c, &s->out, name, err);
		else if (xml_is(c, "level"))
			rc = wj_level(c, &s->level, name, err);
		else if (xml_is(c, "upload_every"))
			rc = s->upload_every ? wj_fail(err, name, c, "<upload_every> given twice") :
			     wj_period(c, &s->upload_every, name, err);
		else
			return wj_fail(err, name, c, "<state_file>: unknown element <%s>",
				       (const char *)c->name);
		if (rc < 0)
			return -1;
	}
	if (!s->name)
		return wj_fail(err, name, sn, "<state_file> without <name>");
	if ((!s->in || !*s->in) && (!s->out || !*s->out))
		return wj_fail(err, name, sn, "<state_file> without <in> or <out>");
	for (i = 0; i + 1 < j->nstates; i++)
		if (!strcmp(j->states[i].name, s->name))
			return wj_fail(err, name, sn, "<state_file> %s given twice", s->name);
	return wj_level_period(j, s, sn, name, err);
}

static void wj_task_release(struct wjob_task *t)
{
	size_t i;

	free(t->application);
	free(t->command_line);
	free(t->stdin_name);
	free(t->stdout_name);
	free(t->stderr_name);
	free(t->checkpoint_name);
	free(t->fraction_done_name);
	for (i = 0; i < t->nenv; i++)
		free(t->env[i]);
	free(t->env);
}

static int wj_add_task(struct wjob *j, const xmlNode *c, const char *name, struct sbuf *err)
{
	struct wjob_task t;

	memset(&t, 0, sizeof(t));
	if (j->ntasks + j->ndaemons >= WJOB_MAX_TASKS)
		return wj_fail(err, name, c, "more than %d tasks", WJOB_MAX_TASKS);
	if (wj_task(&t, c, name, err) < 0) {
		wj_task_release(&t);
		return -1;
	}
	if (t.daemon) {
		ARRAY_GROW(j->daemons, j->ndaemons);
		j->daemons[j->ndaemons++] = t;
	} else {
		ARRAY_GROW(j->tasks, j->ntasks);
		j->tasks[j->ntasks++] = t;
	}
	return 0;
}

int wjob_parse(struct wjob *j, const char *buf, size_t len, const char *name, struct sbuf *err)
{
	xmlDoc *doc;
	const xmlNode *root, *c;
	int rc = -1;

	memset(j, 0, sizeof(*j));
	doc = xml_read_memory(buf, len, name, err);
	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	if (!xml_is(root, "job_desc")) {
		wj_fail(err, name, root, "expected <job_desc>");
		goto out;
	}
	xml_for_each(c, root, NULL) {
		bool ignored;

		if (xml_is(c, "task")) {
			if (wj_add_task(j, c, name, err) < 0)
				goto out;
		} else if (xml_is(c, "zip_output")) {
			if (wj_zip(j, c, name, err) < 0)
				goto out;
		} else if (xml_is(c, "state_file")) {
			if (wj_state(j, c, name, err) < 0)
				goto out;
		} else if (xml_is(c, "enable_graphics_support")) {
			if (wj_bool(c, &ignored, name, err) < 0)
				goto out;
		} else {
			wj_fail(err, name, c, "unknown element <%s>%s", (const char *)c->name,
				xml_is(c, "unzip_input") ? " (not supported by wseq_wrapper)" : "");
			goto out;
		}
	}
	if (!j->ntasks) {
		wj_fail(err, name, root, "no <task>");
		goto out;
	}
	if (j->zip_output && !j->zip_name)
		j->zip_name = xstrdup(WJOB_DEFAULT_ZIP);
	rc = 0;
out:
	xmlFreeDoc(doc);
	if (rc < 0)
		wjob_release(j);
	return rc;
}

void wjob_release(struct wjob *j)
{
	size_t i;

	for (i = 0; i < j->ntasks; i++)
		wj_task_release(&j->tasks[i]);
	free(j->tasks);
	for (i = 0; i < j->ndaemons; i++)
		wj_task_release(&j->daemons[i]);
	free(j->daemons);
	free(j->zip_name);
	for (i = 0; i < j->nzip_patterns; i++)
		free(j->zip_patterns[i]);
	free(j->zip_patterns);
	for (i = 0; i < j->nstates; i++) {
		free(j->states[i].name);
		free(j->states[i].in);
		free(j->states[i].out);
		free(j->states[i].level);
	}
	free(j->states);
	memset(j, 0, sizeof(*j));
}

void wjob_split(const char *line, char ***argv, size_t *argc)
{
	const char *p = line;
	char **v = *argv;
	size_t n = *argc;

	for (;;) {
		struct sbuf w = SBUF_INIT((size_t)1 << 30);
		char quote = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		for (; *p; p++) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else
					sbuf_addch(&w, *p);
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
				break;
			} else {
				sbuf_addch(&w, *p);
			}
		}
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = w.buf ? sbuf_detach(&w, NULL) : xstrdup("");
	}
	if (!v)
		v = xcalloc(1, sizeof(*v));
	v[n] = NULL;
	*argv = v;
	*argc = n;
}

void wjob_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}
