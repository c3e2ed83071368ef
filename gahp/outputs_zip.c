/*
 * Fetching, unpacking and placing a job's wseq_outputs.zip; see
 * outputs_zip.h for the rules. The placing walks each destination one
 * component at a time from the job's directory (openat, O_NOFOLLOW), so no
 * symbolic link is followed and nothing is replaced: a file is put in
 * place with linkat(), which fails on any name already there.
 */
#include "outputs_zip.h"
#include "fileutil.h"
#include "log.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

long outputs_zip_index(const struct rpc_templates *t)
{
	size_t i;

	for (i = 0; i < t->nout; i++)
		if (strcmp(t->out[i], OUTPUTS_ZIP) == 0)
			return (long)i;
	return -1;
}

static const struct knob {
	const char *env;
	long def, max;
	const char *help;
} knobs[] = {
	{ "WSEQ_OUTPUTS_MAX_BYTES", 8L << 30, 1L << 50, "bytes one job's zip may unpack to" },
	{ "WSEQ_OUTPUTS_MAX_FILES", 10000, 1L << 40, "entries of one job's zip" },
	{ "WSEQ_OUTPUTS_MAX_FILE_BYTES", 4L << 30, 1L << 50, "bytes of one entry" },
	{ "WSEQ_OUTPUTS_MAX_RATIO", 200, 1000000,
	  "bytes unpacked per byte of zip, past the first MiB (a zip bomb stops here)" },
	{ "WSEQ_OUTPUTS_BATCH_MAX_BYTES", 64L << 30, 1L << 50,
	  "bytes the zips of one batch may unpack to together" },
	{ "WSEQ_OUTPUTS_BATCH_MAX_FILES", 100000, 1L << 40, "entries of one batch's zips together" },
};

int outputs_zip_limits(struct zip_limits *job, struct zip_budget *batch, struct sbuf *err)
{
	uint64_t *field[] = { &job->max_bytes, &job->max_entries, &job->max_entry_bytes,
			      &job->max_ratio, &batch->max_bytes, &batch->max_entries };
	size_t i;

	memset(job, 0, sizeof(*job));
	memset(batch, 0, sizeof(*batch));
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		const char *e = getenv(knobs[i].env);
		long v = knobs[i].def;

		if (e && *e && (parse_long(e, &v) < 0 || v < 1 || v > knobs[i].max))
			return sbuf_fail(err, "%s=%s: want a whole number from 1 to %ld", knobs[i].env, e,
					 knobs[i].max);
		*field[i] = (uint64_t)v;
	}
	return 0;
}

const char *outputs_zip_env_help(void)
{
	static char text[2048];
	size_t i, off = 0;

	if (text[0])
		return text;
	off += (size_t)snprintf(text, sizeof(text), "Bounds on what a host's %s may unpack to "
				"(environment):\n", OUTPUTS_ZIP);
	for (i = 0; i < ARRAY_SIZE(knobs) && off < sizeof(text); i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "  %-29s %s (default %ld)\n",
					knobs[i].env, knobs[i].help, knobs[i].def);
	return text;
}

const char *outputs_rel_problem(const char *rel)
{
	const char *why = zip_name_problem(rel), *p;

	if (why)
		return why;
	if (rel[strlen(rel) - 1] == '/')
		return "a directory, not a file";
	for (p = rel; p; p = strchr(p, '/'))
		if (*(p += *p == '/') == '.')
			return "a name starting with '.' (hidden files are made only when the submitter "
			       "names them)";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files under root/rel, as paths relative to root. */
static int list_files(const char *root, const char *rel, struct unpacked *u)
{
	char *path = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		free(path);
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *sub, *full;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		full = xasprintf("%s/%s", root, sub);
		if (lstat(full, &st) < 0) {
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = list_files(root, sub, u);
		} else if (S_ISREG(st.st_mode)) {
			ARRAY_GROW(u->names, u->n);
			u->names[u->n++] = sub;
			sub = NULL;
		}
		free(sub);
		free(full);
	}
	closedir(d);
	free(path);
	return rc;
}

int outputs_zip_stage(const char *job_dir, struct unpacked *u, struct sbuf *err)
{
	memset(u, 0, sizeof(*u));
	u->dir = xasprintf("%s/.wseq-outputs-XXXXXX", job_dir);
	if (!mkdtemp(u->dir)) {
		sbuf_addf(err, "cannot make a directory in %s to unpack %s: %s", job_dir, OUTPUTS_ZIP,
			  strerror(errno));
		free(u->dir);
		u->dir = NULL;
		return -1;
	}
	return 0;
}

char *outputs_zip_path(const struct unpacked *u)
{
	return xasprintf("%s/%s", u->dir, OUTPUTS_ZIP);
}

int outputs_zip_download(const char *url, const char *auth, const char *job, int file_num,
			 struct unpacked *u, struct sbuf *err)
{
	char *zip = outputs_zip_path(u);
	int rc = rpc_get_output(url, auth, job, file_num, zip, err);

	free(zip);
	return rc;
}

int outputs_zip_unpack(struct unpacked *u, const struct zip_limits *job, struct zip_budget *batch,
		       struct sbuf *err)
{
	char *zip = outputs_zip_path(u), *files = xasprintf("%s/files", u->dir);
	int rc = -1;

	if (zip_unpack_limited(zip, files, job, batch, err) < 0) {
		sbuf_addf(err, " (in %s; nothing of it was kept)", OUTPUTS_ZIP);
		goto out;
	}
	unlink(zip);
	if (list_files(files, "", u) < 0) {
		sbuf_addf(err, "cannot read what %s unpacked to: %s", OUTPUTS_ZIP, strerror(errno));
		goto out;
	}
	if (u->n)
		qsort(u->names, u->n, sizeof(*u->names), by_name);
	u->dest = xcalloc(u->n + 1, sizeof(*u->dest));
	u->named = xcalloc(u->n + 1, sizeof(*u->named));
	rc = 0;
out:
	free(zip);
	free(files);
	return rc;
}

long unpacked_find(const struct unpacked *u, const char *name)
{
	char **p = u->n ? bsearch(&name, u->names, u->n, sizeof(*u->names), by_name) : NULL;

	return p ? (long)(p - u->names) : -1;
}

void unpacked_want(struct unpacked *u, size_t i, const char *dest, bool named)
{
	free(u->dest[i]);
	u->dest[i] = xstrdup(dest);
	u->named[i] = named;
}

void unpacked_reserve(struct unpacked *u, const char *path, bool whole)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;

	if (whole)
		dir = xstrdup(path);
	else if (!slash)
		dir = xstrdup(".");
	else
		dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));

	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		ARRAY_GROW(u->reserved, u->nreserved);
		u->reserved[u->nreserved].dev = st.st_dev;
		u->reserved[u->nreserved].ino = st.st_ino;
		u->reserved[u->nreserved++].base = whole ? NULL : xstrdup(path_base(path));
	}
	free(dir);
}

/* Is name base in the open directory dfd (the directory itself: NULL) reserved? */
static bool reserved(const struct unpacked *u, int dfd, const char *base)
{
	struct stat st;
	size_t i;

	if (!u->nreserved || fstat(dfd, &st) < 0)
		return u->nreserved > 0;
	for (i = 0; i < u->nreserved; i++) {
		const struct unpacked_reserved *r = &u->reserved[i];

		if (r->dev == st.st_dev && r->ino == st.st_ino &&
		    (!r->base || (base && !strcmp(base, r->base))))
			return true;
	}
	return false;
}

/* What placing made (files and directories), to take back on a refusal. */
struct made {
	char **paths;
	size_t n;
};

static void made_add(struct made *m, char *path)
{
	ARRAY_GROW(m->paths, m->n);
	m->paths[m->n++] = path;
}

static void made_free(struct made *m, bool take_back)
{
	while (m->n > 0) {
		char *p = m->paths[--m->n];

		if (take_back && unlink(p) < 0)
			rmdir(p);
		free(p);
	}
	free(m->paths);
	memset(m, 0, sizeof(*m));
}

/* Are the open files a and b the same bytes? */
static bool same_bytes(int a, int b)
{
	char x[65536], y[65536];
	ssize_t n, m;

	do {
		n = read(a, x, sizeof(x));
		m = n > 0 ? read(b, y, (size_t)n) : read(b, y, 1);
		if (n != m || (n > 0 && memcmp(x, y, (size_t)n)))
			return false;
	} while (n > 0);
	return n == 0;
}

/*
 * Walk rel's directories from dfd (taken), one component at a time, never
 * through a link nor into a reserved directory: the directory of rel's last
 * component, opened, or -1. With made, directories missing are created
 * (recorded); without, a missing one gives -2 (the rest is new).
 */
static int walk(const struct unpacked *u, int dfd, const char *job_dir, const char *rel,
		struct made *made, struct sbuf *err)
{
	char *copy = xstrdup(rel), *comp = copy, *slash;

	if (dfd >= 0 && reserved(u, dfd, NULL)) {
		sbuf_addf(err, "cannot place %s: %s is kept for the tool's own files", rel, job_dir);
		close(dfd);
		dfd = -1;
	}
	while (dfd >= 0 && (slash = strchr(comp, '/')) != NULL) {
		int next;

		*slash = '\0';
		if (made && mkdirat(dfd, comp, 0755) == 0)
			made_add(made, xasprintf("%s/%.*s", job_dir, (int)(slash - copy), copy));
		next = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && !made) {
			close(dfd);
			free(copy);
			return -2;
		}
		if (next < 0)
			sbuf_addf(err, "cannot place %s: %s/%s is %s", rel, job_dir, copy,
				  errno == ELOOP || errno == ENOTDIR ? "a link or a file, not a directory"
								     : strerror(errno));
		close(dfd);
		dfd = next;
		if (dfd >= 0 && reserved(u, dfd, NULL)) {
			sbuf_addf(err, "cannot place %s: %s/%s is kept for the tool's own files", rel,
				  job_dir, copy);
			close(dfd);
			dfd = -1;
		}
		*slash = '/';
		comp = slash + 1;
	}
	free(copy);
	return dfd;
}

/* May entry i go to its (unnamed) destination? 0 new, 1 there already with its bytes, -1. */
static int check_new(const struct unpacked *u, size_t i, const char *job_dir, struct sbuf *err)
{
	const char *rel = u->dest[i], *why = outputs_rel_problem(rel);
	char *src;
	int dfd, fd, sfd, rc;

	if (why)
		return sbuf_fail(err, "entry '%s' may not go to %s: %s", u->names[i], rel, why);
	dfd = walk(u, open(job_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), job_dir, rel, NULL, err);
	if (dfd == -2)
		return 0;
	if (dfd < 0)
		return err->len ? -1 : sbuf_fail(err, "cannot open %s: %s", job_dir, strerror(errno));
	if (reserved(u, dfd, path_base(rel))) {
		close(dfd);
		return sbuf_fail(err, "entry '%s' may not go to %s/%s: a file the tool keeps for "
				 "itself", u->names[i], job_dir, rel);
	}
	fd = openat(dfd, path_base(rel), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0 && errno == ENOENT)
		return 0;
	src = xasprintf("%s/files/%s", u->dir, u->names[i]);
	sfd = open(src, O_RDONLY | O_CLOEXEC);
	free(src);
	rc = fd >= 0 && sfd >= 0 && same_bytes(fd, sfd) ? 1 : -1;
	if (rc < 0)
		sbuf_fail(err, "entry '%s' would replace %s/%s, which exists (a host's zip never "
			  "replaces a file; name it in transfer_output_remaps to have it)", u->names[i],
			  job_dir, rel);
	if (fd >= 0)
		close(fd);
	if (sfd >= 0)
		close(sfd);
	return rc;
}

/* Entry i to its new place under job_dir, what was made recorded. */
static int place_new(const struct unpacked *u, size_t i, const char *job_dir, struct made *made,
		     struct sbuf *err)
{
	char *src = xasprintf("%s/files/%s", u->dir, u->names[i]);
	int dfd = walk(u, open(job_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), job_dir, u->dest[i],
		       made, err);
	int rc = -1;

	if (dfd < 0) {
		if (!err->len)
			sbuf_addf(err, "cannot open %s: %s", job_dir, strerror(errno));
	} else if (linkat(AT_FDCWD, src, dfd, path_base(u->dest[i]), 0) < 0) {
		sbuf_addf(err, "cannot place entry '%s' at %s/%s: %s", u->names[i], job_dir, u->dest[i],
			  errno == EEXIST ? "a file of that name is there already" : strerror(errno));
	} else {
		made_add(made, xasprintf("%s/%s", job_dir, u->dest[i]));
		rc = 0;
	}
	if (dfd >= 0)
		close(dfd);
	free(src);
	return rc;
}

/* Entry i where the submitter said, replacing what is there. */
static int place_named(const struct unpacked *u, size_t i, struct sbuf *err)
{
	char *src = xasprintf("%s/files/%s", u->dir, u->names[i]);
	const char *dest = u->dest[i];
	int rc = mkdir_parent(dest, 0755);

	if (rc == 0 && rename(src, dest) < 0)
		rc = errno == EXDEV && copy_file(src, dest, 0644) == 0 ? 0 : -1;
	if (rc < 0)
		sbuf_addf(err, "cannot put %s (from %s) at %s: %s", u->names[i], OUTPUTS_ZIP, dest,
			  strerror(errno));
	free(src);
	return rc;
}

int unpacked_place(struct unpacked *u, const char *dir, struct sbuf *err)
{
	struct made made = { NULL, 0 };
	bool *there = xcalloc(u->n + 1, sizeof(*there));
	char *job_dir = xstrdup(dir);
	size_t i, len = strlen(job_dir);
	int rc = 0, r;

	while (len > 1 && job_dir[len - 1] == '/')
		job_dir[--len] = '\0';     /* for the messages */

	for (i = 0; i < u->n && rc == 0; i++)
		if (u->dest[i] && !u->named[i]) {
			r = check_new(u, i, job_dir, err);
			there[i] = r == 1;
			rc = r < 0 ? -1 : 0;
		}
	for (i = 0; i < u->n && rc == 0; i++)
		if (u->dest[i] && !u->named[i] && !there[i])
			rc = place_new(u, i, job_dir, &made, err);
	for (i = 0; i < u->n && rc == 0; i++)
		if (u->dest[i] && u->named[i])
			rc = place_named(u, i, err);
	for (i = 0; i < u->n && rc == 0; i++)
		u->nplaced += u->dest[i] != NULL;
	made_free(&made, rc < 0);
	free(there);
	free(job_dir);
	return rc;
}

void unpacked_release(struct unpacked *u)
{
	size_t i;

	if (u->dir)
		remove_tree(u->dir);
	for (i = 0; i < u->n; i++) {
		free(u->names[i]);
		if (u->dest)
			free(u->dest[i]);
	}
	for (i = 0; i < u->nreserved; i++)
		free(u->reserved[i].base);
	free(u->reserved);
	free(u->names);
	free(u->dest);
	free(u->named);
	free(u->dir);
	memset(u, 0, sizeof(*u));
}
