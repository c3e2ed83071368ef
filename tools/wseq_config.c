/*
 * wseq_config: check a project's config.xml and print its settings, so admins
 * and scripts read the configuration exactly as the daemons do (like
 * Postfix's postconf). Secrets are shown only when asked for by name.
 */
#include "common.h"
#include "config.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "plan_class.h"

struct options {
	bool check;
	bool daemons;
};

static const struct param options[] = {
	{ "check", PARAM_BOOL, offsetof(struct options, check), "0", 0, 0, 0, NULL,
	  "only check config.xml and plan_class_spec.xml: exit 1 with the errors if one is not "
	  "valid; warn about each option no wseq program reads (upstream BOINC's, or misspelt) "
	  "and each plan class element or value wseq does not use" },
	{ "daemons", PARAM_BOOL, offsetof(struct options, daemons), "0", 0, 0, 0, NULL,
	  "list the daemons and tasks" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: wseq_config [options] [NAME...]\n"
	"\n"
	"Read the project's config.xml as every wseq program does. With NAMEs,\n"
	"print each setting's value; without, print all settings as NAME = VALUE\n"
	"(the database password is shown only when named).\n";

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
	plan_classes_release(&pcs);
	if (n < 0)
		return 1;
	printf("%s: ok%s\n", c->path, c->nignored || n ? " (with the warnings above)" : "");
	return 0;
}

static void print_daemons(const struct project_config *c)
{
	size_t k;

	for (k = 0; k < c->ndaemons; k++)
		printf("daemon %s%s\n", c->daemons[k].cmd, c->daemons[k].disabled ? " (disabled)" : "");
	for (k = 0; k < c->ntasks; k++)
		printf("task %s every %lds%s\n", c->tasks[k].cmd, c->tasks[k].period,
		       c->tasks[k].disabled ? " (disabled)" : "");
}

/* The settings named, or all but the secret ones; -1 if a name is unknown. */
static int print_settings(const struct project_config *c, int argc, char **argv)
{
	const struct param *p;
	int i, rc = 0;

	if (!argc)
		printf("project_dir = %s\n", c->project_dir);
	for (i = 0; i < argc; i++) {
		if (!(p = param_find(project_params, argv[i]))) {
			rc = log_error("unknown setting '%s'", argv[i]);
			continue;
		}
		print_value(c, p, stdout);
		putchar('\n');
	}
	for (p = project_params; !argc && p->name; p++) {
		if (p->flags & PARAM_SECRET)
			continue;
		printf("%s = ", p->name);
		print_value(c, p, stdout);
		putchar('\n');
	}
	return rc;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (o->check)
		return check(&ctx->cfg);
	if (o->daemons) {
		print_daemons(&ctx->cfg);
		return 0;
	}
	return print_settings(&ctx->cfg, ctx->argc, ctx->argv);
}

static struct options opts;

static const struct tool_spec wseq_config_spec = {
	.name = "wseq_config",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.max_args = -1,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&wseq_config_spec, argc, argv);
}
