/*
 * The skeleton of wseq's BOINC applications (the sample app, the wrapper), as
 * tool_main() is the command-line tools' and daemon_main() the daemons':
 * the arguments, work to do before the BOINC runtime starts, the runtime with
 * the app's options, the work, and boinc_finish() with its status. An app's
 * main() is one line:
 *
 *	int main(int argc, char **argv) { return app_main(&wseq_sample_app, argc, argv); }
 */
#ifndef WSEQ_APP_MAIN_H
#define WSEQ_APP_MAIN_H

#include <boinc/boinc_api.h>

/* args() returns this to go on; any other value is the exit status at once */
#define APP_RUN (-1)

struct app_spec {
	const char *name;
	/* reads argv into the app's settings: APP_RUN, or the status to exit
	 * with before the runtime starts (0 after --help, 2 on a usage error) */
	int (*args)(int argc, char **argv);
	/* what must happen before the runtime starts (signals, limits): 0 or
	 * the exit status; may be NULL */
	int (*prepare)(void);
	/* sets the runtime's options (zeroed first); NULL: boinc_init()'s defaults */
	void (*options)(BOINC_OPTIONS *opts);
	/* the exit status if the runtime does not start */
	int init_failed;
	/* the work: its status goes to boinc_finish() */
	int (*run)(void);
};

int app_main(const struct app_spec *spec, int argc, char **argv);

/*
 * End the run with status. Under a client: boinc_finish(), which waits 2 s
 * for the runtime's timer thread to send the final status. Run by hand
 * (standalone, as tests do for a job's expected output) there is no client
 * to tell, so it exits at once.
 */
void app_finish(int status) __attribute__((noreturn));

#endif
