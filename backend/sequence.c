/* Work sequences: creation and segments; see sequence.h. */
#include "sequence.h"
#include "config.h"
#include "db_records.h"
#include "dirhier.h"
#include "log.h"
#include "work.h"
#include "wtime.h"

char *seq_wu_name(const char *seq, int branch, int seqno)
{
	return xasprintf("%s_b%d_s%d", seq, branch, seqno);
}

char *seq_state_name(const char *seq, int branch, int seqno)
{
	return xasprintf("%s_b%d_s%d_state", seq, branch, seqno);
}

char *seq_answer_name(const char *seq, int branch, int seqno)
{
	return xasprintf("%s_b%d_s%d_answer", seq, branch, seqno);
}

bool seq_uploads_state(const struct db_sequence *s, int seqno)
{
	return (s->state_upload_every > 0 && seqno % s->state_upload_every == 0) ||
	       (s->target_nsegments > 0 && seqno == s->target_nsegments);
}

bool seq_uploads_answer(const struct db_sequence *s, int seqno)
{
	return (s->answer_every > 0 && seqno % s->answer_every == 0) ||
	       (s->target_nsegments > 0 && seqno == s->target_nsegments);
}

static void file_info_out(struct sbuf *b, const char *name, bool sticky, double max_nbytes,
			  const char *upload_url)
{
	sbuf_addstr(b, "<file_info>\n    <name>");
	sbuf_add_xml_escaped(b, name);
	sbuf_addstr(b, "</name>\n");
	if (sticky)
		sbuf_addstr(b, "    <sticky/>\n");
	sbuf_addf(b, "    <max_nbytes>%.0f</max_nbytes>\n", max_nbytes);
	if (upload_url) {
		sbuf_addstr(b, "    <url>");
		sbuf_add_xml_escaped(b, upload_url);
		sbuf_addstr(b, "</url>\n");
	}
	sbuf_addstr(b, "</file_info>\n");
}

static void file_ref(struct sbuf *b, const char *name, const char *open_name)
{
	sbuf_addstr(b, "    <file_ref>\n        <file_name>");
	sbuf_add_xml_escaped(b, name);
	sbuf_addf(b, "</file_name>\n        <open_name>%s</open_name>\n        <copy_file/>\n"
		     "    </file_ref>\n", open_name);
}

static void seq_file_init(struct db_seq_file *f, const struct db_sequence *s, int seqno,
			  const char *name, int kind, bool upload, bool uploaded)
{
	memset(f, 0, sizeof(*f));
	f->create_time = now();
	f->name = xstrdup(name);
	f->seq_id = s->id;
	f->branch = s->branch;
	f->seqno = seqno;
	f->kind = kind;
	f->upload = upload;
	f->uploaded = uploaded;
}

static int add_seq_file(struct db *db, const struct db_sequence *s, int seqno, const char *name,
			int kind, bool upload, bool uploaded)
{
	struct db_seq_file f;
	int rc;

	seq_file_init(&f, s, seqno, name, kind, upload, uploaded);
	rc = db_seq_file_insert(db, &f);
	db_seq_file_free(&f);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

/* Segment seqno's workunit, result (workunitid still 0) and output files, in memory. */
static void segment_build(const struct project_config *cfg, const struct db_sequence *s,
			  int seqno, const char *input_name, const char *input_url,
			  const char *input_md5, double input_nbytes, struct db_workunit *wu,
			  struct db_result *res, struct db_seq_file files[2])
{
	struct sbuf wdoc = SBUF_INIT(1 << 20), rdoc = SBUF_INIT(1 << 20);
	char *state = seq_state_name(s->name, s->branch, seqno);
	char *answer = seq_answer_name(s->name, s->branch, seqno);
	bool up_state = seq_uploads_state(s, seqno), up_answer = seq_uploads_answer(s, seqno);

	/*
	 * The input: the state the segment starts from, kept on the host (sticky).
	 * The client merges this file_info into the previous segment's output
	 * of the same name and takes its URL list from it: when that output is
	 * to be uploaded, the upload URL must be here too, or the upload fails.
	 */
	sbuf_addstr(&wdoc, "<file_info>\n    <name>");
	sbuf_add_xml_escaped(&wdoc, input_name);
	sbuf_addstr(&wdoc, "</name>\n    <sticky/>\n    <no_delete/>\n");
	if (!input_url && seqno > 1 && seq_uploads_state(s, seqno - 1)) {
		sbuf_addstr(&wdoc, "    <url>");
		sbuf_add_xml_escaped(&wdoc, cfg->upload_url);
		sbuf_addstr(&wdoc, "</url>\n");
	}
	if (input_url) {
		sbuf_addstr(&wdoc, "    <url>");
		sbuf_add_xml_escaped(&wdoc, input_url);
		sbuf_addf(&wdoc, "</url>\n    <md5_cksum>%s</md5_cksum>\n    <nbytes>%.0f</nbytes>\n",
			  input_md5, input_nbytes);
	}
	sbuf_addstr(&wdoc, "</file_info>\n<workunit>\n");
	file_ref(&wdoc, input_name, "state_in");
	sbuf_addstr(&wdoc, "    <command_line>");
	sbuf_add_xml_escaped(&wdoc, s->command_line);
	sbuf_addstr(&wdoc, "</command_line>\n</workunit>\n");

	/* The outputs: the state always stays on the host; uploads every Mth / Nth. */
	file_info_out(&rdoc, state, true, s->rsc_disk_bound, up_state ? cfg->upload_url : NULL);
	file_info_out(&rdoc, answer, false, 1e7, up_answer ? cfg->upload_url : NULL);
	sbuf_addstr(&rdoc, "<result>\n");
	file_ref(&rdoc, state, "state_out");
	file_ref(&rdoc, answer, "answer");
	sbuf_addstr(&rdoc, "</result>\n");

	memset(wu, 0, sizeof(*wu));
	wu->create_time = now();
	wu->appid = s->appid;
	wu->name = seq_wu_name(s->name, s->branch, seqno);
	wu->xml_doc = sbuf_detach(&wdoc, NULL);
	wu->batch = s->batch;
	wu->rsc_fpops_est = s->rsc_fpops_est;
	wu->rsc_fpops_bound = s->rsc_fpops_bound;
	wu->rsc_memory_bound = s->rsc_memory_bound;
	wu->rsc_disk_bound = s->rsc_disk_bound;
	wu->delay_bound = s->delay_bound;
	wu->min_quorum = wu->target_nresults = 1;
	wu->max_error_results = wu->max_total_results = wu->max_success_results = 1;
	wu->priority = s->priority;
	wu->transition_time = now();
	wu->transitioner_flags = 1;     /* results come from the sequence, not the transitioner */
	wu->seq_id = s->id;
	wu->seqno = seqno;
	wu->branch = s->branch;

	memset(res, 0, sizeof(*res));
	res->create_time = now();
	res->server_state = RESULT_SERVER_STATE_INACTIVE;
	res->name = xasprintf("%s_0", wu->name);
	res->xml_doc_in = sbuf_detach(&rdoc, NULL);
	res->appid = s->appid;
	res->batch = s->batch;
	res->priority = s->priority;
	res->seq_id = s->id;
	res->random = (int)(now() & 0x7fffffff);

	seq_file_init(&files[0], s, seqno, state, SEQ_FILE_STATE, up_state, false);
	seq_file_init(&files[1], s, seqno, answer, SEQ_FILE_ANSWER, up_answer, false);
	sbuf_free(&wdoc);
	sbuf_free(&rdoc);
	free(state);
	free(answer);
}

int seq_make_segments(struct db *db, const struct project_config *cfg,
		      const struct db_sequence *s, int from, int to, const char *input_name,
		      const char *input_url, const char *input_md5, double input_nbytes)
{
	size_t n = to >= from ? (size_t)(to - from + 1) : 0, j;
	struct db_workunit *wus = xcalloc(n + 1, sizeof(*wus));
	struct db_result *res = xcalloc(n + 1, sizeof(*res));
	struct db_seq_file *files = xcalloc(2 * n + 1, sizeof(*files));
	int rc;

	for (j = 0; j < n; j++) {
		int k = from + (int)j;
		char *prev = j == 0 ? xstrdup(input_name) : seq_state_name(s->name, s->branch, k - 1);

		segment_build(cfg, s, k, prev, j == 0 ? input_url : NULL, input_md5, input_nbytes,
			      &wus[j], &res[j], &files[2 * j]);
		free(prev);
	}
	/* Three statements whatever the number of segments (relocation speed depends on it). */
	rc = db_rec_insert_many(db, &db_workunit_table, wus, sizeof(*wus), n);
	for (j = 0; rc == DB_OK && j < n; j++)
		res[j].workunitid = wus[j].id;
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_result_table, res, sizeof(*res), n);
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_seq_file_table, files, sizeof(*files), 2 * n);
	if (rc == DB_ERROR)
		log_error("sequence %s: cannot make segments %d..%d: %s", s->name, from, to,
			  db_error(db));
	for (j = 0; j < n; j++) {
		db_workunit_free(&wus[j]);
		db_result_free(&res[j]);
		db_seq_file_free(&files[2 * j]);
		db_seq_file_free(&files[2 * j + 1]);
	}
	free(wus);
	free(res);
	free(files);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

int seq_create(struct db *db, const struct project_config *cfg, const struct seq_spec *spec,
	       const char *initial_state, struct db_sequence *s)
{
	struct work_file init = { 0 };
	char *init_name = seq_state_name(spec->name, 0, 0);
	int rc;

	if (work_stage_input(cfg, initial_state, init_name, &init) < 0) {
		free(init_name);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->create_time = now();
	s->name = xstrdup(spec->name);
	s->appid = spec->appid;
	s->max_result_time = spec->max_result_time;
	s->first_unvalidated_seqno = s->first_unsent_seqno = 1;
	s->nsegments = spec->segments;
	s->target_nsegments = spec->open_ended ? 0 : spec->segments;
	s->answer_every = spec->answer_every;
	s->state_upload_every = spec->state_upload_every;
	s->high_water = spec->high_water;
	s->rsc_fpops_est = spec->rsc_fpops_est;
	s->rsc_fpops_bound = spec->rsc_fpops_bound;
	s->rsc_memory_bound = spec->rsc_memory_bound;
	s->rsc_disk_bound = spec->state_max_nbytes > spec->rsc_disk_bound ? spec->state_max_nbytes
									    : spec->rsc_disk_bound;
	s->delay_bound = spec->delay_bound;
	s->priority = spec->priority;
	s->command_line = xstrdup(spec->command_line);
	s->state = SEQ_STATE_ACTIVE;
	rc = db_sequence_insert(db, s);
	if (rc == DB_OK)
		rc = add_seq_file(db, s, 0, init_name, SEQ_FILE_STATE, true, true);
	if (rc == DB_OK)
		rc = seq_make_segments(db, cfg, s, 1, spec->segments, init_name, init.url, init.md5,
				       init.nbytes);
	if (rc != DB_OK)
		work_unstage_input(&init);
	work_file_free(&init);
	free(init_name);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}
