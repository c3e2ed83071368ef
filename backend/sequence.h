/*
 * Work sequences: creating a sequence (its head, its initial state and its
 * segments) and the names and XML of segments, shared by create_sequence,
 * extend_sequence, the relocator and the scheduler. See
 * doc/sequences-design.md for the scheme.
 */
#ifndef WSEQ_SEQUENCE_H
#define WSEQ_SEQUENCE_H

#include "common.h"
#include "sbuf.h"
#include "seq_policy.h"

struct db;
struct project_config;
struct db_sequence;
struct db_workunit;
struct db_result;
struct db_seq_file;
struct seq_layout;

/*
 * Names: "S_b<branch>_s<seqno>" for segment workunits, "..._0" for their
 * result; state file i of a segment "..._state" (i = 0) or "..._state<i>",
 * answer file i "..._answer" or "..._answer<i>".
 */
char *seq_wu_name(const char *seq, int branch, int seqno);
char *seq_state_name(const char *seq, int branch, int seqno, size_t i);
char *seq_answer_name(const char *seq, int branch, int seqno, size_t i);
/* The index i of a state file name seq_state_name made, or -1 if it is not one. */
int seq_state_index(const char *name);

/* The policy's views (seq_policy.h) of a head, and of segment seqno's result on branch. */
void seq_view_of(const struct db_sequence *s, struct seq_view *v);
/* The state levels of layout l into v (seq_view_of leaves one state at the sequence's M). */
void seq_view_levels(struct seq_view *v, const struct seq_layout *l);
void seg_view_of(const struct db_result *r, int seqno, int branch, struct seg_view *g);
/* seq_view_of and seq_view_levels of the sequence's template: 0 or -1 (logged). */
int seq_view_load(const struct project_config *cfg, const struct db_sequence *s,
		  struct seq_view *v);

/*
 * The restart rule (seq_policy_restart_point) over the database (seq_restart.c).
 * The rows among f[0..n) of sequence seq_id as the rule sees them, into
 * rows[] (room for n), idx[j] the index in f of rows[j]; their number.
 */
size_t seq_state_rows_of(const struct db_seq_file *f, size_t n, int64_t seq_id,
			 struct seq_state_row *rows, size_t *idx);
/* Is segment k of sequence s (view v, with its levels) a restart point? DB_OK or an error. */
int seq_restart_check(struct db *db, const struct db_sequence *s, const struct seq_view *v,
		      int k, bool *is);
/* The latest restart point <= upto (0: none), for going back from an invalid segment. */
int seq_restart_latest(struct db *db, const struct db_sequence *s, const struct seq_view *v,
		       int upto, int *k);

/*
 * Which state files of layout l segment k uploads (bit i: file i, by
 * seq_policy_state_mask), and does it upload its answers (seq_policy_uploads)?
 */
unsigned seq_state_uploads(const struct db_sequence *s, const struct seq_layout *l, int seqno);
bool seq_uploads_answer(const struct db_sequence *s, int seqno);

/*
 * The files of every segment: from the sequence template (the sequence's
 * wu_template, a file relative to the project directory) or, without one,
 * one state (state_in -> state_out) and one answer (answer):
 *
 *   <sequence_template>
 *     <state><open_name_in>state_in</open_name_in>
 *            <open_name_out>state_out</open_name_out>
 *            <max_nbytes>1e9</max_nbytes></state>      (max_nbytes optional)
 *     <answer><open_name>answer</open_name><max_nbytes>1e7</max_nbytes></answer>
 *   </sequence_template>
 *
 * 1 to SEQ_MAX_FILES state files, 0 to SEQ_MAX_FILES answer files. State
 * levels (issue 30): <level><name>full</name><upload_every>12</upload_every>
 * </level> declares a period; a <state> takes one by <level>full</level>,
 * or its own by <upload_every>3</upload_every>, or neither: the sequence's
 * M. Refused: periods that do not nest, a level no state uses, a state
 * naming an undeclared level or having both, a level declared twice, a
 * period that is not a whole number 1 to 1e6.
 */
struct seq_layout {
	size_t nstate, nanswer;
	struct {
		char *open_in, *open_out;
		double max_nbytes;      /* 0: the sequence's rsc_disk_bound */
		int upload_every;       /* its level's period (0: the sequence's M) */
		char *level;            /* its level's name (NULL: none given) */
	} state[SEQ_MAX_FILES];
	struct {
		char *open_name;
		double max_nbytes;
	} answer[SEQ_MAX_FILES];
};

/*
 * Do the template's periods nest with the sequence's M, which the states
 * with no level of their own take? 0, or -1 (logged, what first: the
 * sequence's name). Where a sequence is created or its M is known.
 */
int seq_layout_check_every(const struct seq_layout *l, int state_upload_every, const char *what);
/* Read a template (path relative to project_dir; NULL or "": the default). 0 or -1 (logged). */
int seq_layout_load(const char *project_dir, const char *path, struct seq_layout *l);
/* The same from text in memory (name for errors); for tests and the fuzzer. */
int seq_layout_parse(const char *text, size_t len, const char *name, struct seq_layout *l);
void seq_layout_release(struct seq_layout *l);

/* The number of state files of the sequence's segments; 0 if its template is unreadable (logged). */
size_t seq_nstate_files(const struct project_config *cfg, const struct db_sequence *s);

/* An input state of the first segment of a branch (one per state file). */
struct seq_input {
	const char *name;       /* physical name */
	const char *url;        /* download URL, or NULL: the host holds it (sticky) */
	const char *md5;
	double nbytes;
	bool upload;            /* sticky, and its segment uploads it: the upload URL goes along */
};

/* What create_sequence asks for. */
struct seq_spec {
	const char *name;
	int64_t appid;
	const char *seq_template;   /* NULL or "": one state, one answer */
	int segments;
	int answer_every;
	int state_upload_every;
	int high_water;
	double max_result_time;
	int delay_bound;
	double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
	double state_max_nbytes, answer_max_nbytes;
	const char *command_line;
	int priority;
	bool open_ended;        /* no known length (target_nsegments 0) */
	int64_t batch;          /* a remote submission's batch, else 0 */
};

/*
 * A sequence app: an app whose jobs submitted through the remote submission
 * RPCs become work sequences. templates/APP_seq marks it and holds the plan,
 * create_sequence's options as elements (the same defaults):
 *
 *   <sequence_app>
 *     <segments>30</segments>                   (required)
 *     <answer_every>1</answer_every>
 *     <state_upload_every>1</state_upload_every>
 *     <high_water>2</high_water>
 *     <max_result_time>86400</max_result_time>
 *     <delay_bound>0</delay_bound>              (0: 2 x max_result_time)
 *     <state_max_nbytes>1e9</state_max_nbytes>
 *     <seq_template>templates/APP_layout</seq_template>   (optional)
 *     <open_ended/>           (the length is not known: extend_sequence adds more)
 *   </sequence_app>
 *
 * 1 with spec's plan fields set (seq_template allocated: free it), 0 if the
 * app is not a sequence app, -1 if its plan is wrong (logged, why in err).
 */
int seq_app_plan_load(const char *project_dir, const char *app, struct seq_spec *spec,
		      struct sbuf *err);
/* The plan from text in memory (name for errors): 1 or -1; for tests and the fuzzer. */
int seq_app_plan_parse(const char *text, size_t len, const char *name, struct seq_spec *spec,
		       struct sbuf *err);

/*
 * Insert the sequence, stage its initial states (local files, one per state
 * file of the template) as S_b0_s0_state<i>, and make segments 1..segments.
 * Nothing is committed here: the caller's transaction makes it whole.
 * 0 / -1 (logged) / DB_RETRY.
 */
int seq_create(struct db *db, const struct project_config *cfg, const struct seq_spec *spec,
	       char *const *initial_states, size_t ninitial, struct db_sequence *out);

/*
 * Make segments from..to on the sequence's live branch: their workunits
 * (segment from's inputs: in[], one per state file -- a previous segment's
 * sticky state, or, with a URL, a state file the host downloads; in NULL:
 * the states of segment from-1 of the live branch, kept by its host; each
 * later one reads its predecessor's), their one result each (server_state
 * INACTIVE: only the sequence scheduler sends them) and the seq_file rows
 * of their outputs, with three INSERT statements.
 */
int seq_make_segments(struct db *db, const struct project_config *cfg,
		      const struct db_sequence *s, int from, int to, const struct seq_input *in,
		      size_t nin);

/*
 * The same in steps, for many sequences at once (the relocator): rows of
 * segments built in memory by seq_rows_add (in as above; the caller keeps
 * in[] and l alive only during the call), written by seq_rows_insert with
 * three INSERT statements whatever their number. Zero-initialise, free with
 * seq_rows_release.
 */
struct seq_rows {
	struct db_workunit *wu;
	struct db_result *res;
	struct db_seq_file *files;
	size_t n, cap, nfiles, cap_files;
};
void seq_rows_add(struct seq_rows *r, const struct project_config *cfg,
		 const struct db_sequence *s, const struct seq_layout *l, int from, int to,
		 const struct seq_input *in);
int seq_rows_insert(struct db *db, struct seq_rows *r);
void seq_rows_release(struct seq_rows *r);

/*
 * Segments from..to of the live branch, segment from reading the states of
 * segment from-1 of the same branch, which its host keeps (extension, and the
 * scheduler making a relocated branch's next segment when it is due).
 */
int seq_make_following(struct db *db, const struct project_config *cfg,
		       const struct db_sequence *s, int from, int to);

#endif
