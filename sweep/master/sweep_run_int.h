/*
 * Inside `sweep run` (sweep_run.c, sweep_hosts.c): the run's state, each
 * host's state machine, and what the two files call of each other.
 */
#ifndef WSEQ_SWEEP_RUN_INT_H
#define WSEQ_SWEEP_RUN_INT_H

#include "sweep_run.h"
#include "config.h"
#include "md5.h"
#include "sbuf.h"
#include "sweep_cluster.h"
#include "sweep_files.h"
#include "sweep_session.h"
#include "sweep_endpoints.h"
#include "sweep_spec.h"

#include <pthread.h>
#include <sys/types.h>

enum step {
	S_IDLE,         /* nothing runs for this host */
	S_START,        /* ssh ... sweep_client: runs as long as the client */
	S_CHECK,        /* ssh ... true: can we log in at all? */
	S_COPY,         /* sftp: the client bundle put under a temporary name, renamed into place */
	S_COPY_CHECK,   /* ssh ... test: after a copy failed, is a bundle in place all the same? */
};

enum verdict {
	H_NEW,
	H_RUNNING,      /* a client runs (or is being set up) */
	H_FINISHED,     /* its client ended: no task left */
	H_UNREACHABLE,  /* ssh cannot log in */
	H_COPY_FAILED,  /* the client could not be copied */
	H_CLIENT_FAILED,/* the client ran and ended badly */
};


struct host {
	struct sweep_host h;
	char *label;            /* its cluster-file form, user@host:port */
	enum step step;
	enum verdict verdict;
	char *why;              /* what went wrong last, for the statistics */
	pid_t pid;
	int start_exit;         /* exit status of the last start */
	int starts;
	bool copied;
	int copies;             /* copies tried since the last that worked */
	char *copy_tmp;         /* the temporary name of the copy under way */
	char *copy_said;        /* how the last copy failed */
	char *start_said;       /* what the last start that failed said on stderr */
	double not_before;      /* no new start before this dnow() */
	double step_t0;         /* when the running step began */
	pid_t stop_pid;         /* the ssh telling its client to stop, or 0 */
	bool stop_sent;         /* its client was told to stop */
};

struct run {
	const struct sweep_run_opts *o;
	struct project_config cfg;
	bool have_cfg;
	struct sweep_store *store;      /* the embedded store, or the project's */
	struct sweep_files files;
	char *state;            /* the state directory (the embedded store), or NULL: a project */
	char *spool;            /* the embedded server's spool directory */
	struct serve_http *http;        /* the embedded server, or NULL */
	struct sweep_endpoints ep;      /* its handler's state */
	pthread_mutex_t lock;   /* the loop's thread holds it but in nap(); the handlers take turns on it */
	char sid[SWEEP_SID_LEN + 1];
	char *sdir;             /* the project's sweep/SID */
	struct sweep_spec spec;
	char *url;              /* how the hosts reach the master: the endpoints' base URL */
	char *client;           /* the local client bundle (sweep_bundle.h) */
	char client_md5[MD5_HEX_LEN + 1];       /* its ID: on the hosts, sweep_client-ID */
	char md5[MD5_HEX_LEN + 1];
	char *ctl_dir;          /* the ssh control sockets (one shared connection a host), or NULL */
	char *sandbox;          /* the private project's directory, or NULL */
	bool started_sandbox;
	struct host *hosts;
	size_t nhosts;
	int progress;           /* 0 none, 1 lines, 2 bar */
	double t0;
	bool judge_now;         /* a client ended: look at the database now, not at the next second */
	size_t done0;           /* tasks ended before this run began (for the estimate) */
	bool stopping;          /* the run ends: a step that ends starts no other */
	bool halted;            /* --halt's failures were reached: the session's halt file says so */
	double joblog_at;       /* when --joblog was last written (dnow()) */
};

extern const char *const sweep_verdict_names[];

/* Steps of the hosts whose process ended moved on. */
void sweep_hosts_reap(struct run *r);
/* The hosts' verdicts written to the session directory (for sweep resume and the statistics). */
void sweep_hosts_save(const struct run *r);
/* Clients started on the idle hosts that may take one, when tickets wait (ready); true while a host may still run one. */
bool sweep_hosts_restart(struct run *r, bool ready);
/* How many hosts have a step running. */
size_t sweep_hosts_busy(const struct run *r);
/* The verdicts a former run of the session saved (sweep_hosts_save), for the hosts this run has not started. */
void sweep_hosts_load(struct run *r);
/* How many hosts have a client running (it said its process ID). */
size_t sweep_hosts_clients(const struct run *r);
/*
 * The run ends: tell each running client to stop (by ssh, with the process
 * ID it said), end the steps that run no client. Again at every tick until
 * the hosts are idle; how many hosts are still busy.
 */
size_t sweep_hosts_stop(struct run *r);
/* SIGTERM to every step and stop request still running. */
void sweep_hosts_kill(struct run *r);
/* The ssh (or scp) command line to host h, sharing one connection a host through ctl. */
void sweep_ssh_base(const struct run *r, const struct host *h, bool scp, const char *ctl,
		     char **argv, size_t *n);
/* s quoted for a POSIX shell. */
void sweep_sh_quote(struct sbuf *b, const char *s);
/* In a child before exec: the signal mask as the master was given it. */
void sweep_child_signals(void);

#endif
