/*
 * What the server status and applications pages read (db_status.c): the
 * project's counters, each one COUNT over an index (never a row a result
 * in C), the apps with their unsent and in-progress tasks, the current
 * app versions per platform, and the tasks in progress per plan class.
 */
#ifndef WSEQ_DB_STATUS_H
#define WSEQ_DB_STATUS_H

#include "db_queries.h"

struct db_status {
	/* the job counts (?counts=1) */
	int64_t results_ready_to_send;          /* server_state UNSENT */
	int64_t results_in_progress;            /* server_state IN_PROGRESS */
	int64_t results_need_file_delete;       /* file_delete_state READY */
	int64_t wus_need_validate;              /* need_validate 1 */
	int64_t wus_need_assimilate;            /* assimilate_state READY */
	int64_t wus_need_file_delete;           /* file_delete_state READY */
	/* and the rest of the status */
	int64_t min_transition_time;            /* the earliest workunit's; 0 none */
	int64_t users_with_recent_credit;      /* expavg_credit above 1 */
	int64_t users_with_credit;
	int64_t users_registered_recently;      /* create_time after the time given */
	int64_t hosts_with_recent_credit;
	int64_t hosts_with_credit;
	int64_t hosts_registered_recently;
	int64_t sequences_in_progress;          /* state ACTIVE */
	double users_expavg_credit;             /* the sum of users' recent average credit */
};

/* An app (not deprecated) with its tasks waiting and out. */
struct db_status_app {
	int64_t id;
	char *name;
	char *user_friendly_name;
	int64_t unsent;
	int64_t in_progress;
};

/*
 * An app version to show: the newest one not deprecated of its app,
 * platform and plan class.
 */
struct db_status_version {
	int64_t appid;
	int version_num;
	char *plan_class;
	int64_t create_time;
	char *platform;         /* the platform's user-friendly name, else its name */
};

/* Tasks in progress of one plan class ("": versions without one, and results without a version). */
struct db_status_class {
	char *plan_class;
	int64_t in_progress;
};

extern const struct db_query dbq_status_unsent, dbq_status_in_progress,
	dbq_status_result_file_delete, dbq_status_wu_validate, dbq_status_wu_assimilate,
	dbq_status_wu_file_delete, dbq_status_transition, dbq_status_users_recent,
	dbq_status_users_credit, dbq_status_users_new, dbq_status_hosts_recent,
	dbq_status_hosts_credit, dbq_status_hosts_new, dbq_status_sequences, dbq_status_rac,
	dbq_status_apps, dbq_status_versions, dbq_status_in_progress_by_version;

/* The six job counts only; the rest of *s is zeroed. */
int db_status_job_counts(struct db *db, struct db_status *s);
/* Every counter; "registered recently" means created after since. */
int db_status_counts(struct db *db, int64_t since, struct db_status *s);
/* The apps not deprecated, by id, with their counts; fn's record is the enumerator's. */
int db_status_apps(struct db *db, int (*fn)(struct db_status_app *, void *), void *arg);
/* The versions to show of the apps not deprecated, by app, platform and plan class. */
int db_status_versions(struct db *db, int (*fn)(struct db_status_version *, void *), void *arg);
/*
 * The tasks in progress counted by their version's plan class, in one
 * GROUP BY (a class may come twice as ""); fn's record is the enumerator's.
 */
int db_status_in_progress_by_class(struct db *db, int (*fn)(struct db_status_class *, void *),
				   void *arg);

#endif
