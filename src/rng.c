/* rng.c: xoshiro256** (Blackman and Vigna) seeded with splitmix64; Box-Muller normals. */
#include "gputop/rng.h"

#include <math.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rng_seed(struct gd_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->has_spare = 0;
}

uint64_t rng_entropy(void)
{
	uint64_t v;
	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct gd_rng *r)
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

double rng_uniform(struct gd_rng *r)
{
	/* 53 random bits, shifted by half a step so the result is never 0 or 1. */
	return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double rng_normal(struct gd_rng *r)
{
	if (r->has_spare) {
		r->has_spare = 0;
		return r->spare;
	}
	double u = rng_uniform(r), v = rng_uniform(r);
	double rad = sqrt(-2.0 * log(u));
	double ang = 2.0 * M_PI * v;
	r->spare = rad * sin(ang);
	r->has_spare = 1;
	return rad * cos(ang);
}

void rng_fill_normal_f64(struct gd_rng *r, double *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = rng_normal(r);
}

void rng_fill_normal_f32(struct gd_rng *r, float *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (float)rng_normal(r);
}

void rng_permutation(struct gd_rng *r, int *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (int)i;
	for (size_t i = n; i > 1; i--) {
		/* Lemire's unbiased bounded draw would be faster; modulo bias at n <= 2^27 of a
		 * 64-bit draw is below 2^-36 and irrelevant here. */
		size_t j = (size_t)(rng_next(r) % i);
		int t = out[i - 1];
		out[i - 1] = out[j];
		out[j] = t;
	}
}
