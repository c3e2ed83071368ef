/*
 * db_purge's archives, crash-safe: killed at any point (SIGKILL, power
 * loss) and run again, every purged row is in exactly one archive, and no
 * row still in the database is in one.
 *
 * The commit point is the database transaction that deletes a batch's
 * workunits and results: it is all or nothing, and a deleted workunit id
 * never comes back (AUTO_INCREMENT). So after any crash, "are any of the
 * batch's workunits still there?" tells whether the deletion happened.
 * Everything on disk is arranged so that this one question settles it:
 *
 *  1. a pair is opened: the journal (dir/db_purge.journal, replaced whole
 *     by rename, fsynced with its directory) names both files with end
 *     offsets 0; the files are created with their document's head
 *     ("<archive>"), fsynced; the journal records their sizes as the ends.
 *     Ends 0 in a journal mean no batch can be in the files: recovery
 *     removes them;
 *  2. a batch: the journal records the batch's workunit ids as pending
 *     (the ends stay those before it); the batch is appended to both files
 *     (a gzip member each) and fsynced -- and only then are its rows
 *     deleted, in one transaction;
 *  3. settling, the rows decide: none left, the deletion committed and
 *     the batch stays (the ends move past it); any left, it did not (or a
 *     commit's reply was lost and it did -- then none are left), and both
 *     files are cut back to the ends. The journal then drops the pending
 *     ids. A failed deletion is settled the same way as a killed one;
 *  4. closing: both files are cut to their ends (dropping whatever a
 *     killed close left) and get the document's tail ("</archive>") as a
 *     member of its own; then the journal goes.
 *
 * Recovery at start does 3 (if a batch is pending) and 4 for the pair the
 * journal names. Every step is idempotent, so a crash during recovery is
 * recovered the same way. A batch is appended before its rows go and cut
 * off unless they went: never in zero archives, never in two, and the
 * files only ever hold committed batches once settled. db_purge runs one
 * at a time (its lock), so the journal has one writer.
 */
#include "purge_archive.h"
#include "daemon.h"
#include "fileutil.h"
#include "log.h"
#include "wtime.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#define JOURNAL "db_purge.journal"
#define JOURNAL_MAX (64u << 20)
#define HEAD "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<archive>\n"
#define TAIL "</archive>\n"

enum { PA_WU, PA_RESULT, PA_NFILES };
static const char *const prefixes[PA_NFILES] = { "wu_archive", "result_archive" };
static const char *const kinds[PA_NFILES] = { "wu", "result" };

struct pa_file {
	char *rel;              /* relative to the archive directory */
	char *path;
	int fd;
	off_t end;              /* the end of the last settled batch */
};

struct purge_archive {
	char *dir;
	char *journal;
	bool gzip, daily, open;
	struct pa_file f[PA_NFILES];
	int64_t *pending;       /* the batch in flight: its workunit ids */
	size_t npending;
	long nwu;
};

/* Tests kill db_purge between any two steps: WSEQ_TEST_DB_PURGE_KILL=N. */
static void kill_point(void)
{
	daemon_test_kill_point("WSEQ_TEST_DB_PURGE_KILL");
}

struct purge_archive *purge_archive_new(const char *dir, bool gzip, bool daily)
{
	struct purge_archive *a = xcalloc(1, sizeof(*a));
	int i;

	a->dir = xstrdup(dir);
	a->journal = xasprintf("%s/%s", dir, JOURNAL);
	a->gzip = gzip;
	a->daily = daily;
	for (i = 0; i < PA_NFILES; i++)
		a->f[i].fd = -1;
	return a;
}

static void files_forget(struct purge_archive *a)
{
	int i;

	for (i = 0; i < PA_NFILES; i++) {
		if (a->f[i].fd >= 0)
			close(a->f[i].fd);
		free(a->f[i].rel);
		free(a->f[i].path);
		memset(&a->f[i], 0, sizeof(a->f[i]));
		a->f[i].fd = -1;
	}
	free(a->pending);
	a->pending = NULL;
	a->npending = 0;
	a->open = false;
	a->nwu = 0;
}

void purge_archive_free(struct purge_archive *a)
{
	if (!a)
		return;
	files_forget(a);
	free(a->dir);
	free(a->journal);
	free(a);
}

long purge_archive_nwu(const struct purge_archive *a)
{
	return a->open ? a->nwu : 0;
}

/* ---- the disk ------------------------------------------------------------- */

static int sync_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd, rc = 0;

	if (slash)
		*slash = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = log_error("cannot sync directory %s: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

static int write_logged(int fd, const char *path, const void *data, size_t len)
{
	return write_all(fd, data, len) < 0 ? log_error("cannot write %s: %s", path, strerror(errno))
					     : 0;
}

/* Append text to the file: as is, or as one gzip member. */
static int put(const struct purge_archive *a, const struct pa_file *f, const char *text,
	       size_t len)
{
	z_stream z;
	unsigned char *out;
	uLong bound;
	int rc;

	if (!a->gzip)
		return write_logged(f->fd, f->path, text, len);
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return log_error("cannot compress for %s: zlib init failed", f->path);
	bound = deflateBound(&z, (uLong)len) + 64;
	out = xmalloc(bound);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		rc = log_error("cannot compress for %s: %s", f->path, z.msg ? z.msg : "deflate failed");
	else
		rc = write_logged(f->fd, f->path, out, bound - z.avail_out);
	deflateEnd(&z);
	free(out);
	return rc;
}

static int sync_file(const struct pa_file *f)
{
	if (fsync(f->fd) < 0)
		return log_error("cannot sync %s: %s", f->path, strerror(errno));
	return 0;
}

static int cut_to_end(const struct pa_file *f)
{
	struct stat st;

	if (fstat(f->fd, &st) < 0)
		return log_error("cannot stat %s: %s", f->path, strerror(errno));
	if (st.st_size < f->end)
		return log_error("%s is %lld bytes, shorter than its journalled end %lld: changed by "
				 "someone else? (see %s)", f->path, (long long)st.st_size,
				 (long long)f->end, JOURNAL);
	if (st.st_size > f->end && ftruncate(f->fd, f->end) < 0)
		return log_error("cannot truncate %s: %s", f->path, strerror(errno));
	return sync_file(f);
}

/* ---- the journal ---------------------------------------------------------- */

static int journal_write(struct purge_archive *a)
{
	struct sbuf b = SBUF_INIT(JOURNAL_MAX);
	size_t i;
	int rc;

	sbuf_addstr(&b, "wseq db_purge journal 1\n");
	for (i = 0; i < PA_NFILES; i++)
		sbuf_addf(&b, "%s %s %lld\n", kinds[i], a->f[i].rel, (long long)a->f[i].end);
	if (a->npending) {
		sbuf_addf(&b, "pending %zu", a->npending);
		for (i = 0; i < a->npending; i++)
			sbuf_addf(&b, " %" PRId64, a->pending[i]);
		sbuf_addch(&b, '\n');
	}
	rc = write_file_atomic(a->journal, sbuf_str(&b), b.len, 0644);
	if (rc == 0)
		rc = sync_dir(a->journal);
	sbuf_release(&b);
	return rc;
}

/* "KIND REL END" */
static int parse_file_line(struct purge_archive *a, int i, const char *line)
{
	size_t k = strlen(kinds[i]);
	const char *p = line + k + 1, *sp;
	long long end;
	char *e;

	if (strncmp(line, kinds[i], k) || line[k] != ' ' || !(sp = strchr(p, ' ')) || sp == p)
		return -1;
	errno = 0;
	end = strtoll(sp + 1, &e, 10);
	if (errno || e == sp + 1 || *e || end < 0)
		return -1;
	a->f[i].rel = xstrndup(p, (size_t)(sp - p));
	a->f[i].path = xasprintf("%s/%s", a->dir, a->f[i].rel);
	a->f[i].end = (off_t)end;
	return 0;
}

static int parse_pending(struct purge_archive *a, const char *line)
{
	const char *p = line + strlen("pending ");
	char *e;
	size_t n, i;

	errno = 0;
	n = (size_t)strtoull(p, &e, 10);
	if (errno || e == p || n == 0 || n > JOURNAL_MAX / 2)
		return -1;
	a->pending = xcalloc(n, sizeof(*a->pending));
	for (i = 0, p = e; i < n; i++, p = e) {
		a->pending[i] = strtoll(p, &e, 10);
		if (e == p || a->pending[i] <= 0)
			return -1;
	}
	a->npending = n;
	return *p ? -1 : 0;
}

/* Read the journal into a (files not opened); 1 if there is one, 0 if not, -1. */
static int journal_read(struct purge_archive *a)
{
	struct sbuf b = SBUF_INIT(JOURNAL_MAX);
	char *line, *next;
	int rc = 0, nline = 0;

	if (access(a->journal, F_OK) < 0 && errno == ENOENT) {
		sbuf_release(&b);
		return 0;
	}
	if (read_file(a->journal, JOURNAL_MAX, &b) < 0) {
		sbuf_release(&b);
		return -1;
	}
	for (line = b.buf; rc == 0 && line && *line; line = next, nline++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (nline == 0)
			rc = strcmp(line, "wseq db_purge journal 1") ? -1 : 0;
		else if (nline <= PA_NFILES)
			rc = parse_file_line(a, nline - 1, line);
		else if (nline == PA_NFILES + 1 && !strncmp(line, "pending ", 8))
			rc = parse_pending(a, line);
		else
			rc = -1;
	}
	if (rc == 0 && nline < PA_NFILES + 1)
		rc = -1;
	sbuf_release(&b);
	if (rc < 0) {
		files_forget(a);
		return log_error("%s: not a db_purge journal, or damaged (line %d); look at it and at "
				 "the archives it names, then remove it", a->journal, nline);
	}
	a->open = true;
	return 1;
}

/* ---- a pair of files -------------------------------------------------------- */

static char *pair_subdir(const struct purge_archive *a, time_t t)
{
	struct tm tm;
	char day[32];

	if (!a->daily || !gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y_%m_%d", &tm))
		return xstrdup("");
	return xasprintf("%s/", day);
}

/* Names for a new pair: TIME is now(), or later if a pair has it already. */
static int pair_names(struct purge_archive *a)
{
	time_t t = now();
	const char *ext = a->gzip ? ".xml.gz" : ".xml";
	char *sub = pair_subdir(a, t);
	int i, tries;

	if (*sub) {
		char *d = xasprintf("%s/%s", a->dir, sub);
		int rc = mkdir_p(d, 0755);

		free(d);
		if (rc < 0) {
			free(sub);
			return -1;
		}
	}
	for (tries = 0; tries < 100000; tries++, t++) {
		bool taken = false;

		for (i = 0; i < PA_NFILES; i++) {
			free(a->f[i].rel);
			free(a->f[i].path);
			a->f[i].rel = xasprintf("%s%s_%lld%s", sub, prefixes[i], (long long)t, ext);
			a->f[i].path = xasprintf("%s/%s", a->dir, a->f[i].rel);
			a->f[i].end = 0;
			taken = taken || access(a->f[i].path, F_OK) == 0;
		}
		if (!taken)
			break;
	}
	free(sub);
	return 0;
}

static int pair_open(struct purge_archive *a)
{
	int i;

	files_forget(a);
	if (pair_names(a) < 0)
		return -1;
	a->open = true;
	if (journal_write(a) < 0)
		return -1;
	kill_point();
	for (i = 0; i < PA_NFILES; i++) {
		struct pa_file *f = &a->f[i];
		struct stat st;

		f->fd = open(f->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (f->fd < 0)
			return log_error("cannot create %s: %s", f->path, strerror(errno));
		if (ftruncate(f->fd, 0) < 0 || put(a, f, HEAD, strlen(HEAD)) < 0 ||
		    sync_file(f) < 0 || fstat(f->fd, &st) < 0)
			return log_error("cannot start %s: %s", f->path, strerror(errno));
		f->end = st.st_size;
	}
	if (sync_dir(a->f[PA_WU].path) < 0)
		return -1;
	kill_point();
	if (journal_write(a) < 0)
		return -1;
	log_info("archiving into %s and %s", a->f[PA_WU].path, a->f[PA_RESULT].path);
	kill_point();
	return 0;
}

/* Open the files the journal names (a killed run's pair). 1 if they are there, 0 if not. */
static int pair_reopen(struct purge_archive *a)
{
	int i;

	for (i = 0; i < PA_NFILES; i++) {
		struct pa_file *f = &a->f[i];

		f->fd = open(f->path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (f->fd < 0 && errno == ENOENT && f->end == 0)
			continue;
		if (f->fd < 0)
			return log_error("cannot open %s (named in %s): %s", f->path, a->journal,
					 strerror(errno));
	}
	return 1;
}

int purge_archive_append(struct purge_archive *a, const struct sbuf *wu, const struct sbuf *res,
			 const int64_t *ids, size_t n)
{
	if (!a->open && pair_open(a) < 0)
		return -1;
	if (a->npending)
		return log_error("internal error: a batch is already in flight");
	a->pending = xmalloc(n * sizeof(*ids));
	memcpy(a->pending, ids, n * sizeof(*ids));
	a->npending = n;
	if (journal_write(a) < 0)
		return -1;
	kill_point();
	if (put(a, &a->f[PA_WU], wu->buf ? wu->buf : "", wu->len) < 0)
		return -1;
	kill_point();
	if (put(a, &a->f[PA_RESULT], res->buf ? res->buf : "", res->len) < 0)
		return -1;
	kill_point();
	if (sync_file(&a->f[PA_WU]) < 0 || sync_file(&a->f[PA_RESULT]) < 0)
		return -1;
	kill_point();
	return 0;
}

int purge_archive_settle(struct purge_archive *a, purge_rows_fn fn, void *arg)
{
	long left;
	int i;

	if (!a->npending)
		return 0;
	left = fn(a->pending, a->npending, arg);
	if (left < 0)
		return -1;
	for (i = 0; i < PA_NFILES; i++) {
		struct pa_file *f = &a->f[i];
		struct stat st;

		if (f->fd < 0)
			return log_error("%s is missing, yet %s says a batch is in it", f->path,
					 a->journal);
		if (left == 0) {
			if (fstat(f->fd, &st) < 0)
				return log_error("cannot stat %s: %s", f->path, strerror(errno));
			f->end = st.st_size;
		} else if (cut_to_end(f) < 0) {
			return -1;
		}
	}
	if (left == 0)
		a->nwu += (long)a->npending;
	else
		log_info("%zu workunits were not purged (%ld still there): their archive records "
			 "are removed", a->npending, left);
	kill_point();
	free(a->pending);
	a->pending = NULL;
	a->npending = 0;
	if (journal_write(a) < 0)
		return -1;
	kill_point();
	return 0;
}

int purge_archive_close(struct purge_archive *a)
{
	int i, rc = 0;

	if (!a->open)
		return 0;
	if (a->npending)
		return log_error("internal error: closing with a batch in flight");
	for (i = 0; i < PA_NFILES && rc == 0; i++) {
		struct pa_file *f = &a->f[i];

		rc = cut_to_end(f);
		if (rc == 0)
			rc = put(a, f, TAIL, strlen(TAIL));
		if (rc == 0)
			rc = sync_file(f);
		if (rc == 0 && fchmod(f->fd, 0644) < 0)
			rc = log_error("cannot chmod %s: %s", f->path, strerror(errno));
		kill_point();
	}
	if (rc < 0)
		return -1;
	log_info("closed %s and %s: %ld workunits", a->f[PA_WU].path, a->f[PA_RESULT].path, a->nwu);
	if (unlink(a->journal) < 0)
		return log_error("cannot remove %s: %s", a->journal, strerror(errno));
	rc = sync_dir(a->journal);
	files_forget(a);
	kill_point();
	return rc;
}

/* A pair whose head was never journalled holds no batch: it goes. */
static int drop_unstarted(struct purge_archive *a)
{
	int i;

	for (i = 0; i < PA_NFILES; i++)
		if (unlink(a->f[i].path) < 0 && errno != ENOENT)
			return log_error("cannot remove %s: %s", a->f[i].path, strerror(errno));
	if (unlink(a->journal) < 0)
		return log_error("cannot remove %s: %s", a->journal, strerror(errno));
	log_info("removed the archive pair a killed run had only begun (%s)", a->f[PA_WU].path);
	files_forget(a);
	return sync_dir(a->journal);
}

int purge_archive_recover(struct purge_archive *a, purge_rows_fn fn, void *arg)
{
	int rc;

	if (mkdir_p(a->dir, 0755) < 0)
		return -1;
	files_forget(a);
	rc = journal_read(a);
	if (rc <= 0)
		return rc;
	log_info("recovering from an interrupted run (%s%s)", a->journal,
		 a->npending ? ", a batch in flight" : "");
	if (a->f[PA_WU].end == 0 || a->f[PA_RESULT].end == 0)
		return a->npending ? log_error("%s: a batch in flight in files never started",
					       a->journal)
				   : drop_unstarted(a);
	if (pair_reopen(a) < 0 || purge_archive_settle(a, fn, arg) < 0 ||
	    purge_archive_close(a) < 0) {
		files_forget(a);
		return -1;
	}
	return 0;
}
