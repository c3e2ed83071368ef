/* The sample app's state and delta files; see sample_state.h. */
#include "sample_state.h"

#include <stdlib.h>
#include <string.h>

static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
	snprintf(tmp, len, "%s.tmp", path);
	return fopen(tmp, "wb");
}

static int close_tmp(FILE *fp, const char *tmp, const char *path)
{
	if (fclose(fp) != 0)
		return -1;
	return rename(tmp, path);
}

static int has_magic(FILE *fp, const char *magic)
{
	char buf[32];
	size_t m = strlen(magic);

	return fread(buf, 1, m, fp) == m && !memcmp(buf, magic, m);
}

int sample_state_write(const char *path, const struct state *s)
{
	char tmp[1100];
	FILE *fp = open_tmp(path, tmp, sizeof(tmp));

	if (!fp)
		return -1;
	fputs(STATE_MAGIC, fp);
	fwrite(&s->step, sizeof(s->step), 1, fp);
	fwrite(&s->nwords, sizeof(s->nwords), 1, fp);
	fwrite(s->w, sizeof(uint64_t), s->nwords, fp);
	return close_tmp(fp, tmp, path);
}

int sample_state_read_fp(FILE *fp, struct state *s)
{
	if (!has_magic(fp, STATE_MAGIC))
		return 1;       /* not a state file: plain input */
	s->w = NULL;
	if (fread(&s->step, sizeof(s->step), 1, fp) != 1 ||
	    fread(&s->nwords, sizeof(s->nwords), 1, fp) != 1 || s->nwords == 0 ||
	    s->nwords > MAX_WORDS)
		return -1;
	s->w = malloc(s->nwords * sizeof(uint64_t));
	if (s->w && fread(s->w, sizeof(uint64_t), s->nwords, fp) == s->nwords)
		return 0;
	free(s->w);
	s->w = NULL;
	return -1;
}

int sample_state_read(const char *path, struct state *s)
{
	FILE *fp = fopen(path, "rb");
	int r;

	if (!fp)
		return 1;
	r = sample_state_read_fp(fp, s);
	fclose(fp);
	return r;
}

int sample_delta_write(const char *path, const struct state *full, const struct state *s)
{
	char tmp[1100];
	uint64_t hdr[4] = { full->step, s->step, s->nwords, 0 }, i;
	FILE *fp = open_tmp(path, tmp, sizeof(tmp));

	if (!fp)
		return -1;
	for (i = 0; i < s->nwords; i++)
		hdr[3] += s->w[i] != full->w[i];
	fputs(DELTA_MAGIC, fp);
	fwrite(hdr, sizeof(hdr[0]), 4, fp);
	for (i = 0; i < s->nwords; i++) {
		uint64_t pair[2] = { i, s->w[i] };

		if (s->w[i] != full->w[i])
			fwrite(pair, sizeof(pair[0]), 2, fp);
	}
	return close_tmp(fp, tmp, path);
}

int sample_delta_apply_fp(FILE *fp, struct state *s)
{
	uint64_t hdr[4], pair[2], i;    /* full's step, step, nwords, npairs */

	if (!has_magic(fp, DELTA_MAGIC) || fread(hdr, sizeof(hdr[0]), 4, fp) != 4 ||
	    hdr[0] != s->step || hdr[1] < hdr[0] || hdr[2] != s->nwords || hdr[3] > s->nwords)
		return -1;
	for (i = 0; i < hdr[3]; i++) {
		if (fread(pair, sizeof(pair[0]), 2, fp) != 2 || pair[0] >= s->nwords)
			return -1;
		s->w[pair[0]] = pair[1];
	}
	s->step = hdr[1];
	return 0;
}

int sample_delta_apply(const char *path, struct state *s)
{
	FILE *fp = fopen(path, "rb");
	int r;

	if (!fp)
		return -1;
	r = sample_delta_apply_fp(fp, s);
	fclose(fp);
	return r;
}
