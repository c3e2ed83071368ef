/* The simulator's event queue (sim_queue.h): a binary heap in an array. */
#include "sim_queue.h"

void sim_queue_init(struct sim_queue *q)
{
	memset(q, 0, sizeof(*q));
}

void sim_queue_release(struct sim_queue *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}

static bool before(const struct sim_event *x, const struct sim_event *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

void sim_queue_push(struct sim_queue *q, double t, int type, int32_t a, uint32_t gen, int64_t b)
{
	struct sim_event ev = { t, q->next_seq++, type, a, gen, b };
	size_t i;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 1024;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
	}
	i = q->n++;
	while (i > 0 && before(&ev, &q->v[(i - 1) / 2])) {
		q->v[i] = q->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->v[i] = ev;
}

bool sim_queue_pop(struct sim_queue *q, struct sim_event *ev)
{
	struct sim_event last;
	size_t i = 0, c;

	if (q->n == 0)
		return false;
	*ev = q->v[0];
	last = q->v[--q->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->v[c + 1], &q->v[c]))
			c++;
		if (!before(&q->v[c], &last))
			break;
		q->v[i] = q->v[c];
		i = c;
	}
	if (q->n > 0)
		q->v[i] = last;
	return true;
}
