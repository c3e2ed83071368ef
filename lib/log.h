/*
 * Logging for every wseq program: one destination chosen at start (stderr or
 * a log file), a level, timestamps and the program name on every line.
 * Registered secrets (authenticators, passwords) are blanked out of every
 * message before it is written, so a careless format cannot leak them.
 */
#ifndef WSEQ_LOG_H
#define WSEQ_LOG_H

#include "common.h"

enum log_level {
	LOG_LVL_ERROR = 1,      /* -d 1: errors and warnings */
	LOG_LVL_INFO = 2,       /* -d 2: the default */
	LOG_LVL_DEBUG = 3,      /* -d 3: everything */
};

/* path NULL or "-" logs to stderr; returns -1 if the file cannot be opened (then stderr). */
int log_init(const char *progname, const char *path);
void log_set_level(int level);
int log_get_level(void);
/* Never write s (at least 6 bytes long) into the log; it shows as "[secret]". */
void log_add_secret(const char *s);
void log_close(void);

int log_error(const char *fmt, ...) PRINTF_LIKE(1, 2);   /* returns -1 */
int log_warn(const char *fmt, ...) PRINTF_LIKE(1, 2);    /* returns -1 */
void log_info(const char *fmt, ...) PRINTF_LIKE(1, 2);
void log_debug(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Only main() and the daemon skeleton may call this: logs and exits(1). */
NORETURN void log_fatal(const char *fmt, ...) PRINTF_LIKE(1, 2);

#endif
