/* Work sequences: creation and segments; see sequence.h. */
#include "sequence.h"
#include "config.h"
#include "db_queries.h"
#include "dirhier.h"
#include "log.h"
#include "work.h"
#include "wtime.h"
#include "xml_write.h"

char *seq_wu_name(const char *seq, int branch, int seqno)
{
	return xasprintf("%s_b%d_s%d", seq, branch, seqno);
}

static char *file_name(const char *seq, int branch, int seqno, const char *kind, size_t i)
{
	if (i == 0)
		return xasprintf("%s_b%d_s%d_%s", seq, branch, seqno, kind);
	return xasprintf("%s_b%d_s%d_%s%zu", seq, branch, seqno, kind, i);
}

char *seq_state_name(const char *seq, int branch, int seqno, size_t i)
{
	return file_name(seq, branch, seqno, "state", i);
}

int seq_state_index(const char *name)
{
	const char *p = NULL, *q;
	long i = 0;

	for (q = name ? strstr(name, "_state") : NULL; q; q = strstr(q + 1, "_state"))
		p = q;
	if (!p)
		return -1;
	p += strlen("_state");
	if (!*p)
		return 0;
	if (*p == '0')
		return -1;      /* file 0 is "_state" */
	for (; *p >= '0' && *p <= '9' && i < SEQ_MAX_FILES; p++)
		i = i * 10 + (*p - '0');
	return *p || i >= SEQ_MAX_FILES ? -1 : (int)i;
}

char *seq_answer_name(const char *seq, int branch, int seqno, size_t i)
{
	return file_name(seq, branch, seqno, "answer", i);
}

size_t seq_nstate_files(const struct project_config *cfg, const struct db_sequence *s)
{
	struct seq_layout l;
	size_t n;

	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return 0;
	n = l.nstate;
	seq_layout_release(&l);
	return n;
}

void seq_view_of(const struct db_sequence *s, struct seq_view *v)
{
	*v = (struct seq_view){
		.groupid = s->groupid,
		.active = s->state == SEQ_STATE_ACTIVE,
		.branch = s->branch,
		.nsegments = s->nsegments,
		.target_nsegments = s->target_nsegments,
		.first_unsent = s->first_unsent_seqno,
		.high_water = s->high_water,
		.answer_every = s->answer_every,
		.state_upload_every = s->state_upload_every,
		.last_state_seqno = s->last_state_seqno,
		.relocating = (enum seq_reason)s->need_relocate,
		.max_result_time = s->max_result_time,
		.rsc_fpops_est = s->rsc_fpops_est,
	};
}

void seq_view_levels(struct seq_view *v, const struct seq_layout *l)
{
	size_t i;

	v->nstate = l->nstate;
	for (i = 0; i < l->nstate && i < SEQ_MAX_FILES; i++)
		v->state_every[i] = l->state[i].upload_every;
}

void seg_view_of(const struct db_result *r, int seqno, int branch, struct seg_view *g)
{
	enum seg_status st = SEG_INACTIVE;

	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		st = SEG_IN_PROGRESS;
	else if (r->server_state == RESULT_SERVER_STATE_OVER && r->outcome == RESULT_OUTCOME_NO_REPLY)
		st = SEG_LATE;
	else if (r->server_state == RESULT_SERVER_STATE_OVER && r->outcome == RESULT_OUTCOME_SUCCESS)
		st = r->validate_state == VALIDATE_STATE_INVALID ? SEG_INVALID : SEG_SUCCESS;
	else if (r->server_state == RESULT_SERVER_STATE_OVER)
		st = SEG_ERROR;
	*g = (struct seg_view){ seqno, branch, r->hostid, st, (double)r->report_deadline,
				r->elapsed_time };
}

unsigned seq_state_uploads(const struct db_sequence *s, const struct seq_layout *l, int seqno)
{
	struct seq_view v;

	seq_view_of(s, &v);
	seq_view_levels(&v, l);
	return seq_policy_state_mask(&v, seqno);
}

bool seq_uploads_answer(const struct db_sequence *s, int seqno)
{
	struct seq_view v;

	seq_view_of(s, &v);
	return seq_policy_uploads(&v, seqno) & SEQ_UPLOAD_ANSWER;
}

static void file_info_out(struct sbuf *b, const char *name, bool sticky, double max_nbytes,
			  const char *upload_url)
{
	sbuf_addstr(b, "<file_info>\n    <name>");
	xml_add_text(b, name);
	sbuf_addstr(b, "</name>\n");
	if (sticky)
		sbuf_addstr(b, "    <sticky/>\n");
	sbuf_addf(b, "    <max_nbytes>%.0f</max_nbytes>\n", max_nbytes);
	if (upload_url) {
		sbuf_addstr(b, "    <url>");
		xml_add_text(b, upload_url);
		sbuf_addstr(b, "</url>\n");
	}
	sbuf_addstr(b, "</file_info>\n");
}

/*
 * An output is copied out of the slot; an input state is linked, so that
 * boinc_resolve_filename(open_name) gives its physical name -- which tells
 * the app the segment it came from (after a relocation, with state levels,
 * not every input is from the previous segment).
 */
static void file_ref(struct sbuf *b, const char *name, const char *open_name, bool copy)
{
	sbuf_addstr(b, "    <file_ref>\n        <file_name>");
	xml_add_text(b, name);
	sbuf_addf(b, "</file_name>\n        <open_name>%s</open_name>\n%s    </file_ref>\n",
		  open_name, copy ? "        <copy_file/>\n" : "");
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

/* An initial state's row: on the server from the start, its MD5 and size known. */
static int add_initial_state(struct db *db, const struct db_sequence *s, const struct seq_input *in)
{
	struct db_seq_file f;
	int rc;

	seq_file_init(&f, s, 0, in->name, SEQ_FILE_STATE, true, true);
	f.md5_cksum = xstrdup(in->md5);
	f.nbytes = in->nbytes;
	f.upload_time = f.create_time;
	rc = db_seq_file_insert(db, &f);
	db_seq_file_release(&f);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

/* Segment seqno's workunit, result (workunitid still 0) and output files, in memory. */
static void segment_build(const struct project_config *cfg, const struct db_sequence *s,
			  const struct seq_layout *l, int seqno, const struct seq_input *in,
			  struct db_workunit *wu, struct db_result *res, struct db_seq_file *files)
{
	struct sbuf wdoc = SBUF_INIT(1 << 20), rdoc = SBUF_INIT(1 << 20);
	unsigned up_state = seq_state_uploads(s, l, seqno);
	unsigned up_before = seqno > 1 ? seq_state_uploads(s, l, seqno - 1) : 0;
	bool up_answer = seq_uploads_answer(s, seqno);
	size_t i, nf = 0;

	/*
	 * The inputs: the states the segment starts from, kept on the host
	 * (sticky). The client merges such a file_info into the previous
	 * segment's output of the same name and takes its URL list from it:
	 * when that output is to be uploaded, the upload URL must be here too,
	 * or the upload fails.
	 */
	for (i = 0; i < l->nstate; i++) {
		sbuf_addstr(&wdoc, "<file_info>\n    <name>");
		xml_add_text(&wdoc, in[i].name);
		sbuf_addstr(&wdoc, "</name>\n    <sticky/>\n    <no_delete/>\n");
		if (!in[i].url && (in[i].upload || (up_before >> i & 1u))) {
			sbuf_addstr(&wdoc, "    <url>");
			xml_add_text(&wdoc, cfg->upload_url);
			sbuf_addstr(&wdoc, "</url>\n");
		}
		if (in[i].url) {
			sbuf_addstr(&wdoc, "    <url>");
			xml_add_text(&wdoc, in[i].url);
			sbuf_addf(&wdoc, "</url>\n    <md5_cksum>%s</md5_cksum>\n"
				  "    <nbytes>%.0f</nbytes>\n", in[i].md5, in[i].nbytes);
		}
		sbuf_addstr(&wdoc, "</file_info>\n");
	}
	sbuf_addstr(&wdoc, "<workunit>\n");
	for (i = 0; i < l->nstate; i++)
		file_ref(&wdoc, in[i].name, l->state[i].open_in, false);
	sbuf_addstr(&wdoc, "    <command_line>");
	xml_add_text(&wdoc, s->command_line);
	sbuf_addstr(&wdoc, "</command_line>\n</workunit>\n");

	/*
	 * The outputs: the states always stay on the host; state file i is
	 * uploaded when its level's period divides seqno, answers every Nth.
	 */
	for (i = 0; i < l->nstate; i++) {
		char *name = seq_state_name(s->name, s->branch, seqno, i);
		bool up = up_state >> i & 1u;

		file_info_out(&rdoc, name, true,
			      l->state[i].max_nbytes > 0 ? l->state[i].max_nbytes : s->rsc_disk_bound,
			      up ? cfg->upload_url : NULL);
		seq_file_init(&files[nf++], s, seqno, name, SEQ_FILE_STATE, up, false);
		free(name);
	}
	for (i = 0; i < l->nanswer; i++) {
		char *name = seq_answer_name(s->name, s->branch, seqno, i);

		file_info_out(&rdoc, name, false, l->answer[i].max_nbytes,
			      up_answer ? cfg->upload_url : NULL);
		seq_file_init(&files[nf++], s, seqno, name, SEQ_FILE_ANSWER, up_answer, false);
		free(name);
	}
	sbuf_addstr(&rdoc, "<result>\n");
	for (i = 0; i < nf; i++)
		file_ref(&rdoc, files[i].name, i < l->nstate ? l->state[i].open_out
							     : l->answer[i - l->nstate].open_name, true);
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
	work_certify_outputs(cfg, res);
	res->appid = s->appid;
	res->batch = s->batch;
	res->priority = s->priority;
	res->seq_id = s->id;
	res->random = (int)(now() & 0x7fffffff);
	sbuf_release(&wdoc);
	sbuf_release(&rdoc);
}

void seq_rows_release(struct seq_rows *r)
{
	size_t j;

	for (j = 0; j < r->n; j++) {
		db_workunit_release(&r->wu[j]);
		db_result_release(&r->res[j]);
	}
	for (j = 0; j < r->nfiles; j++)
		db_seq_file_release(&r->files[j]);
	free(r->wu);
	free(r->res);
	free(r->files);
	memset(r, 0, sizeof(*r));
}

void seq_rows_add(struct seq_rows *r, const struct project_config *cfg,
		 const struct db_sequence *s, const struct seq_layout *l, int from, int to,
		 const struct seq_input *in)
{
	size_t n = to >= from ? (size_t)(to - from + 1) : 0, nf = l->nstate + l->nanswer, j, i;

	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->wu = xrealloc(r->wu, r->cap * sizeof(*r->wu));
		r->res = xrealloc(r->res, r->cap * sizeof(*r->res));
	}
	if (r->nfiles + nf * n > r->cap_files) {
		r->cap_files = (r->nfiles + nf * n) * 2;
		r->files = xrealloc(r->files, r->cap_files * sizeof(*r->files));
	}
	for (j = 0; j < n; j++) {
		int k = from + (int)j;
		struct seq_input prev[SEQ_MAX_FILES];
		char *names[SEQ_MAX_FILES] = { NULL };

		for (i = 0; i < l->nstate; i++) {
			if (j == 0 && in) {
				prev[i] = in[i];
			} else {
				names[i] = seq_state_name(s->name, s->branch, k - 1, i);
				prev[i] = (struct seq_input){ names[i], NULL, NULL, 0, false };
			}
		}
		segment_build(cfg, s, l, k, prev, &r->wu[r->n], &r->res[r->n],
			      &r->files[r->nfiles]);
		r->n++;
		r->nfiles += nf;
		for (i = 0; i < l->nstate; i++)
			free(names[i]);
	}
}

int seq_rows_insert(struct db *db, struct seq_rows *r)
{
	size_t j;
	/* Three statements whatever the number of segments and sequences. */
	int rc = db_rec_insert_many(db, &db_workunit_table, r->wu, sizeof(*r->wu), r->n);

	for (j = 0; rc == DB_OK && j < r->n; j++)
		r->res[j].workunitid = r->wu[j].id;
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_result_table, r->res, sizeof(*r->res), r->n);
	if (rc == DB_OK)
		rc = db_rec_insert_many(db, &db_seq_file_table, r->files, sizeof(*r->files),
					r->nfiles);
	if (rc == DB_ERROR)
		log_error("cannot make %zu segment workunits: %s", r->n, db_error(db));
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}

int seq_make_segments(struct db *db, const struct project_config *cfg,
		      const struct db_sequence *s, int from, int to, const struct seq_input *in,
		      size_t nin)
{
	struct seq_rows r = { 0 };
	struct seq_layout l;
	int rc;

	if (seq_layout_load(cfg->project_dir, s->wu_template, &l) < 0)
		return -1;
	if (seq_layout_check_every(&l, s->state_upload_every, s->name) < 0) {
		seq_layout_release(&l);
		return -1;
	}
	if (in && nin != l.nstate) {
		seq_layout_release(&l);
		return log_error("sequence %s: %zu input states for %zu state files", s->name, nin,
				 l.nstate);
	}
	seq_rows_add(&r, cfg, s, &l, from, to, in);
	rc = seq_rows_insert(db, &r);
	if (rc < 0)
		log_error("sequence %s: segments %d..%d not made", s->name, from, to);
	seq_rows_release(&r);
	seq_layout_release(&l);
	return rc;
}

struct prev_states {
	struct seq_input in[SEQ_MAX_FILES];
	char *names[SEQ_MAX_FILES];
	size_t n;
};

static int take_prev_state(struct db_seq_file *f, void *arg)
{
	struct prev_states *p = arg;

	if (f->kind != SEQ_FILE_STATE || p->n == SEQ_MAX_FILES)
		return 0;
	p->names[p->n] = f->name;
	f->name = NULL;
	p->in[p->n] = (struct seq_input){ p->names[p->n], NULL, NULL, 0, f->upload != 0 };
	p->n++;
	return 0;
}

/*
 * Segment from-1's states as the host keeps them, with whether that segment
 * uploads them as its rows say: decided when it was made, which an extension
 * of a known-length sequence may since have changed for seq_state_uploads()
 * (the formerly last segment uploads its state, a middle one might not).
 */
int seq_make_following(struct db *db, const struct project_config *cfg,
		       const struct db_sequence *s, int from, int to)
{
	struct prev_states p = { .n = 0 };
	size_t i;
	int rc;

	if (from > 1 && db_seq_file_enum_segment(db, s->id, s->branch, from - 1, take_prev_state,
						 &p) != DB_OK)
		p.n = 0;
	rc = seq_make_segments(db, cfg, s, from, to, p.n ? p.in : NULL, p.n);
	for (i = 0; i < p.n; i++)
		free(p.names[i]);
	return rc;
}

int seq_create(struct db *db, const struct project_config *cfg, const struct seq_spec *spec,
	       char *const *initial_states, size_t ninitial, struct db_sequence *s)
{
	struct work_file init[SEQ_MAX_FILES];
	struct seq_input in[SEQ_MAX_FILES];
	struct seq_layout l;
	size_t i, nstaged = 0;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	memset(init, 0, sizeof(init));
	if (seq_layout_load(cfg->project_dir, spec->seq_template, &l) < 0)
		return -1;
	if (seq_layout_check_every(&l, spec->state_upload_every, spec->name) < 0) {
		rc = -1;
		goto out;
	}
	if (ninitial != l.nstate) {
		rc = log_error("sequence %s: %zu initial state file%s given, the template has %zu "
			       "state file%s", spec->name, ninitial, ninitial == 1 ? "" : "s",
			       l.nstate, l.nstate == 1 ? "" : "s");
		goto out;
	}
	for (i = 0; i < l.nstate && rc == 0; i++) {
		char *name = seq_state_name(spec->name, 0, 0, i);

		if (work_stage_input(cfg, initial_states[i], name, &init[i]) < 0)
			rc = -1;
		else
			in[nstaged++] = (struct seq_input){ init[i].name, init[i].url,
							    init[i].md5, init[i].nbytes, false };
		free(name);
	}
	if (rc)
		goto out;
	s->create_time = now();
	s->name = xstrdup(spec->name);
	s->appid = spec->appid;
	s->wu_template = xstrdup(spec->seq_template ? spec->seq_template : "");
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
	s->batch = spec->batch;
	rc = db_sequence_insert(db, s);
	for (i = 0; rc == DB_OK && i < l.nstate; i++)
		rc = add_initial_state(db, s, &in[i]);
	if (rc == DB_OK)
		rc = seq_make_segments(db, cfg, s, 1, spec->segments, in, l.nstate);
out:
	for (i = 0; i < nstaged; i++) {
		if (rc != DB_OK)
			work_unstage_input(&init[i]);
		work_file_release(&init[i]);
	}
	seq_layout_release(&l);
	return rc == DB_OK ? 0 : rc == DB_RETRY ? DB_RETRY : -1;
}
