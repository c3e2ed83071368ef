/* The /complete body check of the sweep endpoints; see sweep_check.h. */
#include "sweep_check.h"
#include "field.h"
#include "sweep_msg.h"

/* The task as the client got it: its body after a Ticket and a Timeout. */
static int task_decode(const char *task, struct sweep_task *t, struct sbuf *why)
{
	struct sbuf b = SBUF_INIT(SWEEP_MSG_MAX);
	int rc = -1;

	if (!task)
		sbuf_addstr(why, "no such task");
	else if (sbuf_addstr(&b, "Ticket=0\nTimeout=0\n") == 0 && sbuf_addstr(&b, task) == 0)
		rc = sweep_task_decode(b.buf, b.len, SWEEP_MSG_MAX, t, why);
	else
		sbuf_addstr(why, "the task body is too large");
	sbuf_release(&b);
	return rc;
}

static bool task_wants(const struct sweep_task *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nresults; i++)
		if (!strcmp(t->results[i].name, name))
			return true;
	return false;
}

int sweep_check_results(const char *task, const char *body, size_t len, struct sbuf *why)
{
	struct sweep_complete c = { 0 };
	struct sweep_task t = { 0 };
	size_t i;
	int rc = 1;

	if (len == 0) {
		sbuf_addstr(why, "an empty results body: a [Result] for each result of the task "
			    "is needed");
		return 1;
	}
	if (sweep_complete_decode(body, len, SWEEP_COMPLETE_MAX, &c, why) < 0)
		return 1;
	if (task_decode(task, &t, why) < 0) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < t.nresults; i++) {
		if (!sweep_complete_find(&c, t.results[i].name)) {
			sbuf_addf(why, "no [Result] '%s', which the task asks for", t.results[i].name);
			goto out;
		}
	}
	for (i = 0; i < c.nresults; i++) {
		if (!task_wants(&t, c.results[i].name)) {
			sbuf_addstr(why, "a [Result] the task does not ask for: ");
			field_quote(why, c.results[i].name, 64);
			goto out;
		}
	}
	rc = 0;
out:
	sweep_complete_release(&c);
	sweep_task_release(&t);
	return rc;
}
