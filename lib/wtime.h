/*
 * The one clock of all server code. Tests and the simulator shift it to run
 * hours of deadlines in seconds: in-process with wtime_shift(), or for whole
 * programs (daemons, CGI) through WSEQ_TIME_OFFSET in the environment or a
 * file named by WSEQ_TIME_OFFSET_FILE (its first number, in seconds).
 */
#ifndef WSEQ_WTIME_H
#define WSEQ_WTIME_H

#include "common.h"

time_t now(void);
double dnow(void);
/* Add delta seconds to every later now()/dnow() of this process. */
void wtime_shift(double delta);
/* Forget any offset (and re-read the environment at the next call). */
void wtime_reset(void);

#endif
