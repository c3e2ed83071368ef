/*
 * A zip archive written as a stream, for get_output2.php's zips of a job's
 * or a batch's output files: nothing seeks back and only the central
 * directory (a few dozen bytes an entry) is held in memory, so a batch of
 * gigabytes passes through in 64 KiB pieces. Each entry is a local header,
 * its content deflated (zlib, raw), and a data descriptor with the CRC-32
 * and sizes; zip64 records where an entry or the archive passes 4 GiB or
 * 65,535 entries. Any unzip (Info-ZIP, Python's zipfile, libarchive)
 * reads it.
 */
#ifndef WSEQ_ZIPSTREAM_H
#define WSEQ_ZIPSTREAM_H

#include "common.h"

/* Where the archive's bytes go: 0, or -1 to stop (the client went away). */
typedef int (*zip_write_fn)(void *arg, const void *buf, size_t n);

struct zip_writer;

struct zip_writer *zip_writer_new(zip_write_fn write, void *arg);
/*
 * Add the entry name (zip_name_ok) with the content read from fd up to its
 * end, dated mtime. 0, or -1 (logged) when the name is bad, a read fails or
 * a write stops: the archive is then unusable.
 */
int zip_add_fd(struct zip_writer *z, const char *name, int fd, time_t mtime);
int zip_add_buf(struct zip_writer *z, const char *name, const void *buf, size_t len,
		time_t mtime);
/* The central directory and the end records; 0 or -1. */
int zip_finish(struct zip_writer *z);
void zip_writer_free(struct zip_writer *z);
/*
 * Is name fit for an entry, whatever unpacks it: relative ('/' between
 * components, none empty, "." or ".."), no backslash, colon or control
 * byte, at most ZIP_NAME_MAX bytes.
 */
#define ZIP_NAME_MAX 1024
bool zip_name_ok(const char *name);

#endif
