/*
 * The client bundle `sweep run` deploys (doc/sweep_client.md, "The bundle"): a
 * directory holding `start`, which runs sweep_client on the shared libraries
 * and the dynamic loader the bundle carries, so a host needs nothing but its
 * kernel and a shell. There is one a platform (ROOT/PLATFORM/); on the hosts a
 * bundle is named by its content (sweep_client-ID), so a host's copy is this
 * master's by its name alone, and two masters with different clients sharing
 * a home never write the same files.
 */
#ifndef WSEQ_SWEEP_BUNDLE_H
#define WSEQ_SWEEP_BUNDLE_H

#include "md5.h"

/* The file of a bundle that starts the client (the master runs it). */
#define SWEEP_BUNDLE_START "start"

/*
 * The bundle for platform: given (a bundle, or a directory holding one a
 * platform), else the installed ones -- $WSEQ_LIBEXECDIR/sweep-client, the
 * sweep kit's when this master runs from one (KIT/sweep-client), the build
 * tree's stage when it runs from there, else PKGLIBEXECDIR/sweep-client. The path (allocated), or NULL (logged).
 */
char *sweep_bundle_find(const char *given, const char *platform);

/*
 * The bundle's ID: the MD5 of its manifest, a line "MD5 MODE PATH" for each
 * file under dir (paths relative, in byte order; directories followed,
 * symbolic links read through). 0, or -1 (logged).
 */
int sweep_bundle_id(const char *dir, char id[MD5_HEX_LEN + 1]);

#endif
