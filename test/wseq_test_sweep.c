/*
 * wseq_test sweep: the sweep store conformance suite (test/unit/
 * sweep_store_conf.c) on the project store (sweep/store/sweep_store_db.c),
 * for t6105-sweep-store.sh. Run with the project's config.xml reachable
 * (WSEQ_PROJECT_DIR).
 *
 *   wseq_test sweep conformance TRANSITIONER   every case, TAP on stdout;
 *       TRANSITIONER (the project's bin/transitioner) runs one pass
 *       (--one_pass, from the project's directory) after each of the
 *       suite's ticks, its clock shifted (WSEQ_TIME_OFFSET) to the
 *       suite's time: the project's own transitioner does the store's
 *       transitioner's work, as it does for a real session.
 */
#include "common.h"
#include "config.h"
#include "log.h"
#include "sweep_store.h"
#include "unit/sweep_store_conf.h"
#include "wseq_test.h"

#include <sys/time.h>
#include <sys/wait.h>

static const char usage[] = "usage: wseq_test sweep conformance TRANSITIONER\n";

struct conf_project {
	const char *config;             /* config.xml */
	const char *project_dir;
	const char *transitioner;
};

static struct sweep_store *fresh(void *arg)
{
	struct conf_project *p = arg;
	struct sbuf err = SBUF_INIT(1024);
	struct sweep_store *st = sweep_store_open_project(p->config, &err);

	if (!st)
		log_error("%s", sbuf_str(&err));
	sbuf_release(&err);
	return st;
}

/* The real clock, whatever offset this process was given. */
static double real_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* One pass of the project's transitioner with its clock at t (half a second into it). */
static int transition(void *arg, struct sweep_store *st, int64_t t)
{
	struct conf_project *p = arg;
	char off[64];
	pid_t pid;
	int status;

	(void)st;
	snprintf(off, sizeof(off), "%.3f", (double)t + 0.5 - real_now());
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)p->transitioner, "--one_pass", NULL };

		setenv("WSEQ_TIME_OFFSET", off, 1);
		unsetenv("WSEQ_TIME_OFFSET_FILE");
		if (chdir(p->project_dir) == 0)
			execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return log_error("%s --one_pass failed", p->transitioner);
	return 0;
}

int wseq_test_sweep(int argc, char **argv)
{
	struct project_config cfg;
	struct conf_project p;
	struct sweep_store_conf conf = { fresh, transition, &p, 0, stdout, "" };
	char *path;
	int failed;

	if (argc != 3 || strcmp(argv[1], "conformance")) {
		fputs(usage, stderr);
		return 2;
	}
	path = config_locate();
	if (!path || config_load(&cfg, path, NULL, NULL) < 0) {
		log_error("no project configuration");
		free(path);
		return 1;
	}
	p = (struct conf_project){ cfg.path, cfg.project_dir, argv[2] };
	/* the suite's clock near the real one: the transitioner's shift stays small */
	conf.t0 = (int64_t)real_now();
	printf("1..%d\n", sweep_store_conformance_cases());
	failed = sweep_store_conformance(&conf);
	config_release(&cfg);
	free(path);
	return failed ? 1 : 0;
}
