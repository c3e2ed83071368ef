/*
 * The ops pages: what every page shares (ops_page.c) and the pages, one
 * function each. See ops_cgi.c for the program and ops_page.c for who may
 * see them.
 */
#ifndef WSEQ_OPS_H
#define WSEQ_OPS_H

#include "web.h"
#include "db_records.h"

#define OPS_SESSION_COOKIE "wseq_ops_session"
#define OPS_CSRF_COOKIE "wseq_ops_csrf"
/* An admin's session lasts a working day. */
#define OPS_SESSION_SECONDS (8 * 3600L)

/* An ops request in progress. */
struct ops {
	const struct web_ctx *c;
	const struct web_req *r;
	struct web_reply *o;
	struct sbuf *b;                 /* the reply's body */
	char *base;                     /* the ops path: "/wseq_ops/" */
	char *url;                      /* the ops URL: "http://host:port/wseq_ops/" */
	const char *page;               /* the page: what follows base ("" the overview) */
	struct db_user admin;           /* admin.id 0: nobody signed in */
	char csrf[33];                  /* the token every form of this page carries */
	char login_csrf[33];            /* the sign-in form's, from its cookie */
};

/* ---- ops_page.c ---- */
/* Set up o for the request; finds the signed-in admin. */
void ops_init(struct ops *o, const struct web_ctx *c, const struct web_req *r,
	      struct web_reply *out);
void ops_release(struct ops *o);
/* Is the user an admin (in ops_admin: account grant --ops)? */
bool ops_is_admin(struct db *db, int64_t userid);
/* The sign-in form as the whole reply, with status (401 when nobody is signed in). */
void ops_login_page(struct ops *o, int status, const char *error);
/* POST login: email + password, or authenticator; only admins (ops_admin). */
void ops_login_post(struct ops *o);
void ops_logout_post(struct ops *o);
/* A POST with this page's CSRF token; else a 403 (or 405) page and false. */
bool ops_post_ok(struct ops *o);
/* "NAME (user N) [ADDR]" for the log, control characters replaced. */
const char *ops_who(struct ops *o);
const char *ops_who_is(const struct db_user *u, const char *addr);

void ops_start(struct ops *o, const char *title);
void ops_end(struct ops *o);
/* A whole page saying msg, with status. */
void ops_message(struct ops *o, int status, const char *title, const char *msg);
/* 303 to a page of the ops site (rel: "seq?id=3"). */
void ops_redirect(struct ops *o, const char *rel);
void ops_csrf_field(struct ops *o);
/* A form that POSTs cancel what=WHAT&id=ID (ops_batches.c). */
void ops_cancel_form(struct ops *o, const char *what, int64_t id, const char *label);

/* Append s escaped for HTML or SVG text and attributes (xml_add_text). */
void ops_esc(struct sbuf *b, const char *s);
/* <a href="BASE" + rel>text</a>, rel as given (built by the caller from ids). */
void ops_link(struct ops *o, const char *rel, const char *text);
void ops_linkf(struct ops *o, const char *text, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A "none" row of a table of cols columns if nothing was added to the body since mark. */
void ops_none_row(struct ops *o, size_t mark, int cols);
/* Numbers and times for people. */
void ops_int(struct sbuf *b, int64_t v);
void ops_time(struct sbuf *b, int64_t t);
/* "3 h 5 min" */
void ops_duration(struct sbuf *b, double seconds);
void ops_bytes(struct sbuf *b, double n);

/*
 * A required id parameter: true with *id; else a 400 page (missing,
 * malformed or out of range) and false.
 */
bool ops_id_param(struct ops *o, const char *name, int64_t *id);
/* An optional number parameter in [min, max], else def; a malformed one is a 400 (false). */
bool ops_num_param(struct ops *o, const char *name, long min, long max, long def, long *v);
/* A 503 page when the database cannot be read (logged with what). */
void ops_db_failed(struct ops *o, const char *what);

/* Names of states, as BOINC's ops pages call them. */
const char *ops_result_state(int server_state, int outcome, int validate_state);
const char *ops_outcome_name(int outcome);
/* What a verdict rests on (result.validate_why, VALIDATE_WHY_*). */
const char *ops_validate_why(int why);
const char *ops_seq_state(int state);
const char *ops_batch_state(int state);
const char *ops_relocate_reason(int why);

/* ---- the pages ---- */
void ops_overview(struct ops *o);       /* ops_overview.c */
void ops_errors(struct ops *o);         /* ops_errors.c */
void ops_hosts(struct ops *o);          /* ops_hosts.c */
void ops_host(struct ops *o);
void ops_batches(struct ops *o);        /* ops_batches.c */
void ops_batch(struct ops *o);
void ops_apps(struct ops *o);           /* ops_apps.c */
void ops_sequences(struct ops *o);      /* ops_seq.c */
void ops_sequence(struct ops *o);
void ops_workunit(struct ops *o);       /* ops_actions.c */
void ops_cancel_post(struct ops *o);
void ops_invalid(struct ops *o);        /* ops_errors.c */
void ops_revalidate_post(struct ops *o);        /* ops_revalidate.c */
void ops_news(struct ops *o);           /* ops_news.c */
void ops_news_edit(struct ops *o);
void ops_news_post(struct ops *o);
void ops_news_withdraw_post(struct ops *o);
void ops_mail(struct ops *o);
void ops_mail_users_post(struct ops *o);
/* The revalidate form of a workunit's page (ops_revalidate.c). */
void ops_revalidate_form(struct ops *o, int64_t wuid);

/* ops_svg.c: the timeline of a sequence's branches, drawn into b. */
struct db_ops_segment;
struct db_seq_file;
struct seq_layout;
struct ops_timeline {
	const struct db_sequence *seq;
	const struct seq_layout *layout;        /* its state files and levels (NULL: unknown) */
	const struct db_ops_segment *segs;      /* by branch, seqno */
	size_t nsegs;
	const struct db_seq_file *files;
	size_t nfiles;
	int64_t now;
};
void ops_svg_timeline(struct sbuf *b, const struct ops_timeline *t);

/* Dispatch a request (ops_cgi.c's handler). */
void ops_handle(const struct web_ctx *c, const struct web_req *r, struct web_reply *o);

#endif
