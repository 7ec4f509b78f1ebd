/* rng_numpy.c: numpy's legacy normal, MT19937 and Marsaglia's polar method (rng.h).
 *
 * numpy's RandomState(seed).normal(size=n), value for value: its bit generator MT19937
 * (Matsumoto and Nishimura, 1998; numpy/random/src/mt19937), its legacy uniform (53 bits from
 * two 32-bit outputs) and its legacy_gauss (numpy/random/src/legacy), operation for operation:
 * x1 = 2 U1 - 1, x2 = 2 U2 - 1 (both exact), r2 = x1 x1 + x2 x2 (two roundings), rejected unless
 * 0 < r2 < 1, f = sqrt(-2 log(r2) / r2), x2 f returned first and x1 f kept as the spare, which
 * the next value is. numpy's normal adds loc 0.0 to scale 1.0 times that, which changes no bit.
 * A pair split by the end of a buffer leaves its second value as the spare, which the next call
 * returns first, as RandomState's state keeps it between calls. Every value goes through the C
 * library's log (numpy calls the same one), whose last bit may differ between libraries. */
#include "gputop/rng.h"
#include "gputop/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
/* r2 = x1 x1 + x2 x2 is two roundings, as numpy computes it; keep them so. (GCC does not fuse
 * them in ISO C mode.) */
#pragma STDC FP_CONTRACT OFF
#endif

#define MT_N 624
#define MT_M 397

/* One word of the twist: the top bit of word i and the low 31 of word i + 1, shifted and
 * conditionally xored with the twist matrix's row, into word i + M (mod N). */
static inline uint32_t mt_twist(uint32_t upper, uint32_t lower, uint32_t far)
{
	uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
	return far ^ (y >> 1) ^ (0x9908b0dfu & (0u - (y & 1u)));
}

/* The next N words of the recurrence, in place. */
__attribute__((noinline)) static void mt_regen(struct gd_rng_mt *m)
{
	uint32_t *k = m->key;
	int i = 0;
	for (; i < MT_N - MT_M; i++)
		k[i] = mt_twist(k[i], k[i + 1], k[i + MT_M]);
	for (; i < MT_N - 1; i++)
		k[i] = mt_twist(k[i], k[i + 1], k[i + MT_M - MT_N]);
	k[MT_N - 1] = mt_twist(k[MT_N - 1], k[0], k[MT_M - 1]);
	m->pos = 0;
}

static inline uint32_t mt_next(struct gd_rng_mt *m)
{
	if (m->pos >= MT_N)
		mt_regen(m);
	uint32_t y = m->key[m->pos++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

/* numpy's legacy double: 27 bits of one output over 26 of the next, exact, times 2^-53. */
static inline double mt_double(struct gd_rng_mt *m)
{
	uint32_t a = mt_next(m) >> 5;
	uint32_t b = mt_next(m) >> 6;
	return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

static void mt_reset(struct gd_rng_mt *m)
{
	m->pos = MT_N;
	m->gauss = 0;
	m->has_gauss = false;
}

void rng_mt_seed(struct gd_rng_mt *m, uint32_t seed)
{
	uint32_t *k = m->key;
	k[0] = seed;
	for (int i = 1; i < MT_N; i++)
		k[i] = 1812433253u * (k[i - 1] ^ (k[i - 1] >> 30)) + (uint32_t)i;
	mt_reset(m);
}

void rng_mt_seed_array(struct gd_rng_mt *m, const uint32_t *key, size_t n)
{
	static const uint32_t zero[1] = { 0 };
	if (n == 0) {
		key = zero;
		n = 1;
	}
	rng_mt_seed(m, 19650218u);
	uint32_t *k = m->key;
	size_t i = 1, j = 0;
	for (size_t c = n > MT_N ? n : MT_N; c > 0; c--) {
		k[i] = (k[i] ^ ((k[i - 1] ^ (k[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
		if (++i >= MT_N) {
			k[0] = k[MT_N - 1];
			i = 1;
		}
		if (++j >= n)
			j = 0;
	}
	for (size_t c = MT_N - 1; c > 0; c--) {
		k[i] = (k[i] ^ ((k[i - 1] ^ (k[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
		if (++i >= MT_N) {
			k[0] = k[MT_N - 1];
			i = 1;
		}
	}
	k[0] = 0x80000000u; /* the state is never all zeros */
	mt_reset(m);
}

/* The unit tests check MT19937 against numpy with these; the worker fills through
 * rng_fill_polar_*. */
/* cppcheck-suppress unusedFunction */
uint32_t rng_mt_next32(struct gd_rng_mt *m)
{
	return mt_next(m);
}

/* cppcheck-suppress unusedFunction */
double rng_mt_double(struct gd_rng_mt *m)
{
	return mt_double(m);
}

/* ---- numpy's call structure ----
 *
 * The original line, np.random.normal(size=n).astype(dtype), costs what numpy's code does, and
 * seed mode exists to run that loop as it was; so the values are drawn as numpy draws them,
 * call for call, not merely value for value. RandomState.normal allocates an array of doubles
 * and fills it through a function pointer to legacy_normal, which calls legacy_gauss, which
 * reaches its bit generator through the bitgen interface's next_double pointer (MT19937 lives
 * in another extension module); .astype then copies (or rounds) the array into a new one. Here
 * each of those calls stays a call (the pointers are read through volatile, so no compiler
 * folds them away), the array is allocated for each fill as numpy's is, and the copy into the
 * batch's input is the astype. */

struct bitgen {
	void *state;
	double (*next_double)(void *state);
};

struct aug_bitgen {
	struct bitgen *bit_generator;
	struct gd_rng_mt *m; /* holds has_gauss and gauss, as numpy's aug_bitgen_t does */
};

__attribute__((noinline)) static double mt19937_next_double(void *state)
{
	return mt_double(state);
}

static double legacy_double(struct aug_bitgen *aug)
{
	double (*volatile next)(void *) = aug->bit_generator->next_double;
	return next(aug->bit_generator->state);
}

__attribute__((noinline)) static double legacy_gauss(struct aug_bitgen *aug)
{
	struct gd_rng_mt *m = aug->m;
	if (m->has_gauss) {
		double tmp = m->gauss;
		m->gauss = 0;
		m->has_gauss = false;
		return tmp;
	}
	double f, x1, x2, r2;
	do {
		x1 = 2.0 * legacy_double(aug) - 1.0;
		x2 = 2.0 * legacy_double(aug) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	f = sqrt(-2.0 * log(r2) / r2);
	m->gauss = f * x1;
	m->has_gauss = true;
	return f * x2;
}

__attribute__((noinline)) static double legacy_normal(struct aug_bitgen *aug, double loc, double scale)
{
	return loc + scale * legacy_gauss(aug);
}

/* normal(size=n) into randoms, then astype into d (a copy) or else f (rounded to float). */
static void mt_fill(struct gd_rng_mt *m, double *d, float *f, size_t n)
{
	struct bitgen bg = { .state = m, .next_double = mt19937_next_double };
	struct aug_bitgen aug = { .bit_generator = &bg, .m = m };
	double (*volatile func)(struct aug_bitgen *, double, double) = legacy_normal;
	double *randoms = xmalloc(n * sizeof(double) + 1);
	for (size_t i = 0; i < n; i++)
		randoms[i] = func(&aug, 0.0, 1.0);
	if (d)
		memcpy(d, randoms, n * sizeof(double));
	else
		for (size_t i = 0; i < n; i++)
			f[i] = (float)randoms[i];
	free(randoms);
}

/* cppcheck-suppress unusedFunction */
void rng_mt_normal_f64(struct gd_rng_mt *m, double *out, size_t n)
{
	mt_fill(m, out, NULL, n);
}

/* cppcheck-suppress unusedFunction */
void rng_mt_normal_f32(struct gd_rng_mt *m, float *out, size_t n)
{
	mt_fill(m, NULL, out, n);
}

/* A struct gd_rng's own MT19937, seeded at its first use from one draw of its xoshiro256**
 * state, so each stream (each worker, each generation thread) has its own. */
static struct gd_rng_mt *own_mt(struct gd_rng *r)
{
	if (!r->mt_seeded) {
		uint64_t d = rng_next(r);
		uint32_t key[2] = { (uint32_t)d, (uint32_t)(d >> 32) };
		rng_mt_seed_array(&r->mt, key, 2);
		r->mt_seeded = true;
	}
	return &r->mt;
}

void rng_fill_polar_f64(struct gd_rng *r, double *out, size_t n)
{
	mt_fill(own_mt(r), out, NULL, n);
}

void rng_fill_polar_f32(struct gd_rng *r, float *out, size_t n)
{
	mt_fill(own_mt(r), NULL, out, n);
}
