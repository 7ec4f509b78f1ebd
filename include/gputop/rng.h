/* rng.h: the host's random numbers: xoshiro256** with standard-normal variates. */
#ifndef GPUTOP_RNG_H
#define GPUTOP_RNG_H

#include <stddef.h>
#include <stdint.h>

struct gd_rng {
	uint64_t s[4];
	double spare; /* the second Box-Muller variate */
	int has_spare;
};

void rng_seed(struct gd_rng *r, uint64_t seed);
/* A seed from the kernel's entropy pool. */
uint64_t rng_entropy(void);
uint64_t rng_next(struct gd_rng *r);
/* Uniform in (0, 1): never 0, so log() is safe. */
double rng_uniform(struct gd_rng *r);
double rng_normal(struct gd_rng *r);
void rng_fill_normal_f64(struct gd_rng *r, double *out, size_t n);
void rng_fill_normal_f32(struct gd_rng *r, float *out, size_t n);
/* A uniformly random permutation of 0..n-1 (Fisher-Yates). */
void rng_permutation(struct gd_rng *r, int *out, size_t n);

#endif
