/*
 * Typed records, one per table, with BOINC's member names and meanings
 * (see schema.sql), and BOINC's enum values as named constants.
 *
 * Memory: numbers are plain members; every text or blob column is an
 * allocated char * (NULL is written as '' and never read back: a lookup
 * gives "" for an empty column). A record must start zeroed
 * (struct db_workunit wu = {0}); db_X_release() releases its strings and
 * leaves the numbers. Lookups free the strings already in the record.
 *
 * Each table has the same thin wrappers over the generic operations of
 * db.h (db_rec_*), declared by DB_ID_RECORD / DB_KEY_RECORD below:
 *
 *   int  db_X_insert(struct db *, struct db_X *);        sets ->id
 *   int  db_X_update(struct db *, const struct db_X *);  every column, by key
 *   int  db_X_lookup_id(struct db *, int64_t id, struct db_X *);
 *   int  db_X_lookup(struct db *, struct db_X *);        by the key members set
 *   int  db_X_delete(struct db *, const struct db_X *);
 *   int  db_X_enum(struct db *, const char *tail, const struct db_val *, size_t,
 *                  int (*fn)(struct db_X *, void *), void *arg);
 *   int  db_X_count(struct db *, const char *tail, const struct db_val *, size_t,
 *                   int64_t *);
 *   int  db_X_query(struct db *, const struct db_query *, const struct db_val *,
 *                   size_t, int (*fn)(struct db_X *, void *), void *arg);
 *   void db_X_release(struct db_X *);
 *
 * plus db_X_lookup_name() for tables with a unique name.
 */
#ifndef WSEQ_DB_RECORDS_H
#define WSEQ_DB_RECORDS_H

#include "db.h"
#include "sbuf.h"

/* result.server_state */
#define RESULT_SERVER_STATE_INACTIVE 1
#define RESULT_SERVER_STATE_UNSENT 2
#define RESULT_SERVER_STATE_IN_PROGRESS 4
#define RESULT_SERVER_STATE_OVER 5

/* result.outcome */
#define RESULT_OUTCOME_INIT 0
#define RESULT_OUTCOME_SUCCESS 1
#define RESULT_OUTCOME_COULDNT_SEND 2
#define RESULT_OUTCOME_CLIENT_ERROR 3
#define RESULT_OUTCOME_NO_REPLY 4
#define RESULT_OUTCOME_DIDNT_NEED 5
#define RESULT_OUTCOME_VALIDATE_ERROR 6
#define RESULT_OUTCOME_CLIENT_DETACHED 7

/* result.client_state (the client's RESULT_* states) */
#define RESULT_NEW 0
#define RESULT_FILES_DOWNLOADING 1
#define RESULT_FILES_DOWNLOADED 2
#define RESULT_COMPUTE_ERROR 3
#define RESULT_FILES_UPLOADING 4
#define RESULT_FILES_UPLOADED 5
#define RESULT_ABORTED 6
#define RESULT_UPLOAD_FAILED 7

/* result.validate_state */
#define VALIDATE_STATE_INIT 0
#define VALIDATE_STATE_VALID 1
#define VALIDATE_STATE_INVALID 2
#define VALIDATE_STATE_NO_CHECK 3
#define VALIDATE_STATE_INCONCLUSIVE 4
#define VALIDATE_STATE_TOO_LATE 5

/* result.validate_why (wseq): what the validator's verdict rests on */
#define VALIDATE_WHY_NONE 0             /* no verdict yet, or one from before schema 16 */
#define VALIDATE_WHY_CHECK_OK 1         /* the per-result check passed (no comparison) */
#define VALIDATE_WHY_CHECK_FAILED 2     /* the per-result check said invalid */
#define VALIDATE_WHY_FILES 3            /* an output file missing, unreadable or bad */
#define VALIDATE_WHY_AGREED 4           /* agreed with the quorum's canonical result */
#define VALIDATE_WHY_DISAGREED 5        /* disagreed with the canonical result */
#define VALIDATE_WHY_CHECK_RETRY 6      /* the check crashed or timed out: waiting */

/* workunit.file_delete_state, result.file_delete_state, seq_file.file_delete_state */
#define FILE_DELETE_INIT 0
#define FILE_DELETE_READY 1
#define FILE_DELETE_DONE 2
#define FILE_DELETE_ERROR 3

/* workunit.assimilate_state */
#define ASSIMILATE_INIT 0
#define ASSIMILATE_READY 1
#define ASSIMILATE_DONE 2

/* workunit.error_mask bits */
#define WU_ERROR_COULDNT_SEND_RESULT 1
#define WU_ERROR_TOO_MANY_ERROR_RESULTS 2
#define WU_ERROR_TOO_MANY_SUCCESS_RESULTS 4
#define WU_ERROR_TOO_MANY_TOTAL_RESULTS 8
#define WU_ERROR_CANCELLED 16
#define WU_ERROR_NO_CANONICAL_RESULT 32
#define WU_ERROR_LAST WU_ERROR_NO_CANONICAL_RESULT
/* Upstream's word for one error_mask bit ("too_many_error_results"), or NULL. */
const char *wu_error_name(int bit);

/* batch.state */
#define BATCH_STATE_INIT 0
#define BATCH_STATE_IN_PROGRESS 1
#define BATCH_STATE_COMPLETE 2
#define BATCH_STATE_ABORTED 3
#define BATCH_STATE_RETIRED 4

/* sequence.state, sequence_group.state */
#define SEQ_STATE_ACTIVE 0
#define SEQ_STATE_ENDED 1
#define SEQ_STATE_ERROR 2

/* sequence.need_relocate: why the relocator should move the sequence */
#define SEQ_RELOCATE_NONE 0
#define SEQ_RELOCATE_DEADLINE 1     /* a segment missed its deadline */
#define SEQ_RELOCATE_ERROR 2        /* the host returned an erroneous result */
#define SEQ_RELOCATE_SLOW 3         /* the host is too slow */
#define SEQ_RELOCATE_ADMIN 4

/* seq_file.kind */
#define SEQ_FILE_STATE 1
#define SEQ_FILE_ANSWER 2

struct db_platform {
	int64_t id;
	int64_t create_time;
	char *name;
	char *user_friendly_name;
	int deprecated;
};

struct db_app {
	int64_t id;
	int64_t create_time;
	char *name;
	int min_version;
	int deprecated;
	char *user_friendly_name;
	int homogeneous_redundancy;
	double weight;
	int beta;
	int target_nresults;
	int trust_after;                /* wseq: adaptive replication (schema.sql) */
	double spot_check;
	double min_avg_pfc;
	int host_scale_check;
	int homogeneous_app_version;
	int non_cpu_intensive;
	int locality_scheduling;
	int n_size_classes;
	int fraction_done_exact;
	char *keywords;
	int is_seq_app;
	int any_executable;
};

struct db_app_version {
	int64_t id;
	int64_t create_time;
	int64_t appid;
	int version_num;
	int64_t platformid;
	char *xml_doc;
	int min_core_version;
	int max_core_version;
	int deprecated;
	char *plan_class;
	double pfc_n;
	double pfc_avg;
	double pfc_scale;
	double expavg_credit;
	double expavg_time;
	int beta;
};

struct db_user {
	int64_t id;
	int64_t create_time;
	char *email_addr;
	char *name;
	char *authenticator;
	char *country;
	char *postal_code;
	double total_credit;
	double expavg_credit;
	double expavg_time;
	char *global_prefs;
	char *project_prefs;
	int64_t teamid;
	char *venue;
	char *url;
	int send_email;
	int show_hosts;
	int posts;
	int seti_id;
	int seti_nresults;
	int seti_last_result_time;
	double seti_total_cpu;
	char *signature;
	int has_profile;
	char *cross_project_id;
	char *passwd_hash;
	int email_validated;
	int donated;
	char *login_token;
	double login_token_time;
	char *previous_email_addr;
	double email_addr_change_time;
};

/* Teams: name_lc is the name lower-cased (unique); nusers counts members. */
struct db_team {
	int64_t id;
	int64_t create_time;
	int64_t userid;
	char *name;
	char *name_lc;
	char *url;
	int type;
	char *name_html;
	char *description;
	int nusers;
	char *country;
	double total_credit;
	double expavg_credit;
	double expavg_time;
	int seti_id;
	int64_t ping_user;
	int64_t ping_time;
	int joinable;
};

/* A job for one host, user or team (create_work --target_*). */
struct db_assignment {
	int64_t id;
	int64_t create_time;
	int64_t target_id;
	int target_type;        /* ASSIGN_HOST, ASSIGN_USER, ASSIGN_TEAM */
	int multi;
	int64_t workunitid;
	int64_t resultid;
};
#define ASSIGN_HOST 1
#define ASSIGN_USER 2
#define ASSIGN_TEAM 3

/* A web login session: token_hash is md5 of the cookie's token. */
struct db_web_session {
	int64_t id;
	char *token_hash;
	int64_t userid;
	int64_t create_time;
	int64_t expire_time;
};

/* A mailed link (mail_token): token_hash is md5 of the link's token. */
struct db_mail_token {
	int64_t id;
	char *token_hash;
	int64_t userid;
	int kind;                       /* MAIL_TOKEN_* */
	int64_t create_time;
	int64_t expire_time;
	int64_t used_time;              /* 0: not yet used */
	char *data;                     /* an address change: the new address */
};
/* A news item (news): plain text, posted by an admin (author: the admin's name). */
struct db_news {
	int64_t id;
	int64_t create_time;
	int64_t mod_time;
	char *title;
	char *text;
	char *author;
	int withdrawn;                  /* 1: shown nowhere */
};

#define MAIL_TOKEN_RESET 1
#define MAIL_TOKEN_EMAIL 2
#define MAIL_TOKEN_DELETE 3

struct db_host {
	int64_t id;
	int64_t create_time;
	int64_t userid;
	int rpc_seqno;
	int64_t rpc_time;
	double total_credit;
	double expavg_credit;
	double expavg_time;
	int timezone;
	char *domain_name;
	char *serialnum;
	char *last_ip_addr;
	int nsame_ip_addr;
	double on_frac;
	double connected_frac;
	double active_frac;
	double cpu_efficiency;
	double duration_correction_factor;
	int p_ncpus;
	char *p_vendor;
	char *p_model;
	double p_fpops;
	double p_iops;
	double p_membw;
	char *os_name;
	char *os_version;
	double m_nbytes;
	double m_cache;
	double m_swap;
	double d_total;
	double d_free;
	double d_boinc_used_total;
	double d_boinc_used_project;
	double d_boinc_max;
	double n_bwup;
	double n_bwdown;
	double credit_per_cpu_sec;
	char *venue;
	int nresults_today;
	double avg_turnaround;
	char *host_cpid;
	char *external_ip_addr;
	int max_results_day;
	double error_rate;
	char *product_name;
	double gpu_active_frac;
	int p_ngpus;
	double p_gpu_fpops;
	char *misc;
};

struct db_workunit {
	int64_t id;
	int64_t create_time;
	int64_t appid;
	char *name;
	char *xml_doc;
	int64_t batch;
	double rsc_fpops_est;
	double rsc_fpops_bound;
	double rsc_memory_bound;
	double rsc_disk_bound;
	int need_validate;
	int64_t canonical_resultid;
	double canonical_credit;
	int64_t transition_time;
	int delay_bound;
	int error_mask;
	int file_delete_state;
	int assimilate_state;
	int hr_class;
	double opaque;
	int min_quorum;
	int target_nresults;
	int max_error_results;
	int max_total_results;
	int max_success_results;
	char *result_template_file;
	int priority;
	int64_t mod_time;               /* read-only: set by the server on every change */
	double rsc_bandwidth_bound;
	int64_t fileset_id;
	int64_t app_version_id;
	int transitioner_flags;
	int size_class;
	char *keywords;
	int app_version_num;
	int64_t seq_id;                 /* wseq: segment of this sequence, 0 if none */
	int seqno;
	int branch;
	int files_indexed;              /* wseq: input files recorded in wu_file (file deleter) */
};

struct db_result {
	int64_t id;
	int64_t create_time;
	int64_t workunitid;
	int server_state;
	int outcome;
	int client_state;
	int64_t hostid;
	int64_t userid;
	int64_t report_deadline;
	int64_t sent_time;
	int64_t received_time;
	char *name;
	double cpu_time;
	char *xml_doc_in;
	char *xml_doc_out;
	char *stderr_out;
	int64_t batch;
	int file_delete_state;
	int validate_state;
	int validate_why;               /* wseq: VALIDATE_WHY_* */
	double claimed_credit;
	double granted_credit;
	double opaque;
	int random;
	int app_version_num;
	int64_t appid;
	int exit_status;
	int64_t teamid;
	int priority;
	int64_t mod_time;               /* read-only */
	double elapsed_time;
	double flops_estimate;
	int64_t app_version_id;
	int runtime_outlier;
	int size_class;
	double peak_working_set_size;
	double peak_swap_size;
	double peak_disk_usage;
	int64_t seq_id;                 /* wseq: the workunit's seq_id */
	int64_t lease_until;            /* wseq: claimed ahead by a scheduler process until then */
};

struct db_batch {
	int64_t id;
	int64_t user_id;
	int64_t create_time;
	double logical_start_time;
	double logical_end_time;
	double est_completion_time;
	int njobs;
	double fraction_done;
	int nerror_jobs;
	int state;
	double completion_time;
	double credit_estimate;
	double credit_canonical;
	double credit_total;
	char *name;
	int64_t app_id;
	int project_state;
	char *description;
	double expire_time;
};

struct db_job_file {
	int64_t id;
	char *name;
	double create_time;
	double delete_time;
};

struct db_batch_file_assoc {
	int64_t job_file_id;
	int64_t batch_id;
};

struct db_user_submit {
	int64_t user_id;
	double quota;
	double logical_start_time;
	int submit_all;
	int manage_all;
	int max_jobs_in_progress;
	int any_executable;
};

struct db_user_submit_app {
	int64_t user_id;
	int64_t app_id;
	int manage;
};

struct db_sequence {
	int64_t id;
	int64_t create_time;
	char *name;
	int64_t appid;
	int64_t userid;
	int64_t batch;
	int64_t groupid;
	int is_master;
	int64_t hostid;                 /* 0: unassigned */
	int64_t assign_time;
	double max_result_time;
	int first_unvalidated_seqno;
	int first_unsent_seqno;
	int nsegments;
	int target_nsegments;           /* 0: open-ended */
	int answer_every;               /* N */
	int state_upload_every;         /* M */
	int high_water;
	int branch;                     /* the live branch */
	int last_state_seqno;
	int state;                      /* SEQ_STATE_* */
	int need_relocate;              /* SEQ_RELOCATE_* */
	int nrelocations;
	char *error_msg;
	char *wu_template;
	char *result_template_file;
	double rsc_fpops_est;
	double rsc_fpops_bound;
	double rsc_memory_bound;
	double rsc_disk_bound;
	int delay_bound;
	int priority;
	double opaque;
	char *command_line;             /* every segment's (the app's arguments) */
	int64_t mod_time;               /* read-only */
};

struct db_sequence_group {
	int64_t id;
	int64_t create_time;
	char *name;
	int64_t master_seqid;
	int nmembers;
	int min_quorum;
	int state;
	int64_t mod_time;               /* read-only */
};

struct db_seq_file {
	int64_t id;
	int64_t create_time;
	char *name;
	int64_t seq_id;
	int branch;
	int seqno;
	int kind;                       /* SEQ_FILE_STATE or SEQ_FILE_ANSWER */
	int upload;                     /* 1: uploaded at the end of its segment */
	int uploaded;                   /* 1: present on the server */
	int64_t upload_time;
	double nbytes;
	char *md5_cksum;
	int file_delete_state;
};

struct db_schema_version {
	int version;
	int64_t applied_time;
	char *description;
};

struct db_query;

/* The descriptors, and all of them for tests and tools. */
extern const struct db_table db_platform_table, db_app_table, db_app_version_table,
	db_user_table, db_host_table, db_team_table, db_workunit_table, db_result_table, db_batch_table,
	db_job_file_table, db_batch_file_assoc_table, db_user_submit_table,
	db_user_submit_app_table, db_sequence_table, db_sequence_group_table,
	db_seq_file_table, db_schema_version_table, db_web_session_table, db_assignment_table,
	db_mail_token_table, db_news_table;
/* The workunit table in a query that joins another (its columns named workunit.column). */
extern const struct db_table db_workunit_joined;
extern const struct db_table *const db_all_tables[];
extern const size_t db_ntables;

/*
 * Every column of row, a row of t, as an XML element named for it, in the
 * table's order at indent (text escaped); the columns named in omit (a
 * NULL-terminated list, or NULL) left out. What a person may read of their
 * own rows is then all there is, by construction.
 */
void db_row_xml(struct sbuf *b, const struct db_table *t, const void *row, int indent,
		const char *const *omit);

#define DB_RECORD_COMMON(T)                                                              \
	int db_##T##_insert(struct db *db, struct db_##T *r);                            \
	int db_##T##_update(struct db *db, const struct db_##T *r);                      \
	int db_##T##_lookup(struct db *db, struct db_##T *r);                            \
	int db_##T##_delete(struct db *db, const struct db_##T *r);                      \
	int db_##T##_enum(struct db *db, const char *tail, const struct db_val *vals,     \
			  size_t nvals, int (*fn)(struct db_##T *, void *), void *arg);  \
	int db_##T##_count(struct db *db, const char *tail, const struct db_val *vals,    \
			   size_t nvals, int64_t *count);                                \
	int db_##T##_query(struct db *db, const struct db_query *q,                      \
			   const struct db_val *vals, size_t nvals,                      \
			   int (*fn)(struct db_##T *, void *), void *arg);               \
	void db_##T##_release(struct db_##T *r);
#define DB_ID_RECORD(T)                                                                  \
	DB_RECORD_COMMON(T)                                                              \
	int db_##T##_lookup_id(struct db *db, int64_t id, struct db_##T *r);
#define DB_NAMED_RECORD(T)                                                               \
	DB_ID_RECORD(T)                                                                  \
	int db_##T##_lookup_name(struct db *db, const char *name, struct db_##T *r);

DB_NAMED_RECORD(platform)
DB_NAMED_RECORD(app)
DB_ID_RECORD(app_version)
DB_ID_RECORD(user)
DB_ID_RECORD(host)
DB_ID_RECORD(team)
DB_ID_RECORD(web_session)
DB_ID_RECORD(mail_token)
DB_ID_RECORD(news)
DB_ID_RECORD(assignment)
DB_NAMED_RECORD(workunit)
DB_NAMED_RECORD(result)

/* Result rows read into a list (its strings are the list's): db_result_list_take is a
 * db_result_enum/query callback appending to a struct db_result_list. */
struct db_result_list {
	struct db_result *v;
	size_t n;
};
int db_result_list_take(struct db_result *r, void *list);
void db_result_list_release(struct db_result_list *l);
DB_ID_RECORD(batch)
DB_NAMED_RECORD(job_file)
DB_RECORD_COMMON(batch_file_assoc)
DB_RECORD_COMMON(user_submit)
DB_RECORD_COMMON(user_submit_app)
DB_NAMED_RECORD(sequence)
DB_NAMED_RECORD(sequence_group)
DB_NAMED_RECORD(seq_file)

/* By the unique authenticator (the scheduler and submit RPCs) or email address. */
int db_user_lookup_auth(struct db *db, const char *authenticator, struct db_user *r);
int db_user_lookup_email(struct db *db, const char *email_addr, struct db_user *r);

#endif
