/* Sending one message through SMTP with libcurl; see mail.h. */
#include "mail.h"
#include "fileutil.h"
#include "log.h"
#include "sbuf.h"

#include <curl/curl.h>

#define MAIL_MAX (1L << 20)

bool mail_addr_ok(const char *a)
{
	const char *at = a ? strchr(a, '@') : NULL;

	if (!at || at == a || !at[1] || strchr(at + 1, '@') || strlen(a) > 254)
		return false;
	for (; *a; a++)
		if ((unsigned char)*a <= ' ' || *a == 0x7f || strchr("<>\"(),;:\\[]", *a))
			return false;
	return true;
}

/* A header value: any control character (CR, LF, TAB, NUL...) refuses it. */
static bool header_ok(const char *what, const char *s)
{
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f) {
			log_error("mail: the %s holds a control character: refused", what);
			return false;
		}
	return true;
}

static bool ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static void base64(struct sbuf *b, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		sbuf_addch(b, t[p[i] >> 2]);
		sbuf_addch(b, t[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		sbuf_addch(b, t[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)]);
		sbuf_addch(b, t[p[i + 2] & 63]);
	}
	if (n - i == 1) {
		sbuf_addch(b, t[p[i] >> 2]);
		sbuf_addch(b, t[(p[i] & 3) << 4]);
		sbuf_addstr(b, "==");
	} else if (n - i == 2) {
		sbuf_addch(b, t[p[i] >> 2]);
		sbuf_addch(b, t[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		sbuf_addch(b, t[(p[i + 1] & 15) << 2]);
		sbuf_addch(b, '=');
	}
}

/* A header's text: as it is if ASCII, else one RFC 2047 encoded word. */
static void header_text(struct sbuf *b, const char *s)
{
	if (ascii(s)) {
		sbuf_addstr(b, s);
		return;
	}
	sbuf_addstr(b, "=?UTF-8?B?");
	base64(b, (const unsigned char *)s, strlen(s));
	sbuf_addstr(b, "?=");
}

static void add_date_and_id(struct sbuf *b, const char *from, time_t t)
{
	struct tm tm;
	char d[64], r[33];
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					      "Aug", "Sep", "Oct", "Nov", "Dec" };

	gmtime_r(&t, &tm);
	/* RFC 5322 3.3, written without the locale */
	snprintf(d, sizeof(d), "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (random_hex(r, 16) < 0)
		snprintf(r, sizeof(r), "%lld", (long long)t);
	sbuf_addf(b, "Date: %s\r\nMessage-ID: <%lld.%s%s>\r\n", d, (long long)t, r,
		  strchr(from, '@'));
}

static void add_body(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\r')
			continue;
		if (*s == '\n')
			sbuf_addch(b, '\r');
		sbuf_addch(b, *s);
	}
	if (b->len < 2 || b->buf[b->len - 1] != '\n')
		sbuf_addstr(b, "\r\n");
}

char *mail_format(const struct mail_msg *m, time_t t)
{
	struct sbuf b = SBUF_INIT(MAIL_MAX);
	const char *name = m->from_name ? m->from_name : "";

	if (!mail_addr_ok(m->from) || !mail_addr_ok(m->to)) {
		log_error("mail: a bad address (from or to): refused");
		return NULL;
	}
	if (!header_ok("sender's name", name) || !header_ok("subject", m->subject))
		return NULL;
	add_date_and_id(&b, m->from, t);
	sbuf_addstr(&b, "From: ");
	if (*name) {
		header_text(&b, name);
		sbuf_addch(&b, ' ');
	}
	sbuf_addf(&b, "<%s>\r\nTo: <%s>\r\nSubject: ", m->from, m->to);
	header_text(&b, m->subject);
	sbuf_addstr(&b, "\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n"
			"Content-Transfer-Encoding: 8bit\r\nAuto-Submitted: auto-generated\r\n\r\n");
	add_body(&b, m->body);
	if (b.len >= MAIL_MAX - 1) {
		sbuf_release(&b);
		log_error("mail: the message is too long");
		return NULL;
	}
	return sbuf_detach(&b, NULL);
}

struct reader {
	const char *p;
	size_t left;
};

static size_t read_cb(char *buf, size_t size, size_t n, void *arg)
{
	struct reader *r = arg;
	size_t k = size * n < r->left ? size * n : r->left;

	memcpy(buf, r->p, k);
	r->p += k;
	r->left -= k;
	return k;
}

static int transfer(const char *server, const struct mail_msg *m, const char *text)
{
	CURL *c = curl_easy_init();
	struct curl_slist *rcpt = NULL;
	struct reader r = { text, strlen(text) };
	char err[CURL_ERROR_SIZE] = "";
	char *from = xasprintf("<%s>", m->from), *to = xasprintf("<%s>", m->to);
	CURLcode rc;

	if (!c) {
		free(from);
		free(to);
		return log_error("mail: cannot start libcurl");
	}
	rcpt = curl_slist_append(rcpt, to);
	curl_easy_setopt(c, CURLOPT_URL, server);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &r);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)MAIL_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	rc = curl_easy_perform(c);
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	free(from);
	free(to);
	if (rc != CURLE_OK)
		return log_error("mail: cannot send through %s: %s", server,
				 *err ? err : curl_easy_strerror(rc));
	return 0;
}

int mail_send(const struct mail_msg *m)
{
	const char *server = m->server && *m->server ? m->server : MAIL_SERVER_DEFAULT;
	char *text;
	int rc;

	if (strncmp(server, "smtp://", 7) && strncmp(server, "smtps://", 8))
		return log_error("mail: mail_server must start with smtp:// or smtps:// (got '%s')",
				 server);
	text = mail_format(m, time(NULL));
	if (!text)
		return -1;
	rc = transfer(server, m, text);
	if (rc == 0)
		log_info("mail: a message sent through %s", server);
	free(text);
	return rc;
}
