/*
 * cancel_jobs: cancel jobs from the command line, as upstream's
 * bin/cancel_jobs does -- by a range of workunit ids, by a name pattern
 * (SQL LIKE, bound as a value, never pasted into SQL) or by batch -- through
 * backend/cancel.h, the same mechanism as the submit RPCs and the ops
 * pages. A segment of a work sequence cancels its whole sequence. Prints a
 * line for each job it touches; running it again changes nothing.
 */
#include "common.h"
#include "cancel.h"
#include "config.h"
#include "db.h"
#include "db_cancel.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"

#include <ctype.h>
#include <inttypes.h>

#define PICK_CHUNK 500

struct options {
	char *name;
	long batch;
	char *why;
	int64_t min, max;       /* the id range, from the arguments */
};

static const struct param options[] = {
	{ "name", PARAM_STR, offsetof(struct options, name), NULL, 0, 0, 0, "PATTERN",
	  "cancel the workunits whose name is LIKE PATTERN (SQL: % any text, _ one character)" },
	{ "batch", PARAM_INT, offsetof(struct options, batch), "0", PARAM_BOUNDED, 0, 9.2e18,
	  "ID", "cancel batch ID's unfinished jobs and sequences; the batch is aborted" },
	{ "why", PARAM_STR, offsetof(struct options, why), "cancelled by cancel_jobs", 0, 0, 0,
	  "TEXT", "the reason a cancelled sequence records (error_msg)" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: cancel_jobs MIN_ID MAX_ID\n"
	"       cancel_jobs --name PATTERN\n"
	"       cancel_jobs --batch ID\n\n"
	"Cancel jobs as upstream BOINC's cancel_jobs does: an unfinished workunit's\n"
	"unsent results are not needed and it gets error bit 16 (cancelled); the\n"
	"transitioner finishes it. A segment of a work sequence cancels its sequence:\n"
	"it ends in error and its host is told to abort its segments. Finished or\n"
	"already cancelled jobs are left as they are, so running it twice is harmless.\n"
	"Prints each job it touches and a summary. Run it in the project directory.\n";

struct run {
	struct db *db;
	const char *why;
	struct cancel_count total;
	int64_t *seqs;          /* sequences handled already */
	size_t nseqs;
	int64_t matched;
	int64_t last_id;        /* keyset of the id range */
	char *last_name;        /* ... of the name pattern */
	bool failed;
};

static bool seq_seen(struct run *r, int64_t id)
{
	size_t i;

	for (i = 0; i < r->nseqs; i++)
		if (r->seqs[i] == id)
			return true;
	ARRAY_GROW(r->seqs, r->nseqs);
	r->seqs[r->nseqs++] = id;
	return false;
}

static const char *rc_word(enum cancel_rc rc)
{
	return rc == CANCEL_OK ? "cancelled" : rc == CANCEL_ALREADY ? "already finished or cancelled"
	       : rc == CANCEL_NOT_FOUND ? "gone" : "failed (see the log)";
}

static int cancel_pick(struct db_cancel_pick *p, void *arg)
{
	struct run *r = arg;
	struct cancel_count n = { 0 };
	enum cancel_rc rc;

	r->matched++;
	r->last_id = p->id;
	free(r->last_name);
	r->last_name = xstrdup(p->name);
	if (p->seq_id && seq_seen(r, p->seq_id))
		return 0;
	rc = p->seq_id ? cancel_sequence(r->db, p->seq_id, r->why, &n)
		       : cancel_workunit(r->db, p->id, r->why, &n);
	if (p->seq_id)
		printf("workunit %" PRId64 " %s: segment of sequence %" PRId64 ": sequence %s",
		       p->id, p->name, p->seq_id, rc_word(rc));
	else
		printf("workunit %" PRId64 " %s: %s", p->id, p->name, rc_word(rc));
	if (rc == CANCEL_OK && p->seq_id)
		printf(" (its host is told to abort %" PRId64 " segments)", n.aborted);
	else if (rc == CANCEL_OK)
		printf(" (%" PRId64 " unsent results not needed)", n.results);
	putchar('\n');
	if (rc == CANCEL_ERROR)
		r->failed = true;
	r->total.workunits += n.workunits;
	r->total.sequences += n.sequences;
	r->total.results += n.results;
	r->total.aborted += n.aborted;
	r->total.already += n.already;
	return rc == CANCEL_ERROR ? -1 : 0;
}

static int by_range(struct run *r, int64_t min, int64_t max)
{
	int64_t before;

	r->last_id = min - 1;
	do {
		before = r->matched;
		if (db_cancel_pick_range(r->db, min, max, r->last_id, PICK_CHUNK, cancel_pick, r) != DB_OK)
			return -1;
	} while (r->matched - before == PICK_CHUNK);
	if (!r->matched)
		return log_error("no workunit has an id from %" PRId64 " to %" PRId64, min, max);
	return 0;
}

static int by_name(struct run *r, const char *pattern)
{
	int64_t before;

	r->last_name = xstrdup("");
	do {
		char *after = xstrdup(r->last_name);
		int rc;

		before = r->matched;
		rc = db_cancel_pick_name(r->db, pattern, after, PICK_CHUNK, cancel_pick, r);
		free(after);
		if (rc != DB_OK)
			return -1;
	} while (r->matched - before == PICK_CHUNK);
	if (!r->matched)
		return log_error("no workunit's name matches '%s'", pattern);
	return 0;
}

static int by_batch(struct run *r, int64_t batch)
{
	enum cancel_rc rc = cancel_batch(r->db, batch, r->why, &r->total);

	if (rc == CANCEL_NOT_FOUND)
		return log_error("no batch has id %" PRId64, batch);
	printf("batch %" PRId64 ": %s\n", batch, rc_word(rc));
	return rc == CANCEL_ERROR ? -1 : 0;
}

/* A workunit id on the command line: digits only, at least 1. */
static int parse_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < 1 || !isdigit((unsigned char)*s))
		return log_error("'%s' is not a workunit id (a whole number from 1)", s);
	*out = v;
	return 0;
}

/* Which selection the arguments make: exactly one (an id range into o->min, o->max). */
static int check_args(struct tool_ctx *ctx)
{
	struct options *o = ctx->settings;
	char **args = ctx->argv;
	int nargs = ctx->argc;
	int nsel = (nargs > 0) + (o->name != NULL) + (o->batch != 0);

	if (nsel == 0)
		return tool_usage_error("nothing to cancel: give MIN_ID MAX_ID, --name or --batch");
	if (nsel > 1)
		return tool_usage_error("give one of MIN_ID MAX_ID, --name and --batch");
	if (nargs && nargs != 2)
		return tool_usage_error("an id range is MIN_ID MAX_ID");
	if (o->name && !*o->name)
		return tool_usage_error("--name: the pattern is empty");
	if (nargs && (parse_id(args[0], &o->min) < 0 || parse_id(args[1], &o->max) < 0))
		return TOOL_USAGE;
	if (nargs && o->min > o->max)
		return tool_usage_error("MIN_ID %" PRId64 " is above MAX_ID %" PRId64, o->min, o->max);
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;
	struct run r = { .db = ctx->db, .why = o->why };
	int rc;

	if (o->min)
		rc = by_range(&r, o->min, o->max);
	else if (o->name)
		rc = by_name(&r, o->name);
	else
		rc = by_batch(&r, o->batch);
	if (rc == 0 || r.matched)
		printf("cancelled %" PRId64 " workunits (%" PRId64 " unsent results not needed) and %"
		       PRId64 " sequences (%" PRId64 " segments to abort); %" PRId64
		       " finished or cancelled before\n", r.total.workunits, r.total.results,
		       r.total.sequences, r.total.aborted, r.total.already);
	free(r.seqs);
	free(r.last_name);
	return rc < 0 || r.failed ? -1 : 0;
}

static struct options opts;

static const struct tool_spec cancel_jobs_spec = {
	.name = "cancel_jobs",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.max_args = -1,
	.open_db = db_tool_open,
	.check = check_args,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&cancel_jobs_spec, argc, argv);
}
