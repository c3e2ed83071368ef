/*
 * Signal setup, one way for every program that links lib/: the daemon
 * skeleton, the web programs' FastCGI loop and the sweep programs. Without
 * SA_RESTART a caught signal cuts a sleep or a blocking read short, which is
 * how a stop request reaches a waiting loop.
 */
#ifndef WSEQ_SIG_H
#define WSEQ_SIG_H

#include "common.h"

#include <signal.h>

/*
 * Set handler (a function, SIG_IGN or SIG_DFL) for each of the n signals of
 * sigs, with flags as sa_flags and nothing blocked beyond the signal itself.
 * old, when not NULL, receives the n actions there were. 0, or -1 with errno
 * set at the first that failed.
 */
int sig_set(const int *sigs, size_t n, void (*handler)(int), int flags, struct sigaction *old);
/* The same for a list written out: SIG_SET(on_stop, 0, SIGTERM, SIGINT). */
#define SIG_SET(handler, flags, ...)                                                \
	sig_set((const int[]){ __VA_ARGS__ }, ARRAY_SIZE(((const int[]){ __VA_ARGS__ })), \
		(handler), (flags), NULL)
/* The n actions of sigs now, into old. */
void sig_save(const int *sigs, size_t n, struct sigaction *old);
/* Put back the n actions sig_set or sig_save saved. */
void sig_restore(const int *sigs, size_t n, const struct sigaction *old);

#endif
