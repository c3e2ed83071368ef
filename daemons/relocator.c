/*
 * relocator: moves a work sequence to another host when its host missed a
 * segment's deadline (the transitioner flags it), returned an erroneous
 * segment or lost its state (the scheduler flags it). From the latest
 * segment Wi whose input state is on the server it makes a new branch --
 * W'i (reading that state by download) .. W'n with results -- retires what
 * was left of the old branch (the dead branch stays in the database), and
 * resets the head: unassigned, first unsent = i. One transaction per
 * sequence: killed at any point, a restart finds the flag still set and
 * does the whole relocation again.
 */
#include "daemon.h"
#include "db_daemons.h"
#include "db_sched.h"
#include "dirhier.h"
#include "fileutil.h"
#include "log.h"
#include "md5.h"
#include "sequence.h"
#include "wtime.h"

#include <signal.h>
#include <sys/stat.h>

struct settings {
	long batch;
};

static struct settings settings;

static const struct param params[] = {
	{ "batch", PARAM_INT, offsetof(struct settings, batch), "100", PARAM_BOUNDED, 1, 100000, "N",
	  "sequences relocated per pass at most" },
	PARAM_TABLE_END
};

struct job {
	const struct project_config *cfg;
	int64_t seq_id;
	bool done;
};

/* Make the uploaded state available in the download hierarchy (idempotent). */
static int publish_state(const struct project_config *cfg, const char *name, char md5[33],
			 double *nbytes, struct sbuf *url)
{
	struct sbuf up = SBUF_INIT(PATH_MAX), down = SBUF_INIT(PATH_MAX);
	long long n = 0;
	int rc = dirhier_path(name, cfg->download_dir, cfg->uldl_dir_fanout, true, &down);

	if (rc == 0 && access(sbuf_str(&down), F_OK) != 0) {
		rc = dirhier_path(name, cfg->upload_dir, cfg->uldl_dir_fanout, false, &up);
		if (rc == 0 && link(sbuf_str(&up), sbuf_str(&down)) < 0 && errno != EEXIST &&
		    copy_file(sbuf_str(&up), sbuf_str(&down), 0644) < 0)
			rc = log_error("cannot publish state %s for download", name);
	}
	if (rc == 0)
		rc = md5_file(sbuf_str(&down), md5, &n);
	if (rc == 0) {
		*nbytes = (double)n;
		rc = dirhier_url(name, cfg->download_url, cfg->uldl_dir_fanout, url);
	}
	sbuf_free(&up);
	sbuf_free(&down);
	return rc;
}

static const char *reason_name(int reason)
{
	switch (reason) {
	case SEQ_RELOCATE_DEADLINE: return "a segment missed its deadline";
	case SEQ_RELOCATE_ERROR: return "a segment failed or was invalid, or the host lost the state";
	case SEQ_RELOCATE_SLOW: return "the host is too slow";
	case SEQ_RELOCATE_ADMIN: return "asked by the admin";
	default: return "unknown reason";
	}
}

static int relocate(struct db *db, void *arg)
{
	struct job *j = arg;
	struct db_sequence s = { 0 };
	struct db_seq_file f[SEQ_MAX_FILES];
	struct seq_input in[SEQ_MAX_FILES];
	struct sbuf url[SEQ_MAX_FILES];
	char md5[SEQ_MAX_FILES][33];
	double nbytes[SEQ_MAX_FILES];
	size_t k, nf = 0, nstate = 0;
	int rc, i, old;

	j->done = false;
	memset(f, 0, sizeof(f));
	for (k = 0; k < SEQ_MAX_FILES; k++)
		sbuf_init(&url[k], 4096);
	rc = db_sequence_lock(db, j->seq_id, &s);
	if (rc == DB_NOT_FOUND)
		rc = DB_OK;
	if (rc != DB_OK || !s.id || !s.need_relocate || s.state != SEQ_STATE_ACTIVE)
		goto out;       /* gone, or an earlier try did it */
	nstate = seq_nstate_files(j->cfg, &s);
	if (!nstate) {
		rc = DB_ERROR;
		goto out;
	}
	/* Wi: the first segment whose input states are all on the server (else the initial ones). */
	i = s.last_state_seqno + 1;
	rc = db_seq_file_states(db, s.id, i - 1, f, SEQ_MAX_FILES, &nf);
	if (rc == DB_OK && nf != nstate && i > 1) {
		i = 1;
		rc = db_seq_file_states(db, s.id, 0, f, SEQ_MAX_FILES, &nf);
	}
	if (rc == DB_OK && nf != nstate) {
		log_error("sequence %s: %zu initial states on the server, %zu expected", s.name, nf,
			  nstate);
		rc = DB_ERROR;
	}
	if (rc != DB_OK)
		goto out;
	if (i > s.nsegments) {
		/* every segment's state is on the server: nothing to compute again */
		s.hostid = 0;
		s.need_relocate = 0;
		rc = db_sequence_update(db, &s);
		goto out;
	}
	for (k = 0; k < nf; k++) {
		if (publish_state(j->cfg, f[k].name, md5[k], &nbytes[k], &url[k]) < 0) {
			rc = DB_ERROR;
			goto out;
		}
		in[k] = (struct seq_input){ f[k].name, sbuf_str(&url[k]), md5[k], nbytes[k] };
	}
	/* The old branch from Wi on becomes dead: nothing of it is sent or awaited any more. */
	old = s.branch;
	rc = db_result_retire_live(db, s.id);
	if (rc != DB_OK)
		goto out;
	log_info("sequence %s: relocating (%s): branch %d from segment %d (input %s%s)", s.name,
		 reason_name(s.need_relocate), old + 1, i, f[0].name, nf > 1 ? ", ..." : "");
	s.branch = old + 1;
	s.hostid = 0;
	s.first_unsent_seqno = i;
	if (s.first_unvalidated_seqno > i)
		s.first_unvalidated_seqno = i;
	s.need_relocate = 0;
	s.nrelocations++;
	if (rc == DB_OK) {
		/* W'i only: the scheduler makes each later one when it is due. */
		int r = seq_make_segments(db, j->cfg, &s, i, i, in, nf);

		rc = r == 0 ? DB_OK : r == DB_RETRY ? DB_RETRY : DB_ERROR;
	}
	if (rc == DB_OK)
		rc = db_sequence_update(db, &s);
	if (rc == DB_OK)
		j->done = true;
	/* Tests kill the relocator here to show the transaction keeps it whole. */
	if (rc == DB_OK && getenv("WSEQ_TEST_RELOCATOR_KILL"))
		raise(SIGKILL);
out:
	for (k = 0; k < SEQ_MAX_FILES; k++) {
		db_seq_file_free(&f[k]);
		sbuf_free(&url[k]);
	}
	db_sequence_free(&s);
	return rc;
}

struct list {
	int64_t *ids;
	size_t n;
};

static int take_id(struct db_sequence *s, void *arg)
{
	struct list *l = arg;

	l->ids = xrealloc(l->ids, (l->n + 1) * sizeof(*l->ids));
	l->ids[l->n++] = s->id;
	return 0;
}

static int rl_pass(struct daemon_ctx *ctx)
{
	struct list l = { NULL, 0 };
	size_t i;
	int rc, done = 0;

	rc = db_sequence_enum_relocate(ctx->db, ctx->mod_n, ctx->mod_i, (int)settings.batch, take_id,
				       &l);
	for (i = 0; rc == DB_OK && i < l.n && !daemon_stopping(ctx); i++) {
		struct job j = { ctx->cfg, l.ids[i], false };

		rc = db_txn_run(ctx->db, relocate, &j);
		if (rc == DB_OK && j.done)
			done++;
	}
	free(l.ids);
	if (rc != DB_OK)
		return DAEMON_PASS_ERROR;
	return done ? DAEMON_PASS_WORKED : DAEMON_PASS_IDLE;
}

static const struct daemon_spec rl_spec = {
	.name = "relocator",
	.summary = "Move work sequences whose host failed them to a new branch for another host.",
	.params = params,
	.settings = &settings,
	.needs_db = true,
	.pass = rl_pass,
};

int main(int argc, char **argv)
{
	return daemon_main(&rl_spec, argc, argv);
}
