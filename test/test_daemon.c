/*
 * A daemon on the skeleton for tests only (no database): each pass appends
 * "pass N pid P mod N/I start" and "... end" lines to --out, so a test can see
 * passes happen, and options make it report work, fail, take its time over a
 * pass, hold a pass until the test opens a gate (--pass_until FILE: a signal
 * sent before the gate opens surely lands mid-pass), or ignore SIGTERM.
 */
#include "daemon.h"
#include "log.h"

#include <fcntl.h>
#include <signal.h>

struct test_daemon_settings {
	char *out;
	char *pass_until;
	long work;
	long fail;
	double pass_time;
	bool ignore_term;
	bool init_fail;
};

static struct test_daemon_settings settings;

#define T(name, type, field, def, flags, min, max, arg, help) \
	{ name, type, offsetof(struct test_daemon_settings, field), def, flags, min, max, arg, help }

static const struct param test_daemon_params[] = {
	T("out", PARAM_STR, out, NULL, 0, 0, 0, "FILE", "append a line per pass to FILE"),
	T("work", PARAM_INT, work, "0", PARAM_BOUNDED, -1, 1e9, "N",
	  "the first N passes report work (-1: every pass)"),
	T("fail", PARAM_INT, fail, "0", PARAM_BOUNDED, -1, 1e9, "N",
	  "the first N passes fail (-1: every pass)"),
	T("pass_time", PARAM_DOUBLE, pass_time, "0", PARAM_BOUNDED, 0, 3600, "S",
	  "each pass takes S seconds, signals or not"),
	T("pass_until", PARAM_STR, pass_until, NULL, PARAM_NOCONFIG, 0, 0, "FILE",
	  "each pass waits until FILE exists, signals or not (before --pass_time)"),
	T("ignore_term", PARAM_BOOL, ignore_term, NULL, PARAM_NOCONFIG, 0, 0, NULL, "ignore SIGTERM"),
	T("init_fail", PARAM_BOOL, init_fail, NULL, PARAM_NOCONFIG, 0, 0, NULL, "fail in init()"),
	PARAM_TABLE_END
};

static int out_line(const struct daemon_ctx *ctx, const char *what)
{
	char *line;
	int fd, rc = 0;

	if (!settings.out)
		return 0;
	line = xasprintf("pass %lu pid %d mod %ld/%ld %s\n", ctx->npass, (int)getpid(), ctx->mod_n,
			 ctx->mod_i, what);
	fd = open(settings.out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		rc = log_error("cannot write %s: %s", settings.out, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(line);
	return rc;
}

/* Sleep the whole time even when a signal interrupts: a pass is not cut short. */
static void busy_for(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The test's gate: poll for the file, whatever signals come meanwhile. */
static void wait_for_gate(const char *path)
{
	while (path && access(path, F_OK) < 0)
		busy_for(0.05);
}

static int td_init(struct daemon_ctx *ctx)
{
	if (settings.init_fail)
		return log_error("failing in init as asked");
	if (settings.ignore_term)
		signal(SIGTERM, SIG_IGN);
	log_info("test daemon writing to %s", settings.out ? settings.out : "(nowhere)");
	return 0;
}

static int td_pass(struct daemon_ctx *ctx)
{
	long n = (long)ctx->npass;

	if (out_line(ctx, "start") < 0)
		return DAEMON_PASS_ERROR;
	wait_for_gate(settings.pass_until);
	busy_for(settings.pass_time);
	if (out_line(ctx, "end") < 0)
		return DAEMON_PASS_ERROR;
	if (settings.fail < 0 || n <= settings.fail)
		return log_error("pass %ld failing as asked", n);
	if (settings.work < 0 || n <= settings.work)
		return DAEMON_PASS_WORKED;
	return DAEMON_PASS_IDLE;
}

static void td_fini(struct daemon_ctx *ctx)
{
	log_info("test daemon done after %lu passes", ctx->npass);
}

static const struct daemon_spec test_daemon_spec = {
	.name = "test_daemon",
	.summary = "A daemon for the tests: writes a line to --out on every pass.",
	.params = test_daemon_params,
	.unlisted_params = true,
	.settings = &settings,
	.needs_db = false,
	.init = td_init,
	.pass = td_pass,
	.fini = td_fini,
};

int main(int argc, char **argv)
{
	return daemon_main(&test_daemon_spec, argc, argv);
}
