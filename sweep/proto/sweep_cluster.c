/*
 * Cluster file reader. Host names are checked strictly because they end up
 * on ssh's command line: a name may not start with '-', and user names are
 * POSIX portable names.
 */
#include "sweep_cluster.h"
#include "sweep_util.h"

#include <arpa/inet.h>

#define SHOW 64         /* bytes of a bad token quoted in an error */

static bool user_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!sweep_is_name_char((unsigned char)s[i]) && s[i] != '.' && s[i] != '-')
			return false;
	return true;
}

static bool hostname_ok(const char *s)
{
	size_t n = strlen(s), label = 0, i;

	if (!n || n > 253 || s[0] == '-' || s[0] == '.')
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '.') {
			if (!label)
				return false;
			label = 0;
		} else if (sweep_is_name_char((unsigned char)c) || c == '-') {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

static bool all_digits_and_dots(const char *s)
{
	for (; *s; s++)
		if (*s != '.' && (*s < '0' || *s > '9'))
			return false;
	return true;
}

/* An IPv6 address, optionally with a %zone. */
static bool ipv6_ok(const char *s)
{
	struct in6_addr a;
	const char *pct = strchr(s, '%');
	char *addr;
	bool ok;

	if (pct && (!pct[1] || !hostname_ok(pct + 1)))
		return false;
	addr = pct ? xstrndup(s, (size_t)(pct - s)) : xstrdup(s);
	ok = inet_pton(AF_INET6, addr, &a) == 1;
	free(addr);
	return ok;
}

static int parse_port(const char *name, int line, const char *s, int *port, struct sbuf *err)
{
	long v;

	if (sweep_parse_bounded(s, 1, 65535, &v) < 0)
		return sweep_fail(err, "%s:%d: bad port '%.*s'", name, line, SHOW, s);
	*port = (int)v;
	return 0;
}

/* "N/" before a host: its job count (GNU parallel's -S N/host); *tok moves past it. */
static int parse_jobs(const char *name, int line, const char **tok, int *jobs, struct sbuf *err)
{
	const char *slash = strchr(*tok, '/');
	char *n;
	long v = 0;
	int rc = 0;

	*jobs = -1;
	if (!slash)
		return 0;
	n = xstrndup(*tok, (size_t)(slash - *tok));
	if (sweep_parse_bounded(n, 0, SWEEP_JOBS_MAX, &v) < 0)
		rc = sweep_fail(err, "%s:%d: bad job count '%.*s' (N/host: 0 to %d)", name, line,
				SHOW, n, SWEEP_JOBS_MAX);
	free(n);
	*jobs = (int)v;
	*tok = slash + 1;
	return rc;
}

/* Parse one host token (no spaces, no comment) into h. */
static int parse_host(const char *name, int line, const char *tok, struct sweep_host *h,
		      struct sbuf *err)
{
	const char *at, *rest, *colon;
	char *host = NULL;

	h->port = SWEEP_SSH_PORT;
	h->line = line;
	if (parse_jobs(name, line, &tok, &h->jobs, err) < 0)
		return -1;
	at = strchr(tok, '@');
	rest = tok;
	if (at) {
		if (!user_ok(tok, (size_t)(at - tok)))
			return sweep_fail(err, "%s:%d: bad user name '%.*s'", name, line,
					  (int)(at - tok < SHOW ? at - tok : SHOW), tok);
		h->user = xstrndup(tok, (size_t)(at - tok));
		rest = at + 1;
		if (strchr(rest, '@'))
			return sweep_fail(err, "%s:%d: more than one '@' in '%.*s'", name, line, SHOW, tok);
	}
	if (rest[0] == '[') {
		const char *close = strchr(rest, ']');

		if (!close)
			return sweep_fail(err, "%s:%d: no ']' after '[' in '%.*s'", name, line, SHOW, tok);
		host = xstrndup(rest + 1, (size_t)(close - rest - 1));
		h->host = host;
		if (!ipv6_ok(host))
			return sweep_fail(err, "%s:%d: bad IPv6 address '%.*s'", name, line, SHOW, host);
		if (close[1] == ':')
			return parse_port(name, line, close + 2, &h->port, err);
		if (close[1])
			return sweep_fail(err, "%s:%d: text after ']' in '%.*s'", name, line, SHOW, tok);
		return 0;
	}
	colon = strchr(rest, ':');
	if (colon && strchr(colon + 1, ':')) {
		/* Two or more colons: a bare IPv6 address, no port. */
		h->host = xstrdup(rest);
		if (!ipv6_ok(rest))
			return sweep_fail(err, "%s:%d: bad IPv6 address '%.*s' (write [address]:port to give a port)",
					  name, line, SHOW, rest);
		return 0;
	}
	h->host = host = colon ? xstrndup(rest, (size_t)(colon - rest)) : xstrdup(rest);
	if (!*host)
		return sweep_fail(err, "%s:%d: no host name in '%.*s'", name, line, SHOW, tok);
	if (all_digits_and_dots(host)) {
		struct in_addr a;

		if (inet_pton(AF_INET, host, &a) != 1)
			return sweep_fail(err, "%s:%d: bad IPv4 address '%.*s'", name, line, SHOW, host);
	} else if (!hostname_ok(host)) {
		return sweep_fail(err, "%s:%d: bad host name '%.*s'", name, line, SHOW, host);
	}
	if (colon)
		return parse_port(name, line, colon + 1, &h->port, err);
	return 0;
}

static void host_release(struct sweep_host *h)
{
	free(h->user);
	free(h->host);
	h->user = h->host = NULL;
}

int sweep_cluster_parse(const char *name, const char *buf, size_t len, struct sweep_cluster *c,
			struct sbuf *err)
{
	struct sweep_lines it;
	const char *line;
	size_t n, alloc = 0, i;

	c->hosts = NULL;
	c->n = 0;
	sweep_lines_init(&it, buf, len);
	while (sweep_lines_next(&it, &line, &n)) {
		const char *hash;
		struct sweep_host h = { NULL, NULL, 0, 0, -1 };
		char *tok;

		if (memchr(line, '\0', n)) {
			sweep_fail(err, "%s:%d: NUL byte in the line", name, it.lineno);
			goto fail;
		}
		hash = memchr(line, '#', n);
		if (hash)
			n = (size_t)(hash - line);
		sweep_trim(&line, &n);
		if (!n)
			continue;
		if (memchr(line, ' ', n) || memchr(line, '\t', n)) {
			sweep_fail(err, "%s:%d: one host a line, not '%.*s'", name, it.lineno,
				   (int)(n < SHOW ? n : SHOW), line);
			goto fail;
		}
		tok = xstrndup(line, n);
		if (parse_host(name, it.lineno, tok, &h, err) < 0) {
			free(tok);
			host_release(&h);
			goto fail;
		}
		free(tok);
		for (i = 0; i < c->n; i++) {
			if (c->hosts[i].port == h.port && !strcasecmp(c->hosts[i].host, h.host)) {
				sweep_fail(err, "%s:%d: duplicate host '%s' (also on line %d)", name,
					   it.lineno, h.host, c->hosts[i].line);
				host_release(&h);
				goto fail;
			}
		}
		if (c->n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			c->hosts = xrealloc(c->hosts, alloc * sizeof(*c->hosts));
		}
		c->hosts[c->n++] = h;
	}
	if (!c->n) {
		sweep_fail(err, "%s: no hosts", name);
		goto fail;
	}
	return 0;
fail:
	sweep_cluster_release(c);
	return -1;
}

int sweep_cluster_read(const char *path, struct sweep_cluster *c, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT(SWEEP_CLUSTER_MAX);
	int rc;

	c->hosts = NULL;
	c->n = 0;
	if (sweep_read_file(path, SWEEP_CLUSTER_MAX, &b, err) < 0) {
		sbuf_release(&b);
		return -1;
	}
	rc = sweep_cluster_parse(path, b.buf, b.len, c, err);
	sbuf_release(&b);
	return rc;
}

void sweep_cluster_release(struct sweep_cluster *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		host_release(&c->hosts[i]);
	free(c->hosts);
	c->hosts = NULL;
	c->n = 0;
}

int sweep_host_format(const struct sweep_host *h, struct sbuf *out)
{
	bool v6 = strchr(h->host, ':') != NULL;
	int rc = 0;

	if (h->user)
		rc |= sbuf_addf(out, "%s@", h->user);
	if (v6 && h->port != SWEEP_SSH_PORT)
		rc |= sbuf_addf(out, "[%s]", h->host);
	else
		rc |= sbuf_addstr(out, h->host);
	if (h->port != SWEEP_SSH_PORT)
		rc |= sbuf_addf(out, ":%d", h->port);
	return rc ? -1 : 0;
}
