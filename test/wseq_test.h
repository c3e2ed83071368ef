/*
 * wseq_test: the one test tool (git's test-tool). Each part exposes some of
 * the server's internals to the shell tests and benchmarks; test/wseq_test.c
 * dispatches to it by its name. A part gets its arguments from its own name
 * on (argv[0] is "db", "daemons", ...) and returns the exit status: 0 done,
 * 1 failed, 2 a usage error.
 */
#ifndef WSEQ_TEST_H
#define WSEQ_TEST_H

int wseq_test_daemons(int argc, char **argv);
int wseq_test_db(int argc, char **argv);
int wseq_test_sweep(int argc, char **argv);
int wseq_test_unzip(int argc, char **argv);
int wseq_test_work(int argc, char **argv);

#endif
