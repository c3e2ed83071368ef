/*
 * The sweep endpoints' base URL: built by the master, checked by the client
 * (sweep_url.h says why it has a path).
 */
#include "sweep_url.h"
#include "sweep_util.h"

#include <ctype.h>

static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '/')
		n--;
	return n;
}

char *sweep_base_url(const char *host, const char *port, const char *path)
{
	bool brackets = strchr(host, ':') && host[0] != '[';
	int n = path ? (int)trimmed_len(path) : 0;

	return xasprintf("http://%s%s%s:%s%.*s", brackets ? "[" : "", host, brackets ? "]" : "",
			 port, n, path ? path : "");
}

char *sweep_endpoint_path(const char *cgi_url)
{
	const char *p = strstr(cgi_url, "://");

	p = p ? strchr(p + 3, '/') : NULL;
	if (!p)
		p = "";
	return xasprintf("%.*s/%s", (int)trimmed_len(p), p, SWEEP_CGI_NAME);
}

int sweep_check_base_url(const char *url, char **out, struct sbuf *err)
{
	const char *host, *end, *p;
	size_t n;

	*out = NULL;
	if (!strncmp(url, "http://", 7))
		host = url + 7;
	else if (!strncmp(url, "https://", 8))
		host = url + 8;
	else
		return sweep_fail(err, "the master's URL must start with http:// or https:// (got '%s')",
				  url);
	for (p = url; *p; p++)
		if (iscntrl((unsigned char)*p) || *p == ' ')
			return sweep_fail(err, "the master's URL has a blank or control character");
	if (strpbrk(url, "?#"))
		return sweep_fail(err, "the master's URL may not have a query or fragment (got '%s')",
				  url);
	end = host + strcspn(host, "/");
	if (memchr(host, '@', (size_t)(end - host)))
		return sweep_fail(err, "the master's URL may not name a user (got '%s')", url);
	if (*host == '[') {
		const char *rb = memchr(host, ']', (size_t)(end - host));

		if (!rb || rb == host + 1 || (rb + 1 != end && rb[1] != ':'))
			return sweep_fail(err, "bad IPv6 address in the master's URL '%s'", url);
		p = rb + 1;
	} else {
		p = memchr(host, ':', (size_t)(end - host));
		if (p == host || (!p && end == host))
			return sweep_fail(err, "no host in the master's URL '%s'", url);
		if (!p)
			p = end;
	}
	if (p < end) {
		long port;
		char digits[8];

		if ((size_t)(end - p - 1) >= sizeof(digits))
			return sweep_fail(err, "bad port in the master's URL '%s'", url);
		memcpy(digits, p + 1, (size_t)(end - p - 1));
		digits[end - p - 1] = '\0';
		if (sweep_parse_bounded(digits, 1, 65535, &port) < 0)
			return sweep_fail(err, "bad port in the master's URL '%s'", url);
	}
	n = trimmed_len(url);
	if (n < (size_t)(end - url))
		n = (size_t)(end - url);
	*out = xstrndup(url, n);
	return 0;
}
