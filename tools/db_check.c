/*
 * db_check: check the work-sequence invariants the scheduler and the
 * relocator rely on, and name every violation (exit 1), so a test -- or an
 * admin after a crash -- knows the database is whole:
 *
 *  - one live branch: no segment on a branch above the head's;
 *  - the head's pointers agree with its segments: first_unsent_seqno in
 *    1..nsegments+1, segments before it sent, segments from it not yet sent,
 *    the live branch has every segment up to nsegments;
 *  - no live (inactive, unsent, in progress) result outside the live branch,
 *    and no segment result unsent (the ordinary sender would send it);
 *  - the state the next segment starts from is uploaded, or the sequence has
 *    a host that holds it.
 */
#include "common.h"
#include "config.h"
#include "db_records.h"
#include "db_sched.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "sequence.h"
#include "tool.h"

static const char usage[] =
	"usage: db_check\n\nCheck the work-sequence invariants of the project's database\n"
	"(run in the project directory); print each violation, exit 1 if any.\n";

struct check {
	struct db *db;
	const struct project_config *cfg;
	long nseq, violations;
	const struct db_sequence *s;
	int live_seen;          /* live-branch segments seen */
	int live_first;         /* lowest seqno on the live branch */
	int live_last;          /* highest */
};

static void violation(struct check *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void violation(struct check *c, const char *fmt, ...)
{
	va_list ap;

	printf("sequence %s: ", c->s->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	c->violations++;
}

static int check_segment(struct db_workunit *wu, void *arg)
{
	struct check *c = arg;
	const struct db_sequence *s = c->s;
	struct db_result r = { 0 };
	char *rname = xasprintf("%s_0", wu->name);
	int rc = db_result_lookup_name(c->db, rname, &r);
	bool live = wu->branch == s->branch;
	bool result_live = r.server_state == RESULT_SERVER_STATE_INACTIVE ||
			   r.server_state == RESULT_SERVER_STATE_UNSENT ||
			   r.server_state == RESULT_SERVER_STATE_IN_PROGRESS;

	if (wu->branch > s->branch)
		violation(c, "segment %s is on branch %d, above the live branch %d", wu->name, wu->branch,
			  s->branch);
	if (rc == DB_OK && r.server_state == RESULT_SERVER_STATE_UNSENT)
		violation(c, "result %s is unsent: the ordinary sender would send it to any host", rname);
	if (rc == DB_NOT_FOUND) {
		violation(c, "segment %s has no result %s", wu->name, rname);
	} else if (rc == DB_OK && !live && result_live) {
		violation(c, "result %s of dead branch %d is still live (server_state %d)", rname,
			  wu->branch, r.server_state);
	} else if (rc == DB_OK && live) {
		c->live_seen++;
		if (!c->live_first || wu->seqno < c->live_first)
			c->live_first = wu->seqno;
		if (wu->seqno > c->live_last)
			c->live_last = wu->seqno;
		if (wu->seqno < s->first_unsent_seqno && r.server_state < RESULT_SERVER_STATE_IN_PROGRESS)
			violation(c, "segment %d is before first_unsent_seqno %d but was never sent",
				  wu->seqno, s->first_unsent_seqno);
		if (wu->seqno >= s->first_unsent_seqno && r.server_state != RESULT_SERVER_STATE_INACTIVE &&
		    s->state == SEQ_STATE_ACTIVE)
			violation(c, "segment %d is at or after first_unsent_seqno %d but its result is in "
				  "server_state %d", wu->seqno, s->first_unsent_seqno, r.server_state);
		if (!wu->transitioner_flags)
			violation(c, "segment %s lacks transitioner_flags (the transitioner would make "
				  "results for it)", wu->name);
	}
	db_result_release(&r);
	free(rname);
	return rc == DB_ERROR ? -1 : 0;
}

/*
 * Can a branch start after segment seqno from the server's states? It is a
 * restart point (seq_restart_check: by the levels, each state file's
 * latest version is on the server). Not if the template is unreadable.
 */
static int state_on_server(struct check *c, int seqno, bool *yes)
{
	struct seq_view v;

	*yes = false;
	if (seq_view_load(c->cfg, c->s, &v) < 0)
		return DB_OK;
	return seq_restart_check(c->db, c->s, &v, seqno, yes);
}

static int check_sequence(struct db_sequence *s, void *arg)
{
	struct check *c = arg;
	struct db_val v[] = { DBV_INT(s->id) };
	int rc;

	c->nseq++;
	c->s = s;
	c->live_seen = c->live_first = c->live_last = 0;
	if (s->first_unsent_seqno < 1 || s->first_unsent_seqno > s->nsegments + 1)
		violation(c, "first_unsent_seqno %d is outside 1..%d", s->first_unsent_seqno,
			  s->nsegments + 1);
	if (s->last_state_seqno > s->nsegments)
		violation(c, "last_state_seqno %d is beyond its %d segments", s->last_state_seqno,
			  s->nsegments);
	if (s->target_nsegments > 0 && s->nsegments > s->target_nsegments)
		violation(c, "%d segments for a length of %d", s->nsegments, s->target_nsegments);
	rc = db_workunit_enum(c->db, "WHERE seq_id=? ORDER BY branch, seqno", v, 1, check_segment, c);
	if (rc != DB_OK)
		return -1;
	/*
	 * The live branch: segments live_first..live_last without a gap, made at
	 * least up to the last one sent (a relocated branch grows as it is sent).
	 */
	if (c->live_seen && c->live_seen != c->live_last - c->live_first + 1)
		violation(c, "the live branch %d has %d segments for seqnos %d..%d", s->branch,
			  c->live_seen, c->live_first, c->live_last);
	if (c->live_last > s->nsegments)
		violation(c, "the live branch %d has segment %d beyond its %d segments", s->branch,
			  c->live_last, s->nsegments);
	if (c->live_seen && s->first_unsent_seqno > c->live_last + 1)
		violation(c, "first_unsent_seqno %d is past the live branch's last segment %d",
			  s->first_unsent_seqno, c->live_last);
	if (s->state == SEQ_STATE_ACTIVE && !s->hostid && s->first_unsent_seqno > 1 &&
	    s->first_unsent_seqno <= s->nsegments) {
		bool up;
		if (state_on_server(c, s->first_unsent_seqno - 1, &up) != DB_OK)
			return -1;
		if (!up)
			violation(c, "no host holds it and the states after segment %d, which segment %d "
				  "starts from, are not on the server", s->first_unsent_seqno - 1,
				  s->first_unsent_seqno);
	}
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	struct check c = { .db = ctx->db, .cfg = &ctx->cfg };

	if (db_sequence_enum(c.db, "ORDER BY id", NULL, 0, check_sequence, &c) != DB_OK)
		return -1;
	printf("db_check: %ld sequences, %ld violations\n", c.nseq, c.violations);
	return c.violations ? 1 : 0;
}

static const struct tool_spec db_check_spec = {
	.name = "db_check",
	.usage = usage,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&db_check_spec, argc, argv);
}
