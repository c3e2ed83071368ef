/*
 * The decisions of work sequences as pure functions (issue 17): which
 * segments are sent up to the high-water mark, which outputs a segment
 * uploads, which sequence a host may take, when a segment is late, what a
 * finished, failed, invalid or late segment means for its sequence, when a
 * host has lost a state, and from which state a relocation restarts.
 *
 * Plain structs in, plain answers out: no database, no clock (times are
 * arguments), no allocation, no logging. The scheduler, the transitioner,
 * the validator, the relocator and sequence creation call these, and so
 * can a simulator with its own data: there is one copy of each decision.
 * Reason codes are the SEQ_RELOCATE_* values of db_records.h, repeated here
 * so that a caller needs nothing of the database.
 */
#ifndef WSEQ_SEQ_POLICY_H
#define WSEQ_SEQ_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a sequence is moved (the values of SEQ_RELOCATE_* in db_records.h). */
enum seq_reason {
	SEQ_REASON_NONE = 0,
	SEQ_REASON_DEADLINE = 1,        /* a segment missed its deadline */
	SEQ_REASON_ERROR = 2,           /* an erroneous or invalid segment, or a lost state */
	SEQ_REASON_SLOW = 3,            /* the host took longer than max_result_time */
};

/* At most this many state files, and answer files, per segment. */
#define SEQ_MAX_FILES 8

/* A sequence as the decisions see it. */
struct seq_view {
	int64_t groupid;                /* 0: in no group */
	bool active;                    /* neither ended nor failed */
	int branch;                     /* the live branch */
	int nsegments;                  /* segments made so far (the last one's seqno) */
	int target_nsegments;           /* 0: open-ended */
	int first_unsent;               /* seqno of the next segment to send */
	int high_water;                 /* segments in flight on the host at most */
	int answer_every;               /* N: answers uploaded every Nth segment */
	int state_upload_every;         /* M: states uploaded every Mth segment */
	int last_state_seqno;           /* the latest restart point: a segment whose finest level,
					   and every state it uploads, is on the server */
	enum seq_reason relocating;     /* why it waits for the relocator (NONE: it does not) */
	double max_result_time;         /* seconds a segment may take on a host (0: no limit) */
	double rsc_fpops_est;           /* a segment's estimated floating-point operations */
	/*
	 * State levels (issue 30): state file i is uploaded every
	 * state_every[i]-th segment (<= 0: every state_upload_every-th). With
	 * nstate 0 there is one state file, at state_upload_every.
	 */
	size_t nstate;
	int state_every[SEQ_MAX_FILES];
};

/* A segment's state, as the server last knew it. */
enum seg_status {
	SEG_INACTIVE,                   /* made, not sent */
	SEG_IN_PROGRESS,                /* sent, not reported */
	SEG_SUCCESS,                    /* reported done (validation may follow) */
	SEG_ERROR,                      /* reported failed, or aborted */
	SEG_LATE,                       /* not reported by its deadline */
	SEG_INVALID,                    /* reported done, judged wrong by the validator */
};

/* One segment of a sequence. */
struct seg_view {
	int seqno;                      /* 1-based */
	int branch;
	int64_t hostid;                 /* the host it was sent to (0: none) */
	enum seg_status status;
	double deadline;                /* report deadline (IN_PROGRESS) */
	double elapsed;                 /* run time the host reported (SUCCESS) */
};

/* A host asking for work, as the decisions see it. */
struct host_view {
	int64_t id;
	double p_fpops;                 /* benchmark; <= 0: unknown (1e9 assumed) */
	double avg_turnaround;          /* measured seconds per job; 0: none yet */
	int ncpus;                      /* <= 0: unknown (1 assumed) */
	int failures;                   /* segments of the candidate sequence this host failed
					   (error, invalid, too slow: db_result_seq_host_failed) */
	int ngpus;                      /* its GPUs and other coprocessors (0: none) */
};

/* ---- Layout: which outputs segment seqno uploads (the rest stay on the host). */
#define SEQ_UPLOAD_ANSWER 1u
#define SEQ_UPLOAD_STATE 2u
/*
 * Answer every N-th segment, state every M-th (N or M <= 0: never), both at
 * the last segment of a sequence of known length.
 */
unsigned seq_policy_uploads(const struct seq_view *s, int seqno);
/*
 * State levels. A state file's period: its own, or the sequence's M (0:
 * never). The finest period is the smallest of them; periods nest when each
 * divides every larger one (checked when a template is read). Segment seqno
 * uploads state file i when its period divides seqno, and every state file
 * at the last segment of a known length: bit i of seq_policy_state_mask.
 * SEQ_UPLOAD_STATE of seq_policy_uploads is set when any is (with nested
 * periods: when the finest level is), and a segment that sets it is a
 * restart point once those files are on the server.
 */
int seq_policy_state_period(const struct seq_view *s, size_t i);
int seq_policy_finest_period(const struct seq_view *s);
unsigned seq_policy_state_mask(const struct seq_view *s, int seqno);
/*
 * Do periods p[0..n) nest? Each > 0, and each divides every larger one.
 * If not, *bad is an index of one that does not (or is <= 0).
 */
bool seq_policy_levels_nest(const int *p, size_t n, size_t *bad);
/*
 * For a restart after segment k, the segment whose version of state file i
 * the new branch reads, by the periods: the largest j <= k that uploads file
 * i (0: the initial state). The relocator takes the latest version on the
 * server, which is this one or -- after an extension made a former last
 * segment upload everything -- a later one.
 */
int seq_policy_state_source(const struct seq_view *s, size_t i, int k);

/*
 * The restart rule over a sequence's state rows (seq_file, kind state). The
 * rows given must be every branch's rows at each seqno they include; at a
 * seqno only the newest branch's rows count (older ones are dead branches).
 * The initial states are rows of seqno 0.
 */
struct seq_state_row {
	int seqno;
	int branch;
	size_t file;                    /* the state file's index (seq_state_index) */
	bool upload;                    /* its segment uploads it */
	bool uploaded;                  /* it is on the server */
};
/*
 * The version of state file i a restart after segment k reads: the row, of
 * the newest branch at its seqno, uploaded, with the largest seqno <= k;
 * its index in rows, or -1 if none.
 */
int seq_policy_restart_input(const struct seq_state_row *rows, size_t n, size_t i, int k);
/*
 * Is segment k (>= 1) a restart point? Its rows that upload are all
 * uploaded (at least one), and for every state file i a version from
 * segment seq_policy_state_source(s, i, k) or later is on the server.
 * The scheduler sets last_state_seqno by it, the validator goes back to the
 * latest one, the relocator reads seq_policy_restart_input of each file.
 */
bool seq_policy_restart_point(const struct seq_view *s, const struct seq_state_row *rows,
			      size_t n, int k);
/*
 * The seqnos whose rows decide seq_policy_restart_point(s, ., ., k): 0, the
 * source of each state file, and k; written to out[] (room for
 * SEQ_MAX_FILES + 2), their number returned.
 */
size_t seq_policy_restart_seqnos(const struct seq_view *s, int k, int out[]);

/* ---- Sending: the scheduler, every RPC of a host holding s. */
/*
 * The seqnos to send now so that high_water segments are in flight, from
 * first_unsent on and none past nsegments: written to out[] (at most max),
 * their number returned. in_flight: the host's segments of s on the live
 * branch still in progress.
 */
size_t seq_policy_segments_to_send(const struct seq_view *s, int in_flight, int out[],
				   size_t max);
/*
 * The oldest state of the live branch the host still needs: the input of its
 * oldest segment in flight (lowest_in_flight, 0: none) or, with none, of the
 * next segment to send. Older states, and every state of another branch or
 * of a sequence the host does not hold, are deleted from the host.
 */
int seq_policy_oldest_needed_state(const struct seq_view *s, int lowest_in_flight);
/*
 * Has the host lost a state its next segment reads? prev: segment
 * first_unsent-1 of the live branch (NULL: none, or first_unsent is 1). Only
 * a segment the host itself finished leaves states it must hold; nstate of
 * them, nheld listed by the host. Lost: the sequence is relocated (ERROR).
 */
bool seq_policy_state_lost(const struct seq_view *s, const struct seg_view *prev,
			   int64_t hostid, size_t nstate, size_t nheld);
/*
 * Has the host lost a segment of a sequence (resend_lost_results)? listed[i]:
 * whether its client still lists each of its n in-progress segments of the
 * sequence; lists_results: the request lists the client's results at all.
 * A lost segment took its state with it: the sequence is relocated (ERROR)
 * from its last safe point, never resent to the same host.
 */
bool seq_policy_segment_lost(bool resend_lost_results, bool lists_results, const bool listed[],
			     size_t n);

/* ---- Assignment: which sequence a host gets. */
/*
 * How many sequences a host may hold: seqs_per_cpu per CPU plus seqs_per_gpu
 * per GPU if either is > 0, else seqs_per_host.
 */
size_t seq_policy_allowance(const struct host_view *h, long seqs_per_host, long seqs_per_cpu,
			    long seqs_per_gpu);
/*
 * May host h take the unassigned sequence s, holding held[0..nheld)? Only if
 * it can finish a segment within max_result_time (by its benchmark, and by
 * its measured turnaround if it has one), holds no other member of s's group
 * (the replicas would not be independent: a group's master and members go
 * to different hosts) and never failed s before (h->failures == 0). The
 * allowance, the host's quota, its memory and disk and the app versions are
 * the caller's to check.
 */
bool seq_policy_may_take(const struct host_view *h, const struct seq_view *s,
			 const struct seq_view *held, size_t nheld);

/* ---- Outcomes: the transitioner, the scheduler's report handling, the validator. */
/* Is an in-progress segment late at time now? (The same rule as any result's timeout.) */
bool seq_policy_segment_late(const struct seg_view *g, double now);

enum seq_next {
	SEQ_NEXT_GO_ON,                 /* nothing changes for the sequence */
	SEQ_NEXT_END,                   /* its last segment is done: the sequence ends */
	SEQ_NEXT_RELOCATE,              /* move it to another host (*reason says why) */
};
/*
 * What segment g, just reported, timed out or judged, means for sequence s.
 * A segment of another branch, or of a sequence no longer active, or of one
 * waiting to be relocated because a segment failed or was late (that
 * segment has no output to keep: the relocator recomputes it), changes
 * nothing. Else: an error or an invalid result relocates (ERROR), a late one
 * relocates (DEADLINE), a success of the last segment of a known length ends
 * the sequence, a success that took longer than max_result_time relocates
 * (SLOW). *reason is set (SEQ_REASON_NONE unless relocating).
 */
enum seq_next seq_policy_after_segment(const struct seq_view *s, const struct seg_view *g,
				       enum seq_reason *reason);

/* ---- Relocation: from which state a new branch starts. */
enum seq_restart_kind {
	SEQ_RESTART_BRANCH,             /* a new branch from segment seqno */
	SEQ_RESTART_NOTHING_LEFT,       /* every segment's state is on the server: just unassign */
	SEQ_RESTART_IMPOSSIBLE,         /* the states it needs are not on the server: error */
};
struct seq_restart {
	enum seq_restart_kind kind;
	int seqno;                      /* the first segment of the new branch */
	bool from_initial;              /* its input: the initial states (seqno 1) */
	size_t nfound;                  /* states found of the segment before seqno */
	int recompute;                  /* segments already sent that are computed again */
};
/*
 * The new branch starts after the latest restart point (last_state_seqno:
 * for each state file its latest version from a segment <= that one, nlast
 * of nstate found), or, if some are missing, from the initial states
 * (ninitial of nstate found); with neither whole the sequence cannot be
 * moved.
 */
void seq_policy_restart_from(const struct seq_view *s, size_t nstate, size_t nlast,
			     size_t ninitial, struct seq_restart *r);

#endif
