/*
 * What the sweep endpoints check in a /complete body before they take it
 * (the sweep design, doc/seeds.md; doc/sweep-protocol.md): a results body with a [Result] for
 * every result the ticket's task asks for, and no other.
 */
#ifndef WSEQ_SWEEP_CHECK_H
#define WSEQ_SWEEP_CHECK_H

#include "common.h"
#include "sbuf.h"

/*
 * task is the task's body from CommandLine on (a task workunit's xml_doc;
 * NULL: unknown), body the results of len bytes. 0 if they are the
 * results of that task; 1 with the reason in why if not (empty, not a
 * results body, a result missing or one the task does not ask for); -1
 * with the reason in why if the task itself cannot be read.
 */
int sweep_check_results(const char *task, const char *body, size_t len, struct sbuf *why);

#endif
