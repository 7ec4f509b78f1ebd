/* rng.c: xoshiro256** (Blackman and Vigna, 2018) seeded with splitmix64, with its jump function
 * for independent streams; standard-normal variates by the ziggurat method (Marsaglia and Tsang,
 * 2000) with 256 layers, the layer and the position inside it taken from separate bits of one
 * draw (Doornik, 2005), and the tail by Marsaglia's method (1964). The layers and their tables
 * are in rng_tables.c; numpy's legacy normal, the other method, in rng_numpy.c.
 *
 * A draw. One 64-bit draw gives a uniform layer i, a sign and a cell c, one of 2^52 equal cells
 * across the layer's width (one 32-bit half gives them for a float, with 2^23 cells), and the
 * variate x = +-(c + 1/2) x_i 2^-52. zig_k[i] counts the cells whose midpoint lies below
 * x_{i+1}, inside the part of the layer under the curve: those are returned at once (98.5% of
 * draws; the top layer has none): an integer compare, an exact conversion and one rounded
 * product. Of the rest, a draw in layer 0 lies in the strip beyond r, whose area equals the
 * tail's, and returns a tail variate; one in layer i >= 1 is kept if a uniform height in
 * [f(x_i), f(x_{i+1})] lies below f(x), and otherwise the whole draw is repeated. The result is
 * the normal distribution carried to a grid of 2^52 (2^23) cell midpoints per layer, rounded
 * once to the output type (floats are computed in float).
 *
 * Reproducibility. Values are a pure function of the seed, the stream and the calls made. The
 * tables are constants and the fast path uses only exactly specified IEEE-754 operations in the
 * declared types, so it gives the same bits on any machine that evaluates float and double in
 * their own precision (FLT_EVAL_METHOD 0, as on x86-64 and AArch64); the rare rejection tests
 * call exp() and log() of the C library, whose last bit may differ between libraries, which
 * changes an outcome only when a comparison falls within that bit (of order 1e-16 per test). */
#include "gputop/rng.h"
#include "rng_tables.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__
/* The sums of products below are specified as two roundings each; keep them so. (GCC does not
 * fuse them in ISO C mode.) */
#pragma STDC FP_CONTRACT OFF
#endif

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rng_stream(struct gd_rng *r, uint64_t seed, unsigned i)
{
	for (int k = 0; k < 4; k++)
		r->s[k] = splitmix64(&seed);
	r->mt_seeded = false;
	while (i-- > 0)
		rng_jump(r);
}

void rng_seed(struct gd_rng *r, uint64_t seed)
{
	rng_stream(r, seed, 0);
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

/* One step of xoshiro256**, on a state the caller may keep in registers. */
static inline uint64_t xoshiro(uint64_t *s)
{
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

uint64_t rng_next(struct gd_rng *r)
{
	return xoshiro(r->s);
}

void rng_jump(struct gd_rng *r)
{
	/* The coefficients of x^(2^128) modulo the characteristic polynomial of the state
	 * transition: the sum of the states they select is the state 2^128 steps ahead. */
	static const uint64_t jump[4] = { 0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull, 0xa9582618e03fc9aaull,
		                          0x39abdc4529b1661cull };
	uint64_t acc[4] = { 0, 0, 0, 0 };
	for (int w = 0; w < 4; w++) {
		for (int b = 0; b < 64; b++) {
			if (jump[w] >> b & 1) {
				for (int k = 0; k < 4; k++)
					acc[k] ^= r->s[k];
			}
			xoshiro(r->s);
		}
	}
	memcpy(r->s, acc, sizeof(acc));
	r->mt_seeded = false;
}

double rng_uniform(struct gd_rng *r)
{
	/* 53 random bits, shifted by half a step so the result is never 0 or 1. */
	return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* A variate of the normal's tail beyond ZIG_R (Marsaglia, 1964): a = -ln(U1) / r is exponential
 * and r + a is kept with probability exp(-a^2 / 2), tested as -2 ln(U2) > a^2. */
static double zig_tail(struct gd_rng *r)
{
	for (;;) {
		double a = -log(rng_uniform(r)) / ZIG_R;
		double b = -log(rng_uniform(r));
		if (b + b > a * a)
			return ZIG_R + a;
	}
}

/* Whether a point at x in layer i (1..255), outside its rectangle, lies under the curve: a
 * uniform height in [f(x_i), f(x_{i+1})] against f(x). */
static int zig_wedge(struct gd_rng *r, unsigned i, double x)
{
	return zig_f[i] + rng_uniform(r) * (zig_f[i + 1] - zig_f[i]) < exp(-0.5 * x * x);
}

/* A draw's bits. The low 8 pick the layer. The top 53 (the top 24 of a float's 32), an integer v
 * in [0, 2^53), give the position: v - 2^52 + 1/2 takes the 2^53 values +-1/2, +-3/2, ...,
 * +-(2^52 - 1/2), symmetric about 0, each once, and is computed exactly as v - (2^52 - 1/2), as
 * every value involved fits the 53-bit significand (for floats: 2^23 and 24 bits); so
 * x = (v - 2^52 + 1/2) x_i 2^-52 is exact up to the one rounding of the product. The cell across
 * the layer, counted from 0 at the axis, is |v - 2^52 + 1/2| - 1/2: v - 2^52 from 2^52 up and
 * 2^52 - 1 - v below, which is v or its complement in the low 52 bits. No bit serves twice. */
#define ZIG_LAYER(u) ((unsigned)(u) & (ZIG_LAYERS - 1))

static inline uint64_t zig_cell64(uint64_t v)
{
	return (v ^ ((v >> 52) - 1)) & ((UINT64_C(1) << 52) - 1);
}

static inline double zig_pos64(uint64_t v)
{
	return (double)(int64_t)v - (0x1p52 - 0.5);
}

static inline uint32_t zig_cell32(uint32_t v)
{
	return (v ^ ((v >> 23) - 1)) & ((UINT32_C(1) << 23) - 1);
}

static inline float zig_pos32(uint32_t v)
{
	return (float)(int32_t)v - (0x1p23f - 0.5f);
}

/* A draw's point in its layer, the position computed in the output's type: the layer, the
 * position (exact in double for either type), and whether its cell lies inside the layer's
 * rectangle. A float takes the draw's low 32 bits. */
struct zig_point {
	unsigned i;
	double x;
	bool inside;
};

static struct zig_point zig_point64(uint64_t u)
{
	unsigned i = ZIG_LAYER(u);
	uint64_t v = u >> 11;
	return (struct zig_point){ i, zig_pos64(v) * zig_w64[i], zig_cell64(v) < zig_k64[i] };
}

static struct zig_point zig_point32(uint64_t u)
{
	uint32_t w = (uint32_t)u;
	unsigned i = ZIG_LAYER(w);
	uint32_t v = w >> 8;
	float x = zig_pos32(v) * zig_w32[i];
	return (struct zig_point){ i, x, zig_cell32(v) < zig_k32[i] };
}

/* The rest of a draw u whose cell lies outside its layer's rectangle: the tail, or the wedge
 * test and then fresh 64-bit draws until one is accepted; point gives each draw's point, in the
 * output's type, so a float's value converts back to float exactly. */
__attribute__((noinline)) static double zig_slow(struct gd_rng *r, uint64_t u,
                                                 struct zig_point (*point)(uint64_t))
{
	for (;;) {
		struct zig_point p = point(u);
		if (p.inside || (p.i > 0 && zig_wedge(r, p.i, p.x)))
			return p.x;
		if (p.i == 0)
			return p.x < 0 ? -zig_tail(r) : zig_tail(r);
		u = rng_next(r);
	}
}

/* The fill loops keep the state in a local array, which the compiler holds in registers as long
 * as its address never escapes: these copy it element by element around the rare slow path. */
static inline void state_get(uint64_t *s, const struct gd_rng *r)
{
	s[0] = r->s[0];
	s[1] = r->s[1];
	s[2] = r->s[2];
	s[3] = r->s[3];
}

static inline void state_put(struct gd_rng *r, const uint64_t *s)
{
	r->s[0] = s[0];
	r->s[1] = s[1];
	r->s[2] = s[2];
	r->s[3] = s[3];
}

void rng_fill_normal_f64(struct gd_rng *r, double *out, size_t n)
{
	uint64_t s[4];
	state_get(s, r);
	for (size_t j = 0; j < n; j++) {
		uint64_t u = xoshiro(s);
		unsigned i = ZIG_LAYER(u);
		uint64_t v = u >> 11;
		if (zig_cell64(v) < zig_k64[i]) {
			out[j] = zig_pos64(v) * zig_w64[i];
		} else {
			state_put(r, s);
			out[j] = zig_slow(r, u, zig_point64);
			state_get(s, r);
		}
	}
	state_put(r, s);
}

/* One float variate from the 32-bit draw w, with the state in s as in the fill loops. */
static inline float zig_f32(struct gd_rng *r, uint64_t *s, uint32_t w)
{
	unsigned i = ZIG_LAYER(w);
	uint32_t v = w >> 8;
	if (zig_cell32(v) < zig_k32[i])
		return zig_pos32(v) * zig_w32[i];
	state_put(r, s);
	float x = (float)zig_slow(r, w, zig_point32);
	state_get(s, r);
	return x;
}

void rng_fill_normal_f32(struct gd_rng *r, float *out, size_t n)
{
	uint64_t s[4];
	state_get(s, r);
	size_t j = 0;
	for (; j + 2 <= n; j += 2) {
		uint64_t u = xoshiro(s);
		out[j] = zig_f32(r, s, (uint32_t)u);
		out[j + 1] = zig_f32(r, s, (uint32_t)(u >> 32));
	}
	if (j < n)
		out[j] = zig_f32(r, s, (uint32_t)xoshiro(s));
	state_put(r, s);
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
