/*
 * The comparison by a project's command (--compare_cmd CMD): run in the
 * project directory as
 *
 *   CMD A_FILE... -- B_FILE...
 *
 * with the absolute paths of both results' output files in file_ref order.
 * Exit 0: equivalent; 1: different; anything else (a signal, --cmd_timeout):
 * the command cannot tell now, and the workunit is tried again later.
 */
#include "validate.h"
#include "db_records.h"
#include "log.h"
#include "runcmd.h"

static int cmd_compare(const struct vresult *a, const struct vresult *b, const char *cmd,
		       const char *project_dir)
{
	size_t n = a->nfiles + 1 + b->nfiles, i, k = 0;
	const char **args = xcalloc(n, sizeof(*args));
	int rc;

	for (i = 0; i < a->nfiles; i++)
		args[k++] = a->files[i].path;
	args[k++] = "--";
	for (i = 0; i < b->nfiles; i++)
		args[k++] = b->files[i].path;
	rc = runcmd_timeout(cmd, args, n, project_dir, validate_cmd_timeout);
	free(args);
	switch (rc) {
	case 0:
		return VALIDATE_EQUIVALENT;
	case 1:
		return VALIDATE_DIFFERENT;
	default:
		if (rc > 1)
			log_error("%s exited with status %d comparing results %s and %s", cmd, rc,
				  a->r->name, b->r->name);
		return VALIDATE_CANNOT_TELL;
	}
}

const struct validate_plugin validate_cmd = { "compare_cmd", cmd_compare, NULL };
