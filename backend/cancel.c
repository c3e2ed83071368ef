/*
 * Cancelling workunits, sequences and batches (cancel.h).
 */
#include "cancel.h"
#include "db.h"
#include "db_cancel.h"
#include "db_daemons.h"
#include "db_sched.h"
#include "log.h"
#include "wtime.h"

/* why cut to CANCEL_WHY_MAX bytes, never inside a UTF-8 character. */
static void cut_why(const char *why, char out[CANCEL_WHY_MAX + 1])
{
	size_t n = strlen(why ? why : "");

	if (n > CANCEL_WHY_MAX) {
		n = CANCEL_WHY_MAX;
		while (n > 0 && ((unsigned char)why[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, why ? why : "", n);
	out[n] = '\0';
}

static int count_result(struct db_result *r, void *arg)
{
	(void)r;
	(*(int64_t *)arg)++;
	return 0;
}

int cancel_sequence_in(struct db *db, int64_t seq_id, const char *why, int64_t t,
		       struct cancel_count *n)
{
	struct db_sequence s = { 0 };
	char msg[CANCEL_WHY_MAX + 1];
	int64_t running = 0, ended = 0;
	int rc = db_sequence_lock(db, seq_id, &s);

	(void)t;        /* the retired segments are due for the transitioner at once */
	if (rc == DB_OK && s.state != SEQ_STATE_ACTIVE) {
		n->already++;
		goto out;
	}
	if (rc == DB_OK)
		rc = db_result_enum_seq_in_progress(db, seq_id, count_result, &running);
	if (rc == DB_OK)
		rc = db_result_retire_live(db, &seq_id, 1);
	cut_why(why, msg);
	if (rc == DB_OK)
		rc = db_sequence_cancel(db, seq_id, msg, &ended);
	if (rc == DB_OK) {
		n->sequences += ended;
		n->aborted += running;
	}
out:
	db_sequence_release(&s);
	return rc;
}

int cancel_workunit_in(struct db *db, int64_t wuid, const char *why, int64_t t,
		       struct cancel_count *n)
{
	struct db_workunit wu = { 0 };
	int64_t nres = 0, nwu = 0;
	int rc = db_workunit_lock(db, wuid, &wu);

	if (rc != DB_OK)
		goto out;
	if (wu.seq_id) {
		rc = cancel_sequence_in(db, wu.seq_id, why, t, n);
		/* a segment whose head is gone (a broken row) is an ordinary workunit */
		if (rc != DB_NOT_FOUND)
			goto out;
	}
	if (wu.canonical_resultid || wu.error_mask) {
		n->already++;
		rc = DB_OK;
		goto out;
	}
	rc = db_result_cancel_unsent(db, wuid, &nres);
	if (rc == DB_OK)
		rc = db_workunit_cancel(db, wuid, t, &nwu);
	if (rc == DB_OK) {
		n->results += nres;
		n->workunits += nwu;
	}
out:
	db_workunit_release(&wu);
	return rc;
}

int cancel_batch_in(struct db *db, int64_t batch, const char *why, int64_t t,
		    struct cancel_count *n)
{
	int64_t *ids = NULL, nres = 0, nwu = 0;
	size_t nids = 0, i;
	int rc = db_sequence_ids_batch_active(db, batch, &ids, &nids);

	for (i = 0; rc == DB_OK && i < nids; i++) {
		rc = cancel_sequence_in(db, ids[i], why, t, n);
		if (rc == DB_NOT_FOUND)
			rc = DB_OK;
	}
	if (rc == DB_OK)
		rc = db_batch_cancel_jobs(db, batch, t, &nres, &nwu);
	if (rc == DB_OK) {
		n->results += nres;
		n->workunits += nwu;
	}
	free(ids);
	return rc;
}

/* ---- one transaction each ---------------------------------------------------------- */

struct cancel_txn {
	enum { CT_WU, CT_SEQ, CT_BATCH } kind;
	int64_t id;
	const char *why;
	struct cancel_count n;          /* of the last (the committed) try */
	bool batch_aborted;             /* the batch's state changed to ABORTED */
};

static int cancel_run(struct db *db, void *arg)
{
	struct cancel_txn *c = arg;
	struct db_batch b = { 0 };
	int64_t t = now();
	int rc;

	memset(&c->n, 0, sizeof(c->n));
	c->batch_aborted = false;
	switch (c->kind) {
	case CT_WU:
		return cancel_workunit_in(db, c->id, c->why, t, &c->n);
	case CT_SEQ:
		return cancel_sequence_in(db, c->id, c->why, t, &c->n);
	case CT_BATCH:
		break;
	}
	rc = db_batch_lock(db, c->id, &b);
	if (rc == DB_OK)
		rc = cancel_batch_in(db, c->id, c->why, t, &c->n);
	if (rc == DB_OK && b.state != BATCH_STATE_RETIRED && b.state != BATCH_STATE_ABORTED) {
		rc = db_batch_set_state(db, c->id, BATCH_STATE_ABORTED);
		c->batch_aborted = rc == DB_OK;
	}
	db_batch_release(&b);
	return rc;
}

static enum cancel_rc cancel_one(struct db *db, struct cancel_txn *c, struct cancel_count *n)
{
	int rc = db_txn_run(db, cancel_run, c);

	if (rc == DB_NOT_FOUND)
		return CANCEL_NOT_FOUND;
	if (rc != DB_OK)
		return CANCEL_ERROR;
	n->workunits += c->n.workunits;
	n->sequences += c->n.sequences;
	n->results += c->n.results;
	n->aborted += c->n.aborted;
	n->already += c->n.already;
	if (c->n.workunits || c->n.sequences || c->n.results || c->batch_aborted)
		return CANCEL_OK;
	return CANCEL_ALREADY;
}

enum cancel_rc cancel_workunit(struct db *db, int64_t wuid, const char *why,
			       struct cancel_count *n)
{
	struct cancel_txn c = { CT_WU, wuid, why, { 0 }, false };

	return cancel_one(db, &c, n);
}

enum cancel_rc cancel_sequence(struct db *db, int64_t seq_id, const char *why,
			       struct cancel_count *n)
{
	struct cancel_txn c = { CT_SEQ, seq_id, why, { 0 }, false };

	return cancel_one(db, &c, n);
}

enum cancel_rc cancel_batch(struct db *db, int64_t batch, const char *why,
			    struct cancel_count *n)
{
	struct cancel_txn c = { CT_BATCH, batch, why, { 0 }, false };

	return cancel_one(db, &c, n);
}
