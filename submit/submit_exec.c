/*
 * Jobs that bring their own executable: the input template of one job of an
 * any_executable app. Such an app's version is wseq_wrapper with a job file
 * that runs the input file opened as "wseq_exec" with the job's command line
 * and returns what the job made as one zip (wseq_outputs.zip); its jobs have
 * any number of input files, each under the open name the submitter gives,
 * copied into the slot directory (an unmodified program reads plain files).
 */
#include "submit_int.h"
#include "exec_rule.h"
#include "log.h"

static int bad_name(struct rpc *r, size_t job, const char *name, const char *why)
{
	char *q = submit_quoted(name);
	int rc = submit_fail(r, "job %zu: input file open name %s %s", job, q, why);

	free(q);
	return rc;
}

int submit_exec_template(struct rpc *r, const struct input_template *base, char *const *names,
			 size_t n, size_t job, struct input_template *t)
{
	size_t i, j, nexec = 0;
	const char *why;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		if (!names[i] || !*names[i])
			return submit_fail(r, "job %zu: input file %zu has no <open_name> (a job with "
					   "its own executable names each file it reads)", job, i);
		if ((why = exec_rule_open_name(names[i], true)) != NULL)
			return bad_name(r, job, names[i], why);
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				return bad_name(r, job, names[i], "is given twice");
		nexec += !strcmp(names[i], EXEC_OPEN_NAME);
	}
	if (nexec != 1)
		return submit_fail(r, "job %zu: no executable (the input file opened as "
				   EXEC_OPEN_NAME ")", job);
	*t = *base;             /* the app's template: the workunit's other settings */
	t->files = xcalloc(n, sizeof(*t->files));
	t->refs = xcalloc(n, sizeof(*t->refs));
	t->nfiles = t->nrefs = n;
	for (i = 0; i < n; i++) {
		t->files[i].number = (int)i;
		t->files[i].extra_xml = (char *)(strcmp(names[i], EXEC_OPEN_NAME) ? "" :
						 "<executable/>\n");
		t->refs[i].file_number = (int)i;
		t->refs[i].open_name = names[i];
		t->refs[i].extra_xml = (char *)"<copy_file/>\n";
	}
	return 0;
}

void submit_exec_template_release(struct input_template *t)
{
	free(t->files);
	free(t->refs);
	memset(t, 0, sizeof(*t));
}

/* A refusal of the rule of exec_rule.h: logged (with the user), and the submitter told why. */
static int refuse(struct rpc *r, size_t job, const char *why)
{
	log_warn("user %lld: job %zu refused: %s", (long long)r->user.id, job, why);
	return submit_fail(r, "job %zu: %s", job, why);
}

int submit_exec_check_cmdline(struct rpc *r, const struct db_app *app, const char *cmd,
			      size_t job)
{
	const char *why;
	char *msg;
	int rc;

	if (app->any_executable || (why = exec_rule_cmdline(cmd)) == NULL)
		return 0;
	msg = xasprintf("its command line %s", why);
	rc = refuse(r, job, msg);
	free(msg);
	return rc;
}

int submit_exec_check_wu(struct rpc *r, const struct db_app *app, const char *xml_doc,
			 size_t job)
{
	struct sbuf why = SBUF_INIT(1024);
	int rc = 0;

	if (exec_rule_wu_doc(xml_doc, app->any_executable != 0, &why) < 0)
		rc = refuse(r, job, sbuf_str(&why));
	sbuf_release(&why);
	return rc;
}
