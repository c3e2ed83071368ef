/*
 * wseq_sample: the sample BOINC application, built against Debian's
 * libboinc-app-dev. Tests, the demo and the work-sequence machinery use it
 * as a real BOINC app: a deterministic computation with checkpoints,
 * progress reports and app_finish() (app_main.h).
 *
 *   job mode (default):  reads logical file "in", writes "out"
 *   --state mode:        reads "state_in", advances the state --steps steps,
 *                        writes "state_out" and a small "answer" file
 *   --levels F mode:     the same computation with two state levels (below)
 *
 * With --aux (in --state mode) it keeps a second state too, for sequences
 * with several state files: it reads "aux_in" (a log, possibly empty),
 * writes "aux_out" (that log plus a line for this run) and "aux_answer"
 * (the number of lines).
 *
 * --levels F: hierarchical state (doc/create_sequence.md, "Writing an app
 * with state levels"), for a sequence template whose "full" state is
 * uploaded every F-th segment and whose "delta" more often. The state is a
 * vector of words and a step changes one word (--sparse), so a segment
 * changes few. "full_in"/"full_out" hold the whole state as of the last
 * full point P (the latest segment <= k that is a multiple of F; the
 * initial state is segment 0), carried unchanged between full points;
 * "delta_in"/"delta_out" hold the step and the words that differ from it,
 * as (index, value) pairs. Segment k learns k from the physical names of
 * its inputs, NAME_b<branch>_s<seqno>_state<i> (boinc_resolve_filename):
 * k is the newest input's seqno + 1, for after a relocation the full may
 * come from an older segment than the delta (delta_8 + full_6 for k = 9).
 * It rebuilds the state from full + delta, advances it, and writes
 * full_out = the new state if F divides k, else full_in again, and
 * delta_out = the new state's difference from full_out. The answer is the
 * --state mode's, and equals a --state --sparse run's with as many steps.
 * --init writes the initial full_out and an empty delta_out.
 *
 * Options: --steps N (default 1000), --state, --words N (state size in
 * 64-bit words, for a new state when "state_in" is empty), --step_ms M
 * (sleep per step, to make a job take time), --init (write a fresh state
 * without reading one), --sparse (a step changes one word, not all),
 * --levels F. --device N, which the client adds for a version
 * that uses a coprocessor, changes nothing but is written to stderr (so
 * the result's stderr_out shows which device the job was given).
 *
 * For validator tests a client can be told to lie: if the file
 * wseq_corrupt exists in the BOINC client's data directory (../../ from the
 * slot), the outputs of every job whose workunit name contains one of its
 * lines (or of every job, if it is empty) get one byte flipped; with the
 * file wseq_fail (same format) such jobs end in a computation error after
 * computing. A client can be made slow: the file wseq_slow there holds
 * milliseconds to sleep per step (it adds to --step_ms) on its first line,
 * then (optionally) the workunit names it is for, as above.
 */
#include "app_main.h"
#include "app_seqno.h"
#include "sample_state.h"

#include <boinc/boinc_api.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void advance(struct state *s)
{
	uint64_t i, n = s->nwords;

	for (i = 0; i < n; i++)
		s->w[i] = mix(s->w[i] ^ (s->w[(i + 1) % n] + s->step));
	s->step++;
}

/* --sparse and --levels: a step changes one word, so a segment changes few. */
static void advance_sparse(struct state *s)
{
	uint64_t n = s->nwords, i = mix(s->step) % n;

	s->w[i] = mix(s->w[i] ^ (s->w[(i + 1) % n] + s->step));
	s->step++;
}

static uint64_t checksum(const struct state *s)
{
	uint64_t h = 1469598103934665603ULL, i;

	for (i = 0; i < s->nwords; i++)
		h = mix(h ^ s->w[i]);
	return mix(h ^ s->step);
}

static const char *resolve(const char *logical, char *buf, int len)
{
	if (boinc_resolve_filename(logical, buf, len) != 0)
		snprintf(buf, (size_t)len, "%s", logical);
	return buf;
}

static void new_state(struct state *s, uint64_t nwords, uint64_t seed)
{
	uint64_t i;

	s->step = 0;
	s->nwords = nwords;
	s->w = malloc(nwords * sizeof(uint64_t));
	if (!s->w) {
		fprintf(stderr, "out of memory\n");
		app_finish(1);
	}
	for (i = 0; i < nwords; i++)
		s->w[i] = mix(seed + i);
}

/* The job's state from its input: a state file, or any bytes hashed into a seed. */
static int load_input(const char *path, struct state *s, uint64_t words)
{
	int r = sample_state_read(path, s);
	FILE *fp;
	uint64_t seed = 0x243f6a8885a308d3ULL;
	int c;

	if (r <= 0)
		return r;
	fp = fopen(path, "rb");
	if (fp) {
		while ((c = getc(fp)) != EOF)
			seed = mix(seed ^ (uint64_t)c);
		fclose(fp);
	}
	new_state(s, words, seed);
	return 0;
}

/* --- --levels: a full state and a delta (the file header) ------------------- */

struct levels {
	char full_in[1024], delta_in[1024], full_out[1024], delta_out[1024];
	long seqno, full_from, delta_from;      /* this segment, and its inputs' */
	struct state full;                      /* full_in */
};

/* Which segment this is, from its inputs' names, and the full state; exits on an error. */
static void levels_inputs(struct levels *lv)
{
	resolve("full_in", lv->full_in, sizeof(lv->full_in));
	resolve("delta_in", lv->delta_in, sizeof(lv->delta_in));
	resolve("full_out", lv->full_out, sizeof(lv->full_out));
	resolve("delta_out", lv->delta_out, sizeof(lv->delta_out));
	lv->full_from = app_state_seqno(lv->full_in);
	lv->delta_from = app_state_seqno(lv->delta_in);
	if (lv->full_from < 0 || lv->delta_from < 0) {
		fprintf(stderr, "wseq_sample: cannot tell the segment of %s from its name\n",
			lv->full_from < 0 ? lv->full_in : lv->delta_in);
		app_finish(1);
	}
	lv->seqno = (lv->full_from > lv->delta_from ? lv->full_from : lv->delta_from) + 1;
	if (sample_state_read(lv->full_in, &lv->full) != 0) {
		fprintf(stderr, "wseq_sample: full_in %s is missing or damaged\n", lv->full_in);
		app_finish(1);
	}
	fprintf(stderr, "wseq_sample: segment %ld from the full state of segment %ld and the delta of segment %ld\n",
		lv->seqno, lv->full_from, lv->delta_from);
}

/* The state to start from without a checkpoint: full_in + delta_in. */
static int levels_state(const struct levels *lv, struct state *s)
{
	s->step = lv->full.step;
	s->nwords = lv->full.nwords;
	s->w = malloc(s->nwords * sizeof(uint64_t));
	if (!s->w)
		return -1;
	memcpy(s->w, lv->full.w, s->nwords * sizeof(uint64_t));
	if (sample_delta_apply(lv->delta_in, s) == 0)
		return 0;
	fprintf(stderr, "wseq_sample: delta_in %s is damaged or not relative to full_in %s\n",
		lv->delta_in, lv->full_in);
	return -1;
}

/* full_out: the new state at a full point (F divides the seqno), else full_in again; delta_out. */
static int levels_write(const struct levels *lv, const struct state *s, long every)
{
	const struct state *full = lv->seqno % every == 0 ? s : &lv->full;

	if (sample_state_write(lv->full_out, full) != 0 || sample_delta_write(lv->delta_out, full, s) != 0) {
		fprintf(stderr, "cannot write %s or %s: %s\n", lv->full_out, lv->delta_out,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Does the marker file (wseq_corrupt, wseq_fail, wseq_slow) apply to this
 * job? Its lines are parts of workunit names (none: every job); skip lines
 * at its top are not names (wseq_slow's milliseconds).
 */
static int marker_applies(const char *marker, int skip)
{
	char line[512], init[65536], *p, *e;
	char wu[256] = "";
	FILE *fp = fopen(marker, "r");
	size_t n;
	int all = 1, hit = 0;

	if (!fp)
		return 0;
	{
		FILE *ip = fopen("init_data.xml", "r");
		if (ip) {
			n = fread(init, 1, sizeof(init) - 1, ip);
			init[n] = '\0';
			fclose(ip);
			p = strstr(init, "<wu_name>");
			if (p && (e = strstr(p, "</wu_name>")) != NULL) {
				p += strlen("<wu_name>");
				snprintf(wu, sizeof(wu), "%.*s", (int)(e - p), p);
			}
		}
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (skip > 0) {
			skip--;
			continue;
		}
		if (!*line)
			continue;
		all = 0;
		if (*wu && strstr(wu, line))
			hit = 1;
	}
	fclose(fp);
	return all || hit;
}

static void flip_byte(const char *path)
{
	FILE *fp = fopen(path, "r+b");
	int c;

	if (!fp)
		return;
	fseek(fp, -1, SEEK_END);
	c = getc(fp);
	fseek(fp, -1, SEEK_END);
	putc(c ^ 0x55, fp);
	fclose(fp);
	fprintf(stderr, "wseq_sample: corrupted %s on purpose\n", path);
}

/* --aux: aux_out = aux_in + a line for this run; aux_answer = its line count. */
static int write_aux(const struct state *s)
{
	char in[1024], out[1024], ans[1024], buf[4096];
	FILE *ip, *op, *ap;
	size_t n;
	long lines = 0;

	resolve("aux_in", in, sizeof(in));
	resolve("aux_out", out, sizeof(out));
	resolve("aux_answer", ans, sizeof(ans));
	op = fopen(out, "w");
	if (!op)
		return -1;
	ip = fopen(in, "r");
	while (ip && (n = fread(buf, 1, sizeof(buf), ip)) > 0) {
		size_t k;

		for (k = 0; k < n; k++)
			lines += buf[k] == '\n';
		fwrite(buf, 1, n, op);
	}
	if (ip)
		fclose(ip);
	fprintf(op, "step %" PRIu64 " checksum %016" PRIx64 "\n", s->step, checksum(s));
	lines++;
	if (fclose(op) != 0)
		return -1;
	ap = fopen(ans, "w");
	if (!ap)
		return -1;
	fprintf(ap, "lines %ld\n", lines);
	return fclose(ap) != 0 ? -1 : 0;
}

struct options {
	long steps, words, step_ms;
	long levels;            /* --levels F: full state every F-th segment (0: one state) */
	int state_mode, init_only, aux, sparse;
	const char *device;
};

/* Parse argv into o; 0 to run, else the exit status (help: 0 after printing). */
static int parse_options(int argc, char **argv, struct options *o, int *exit_status)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			o->steps = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--words") && i + 1 < argc)
			o->words = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--step_ms") && i + 1 < argc)
			o->step_ms = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--state"))
			o->state_mode = 1;
		else if (!strcmp(argv[i], "--init"))
			o->init_only = 1;
		else if (!strcmp(argv[i], "--aux"))
			o->aux = 1;
		else if (!strcmp(argv[i], "--sparse"))
			o->sparse = 1;
		else if (!strcmp(argv[i], "--levels") && i + 1 < argc)
			o->levels = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--device") && i + 1 < argc)
			o->device = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: wseq_sample [--state [--aux] | --levels F] [--init] [--sparse] [--steps N]\n"
			       "                   [--words N] [--step_ms M] [--device N]\n"
			       "  --levels F  a full state (full_in/full_out) every F-th segment and a\n"
			       "              delta (delta_in/delta_out) of what changed since\n"
			       "  --sparse    a step changes one word of the state (implied by --levels)\n");
			*exit_status = 0;
			return -1;
		}
	}
	if (o->levels) {
		o->state_mode = o->sparse = 1;
		o->aux = 0;
	}
	if (o->steps < 0 || o->words < 1 || o->words > MAX_WORDS || o->step_ms < 0 ||
	    o->levels < 0 || o->levels > 1000000) {
		fprintf(stderr, "wseq_sample: bad arguments\n");
		*exit_status = 2;
		return -1;
	}
	return 0;
}

/* Milliseconds per step that ../../wseq_slow adds for this job (0 if none). */
static long slow_marker_ms(void)
{
	FILE *sp = fopen("../../wseq_slow", "r");
	long extra = 0, ms = 0;

	if (sp) {
		if (fscanf(sp, "%ld", &extra) == 1 && extra > 0 && marker_applies("../../wseq_slow", 1))
			ms = extra;
		fclose(sp);
	}
	return ms;
}

/* --init: write a fresh state to out (with --levels: full_out, and an empty delta_out) and finish. */
static void write_new_state(const char *out, long words, int levels)
{
	struct state s = { 0, 0, NULL };
	char path[1024];

	new_state(&s, (uint64_t)words, 0x243f6a8885a308d3ULL);
	if (levels)
		out = resolve("full_out", path, sizeof(path));
	if (sample_state_write(out, &s) != 0 ||
	    (levels && sample_delta_write(resolve("delta_out", path, sizeof(path)), &s, &s) != 0)) {
		fprintf(stderr, "cannot write the new state: %s\n", strerror(errno));
		app_finish(1);
	}
	app_finish(0);
}

/*
 * Load the state to start from into s and return the step this job started
 * at: a checkpoint wins over the input (in, or with lv full_in + delta_in),
 * for then the job was restarted.
 */
static uint64_t load_start(const char *ckpt, const char *in, long words,
			   const struct levels *lv, struct state *s)
{
	uint64_t start_step = 0;
	FILE *fp;
	int r;

	if (sample_state_read(ckpt, s) == 0) {
		fprintf(stderr, "wseq_sample: resuming from checkpoint at step %" PRIu64 "\n", s->step);
		fp = fopen("checkpoint_start", "r");
		if (fp) {
			if (fscanf(fp, "%" SCNu64, &start_step) != 1)
				start_step = 0;
			fclose(fp);
		}
		return start_step;
	}
	if (lv && levels_state(lv, s) != 0)
		app_finish(1);
	r = lv ? 0 : load_input(in, s, (uint64_t)words);
	if (r != 0) {
		fprintf(stderr, "wseq_sample: input %s is %s\n", in, r < 0 ? "damaged" : "missing");
		app_finish(1);
	}
	start_step = s->step;
	fp = fopen("checkpoint_start", "w");
	if (fp) {
		fprintf(fp, "%" PRIu64 "\n", start_step);
		fclose(fp);
	}
	return start_step;
}

static void compute(struct state *s, uint64_t start_step, const struct options *o,
		    const char *ckpt)
{
	long steps = o->steps, step_ms = o->step_ms;

	while (s->step < start_step + (uint64_t)steps) {
		if (o->sparse)
			advance_sparse(s);
		else
			advance(s);
		if (step_ms) {
			struct timespec ts = { step_ms / 1000, (step_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		if (boinc_time_to_checkpoint()) {
			sample_state_write(ckpt, s);
			boinc_checkpoint_completed();
		}
		boinc_fraction_done(steps ? (double)(s->step - start_step) / (double)steps : 1.0);
	}
}

/* Write "out" (and in --state mode "answer", and with --aux the aux files; with lv its levels). */
static void write_outputs(const struct options *o, const struct state *s, const char *out,
			  const char *answer, const struct levels *lv)
{
	FILE *fp;

	if (lv && levels_write(lv, s, o->levels) != 0)
		app_finish(1);
	if (o->state_mode) {
		if (!lv && sample_state_write(out, s) != 0) {
			fprintf(stderr, "cannot write %s: %s\n", out, strerror(errno));
			app_finish(1);
		}
		fp = fopen(answer, "w");
	} else {
		fp = fopen(out, "w");
	}
	if (!fp) {
		fprintf(stderr, "cannot write output: %s\n", strerror(errno));
		app_finish(1);
	}
	fprintf(fp, "step %" PRIu64 " words %" PRIu64 " checksum %016" PRIx64 "\n", s->step, s->nwords,
		checksum(s));
	fclose(fp);
	if (o->state_mode && o->aux && write_aux(s) != 0) {
		fprintf(stderr, "cannot write aux_out or aux_answer: %s\n", strerror(errno));
		app_finish(1);
	}
}

/* The lies a test asked of this client: ../../wseq_fail and ../../wseq_corrupt. */
static void apply_markers(int state_mode, const char *out, const char *answer)
{
	if (marker_applies("../../wseq_fail", 0)) {
		fprintf(stderr, "wseq_sample: failing on purpose\n");
		app_finish(3);
	}
	if (marker_applies("../../wseq_corrupt", 0)) {
		flip_byte(state_mode ? answer : out);
		if (state_mode)
			flip_byte(out);
	}
}

/* --- the app: app_main() runs these ------------------------------------------ */

static struct options opts = { .steps = 1000, .words = 1024 };

static int sample_args(int argc, char **argv)
{
	int status;

	return parse_options(argc, argv, &opts, &status) != 0 ? status : APP_RUN;
}

/* The steps from the checkpoint (or the input state) on, then the outputs. */
static int sample_run(void)
{
	char in[1024], out[1024], answer[1024], ckpt[1024];
	struct state s = { 0, 0, NULL };
	struct levels lv = { .full = { 0, 0, NULL } };
	uint64_t start_step;

	if (opts.device)
		fprintf(stderr, "wseq_sample: started with --device %.16s\n", opts.device);
	opts.step_ms += slow_marker_ms();
	resolve(opts.state_mode ? "state_in" : "in", in, sizeof(in));
	resolve(opts.state_mode ? "state_out" : "out", out, sizeof(out));
	resolve("answer", answer, sizeof(answer));
	resolve("checkpoint", ckpt, sizeof(ckpt));
	if (opts.init_only)
		write_new_state(out, opts.words, opts.levels > 0);
	if (opts.levels)
		levels_inputs(&lv);
	start_step = load_start(ckpt, in, opts.words, opts.levels ? &lv : NULL, &s);
	compute(&s, start_step, &opts, ckpt);
	write_outputs(&opts, &s, out, answer, opts.levels ? &lv : NULL);
	apply_markers(opts.state_mode, opts.levels ? lv.delta_out : out, answer);
	unlink(ckpt);
	unlink("checkpoint_start");
	free(s.w);
	free(lv.full.w);
	boinc_fraction_done(1.0);
	return 0;
}

static const struct app_spec sample_app = {
	.name = "wseq_sample",
	.args = sample_args,
	.init_failed = 1,
	.run = sample_run,
};

int main(int argc, char **argv)
{
	return app_main(&sample_app, argc, argv);
}
