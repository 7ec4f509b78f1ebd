/* rng.h: the host's random numbers: xoshiro256** with independent streams (its jump function)
 * and standard-normal variates by two methods: the ziggurat (fast, on xoshiro256**), and numpy's
 * legacy np.random.RandomState(seed).normal, value for value: MT19937 with numpy's seeding and
 * 53-bit doubles, and Marsaglia's polar method (a Box-Muller method) as numpy's legacy_gauss
 * computes it (the original program's generator: --generator box-muller).
 *
 * Everything is a pure function of the seed, the stream and the sequence of calls: the same
 * seed and stream give the same values on any run. One struct gd_rng (about 2.5 KiB, with its
 * MT19937 state) serves one thread. */
#ifndef GPUTOP_RNG_H
#define GPUTOP_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* numpy's legacy RandomState: the MT19937 state (624 words and the next one's index) and the
 * polar method's second value of a pair, kept for the next call as numpy keeps it. */
#define GD_MT_WORDS 624
struct gd_rng_mt {
	uint32_t key[GD_MT_WORDS];
	int pos; /* the next word of key; GD_MT_WORDS: the next draw regenerates them first */
	bool has_gauss;
	double gauss;
};

struct gd_rng {
	uint64_t s[4];
	/* The box-muller fills' own MT19937, seeded at their first use from one draw of s (see
	 * rng_fill_polar_f64); mt_seeded is cleared by seeding and by a jump. */
	bool mt_seeded;
	struct gd_rng_mt mt;
};

/* Stream 0 of a seed (the state from splitmix64 of the seed). */
void rng_seed(struct gd_rng *r, uint64_t seed);
/* Stream i of a seed: rng_seed, then rng_jump i times, so streams 0, 1, 2, ... of one seed are
 * 2^128 draws apart and never overlap in practice; one per worker or thread. Costs i jumps. */
void rng_stream(struct gd_rng *r, uint64_t seed, unsigned i);
/* Advances the state by 2^128 draws (xoshiro256's jump polynomial) and drops the MT19937 state
 * (the next box-muller fill seeds a new one from the jumped state), so a jumped copy shares no
 * value with the original. */
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
/* numpy's legacy normal on the MT state r->mt, seeded at the first call (after a seed or a
 * jump) from the next 64-bit draw d of r: rng_mt_seed_array with the key { d mod 2^32,
 * d >> 32 }, so the values are np.random.RandomState([d & 0xffffffff, d >> 32]).normal(size=n),
 * bit for bit, and each stream (one per worker or generation thread) has an MT of its own.
 * About 2.5 MT19937 outputs, one log and one sqrt per pair, in double with the C library's log
 * and sqrt: several times the ziggurat's cost. A buffer filled in pieces of any length equals
 * one filled at once. */
void rng_fill_polar_f64(struct gd_rng *r, double *out, size_t n);
/* The same values computed in double and rounded to float (numpy's .astype(np.float32) of
 * them): equal to rng_fill_polar_f64's cast, draw for draw, and one sequence with it. */
void rng_fill_polar_f32(struct gd_rng *r, float *out, size_t n);

/* numpy's legacy RandomState on its own. np.random.RandomState(seed) for an integer seed in
 * [0, 2^32): MT19937's init_genrand(seed); no spare kept. */
void rng_mt_seed(struct gd_rng_mt *m, uint32_t seed);
/* np.random.RandomState(key) for a 1-d array of n words: MT19937's init_by_array (n >= 1; an
 * empty key, which numpy refuses, is taken as { 0 }); no spare kept. */
void rng_mt_seed_array(struct gd_rng_mt *m, const uint32_t *key, size_t n);
/* The next tempered 32-bit output (genrand_int32). */
uint32_t rng_mt_next32(struct gd_rng_mt *m);
/* numpy's legacy double in [0, 1) (random_sample): (a >> 5) 2^26 + (b >> 6), over 2^53, of two
 * outputs a then b. */
double rng_mt_double(struct gd_rng_mt *m);
/* RandomState.normal(size=n) (loc 0, scale 1): legacy_gauss n times, the spare carried across
 * calls; and the same values rounded to float. */
void rng_mt_normal_f64(struct gd_rng_mt *m, double *out, size_t n);
void rng_mt_normal_f32(struct gd_rng_mt *m, float *out, size_t n);
/* A uniformly random permutation of 0..n-1 (Fisher-Yates). */
void rng_permutation(struct gd_rng *r, int *out, size_t n);

#endif
