/*
 * A sequence's timeline as SVG, drawn by the server (no script, no outside
 * service): one row per branch, newest at the bottom; each segment's
 * result a bar from sent to received (to now while in progress, to its
 * deadline when it never came back, to the relocation for one retired
 * then), coloured by how it ended; the host named above each run of bars on
 * one host; under a segment a mark per state file it uploaded, a shape per
 * level (hollow once the file deleter deleted it as superseded), and a dot
 * if it uploaded an answer; the legend names the levels and their periods; where a relocation cut a branch, a red
 * dashed line down to the branch that took over; dead branches grey and
 * called dead. Every text is escaped: host names come from volunteers.
 */
#include "ops.h"
#include "db_ops.h"
#include "seq_keep.h"
#include "sequence.h"

#include <math.h>
#include <time.h>

#define W 1000                  /* the picture's width */
#define LEFT 170                /* the branch labels' column */
#define RIGHT 24
#define TOP 28
#define ROW 66                  /* a branch's height */
#define BAR_Y 30                /* the bars' top within their row */
#define BARS_H 22               /* the bars' height: one lane, or lanes of overlapping ones */
#define LANES_MAX 4
#define AXIS 62                 /* the time axis and the legend (two lines) under the rows */
#define CHAR_W 6.6              /* a label character's width, roughly */
#define ROWS_MAX 60             /* branches drawn: the newest ones */

struct frame {
	int64_t t0, t1;
	double pw;              /* the plot's width */
};

static double x_of(const struct frame *f, int64_t t)
{
	if (t < f->t0)
		t = f->t0;
	if (t > f->t1)
		t = f->t1;
	return LEFT + (double)(t - f->t0) / (double)(f->t1 - f->t0) * f->pw;
}

/* The first segment of branch b, or NULL. */
static const struct db_ops_segment *first_of(const struct ops_timeline *t, int b)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++)
		if (t->segs[i].branch == b)
			return &t->segs[i];
	return NULL;
}

/* When the relocation away from branch b happened (its successor's creation), 0 none. */
static int64_t cut_time(const struct ops_timeline *t, int b)
{
	const struct db_ops_segment *s = b < t->seq->branch ? first_of(t, b + 1) : NULL;

	return s ? s->create_time : 0;
}

static void time_range(const struct ops_timeline *t, struct frame *f)
{
	size_t i;

	f->t0 = t->seq->create_time > 0 ? t->seq->create_time : t->now;
	f->t1 = f->t0;
	for (i = 0; i < t->nsegs; i++) {
		const struct db_ops_result *r = &t->segs[i].r;

		if (r->sent_time > 0 && r->sent_time < f->t0)
			f->t0 = r->sent_time;
		if (r->received_time > f->t1)
			f->t1 = r->received_time;
		if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS ||
		    (r->sent_time && !r->received_time))
			f->t1 = t->now > f->t1 ? t->now : f->t1;
		if (t->segs[i].create_time > f->t1)
			f->t1 = t->segs[i].create_time;
	}
	if (t->seq->state == SEQ_STATE_ACTIVE && t->now > f->t1)
		f->t1 = t->now;
	if (f->t1 - f->t0 < 60)
		f->t1 = f->t0 + 60;
	/* a little room on the right for the last labels */
	f->t1 += (f->t1 - f->t0) / 20;
	f->pw = W - LEFT - RIGHT;
}

/* Where a result's bar ends. */
static int64_t bar_end(const struct ops_timeline *t, const struct db_ops_segment *s, int64_t cut)
{
	const struct db_ops_result *r = &s->r;
	int64_t end;

	if (r->received_time > 0)
		return r->received_time;
	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		end = t->now;
	else if (r->outcome == RESULT_OUTCOME_NO_REPLY && r->report_deadline > 0)
		end = r->report_deadline;
	else if (cut)
		end = cut;
	else if (t->seq->state != SEQ_STATE_ACTIVE && t->seq->mod_time > r->sent_time)
		end = t->seq->mod_time;         /* retired when the sequence ended */
	else
		end = t->now;
	/* what never came back ends, on a dead branch, where the relocation cut it */
	return cut && end > cut && cut >= r->sent_time ? cut : end;
}

static const char *bar_class(const struct db_ops_result *r)
{
	if (r->server_state == RESULT_SERVER_STATE_IN_PROGRESS)
		return "running";
	if (r->server_state != RESULT_SERVER_STATE_OVER)
		return "unsent";
	switch (r->outcome) {
	case RESULT_OUTCOME_SUCCESS:
		return r->validate_state == VALIDATE_STATE_INVALID ? "error" : "done";
	case RESULT_OUTCOME_NO_REPLY:
		return "noreply";
	case RESULT_OUTCOME_DIDNT_NEED:
		return "retired";
	default:
		return "error";
	}
}

static void host_label(char *out, size_t n, const struct db_ops_result *r)
{
	if (r->host_name && *r->host_name)
		snprintf(out, n, "%s", r->host_name);
	else
		snprintf(out, n, "host %" PRId64, r->hostid);
}

/* A state mark's shape per level (state file), 8 units wide, from its top-left corner. */
static const char *const level_shape[] = {
	"m4 0 l4 4 l-4 4 l-4 -4 z",             /* diamond */
	"m0 0 h8 v8 h-8 z",                     /* square */
	"m4 0 l4 8 h-8 z",                      /* triangle */
	"m0 4 l4 -4 l4 4 l-4 4 l-2 -2 z",       /* notched diamond */
};

static void state_mark(struct sbuf *b, const struct ops_timeline *t, size_t i, bool gone,
		       int seqno, double x, double y)
{
	char level[64];

	if (t->layout)
		seq_keep_level_name(t->layout, i, level, sizeof(level));
	else
		snprintf(level, sizeof(level), "state file %zu", i);
	sbuf_addf(b, "<path class=\"mark state l%zu%s\" data-level=\"", i % ARRAY_SIZE(level_shape),
		  gone ? " gone" : "");
	ops_esc(b, level);
	sbuf_addf(b, "\" d=\"M%.1f %.1f %s\"><title>segment %d: ", x, y,
		  level_shape[i % ARRAY_SIZE(level_shape)], seqno);
	ops_esc(b, level);
	sbuf_addf(b, " uploaded%s</title></path>\n", gone ? ", since deleted as superseded" : "");
}

/*
 * The marks of segment s: a state file's version counts as uploaded if it
 * is on the server or was deleted as superseded (file_delete_state set).
 */
static void file_marks(struct sbuf *b, const struct ops_timeline *t,
		       const struct db_ops_segment *s, double x, double y)
{
	bool up[SEQ_MAX_FILES] = { false }, gone[SEQ_MAX_FILES] = { false }, answer = false;
	size_t i;

	for (i = 0; i < t->nfiles; i++) {
		const struct db_seq_file *f = &t->files[i];
		int k;

		if (f->seq_id != t->seq->id || f->branch != s->branch || f->seqno != s->seqno)
			continue;
		answer |= f->kind == SEQ_FILE_ANSWER && f->uploaded;
		k = seq_keep_file_index(f);
		if (k >= 0 && (f->uploaded || f->file_delete_state)) {
			up[k] = true;
			gone[k] = !f->uploaded;
		}
	}
	for (i = 0; i < SEQ_MAX_FILES; i++)
		if (up[i]) {
			state_mark(b, t, i, gone[i], s->seqno, x, y);
			x += 11;
		}
	if (answer)
		sbuf_addf(b, "<circle class=\"mark answer\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\">"
			     "<title>segment %d: answer uploaded</title></circle>\n", x + 4, y + 4,
			  s->seqno);
}

/* A bar's place: x from, x to, lane (bars of a branch that overlap go one under another). */
struct bar_pos {
	double x0, x1;
	int lane;
};

static void bar(struct sbuf *b, const struct ops_timeline *t, const struct db_ops_segment *s,
		double y, const struct bar_pos *p, int nlanes)
{
	const struct db_ops_result *r = &s->r;
	double w = p->x1 - p->x0, x0 = p->x0, bh = (double)BARS_H / nlanes - (nlanes > 1);
	double by = y + BAR_Y + p->lane * (bh + 1);
	char host[300];

	host_label(host, sizeof(host), r);
	sbuf_addf(b, "<rect class=\"seg %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		     "data-seqno=\"%d\" data-host=\"", bar_class(r), x0, by, w, bh, s->seqno);
	ops_esc(b, host);
	sbuf_addf(b, "\"><title>segment %d (", s->seqno);
	ops_esc(b, r->name);
	sbuf_addstr(b, ") on ");
	ops_esc(b, host);
	sbuf_addf(b, ": %s; sent ", ops_result_state(r->server_state, r->outcome, r->validate_state));
	ops_time(b, r->sent_time);
	if (r->received_time) {
		sbuf_addstr(b, ", received ");
		ops_time(b, r->received_time);
	}
	sbuf_addstr(b, " UTC</title></rect>\n");
	if (bh >= 9 && w >= 8.0 * (s->seqno >= 100 ? 3 : s->seqno >= 10 ? 2 : 1) + 4)
		sbuf_addf(b, "<text class=\"segno\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", x0 + w / 2,
			  by + bh / 2 + 3.5, s->seqno);
	/* uploads happen as a segment ends: the marks under its end */
	file_marks(b, t, s, p->x1 - 20 > x0 ? p->x1 - 20 : x0, y + BAR_Y + BARS_H + 2);
}

/* Each drawn segment of branch its place; the number of lanes used. */
static int place_bars(const struct ops_timeline *t, const struct frame *f, int branch,
		      int64_t cut, struct bar_pos *pos)
{
	double lane_end[LANES_MAX];
	int nlanes = 1, l, best;
	size_t i;

	for (l = 0; l < LANES_MAX; l++)
		lane_end[l] = -1;
	for (i = 0; i < t->nsegs; i++) {
		const struct db_ops_segment *s = &t->segs[i];

		if (s->branch != branch || s->r.sent_time <= 0)
			continue;
		pos[i].x0 = x_of(f, s->r.sent_time);
		pos[i].x1 = x_of(f, bar_end(t, s, cut));
		if (pos[i].x1 - pos[i].x0 < 3)
			pos[i].x1 = pos[i].x0 + 3;
		for (best = 0, l = 0; l < LANES_MAX; l++) {
			if (lane_end[l] <= pos[i].x0 + 0.5) {
				best = l;
				break;
			}
			if (lane_end[l] < lane_end[best])
				best = l;
		}
		pos[i].lane = best;
		lane_end[best] = pos[i].x1;
		if (best + 1 > nlanes)
			nlanes = best + 1;
	}
	return nlanes;
}

/* Host names above the bars: one for each run of segments on one host, where there is room. */
static void host_labels(struct sbuf *b, const struct ops_timeline *t, const struct frame *f,
			int branch, double y)
{
	double free_from = 0;
	int64_t last_host = -1;
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct db_ops_segment *s = &t->segs[i];
		char host[300];
		double x;

		if (s->branch != branch || !s->r.sent_time || s->r.hostid == last_host)
			continue;
		last_host = s->r.hostid;
		x = x_of(f, s->r.sent_time);
		if (x < free_from)
			continue;
		host_label(host, sizeof(host), &s->r);
		sbuf_addf(b, "<text class=\"host\" x=\"%.1f\" y=\"%.1f\">", x, y + BAR_Y - 4);
		ops_esc(b, host);
		sbuf_addstr(b, "</text>\n");
		free_from = x + CHAR_W * (double)strlen(host) + 8;
	}
}

static void branch_row(struct sbuf *b, const struct ops_timeline *t, const struct frame *f,
		       int branch, int row)
{
	double y = TOP + row * ROW;
	bool dead = branch != t->seq->branch;
	int64_t cut = dead ? cut_time(t, branch) : 0;
	const struct db_ops_segment *next = dead ? first_of(t, branch + 1) : NULL;
	struct bar_pos *pos = xcalloc(t->nsegs + 1, sizeof(*pos));
	int nunsent = 0, nlanes = place_bars(t, f, branch, cut, pos);
	size_t i;

	sbuf_addf(b, "<g class=\"branch %s\" data-branch=\"%d\">\n<rect class=\"row\" x=\"0\" "
		     "y=\"%.1f\" width=\"%d\" height=\"%d\"/>\n", dead ? "dead" : "live", branch, y, W,
		  ROW);
	sbuf_addf(b, "<text class=\"label\" x=\"8\" y=\"%.1f\">branch %d</text>\n", y + 24, branch);
	sbuf_addf(b, "<text class=\"sub\" x=\"8\" y=\"%.1f\">", y + 40);
	if (dead && next)
		sbuf_addf(b, "dead from segment %d", next->seqno);
	else if (dead)
		sbuf_addstr(b, "dead");
	else
		sbuf_addstr(b, t->seq->state == SEQ_STATE_ACTIVE ? "live" : "live (ended)");
	sbuf_addstr(b, "</text>\n");
	for (i = 0; i < t->nsegs; i++) {
		if (t->segs[i].branch != branch)
			continue;
		if (t->segs[i].r.sent_time > 0)
			bar(b, t, &t->segs[i], y, &pos[i], nlanes);
		else
			nunsent++;
	}
	host_labels(b, t, f, branch, y);
	if (nunsent)
		sbuf_addf(b, "<text class=\"sub\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d not "
			     "sent</text>\n", W - RIGHT, y + 12, nunsent);
	sbuf_addstr(b, "</g>\n");
	free(pos);
}

/* The relocation away from branch (in row): a cut on it, a line down to its successor. */
static void cut_mark(struct sbuf *b, const struct ops_timeline *t, const struct frame *f,
		     int branch, int row)
{
	int64_t when = cut_time(t, branch);
	const struct db_ops_segment *next = first_of(t, branch + 1);
	double x = x_of(f, when), y = TOP + row * ROW;
	bool right = x > W - RIGHT - 230;

	if (!when || !next)
		return;
	sbuf_addf(b, "<g class=\"cut\" data-branch=\"%d\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		     "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">relocated to branch "
		     "%d at segment %d</text><title>relocated at ", branch, x, y + 6, x,
		  y + ROW + BAR_Y, right ? x - 5 : x + 5, y + 13, right ? "end" : "start", branch + 1,
		  next->seqno);
	ops_time(b, when);
	sbuf_addstr(b, " UTC</title></g>\n");
}

/* A tick step giving at most 8 ticks: seconds to weeks. */
static int64_t tick_step(int64_t span)
{
	static const int64_t steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
		7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(steps); i++)
		if (span / steps[i] <= 8)
			return steps[i];
	return span / 8;
}

static void axis(struct sbuf *b, const struct frame *f, int nrows)
{
	double y = TOP + nrows * ROW;
	int64_t step = tick_step(f->t1 - f->t0), t;

	sbuf_addf(b, "<g class=\"axis\"><line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		  LEFT, y, LEFT + f->pw, y);
	for (t = (f->t0 / step + 1) * step; t <= f->t1; t += step) {
		time_t tt = (time_t)t;
		struct tm tm;
		char s[32];
		double x = x_of(f, t);

		gmtime_r(&tt, &tm);
		if (step >= 86400)
			strftime(s, sizeof(s), "%m-%d", &tm);
		else if (step >= 60)
			strftime(s, sizeof(s), "%H:%M", &tm);
		else
			strftime(s, sizeof(s), "%H:%M:%S", &tm);
		sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			  x, TOP, x, y + 4, x, y + 16, s);
	}
	{
		time_t tt = (time_t)f->t0;
		struct tm tm;
		char s[32];

		gmtime_r(&tt, &tm);
		strftime(s, sizeof(s), "%Y-%m-%d", &tm);
		sbuf_addf(b, "<text x=\"8\" y=\"%.1f\">%s UTC</text></g>\n", y + 16, s);
	}
}

/* The second line of the legend: a mark per level with its period, deleted, answer. */
static void legend_marks(struct sbuf *b, const struct ops_timeline *t, double y)
{
	struct seq_view v;
	size_t i, n = t->layout ? t->layout->nstate : 1;
	double x = LEFT;
	char level[64];

	seq_view_of(t->seq, &v);
	if (t->layout)
		seq_view_levels(&v, t->layout);
	for (i = 0; i < n && i < SEQ_MAX_FILES; i++) {
		char text[128];

		if (t->layout)
			seq_keep_level_name(t->layout, i, level, sizeof(level));
		else
			snprintf(level, sizeof(level), "state");
		snprintf(text, sizeof(text), "%s every %d", level, seq_policy_state_period(&v, i));
		sbuf_addf(b, "<path class=\"mark state l%zu\" d=\"M%.1f %.1f %s\"/><text class=\"level\" "
			     "x=\"%.1f\" y=\"%.1f\">", i % ARRAY_SIZE(level_shape), x, y + 1,
			  level_shape[i % ARRAY_SIZE(level_shape)], x + 12, y + 9);
		ops_esc(b, text);
		sbuf_addstr(b, "</text>");
		x += 24 + CHAR_W * (double)strlen(text);
	}
	sbuf_addf(b, "<path class=\"mark state l0 gone\" d=\"M%.1f %.1f %s\"/><text x=\"%.1f\" "
		     "y=\"%.1f\">deleted as superseded</text>", x, y + 1, level_shape[0], x + 12, y + 9);
	x += 160;
	sbuf_addf(b, "<circle class=\"mark answer\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/><text "
		     "x=\"%.1f\" y=\"%.1f\">answer uploaded</text>", x + 4, y + 5, x + 12, y + 9);
}

static void legend(struct sbuf *b, const struct ops_timeline *t, int nrows)
{
	static const struct { const char *cls, *text; } items[] = {
		{ "done", "done" }, { "running", "in progress" }, { "error", "error" },
		{ "noreply", "no reply" }, { "retired", "retired" },
	};
	double y = TOP + nrows * ROW + 28, x = LEFT;
	size_t i;

	sbuf_addstr(b, "<g class=\"legend\">");
	for (i = 0; i < ARRAY_SIZE(items); i++) {
		sbuf_addf(b, "<rect class=\"seg %s\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">%s</text>", items[i].cls, x, y, x + 18, y + 9,
			  items[i].text);
		x += 30 + CHAR_W * (double)strlen(items[i].text);
	}
	legend_marks(b, t, y + 16);
	sbuf_addstr(b, "</g>\n");
}

static const char svg_style[] =
	"text{font:11px system-ui,sans-serif;fill:#222}.label{font-weight:600;font-size:12px}"
	".sub{fill:#555}.row{fill:#fff}.branch.dead .row{fill:#ececec}"
	".branch.dead text{fill:#777}.seg{stroke:#0004}.seg.done{fill:#2e7d32}"
	".seg.running{fill:#1e88e5}.seg.error{fill:#c62828}.seg.noreply{fill:#ef6c00}"
	".seg.retired,.seg.unsent{fill:#b0b0b0}.branch.dead .seg{opacity:.45}"
	".segno{fill:#fff;font-size:9px;text-anchor:middle}.host{font-size:11px}"
	".mark.state{fill:#6a1b9a;stroke:#6a1b9a}.mark.state.l1{fill:#ad1457;stroke:#ad1457}"
	".mark.state.l2{fill:#283593;stroke:#283593}.mark.state.l3{fill:#4e342e;stroke:#4e342e}"
	".mark.state.gone{fill:none}.mark.answer{fill:#00897b}"
	".cut line{stroke:#c62828;stroke-width:2;stroke-dasharray:5 3}.cut text{fill:#c62828}"
	".branch.dead .cut text{fill:#c62828}.axis line{stroke:#555}.axis line.grid{stroke:#0001}"
	".axis text{fill:#555;font-size:10px}.now{stroke:#1e88e5;stroke-dasharray:2 3}";

void ops_svg_timeline(struct sbuf *b, const struct ops_timeline *t)
{
	struct frame f;
	int first = t->seq->branch >= ROWS_MAX ? t->seq->branch - ROWS_MAX + 1 : 0;
	int nrows = t->seq->branch - first + 1, row;
	double h = TOP + nrows * ROW + AXIS;

	time_range(t, &f);
	sbuf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" id=\"timeline\" "
		     "viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" role=\"img\" "
		     "aria-label=\"timeline of sequence ", W, h, W, h);
	ops_esc(b, t->seq->name);
	sbuf_addf(b, "\">\n<style>%s</style>\n<text class=\"label\" x=\"8\" y=\"16\">", svg_style);
	ops_esc(b, t->seq->name);
	sbuf_addf(b, ": %d branch%s%s, %d relocation%s</text>\n", t->seq->branch + 1,
		  t->seq->branch ? "es" : "", first ? " (the newest shown)" : "", t->seq->nrelocations,
		  t->seq->nrelocations == 1 ? "" : "s");
	for (row = 0; row < nrows; row++)
		branch_row(b, t, &f, first + row, row);
	for (row = 0; row + 1 < nrows; row++)
		cut_mark(b, t, &f, first + row, row);
	axis(b, &f, nrows);
	if (t->seq->state == SEQ_STATE_ACTIVE)
		sbuf_addf(b, "<line class=\"now\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"><title>"
			     "now</title></line>\n", x_of(&f, t->now), TOP, x_of(&f, t->now),
			  (double)(TOP + nrows * ROW));
	legend(b, t, nrows);
	sbuf_addstr(b, "</svg>\n");
}
