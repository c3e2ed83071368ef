/*
 * The scenario file (sim_scenario.h): one `key value...` a line, blanks
 * between words, `#` to the end of a line a comment. Every key is in one
 * table with its type, bounds and place in struct sim_scenario, so the
 * parser, the writer and the doc's list agree.
 */
#include "sim_scenario.h"
#include "seq_policy.h"

#include <math.h>

enum kind { K_INT, K_DOUBLE, K_DIST, K_SEED, K_VERSIONS, K_LEVELS };

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	double min, max;
};

#define F(f) offsetof(struct sim_scenario, f)
static const struct key keys[] = {
	{ "seed", K_SEED, F(seed), 0, 0 },
	{ "hosts", K_INT, F(hosts), 1, 10000000 },
	{ "host_speed", K_DIST, F(speed), 0, 1e6 },
	{ "host_on_hours", K_DIST, F(on_hours), 0, 1e6 },
	{ "host_off_hours", K_DIST, F(off_hours), 0, 1e6 },
	{ "host_life_days", K_DIST, F(life_days), 0, 1e6 },
	{ "host_upload_mbps", K_DIST, F(upload_mbps), 0, 1e6 },
	{ "host_download_mbps", K_DIST, F(download_mbps), 0, 1e6 },
	{ "wrong_fraction", K_DOUBLE, F(wrong_fraction), 0, 1 },
	{ "rpc_hours", K_DOUBLE, F(rpc_hours), 0.001, 1e4 },
	{ "gpu_share", K_DOUBLE, F(gpu_share), 0, 1 },
	{ "gpus_per_host", K_INT, F(gpus_per_host), 1, SIM_MAX_GPUS },
	{ "gpu_flops", K_DOUBLE, F(gpu_flops), 1e6, 1e17 },
	{ "app_versions", K_VERSIONS, F(app_versions), 1, 3 },
	{ "max_sequences_per_cpu", K_INT, F(max_sequences_per_cpu), 0, SIM_MAX_SEQS_PER_RSC },
	{ "max_sequences_per_gpu", K_INT, F(max_sequences_per_gpu), 0, SIM_MAX_SEQS_PER_RSC },
	{ "sequences", K_INT, F(sequences), 1, 10000000 },
	{ "length_days", K_DOUBLE, F(length_days), 1e-6, 1e5 },
	{ "segment_days", K_DOUBLE, F(segment_days), 1e-6, 1e5 },
	{ "state_mb", K_DOUBLE, F(state_mb), 0, 1e7 },
	{ "answer_mb", K_DOUBLE, F(answer_mb), 0, 1e7 },
	{ "answer_every", K_INT, F(answer_every), 1, 1000000 },
	{ "state_every", K_INT, F(state_every), 1, 1000000 },
	{ "segment_deadline_days", K_DOUBLE, F(segment_deadline_days), 1e-6, 1e5 },
	{ "component_deadline_days", K_DOUBLE, F(component_deadline_days), 1e-6, 1e5 },
	{ "high_water", K_INT, F(high_water), 1, 1000 },
	{ "replicas", K_INT, F(replicas), 1, SIM_MAX_REPLICAS },
	{ "horizon_days", K_DOUBLE, F(horizon_days), 1e-6, 1e5 },
	/* a level's size: state_mb's bounds; its period: state_every's */
	{ "state_levels", K_LEVELS, F(levels), 0, 1e7 },
};
#undef F

static const char *const dist_names[] = { "const", "exp", "weibull", "lognormal", "uniform", "none" };
/* app_versions' words, bit i for SIM_VERSION_* 1 << i */
static const char *const version_names[] = { "cpu", "gpu" };

void sim_scenario_defaults(struct sim_scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->seed = 1;
	sc->hosts = 1000;
	sc->speed = (struct sim_dist){ SIM_DIST_LOGNORMAL, 0, 0.5 };
	/* Javadi, Kondo, Vincent, Anderson (2011); doc/wseq_sim.md, "Defaults" */
	sc->on_hours = (struct sim_dist){ SIM_DIST_WEIBULL, 0.4, 3 };
	sc->off_hours = (struct sim_dist){ SIM_DIST_LOGNORMAL, 0, 2 };
	sc->life_days = (struct sim_dist){ SIM_DIST_EXP, 91, 0 };
	sc->upload_mbps = (struct sim_dist){ SIM_DIST_LOGNORMAL, 0, 1 };
	sc->download_mbps = (struct sim_dist){ SIM_DIST_LOGNORMAL, 2, 1 };
	sc->wrong_fraction = 0.01;
	sc->rpc_hours = 1;
	sc->gpu_share = 0;
	sc->gpus_per_host = 1;
	sc->gpu_flops = 1e10;
	sc->app_versions = SIM_VERSION_CPU;
	sc->max_sequences_per_cpu = 0;
	sc->max_sequences_per_gpu = 0;
	sc->sequences = 100;
	sc->length_days = 30;
	sc->segment_days = 1;
	sc->state_mb = 100;
	sc->answer_mb = 1;
	sc->answer_every = 1;
	sc->state_every = 7;
	sc->segment_deadline_days = 7;
	sc->component_deadline_days = 120;
	sc->high_water = 2;
	sc->replicas = 1;
	sc->horizon_days = 180;
}

bool sim_host_has_gpu(const struct sim_scenario *sc, long i)
{
	return floor((double)(i + 1) * sc->gpu_share) > floor((double)i * sc->gpu_share);
}

long sim_scenario_segments(const struct sim_scenario *sc)
{
	double n = ceil(sc->length_days / sc->segment_days - 1e-9);

	return n < 1 ? 1 : n > 1e7 ? 10000000 : (long)n;
}

double sim_dist_mean(const struct sim_dist *d)
{
	switch (d->kind) {
	case SIM_DIST_CONST: return d->p1;
	case SIM_DIST_EXP: return d->p1;
	case SIM_DIST_WEIBULL: return d->p2 * tgamma(1 + 1 / d->p1);
	case SIM_DIST_LOGNORMAL: return exp(d->p1 + d->p2 * d->p2 / 2);
	case SIM_DIST_UNIFORM: return (d->p1 + d->p2) / 2;
	case SIM_DIST_NONE: break;
	}
	return 0;
}

static const char first_grows[] = "state_levels: the first level cannot grow (+): a growing "
				  "level is an increment over the level before it";

/* one level, "MB[+][:PERIOD]", len bytes; *grows: it has the + */
static int parse_level(const char *text, size_t len, struct sim_level *l, bool *grows)
{
	char buf[48], *colon;
	long every = 0;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (parse_long(colon + 1, &every) != 0 || every < 1 || every > 1000000)
			return -1;
	}
	len = strlen(buf);
	*grows = len > 0 && buf[len - 1] == '+';
	if (*grows)
		buf[len - 1] = '\0';
	if (parse_double(buf, &l->mb) != 0 || !(l->mb >= 0 && l->mb <= 1e7))
		return -1;
	l->every = every;
	return 0;
}

int sim_levels_parse(struct sim_scenario *sc, const char *text, char *err, size_t errlen)
{
	struct sim_level lv[SIM_MAX_LEVELS];
	const char *p = text, *end;
	unsigned grow = 0;
	bool g;
	int n = 0;

	for (;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (n == SIM_MAX_LEVELS) {
			snprintf(err, errlen, "state_levels: more than %d levels", SIM_MAX_LEVELS);
			return -1;
		}
		if (parse_level(p, (size_t)(end - p), &lv[n], &g) != 0) {
			snprintf(err, errlen, "state_levels: bad level '%.*s' (MB[+]:PERIOD, MB from 0 "
				 "to 1e7, + if it grows, PERIOD a whole number from 1 to 1000000: "
				 "1000:12,20+:3)", (int)(end - p > 40 ? 40 : end - p), p);
			return -1;
		}
		if (n == 0 && g) {
			snprintf(err, errlen, "%s", first_grows);
			return -1;
		}
		grow |= (unsigned)g << n++;
		if (!*end)
			break;
	}
	memcpy(sc->levels, lv, sizeof(lv[0]) * (size_t)n);
	sc->nlevels = n;
	sc->levels_grow = grow;
	return 0;
}

void sim_scenario_view_levels(const struct sim_scenario *sc, struct seq_view *v)
{
	int i;

	v->state_upload_every = (int)sc->state_every;
	v->nstate = (size_t)sc->nlevels;
	for (i = 0; i < sc->nlevels; i++)
		v->state_every[i] = (int)sc->levels[i].every;
}

long sim_level_period(const struct sim_scenario *sc, int i)
{
	struct seq_view v = { 0 };

	sim_scenario_view_levels(sc, &v);
	return seq_policy_state_period(&v, (size_t)i);
}

bool sim_scenario_levels_nest(const struct sim_scenario *sc, char *err, size_t errlen)
{
	char list[SIM_MAX_LEVELS * 12] = "";
	int p[SIM_MAX_LEVELS] = { 0 };
	size_t bad, len = 0;
	int i;

	for (i = 0; i < sc->nlevels && i < SIM_MAX_LEVELS; i++)
		p[i] = (int)sim_level_period(sc, i);
	if (seq_policy_levels_nest(p, (size_t)i, &bad))
		return true;
	while (i-- > 0)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", len ? "," : "",
					p[sc->nlevels - 1 - i]);
	snprintf(err, errlen, "state_levels: the periods %s do not nest (each must divide every "
		 "larger one; level %zu's does not)", list, bad + 1);
	return false;
}

double sim_level_mb_at(const struct sim_scenario *sc, const struct seq_view *v, int i, int k)
{
	const struct sim_level *l = &sc->levels[i];
	int base;
	double mb;

	if (!(sc->levels_grow & (1u << i)) || i == 0 || k < 1)
		return l->mb;
	/* the latest version of level i - 1 at or before k (k's own when it uploads it) */
	base = seq_policy_state_mask(v, k) & (1u << (i - 1)) ? k
	       : seq_policy_state_source(v, (size_t)(i - 1), k);
	mb = l->mb * (k - base);
	if (mb > sc->levels[i - 1].mb)
		mb = sc->levels[i - 1].mb;
	return mb > l->mb ? mb : l->mb;
}

double sim_scenario_state_mb(const struct sim_scenario *sc)
{
	double mb = 0;
	int i;

	if (sc->nlevels == 0)
		return sc->state_mb;
	for (i = 0; i < sc->nlevels; i++)
		mb += sc->levels[i].mb;
	return mb;
}

static int fail(char *err, size_t n, const char *name, long line, const char *what, const char *word)
{
	snprintf(err, n, "%s:%ld: %s%s%.40s%s", name, line, what, word ? " '" : "", word ? word : "",
		 word ? "'" : "");
	return -1;
}

static int num(const char *w, double min, double max, double *out)
{
	double d;

	if (!w || parse_double(w, &d) != 0 || d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

/* kind p1 [p2]: the parameters' own bounds keep every draw finite */
static int parse_dist(char **w, int nw, const struct key *k, struct sim_dist *d)
{
	size_t i;
	int want;

	for (i = 0; i < ARRAY_SIZE(dist_names); i++)
		if (strcmp(w[0], dist_names[i]) == 0)
			break;
	if (i == ARRAY_SIZE(dist_names))
		return -1;
	d->kind = (enum sim_dist_kind)i;
	d->p1 = d->p2 = 0;
	want = d->kind == SIM_DIST_NONE ? 1 : d->kind == SIM_DIST_CONST || d->kind == SIM_DIST_EXP ? 2 : 3;
	if (nw != want)
		return -1;
	switch (d->kind) {
	case SIM_DIST_CONST:
	case SIM_DIST_EXP:
		return num(w[1], d->kind == SIM_DIST_EXP ? 1e-9 : 0, k->max, &d->p1);
	case SIM_DIST_WEIBULL:
		return num(w[1], 0.05, 100, &d->p1) || num(w[2], 1e-9, k->max, &d->p2) ? -1 : 0;
	case SIM_DIST_LOGNORMAL:
		return num(w[1], -20, 20, &d->p1) || num(w[2], 0, 5, &d->p2) ? -1 : 0;
	case SIM_DIST_UNIFORM:
		return num(w[1], 0, k->max, &d->p1) || num(w[2], d->p1, k->max, &d->p2) ? -1 : 0;
	case SIM_DIST_NONE:
		/* only a departure may never happen */
		return strcmp(k->name, "host_life_days") == 0 ? 0 : -1;
	}
	return -1;
}

/* `app_versions cpu gpu`: one word or both, once each */
static int parse_versions(char **w, int nw, long *out)
{
	long v = 0;
	int i;
	size_t k;

	for (i = 0; i < nw; i++) {
		for (k = 0; k < ARRAY_SIZE(version_names) && strcmp(w[i], version_names[k]); k++)
			;
		if (k == ARRAY_SIZE(version_names) || v & (1L << k))
			return -1;
		v |= 1L << k;
	}
	*out = v;
	return 0;
}

/* `avail H A B` (on from A to B hours) or `leave H T`: appended to the script */
static int parse_script(struct sim_scenario *sc, char **w, int nw, const char *name, long line,
			char *err, size_t errlen)
{
	bool avail = strcmp(w[0], "avail") == 0;
	double h, a, b = 0;

	if (nw != (avail ? 4 : 3))
		return fail(err, errlen, name, line,
			    avail ? "avail HOST FROM TO (hours) expected:" : "leave HOST AT (hours) expected:",
			    w[0]);
	if (num(w[1], 1, 10000000, &h) != 0 || h != floor(h))
		return fail(err, errlen, name, line, "bad host number", w[1]);
	if (num(w[2], 0, 1e6, &a) != 0 || (avail && num(w[3], a, 1e6, &b) != 0) || (avail && b <= a))
		return fail(err, errlen, name, line, "bad hours for", w[0]);
	if (sc->nscript + (avail ? 2 : 1) > SIM_MAX_SCRIPT)
		return fail(err, errlen, name, line, "too many avail and leave lines (256 events)", NULL);
	if (avail) {
		sc->script[sc->nscript++] = (struct sim_script_ev){ (int32_t)h - 1, SIM_SCRIPT_ON, a };
		sc->script[sc->nscript++] = (struct sim_script_ev){ (int32_t)h - 1, SIM_SCRIPT_OFF, b };
	} else {
		sc->script[sc->nscript++] = (struct sim_script_ev){ (int32_t)h - 1, SIM_SCRIPT_LEAVE, a };
	}
	return 0;
}

/* *levels_line: the line of the last state_levels, for an error found at the end */
static int parse_line(struct sim_scenario *sc, char *s, const char *name, long line, char *err,
		      size_t errlen, long *levels_line)
{
	char *w[8];
	int nw = 0;
	const struct key *k = NULL;
	size_t i;
	char *p = s;

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p || *p == '#')
			break;
		if (nw == (int)ARRAY_SIZE(w))
			return fail(err, errlen, name, line, "too many words", NULL);
		w[nw++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
			p++;
		if (*p == '#')
			*p = '\0';
	}
	if (nw == 0)
		return 0;
	if (strcmp(w[0], "avail") == 0 || strcmp(w[0], "leave") == 0)
		return parse_script(sc, w, nw, name, line, err, errlen);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].name, w[0]) == 0)
			k = &keys[i];
	if (!k)
		return fail(err, errlen, name, line, "unknown key", w[0]);
	if (nw < 2)
		return fail(err, errlen, name, line, "no value for", w[0]);
	if (k->kind == K_DIST) {
		if (parse_dist(w + 1, nw - 1, k, (struct sim_dist *)((char *)sc + k->off)) != 0)
			return fail(err, errlen, name, line,
				    "bad distribution (const V, exp MEAN, weibull SHAPE SCALE, "
				    "lognormal MU SIGMA, uniform A B) for", w[0]);
		return 0;
	}
	if (k->kind == K_VERSIONS) {
		if (parse_versions(w + 1, nw - 1, (long *)((char *)sc + k->off)) != 0)
			return fail(err, errlen, name, line, "cpu, gpu or both, once each, expected for",
				    w[0]);
		return 0;
	}
	if (nw != 2)
		return fail(err, errlen, name, line, "one value expected for", w[0]);
	if (k->kind == K_LEVELS) {
		char why[160];

		if (sim_levels_parse(sc, w[1], why, sizeof(why)) != 0)
			return fail(err, errlen, name, line, why, NULL);
		*levels_line = line;
		return 0;
	}
	if (k->kind == K_SEED) {
		char *end;

		if (!(w[1][0] >= '0' && w[1][0] <= '9'))
			return fail(err, errlen, name, line, "bad seed", w[1]);
		errno = 0;
		*(uint64_t *)((char *)sc + k->off) = strtoull(w[1], &end, 10);
		if (errno || *end)
			return fail(err, errlen, name, line, "bad seed", w[1]);
	} else if (k->kind == K_INT) {
		long v;

		if (parse_long(w[1], &v) != 0 || v < k->min || v > k->max)
			return fail(err, errlen, name, line, "integer out of range or malformed for", w[0]);
		*(long *)((char *)sc + k->off) = v;
	} else {
		double v;

		if (num(w[1], k->min, k->max, &v) != 0)
			return fail(err, errlen, name, line, "number out of range or malformed for", w[0]);
		*(double *)((char *)sc + k->off) = v;
	}
	return 0;
}

int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len, const char *name,
		       char *err, size_t errlen)
{
	size_t start = 0, i;
	long line = 0, levels_line = 0;
	int rc = 0;
	char why[160];

	if (memchr(text, '\0', len))
		return fail(err, errlen, name, 0, "NUL byte in the file", NULL);
	while (start < len && rc == 0) {
		char *s;

		line++;
		for (i = start; i < len && text[i] != '\n'; i++)
			;
		s = xstrndup(text + start, i - start);
		rc = parse_line(sc, s, name, line, err, errlen, &levels_line);
		free(s);
		start = i + 1;
	}
	/* M may come after the levels: their periods are checked once all is read */
	if (rc == 0 && !sim_scenario_levels_nest(sc, why, sizeof(why)))
		return fail(err, errlen, name, levels_line, why, NULL);
	if (rc == 0 && sim_scenario_limits(sc))
		return fail(err, errlen, name, line, sim_scenario_limits(sc), NULL);
	return rc;
}

int sim_scenario_load(struct sim_scenario *sc, const char *path, char *err, size_t errlen)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap)
			buf = xrealloc(buf, cap = cap ? 2 * cap : 4096);
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0 && len < (1 << 24));
	if (fp != stdin)
		fclose(fp);
	rc = sim_scenario_parse(sc, buf ? buf : "", len, path, err, errlen);
	free(buf);
	return rc;
}

/* a program's levels (create_sequence --advise's template): the parser's bounds, nested */
static int levels_check(const struct sim_scenario *sc, char *err, size_t errlen)
{
	int i;

	if (sc->nlevels < 0 || sc->nlevels > SIM_MAX_LEVELS) {
		snprintf(err, errlen, "state_levels: %d levels, at most %d", sc->nlevels,
			 SIM_MAX_LEVELS);
		return -1;
	}
	for (i = 0; i < sc->nlevels; i++) {
		if (i == 0 && (sc->levels_grow & 1u)) {
			snprintf(err, errlen, "%s", first_grows);
			return -1;
		}
		if (!(sc->levels[i].mb >= 0 && sc->levels[i].mb <= 1e7) ||
		    sc->levels[i].every < 0 || sc->levels[i].every > 1000000) {
			snprintf(err, errlen, "state_levels: level %d, %.6g MB every %ld, is out of "
				 "its bounds (0 to 1e7 MB, every 1 to 1000000 segments)", i + 1,
				 sc->levels[i].mb, sc->levels[i].every);
			return -1;
		}
	}
	return sim_scenario_levels_nest(sc, err, errlen) ? 0 : -1;
}

int sim_scenario_check(const struct sim_scenario *sc, char *err, size_t errlen)
{
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];
		double v;

		if (k->kind == K_INT || k->kind == K_VERSIONS)
			v = (double)*(const long *)((const char *)sc + k->off);
		else if (k->kind == K_DOUBLE)
			v = *(const double *)((const char *)sc + k->off);
		else if (k->kind == K_LEVELS && levels_check(sc, err, errlen) != 0)
			return -1;
		else
			continue;
		if (!(v >= k->min && v <= k->max)) {
			snprintf(err, errlen, "%s %.6g is out of its bounds, %.6g to %.6g", k->name, v,
				 k->min, k->max);
			return -1;
		}
	}
	why = sim_scenario_limits(sc);
	if (why) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}

const char *sim_scenario_limits(const struct sim_scenario *sc)
{
	int i;

	for (i = 0; i < sc->nscript; i++)
		if (sc->script[i].host < 0 || sc->script[i].host >= sc->hosts)
			return "an avail or leave line names a host past `hosts`";
	if (sim_scenario_segments(sc) > 1000000)
		return "more than 1000000 segments a component";
	if (sc->hosts * (1 + sc->max_sequences_per_cpu +
			 sc->gpu_share * sc->gpus_per_host * sc->max_sequences_per_gpu) > 2e7)
		return "more than 2 x 10^7 sequences the hosts may hold (hosts x (1 + "
		       "max_sequences_per_cpu + gpu_share x gpus_per_host x max_sequences_per_gpu))";
	/* job numbers are 32-bit */
	if ((double)sim_scenario_segments(sc) * sc->sequences * sc->replicas > 1e9)
		return "more than 10^9 segments in all";
	return NULL;
}

static void write_versions(FILE *fp, const char *name, long v)
{
	size_t k;

	fputs(name, fp);
	for (k = 0; k < ARRAY_SIZE(version_names); k++)
		if (v & (1L << k))
			fprintf(fp, " %s", version_names[k]);
	fputc('\n', fp);
}

/* only with levels: a scenario without them prints as it always did */
static void write_levels(FILE *fp, const char *name, const struct sim_scenario *sc)
{
	int i;

	if (sc->nlevels)
		fputs(name, fp);
	for (i = 0; i < sc->nlevels; i++) {
		fprintf(fp, "%s%.17g%s", i ? "," : " ", sc->levels[i].mb,
			sc->levels_grow & (1u << i) ? "+" : "");
		if (sc->levels[i].every > 0)
			fprintf(fp, ":%ld", sc->levels[i].every);
	}
	if (sc->nlevels)
		fputc('\n', fp);
}

static void write_dist(FILE *fp, const char *name, const struct sim_dist *d)
{
	fprintf(fp, "%s %s", name, dist_names[d->kind]);
	if (d->kind != SIM_DIST_NONE)
		fprintf(fp, " %.17g", d->p1);
	if (d->kind == SIM_DIST_WEIBULL || d->kind == SIM_DIST_LOGNORMAL || d->kind == SIM_DIST_UNIFORM)
		fprintf(fp, " %.17g", d->p2);
	fputc('\n', fp);
}

void sim_scenario_write(const struct sim_scenario *sc, FILE *fp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const void *v = (const char *)sc + keys[i].off;

		switch (keys[i].kind) {
		case K_SEED: fprintf(fp, "%s %" PRIu64 "\n", keys[i].name, *(const uint64_t *)v); break;
		case K_INT: fprintf(fp, "%s %ld\n", keys[i].name, *(const long *)v); break;
		case K_DOUBLE: fprintf(fp, "%s %.17g\n", keys[i].name, *(const double *)v); break;
		case K_DIST: write_dist(fp, keys[i].name, v); break;
		case K_VERSIONS: write_versions(fp, keys[i].name, *(const long *)v); break;
		case K_LEVELS: write_levels(fp, keys[i].name, sc); break;
		}
	}
	/* an ON is always followed by the OFF of its avail line */
	for (i = 0; i < (size_t)sc->nscript; i++) {
		const struct sim_script_ev *e = &sc->script[i];

		if (e->kind == SIM_SCRIPT_ON && i + 1 < (size_t)sc->nscript)
			fprintf(fp, "avail %d %.17g %.17g\n", e->host + 1, e->hours, sc->script[++i].hours);
		else if (e->kind == SIM_SCRIPT_LEAVE)
			fprintf(fp, "leave %d %.17g\n", e->host + 1, e->hours);
	}
}
