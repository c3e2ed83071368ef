/*
 * Which uploaded state versions of a work sequence a restart may still need
 * (issue 30). The restart point never falls below
 * K = min(last_state_seqno, first_unvalidated_seqno - 1): the relocator
 * restarts after last_state_seqno, and the validator, judging a segment
 * invalid, moves it back no further than the latest state below the first
 * unvalidated segment. A restart after any point >= K reads, for each state
 * file, its latest version on the server from a segment <= that point -- at
 * least as new as the latest one <= K. So a version older than that one (by
 * seqno, then branch: the relocator's order) is superseded and may go; the
 * initial states (segment 0, the submitter's input), every version after K
 * and every answer stay. In a sequence group K is the least of the
 * members': the validator compares a member's segment with the others'
 * (their outputs, states among them) until each has passed it. The file
 * deleter deletes by this rule (and only versions whose segment is
 * assimilated: the assimilator copies them) and db_check checks that what
 * it keeps is on the server.
 */
#ifndef WSEQ_SEQ_KEEP_H
#define WSEQ_SEQ_KEEP_H

#include "db_records.h"

#include <stdbool.h>
#include <stddef.h>

/* K of sequence s alone (0: nothing after the initial states is needed yet). */
int seq_keep_point(const struct db_sequence *s);
/* K of s in its group: the least of seq_keep_point over s and m[0..n) of its group. */
int seq_keep_group_point(const struct db_sequence *s, const struct db_sequence *m, size_t n);
/* The index of state file f in its segment (-1: not a state file; seq_state_index). */
int seq_keep_file_index(const struct db_seq_file *f);
/*
 * The name of state file i of layout l for people: its level's name, else
 * "state" when it is the only one, else "state file i".
 */
struct seq_layout;
void seq_keep_level_name(const struct seq_layout *l, size_t i, char *out, size_t n);
/*
 * The uploaded state versions f[0..n) of sequence s, in the relocator's
 * order (seqno descending, then branch descending): need[j] is set when
 * f[j] is the version of its file a restart after k reads, superseded[j]
 * when it may be deleted. Either may be NULL.
 */
void seq_keep_classify(const struct db_sequence *s, int k, const struct db_seq_file *f, size_t n,
		       bool *need, bool *superseded);

#endif
