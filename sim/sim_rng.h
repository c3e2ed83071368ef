/*
 * The simulator's own pseudo-random numbers: xoshiro256** seeded through
 * splitmix64, so a scenario's seed gives the same run on every platform and
 * libc (rand() would not). Each host has a stream of its own, so the
 * availability a host sees is the same whichever strategy runs over it.
 */
#ifndef WSEQ_SIM_RNG_H
#define WSEQ_SIM_RNG_H

#include "common.h"

struct sim_rng {
	uint64_t s[4];
};

/* Stream `stream` of seed (0, 1, ...): independent generators from one seed. */
void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(struct sim_rng *r);
/* In (0, 1): never 0, so logarithms of it are finite. */
double sim_rng_uniform(struct sim_rng *r);
double sim_rng_uniform_ab(struct sim_rng *r, double a, double b);
double sim_rng_exp(struct sim_rng *r, double mean);
double sim_rng_weibull(struct sim_rng *r, double shape, double scale);
double sim_rng_normal(struct sim_rng *r);
/* exp(N(mu, sigma^2)) */
double sim_rng_lognormal(struct sim_rng *r, double mu, double sigma);

#endif
