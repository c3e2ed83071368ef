/*
 * Small helpers of the ops pages (ops.h): escaping, links, numbers, times,
 * parameters and the names of states.
 */
#include "ops.h"
#include "log.h"
#include "xml_write.h"

#include <math.h>
#include <stdarg.h>
#include <time.h>

void ops_esc(struct sbuf *b, const char *s)
{
	xml_add_text(b, s);
}

void ops_link(struct ops *o, const char *rel, const char *text)
{
	sbuf_addstr(o->b, "<a href=\"");
	ops_esc(o->b, o->base);
	ops_esc(o->b, rel);
	sbuf_addstr(o->b, "\">");
	ops_esc(o->b, text);
	sbuf_addstr(o->b, "</a>");
}

void ops_linkf(struct ops *o, const char *text, const char *fmt, ...)
{
	struct sbuf rel = SBUF_INIT(4096);
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&rel, fmt, ap);
	va_end(ap);
	ops_link(o, sbuf_str(&rel), text);
	sbuf_release(&rel);
}

void ops_none_row(struct ops *o, size_t mark, int cols)
{
	if (o->b->len == mark)
		sbuf_addf(o->b, "<tr><td colspan=\"%d\" class=\"dim\">none</td></tr>\n", cols);
}

void ops_int(struct sbuf *b, int64_t v)
{
	char tmp[32];
	size_t i, n;

	snprintf(tmp, sizeof(tmp), "%" PRIu64, v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		sbuf_addch(b, '-');
	n = strlen(tmp);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			sbuf_addch(b, ',');
		sbuf_addch(b, tmp[i]);
	}
}

void ops_time(struct sbuf *b, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[64];

	if (t <= 0) {
		sbuf_addstr(b, "-");
		return;
	}
	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm);
	sbuf_addstr(b, s);
}

void ops_duration(struct sbuf *b, double seconds)
{
	long s = seconds > 0 && seconds < 1e12 ? lround(seconds) : 0;

	if (s < 120)
		sbuf_addf(b, "%ld s", s);
	else if (s < 7200)
		sbuf_addf(b, "%ld min", s / 60);
	else if (s < 3 * 86400)
		sbuf_addf(b, "%ld h %ld min", s / 3600, s % 3600 / 60);
	else
		sbuf_addf(b, "%ld d %ld h", s / 86400, s % 86400 / 3600);
}

void ops_bytes(struct sbuf *b, double n)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB", "PB" };
	size_t u = 0;

	while (n >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		n /= 1024;
		u++;
	}
	sbuf_addf(b, u ? "%.1f %s" : "%.0f %s", n, unit[u]);
}

/* A number parameter: 1 set (*v), 0 absent, -1 malformed or out of [min, max]. */
static int num_param(struct ops *o, const char *name, long min, long max, long *v)
{
	const char *s = web_param(o->r, name);
	char *end;
	long long n;

	if (!s || !*s)
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (*end || errno || n < min || n > max || !(*s >= '0' && *s <= '9'))
		return -1;
	*v = (long)n;
	return 1;
}

bool ops_id_param(struct ops *o, const char *name, int64_t *id)
{
	long v = 0;
	int rc = num_param(o, name, 1, INT64_MAX > LONG_MAX ? LONG_MAX : (long)INT64_MAX, &v);

	if (rc == 1) {
		*id = v;
		return true;
	}
	ops_message(o, 400, "Bad request", rc == 0 ? "This page needs an id." :
		    "The id is not a positive whole number.");
	return false;
}

bool ops_num_param(struct ops *o, const char *name, long min, long max, long def, long *v)
{
	int rc = num_param(o, name, min, max, v);

	if (rc == 0)
		*v = def;
	if (rc >= 0)
		return true;
	ops_message(o, 400, "Bad request", "A number on this page's address is malformed or out "
		    "of range.");
	return false;
}

void ops_db_failed(struct ops *o, const char *what)
{
	log_error("ops: %s: the database cannot be read", what);
	ops_message(o, 503, "Database unavailable", "The project's database cannot be read at "
		    "the moment. Please try again later.");
}

const char *ops_outcome_name(int outcome)
{
	static const char *const names[] = { "-", "success", "couldn't send", "client error",
		"no reply", "didn't need", "validate error", "client detached" };

	return outcome >= 0 && outcome < (int)ARRAY_SIZE(names) ? names[outcome] : "?";
}

const char *ops_result_state(int server_state, int outcome, int validate_state)
{
	switch (server_state) {
	case RESULT_SERVER_STATE_INACTIVE:
		return "inactive";
	case RESULT_SERVER_STATE_UNSENT:
		return "unsent";
	case RESULT_SERVER_STATE_IN_PROGRESS:
		return "in progress";
	case RESULT_SERVER_STATE_OVER:
		if (outcome == RESULT_OUTCOME_SUCCESS)
			return validate_state == VALIDATE_STATE_VALID ? "valid" :
			       validate_state == VALIDATE_STATE_INVALID ? "invalid" :
			       validate_state == VALIDATE_STATE_INCONCLUSIVE ? "inconclusive" :
			       "success";
		return ops_outcome_name(outcome);
	default:
		return "-";
	}
}

const char *ops_validate_why(int why)
{
	static const char *const names[] = { "-", "check passed", "check failed",
		"output files missing or bad", "agreed with the canonical result",
		"disagreed with the canonical result", "check could not tell (waiting)" };

	return why >= 0 && why < (int)ARRAY_SIZE(names) ? names[why] : "?";
}

const char *ops_seq_state(int state)
{
	return state == SEQ_STATE_ACTIVE ? "active" : state == SEQ_STATE_ENDED ? "ended" :
	       state == SEQ_STATE_ERROR ? "error" : "?";
}

const char *ops_batch_state(int state)
{
	static const char *const names[] = { "new", "in progress", "complete", "aborted",
		"retired" };

	return state >= 0 && state < (int)ARRAY_SIZE(names) ? names[state] : "?";
}

const char *ops_relocate_reason(int why)
{
	switch (why) {
	case SEQ_RELOCATE_NONE: return "";
	case SEQ_RELOCATE_DEADLINE: return "a segment missed its deadline";
	case SEQ_RELOCATE_ERROR: return "a segment failed";
	case SEQ_RELOCATE_SLOW: return "the host is too slow";
	case SEQ_RELOCATE_ADMIN: return "asked by an admin";
	default: return "?";
	}
}
