/* Shared helpers of the sweep parsers; see sweep_util.h. */
#include "sweep_util.h"
#include "log.h"

#include <ctype.h>
#include <fcntl.h>

int sweep_fail(struct sbuf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err) {
		if (err->len)
			sbuf_addstr(err, "; ");
		sbuf_vaddf(err, fmt, ap);
	} else {
		struct sbuf b = SBUF_INIT(4096);

		sbuf_vaddf(&b, fmt, ap);
		log_error("%s", sbuf_str(&b));
		sbuf_release(&b);
	}
	va_end(ap);
	return -1;
}

int sweep_read_file(const char *path, size_t max, struct sbuf *out, struct sbuf *err)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return sweep_fail(err, "%s: cannot open: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return sweep_fail(err, "%s: cannot read: %s", path, strerror(e));
		}
		if ((size_t)n > max - out->len || sbuf_add(out, buf, (size_t)n) < 0) {
			close(fd);
			return sweep_fail(err, "%s: larger than %zu bytes", path, max);
		}
	}
	close(fd);
	return 0;
}

void sweep_lines_init(struct sweep_lines *it, const char *buf, size_t len)
{
	it->p = buf;
	it->end = buf ? buf + len : buf;
	it->lineno = 0;
}

bool sweep_lines_next(struct sweep_lines *it, const char **line, size_t *len)
{
	const char *nl;
	size_t n;

	if (!it->p || it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	*line = it->p;
	it->p = nl ? nl + 1 : it->end;
	if (n && (*line)[n - 1] == '\r')
		n--;
	*len = n;
	it->lineno++;
	return true;
}

void sweep_trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

bool sweep_is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool sweep_is_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!sweep_is_name_char((unsigned char)s[i]))
			return false;
	return true;
}

bool sweep_safe_filename(const char *s)
{
	const char *p;
	size_t len = strlen(s);

	if (!len || s[0] == '/' || s[len - 1] == '/' || !strcmp(s, "."))
		return false;
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	for (p = s; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

int sweep_parse_yesno(const char *s, bool *out)
{
	if (!strcasecmp(s, "yes"))
		*out = true;
	else if (!strcasecmp(s, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

int sweep_parse_bounded(const char *s, long lo, long hi, long *out)
{
	const char *p;
	long v;

	if (!*s || strlen(s) > 18)
		return -1;
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	if (parse_long(s, &v) < 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}
