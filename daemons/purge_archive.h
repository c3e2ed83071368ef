/*
 * db_purge's archive files and the journal that makes them crash-safe; see
 * purge_archive.c for the protocol and why it holds.
 *
 * An archive is a pair of files, wu_archive_TIME.xml.gz and
 * result_archive_TIME.xml.gz (upstream BOINC's names; .xml with --gzip=0),
 * each one XML document: <archive> holding <workunit_archive> (or
 * <result_archive>) elements, one per purged row with every column.
 * Compressed, every batch is a gzip member of its own: gzip, zcat and
 * zlib read the file as one stream.
 */
#ifndef WSEQ_PURGE_ARCHIVE_H
#define WSEQ_PURGE_ARCHIVE_H

#include "common.h"
#include "sbuf.h"

struct purge_archive;

/*
 * Are the rows of the batch in flight still in the database? Given the
 * workunit ids, returns how many of them exist, or -1 if it cannot tell
 * (logged).
 */
typedef long (*purge_rows_fn)(const int64_t *ids, size_t n, void *arg);

/* An archive writer over dir (created if missing); daily: in dir/YYYY_MM_DD/. */
struct purge_archive *purge_archive_new(const char *dir, bool gzip, bool daily);
void purge_archive_free(struct purge_archive *a);

/*
 * Finish what a killed run left (the journal in dir): the batch in flight
 * is kept if its rows are gone and cut off if they are there, and the
 * archive it was writing is closed. 0, or -1 (logged; nothing changed that
 * a later try would need).
 */
int purge_archive_recover(struct purge_archive *a, purge_rows_fn fn, void *arg);

/*
 * Put a batch into the archive (opening a new pair first if none is open):
 * wu and res hold its <workunit_archive> and <result_archive> elements,
 * ids its n workunits. On return the batch is on disk and journalled as in
 * flight; the caller deletes its rows, then calls purge_archive_settle().
 */
int purge_archive_append(struct purge_archive *a, const struct sbuf *wu, const struct sbuf *res,
			 const int64_t *ids, size_t n);
/*
 * After the deletion was tried (whether it reported success or not): the
 * rows decide. The batch stays in the archive if none of its rows is left,
 * and is cut off otherwise. 0, or -1 (logged; the journal then still holds
 * the batch, for purge_archive_recover()).
 */
int purge_archive_settle(struct purge_archive *a, purge_rows_fn fn, void *arg);
/* Close the open pair (if any): its documents end; the journal goes. */
int purge_archive_close(struct purge_archive *a);
/* Workunits in the open pair (0 if none is open). */
long purge_archive_nwu(const struct purge_archive *a);

#endif
