/*
 * Helpers for the sweep unit tests: files of the source tree, and the
 * example blocks of the docs (fenced blocks whose info string names the
 * format, such as ```params), so every example a user reads is parsed.
 */
#ifndef WSEQ_TEST_SWEEP_UTIL_H
#define WSEQ_TEST_SWEEP_UTIL_H

#include "unit.h"
#include "sbuf.h"
#include "fileutil.h"

/* A file of the source tree, read whole (free()). */
static inline char *src_file(const char *rel, size_t *len)
{
	const char *src = getenv("WSEQ_SRCDIR");
	char *path = xasprintf("%s/%s", src ? src : "..", rel);
	struct sbuf b = SBUF_INIT(1 << 24);

	assert_int_equal(read_file(path, 1 << 24, &b), 0);
	free(path);
	if (!b.buf)
		sbuf_addstr(&b, "");
	return sbuf_detach(&b, len);
}

struct doc_block {
	char *text;
	int line;       /* of the opening fence in the doc */
};

/* The blocks fenced as ```kind in a doc; returns how many (blocks: free each text and the array). */
static inline size_t doc_blocks(const char *doc, const char *kind, struct doc_block **blocks)
{
	size_t len, n = 0;
	char *text = src_file(doc, &len);
	char *p = text;
	int line = 1;
	char *fence = xasprintf("```%s\n", kind);

	*blocks = NULL;
	while (*p) {
		char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) + 1 : strlen(p);

		if (!strncmp(p, fence, strlen(fence))) {
			struct sbuf b = SBUF_INIT(1 << 20);
			int start = line;

			p += ll;
			line++;
			while (*p && strncmp(p, "```\n", 4)) {
				eol = strchr(p, '\n');
				ll = eol ? (size_t)(eol - p) + 1 : strlen(p);
				sbuf_add(&b, p, ll);
				p += ll;
				line++;
			}
			*blocks = xrealloc(*blocks, (n + 1) * sizeof(**blocks));
			(*blocks)[n].line = start;
			(*blocks)[n].text = b.buf ? sbuf_detach(&b, NULL) : xstrdup("");
			n++;
			if (!*p)
				break;
			ll = 4;
		}
		p += ll;
		line++;
	}
	free(fence);
	free(text);
	return n;
}

static inline void doc_blocks_free(struct doc_block *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(b[i].text);
	free(b);
}

/* Does err hold exactly want? Prints both on a mismatch. */
#define assert_err(err, want) do { \
	if (strcmp(sbuf_str(err), (want))) \
		fail_msg("error\n  got:  %s\n  want: %s", sbuf_str(err), (want)); \
} while (0)

#endif
