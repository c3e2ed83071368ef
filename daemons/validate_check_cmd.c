/*
 * The per-result check by a project's command (--check_cmd CMD): run in
 * the project directory as
 *
 *   CMD FILE...
 *
 * with the absolute paths of the result's output files in file_ref order.
 * Exit 0: the result is believable; 1: it is invalid; anything else, a
 * signal or --cmd_timeout: the command cannot tell now, and the result
 * waits for a later pass (never valid by default).
 */
#include "validate.h"
#include "db_records.h"
#include "log.h"
#include "runcmd.h"

static int cmd_check(const struct vresult *r, const char *cmd, const char *project_dir)
{
	const char **args = xcalloc(r->nfiles + 1, sizeof(*args));
	size_t i;
	int rc;

	for (i = 0; i < r->nfiles; i++)
		args[i] = r->files[i].path;
	rc = runcmd_timeout(cmd, args, r->nfiles, project_dir, validate_cmd_timeout);
	free(args);
	if (rc == 0)
		return VALIDATE_CHECK_VALID;
	if (rc == 1)
		return VALIDATE_CHECK_INVALID;
	log_error("[RESULT#%" PRId64 " %s] check %s cannot tell (status %d): the result waits",
		  r->r->id, r->r->name, cmd, rc);
	return VALIDATE_CHECK_RETRY;
}

const struct validate_plugin validate_check_cmd = { "check_cmd", NULL, cmd_check };
