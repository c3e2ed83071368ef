/*
 * Fetching and unpacking a job's wseq_outputs.zip; see outputs_zip.h.
 */
#include "outputs_zip.h"
#include "fileutil.h"
#include "unzip.h"

#include <dirent.h>
#include <sys/stat.h>

long outputs_zip_index(const struct rpc_templates *t)
{
	size_t i;

	for (i = 0; i < t->nout; i++)
		if (strcmp(t->out[i], OUTPUTS_ZIP) == 0)
			return (long)i;
	return -1;
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
			u->names = xrealloc(u->names, (u->n + 1) * sizeof(*u->names));
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

int outputs_zip_fetch(const char *url, const char *auth, const char *job, int file_num,
		      const char *near, struct unpacked *u, struct sbuf *err)
{
	char *zip = NULL, *files = NULL;
	int rc = -1;

	memset(u, 0, sizeof(*u));
	u->dir = xasprintf("%s/.wseq-outputs-XXXXXX", near);
	if (!mkdtemp(u->dir)) {
		sbuf_addf(err, "cannot make a directory in %s to unpack %s: %s", near, OUTPUTS_ZIP,
			  strerror(errno));
		free(u->dir);
		u->dir = NULL;
		return -1;
	}
	zip = xasprintf("%s/%s", u->dir, OUTPUTS_ZIP);
	files = xasprintf("%s/files", u->dir);
	if (rpc_get_output(url, auth, job, file_num, zip, err) < 0)
		goto out;
	if (zip_unpack(zip, files, OUTPUTS_ZIP_MAX_BYTES, OUTPUTS_ZIP_MAX_ENTRIES, err) < 0) {
		sbuf_addf(err, " (in %s of job %s)", OUTPUTS_ZIP, job);
		goto out;
	}
	unlink(zip);
	if (list_files(files, "", u) < 0) {
		sbuf_addf(err, "cannot read what %s of job %s unpacked to: %s", OUTPUTS_ZIP, job,
			  strerror(errno));
		goto out;
	}
	qsort(u->names, u->n, sizeof(*u->names), by_name);
	u->taken = xcalloc(u->n + 1, sizeof(*u->taken));
	rc = 0;
out:
	if (rc < 0)
		unpacked_free(u);
	free(zip);
	free(files);
	return rc;
}

long unpacked_find(const struct unpacked *u, const char *name)
{
	char **p = u->n ? bsearch(&name, u->names, u->n, sizeof(*u->names), by_name) : NULL;

	return p ? (long)(p - u->names) : -1;
}

int unpacked_take(struct unpacked *u, size_t i, const char *dest, struct sbuf *err)
{
	char *src = xasprintf("%s/files/%s", u->dir, u->names[i]);
	int rc = mkdir_parent(dest, 0755);

	if (rc == 0 && rename(src, dest) < 0)
		rc = errno == EXDEV && copy_file(src, dest, 0644) == 0 ? 0 : -1;
	if (rc < 0)
		sbuf_addf(err, "cannot put %s (from %s) at %s: %s", u->names[i], OUTPUTS_ZIP, dest,
			  strerror(errno));
	else
		u->taken[i] = true;
	free(src);
	return rc;
}

void unpacked_free(struct unpacked *u)
{
	size_t i;

	if (u->dir)
		remove_tree(u->dir);
	for (i = 0; i < u->n; i++)
		free(u->names[i]);
	free(u->names);
	free(u->taken);
	free(u->dir);
	memset(u, 0, sizeof(*u));
}
