/*
 * Which segment of a work sequence a state input came from, for apps with
 * state levels (the sample app's --levels, the wrapper's WSEQ_* variables;
 * doc/create_sequence.md, "Writing an app with state levels"). The server
 * names state files NAME_b<branch>_s<seqno>_state[<i>] (backend/sequence.h,
 * seq_state_name), and a relocated branch's first segment reads each state
 * file's latest version on the server, so its inputs may come from different
 * segments: the app reads the seqno from the physical name that
 * boinc_resolve_filename gives for the logical one.
 */
#ifndef WSEQ_APP_SEQNO_H
#define WSEQ_APP_SEQNO_H

/* The seqno in path's last component (0: an initial state); -1 if it is not a state file's name. */
long app_state_seqno(const char *path);

#endif
