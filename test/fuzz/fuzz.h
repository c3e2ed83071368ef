/*
 * What the libFuzzer targets (test/fuzz/fuzz_*.c) share. Each target is
 * LLVMFuzzerTestOneInput() around one parser of untrusted bytes, linked
 * with the same libraries the programs use. Under `make fuzz` (configure
 * --enable-fuzz, clang) libFuzzer's main() drives it; in the normal build
 * replay.c's main() runs it over the corpus files, so `make check` replays
 * every corpus -- and every input a fuzzer once crashed on -- under gcc's
 * sanitizers. doc/fuzzing.md says how to run them.
 */
#ifndef WSEQ_FUZZ_H
#define WSEQ_FUZZ_H

#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Once per process: the log goes to /dev/null (to stderr when WSEQ_FUZZ_LOG
 * is set, for looking at one input), so millions of refusals cost little.
 */
void fuzz_setup(void);

/* The input as a NUL-terminated string (it may hold NULs of its own); free(). */
char *fuzz_cstr(const uint8_t *data, size_t size);

/*
 * Two parsers in one target: the first byte picks which (even: even(), odd:
 * odd()); the rest is the input. An empty input runs neither.
 */
void fuzz_two_ways(const uint8_t *data, size_t size, void (*even)(const char *, size_t),
		   void (*odd)(const char *, size_t));

/*
 * A private scratch directory under $TMPDIR (default /dev/shm, where fsync
 * costs nothing, else /tmp), made on first use and removed at exit.
 */
const char *fuzz_scratch_dir(void);
/* Remove everything below dir, keeping dir itself. */
void fuzz_rm_below(const char *dir);

/* A property of the parser that failed: report it and abort (a libFuzzer crash). */
#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)
NORETURN void fuzz_fail(const char *file, int line, const char *what);

#endif
