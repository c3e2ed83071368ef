/* xoshiro256** (Blackman and Vigna, public domain) and the draws the simulator uses. */
#include "sim_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sim_rng_uniform(struct sim_rng *r)
{
	/* 53 random bits, shifted by half a step: (0, 1) */
	return ((double)(sim_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double sim_rng_uniform_ab(struct sim_rng *r, double a, double b)
{
	return a + (b - a) * sim_rng_uniform(r);
}

double sim_rng_exp(struct sim_rng *r, double mean)
{
	return -mean * log(sim_rng_uniform(r));
}

double sim_rng_weibull(struct sim_rng *r, double shape, double scale)
{
	return scale * pow(-log(sim_rng_uniform(r)), 1.0 / shape);
}

/* Box-Muller, one value a call (no cached second value: simpler to replay) */
double sim_rng_normal(struct sim_rng *r)
{
	double u1 = sim_rng_uniform(r), u2 = sim_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double sim_rng_lognormal(struct sim_rng *r, double mu, double sigma)
{
	return exp(mu + sigma * sim_rng_normal(r));
}
