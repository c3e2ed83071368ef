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

struct db;
struct project_config;
struct db_sequence;

/* Names: "S_b<branch>_s<seqno>" for segment workunits, "..._0" for their result. */
char *seq_wu_name(const char *seq, int branch, int seqno);
char *seq_state_name(const char *seq, int branch, int seqno);
char *seq_answer_name(const char *seq, int branch, int seqno);

/* Does segment k upload its state / its answer? */
bool seq_uploads_state(const struct db_sequence *s, int seqno);
bool seq_uploads_answer(const struct db_sequence *s, int seqno);

/* What create_sequence asks for. */
struct seq_spec {
	const char *name;
	int64_t appid;
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
};

/*
 * Insert the sequence, stage its initial state (a local file) as
 * S_b0_s0_state, and make segments 1..segments. Nothing is committed here:
 * the caller's transaction makes it whole. 0 / -1 (logged) / DB_RETRY.
 */
int seq_create(struct db *db, const struct project_config *cfg, const struct seq_spec *spec,
	       const char *initial_state, struct db_sequence *out);

/*
 * Make segments from..to on the sequence's live branch: their workunits
 * (segment from's input: input_name, the previous segment's sticky state,
 * or -- when input_url is given -- a state file the host downloads; each
 * later one reads its predecessor's), their one result each (server_state
 * INACTIVE: only the sequence scheduler sends them) and the seq_file rows
 * of their outputs, with three INSERT statements.
 */
int seq_make_segments(struct db *db, const struct project_config *cfg,
		      const struct db_sequence *s, int from, int to, const char *input_name,
		      const char *input_url, const char *input_md5, double input_nbytes);

#endif
