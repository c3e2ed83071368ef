/*
 * wseq_config: check a project's config.xml and print its settings, so admins
 * and scripts read the configuration exactly as the daemons do (like
 * Postfix's postconf). Secrets are shown only when asked for by name.
 */
#include "common.h"
#include "config.h"
#include "log.h"
#include "param.h"
#include "plan_class.h"

struct options {
	char *project;
	bool check;
	bool daemons;
};

static const struct param options[] = {
	{ "project", PARAM_STR, offsetof(struct options, project), NULL, 0, 0, 0, "DIR",
	  "project directory (default: WSEQ_PROJECT_DIR, then . and ..)" },
	{ "check", PARAM_BOOL, offsetof(struct options, check), "0", 0, 0, 0, NULL,
	  "only check config.xml and plan_class_spec.xml: exit 1 with the errors if one is not "
	  "valid; warn about each option no wseq program reads (upstream BOINC's, or misspelt) "
	  "and each plan class element or value wseq does not use" },
	{ "daemons", PARAM_BOOL, offsetof(struct options, daemons), "0", 0, 0, 0, NULL,
	  "list the daemons and tasks" },
	PARAM_TABLE_END
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: wseq_config [options] [NAME...]\n\n"
		    "Read the project's config.xml as every wseq program does. With NAMEs,\n"
		    "print each setting's value; without, print all settings as NAME = VALUE\n"
		    "(the database password is shown only when named).\n\noptions:\n");
	param_print_help(options, fp);
}

static void print_value(const struct project_config *c, const struct param *p, FILE *fp)
{
	const char *base = (const char *)c;

	switch (p->type) {
	case PARAM_STR: {
		const char *v = *(char *const *)(base + p->offset);
		fputs(v ? v : "", fp);
		break;
	}
	case PARAM_INT:
		fprintf(fp, "%ld", *(const long *)(base + p->offset));
		break;
	case PARAM_DOUBLE:
		fprintf(fp, "%g", *(const double *)(base + p->offset));
		break;
	case PARAM_BOOL:
		fputs(*(const bool *)(base + p->offset) ? "1" : "0", fp);
		break;
	case PARAM_END:
		break;
	}
}

/* --check: config.xml's ignored options, then the plan classes' notes; 1 if one cannot be used. */
static int check(const struct project_config *c)
{
	struct plan_classes pcs;
	int n;

	config_warn_ignored(c, stdout);
	n = plan_classes_check_file(c->project_dir, &pcs, stdout);
	if (n >= 0 && *pcs.path)
		printf("%s: %zu plan class%s\n", pcs.path, pcs.n, pcs.n == 1 ? "" : "es");
	plan_classes_free(&pcs);
	if (n < 0)
		return 1;
	printf("%s: ok%s\n", c->path, c->nignored || n ? " (with the warnings above)" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct project_config c;
	char *path = NULL;
	int i, rc = 0;

	log_init("wseq_config", NULL);
	param_set_defaults(options, &o);
	i = param_parse_args(options, &o, argc, argv);
	if (i == -2) {
		usage(stdout);
		return 0;
	}
	if (i < 0)
		return 1;
	if (o.project)
		path = xasprintf("%s/config.xml", o.project);
	if (config_load(&c, path, NULL, NULL) < 0) {
		config_free(&c);
		free(path);
		param_free(options, &o);
		return 1;
	}
	if (o.check) {
		rc = check(&c);
	} else if (o.daemons) {
		size_t k;
		for (k = 0; k < c.ndaemons; k++)
			printf("daemon %s%s\n", c.daemons[k].cmd, c.daemons[k].disabled ? " (disabled)" : "");
		for (k = 0; k < c.ntasks; k++)
			printf("task %s every %lds%s\n", c.tasks[k].cmd, c.tasks[k].period,
			       c.tasks[k].disabled ? " (disabled)" : "");
	} else if (i < argc) {
		for (; i < argc; i++) {
			const struct param *p = param_find(project_params, argv[i]);
			if (!p) {
				rc = log_error("unknown setting '%s'", argv[i]);
				continue;
			}
			print_value(&c, p, stdout);
			putchar('\n');
		}
	} else {
		const struct param *p;
		printf("project_dir = %s\n", c.project_dir);
		for (p = project_params; p->name; p++) {
			if (p->flags & PARAM_SECRET)
				continue;
			printf("%s = ", p->name);
			print_value(&c, p, stdout);
			putchar('\n');
		}
	}
	config_free(&c);
	free(path);
	param_free(options, &o);
	return rc ? 1 : 0;
}
