/* Logging; see log.h. */
#include "log.h"
#include "sbuf.h"
#include "wtime.h"

#include <fcntl.h>
#include <sys/time.h>

#define MAX_SECRETS 32
#define MAX_LINE 16384

static char progname[64] = "wseq";
static int log_fd = 2;
static int level = LOG_LVL_INFO;
static char *secrets[MAX_SECRETS];
static int nsecrets;

int log_init(const char *name, const char *path)
{
	const char *slash = strrchr(name, '/');

	wstrlcpy(progname, slash ? slash + 1 : name, sizeof(progname));
	if (log_fd > 2)
		close(log_fd);
	log_fd = 2;
	if (path && *path && strcmp(path, "-") != 0) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return log_error("cannot open log file %s: %s", path, strerror(errno));
		log_fd = fd;
	}
	return 0;
}

void log_close(void)
{
	if (log_fd > 2)
		close(log_fd);
	log_fd = 2;
	while (nsecrets > 0)
		free(secrets[--nsecrets]);
}

void log_set_level(int l)
{
	level = l < LOG_LVL_ERROR ? LOG_LVL_ERROR : l > LOG_LVL_DEBUG ? LOG_LVL_DEBUG : l;
}

int log_get_level(void)
{
	return level;
}

void log_add_secret(const char *s)
{
	int i;

	if (!s || strlen(s) < 6)
		return;
	for (i = 0; i < nsecrets; i++)
		if (strcmp(secrets[i], s) == 0)
			return;
	if (nsecrets < MAX_SECRETS)
		secrets[nsecrets++] = xstrdup(s);
}

static void redact(struct sbuf *b)
{
	int i;

	for (i = 0; i < nsecrets; i++) {
		size_t slen = strlen(secrets[i]);
		char *p;

		while ((p = strstr(b->buf, secrets[i])) != NULL) {
			size_t off = (size_t)(p - b->buf);
			struct sbuf t = SBUF_INIT(MAX_LINE + 64);

			sbuf_add(&t, b->buf, off);
			sbuf_addstr(&t, "[secret]");
			sbuf_addstr(&t, p + slen);
			sbuf_release(b);
			*b = t;
		}
	}
}

static void emit(const char *tag, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
static void emit(const char *tag, const char *fmt, va_list ap)
{
	struct sbuf b = SBUF_INIT(MAX_LINE);
	struct timeval tv;
	struct tm tm;
	char stamp[32];
	int saved = errno;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	sbuf_addf(&b, "%s.%03d %s[%d] %s: ", stamp, (int)(tv.tv_usec / 1000),
		  progname, (int)getpid(), tag);
	if (sbuf_vaddf(&b, fmt, ap) < 0)
		sbuf_addstr(&b, "(message too long)");
	redact(&b);
	if (b.len && b.buf[b.len - 1] != '\n')
		sbuf_addch(&b, '\n');
	if (write(log_fd, b.buf, b.len) < 0) {
		/* nowhere left to report it */
	}
	sbuf_release(&b);
	errno = saved;
}

#define LOG_BODY(lvl, tag)                      \
	do {                                    \
		va_list ap;                     \
		if (level < (lvl))              \
			break;                  \
		va_start(ap, fmt);              \
		emit(tag, fmt, ap);             \
		va_end(ap);                     \
	} while (0)

int log_error(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERROR, "error");
	return -1;
}

int log_warn(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERROR, "warning");
	return -1;
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_INFO, "info");
}

void log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_DEBUG, "debug");
}

void log_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("fatal", fmt, ap);
	va_end(ap);
	exit(1);
}
