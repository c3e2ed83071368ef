/*
 * What the two halves of wseq_submit's reader share: wseq_submit_desc.c
 * (submit descriptions: commands, macros, queue) and wseq_submit_words.c
 * (splitting words: HTCondor's arguments syntaxes, lists, job list lines).
 */
#ifndef WSEQ_SUBMIT_DESC_INT_H
#define WSEQ_SUBMIT_DESC_INT_H

#include "wseq_submit_desc.h"

/* A growing vector of allocated strings. */
struct strv {
	char **v;
	size_t n, cap;
};

void desc_strv_push(struct strv *s, char *p);
void desc_strv_free(char **v, size_t n);

/* The commands a description may give; the last group is taken and ignored. */
enum cmd {
	C_EXECUTABLE, C_ARGUMENTS, C_INPUTS, C_OUTPUTS, C_REMAPS, C_INPUT, C_OUTPUT, C_ERROR,
	C_LOG, C_INITIALDIR, C_GRID_RESOURCE, C_AUTH_FILE,
	A_APP, A_SEQUENCE, A_PROJECT, A_AUTH_FILE, A_BATCH, A_FPOPS_EST, A_FPOPS_BOUND,
	A_MEM_BOUND, A_DISK_BOUND, A_DELAY_BOUND, A_APP_VERSION,
	C_IGNORED,
	NCMDS
};

struct parser {
	const struct desc_opts *o;
	struct sbuf *err;
	char *val[NCMDS];
	long line[NCMDS];
	long max_jobs;
	struct submit_desc *d;
	size_t cap;
};

/* Append "FILE:LINE: " and the message to the parser's error; returns -1. */
int desc_perr(struct parser *p, long line, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Start p on text (what: "a submit description", "a job list", for errors): 0 or -1 (err). */
int desc_parser_start(struct parser *p, const struct desc_opts *o, const char *text, size_t len,
		      struct submit_desc *d, struct sbuf *err, const char *what);
bool desc_blank(char c);
/* s without leading and trailing blanks (in place). */
char *desc_trim(char *s);
/* "a, b ,c" -> a b c (empty items dropped); sep is the separator. */
void desc_split_list(const char *v, char sep, struct strv *out);
/* A new job at the end of the list (its proc the next number), or NULL past the limit. */
struct desc_job *desc_new_job(struct parser *p, long line);

#endif
