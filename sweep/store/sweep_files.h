/*
 * Where a sweep session's files live beside its store (doc/sweep-store.md):
 * the session's own directory, SESSIONS/SID, holding "config" (the
 * configuration body), "worker_name" and "workers/PLATFORM" (written by the
 * master, served by /config and /worker); and the results /complete brought,
 * one file a ticket named by it under RESULTS in BOINC's fan-out
 * (lib/dirhier.h), read by the master's collection. A project keeps them in
 * PROJECT/sweep and its upload directory (sweep_files_project()); the
 * embedded store wherever its caller says.
 */
#ifndef WSEQ_SWEEP_FILES_H
#define WSEQ_SWEEP_FILES_H

#include "common.h"
#include "sbuf.h"

struct project_config;

struct sweep_files {
	char *sessions;         /* SESSIONS: each session's directory is SESSIONS/SID */
	char *results;          /* RESULTS: /complete bodies, by ticket */
	long fanout;            /* RESULTS' hierarchy (lib/dirhier.h); 0 none */
};

/* A project's: PROJECT/sweep, its upload directory and fan-out. */
void sweep_files_project(struct sweep_files *f, const struct project_config *cfg);
void sweep_files_release(struct sweep_files *f);
/* SESSIONS/SID, allocated. */
char *sweep_files_session(const struct sweep_files *f, const char *sid);
/*
 * The path of ticket's results in path (its directory made first when
 * create). 0, or -1 for a name the hierarchy refuses.
 */
int sweep_files_result(const struct sweep_files *f, const char *ticket, bool create,
		       struct sbuf *path);

#endif
