/* rng.h: the host's random numbers: xoshiro256** with independent streams (its jump function)
 * and standard-normal variates by two methods: the ziggurat (fast), and Marsaglia's polar
 * method as numpy's legacy np.random.normal computes it (the original program's generator).
 *
 * Everything is a pure function of the seed, the stream and the sequence of calls: the same
 * seed and stream give the same values on any run. One struct gd_rng serves one thread. */
#ifndef GPUTOP_RNG_H
#define GPUTOP_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_rng {
	uint64_t s[4];
	double spare;   /* the polar method's second value of a pair, kept for its next call */
	bool has_spare; /* set only by the polar fills; cleared by seeding and by a jump */
};

/* Stream 0 of a seed (the state from splitmix64 of the seed). */
void rng_seed(struct gd_rng *r, uint64_t seed);
/* Stream i of a seed: rng_seed, then rng_jump i times, so streams 0, 1, 2, ... of one seed are
 * 2^128 draws apart and never overlap in practice; one per worker or thread. Costs i jumps. */
void rng_stream(struct gd_rng *r, uint64_t seed, unsigned i);
/* Advances the state by 2^128 draws (xoshiro256's jump polynomial) and drops a kept spare, so
 * a jumped copy shares no value with the original. */
void rng_jump(struct gd_rng *r);
/* A seed from the kernel's entropy pool. */
uint64_t rng_entropy(void);
uint64_t rng_next(struct gd_rng *r);
/* Uniform in (0, 1): never 0, so log() is safe. */
double rng_uniform(struct gd_rng *r);
/* n standard-normal variates, one 64-bit draw each (about 1.5% need more). */
void rng_fill_normal_f64(struct gd_rng *r, double *out, size_t n);
/* n standard-normal floats computed in float, two per 64-bit draw (one per 32-bit half): a
 * buffer filled in one call equals the same buffer filled in pieces of even length. */
void rng_fill_normal_f32(struct gd_rng *r, float *out, size_t n);
/* n standard-normal variates by Marsaglia's polar method (a Box-Muller method without sine and
 * cosine), as numpy's legacy RandomState.normal: u, v = 2 U - 1 with U uniform in [0, 1) (53
 * bits of one draw each) until 0 < s = u^2 + v^2 < 1, f = sqrt(-2 log(s) / s); v f is returned
 * and u f kept as the spare, which the next value is. In double with the C library's log and
 * sqrt; 4/pi draws per value and one log and one sqrt per pair: several times the ziggurat's
 * cost. A buffer filled in pieces of any length equals one filled at once. */
void rng_fill_polar_f64(struct gd_rng *r, double *out, size_t n);
/* The same values computed in double and rounded to float (as numpy's float32 cast of them):
 * equal to rng_fill_polar_f64's cast, draw for draw. */
void rng_fill_polar_f32(struct gd_rng *r, float *out, size_t n);
/* A uniformly random permutation of 0..n-1 (Fisher-Yates). */
void rng_permutation(struct gd_rng *r, int *out, size_t n);

#endif
