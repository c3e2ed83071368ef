/*
 * seq_status: the work sequences of a project at a glance -- one line per
 * sequence (host, progress, branches, last answer, bytes uploaded) -- or one
 * sequence in detail: its state levels (each state file's period, up to
 * which segment it is on the server, which version a restart reads), its
 * restart point, and its branches, live and dead.
 */
#include "common.h"
#include "config.h"
#include "db_records.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "seq_keep.h"
#include "sequence.h"
#include "tool.h"

struct options {
	bool all;
};

static const struct param options[] = {
	{ "all", PARAM_BOOL, offsetof(struct options, all), "0", 0, 0, 0, NULL,
	  "also list ended sequences (default: active and failed ones)" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: seq_status [--all] [NAME]\n\n"
	"Without NAME: one line per sequence -- name, state, host, segments done\n"
	"of the length, segments sent, live branch, last uploaded answer and\n"
	"state, bytes uploaded. With NAME: that sequence's head, its state levels\n"
	"(each state file's period, the last segment whose version of it is on the\n"
	"server, the version a restart reads), its restart point and every\n"
	"branch's segments. Run it in the project directory.\n";
static const char *state_name(int state)
{
	return state == SEQ_STATE_ACTIVE ? "active" : state == SEQ_STATE_ENDED ? "ended" : "error";
}

struct summary {
	int64_t done;
	int last_answer, last_state;
	double bytes;
};

static int sum_file(struct db_seq_file *f, void *arg)
{
	struct summary *s = arg;

	/* a state version deleted as superseded was uploaded all the same */
	if (f->uploaded || f->file_delete_state)
		s->bytes += f->nbytes;
	if (f->uploaded) {
		if (f->kind == SEQ_FILE_ANSWER && f->seqno > s->last_answer)
			s->last_answer = f->seqno;
		if (f->kind == SEQ_FILE_STATE && f->seqno > s->last_state)
			s->last_state = f->seqno;
	}
	return 0;
}

static int summarize(struct db *db, const struct db_sequence *s, struct summary *sum)
{
	struct db_val v[] = { DBV_INT(s->id) };

	memset(sum, 0, sizeof(*sum));
	/* done: the segments known good, every one before the first unvalidated */
	sum->done = s->first_unvalidated_seqno - 1;
	return db_seq_file_enum(db, "WHERE seq_id=? ORDER BY branch, seqno", v, 1, sum_file, sum);
}

static int print_line(struct db_sequence *s, void *arg)
{
	struct db *db = arg;
	struct summary sum;
	char host[32];

	if (summarize(db, s, &sum) != DB_OK)
		return -1;
	if (s->hostid)
		snprintf(host, sizeof(host), "%" PRId64, s->hostid);
	else
		snprintf(host, sizeof(host), "-");
	printf("%-24s %-6s %6s %5" PRId64 "/%-5d %5d %6d %6d %6d %12.0f%s%s%s\n", s->name,
	       state_name(s->state), host, sum.done, s->nsegments, s->first_unsent_seqno - 1,
	       s->branch, sum.last_answer, sum.last_state, sum.bytes,
	       s->need_relocate ? "  (to relocate)" : "", *s->error_msg ? "  " : "", s->error_msg);
	return 0;
}

DB_ROWS_TAKER(take_version, struct db_seq_file)

/*
 * One line per state file: its level, period, last version on the server
 * and the one a restart after the restart point reads (f[0..n): its
 * uploaded versions, newest first).
 */
static void print_level_lines(const struct db_sequence *s, const struct seq_layout *l,
			      const struct seq_view *v, const struct db_seq_file *f, size_t n)
{
	size_t i, j;

	for (i = 0; i < l->nstate; i++) {
		int last = -1, reads = -1;
		char level[32];

		for (j = 0; j < n; j++) {
			if (seq_keep_file_index(&f[j]) != (int)i)
				continue;
			if (last < 0)
				last = f[j].seqno;
			if (reads < 0 && f[j].seqno <= s->last_state_seqno)
				reads = f[j].seqno;
		}
		seq_keep_level_name(l, i, level, sizeof(level));
		printf("    %-12s every %-4d on the server up to segment %-5d restart reads %d\n",
		       level, seq_policy_state_period(v, i), last, reads);
	}
}

/* The state levels and the restart point of sequence s. */
static int print_levels(struct db *db, const struct project_config *cfg,
			const struct db_sequence *s)
{
	struct db_seq_file *f = NULL;
	size_t n = 0, i;
	struct db_rows rows = DB_ROWS(f, n, 0);
	struct db_val v[] = { DBV_INT(s->id) };
	struct seq_layout l;
	struct seq_view view;
	int rc;

	printf("  restart point %d; state versions older than those a restart after %d reads "
	       "are deleted\n", s->last_state_seqno, seq_keep_point(s));
	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return 0;
	seq_view_of(s, &view);
	seq_view_levels(&view, &l);
	rc = db_seq_file_enum(db, "WHERE seq_id=? AND kind=1 AND uploaded=1 "
			      "ORDER BY seqno DESC, branch DESC, id", v, 1, take_version, &rows);
	if (rc == DB_OK) {
		printf("  state levels:\n");
		print_level_lines(s, &l, &view, f, n);
	}
	for (i = 0; i < n; i++)
		db_seq_file_release(&f[i]);
	free(f);
	seq_layout_release(&l);
	return rc == DB_OK ? 0 : -1;
}

struct branch_walk {
	struct db *db;
	int first_seqno;        /* of the branch printed last */
};

static int print_segment(struct db_workunit *wu, void *arg)
{
	struct branch_walk *bw = arg;
	struct db *db = bw->db;
	struct db_result r = { 0 };
	char *rname = xasprintf("%s_0", wu->name);
	int rc = db_result_lookup_name(db, rname, &r);
	static const char *const states[] = { "?", "inactive", "unsent", "?", "in progress", "over" };

	if (!bw->first_seqno)
		bw->first_seqno = wu->seqno;
	printf("    %-28s %-12s", wu->name,
	       rc == DB_OK && r.server_state >= 1 && r.server_state <= 5 ? states[r.server_state] : "-");
	if (rc == DB_OK && r.hostid)
		printf(" host %-6" PRId64, r.hostid);
	if (rc == DB_OK && r.server_state == RESULT_SERVER_STATE_OVER)
		printf(" outcome %d exit %d", r.outcome, r.exit_status);
	putchar('\n');
	db_result_release(&r);
	free(rname);
	return rc == DB_ERROR ? -1 : 0;
}

static int detail(struct db *db, const struct project_config *cfg, const char *name)
{
	struct db_sequence s = { 0 };
	struct summary sum;
	int rc = db_sequence_lookup_name(db, name, &s), b, next_start = 0;

	if (rc == DB_NOT_FOUND) {
		db_sequence_release(&s);
		return log_error("no sequence named '%s'", name);
	}
	if (rc != DB_OK || summarize(db, &s, &sum) != DB_OK) {
		db_sequence_release(&s);
		return -1;
	}
	printf("sequence %s (id %" PRId64 "): %s, host %" PRId64 ", live branch %d\n", s.name, s.id,
	       state_name(s.state), s.hostid, s.branch);
	printf("  segments %d (length %d), sent %d, validated %" PRId64 ", high water %d\n",
	       s.nsegments, s.target_nsegments, s.first_unsent_seqno - 1, sum.done, s.high_water);
	printf("  answers every %d, states every %d; last answer %d, last state on the server %d\n",
	       s.answer_every, s.state_upload_every, sum.last_answer, s.last_state_seqno);
	printf("  uploaded %.0f bytes, relocations %d%s\n", sum.bytes, s.nrelocations,
	       s.need_relocate ? ", waiting for relocation" : "");
	if (s.groupid) {
		struct db_sequence_group g = { 0 };

		if (db_sequence_group_lookup_id(db, s.groupid, &g) == DB_OK)
			printf("  group %s: %s of %d, quorum %d, group %s\n", g.name,
			       s.is_master ? "master" : "member", g.nmembers, g.min_quorum,
			       state_name(g.state));
		db_sequence_group_release(&g);
	}
	if (*s.error_msg)
		printf("  error: %s\n", s.error_msg);
	if (print_levels(db, cfg, &s) < 0) {
		db_sequence_release(&s);
		return -1;
	}
	/* A dead branch is dead from where the next one starts; before that it is the live line. */
	for (b = s.branch; b >= 0; b--) {
		struct db_val v[] = { DBV_INT(s.id), DBV_INT(b) };
		struct branch_walk bw = { db, 0 };

		if (b == s.branch)
			printf("  branch %d (live):\n", b);
		else
			printf("  branch %d (dead from segment %d):\n", b, next_start);
		rc = db_workunit_enum(db, "WHERE seq_id=? AND branch=? ORDER BY seqno", v, 2,
				      print_segment, &bw);
		if (rc != DB_OK)
			break;
		next_start = bw.first_seqno;
	}
	db_sequence_release(&s);
	return rc == DB_OK ? 0 : -1;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if (ctx->argc)
		return detail(ctx->db, &ctx->cfg, ctx->argv[0]);
	printf("%-24s %-6s %6s %11s %5s %6s %6s %6s %12s\n", "sequence", "state", "host",
	       "done/length", "sent", "branch", "answer", "state", "bytes up");
	return db_sequence_enum(ctx->db, o->all ? "ORDER BY id" : "WHERE state<>1 ORDER BY id",
				NULL, 0, print_line, ctx->db) == DB_OK ? 0 : -1;
}

static struct options opts;

static const struct tool_spec seq_status_spec = {
	.name = "seq_status",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.max_args = 1,
	.open_db = db_tool_open,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&seq_status_spec, argc, argv);
}
