/* Parameter tables; see param.h. */
#include "param.h"
#include "log.h"

#define FIELD(s, p, type) ((type *)((char *)(s) + (p)->offset))

const struct param *param_find(const struct param *t, const char *name)
{
	for (; t && t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!v || !*v || !strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "on"))
		*out = true;
	else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
		 !strcasecmp(v, "off"))
		*out = false;
	else
		return -1;
	return 0;
}

static int check_bounds(const struct param *p, double v, const char *origin)
{
	if (!(p->flags & PARAM_BOUNDED) || (v >= p->min && v <= p->max))
		return 0;
	return log_error("%s: %s must be between %g and %g (got %g)", origin, p->name,
			 p->min, p->max, v);
}

int param_set(const struct param *p, void *s, const char *value, const char *origin)
{
	long l;
	double d;
	bool b;

	switch (p->type) {
	case PARAM_STR:
		free(*FIELD(s, p, char *));
		*FIELD(s, p, char *) = xstrdup(value ? value : "");
		if (p->flags & PARAM_SECRET)
			log_add_secret(value);
		return 0;
	case PARAM_INT:
		if (parse_long(value, &l) < 0)
			return log_error("%s: %s needs a whole number (got '%s')", origin, p->name,
					 value ? value : "");
		if (check_bounds(p, (double)l, origin) < 0)
			return -1;
		*FIELD(s, p, long) = l;
		return 0;
	case PARAM_DOUBLE:
		if (parse_double(value, &d) < 0)
			return log_error("%s: %s needs a number (got '%s')", origin, p->name,
					 value ? value : "");
		if (check_bounds(p, d, origin) < 0)
			return -1;
		*FIELD(s, p, double) = d;
		return 0;
	case PARAM_BOOL:
		if (parse_bool(value, &b) < 0)
			return log_error("%s: %s needs 0 or 1 (got '%s')", origin, p->name, value);
		*FIELD(s, p, bool) = b;
		return 0;
	case PARAM_END:
		break;
	}
	return -1;
}

void param_set_defaults(const struct param *t, void *s)
{
	for (; t && t->name; t++) {
		switch (t->type) {
		case PARAM_STR:
			free(*FIELD(s, t, char *));
			*FIELD(s, t, char *) = t->def ? xstrdup(t->def) : NULL;
			break;
		case PARAM_INT:
			*FIELD(s, t, long) = t->def ? strtol(t->def, NULL, 10) : 0;
			break;
		case PARAM_DOUBLE:
			*FIELD(s, t, double) = t->def ? strtod(t->def, NULL) : 0;
			break;
		case PARAM_BOOL: {
			bool b = false;
			if (t->def)
				parse_bool(t->def, &b);
			*FIELD(s, t, bool) = b;
			break;
		}
		case PARAM_END:
			break;
		}
	}
}

int param_check_required(const struct param *t, const void *s, const char *where)
{
	int rc = 0;

	for (; t && t->name; t++)
		if ((t->flags & PARAM_REQUIRED) && t->type == PARAM_STR &&
		    (!*FIELD(s, t, char *) || !**FIELD(s, t, char *)))
			rc = log_error("%s: required option %s is missing", where, t->name);
	return rc;
}

void param_free(const struct param *t, void *s)
{
	for (; t && t->name; t++)
		if (t->type == PARAM_STR) {
			free(*FIELD(s, t, char *));
			*FIELD(s, t, char *) = NULL;
		}
}

const char *param_option_name(const char *arg)
{
	if (arg[0] != '-')
		return NULL;
	if (arg[1] == '-')
		return arg[2] ? arg + 2 : NULL;
	return arg[1] && arg[2] ? arg + 1 : NULL;
}

/* An option's name from "name[=value]" into buf, dashes read as underscores. */
static void option_key(char *buf, size_t size, const char *arg)
{
	size_t i;

	for (i = 0; i + 1 < size && arg[i] && arg[i] != '='; i++)
		buf[i] = arg[i] == '-' ? '_' : arg[i];
	buf[i] = '\0';
}

const struct param *param_find_option(const struct param *t, const char *arg)
{
	char name[128];

	option_key(name, sizeof(name), arg);
	return param_find(t, name);
}

int param_parse_args(const struct param *t, void *s, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *value;
		const struct param *p;
		char name[128];
		char origin[160];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return -2;
		if (!(a = param_option_name(argv[i])))
			break;
		eq = strchr(a, '=');
		option_key(name, sizeof(name), a);
		p = param_find(t, name);
		/* upstream's single-dash spelling, for names of the table only: "-x" stays an argument */
		if (argv[i][1] != '-' && (!p || (p->flags & PARAM_NOOPTION)))
			break;
		if (!p || (p->flags & PARAM_NOOPTION))
			return log_error("unknown option --%s (see --help)", name);
		snprintf(origin, sizeof(origin), "--%s", name);
		if (p->type == PARAM_BOOL && !eq) {
			value = "1";
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			return log_error("option --%s needs a value", name);
		}
		if (param_set(p, s, value, origin) < 0)
			return -1;
	}
	return i;
}

/*
 * The vector whose table names the option arg (NULL: not an option), else
 * for an unknown "--x" the one marked unknown, else the last.
 */
static struct param_argv *split_dest(struct param_argv *out, size_t nout, const char *arg,
				     const char *name, const struct param **p)
{
	size_t k;

	*p = NULL;
	for (k = 0; name && k < nout; k++)
		if ((*p = param_find_option(out[k].t, name)) != NULL)
			return &out[k];
	for (k = 0; name && arg[1] == '-' && k < nout; k++)
		if (out[k].unknown)
			return &out[k];
	return &out[nout - 1];
}

int param_split_args(int argc, char **argv, struct param_argv *out, size_t nout,
		     int (*own)(void *arg, int argc, char **argv, int *i), void *arg)
{
	size_t k;
	int i, rc = 0;

	for (k = 0; k < nout; k++) {
		out[k].v[0] = argv[0];
		out[k].n = 1;
		out[k].after_dashdash = -1;
	}
	for (i = 1; i < argc && rc == 0; i++) {
		const char *name = param_option_name(argv[i]);
		const struct param *p;
		struct param_argv *d;
		int took;

		if (!strcmp(argv[i], "--")) {
			struct param_argv *last = &out[nout - 1];

			if (!last->drop_dashdash)
				last->v[last->n++] = argv[i];
			last->after_dashdash = last->n;
			i++;
			while (i < argc)
				last->v[last->n++] = argv[i++];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			rc = 1;
		} else if ((took = own ? own(arg, argc, argv, &i) : 0) < 0) {
			rc = -1;
		} else if (!took) {
			d = split_dest(out, nout, argv[i], name, &p);
			if (p && (p->flags & PARAM_IN_ARGS)) {
				int nv = param_nvalues(p);

				d = &out[nout - 1];
				d->v[d->n++] = argv[i];
				while (nv-- > 0 && i + 1 < argc)
					d->v[d->n++] = argv[++i];
			} else {
				d->v[d->n++] = argv[i];
				if (p && p->type != PARAM_BOOL && !strchr(name, '=') && i + 1 < argc)
					d->v[d->n++] = argv[++i];
			}
		}
	}
	for (k = 0; k < nout; k++) {
		out[k].v[out[k].n] = NULL;
		if (out[k].after_dashdash < 0)
			out[k].after_dashdash = out[k].n;
	}
	return rc;
}

int param_nvalues(const struct param *p)
{
	const char *a = p->arg;
	int n = 0;

	if (p->type == PARAM_BOOL || !a)
		return 0;
	while (*a) {
		a += strspn(a, " ");
		if (*a)
			n++;
		a += strcspn(a, " ");
	}
	return n;
}

void param_print_help(const struct param *t, FILE *fp)
{
	for (; t && t->name; t++) {
		char left[96];

		if (t->flags & PARAM_NOOPTION)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", t->name, t->arg ? " " : "", t->arg ? t->arg : "");
		fprintf(fp, "  %-28s %s", left, t->help ? t->help : "");
		if (t->def && *t->def && !(t->flags & PARAM_SECRET) && t->type != PARAM_BOOL)
			fprintf(fp, " (default: %s)", t->def);
		if (t->flags & PARAM_REQUIRED)
			fprintf(fp, " (required)");
		fputc('\n', fp);
	}
}
