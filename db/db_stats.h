/*
 * What the statistics export (tools/db_dump.c) reads: the users, hosts and
 * teams with credit, as projections holding only the columns stats sites
 * see, walked in id order a batch at a time so a dump of 200,000 hosts
 * never holds more than one batch in memory.
 */
#ifndef WSEQ_DB_STATS_H
#define WSEQ_DB_STATS_H

#include "db_queries.h"

struct db_stats_user {
	int64_t id;
	int64_t create_time;
	char *name;
	char *email_addr;
	char *cross_project_id;
	char *country;
	char *url;
	int64_t teamid;
	int has_profile;
	double total_credit;
	double expavg_credit;
	double expavg_time;
};

struct db_stats_host {
	int64_t id;
	int64_t create_time;
	int64_t userid;
	int show_hosts;         /* its owner's: whether the owner may be named */
	int64_t rpc_time;
	int timezone;
	int p_ncpus;
	char *p_vendor;
	char *p_model;
	char *os_name;
	char *os_version;
	char *host_cpid;
	char *misc;
	double p_fpops, p_iops, p_membw;
	double m_nbytes, m_cache, m_swap;
	double d_total, d_free;
	double n_bwup, n_bwdown;
	double avg_turnaround;
	double credit_per_cpu_sec;
	double total_credit;
	double expavg_credit;
	double expavg_time;
};

struct db_stats_team {
	int64_t id;
	int64_t create_time;
	int64_t userid;
	int type;
	char *name;
	char *founder_name;     /* the name of user userid, "" if none */
	char *url;
	char *name_html;
	char *description;
	char *country;
	double total_credit;
	double expavg_credit;
	double expavg_time;
};

extern const struct db_query dbq_stats_users, dbq_stats_hosts, dbq_stats_teams;

/*
 * Call fn for every user (host, team) with total_credit > 0 -- hosts only
 * those with an owner -- in id order, reading batch rows a query. fn's
 * record is the enumerator's; fn returns 0 to go on, nonzero to stop with
 * DB_ERROR. Inside db_begin_snapshot() the three agree with each other.
 */
int db_stats_enum_users(struct db *db, int batch, int (*fn)(struct db_stats_user *, void *),
			void *arg);
int db_stats_enum_hosts(struct db *db, int batch, int (*fn)(struct db_stats_host *, void *),
			void *arg);
int db_stats_enum_teams(struct db *db, int batch, int (*fn)(struct db_stats_team *, void *),
			void *arg);

#endif
