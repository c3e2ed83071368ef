/*
 * GAHP request lines as HTCondor's gridmanager -- or whatever writes to the
 * gahp's stdin -- sends them (gahp/boinc_gahp*.c): the line end and NUL
 * checks of the command loop, the split into arguments with backslash
 * escapes (gahp_split), and each asynchronous command's argument check
 * (the parse function of BOINC_SUBMIT, BOINC_FETCH_OUTPUT, ...), which
 * decides between S and E before anything runs. The input is one or more
 * lines. Properties: escaping the arguments and splitting them again gives
 * the same arguments; an error token built from the line (gahp_error) is
 * one argument without control characters and without the authenticator.
 */
#include "fuzz.h"
#include "boinc_gahp.h"

#define AUTH "0123456789abcdef0123456789abcdef"

static void check_roundtrip(int argc, char **argv)
{
	struct sbuf b = SBUF_INIT(GAHP_MAX_LINE);
	char **again = NULL;
	char *line;
	int i, n;

	for (i = 0; i < argc; i++) {
		if (i)
			sbuf_addch(&b, ' ');
		gahp_escape(&b, argv[i]);
	}
	line = sbuf_detach(&b, NULL);
	if (!line)
		line = xstrdup("");
	n = gahp_split(line, &again);
	FUZZ_CHECK(n == argc);
	for (i = 0; i < argc; i++)
		FUZZ_CHECK(!strcmp(again[i], argv[i]));
	free(again);
	free(line);
}

static void check_error_token(const char *line)
{
	struct sbuf b = SBUF_INIT(GAHP_MAX_LINE);
	char **argv = NULL, *s;
	int n;

	gahp_error(&b, AUTH, "bad line %s (" AUTH ")", line);
	s = sbuf_detach(&b, NULL);
	FUZZ_CHECK(s && s[0] == ' ');
	n = gahp_split(s + 1, &argv);
	FUZZ_CHECK(n == 1);
	FUZZ_CHECK(!strstr(argv[0], AUTH));
	for (const char *p = argv[0]; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	free(argv);
	free(s);
}

static void one_line(char *line, size_t n)
{
	const struct gahp_cmd *cmd;
	char **argv = NULL;
	void *spec = NULL;
	size_t bs = 0;
	int argc;

	/* as the command loop: strip a CR line end, but not an escaped CR */
	while (bs + 1 < n && line[n - 2 - bs] == '\\')
		bs++;
	if (n > 0 && line[n - 1] == '\r' && bs % 2 == 0)
		line[--n] = '\0';
	if (n != strlen(line))
		return;         /* a NUL inside: the loop answers E */
	check_error_token(line);
	argc = gahp_split(line, &argv);
	if (argc <= 0) {
		free(argv);     /* an empty line has an argv; a bad one has none */
		return;
	}
	check_roundtrip(argc, argv);
	if ((cmd = gahp_find_cmd(argv[0])) != NULL) {
		struct sbuf why = SBUF_INIT(64 * 1024);

		if (cmd->parse(argc, argv, &spec, &why) == 0) {
			if (cmd->free_spec)
				cmd->free_spec(spec);
		} else {
			FUZZ_CHECK(why.len > 0);    /* every E says why */
		}
		sbuf_release(&why);
	}
	free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *p = in, *end = in + size;

	fuzz_setup();
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		p[n] = '\0';
		one_line(p, n);
		p += n + 1;
	}
	free(in);
	return 0;
}
