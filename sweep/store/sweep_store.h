/*
 * The sweep's store: where a session's tasks and tickets live, behind one
 * interface with two implementations (doc/sweep-store.md):
 *
 *   - the embedded store (sweep_store_sqlite.c): one SQLite file in the
 *     master's state directory, written only by the master process (its
 *     embedded HTTP server's handlers and its run loop). It does the
 *     transitioner's work itself, in sweep_store_tick(): tickets past their
 *     deadline time out, and a task whose tickets failed, timed out or were
 *     judged invalid gets new ones until MaxTotal, then fails.
 *   - the project store (sweep_store_db.c): a wseq project's MariaDB, the
 *     session a batch "sweep:SID", a task a workunit, a ticket a result;
 *     the project's transitioner makes and times out tickets, so its tick
 *     does nothing.
 *
 * The same conformance tests run against both (test/unit/test_sweep_store.c
 * on SQLite, t6105-sweep-store.sh on a private MariaDB).
 *
 * Every call is one transaction: it happens whole or not at all, so the
 * master killed at any moment loses nothing and a restart carries on.
 * Return codes: SWEEP_STORE_OK, SWEEP_STORE_NOT_FOUND (no such session,
 * ticket, or no ticket to hand out), SWEEP_STORE_ERROR (the store failed;
 * the reason is logged, never a secret; the caller answers 503 and the
 * client tries again). Strings handed in are copied; strings handed out
 * belong to the record and go with its _release().
 */
#ifndef WSEQ_SWEEP_STORE_H
#define WSEQ_SWEEP_STORE_H

#include "common.h"
#include "sbuf.h"

enum {
	SWEEP_STORE_OK = 0,
	SWEEP_STORE_NOT_FOUND = 1,
	SWEEP_STORE_ERROR = -1,
};

/* A ticket's life. */
enum sweep_ticket_state {
	SWEEP_TICKET_UNSENT = 0,        /* waits to be handed out */
	SWEEP_TICKET_OUT,               /* handed out, no answer yet */
	SWEEP_TICKET_RETURNED,          /* its results came, not judged yet */
	SWEEP_TICKET_FAILED,            /* the client reported a failure */
	SWEEP_TICKET_TIMED_OUT,         /* no answer before its deadline */
	SWEEP_TICKET_VALID,             /* judged valid (its task's canonical one, or a later valid one) */
	SWEEP_TICKET_INVALID,           /* judged invalid */
	SWEEP_TICKET_CANCELLED,         /* never sent: its task ended first */
};

/* A task as sweep_store_create() is given it. */
struct sweep_task_new {
	size_t row;                     /* its row in the parameter table, from 1 */
	const char *body;               /* the /task body after Ticket and Timeout */
	int timeout;                    /* seconds a ticket may be out; 0 none */
	int max_assign;                 /* tickets out at once, and made at first */
	int max_total;                  /* tickets in all, then the task fails */
};

/* A ticket as the store reads it (sweep_ticket_release()). */
struct sweep_ticket {
	int64_t id;
	int64_t task;                   /* its task's id */
	size_t row;                     /* its task's row */
	char *name;                     /* the ticket the client holds; NULL before sent */
	enum sweep_ticket_state state;
	int64_t sent_time, deadline, received_time;    /* 0 until they happen */
	double elapsed;                 /* received_time - sent_time, seconds */
	char *note;                     /* "host=LABEL\n" at sending, then "why=REASON\n" lines */
	bool task_over;                 /* its task is done or failed (/ping answers 205) */
	char *body;                     /* its task's body (sweep_store_ticket() only; else NULL) */
};
void sweep_ticket_release(struct sweep_ticket *t);

/* The ticket /task hands out (sweep_claim_release()). */
struct sweep_claim {
	int64_t ticket;                 /* the ticket's id */
	int64_t task;
	size_t row;
	int timeout;
	char *body;
};
void sweep_claim_release(struct sweep_claim *c);

/* A task's state (for `sweep status`, collection and statistics). */
struct sweep_task_state {
	int64_t id;
	size_t row;
	char *canonical;                /* the name of its valid ticket; NULL not done */
	bool failed;                    /* out of tickets (MaxTotal) without a valid one */
	int nout;                       /* tickets out now */
	int nunsent;                    /* tickets waiting to be handed out */
};

/* A session's tasks counted, without a row a task (the run loop's look once a second). */
struct sweep_counts {
	int64_t total, done, failed;
	int64_t running;                /* tasks neither done nor failed with a ticket out */
	bool waiting;                   /* a ticket of such a task waits to be handed out */
};

/* One verdict of the master on a returned ticket. */
struct sweep_verdict {
	int64_t ticket;
	bool valid;
};

struct sweep_store;

/*
 * The embedded store in file path (made when missing, with its schema),
 * or the project store on the database of the project whose config.xml is
 * project_config. NULL with the reason in err.
 */
struct sweep_store *sweep_store_open_sqlite(const char *path, struct sbuf *err);
struct sweep_store *sweep_store_open_project(const char *project_config, struct sbuf *err);
void sweep_store_close(struct sweep_store *st);

/*
 * A new session sid (SWEEP_SID_LEN hex digits) running spec (the spec's
 * name as `sweep status` shows it), its tasks and each task's first
 * max_assign tickets, in one transaction. ERROR also when sid exists.
 */
int sweep_store_create(struct sweep_store *st, const char *sid, const char *spec,
		       const struct sweep_task_new *tasks, size_t ntasks);
/* Session sid: its id (> 0) and spec (free it; spec may be NULL). */
int sweep_store_session(struct sweep_store *st, const char *sid, int64_t *session, char **spec);

/*
 * /task: claim the session's next unsent ticket (lowest row first), hand it
 * out as ticket (its name from now on, unguessable, chosen by the caller) at
 * t, due at t + its task's timeout, noting note ("host=LABEL\n"). Concurrent
 * callers get different tickets. NOT_FOUND when none waits.
 */
int sweep_store_next(struct sweep_store *st, int64_t session, const char *ticket, int64_t t,
		     const char *note, struct sweep_claim *out);
/*
 * The ticket called name in the session, with task_over and its task's body
 * (for /complete's check) filled in.
 */
int sweep_store_ticket(struct sweep_store *st, int64_t session, const char *name,
		       struct sweep_ticket *out);
/*
 * /complete and /failed: record ticket id's end at t if it is still OUT
 * (*taken; else nothing changes: a late or repeated answer). Success makes
 * it RETURNED (due for judging), failure FAILED (its task due for a new
 * ticket); note ("why=REASON\n", or "") is appended to its note.
 */
int sweep_store_report(struct sweep_store *st, int64_t ticket, bool success, int64_t t,
		       const char *note, bool *taken);

/*
 * The transitioner's work at t, for stores that do it themselves (a no-op
 * on the project store): OUT tickets past their deadline TIMED_OUT; a task
 * without a valid ticket gets new UNSENT ones up to max_assign out at once
 * and max_total in all, then fails (its UNSENT tickets CANCELLED). *changed:
 * something changed (may be NULL).
 */
int sweep_store_tick(struct sweep_store *st, int64_t session, int64_t t, bool *changed);

/* The RETURNED tickets not judged yet, by id; fn returns non-zero to stop. */
int sweep_store_returned(struct sweep_store *st, int64_t session,
			 int (*fn)(const struct sweep_ticket *, void *), void *arg);
/*
 * The master's verdicts, in one transaction: valid makes a ticket VALID and
 * its task's canonical one unless the task has one already; invalid makes it
 * INVALID (its task due for a new ticket at t).
 */
int sweep_store_judge(struct sweep_store *st, const struct sweep_verdict *v, size_t n, int64_t t);

/* Every task by row; every ticket that ended (not UNSENT, not OUT) by id. */
int sweep_store_tasks(struct sweep_store *st, int64_t session,
		      int (*fn)(const struct sweep_task_state *, void *), void *arg);
int sweep_store_ended(struct sweep_store *st, int64_t session,
		      int (*fn)(const struct sweep_ticket *, void *), void *arg);
int sweep_store_counts(struct sweep_store *st, int64_t session, struct sweep_counts *c);

/* ---- for the implementations ---- */

struct sweep_store_ops {
	const char *kind;               /* "sqlite", "project" */
	void (*close)(struct sweep_store *);
	int (*create)(struct sweep_store *, const char *, const char *,
		      const struct sweep_task_new *, size_t);
	int (*session)(struct sweep_store *, const char *, int64_t *, char **);
	int (*next)(struct sweep_store *, int64_t, const char *, int64_t, const char *,
		    struct sweep_claim *);
	int (*ticket)(struct sweep_store *, int64_t, const char *, struct sweep_ticket *);
	int (*report)(struct sweep_store *, int64_t, bool, int64_t, const char *, bool *);
	int (*tick)(struct sweep_store *, int64_t, int64_t, bool *);
	int (*returned)(struct sweep_store *, int64_t,
			int (*)(const struct sweep_ticket *, void *), void *);
	int (*judge)(struct sweep_store *, const struct sweep_verdict *, size_t, int64_t);
	int (*tasks)(struct sweep_store *, int64_t,
		     int (*)(const struct sweep_task_state *, void *), void *);
	int (*ended)(struct sweep_store *, int64_t,
		     int (*)(const struct sweep_ticket *, void *), void *);
	int (*counts)(struct sweep_store *, int64_t, struct sweep_counts *);
};

/* Each implementation's struct begins with this. */
struct sweep_store {
	const struct sweep_store_ops *ops;
};

#endif
