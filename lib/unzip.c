/*
 * zip_unpack(): a volunteer host's zip of outputs, unpacked with suspicion
 * (lib/unzip.h). Three phases: check every entry's name and type (nothing
 * is written if one is bad), unpack into a fresh directory beside the
 * destination counting the bytes as they come against every bound (one
 * entry's, the zip's, a compression ratio, what a batch's zips share),
 * then move each file into the destination, taking the moves back if one
 * fails.
 */
#include "unzip.h"
#include "fileutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zip.h>

struct uz_entry {
	zip_uint64_t index;
	char *name;             /* without a trailing '/' */
	bool dir;
};

struct uz {
	zip_t *za;
	struct uz_entry *ents;
	size_t nents;
	const char *dest;
	char *tmp;              /* the scratch directory beside dest */
	char **made;            /* what phase 3 added to dest, to take back on error */
	size_t nmade;
	const struct zip_limits *lim;
	struct zip_budget *shared;      /* NULL: none */
	uint64_t zip_size;              /* the file's, for the ratio */
	uint64_t total;                 /* content unpacked so far */
	struct sbuf *err;
};

const char *zip_name_problem(const char *name)
{
	const char *p, *comp;
	size_t len = strlen(name);

	if (len == 0)
		return "empty name";
	if (name[0] == '/')
		return "absolute name";
	if (len > 1024)
		return "name longer than 1024 bytes";
	for (p = name; *p; p++) {
		if (*p == '\\')
			return "backslash in name";
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "control character in name";
	}
	if (name[len - 1] == '/')
		len--;          /* a directory entry */
	for (comp = name; comp < name + len; comp = p + 1) {
		p = memchr(comp, '/', (size_t)(name + len - comp));
		if (!p)
			p = name + len;
		if (p == comp)
			return "empty component in name";
		if (p - comp == 1 && comp[0] == '.')
			return "'.' component in name";
		if (p - comp == 2 && comp[0] == '.' && comp[1] == '.')
			return "'..' component in name";
		if (p - comp > 255)
			return "component longer than 255 bytes";
	}
	return NULL;
}

static int uz_cmp(const void *a, const void *b)
{
	const struct uz_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static uint64_t uz_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = (v << 8) | p[n];
	return v;
}

/*
 * libzip turns a NUL inside a name into a space, so a name cannot be cut
 * short through it -- but such a name is a forgery all the same. Look at
 * the raw names of the central directory: true if one holds a NUL. A
 * directory that does not parse here is left to libzip to judge.
 */
static bool uz_raw_nul(const char *zip_path)
{
	unsigned char tail[65557], *cd = NULL;
	uint64_t cd_off, cd_size, pos;
	bool found = false;
	off_t size;
	ssize_t n;
	int fd = open(zip_path, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return false;
	size = lseek(fd, 0, SEEK_END);
	if (size < 22)
		goto out;
	n = pread(fd, tail, size < (off_t)sizeof(tail) ? (size_t)size : sizeof(tail),
		  size < (off_t)sizeof(tail) ? 0 : size - (off_t)sizeof(tail));
	for (i = (int)n - 22; i >= 0; i--)
		if (!memcmp(tail + i, "PK\5\6", 4))
			break;
	if (i < 0)
		goto out;
	cd_size = uz_le(tail + i + 12, 4);
	cd_off = uz_le(tail + i + 16, 4);
	if (cd_off == 0xffffffffu && i >= 20 && !memcmp(tail + i - 20, "PK\6\7", 4)) {
		unsigned char z64[56];

		if (pread(fd, z64, sizeof(z64), (off_t)uz_le(tail + i - 12, 8)) != (ssize_t)sizeof(z64) ||
		    memcmp(z64, "PK\6\6", 4))
			goto out;
		cd_size = uz_le(z64 + 40, 8);
		cd_off = uz_le(z64 + 48, 8);
	}
	if (cd_size > ((uint64_t)64 << 20) || cd_off > (uint64_t)size || cd_size > (uint64_t)size - cd_off)
		goto out;
	cd = xmalloc(cd_size + 1);
	if (pread(fd, cd, cd_size, (off_t)cd_off) != (ssize_t)cd_size)
		goto out;
	for (pos = 0; pos + 46 <= cd_size && !memcmp(cd + pos, "PK\1\2", 4);) {
		uint64_t nl = uz_le(cd + pos + 28, 2);

		if (pos + 46 + nl > cd_size)
			break;
		if (memchr(cd + pos + 46, 0, nl)) {
			found = true;
			break;
		}
		pos += 46 + nl + uz_le(cd + pos + 30, 2) + uz_le(cd + pos + 32, 2);
	}
out:
	free(cd);
	close(fd);
	return found;
}

/* Phase 1: every entry's name and type, before anything is written. */
static int uz_check(struct uz *u)
{
	zip_int64_t n = zip_get_num_entries(u->za, 0);
	struct uz_entry *sorted;
	size_t i;

	if (n < 0)
		return sbuf_fail(u->err, "cannot count the entries");
	if (u->lim->max_entries && (zip_uint64_t)n > u->lim->max_entries)
		return sbuf_fail(u->err, "%" PRId64 " entries, more than the %" PRIu64 " allowed",
				 (int64_t)n, u->lim->max_entries);
	if (u->shared && u->shared->max_entries &&
	    u->shared->entries + (zip_uint64_t)n > u->shared->max_entries)
		return sbuf_fail(u->err, "%" PRId64 " entries, and the batch's zips unpacked %" PRIu64
				 " before: more than the %" PRIu64 " they may have together", (int64_t)n,
				 u->shared->entries, u->shared->max_entries);
	u->ents = xcalloc((size_t)n ? (size_t)n : 1, sizeof(*u->ents));
	for (i = 0; i < (size_t)n; i++) {
		struct uz_entry *e = &u->ents[u->nents];
		const char *name = zip_get_name(u->za, i, ZIP_FL_ENC_RAW);
		const char *why;
		zip_uint8_t opsys;
		zip_uint32_t attr;
		zip_stat_t st;
		mode_t type = 0;
		size_t len;

		if (!name)
			return sbuf_fail(u->err, "entry %zu: no name: %s", i, zip_strerror(u->za));
		why = zip_name_problem(name);
		if (why)
			return sbuf_fail(u->err, "entry '%.200s' refused: %s", name, why);
		if (zip_file_get_external_attributes(u->za, i, 0, &opsys, &attr) == 0 &&
		    opsys == ZIP_OPSYS_UNIX)
			type = (mode_t)(attr >> 16) & S_IFMT;
		if (type == S_IFLNK)
			return sbuf_fail(u->err, "entry '%s' refused: a symbolic link", name);
		if (type != 0 && type != S_IFREG && type != S_IFDIR)
			return sbuf_fail(u->err, "entry '%s' refused: not a file or directory", name);
		zip_stat_init(&st);
		if (zip_stat_index(u->za, i, 0, &st) < 0)
			return sbuf_fail(u->err, "entry '%s': %s", name, zip_strerror(u->za));
		if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
			return sbuf_fail(u->err, "entry '%s' refused: encrypted", name);
		if ((st.valid & ZIP_STAT_SIZE) && u->lim->max_entry_bytes &&
		    st.size > u->lim->max_entry_bytes)
			return sbuf_fail(u->err, "entry '%s' refused: %" PRIu64 " bytes, more than the %"
					 PRIu64 " one entry may have", name, (uint64_t)st.size,
					 u->lim->max_entry_bytes);
		len = strlen(name);
		e->index = i;
		e->dir = name[len - 1] == '/' || type == S_IFDIR;
		e->name = xstrndup(name, name[len - 1] == '/' ? len - 1 : len);
		u->nents++;
	}
	sorted = xcalloc(u->nents ? u->nents : 1, sizeof(*sorted));
	if (u->nents)
		memcpy(sorted, u->ents, u->nents * sizeof(*sorted));
	qsort(sorted, u->nents, sizeof(*sorted), uz_cmp);
	for (i = 1; i < u->nents; i++)
		if (!strcmp(sorted[i - 1].name, sorted[i].name)) {
			sbuf_fail(u->err, "entry '%s' refused: the name occurs twice", sorted[i].name);
			free(sorted);
			return -1;
		}
	free(sorted);
	return 0;
}

/*
 * Make the directories of rel under base (the last component too when
 * whole); with made, record each one created (relative) for taking back.
 */
static int uz_mkdirs(struct uz *u, const char *base, const char *rel, bool whole, bool record)
{
	char *p = xasprintf("%s/%s", base, rel), *s = p + strlen(base) + 1;
	struct stat st;
	int rc = 0;

	for (;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		if (c == '\0' && !whole)
			break;
		*s = '\0';
		if (mkdir(p, 0755) == 0) {
			chmod(p, 0755);
			if (record) {
				ARRAY_GROW(u->made, u->nmade);
				u->made[u->nmade++] = xstrdup(p);
			}
		} else if (errno != EEXIST || lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			rc = sbuf_fail(u->err, "cannot create directory %s: %s", p,
				     errno == EEXIST ? "a file is in the way" : strerror(errno));
			*s = c;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* Which bound n more bytes of entry e (of which it has had done) would pass, or NULL. */
static const char *uz_over(const struct uz *u, uint64_t done, uint64_t n, uint64_t *bound)
{
	const struct zip_limits *l = u->lim;
	uint64_t total = u->total + n;

	if (l->max_entry_bytes && done + n > l->max_entry_bytes)
		return *bound = l->max_entry_bytes, "in one entry";
	if (l->max_bytes && total > l->max_bytes)
		return *bound = l->max_bytes, "in all";
	if (u->shared && u->shared->max_bytes && u->shared->bytes + total > u->shared->max_bytes)
		return *bound = u->shared->max_bytes, "in the batch's zips together";
	if (l->max_ratio && total > l->max_ratio * u->zip_size + ZIP_RATIO_SLACK)
		return *bound = l->max_ratio * u->zip_size + ZIP_RATIO_SLACK,
		       "from the zip's size (a compression ratio past the bound)";
	return NULL;
}

/* Phase 2: one file's content, counted against every bound as it comes. */
static int uz_extract(struct uz *u, const struct uz_entry *e)
{
	uint64_t done = 0, bound = 0;
	const char *over;
	char *path = xasprintf("%s/%s", u->tmp, e->name);
	char buf[65536];
	zip_file_t *zf = NULL;
	zip_int64_t n;
	int fd = -1, rc = -1;

	if (uz_mkdirs(u, u->tmp, e->name, false, false) < 0)
		goto out;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		sbuf_fail(u->err, "entry '%s': cannot create: %s", e->name, strerror(errno));
		goto out;
	}
	fchmod(fd, 0644);
	zf = zip_fopen_index(u->za, e->index, 0);
	if (!zf) {
		sbuf_fail(u->err, "entry '%s': cannot read: %s", e->name, zip_strerror(u->za));
		goto out;
	}
	while ((n = zip_fread(zf, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		over = uz_over(u, done, (uint64_t)n, &bound);
		if (over) {
			sbuf_fail(u->err, "more than %" PRIu64 " bytes uncompressed %s (at entry '%s')",
				  bound, over, e->name);
			goto out;
		}
		done += (uint64_t)n;
		u->total += (uint64_t)n;
		while (n > 0) {
			ssize_t w = write(fd, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				sbuf_fail(u->err, "entry '%s': cannot write: %s", e->name, strerror(errno));
				goto out;
			}
			p += w;
			n -= w;
		}
	}
	if (n < 0) {
		sbuf_fail(u->err, "entry '%s': damaged: %s", e->name, zip_file_strerror(zf));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		sbuf_fail(u->err, "entry '%s': cannot write: %s", e->name, strerror(errno));
		goto out;
	}
	fd = -1;
	rc = 0;
out:
	if (zf)
		zip_fclose(zf);
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

/* Phase 3: into the destination, never over a file already there. */
static int uz_move(struct uz *u, const struct uz_entry *e)
{
	char *from, *to;
	int rc = 0;

	if (e->dir)
		return uz_mkdirs(u, u->dest, e->name, true, true);
	if (uz_mkdirs(u, u->dest, e->name, false, true) < 0)
		return -1;
	from = xasprintf("%s/%s", u->tmp, e->name);
	to = xasprintf("%s/%s", u->dest, e->name);
	if (link(from, to) < 0) {
		rc = sbuf_fail(u->err, "cannot place %s: %s", to,
			     errno == EEXIST ? "a file of that name is there already" : strerror(errno));
		free(to);
	} else {
		unlink(from);
		ARRAY_GROW(u->made, u->nmade);
		u->made[u->nmade++] = to;
	}
	free(from);
	return rc;
}

static void uz_take_back(struct uz *u)
{
	struct stat st;

	while (u->nmade > 0) {
		char *p = u->made[--u->nmade];

		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rmdir(p);
		else
			unlink(p);
		free(p);
	}
}

int zip_unpack(const char *zip_path, const char *dest_dir, size_t max_total_bytes,
	       size_t max_entries, struct sbuf *err)
{
	struct zip_limits lim = { .max_bytes = max_total_bytes, .max_entries = max_entries };

	return zip_unpack_limited(zip_path, dest_dir, &lim, NULL, err);
}

static uint64_t uz_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

int zip_unpack_limited(const char *zip_path, const char *dest_dir, const struct zip_limits *lim,
		       struct zip_budget *shared, struct sbuf *err)
{
	struct uz u = { .err = err, .lim = lim, .shared = shared };
	char *dest = xstrdup(dest_dir);
	size_t i, len = strlen(dest);
	int zerr = 0, rc = -1;

	while (len > 1 && dest[len - 1] == '/')
		dest[--len] = '\0';
	u.dest = dest;
	if (!*dest) {
		sbuf_fail(err, "no destination directory");
		goto out;
	}
	u.zip_size = uz_file_size(zip_path);
	u.za = zip_open(zip_path, ZIP_RDONLY, &zerr);
	if (!u.za) {
		zip_error_t ze;

		zip_error_init_with_code(&ze, zerr);
		sbuf_fail(err, "%s: not a readable zip: %s", zip_path, zip_error_strerror(&ze));
		zip_error_fini(&ze);
		goto out;
	}
	if (uz_check(&u) < 0)
		goto out;
	if (uz_raw_nul(zip_path)) {
		sbuf_fail(err, "an entry's name holds a NUL byte: refused");
		goto out;
	}
	u.tmp = xasprintf("%s.unzip-XXXXXX", dest);
	if (!mkdtemp(u.tmp)) {
		sbuf_fail(err, "cannot create a directory beside %s: %s", dest, strerror(errno));
		free(u.tmp);
		u.tmp = NULL;
		goto out;
	}
	for (i = 0; i < u.nents; i++) {
		const struct uz_entry *e = &u.ents[i];

		if (e->dir ? uz_mkdirs(&u, u.tmp, e->name, true, false) < 0 : uz_extract(&u, e) < 0)
			goto out;
	}
	if (mkdir(dest, 0755) == 0) {
		ARRAY_GROW(u.made, u.nmade);
		u.made[u.nmade++] = xstrdup(dest);
	} else if (errno != EEXIST) {
		sbuf_fail(err, "cannot create %s: %s", dest, strerror(errno));
		goto out;
	}
	for (i = 0; i < u.nents; i++)
		if (uz_move(&u, &u.ents[i]) < 0)
			goto out;
	if (shared) {
		shared->bytes += u.total;
		shared->entries += u.nents;
	}
	rc = 0;
out:
	if (rc < 0)
		uz_take_back(&u);
	for (i = 0; i < u.nmade; i++)
		free(u.made[i]);
	free(u.made);
	if (u.tmp) {
		remove_tree(u.tmp);
		free(u.tmp);
	}
	for (i = 0; i < u.nents; i++)
		free(u.ents[i].name);
	free(u.ents);
	if (u.za)
		zip_discard(u.za);
	free(dest);
	return rc;
}
