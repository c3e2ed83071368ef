/*
 * The two texts the embedded HTTP server (serve_http.h) must read that a
 * stranger or a handler wrote: the request target as it came off the
 * wire (split into the CGI variables PATH_INFO and QUERY_STRING), and the
 * CGI reply a handler wrote to serve_out() (a "Status:" line, headers, a
 * blank line, the body), turned into what an HTTP response is made of.
 * Pure functions, no sockets: test/fuzz/fuzz_serve_http.c runs them on
 * anything.
 */
#ifndef WSEQ_SERVE_HTTP_MSG_H
#define WSEQ_SERVE_HTTP_MSG_H

#include "common.h"
#include "sbuf.h"

/* At most this many header lines in a handler's reply. */
#define SERVE_HTTP_MAX_HEADERS 64

/*
 * The request target uri ("/sweep/task?sessionID=..."), served under
 * script_name ("" for the root, or "/sweep"): *path_info the percent-decoded
 * path after script_name ("/task", or "" when the target is script_name
 * itself), *query what follows the first '?', as sent ("" when none);
 * free both. Returns 0, 404 when the target is not under script_name, 400
 * when it is malformed (not starting with '/', a bad escape, a control
 * byte, sent or escaped), with the reason in why.
 */
int serve_http_target(const char *uri, const char *script_name, char **path_info, char **query,
		      struct sbuf *why);

struct serve_http_header {
	char *name, *value;
};

/* A handler's reply, as serve_http_reply_parse() reads it. */
struct serve_http_reply {
	int status;                     /* "Status: 404 ...", 302 for a bare Location, else 200 */
	struct serve_http_header *h;    /* the headers to send, in order */
	size_t nh;
	size_t body;                    /* the body's offset in the text */
	bool has_type;                  /* a Content-Type was among them */
};

/*
 * Read the CGI reply text[0..len): header lines ending in "\r\n" or "\n",
 * then an empty line, then the body. The Status line and the headers HTTP
 * makes itself (Content-Length, Connection, Transfer-Encoding) are not
 * kept. 0, or -1 with the reason in why (no blank line, a line that is not
 * "Name: value", a bad status, too many headers): the handler is at fault,
 * and the client gets a 500.
 */
int serve_http_reply_parse(const char *text, size_t len, struct serve_http_reply *rp,
			   struct sbuf *why);
void serve_http_reply_release(struct serve_http_reply *rp);

#endif
