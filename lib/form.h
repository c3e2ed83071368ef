/*
 * HTML form bodies as BOINC's remote submission clients send them: the C
 * client (and boinc_gahp) as multipart/form-data with the XML request in the
 * field "request" and files in parts file_0, file_1, ...; BOINC's Python
 * client as application/x-www-form-urlencoded. Parts point into the body
 * (multipart) or own a decoded copy (urlencoded); the body must outlive the
 * form.
 */
#ifndef WSEQ_FORM_H
#define WSEQ_FORM_H

#include "common.h"
#include "sbuf.h"

struct form_part {
	char *name;             /* the field's name */
	char *filename;         /* a file part's filename, else NULL */
	const char *data;
	size_t len;
	char *owned;            /* data when decoded (urlencoded), freed with the form */
};

struct form {
	struct form_part *parts;
	size_t n;
};

#define FORM_MAX_PARTS 100000
/* A field's name: at most this many characters of UTF-8, no control characters. */
#define FORM_NAME_MAX 256

/*
 * Parse body (len bytes) sent with Content-Type content_type. 0, or -1 with
 * the reason in err (truncated or malformed body, unknown content type, too
 * many parts, a field name that is not FORM_NAME_MAX characters of text). A
 * file part's filename, only ever shown, is cut and cleaned to fit as well.
 */
int form_parse(const char *content_type, const char *body, size_t len, struct form *f,
	       struct sbuf *err);
/*
 * The same for the first len bytes of a longer body: the parts they hold
 * whole, and the one they end in as far as it goes (a multipart part whose
 * headers are cut short is left out). For a look at a body before the rest
 * of it is read.
 */
int form_parse_head(const char *content_type, const char *head, size_t len, struct form *f,
		    struct sbuf *err);
/* Also for a query string (GET): name=value&... */
int form_parse_query(const char *query, struct form *f, struct sbuf *err);
/*
 * A CGI request's body: CONTENT_LENGTH bytes read from standard input, all
 * of them (NUL-terminated after them); NULL with the reason in why when the
 * length is missing, not a number, above max, or the body is cut short.
 */
char *form_read_body(long max, size_t *len, struct sbuf *why);
/* The same from any stream: content_length as given, rd reading up to n bytes (<= 0: no more). */
char *form_read_body_from(const char *content_length, long max,
			  long (*rd)(void *arg, char *buf, size_t n), void *arg, size_t *len,
			  struct sbuf *why);
/*
 * A body longer than head bytes is read in two steps: its first head bytes,
 * handed to check (with the whole body's length), and the rest only when
 * check returns 0 -- so that a body from someone not yet known costs the
 * reader at most head bytes. check's -1 leaves its reason in why.
 */
struct form_gate {
	long head;
	int (*check)(void *arg, const char *head, size_t len, long total, struct sbuf *why);
	void *arg;
};
/* form_read_body_from() through a gate (NULL: none); NULL also when the gate refused. */
char *form_read_body_gated(const char *content_length, long max, const struct form_gate *gate,
			   long (*rd)(void *arg, char *buf, size_t n), void *arg, size_t *len,
			   struct sbuf *why);
/* The first part called name, or NULL. */
const struct form_part *form_get(const struct form *f, const char *name);
/* Its value as an allocated string (NULL if absent or containing NUL). */
char *form_value(const struct form *f, const char *name);
void form_release(struct form *f);

#endif
