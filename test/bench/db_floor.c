/*
 * db_floor: what MariaDB charges for one statement of the shapes a scheduler
 * RPC runs (test/bench/db_floor.sh runs it). For each line of the statement
 * file, T threads with a connection each prepare the statement once and
 * execute it N times; it prints statements a second and the CPU time a
 * statement of the database process (--cpu-pid) and of the whole machine
 * (/proc/stat). The floor the scheduler's own statements cannot go under on
 * this machine, whatever it does in between.
 *
 * A line of the file: LABEL|BASE|STRIDE|SQL. Every ? of SQL is bound to the
 * integer BASE + t * STRIDE for thread t (its own row when STRIDE > 0, so
 * that the threads do not wait for each other's row locks). Statements run
 * in autocommit mode: an UPDATE's time includes its commit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <mysql.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "db_floor"
#define MAX_THREADS 64
#define MAX_PARAMS 64

static struct {
	const char *socket, *user, *db;
	long threads, count, cpu_pid;
} opt = { .user = "root", .threads = 8, .count = 2000 };

struct stmt_line {
	char label[64];
	long long base, stride;
	const char *sql;
};

struct worker {
	pthread_t tid;
	const struct stmt_line *line;
	long long arg;
	const char *error;
	char why[512];
};

static pthread_barrier_t start;

static MYSQL *connect_db(char *why, size_t n)
{
	const char *pw = getenv("WSEQ_DB_PASSWD");
	MYSQL *m = mysql_init(NULL);

	if (m && mysql_real_connect(m, "localhost", opt.user, pw, opt.db, 0, opt.socket, 0))
		return m;
	snprintf(why, n, "cannot connect: %s", m ? mysql_error(m) : "out of memory");
	if (m)
		mysql_close(m);
	return NULL;
}

static void *work(void *p)
{
	struct worker *w = p;
	MYSQL_BIND b[MAX_PARAMS];
	MYSQL_STMT *s = NULL;
	unsigned long i, np;
	MYSQL *m = connect_db(w->why, sizeof(w->why));

	if (m && (!(s = mysql_stmt_init(m)) || mysql_stmt_prepare(s, w->line->sql, strlen(w->line->sql)))) {
		snprintf(w->why, sizeof(w->why), "cannot prepare: %s", s ? mysql_stmt_error(s) : mysql_error(m));
		w->error = w->why;
	} else if (!m) {
		w->error = w->why;
	}
	np = s && !w->error ? mysql_stmt_param_count(s) : 0;
	if (np > MAX_PARAMS) {
		w->error = "too many parameters";
		np = 0;
	}
	memset(b, 0, sizeof(b));
	for (i = 0; i < np; i++) {
		b[i].buffer_type = MYSQL_TYPE_LONGLONG;
		b[i].buffer = &w->arg;
	}
	if (np && mysql_stmt_bind_param(s, b))
		w->error = "cannot bind";
	pthread_barrier_wait(&start);
	for (i = 0; !w->error && i < (unsigned long)opt.count; i++) {
		if (mysql_stmt_execute(s) ||
		    (mysql_stmt_field_count(s) && mysql_stmt_store_result(s))) {
			snprintf(w->why, sizeof(w->why), "cannot execute: %s", mysql_stmt_error(s));
			w->error = w->why;
		} else if (mysql_stmt_field_count(s)) {
			mysql_stmt_free_result(s);
		}
	}
	if (s)
		mysql_stmt_close(s);
	if (m)
		mysql_close(m);
	return NULL;
}

/* CPU seconds of process pid, or of the whole machine when pid is 0; -1 if unknown. */
static double cpu_seconds(long pid)
{
	char path[64], line[1024], *p;
	unsigned long long a[8] = { 0 };
	FILE *f;
	int n = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(pid ? path : "/proc/stat", "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		n = 1;
	fclose(f);
	if (!n)
		return -1;
	if (!pid) {   /* cpu  user nice system idle iowait irq softirq */
		if (sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu", a, a + 1, a + 2, a + 3, a + 4,
			   a + 5, a + 6) != 7)
			return -1;
		return (double)(a[0] + a[1] + a[2] + a[5] + a[6]) / (double)sysconf(_SC_CLK_TCK);
	}
	p = strrchr(line, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", a, a + 1) != 2)
		return -1;
	return (double)(a[0] + a[1]) / (double)sysconf(_SC_CLK_TCK);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run one line; print its figures. 0, or -1 when a thread failed. */
static int run_line(const struct stmt_line *line)
{
	struct worker w[MAX_THREADS];
	double t0, t1, db0, db1, all0, all1, n = (double)(opt.threads * opt.count);
	long i;
	int rc = 0;

	memset(w, 0, sizeof(w));
	pthread_barrier_init(&start, NULL, (unsigned)opt.threads + 1);
	for (i = 0; i < opt.threads; i++) {
		w[i].line = line;
		w[i].arg = line->base + i * line->stride;
		if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
			fprintf(stderr, PROG ": cannot start a thread\n");
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	t0 = now(), db0 = opt.cpu_pid ? cpu_seconds(opt.cpu_pid) : -1, all0 = cpu_seconds(0);
	for (i = 0; i < opt.threads; i++)
		pthread_join(w[i].tid, NULL);
	t1 = now(), db1 = opt.cpu_pid ? cpu_seconds(opt.cpu_pid) : -1, all1 = cpu_seconds(0);
	pthread_barrier_destroy(&start);
	for (i = 0; i < opt.threads; i++)
		if (w[i].error) {
			fprintf(stderr, PROG ": %s: %s\n", line->label, w[i].error);
			rc = -1;
			break;
		}
	if (rc == 0)
		printf("%-28s %9.0f %9.1f %9.1f\n", line->label, n / (t1 - t0),
		       db0 >= 0 && db1 >= 0 ? (db1 - db0) * 1e6 / n : -1.0, (all1 - all0) * 1e6 / n);
	return rc;
}

/* LABEL|BASE|STRIDE|SQL into *out (sql points into buf); -1 if the line is not one. */
static int parse_line(char *buf, struct stmt_line *out)
{
	char *f[4], *p = buf;
	int i;

	buf[strcspn(buf, "\n")] = '\0';
	for (i = 0; i < 3; i++) {
		f[i] = p;
		p = strchr(p, '|');
		if (!p)
			return -1;
		*p++ = '\0';
	}
	f[3] = p;
	if (!*f[0] || strlen(f[0]) >= sizeof(out->label) || !*f[3])
		return -1;
	snprintf(out->label, sizeof(out->label), "%s", f[0]);
	out->base = strtoll(f[1], NULL, 10);
	out->stride = strtoll(f[2], NULL, 10);
	out->sql = f[3];
	return 0;
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: " PROG " --socket PATH --db NAME [options] FILE\n"
		"Runs each statement of FILE (lines LABEL|BASE|STRIDE|SQL; # starts a comment)\n"
		"from T threads with a connection each, N times a thread, every ? bound to\n"
		"BASE + t * STRIDE for thread t, and prints statements a second and CPU\n"
		"microseconds a statement of the database process and of the whole machine.\n"
		"  --socket PATH   the MariaDB server's socket\n"
		"  --db NAME       the database\n"
		"  --user NAME     the account (default root; password from WSEQ_DB_PASSWD)\n"
		"  --threads T     connections at once (default 8, at most %d)\n"
		"  --count N       executions a thread (default 2000)\n"
		"  --cpu-pid PID   the database server's process, for its CPU time\n"
		"  -h, --help      this text\n", MAX_THREADS);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", 1, NULL, 's' }, { "db", 1, NULL, 'd' }, { "user", 1, NULL, 'u' },
		{ "threads", 1, NULL, 't' }, { "count", 1, NULL, 'n' }, { "cpu-pid", 1, NULL, 'p' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	char buf[8192];
	struct stmt_line line;
	FILE *f;
	int c, rc = 0, lineno = 0;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end = NULL;
		long v = 0;

		if (c == 't' || c == 'n' || c == 'p') {
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0) {
				fprintf(stderr, PROG ": --%s wants a positive number\n",
					c == 't' ? "threads" : c == 'n' ? "count" : "cpu-pid");
				return 2;
			}
		}
		switch (c) {
		case 's': opt.socket = optarg; break;
		case 'd': opt.db = optarg; break;
		case 'u': opt.user = optarg; break;
		case 't': opt.threads = v; break;
		case 'n': opt.count = v; break;
		case 'p': opt.cpu_pid = v; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || !opt.socket || !opt.db || opt.threads > MAX_THREADS) {
		usage(stderr);
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		perror(argv[optind]);
		return 2;
	}
	printf("%-28s %9s %9s %9s\n", "statement", "stmt/s", "DB us", "all us");
	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		if (buf[0] == '#' || buf[strspn(buf, " \t\n")] == '\0')
			continue;
		if (parse_line(buf, &line) < 0) {
			fprintf(stderr, PROG ": %s:%d: not LABEL|BASE|STRIDE|SQL\n", argv[optind], lineno);
			rc = 2;
			break;
		}
		if (run_line(&line) < 0)
			rc = 1;
	}
	fclose(f);
	return rc;
}
