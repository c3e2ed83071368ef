/*
 * The fan-out directory hierarchy of download/ and upload/ (see dirhier.h
 * for the rule and why it must be BOINC's).
 */
#include "common.h"
#include "dirhier.h"
#include "log.h"
#include "md5.h"

bool dirhier_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > DIRHIER_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	if (strstr(name, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p == '\\' || *p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int dirhier_fanout_ok(long fanout, bool zero_ok)
{
	if ((fanout == 0 && zero_ok) || (fanout >= 1 && fanout <= DIRHIER_FANOUT_MAX))
		return 0;
	return log_error("fan-out %ld out of range (1..%ld)", fanout, DIRHIER_FANOUT_MAX);
}

int dirhier_hash(const char *name, long fanout, char out[16])
{
	char md5hex[MD5_HEX_LEN + 1];
	unsigned long x = 0;

	out[0] = '\0';
	if (dirhier_fanout_ok(fanout, false) < 0 || md5_buf(name, strlen(name), md5hex) < 0)
		return -1;
	/* BOINC: strtol(s.substr(1, 7).c_str(), 0, 16); seven digits always fit an int. */
	for (int i = 1; i <= 7; i++) {
		char c = md5hex[i];

		x = x * 16 + (unsigned long)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	/* x < 2^28, so the remainder fits an unsigned int and 7 hex digits. */
	snprintf(out, 16, "%x", (unsigned int)(x % (unsigned long)fanout));
	return 0;
}

/* Length of s without trailing slashes (but keeping a lone "/"). */
static size_t dirhier_trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

int dirhier_path(const char *name, const char *root, long fanout, bool create_dir,
		 struct sbuf *path)
{
	size_t start = path->len;
	char h[16];
	int rootlen = (int)dirhier_trimmed_len(root);

	if (!dirhier_name_ok(name))
		return log_error("file name '%.*s' refused", DIRHIER_NAME_MAX, name);
	if (dirhier_fanout_ok(fanout, true) < 0)
		return -1;
	if (fanout == 0)
		goto name_only;
	if (dirhier_hash(name, fanout, h) < 0)
		return -1;
	if (sbuf_addf(path, "%.*s/%s", rootlen, root, h) < 0)
		goto full;
	if (create_dir && mkdir(sbuf_str(path) + start, 0755) < 0 && errno != EEXIST) {
		log_error("cannot create %s: %s", sbuf_str(path) + start, strerror(errno));
		sbuf_truncate(path, start);
		return -1;
	}
	if (sbuf_addf(path, "/%s", name) < 0)
		goto full;
	return 0;
name_only:
	if (sbuf_addf(path, "%.*s/%s", rootlen, root, name) < 0)
		goto full;
	return 0;
full:
	sbuf_truncate(path, start);
	return log_error("path for %s under %s is too long", name, root);
}

static int dirhier_add_encoded(struct sbuf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int r;

		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			r = sbuf_addch(b, (char)*p);
		else
			r = sbuf_addf(b, "%%%02X", *p);
		if (r < 0)
			return -1;
	}
	return 0;
}

int dirhier_url(const char *name, const char *base_url, long fanout, struct sbuf *url)
{
	size_t start = url->len;
	char h[16];

	if (!dirhier_name_ok(name))
		return log_error("file name '%.*s' refused", DIRHIER_NAME_MAX, name);
	if (dirhier_fanout_ok(fanout, true) < 0)
		return -1;
	if (sbuf_add(url, base_url, dirhier_trimmed_len(base_url)) < 0 ||
	    sbuf_addch(url, '/') < 0)
		goto full;
	if (fanout > 0) {
		if (dirhier_hash(name, fanout, h) < 0) {
			sbuf_truncate(url, start);
			return -1;
		}
		if (sbuf_addf(url, "%s/", h) < 0)
			goto full;
	}
	if (dirhier_add_encoded(url, name) < 0)
		goto full;
	return 0;
full:
	sbuf_truncate(url, start);
	return log_error("url for %s under %s is too long", name, base_url);
}

int dirhier_make_dirs(const char *root, long fanout, mode_t mode)
{
	struct sbuf path = SBUF_INIT(PATH_MAX);
	int rootlen = (int)dirhier_trimmed_len(root);
	int ret = 0;

	if (dirhier_fanout_ok(fanout, true) < 0)
		return -1;
	for (long i = 0; i < fanout && ret == 0; i++) {
		struct stat st;
		const char *p;

		sbuf_reset(&path);
		if (sbuf_addf(&path, "%.*s/%lx", rootlen, root, (unsigned long)i) < 0) {
			ret = log_error("%s is too long a directory name", root);
			break;
		}
		p = sbuf_str(&path);
		if (mkdir(p, mode) == 0) {
			/* Exactly mode, whatever the umask: upload dirs are group-writable. */
			if (chmod(p, mode) < 0)
				ret = log_error("cannot chmod %s: %s", p, strerror(errno));
		} else if (errno != EEXIST) {
			ret = log_error("cannot create %s: %s", p, strerror(errno));
		} else if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			ret = log_error("%s exists and is not a directory", p);
		}
	}
	sbuf_release(&path);
	return ret;
}
