/*
 * Where the sweep keeps its sessions (doc/sweep.md, "Where the sweep keeps
 * its state"). By default in a state directory of the user's own, served by
 * the master itself (its embedded HTTP server): no database server, no web
 * server, no root --
 *
 *   STATE/sessions.db      the embedded store (sweep/store/, SQLite)
 *   STATE/sessions/SID/    each session's files (sweep_files.h)
 *   STATE/results/         what /complete brought, one file a ticket
 *   STATE/spool/           request bodies too large to keep in memory
 *
 * Inside a wseq project only when asked: --project_dir DIR or
 * $WSEQ_PROJECT_DIR (a project's MariaDB and Apache endpoints), --sandbox
 * DIR (a private project sweep run starts and stops).
 */
#include "sweep_run.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"
#include "sweep_files.h"
#include "sweep_store.h"

#include <pwd.h>
#include <sys/stat.h>

#define STATE_FANOUT 256        /* results/ as BOINC's upload fan-out: 256 directories */

bool sweep_in_project(const struct sweep_run_opts *o)
{
	const char *env = getenv("WSEQ_PROJECT_DIR");

	return o->project || o->sandbox || (env && *env);
}

char *sweep_state_dir(const struct sweep_run_opts *o)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (o->state)
		return xstrdup(o->state);
	if ((!home || !*home) && (pw = getpwuid(geteuid())))
		home = pw->pw_dir;
	return xasprintf("%s/.wseq/sweep-state", home && *home ? home : ".");
}

/* dir made (0700) when missing; refused unless it is a directory of ours that others cannot write. */
static int own_dir(const char *dir)
{
	struct stat st;

	if (mkdir_p(dir, 0700) < 0)
		return -1;
	if (lstat(dir, &st) < 0)
		return log_error("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return log_error("%s: not a directory of this user's that only they can write "
				 "(the sweep's state must be the user's own)", dir);
	return 0;
}

struct sweep_store *sweep_state_open(const char *dir, struct sweep_files *files)
{
	static const char *const subs[] = { "sessions", "results", "spool" };
	struct sbuf err = SBUF_INIT(1024);
	struct sweep_store *st = NULL;
	char *path;
	size_t i;

	memset(files, 0, sizeof(*files));
	if (own_dir(dir) < 0)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(subs); i++) {
		path = xasprintf("%s/%s", dir, subs[i]);
		if (own_dir(path) < 0) {
			free(path);
			return NULL;
		}
		free(path);
	}
	path = xasprintf("%s/sessions.db", dir);
	st = sweep_store_open_sqlite(path, &err);
	if (!st)
		log_error("%s", sbuf_str(&err));
	free(path);
	sbuf_release(&err);
	if (st) {
		files->sessions = xasprintf("%s/sessions", dir);
		files->results = xasprintf("%s/results", dir);
		files->fanout = STATE_FANOUT;
	}
	return st;
}
