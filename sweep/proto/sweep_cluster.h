/*
 * The sweep cluster file: the machines ("slaves") the master deploys
 * sweep_client to by ssh. One host a line -- host, user@host, host:port,
 * user@host:port, IPv4 addresses, [IPv6]:port or a bare IPv6 address,
 * each optionally after "N/" (its job count, as GNU parallel's -S N/host) --
 * with '#' comments and blank lines. doc/sweep-formats.md is the reference.
 */
#ifndef WSEQ_SWEEP_CLUSTER_H
#define WSEQ_SWEEP_CLUSTER_H

#include "common.h"
#include "sbuf.h"

#define SWEEP_SSH_PORT 22
#define SWEEP_CLUSTER_MAX (16u << 20)   /* bytes a cluster file may have */

struct sweep_host {
	char *user;             /* NULL: ssh's default (the master's user) */
	char *host;             /* name or address, IPv6 without brackets */
	int port;               /* SWEEP_SSH_PORT unless given */
	int line;               /* in the cluster file */
	int jobs;               /* N/host: tasks at once there (0: one a CPU); -1: the spec's Jobs */
};

#define SWEEP_JOBS_MAX 1024     /* the most tasks at once on one host */

struct sweep_cluster {
	struct sweep_host *hosts;
	size_t n;
};

/*
 * Parse a cluster file held in buf; name is used in errors ("hosts:3: bad
 * port 'x'"). 0, or -1 with the error appended to err (logged if err is NULL).
 */
int sweep_cluster_parse(const char *name, const char *buf, size_t len, struct sweep_cluster *c,
			struct sbuf *err);
int sweep_cluster_read(const char *path, struct sweep_cluster *c, struct sbuf *err);
void sweep_cluster_release(struct sweep_cluster *c);

/* Append "user@host:port" ([addr]:port for IPv6; user and port only when given). */
int sweep_host_format(const struct sweep_host *h, struct sbuf *out);

#endif
