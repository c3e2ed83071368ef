/* wseq_sim --grid's axes (sim_grid.h). */
#include "sim_grid.h"

#include <math.h>

static const struct {
	const char *name, *alias;
	enum sim_grid_param param;
} names[] = {
	{ "N", "answer_every", SIM_GRID_N },
	{ "M", "state_every", SIM_GRID_M },
	{ "segment", "segment_days", SIM_GRID_SEGMENT },
	{ "L1", "level1", SIM_GRID_L1 }, { "L2", "level2", SIM_GRID_L1 + 1 },
	{ "L3", "level3", SIM_GRID_L1 + 2 }, { "L4", "level4", SIM_GRID_L1 + 3 },
	{ "L5", "level5", SIM_GRID_L1 + 4 }, { "L6", "level6", SIM_GRID_L1 + 5 },
	{ "L7", "level7", SIM_GRID_L1 + 6 }, { "L8", "level8", SIM_GRID_L1 + 7 },
};
_Static_assert(ARRAY_SIZE(names) == SIM_GRID_NPARAMS, "a name a parameter, in its order");

static bool is(const char *word, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(word, name, len);
}

void sim_grid_init(struct sim_grid *w)
{
	memset(w, 0, sizeof(*w));
}

/* one value, text of len bytes (no NUL inside) */
static int value(enum sim_grid_param p, const char *text, size_t len, double *out)
{
	char buf[32];
	double unit = 1, v;
	long l;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (p != SIM_GRID_SEGMENT) {
		/* the bounds of answer_every, state_every and a level's period in a scenario */
		if (parse_long(buf, &l) != 0 || l < 1 || l > 1000000)
			return -1;
		*out = (double)l;
		return 0;
	}
	if (buf[len - 1] == 'h' || buf[len - 1] == 'd') {
		unit = buf[len - 1] == 'h' ? 1 / 24.0 : 1;
		buf[--len] = '\0';
	}
	/* the bounds of segment_days in a scenario */
	if (len == 0 || parse_double(buf, &v) != 0 || !(v * unit >= 1e-6 && v * unit <= 1e5))
		return -1;
	*out = v * unit;
	return 0;
}

int sim_grid_add(struct sim_grid *w, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '='), *p, *end;
	struct sim_grid_axis *a;
	size_t i, k, runs;

	for (i = 0; eq && i < ARRAY_SIZE(names); i++)
		if (is(arg, (size_t)(eq - arg), names[i].name) || is(arg, (size_t)(eq - arg), names[i].alias))
			break;
	if (!eq || i == ARRAY_SIZE(names)) {
		snprintf(err, errlen, "--grid '%.40s': expected N=..., M=..., segment=... or "
			 "L1=... (a state level's period; values separated by commas)", arg);
		return -1;
	}
	for (k = 0; k < w->naxes; k++)
		if (w->axis[k].param == names[i].param) {
			snprintf(err, errlen, "--grid: %s given twice", names[i].name);
			return -1;
		}
	a = &w->axis[w->naxes];
	memset(a, 0, sizeof(*a));
	a->param = names[i].param;
	for (p = eq + 1;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (a->n == SIM_GRID_MAX_VALUES) {
			snprintf(err, errlen, "--grid %s: more than %d values", names[i].name,
				 SIM_GRID_MAX_VALUES);
			return -1;
		}
		if (value(a->param, p, (size_t)(end - p), &a->v[a->n]) != 0) {
			snprintf(err, errlen, "--grid %s: bad value '%.*s' (%s)", names[i].name,
				 (int)(end - p > 40 ? 40 : end - p), p,
				 a->param == SIM_GRID_SEGMENT ? "days, or hours with h: 6h, 1d, 0.5"
							       : "a whole number from 1 to 1000000");
			return -1;
		}
		a->n++;
		if (!*end)
			break;
	}
	for (runs = a->n, k = 0; k < w->naxes; k++)
		runs *= w->axis[k].n;
	if (runs > SIM_GRID_MAX_RUNS) {
		snprintf(err, errlen, "--grid: more than %d runs", SIM_GRID_MAX_RUNS);
		return -1;
	}
	w->naxes++;
	return 0;
}

int sim_grid_include(struct sim_grid *w, enum sim_grid_param p, double v, char *err,
		      size_t errlen)
{
	const char *name = p < SIM_GRID_NPARAMS ? names[p].name : "?";
	bool ok = p == SIM_GRID_SEGMENT ? v >= 1e-6 && v <= 1e5
					 : v >= 1 && v <= 1000000 && v == floor(v);
	struct sim_grid_axis *a;
	size_t i, k;

	if (!ok || p >= SIM_GRID_NPARAMS) {
		snprintf(err, errlen, "--grid %s: bad value %.6g (%s)", name, v,
			 p == SIM_GRID_SEGMENT ? "days, from 1e-6 to 1e5"
						: "a whole number from 1 to 1000000");
		return -1;
	}
	for (k = 0; k < w->naxes && w->axis[k].param != p; k++)
		;
	a = &w->axis[k];
	if (k == w->naxes) {
		memset(a, 0, sizeof(*a));
		a->param = p;
	}
	for (i = 0; i < a->n && a->v[i] < v; i++)
		;
	if (i < a->n && a->v[i] == v)
		return 0;
	if (a->n == SIM_GRID_MAX_VALUES) {
		snprintf(err, errlen, "--grid %s: more than %d values", name, SIM_GRID_MAX_VALUES);
		return -1;
	}
	if (k == w->naxes ? sim_grid_runs(w) > SIM_GRID_MAX_RUNS
			  : sim_grid_runs(w) / a->n * (a->n + 1) > SIM_GRID_MAX_RUNS) {
		snprintf(err, errlen, "--grid: more than %d runs", SIM_GRID_MAX_RUNS);
		return -1;
	}
	memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof(a->v[0]));
	a->v[i] = v;
	a->n++;
	if (k == w->naxes)
		w->naxes++;
	return 0;
}

size_t sim_grid_runs(const struct sim_grid *w)
{
	size_t k, runs = 1;

	for (k = 0; k < w->naxes; k++)
		runs *= w->axis[k].n;
	return runs;
}

int sim_grid_apply(const struct sim_grid *w, size_t i, struct sim_scenario *sc, char *err,
		    size_t errlen)
{
	size_t k;
	const char *why;
	char nest[160];

	for (k = w->naxes; k-- > 0;) {
		const struct sim_grid_axis *a = &w->axis[k];
		double v = a->v[i % a->n];

		i /= a->n;
		switch (a->param) {
		case SIM_GRID_N: sc->answer_every = (long)v; break;
		case SIM_GRID_M: sc->state_every = (long)v; break;
		case SIM_GRID_SEGMENT: sc->segment_days = v; break;
		default:
			if ((int)a->param - SIM_GRID_L1 >= sc->nlevels) {
				snprintf(err, errlen, "--grid %s: the scenario has %d state levels",
					 names[a->param].name, sc->nlevels);
				return -1;
			}
			sc->levels[a->param - SIM_GRID_L1].every = (long)v;
			break;
		}
	}
	if (!sim_scenario_levels_nest(sc, nest, sizeof(nest)))
		return 1;
	why = sim_scenario_limits(sc);
	if (why) {
		snprintf(err, errlen, "--grid: segment %.6g days: %s", sc->segment_days, why);
		return -1;
	}
	return 0;
}
