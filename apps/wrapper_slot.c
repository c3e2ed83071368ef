/*
 * The app version's files as the client lists them (wrapper_slot.h), and
 * whether a resolved logical name is one of them.
 */
#include "wrapper_slot.h"
#include "xml.h"

#include <fcntl.h>
#include <sys/stat.h>

#define WSLOT_MAX_FILES 10000

int wslot_load(struct wslot *s, const char *path, struct sbuf *err)
{
	xmlDoc *doc;
	const xmlNode *root, *c;

	memset(s, 0, sizeof(*s));
	doc = xml_read_file(path, err);
	if (!doc)
		return -1;
	root = xmlDocGetRootElement(doc);
	xml_for_each(c, root, NULL) {
		if (xml_is(c, "project_dir") && !s->project_dir) {
			s->project_dir = xml_text(c);
		} else if (xml_is(c, "app_file") && s->napp_files < WSLOT_MAX_FILES) {
			ARRAY_GROW(s->app_files, s->napp_files);
			s->app_files[s->napp_files++] = xml_text(c);
		}
	}
	xmlFreeDoc(doc);
	if (!s->project_dir || !*s->project_dir || !s->napp_files) {
		sbuf_addf(err, "%s lists no project directory or no app version files (a BOINC "
			  "client 7.6 or later lists them)", path);
		wslot_release(s);
		return -1;
	}
	return 0;
}

void wslot_release(struct wslot *s)
{
	size_t i;

	for (i = 0; i < s->napp_files; i++)
		free(s->app_files[i]);
	free(s->app_files);
	free(s->project_dir);
	memset(s, 0, sizeof(*s));
}

static bool listed(const struct wslot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->napp_files; i++)
		if (!strcmp(s->app_files[i], name))
			return true;
	return false;
}

/* A link: the real path is the project directory's, its name an app file. */
static bool link_ok(const struct wslot *s, const char *resolved)
{
	char *real = realpath(resolved, NULL), *proj = realpath(s->project_dir, NULL), *slash;
	bool ok = false;

	if (real && proj && (slash = strrchr(real, '/')) != NULL) {
		*slash = '\0';
		ok = !strcmp(real, proj) && listed(s, slash + 1);
	}
	free(real);
	free(proj);
	return ok;
}

static bool same_bytes(int a, int b)
{
	char ba[65536], bb[65536];
	ssize_t na, nb;

	for (;;) {
		na = read(a, ba, sizeof(ba));
		nb = read(b, bb, sizeof(bb));
		if (na != nb || na < 0)
			return false;
		if (na == 0)
			return true;
		if (memcmp(ba, bb, (size_t)na))
			return false;
	}
}

/* A copy in the slot: a regular file with the bytes of a listed file. */
static bool copy_ok(const struct wslot *s, const char *path)
{
	struct stat st, at;
	bool ok = false;
	size_t i;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	for (i = 0; i < s->napp_files && !ok; i++) {
		char *p = xasprintf("%s/%s", s->project_dir, s->app_files[i]);
		int af = open(p, O_RDONLY | O_CLOEXEC);

		if (af >= 0 && fstat(af, &at) == 0 && S_ISREG(at.st_mode) &&
		    at.st_size == st.st_size && lseek(fd, 0, SEEK_SET) == 0)
			ok = same_bytes(fd, af);
		if (af >= 0)
			close(af);
		free(p);
	}
	close(fd);
	return ok;
}

bool wslot_is_app_file(const struct wslot *s, const char *logical, const char *resolved)
{
	struct stat st;

	if (strcmp(logical, resolved) || (lstat(resolved, &st) == 0 && S_ISLNK(st.st_mode)))
		return link_ok(s, resolved);    /* a soft-link file, or a symbolic link */
	return copy_ok(s, resolved);
}
