/*
 * extend_sequence: the back end's say over work sequences, run by hand or
 * from cron: add segments, end a sequence, keep open-ended sequences some
 * segments ahead of their hosts, or let a policy command read the latest
 * answer and decide. Changes reach the host at its next scheduler RPC.
 */
#include "common.h"
#include "config.h"
#include "db_records.h"
#include "dirhier.h"
#include "field.h"
#include "db_tool.h"
#include "log.h"
#include "param.h"
#include "tool.h"
#include "sequence.h"

#include <sys/wait.h>

struct options {
	char *seq_name, *policy;
	long add, keep_ahead;
	bool end;
};

static const struct param options[] = {
	{ "seq_name", PARAM_STR, offsetof(struct options, seq_name), NULL, 0, 0, 0, "NAME",
	  "the sequence (default: every active one, for --keep_ahead and --policy)" },
	{ "add", PARAM_INT, offsetof(struct options, add), "0", PARAM_BOUNDED, 0, 1e6, "K",
	  "add K segments" },
	{ "end", PARAM_BOOL, offsetof(struct options, end), "0", 0, 0, 0, NULL,
	  "end the sequence: its host aborts its segments and deletes its state" },
	{ "keep_ahead", PARAM_INT, offsetof(struct options, keep_ahead), "0", PARAM_BOUNDED, 0, 1e6, "L",
	  "add segments so that L are created beyond the last one sent (open-ended runs)" },
	{ "policy", PARAM_STR, offsetof(struct options, policy), NULL, 0, 0, 0, "CMD",
	  "run CMD NAME ANSWER_FILE; its first output word says: extend [K] | end | keep" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: extend_sequence [--seq_name NAME] (--add K | --end | --keep_ahead L | --policy CMD)\n"
	"\n"
	"Extend or end work sequences. Run it in the project directory, e.g. from\n"
	"cron: */10 * * * * cd /srv/proj && bin/extend_sequence --keep_ahead 3\n";

struct run {
	struct db *db;
	const struct project_config *cfg;
	const struct options *o;
	int changed;
};

/* Add k segments at the end of the live branch; a known length grows with them. */
static int add_segments(struct run *r, struct db_sequence *s, int k)
{
	struct db_workunit last = { 0 };
	char *name = seq_wu_name(s->name, s->branch, s->nsegments);
	int rc = db_workunit_lookup_name(r->db, name, &last);

	if (s->target_nsegments > 0)
		s->target_nsegments = s->nsegments + k;
	/* A relocated branch not made to its end yet: the scheduler makes the rest when due. */
	if (rc == DB_OK)
		rc = seq_make_following(r->db, r->cfg, s, s->nsegments + 1, s->nsegments + k);
	else if (rc == DB_NOT_FOUND)
		rc = 0;
	else
		rc = -1;
	db_workunit_release(&last);
	free(name);
	if (rc == 0)
		s->nsegments += k;
	if (rc == 0)
		rc = db_sequence_update(r->db, s) == DB_OK ? 0 : -1;
	if (rc == 0) {
		printf("%s: %d segments added (now %d)\n", s->name, k, s->nsegments);
		r->changed++;
	}
	return rc;
}

static int end_sequence(struct run *r, struct db_sequence *s)
{
	s->state = SEQ_STATE_ENDED;
	if (db_sequence_update(r->db, s) != DB_OK)
		return -1;
	printf("%s: ended\n", s->name);
	r->changed++;
	return 0;
}

struct latest {
	int seqno;
	char *name;
};

static int latest_answer(struct db_seq_file *f, void *arg)
{
	struct latest *l = arg;

	if (f->uploaded && f->kind == SEQ_FILE_ANSWER && f->seqno > l->seqno) {
		free(l->name);
		l->name = xstrdup(f->name);
		l->seqno = f->seqno;
	}
	return 0;
}

/* Run the policy command on the latest answer; -1 error, else 'e'xtend/'n'd/'k'eep in *what. */
static int ask_policy(struct run *r, struct db_sequence *s, char *what, int *k)
{
	struct db_val v[] = { DBV_INT(s->id), DBV_INT(s->branch) };
	struct latest l = { 0, NULL };
	struct sbuf path = SBUF_INIT(PATH_MAX), cmd = SBUF_INIT(8192);
	char line[256] = "";
	FILE *fp;
	int rc, status;

	*what = 'k';
	rc = db_seq_file_enum(r->db, "WHERE seq_id=? AND branch=? ORDER BY seqno, id", v, 2, latest_answer, &l);
	if (rc != DB_OK || !l.name) {
		free(l.name);
		return rc == DB_OK ? 0 : -1;    /* no answer yet: nothing to decide on */
	}
	if (dirhier_path(l.name, r->cfg->upload_dir, r->cfg->uldl_dir_fanout, false, &path) < 0) {
		free(l.name);
		return -1;
	}
	/* Names are safe file names (dirhier_name_ok) and the policy is the admin's own. */
	sbuf_addf(&cmd, "%s '%s' '%s'", r->o->policy, s->name, sbuf_str(&path));
	fp = popen(sbuf_str(&cmd), "r");
	if (fp) {
		if (!fgets(line, sizeof(line), fp))
			line[0] = '\0';
		status = pclose(fp);
	} else {
		status = -1;
	}
	if (status != 0) {
		rc = log_error("%s: policy command failed (status %d): %s", s->name, status, sbuf_str(&cmd));
	} else if (!strncmp(line, "extend", 6)) {
		/* "extend [N]": N read as any number from outside (lib/field.h), 1 to 1e6;
		 * anything else extends by 1, the least a policy that says extend means */
		*what = 'e';
		*k = 1;
		if (line[6] && line[6] != '\n' &&
		    field_int("extend", line + 6, 1, 1000000, 0, k, NULL) == FIELD_BAD)
			log_info("%s: policy said '%.*s': extending by 1", s->name,
				 (int)strcspn(line, "\n"), line);
	} else if (!strncmp(line, "end", 3)) {
		*what = 'n';
	}
	free(l.name);
	sbuf_release(&path);
	sbuf_release(&cmd);
	return rc;
}

static int one(struct db_sequence *s, void *arg)
{
	struct run *r = arg;
	const struct options *o = r->o;
	int rc = 0, k = 0;
	char what = 'k';

	if (db_begin(r->db) != DB_OK)
		return -1;
	if (s->state != SEQ_STATE_ACTIVE && (o->add || o->end)) {
		rc = log_error("%s has %s; it cannot be changed", s->name,
			       s->state == SEQ_STATE_ENDED ? "ended" : "failed");
	} else if (o->end) {
		rc = end_sequence(r, s);
	} else if (o->add) {
		rc = add_segments(r, s, (int)o->add);
	} else if (o->keep_ahead) {
		int ahead = s->nsegments - (s->first_unsent_seqno - 1);
		if (ahead < o->keep_ahead)
			rc = add_segments(r, s, (int)(o->keep_ahead - ahead));
	} else if (o->policy) {
		rc = ask_policy(r, s, &what, &k);
		if (rc == 0 && what == 'e')
			rc = add_segments(r, s, k);
		else if (rc == 0 && what == 'n')
			rc = end_sequence(r, s);
	}
	if (rc == 0 && db_commit(r->db) == DB_OK)
		return 0;
	db_rollback(r->db);
	return -1;
}

static int check_options(struct tool_ctx *ctx)
{
	const struct options *o = ctx->settings;

	if ((o->add > 0) + o->end + (o->keep_ahead > 0) + (o->policy != NULL) != 1)
		return tool_usage_error("give exactly one of --add, --end, --keep_ahead, --policy");
	if ((o->add || o->end) && !o->seq_name)
		return tool_usage_error("--add and --end need --seq_name");
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	struct run r = { .db = ctx->db, .cfg = &ctx->cfg, .o = ctx->settings };
	struct db_sequence s = { 0 };
	int rc;

	if (!r.o->seq_name)
		return db_sequence_enum(r.db, "WHERE state=0 ORDER BY id", NULL, 0, one, &r) == DB_OK
		       ? 0 : -1;
	rc = db_sequence_lookup_name(r.db, r.o->seq_name, &s);
	if (rc == DB_NOT_FOUND)
		rc = log_error("no sequence named '%s'", r.o->seq_name);
	else
		rc = rc == DB_OK ? one(&s, &r) : -1;
	db_sequence_release(&s);
	return rc;
}

static struct options opts;

static const struct tool_spec extend_sequence_spec = {
	.name = "extend_sequence",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.open_db = db_tool_open,
	.check = check_options,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&extend_sequence_spec, argc, argv);
}
