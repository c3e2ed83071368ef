/*
 * Jobs that bring their own executable: the input template of one job of an
 * any_executable app. Such an app's version is wseq_wrapper with a job file
 * that runs the input file opened as "wseq_exec" with the job's command line
 * and returns what the job made as one zip (wseq_outputs.zip); its jobs have
 * any number of input files, each under the open name the submitter gives,
 * copied into the slot directory (an unmodified program reads plain files).
 */
#include "submit_int.h"
#include "dirhier.h"

/* The executable's open name: wseq_wrapper's job file for these apps runs it. */
#define EXEC_OPEN_NAME "wseq_exec"
#define OPEN_NAME_MAX 200

/* Names the client, the wrapper or the zip of outputs use in the slot directory. */
static bool reserved(const char *name)
{
	static const char *const names[] = { "job.xml", "init_data.xml", "stderr.txt",
					     "stdout.txt", "wseq_outputs.zip" };
	static const char *const prefixes[] = { "boinc_", "wrapper_", "wseq_" };
	size_t i;

	if (!strcmp(name, EXEC_OPEN_NAME))
		return false;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

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

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		if (!names[i] || !*names[i])
			return submit_fail(r, "job %zu: input file %zu has no <open_name> (a job with "
					   "its own executable names each file it reads)", job, i);
		if (strlen(names[i]) > OPEN_NAME_MAX || !dirhier_name_ok(names[i]))
			return bad_name(r, job, names[i], "is not a plain file name (at most 200 "
					"bytes, without /, \\, .. or a leading . or -)");
		if (reserved(names[i]))
			return bad_name(r, job, names[i], "is a name the client or the wrapper uses");
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

void submit_exec_template_free(struct input_template *t)
{
	free(t->files);
	free(t->refs);
	memset(t, 0, sizeof(*t));
}
