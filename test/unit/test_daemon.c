/*
 * Unit tests for the daemon skeleton, run in-process on a fake daemon, and
 * for the process helpers behind bin/start, bin/stop and bin/status.
 */
#include "unit.h"
#include "daemon.h"
#include "daemon_proc.h"
#include "log.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* --- a fake daemon ------------------------------------------------------ */

struct fake_settings {
	char *color;
	long level;
};

static struct fake_settings fake;

static const struct param fake_params[] = {
	{ "color", PARAM_STR, offsetof(struct fake_settings, color), "green", 0, 0, 0, "C", "a colour" },
	{ "level", PARAM_INT, offsetof(struct fake_settings, level), "1", 0, 0, 0, "N", "a number" },
	PARAM_TABLE_END
};

/* What the fake daemon does and saw. */
static struct {
	int inits, finis, passes;
	int fail_first;         /* the first N passes fail */
	int work_first;         /* the next N passes report work */
	int term_at;            /* raise SIGTERM during this pass */
	long mod_n, mod_i;
	char color[32];
	double t_pass[4];
} fk;

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fake_init(struct daemon_ctx *ctx)
{
	fk.inits++;
	fk.mod_n = ctx->mod_n;
	fk.mod_i = ctx->mod_i;
	wstrlcpy(fk.color, fake.color ? fake.color : "", sizeof(fk.color));
	return 0;
}

static int fake_pass(struct daemon_ctx *ctx)
{
	int n = ++fk.passes;

	assert_int_equal((int)ctx->npass, n);
	if (n <= 4)
		fk.t_pass[n - 1] = mono();
	if (n == fk.term_at || n == 50)     /* 50: a safety net, so a broken loop fails, not hangs */
		raise(SIGTERM);
	if (n <= fk.fail_first)
		return DAEMON_PASS_ERROR;
	if (n <= fk.fail_first + fk.work_first)
		return DAEMON_PASS_WORKED;
	return DAEMON_PASS_IDLE;
}

static void fake_fini(struct daemon_ctx *ctx)
{
	fk.finis++;
}

static const struct daemon_spec fake_spec = {
	.name = "fake", .summary = "a fake daemon", .params = fake_params, .settings = &fake,
	.unlisted_params = true,
	.init = fake_init, .pass = fake_pass, .fini = fake_fini,
};

/* --- a project directory and captured stderr ---------------------------- */

static char projdir[] = "/tmp/wseq-unit-daemon.XXXXXX";
static char config_path[256], stop_path[256], err_path[256], out_path[256];

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void write_config(const char *extra)
{
	char *xml = xasprintf("<boinc><config>\n<master_url>http://localhost/p/</master_url>\n"
			      "<db_name>p</db_name>\n%s</config></boinc>\n", extra);
	write_file(config_path, xml);
	free(xml);
}

/* A daemon with a required option. */
static struct { char *need; } req;
static const struct param req_params[] = {
	{ "need", PARAM_STR, 0, NULL, PARAM_REQUIRED, 0, 0, "X", "needed" },
	PARAM_TABLE_END
};
static const struct daemon_spec req_spec = {
	.name = "req", .params = req_params, .settings = &req, .unlisted_params = true,
	.init = fake_init, .pass = fake_pass, .fini = fake_fini,
};

static int run_spec(const struct daemon_spec *spec, const char *const *args);

/* Run daemon_main on the fake with "fake --config PATH args...", stderr into err_path. */
static int run_fake(const char *const *args)
{
	return run_spec(&fake_spec, args);
}

static int run_spec(const struct daemon_spec *spec, const char *const *args)
{
	char *argv[32];
	int argc = 0, saved, saved_out, fd, rc;

	argv[argc++] = "fake";
	argv[argc++] = "--config";
	argv[argc++] = config_path;
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	memset(&fk.inits, 0, sizeof(int) * 3);
	fflush(stderr);
	fflush(stdout);
	saved = dup(2);
	saved_out = dup(1);     /* --help must not mix with the TAP output */
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	rc = daemon_main(spec, argc, argv);
	fflush(stdout);
	dup2(saved, 2);
	close(saved);
	dup2(saved_out, 1);
	close(saved_out);
	log_set_level(LOG_LVL_INFO);
	return rc;
}

static char *slurp(const char *path)
{
	char *buf = xcalloc(1, 65536);
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, 65535);
		if (n > 0)
			buf[n] = '\0';
		close(fd);
	}
	return buf;
}

static bool err_has(const char *s)
{
	char *buf = slurp(err_path);
	bool found = strstr(buf, s) != NULL;

	if (!found)
		fprintf(stderr, "# '%s' not in stderr:\n%s", s, buf);
	free(buf);
	return found;
}

static int setup(void **state)
{
	memset(&fk, 0, sizeof(fk));
	unlink(stop_path);
	write_config("");
	return 0;
}

/* --- the skeleton -------------------------------------------------------- */

static void test_one_pass_does_one_pass(void **state)
{
	const char *args[] = { "--one_pass", "--sleep", "0", NULL };

	fk.work_first = 5;      /* work left over must not make it go on */
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 1);
	assert_int_equal(fk.inits, 1);
	assert_int_equal(fk.finis, 1);
	assert_true(err_has("exiting after one pass"));
}

static void test_one_pass_failure_exits_1(void **state)
{
	const char *args[] = { "--one_pass", NULL };

	fk.fail_first = 1;
	assert_int_equal(run_fake(args), 1);
	assert_int_equal(fk.passes, 1);
	assert_int_equal(fk.finis, 1);
}

static void test_until_idle_runs_until_nothing_to_do(void **state)
{
	const char *args[] = { "--until_idle", "--sleep", "0", NULL };

	fk.work_first = 3;
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 4);
}

static void test_mod_is_checked(void **state)
{
	const char *bad[] = { "--mod", "2", "5", "--one_pass", NULL };
	const char *one[] = { "--mod", "2", NULL };
	const char *good[] = { "--mod", "3", "2", "--one_pass", NULL };

	assert_int_equal(run_fake(bad), 1);
	assert_int_equal(fk.passes, 0);
	assert_true(err_has("--mod 2 5"));
	assert_int_equal(run_fake(one), 1);
	assert_true(err_has("--mod needs two numbers"));
	assert_int_equal(run_fake(good), 0);
	assert_int_equal(fk.mod_n, 3);
	assert_int_equal(fk.mod_i, 2);
}

static void test_unknown_option_is_named(void **state)
{
	const char *args[] = { "--one_pass", "--no_such_thing", "1", NULL };
	const char *shortopt[] = { "-x", NULL };
	const char *positional[] = { "stray", NULL };
	char *buf;

	/* the error comes before config.xml is read: it need not exist */
	unlink(config_path);
	assert_int_equal(run_fake(args), 1);
	assert_int_equal(fk.inits, 0);
	assert_true(err_has("unknown option --no_such_thing"));
	buf = slurp(err_path);
	assert_non_null(strchr(buf, '\n'));
	assert_string_equal(strchr(buf, '\n') + 1, "");       /* one line */
	free(buf);
	assert_int_equal(run_fake(shortopt), 1);
	assert_true(err_has("unknown option -x"));
	assert_int_equal(run_fake(positional), 1);
	assert_true(err_has("unexpected argument 'stray'"));
}

static void test_debug_level_is_checked(void **state)
{
	const char *bad[] = { "-d", "7", "--one_pass", NULL };
	const char *debug[] = { "-d", "3", "--one_pass", NULL };
	const char *quiet[] = { "-d1", "--one_pass", NULL };
	char *buf;

	assert_int_equal(run_fake(bad), 1);
	assert_true(err_has("-d needs a log level from 1 to 4 (got '7')"));
	assert_int_equal(run_fake(debug), 0);
	assert_true(err_has("debug: pass 1: nothing to do"));
	assert_int_equal(run_fake(quiet), 0);
	buf = slurp(err_path);
	assert_null(strstr(buf, "info:"));
	free(buf);
}

static void test_command_line_wins_over_config(void **state)
{
	const char *none[] = { "--one_pass", NULL };
	const char *blue[] = { "--color", "blue", "--one_pass", NULL };

	assert_int_equal(run_fake(none), 0);
	assert_string_equal(fk.color, "green");         /* the default */
	write_config("<color>red</color>\n");
	assert_int_equal(run_fake(none), 0);
	assert_string_equal(fk.color, "red");
	assert_int_equal(run_fake(blue), 0);
	assert_string_equal(fk.color, "blue");
	write_config("<level>many</level>\n");
	assert_int_equal(run_fake(none), 1);
	assert_int_equal(fk.inits, 0);
}

static void test_required_option_from_either_place(void **state)
{
	const char *none[] = { "--one_pass", NULL };
	const char *given[] = { "--one_pass", "--need", "x", NULL };

	assert_int_equal(run_spec(&req_spec, none), 1);
	assert_int_equal(fk.inits, 0);
	assert_true(err_has("required option need is missing"));
	assert_int_equal(run_spec(&req_spec, given), 0);
	assert_int_equal(fk.passes, 1);
	write_config("<need>y</need>\n");
	assert_int_equal(run_spec(&req_spec, none), 0);
	assert_int_equal(fk.passes, 1);
}

static void test_signal_ends_after_the_pass(void **state)
{
	const char *args[] = { "--sleep", "0", NULL };

	fk.work_first = 100;    /* it would go on and on */
	fk.term_at = 2;
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 2);
	assert_int_equal(fk.finis, 1);
	assert_true(err_has("exiting: SIGTERM"));
}

static void test_stop_file_ends_the_daemon(void **state)
{
	const char *args[] = { NULL };

	write_file(stop_path, "");
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 0);
	assert_true(err_has("stop_daemons file present"));
	unlink(stop_path);
	write_config("<stop_daemons/>\n");
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 0);
	assert_true(err_has("<stop_daemons/>"));
}

static void test_error_backs_off_then_recovers(void **state)
{
	const char *args[] = { "--sleep", "0", NULL };
	double gap1, gap2;

	fk.fail_first = 2;
	fk.term_at = 3;
	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.passes, 3);
	gap1 = fk.t_pass[1] - fk.t_pass[0];
	gap2 = fk.t_pass[2] - fk.t_pass[1];
	assert_true(gap1 >= 0.9 && gap1 < 1.9);         /* 1 s after the first error */
	assert_true(gap2 >= 1.9 && gap2 < 3.5);         /* 2 s after the second */
	assert_true(err_has("pass 1 failed (1 in a row); next try in 1 s"));
	assert_true(err_has("pass 3 succeeded after 2 failed"));
}

static void test_help_exits_0(void **state)
{
	const char *args[] = { "--help", NULL };
	char *buf;

	assert_int_equal(run_fake(args), 0);
	assert_int_equal(fk.inits, 0);
	buf = slurp(out_path);
	assert_non_null(strstr(buf, "--mod N I"));
	assert_non_null(strstr(buf, "--color C"));
	free(buf);
}

/* --- the control programs' helpers ------------------------------------- */

static void test_split_cmd(void **state)
{
	char **argv;

	assert_int_equal(proc_split_cmd("  transitioner -d 3\t--mod 2 1 ", &argv), 6);
	assert_string_equal(argv[0], "transitioner");
	assert_string_equal(argv[5], "1");
	assert_null(argv[6]);
	proc_free_argv(argv);
	assert_int_equal(proc_split_cmd("x 'a b' \"c \\\"d\\\"\" e\\ f ''", &argv), 5);
	assert_string_equal(argv[1], "a b");
	assert_string_equal(argv[2], "c \"d\"");
	assert_string_equal(argv[3], "e f");
	assert_string_equal(argv[4], "");
	proc_free_argv(argv);
	assert_int_equal(proc_split_cmd("x 'open", &argv), -1);
	assert_null(argv);
	assert_int_equal(proc_split_cmd("x \"open", &argv), -1);
	assert_int_equal(proc_split_cmd("   ", &argv), -1);
}

static void test_pid_files(void **state)
{
	char *path = xasprintf("%s/d.pid", projdir);
	pid_t pid;

	assert_int_equal(proc_pid_read(path, &pid), PROC_PID_MISSING);
	assert_int_equal(proc_pid_write(path, 12345), 0);
	assert_int_equal(proc_pid_read(path, &pid), PROC_PID_OK);
	assert_int_equal(pid, 12345);
	write_file(path, "garbage\n");
	assert_int_equal(proc_pid_read(path, &pid), PROC_PID_BAD);
	write_file(path, "1\n");        /* never init */
	assert_int_equal(proc_pid_read(path, &pid), PROC_PID_BAD);
	unlink(path);
	free(path);
}

static void test_proc_is_checks_the_program(void **state)
{
	pid_t child;
	int st;

	assert_true(proc_is(getpid(), "/some/bin/test_daemon"));
	assert_false(proc_is(getpid(), "test_daemo"));
	assert_false(proc_is(getpid(), "transitioner"));
	/* a zombie has exited, even though kill(pid, 0) still works on it */
	child = fork();
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	usleep(200000);
	assert_int_equal(kill(child, 0), 0);
	assert_false(proc_is(child, "test_daemon"));
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_false(proc_is(child, "test_daemon"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_one_pass_does_one_pass, setup),
		cmocka_unit_test_setup(test_one_pass_failure_exits_1, setup),
		cmocka_unit_test_setup(test_until_idle_runs_until_nothing_to_do, setup),
		cmocka_unit_test_setup(test_mod_is_checked, setup),
		cmocka_unit_test_setup(test_unknown_option_is_named, setup),
		cmocka_unit_test_setup(test_debug_level_is_checked, setup),
		cmocka_unit_test_setup(test_command_line_wins_over_config, setup),
		cmocka_unit_test_setup(test_required_option_from_either_place, setup),
		cmocka_unit_test_setup(test_signal_ends_after_the_pass, setup),
		cmocka_unit_test_setup(test_stop_file_ends_the_daemon, setup),
		cmocka_unit_test_setup(test_error_backs_off_then_recovers, setup),
		cmocka_unit_test_setup(test_help_exits_0, setup),
		cmocka_unit_test(test_split_cmd),
		cmocka_unit_test(test_pid_files),
		cmocka_unit_test(test_proc_is_checks_the_program),
	};
	int rc;

	if (!mkdtemp(projdir))
		return 99;
	snprintf(config_path, sizeof(config_path), "%s/config.xml", projdir);
	snprintf(stop_path, sizeof(stop_path), "%s/stop_daemons", projdir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", projdir);
	snprintf(out_path, sizeof(out_path), "%s/stdout", projdir);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(config_path);
	unlink(stop_path);
	unlink(err_path);
	unlink(out_path);
	rmdir(projdir);
	return rc;
}
