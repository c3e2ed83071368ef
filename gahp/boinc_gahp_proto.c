/*
 * The GAHP line grammar: arguments separated by spaces, a backslash making
 * the next character literal, on the way in and on the way out. Every
 * argument the gahp prints goes through gahp_escape(), so a job name or an
 * error message with spaces stays one token for the gridmanager.
 */
#include "boinc_gahp.h"
#include "field.h"

int gahp_split(char *line, char ***argvp)
{
	size_t cap = 16, n = 0;
	char **v = xmalloc(cap * sizeof(*v));
	char *r = line, *w = line;

	for (;;) {
		char *start;
		bool end;

		while (*r == ' ')
			r++;
		if (!*r)
			break;
		start = w;
		while (*r && *r != ' ') {
			if (*r == '\\') {
				if (!r[1]) {
					free(v);
					return -1;
				}
				r++;
			}
			*w++ = *r++;
		}
		end = !*r;
		if (!end)
			r++;
		*w++ = '\0';
		if (n + 1 >= cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = start;
		if (end)
			break;
	}
	v[n] = NULL;
	*argvp = v;
	return (int)n;
}

void gahp_escape(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\\' || *s == '\r' || *s == '\n')
			sbuf_addch(b, '\\');
		sbuf_addch(b, *s);
	}
}

void gahp_token(struct sbuf *b, const char *s)
{
	sbuf_addch(b, ' ');
	gahp_escape(b, s);
}

void gahp_error(struct sbuf *b, const char *auth, const char *fmt, ...)
{
	struct sbuf m = SBUF_INIT(64 * 1024);
	va_list ap;
	char *p;
	size_t i;

	va_start(ap, fmt);
	if (sbuf_vaddf(&m, fmt, ap) < 0)
		sbuf_addstr(&m, "error message too long");
	va_end(ap);
	if (m.len == 0)
		sbuf_addstr(&m, "unknown error");
	p = m.buf;
	if (auth && *auth) {
		size_t alen = strlen(auth);
		char *hit;

		while ((hit = strstr(p, auth)) != NULL)
			memset(hit, '*', alen);
	}
	for (i = 0; i < m.len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			p[i] = ' ';
	/* trailing blanks would be invisible yet part of the token */
	while (m.len > 0 && p[m.len - 1] == ' ')
		sbuf_truncate(&m, m.len - 1);
	gahp_token(b, sbuf_str(&m));
	sbuf_release(&m);
}

bool gahp_is_reqid(const char *s)
{
	size_t i;
	bool nonzero = false;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (s[i] != '0')
			nonzero = true;
	}
	return i >= 1 && i <= 18 && nonzero;
}

int gahp_parse_count(const char *s, long *n)
{
	size_t i;
	long v = 0;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 9)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (i == 0)
		return -1;
	*n = v;
	return 0;
}

int gahp_want_args(int argc, int n, bool at_least, const char *use, struct sbuf *why)
{
	if (argc == n || (at_least && argc > n))
		return 0;
	sbuf_addf(why, "%s arguments: want %s", argc < n ? "too few" : "too many", use);
	return -1;
}

/* what 's' (quoted, shortened) for a message */
static void quoted(struct sbuf *why, const char *what, const char *s)
{
	sbuf_addf(why, "%s '", what);
	field_quote(why, s, 32);
	sbuf_addch(why, '\'');
}

int gahp_want_reqid(const char *s, struct sbuf *why)
{
	if (gahp_is_reqid(s))
		return 0;
	quoted(why, "request id", s);
	sbuf_addstr(why, " is not 1 to 18 digits, not all zero");
	return -1;
}

int gahp_want_count(const char *what, const char *s, long *n, struct sbuf *why)
{
	if (gahp_parse_count(s, n) == 0)
		return 0;
	quoted(why, what, s);
	sbuf_addstr(why, " is not a count (1 to 9 digits)");
	return -1;
}

int gahp_want_number(const char *what, const char *s, double max, bool null_ok, double *v,
		     struct sbuf *why)
{
	if (null_ok && strcmp(s, "NULL") == 0) {
		*v = 0;
		return 0;
	}
	return field_double(what, s, 0, max, 0, v, why) == FIELD_OK ? 0 : -1;
}
