/*
 * Where a sweep session's files live beside its store (sweep_files.h): the
 * rule in one place for the master, which writes the session's files and
 * reads the results, and the endpoints, which serve the one and write the
 * other.
 */
#include "sweep_files.h"
#include "config.h"
#include "dirhier.h"

void sweep_files_project(struct sweep_files *f, const struct project_config *cfg)
{
	f->sessions = xasprintf("%s/sweep", cfg->project_dir);
	f->results = xstrdup(cfg->upload_dir);
	f->fanout = cfg->uldl_dir_fanout;
}

void sweep_files_release(struct sweep_files *f)
{
	free(f->sessions);
	free(f->results);
	memset(f, 0, sizeof(*f));
}

char *sweep_files_session(const struct sweep_files *f, const char *sid)
{
	return xasprintf("%s/%s", f->sessions, sid);
}

int sweep_files_result(const struct sweep_files *f, const char *ticket, bool create,
		       struct sbuf *path)
{
	return dirhier_path(ticket, f->results, f->fanout, create, path);
}
