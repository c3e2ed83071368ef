/*
 * What the BOINC client tells wseq_wrapper about its slot: the project
 * directory and the physical names of the app version's files
 * (init_data.xml's <project_dir> and <app_file>s, BOINC 7.6 and later).
 * With it the wrapper tells a file of the app version -- the admin's --
 * from a workunit's input -- the submitter's --, so the job file and the
 * programs it runs are only ever the admin's (doc/wseq_wrapper.md, WHAT A
 * JOB MAY CHOOSE). No BOINC runtime: the unit tests link this file alone.
 */
#ifndef WSEQ_WRAPPER_SLOT_H
#define WSEQ_WRAPPER_SLOT_H

#include "common.h"
#include "sbuf.h"

struct wslot {
	char *project_dir;      /* absolute, as the client wrote it */
	char **app_files;       /* physical names */
	size_t napp_files;
};

/* Read init_data.xml (path) of the slot: 0, or -1 with the reason in err. */
int wslot_load(struct wslot *s, const char *path, struct sbuf *err);
void wslot_release(struct wslot *s);

/*
 * Is the file the logical name resolved to (resolved: the path
 * boinc_resolve_filename gave, the logical name itself when the slot holds
 * the file, not a link) a file of the app version? A link must point at a
 * file of the project directory listed as an app file; a file the client
 * copied into the slot (<copy_file/>) must have the bytes of one of them.
 */
bool wslot_is_app_file(const struct wslot *s, const char *logical, const char *resolved);

#endif
