/* The slot's listing and the zip of new outputs (wrapper_out.h). */
#include "wrapper_out.h"
#include "fileutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <zip.h>

#define WOUT_MAX_DEPTH 32

static int wo_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void wout_add(struct wout_names *names, const char *name)
{
	ARRAY_GROW(names->v, names->n);
	names->v[names->n++] = xstrdup(name);
	qsort(names->v, names->n, sizeof(*names->v), wo_cmp);
}

bool wout_has(const struct wout_names *names, const char *name)
{
	return names->n && bsearch(&name, names->v, names->n, sizeof(*names->v), wo_cmp) != NULL;
}

void wout_release(struct wout_names *names)
{
	size_t i;

	for (i = 0; i < names->n; i++)
		free(names->v[i]);
	free(names->v);
	names->v = NULL;
	names->n = 0;
}

int wout_list(const char *dir, struct wout_names *out, struct sbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(out, 0, sizeof(*out));
	if (!d)
		return sbuf_fail(err, "cannot list %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ARRAY_GROW(out->v, out->n);
		out->v[out->n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), wo_cmp);
	return 0;
}

int wout_save(const char *path, const struct wout_names *names, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT((size_t)1 << 30);
	size_t i;
	int rc;

	for (i = 0; i < names->n; i++)
		if (!strchr(names->v[i], '\n'))
			sbuf_addf(&b, "%s\n", names->v[i]);
	rc = write_file_atomic(path, sbuf_str(&b), b.len, 0644);
	sbuf_release(&b);
	return rc < 0 ? sbuf_fail(err, "cannot write %s", path) : 0;
}

int wout_load(const char *path, struct wout_names *out, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT((size_t)64 << 20);
	const char *p, *nl;

	memset(out, 0, sizeof(*out));
	if (read_file(path, (size_t)64 << 20, &b) < 0)
		return sbuf_fail(err, "cannot read %s", path);
	for (p = sbuf_str(&b); (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		if (nl == p)
			continue;
		ARRAY_GROW(out->v, out->n);
		out->v[out->n++] = xstrndup(p, (size_t)(nl - p));
	}
	sbuf_release(&b);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), wo_cmp);
	return 0;
}

static bool wo_match(const char *rel, char *const *patterns, size_t npatterns)
{
	size_t i;

	for (i = 0; i < npatterns; i++)
		if (fnmatch(patterns[i], rel, 0) == 0)
			return true;
	return false;
}

/* Collect the files to pack below dir/rel (rel "" for dir itself). */
static int wo_walk(const char *dir, const char *rel, bool matched, char *const *patterns,
		   size_t npatterns, const struct wout_names *skip, struct wout_names *files,
		   int depth, struct sbuf *err)
{
	char *path = *rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	struct dirent **ents = NULL;
	int i, n, rc = 0;

	if (depth > WOUT_MAX_DEPTH) {
		rc = sbuf_fail(err, "%s: directories nested too deep", path);
		free(path);
		return rc;
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		rc = sbuf_fail(err, "cannot list %s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *sub, *full;
		struct stat st;
		bool m;

		if (rc < 0 || !strcmp(name, ".") || !strcmp(name, "..") ||
		    (!*rel && wout_has(skip, name)))
			continue;
		sub = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
		full = xasprintf("%s/%s", dir, sub);
		m = matched || wo_match(sub, patterns, npatterns);
		if (lstat(full, &st) == 0) {
			if (S_ISREG(st.st_mode) && m) {
				ARRAY_GROW(files->v, files->n);
				files->v[files->n++] = xstrdup(sub);
			} else if (S_ISDIR(st.st_mode))
				rc = wo_walk(dir, sub, m, patterns, npatterns, skip, files, depth + 1,
					     err);
		}
		free(full);
		free(sub);
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	free(path);
	return rc;
}

/* libzip writes no file for an archive without entries: the 22 bytes of one by hand. */
static int wo_empty_zip(const char *zip_path, struct sbuf *err)
{
	static const char eocd[22] = { 'P', 'K', 5, 6 };

	if (write_file_atomic(zip_path, eocd, sizeof(eocd), 0644) < 0)
		return sbuf_fail(err, "cannot write %s", zip_path);
	return 0;
}

int wout_zip(const char *dir, const char *zip_path, char *const *patterns, size_t npatterns,
	     const struct wout_names *skip, size_t *nfiles, struct sbuf *err)
{
	struct wout_names files = { NULL, 0 };
	zip_t *za = NULL;
	size_t i;
	int zerr = 0, rc = -1;

	if (nfiles)
		*nfiles = 0;
	if (wo_walk(dir, "", false, patterns, npatterns, skip, &files, 0, err) < 0)
		goto out;
	if (!files.n) {
		rc = wo_empty_zip(zip_path, err);
		goto out;
	}
	za = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	if (!za) {
		zip_error_t ze;

		zip_error_init_with_code(&ze, zerr);
		sbuf_fail(err, "cannot create %s: %s", zip_path, zip_error_strerror(&ze));
		zip_error_fini(&ze);
		goto out;
	}
	for (i = 0; i < files.n; i++) {
		char *full = xasprintf("%s/%s", dir, files.v[i]);
		zip_source_t *src = zip_source_file(za, full, 0, -1);
		zip_int64_t idx;

		free(full);
		if (!src) {
			sbuf_fail(err, "%s: %s", files.v[i], zip_strerror(za));
			goto out;
		}
		idx = zip_file_add(za, files.v[i], src, ZIP_FL_ENC_GUESS);
		if (idx < 0) {
			zip_source_free(src);
			sbuf_fail(err, "%s: %s", files.v[i], zip_strerror(za));
			goto out;
		}
		zip_file_set_external_attributes(za, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX,
						 (zip_uint32_t)(S_IFREG | 0644) << 16);
	}
	if (zip_close(za) < 0) {
		sbuf_fail(err, "cannot write %s: %s", zip_path, zip_strerror(za));
		goto out;
	}
	za = NULL;
	if (nfiles)
		*nfiles = files.n;
	rc = 0;
out:
	if (za)
		zip_discard(za);
	wout_release(&files);
	return rc;
}
