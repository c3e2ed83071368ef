/*
 * The client bundle `sweep run` deploys (sweep_bundle.h): where it is for a
 * platform, and its ID, the MD5 of a manifest of its files.
 */
#include "sweep_bundle.h"
#include "common.h"
#include "log.h"
#include "sbuf.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST_MAX (1 << 20)  /* a bundle has a few dozen files */
#define DEPTH_MAX 8

static bool is_bundle(const char *dir)
{
	char *start = xasprintf("%s/%s", dir, SWEEP_BUNDLE_START);
	bool ok = access(start, X_OK) == 0;

	free(start);
	return ok;
}

#ifdef WSEQ_STAGE_BINDIR
/* Is this master the build tree's (stage/bin/sweep is a link to it)? */
static bool from_build_tree(void)
{
	char *staged = realpath(WSEQ_STAGE_BINDIR "/sweep", NULL);
	char *self = realpath("/proc/self/exe", NULL);
	bool same = staged && self && strcmp(staged, self) == 0;

	free(staged);
	free(self);
	return same;
}
#endif

/*
 * The sweep kit's client bundles, when this master runs from the kit
 * (sweep/Makefile.inc): its program's directory is a bundle (its loader is
 * /proc/self/exe), beside the kit's sweep-client/. NULL otherwise.
 */
static char *kit_root(void)
{
	char *self = realpath("/proc/self/exe", NULL), *slash, *root = NULL;
	struct stat st;

	if (self && (slash = strrchr(self, '/'))) {
		*slash = 0;
		root = xasprintf("%s/../sweep-client", self);
		if (!is_bundle(self) || stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(root);
			root = NULL;
		}
	}
	free(self);
	return root;
}

static char *default_root(void)
{
	const char *env = getenv("WSEQ_LIBEXECDIR");
	char *kit;

	if (env && *env)
		return xasprintf("%s/sweep-client", env);
	if ((kit = kit_root()))
		return kit;
#ifdef WSEQ_STAGE_BINDIR
	if (from_build_tree())
		return xstrdup(WSEQ_STAGE_BINDIR "/../libexec/sweep-client");
#endif
	return xstrdup(WSEQ_PKGLIBEXECDIR "/sweep-client");
}

char *sweep_bundle_find(const char *given, const char *platform)
{
	char *root = given ? xstrdup(given) : default_root();
	char *dir;

	if (given && is_bundle(given))
		return root;
	dir = xasprintf("%s/%s", root, platform);
	if (is_bundle(dir)) {
		free(root);
		return dir;
	}
	log_error("no sweep_client bundle for %s in %s (%s/%s/%s is missing; --client DIR names "
		  "a bundle made by sweep_bundle.sh)", platform, root, root, platform,
		  SWEEP_BUNDLE_START);
	free(root);
	free(dir);
	return NULL;
}

static int byte_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int manifest_add(const char *top, const char *rel, int depth, struct sbuf *m);

/* One entry of a directory: a file's line, or the lines of a subdirectory. */
static int manifest_entry(const char *top, const char *rel, int depth, struct sbuf *m)
{
	char *path = xasprintf("%s/%s", top, rel), md5[MD5_HEX_LEN + 1];
	struct stat st;
	int rc = 0;

	if (stat(path, &st) < 0)
		rc = log_error("bundle %s: %s: %s", top, rel, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		rc = manifest_add(top, rel, depth + 1, m);
	else if (!S_ISREG(st.st_mode))
		rc = log_error("bundle %s: %s is neither a file nor a directory", top, rel);
	else if ((rc = md5_file(path, md5, NULL)) == 0 &&
		 sbuf_addf(m, "%s %03o %s\n", md5, (unsigned)(st.st_mode & 0777), rel) < 0)
		rc = log_error("bundle %s: too many files", top);
	free(path);
	return rc;
}

/* The lines of the files under top/rel (rel "" for top itself). */
static int manifest_add(const char *top, const char *rel, int depth, struct sbuf *m)
{
	char *dir = *rel ? xasprintf("%s/%s", top, rel) : xstrdup(top);
	struct dirent **e = NULL;
	int n = depth > DEPTH_MAX ? -1 : scandir(dir, &e, NULL, byte_order), i, rc = 0;

	if (n < 0)
		rc = log_error("bundle %s: cannot read %s: %s", top, dir,
			       depth > DEPTH_MAX ? "too deep" : strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = e[i]->d_name;

		if (rc == 0 && strcmp(name, ".") && strcmp(name, "..")) {
			char *sub = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);

			rc = manifest_entry(top, sub, depth, m);
			free(sub);
		}
		free(e[i]);
	}
	free(e);
	free(dir);
	return rc;
}

int sweep_bundle_id(const char *dir, char id[MD5_HEX_LEN + 1])
{
	struct sbuf m = SBUF_INIT(MANIFEST_MAX);
	int rc = manifest_add(dir, "", 0, &m);

	if (rc == 0)
		rc = md5_buf(m.buf ? m.buf : "", m.len, id);
	sbuf_release(&m);
	return rc;
}
