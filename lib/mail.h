/*
 * Mail: one plain-text message sent through an SMTP server with libcurl
 * (the project's <mail_server>, by default smtp://localhost:25, the MTA of
 * the machine). The headers are built here, so a name or an address that
 * carries CR, LF or another control character is refused before anything
 * is sent (no header injection); Date and Message-ID follow RFC 5322, a
 * non-ASCII subject is RFC 2047 encoded, and the body is sent as UTF-8
 * with its lines ending CRLF.
 */
#ifndef WSEQ_MAIL_H
#define WSEQ_MAIL_H

#include "common.h"

#define MAIL_SERVER_DEFAULT "smtp://localhost:25"
#define MAIL_TIMEOUT 30                 /* seconds for the whole exchange */

struct mail_msg {
	const char *server;             /* smtp://host:port (NULL: MAIL_SERVER_DEFAULT) */
	const char *from;               /* an address: "project@example.org" */
	const char *from_name;          /* shown before it (may be NULL) */
	const char *to;                 /* one address */
	const char *subject;
	const char *body;               /* text, lines ending "\n" */
};

/* An address a header and an SMTP envelope may carry: local@domain, no space, quote,
 * angle bracket or control character. */
bool mail_addr_ok(const char *addr);
/*
 * The message as sent (headers, blank line, body with CRLF line ends), or
 * NULL (logged) if a header value holds a control character or an address
 * is not mail_addr_ok(). Allocated.
 */
char *mail_format(const struct mail_msg *m, time_t t);
/* Send m. 0, else -1 with the reason logged (the server down, refused, a bad header). */
int mail_send(const struct mail_msg *m);

#endif
