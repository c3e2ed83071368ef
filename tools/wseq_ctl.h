/*
 * What the two halves of the project control program share: bin/start,
 * bin/stop and bin/status (wseq_ctl.c) and the periodic tasks that
 * "bin/start --cron" runs (wseq_ctl_cron.c).
 */
#ifndef WSEQ_CTL_H
#define WSEQ_CTL_H

#include "common.h"

struct project_config;

/* pid_dir/stopped: bin/stop was the last word, so --cron starts no daemon. */
#define CTL_STOPPED_FILE "stopped"

bool ctl_exists(const char *path);
/* Take the project's control lock (pid_dir/.wseq_ctl.lock), waiting; the fd or -1 (logged). */
int ctl_lock_project(const struct project_config *cfg);

/*
 * Start prog with argv in the background: its own session, cwd the project,
 * stdin /dev/null, stdout and stderr appended to log_path, header (may be
 * NULL) written to the log first, no descriptor inherited but keep_fd (-1:
 * none), which stays open across exec. An exec failure is reported here
 * (logged, -1); 0 and *pid otherwise.
 */
int ctl_spawn(const struct project_config *cfg, const char *name, const char *prog,
	      char *const argv[], const char *log_path, const char *header, int keep_fd,
	      pid_t *pid);

/*
 * The periodic tasks (config.xml <tasks>), under the control lock: start
 * each enabled task that is due and not still running; print what happens
 * when verbose. 0, or 1 if a task could not be started.
 */
int ctl_cron_tasks(const struct project_config *cfg, bool verbose);
/* bin/status's lines for the tasks. */
void ctl_tasks_status(const struct project_config *cfg);

#endif
