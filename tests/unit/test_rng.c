/* test_rng.c: the host generator. Normal variates of both methods, the ziggurat and the polar
 * method (f64 and f32), against the standard normal: moments, tail frequencies, a chi-square
 * over equal-probability bins and a Kolmogorov-Smirnov distance; independent streams;
 * reproducibility; MT19937 against its reference outputs; the box-muller generator against
 * numpy's RandomState(seed).normal values and its legacy_gauss written out, its spare, its
 * floats as its doubles rounded; uniforms; permutations.
 *
 * Every seed is fixed, so each test is a regression test with a known outcome. Each bound is set
 * so that a correct generator would fail it, over a random seed, with probability below 1e-6
 * (the reason is given beside each); the statistics then detect any real change of the
 * distribution much larger than their standard errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/rng.h"
#include "tap.h"

#define CHUNK     1000000u /* values per buffer */
#define N_MOMENTS 50u      /* chunks for moments and tails: 5e7 values */
#define N_CHI     2u       /* chunks for the chi-square: 2e6 values */
#define BINS      100

static double normal_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* The boundaries of BINS equal-probability bins of the standard normal, by bisection. */
static void bin_edges(double *edge)
{
	for (int k = 1; k < BINS; k++) {
		double lo = -10, hi = 10, p = (double)k / BINS;
		for (int it = 0; it < 200; it++) {
			double mid = 0.5 * (lo + hi);
			if (normal_cdf(mid) < p)
				lo = mid;
			else
				hi = mid;
		}
		edge[k - 1] = 0.5 * (lo + hi);
	}
}

static int bin_of(const double *edge, double x)
{
	int lo = 0, hi = BINS - 1; /* the bin is the number of edges below x */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (x < edge[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The t at which Bernstein's bound on |Binomial(n, p) - np| >= t reaches 1e-6: the root of
 * t^2 = 2 ln(2e6) (np(1-p) + t/3). */
static double bernstein_1e6(double n, double p)
{
	double l = log(2e6), b = 2 * l / 3;
	return (b + sqrt(b * b + 8 * l * n * p * (1 - p))) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The normal generator under test: the ziggurat or the polar method. */
static int polar;

/* n variates as doubles, from the f32 generator (through tmp) or the f64 one. */
static void fill(struct gd_rng *r, int f32, double *x, float *tmp, size_t n)
{
	if (!f32) {
		(polar ? rng_fill_polar_f64 : rng_fill_normal_f64)(r, x, n);
		return;
	}
	(polar ? rng_fill_polar_f32 : rng_fill_normal_f32)(r, tmp, n);
	for (size_t i = 0; i < n; i++)
		x[i] = tmp[i];
}

static void test_distribution(int f32, uint64_t seed)
{
	const char *ty = polar ? (f32 ? "polar f32" : "polar f64") : f32 ? "f32" : "f64";
	double *x = malloc(CHUNK * sizeof(*x)), *sorted = malloc(CHUNK * sizeof(*sorted));
	float *tmp = malloc(CHUNK * sizeof(*tmp));
	double edge[BINS - 1];
	bin_edges(edge);
	size_t count[BINS] = { 0 }, beyond3 = 0, beyond4 = 0;
	double s1 = 0, s2 = 0, s3 = 0, s4 = 0, ks = 0;
	int finite = 1;
	struct gd_rng r;
	rng_seed(&r, seed);
	for (unsigned c = 0; c < N_MOMENTS; c++) {
		fill(&r, f32, x, tmp, CHUNK);
		for (size_t i = 0; i < CHUNK; i++) {
			double v = x[i], v2 = v * v;
			finite &= isfinite(v);
			s1 += v;
			s2 += v2;
			s3 += v2 * v;
			s4 += v2 * v2;
			beyond3 += fabs(v) > 3;
			beyond4 += fabs(v) > 4;
		}
		if (c < N_CHI) {
			for (size_t i = 0; i < CHUNK; i++)
				count[bin_of(edge, x[i])]++;
		}
		if (c == 0) {
			memcpy(sorted, x, CHUNK * sizeof(*x));
			qsort(sorted, CHUNK, sizeof(*sorted), cmp_double);
			for (size_t i = 0; i < CHUNK; i++) {
				double f = normal_cdf(sorted[i]);
				ks = fmax(ks, fmax(f - (double)i / CHUNK, (double)(i + 1) / CHUNK - f));
			}
		}
	}
	tap_ok(finite, "%s: every variate is finite", ty);

	/* Moments of n = 5e7 variates. The estimators are asymptotically normal with standard
	 * errors sqrt(1/n) (mean), sqrt(2/n) (variance), sqrt(6/n) (skewness) and sqrt(24/n)
	 * (excess kurtosis): 1.4e-4, 2e-4, 3.5e-4, 6.9e-4. Bounds at 5 standard errors: a false
	 * failure has probability 5.7e-7 each. */
	double n = (double)N_MOMENTS * CHUNK, m = s1 / n;
	double c2 = s2 / n - m * m;
	double c3 = s3 / n - 3 * m * s2 / n + 2 * m * m * m;
	double c4 = s4 / n - 4 * m * s3 / n + 6 * m * m * s2 / n - 3 * m * m * m * m;
	double var = c2 * n / (n - 1), skew = c3 / pow(c2, 1.5), kurt = c4 / (c2 * c2) - 3;
	tap_ok(fabs(m) < 5 * sqrt(1 / n), "%s: mean %.2e within 5 standard errors of 0", ty, m);
	tap_ok(fabs(var - 1) < 5 * sqrt(2 / n), "%s: variance %.6f within 5 standard errors of 1", ty, var);
	tap_ok(fabs(skew) < 5 * sqrt(6 / n), "%s: skewness %.2e within 5 standard errors of 0", ty, skew);
	tap_ok(fabs(kurt) < 5 * sqrt(24 / n), "%s: excess kurtosis %.2e within 5 standard errors of 0", ty,
	       kurt);

	/* Tail counts of n = 5e7 are binomial with p = P(|X| > 3) = 0.0026998 (mean 134990) and
	 * P(|X| > 4) = 6.3342e-5 (mean 3167). Bounds from Bernstein's inequality, which holds for
	 * every n: P(|S - np| >= t) <= 2 exp(-t^2 / (2 (np(1-p) + t/3))) = 1e-6 at t = 1981 (1.5%)
	 * and t = 308 (9.7%). */
	double t3 = bernstein_1e6(n, 0.00269979606326019), t4 = bernstein_1e6(n, 6.33424836662398e-5);
	tap_ok(fabs((double)beyond3 - n * 0.00269979606326019) < t3,
	       "%s: %zu of 5e7 beyond 3 sigma (expect 134990 +- %.0f)", ty, beyond3, t3);
	tap_ok(fabs((double)beyond4 - n * 6.33424836662398e-5) < t4,
	       "%s: %zu of 5e7 beyond 4 sigma (expect 3167 +- %.0f)", ty, beyond4, t4);

	/* Chi-square of 2e6 variates over 100 bins of probability 1/100 (20000 expected in each):
	 * 99 degrees of freedom, whose quantiles at 5e-7 and 1 - 5e-7 are 44.70 and 183.69. */
	double chi = 0, expect = (double)N_CHI * CHUNK / BINS;
	for (int k = 0; k < BINS; k++)
		chi += ((double)count[k] - expect) * ((double)count[k] - expect) / expect;
	tap_ok(chi > 44.70 && chi < 183.69, "%s: chi-square %.1f over 100 equal-probability bins (99 df)", ty,
	       chi);

	/* Kolmogorov-Smirnov distance of 1e6 variates from the normal CDF. The Dvoretzky-Kiefer-
	 * Wolfowitz inequality (with Massart's constant), P(D > e) <= 2 exp(-2 n e^2), holds for
	 * every n and is 1e-6 at e = 2.6934e-3. */
	tap_ok(ks < 2.6934e-3, "%s: Kolmogorov-Smirnov distance %.2e from the normal CDF", ty, ks);
	free(x);
	free(sorted);
	free(tmp);
}

/* Pearson's correlation of two series. */
static double correlation(const double *a, const double *b, size_t n)
{
	double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
	for (size_t i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
		saa += a[i] * a[i];
		sbb += b[i] * b[i];
		sab += a[i] * b[i];
	}
	double dn = (double)n;
	double cov = sab / dn - sa / dn * sb / dn;
	return cov / sqrt((saa / dn - sa / dn * sa / dn) * (sbb / dn - sb / dn * sb / dn));
}

static void test_streams(int f32)
{
	const char *ty = polar ? (f32 ? "polar f32" : "polar f64") : f32 ? "f32" : "f64";
	enum { STREAMS = 4 };
	double *x[STREAMS];
	float *tmp = malloc(CHUNK * sizeof(*tmp));
	for (unsigned i = 0; i < STREAMS; i++) {
		struct gd_rng r;
		rng_stream(&r, 2024, i);
		x[i] = malloc(CHUNK * sizeof(*x[i]));
		fill(&r, f32, x[i], tmp, CHUNK);
	}
	/* For independent samples of n = 1e6, a correlation is normal with standard error
	 * 1/sqrt(n) = 1e-3; at 5.5e-3 each pair fails with probability 3.8e-8, so the largest of
	 * the 6 pairs (or of the 4 streams' lag-1 correlations) with at most 2.3e-7. */
	double worst = 0, worst_lag = 0;
	for (unsigned i = 0; i < STREAMS; i++) {
		for (unsigned j = i + 1; j < STREAMS; j++)
			worst = fmax(worst, fabs(correlation(x[i], x[j], CHUNK)));
		worst_lag = fmax(worst_lag, fabs(correlation(x[i], x[i] + 1, CHUNK - 1)));
	}
	tap_ok(worst < 5.5e-3, "%s: streams 0..3 of one seed: largest pairwise correlation %.2e", ty, worst);
	tap_ok(worst_lag < 5.5e-3, "%s: largest correlation of consecutive values in a stream %.2e", ty,
	       worst_lag);
	for (unsigned i = 0; i < STREAMS; i++)
		free(x[i]);
	free(tmp);
}

/* FNV-1a over bytes. */
static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void test_reproducible(void)
{
	enum { N = 100001 };
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	float *fa = malloc(N * sizeof(*fa)), *fb = malloc(N * sizeof(*fb));
	struct gd_rng r1, r2;

	rng_stream(&r1, 77, 3);
	rng_stream(&r2, 77, 3);
	rng_fill_normal_f64(&r1, a, N);
	rng_fill_normal_f64(&r2, b, N);
	tap_ok(memcmp(a, b, N * sizeof(*a)) == 0, "f64: the same seed and stream give identical buffers");
	rng_fill_normal_f32(&r1, fa, N);
	rng_fill_normal_f32(&r2, fb, N);
	tap_ok(memcmp(fa, fb, N * sizeof(*fa)) == 0, "f32: the same seed and stream give identical buffers");

	/* Pieces: any split for f64, even pieces for f32, and one value at a time. */
	rng_stream(&r1, 5, 1);
	rng_fill_normal_f64(&r1, a, N);
	rng_stream(&r2, 5, 1);
	rng_fill_normal_f64(&r2, b, 1);
	rng_fill_normal_f64(&r2, b + 1, 999);
	rng_fill_normal_f64(&r2, b + 1000, N - 1000);
	tap_ok(memcmp(a, b, N * sizeof(*a)) == 0, "f64: a buffer filled in pieces equals one filled at once");
	rng_stream(&r2, 5, 1);
	int same = 1;
	for (size_t i = 0; i < N && same; i++) {
		double x;
		rng_fill_normal_f64(&r2, &x, 1);
		same = x == a[i];
	}
	tap_ok(same, "f64 one value at a time gives the same values");
	rng_stream(&r1, 5, 1);
	rng_fill_normal_f32(&r1, fa, N);
	rng_stream(&r2, 5, 1);
	rng_fill_normal_f32(&r2, fb, 2);
	rng_fill_normal_f32(&r2, fb + 2, 998);
	rng_fill_normal_f32(&r2, fb + 1000, N - 1000);
	tap_ok(memcmp(fa, fb, N * sizeof(*fa)) == 0,
	       "f32: a buffer filled in even pieces equals one filled at once");

	/* Values fixed by the algorithm, its tables and the seeding: any change to them shows here,
	 * and the same digests on another machine or compiler show the same bits there. */
	rng_stream(&r1, 1, 1);
	rng_fill_normal_f64(&r1, a, N);
	rng_fill_normal_f32(&r1, fa, N);
	uint64_t h64 = fnv1a(a, N * sizeof(*a)), h32 = fnv1a(fa, N * sizeof(*fa));
	TAP_EQ_U(h64, 0x320e130b6e78f776ull, "f64: the digest of stream 1 of seed 1 is fixed (%#llx)",
	         (unsigned long long)h64);
	TAP_EQ_U(h32, 0x5b4163d0d4161b9bull, "f32: the digest of stream 1 of seed 1 is fixed (%#llx)",
	         (unsigned long long)h32);

	free(a);
	free(b);
	free(fa);
	free(fb);
}

/* ---- numpy's legacy normal (the box-muller generator) ---- */

/* MT19937 itself, against the reference implementation's published outputs (mt19937ar.c):
 * init_genrand(5489) and init_by_array({ 0x123, 0x234, 0x345, 0x456 }). numpy's
 * RandomState(5489) and RandomState([0x123, 0x234, 0x345, 0x456]) give the same words. */
static void test_mt19937(void)
{
	struct gd_rng_mt m;
	rng_mt_seed(&m, 5489);
	uint32_t a0 = rng_mt_next32(&m), a1 = rng_mt_next32(&m), a2 = rng_mt_next32(&m);
	tap_ok(a0 == 3499211612u && a1 == 581869302u && a2 == 3890346734u,
	       "MT19937: init_genrand(5489) gives 3499211612, 581869302, 3890346734 (%u, %u, %u)", a0, a1,
	       a2);
	static const uint32_t key[4] = { 0x123, 0x234, 0x345, 0x456 };
	static const uint32_t want[5] = { 1067595299u, 955945823u, 477289528u, 4107218783u, 4228976476u };
	rng_mt_seed_array(&m, key, 4);
	int same = 1;
	for (int i = 0; i < 5; i++)
		same &= rng_mt_next32(&m) == want[i];
	/* Past the first regeneration, and the 1000th output of the reference's own test. */
	for (int i = 5; i < 999; i++)
		rng_mt_next32(&m);
	uint32_t w999 = rng_mt_next32(&m);
	tap_ok(same && w999 == 3460025646u,
	       "MT19937: init_by_array gives the reference's outputs (1000th %u)", w999);
	rng_mt_seed(&m, 0);
	double u = rng_mt_double(&m);
	tap_ok(u == 0x1.18fe1565f12a8p-1, "MT19937: RandomState(0).random_sample() is %.17g", u);
}

/* np.random.RandomState(seed).normal(size=1000), computed with numpy 1.24.2 (python3-numpy) on
 * the development machine by:
 *
 *   import numpy as np
 *   def fnv(b):
 *       h = 0xcbf29ce484222325
 *       for c in b: h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
 *       return h
 *   for seed in (0, 1, 12345, [0x12345678, 0x9abcdef0]):
 *       a = np.random.RandomState(seed).normal(size=1000)
 *       s = 0.0
 *       for v in a: s += float(v)
 *       print([float(a[i]).hex() for i in (0, 1, 2, 999)], float(s).hex(),
 *             hex(fnv(a.astype('<f8').tobytes())), hex(fnv(a.astype(np.float32).tobytes())))
 *
 * The digests cover every value's bits (little-endian, as x86-64 and AArch64 store them). */
struct np_normals {
	const char *seed;
	uint32_t key[2];
	size_t nkey;  /* 0: the integer seed key[0] */
	double at[4]; /* values 0, 1, 2 and 999 */
	double sum;   /* of the 1000, in order */
	uint64_t h64, h32;
};

static const struct np_normals np_ref[] = {
	{ "0",
	  { 0 },
	  0,
	  { 0x1.c398ef3e5cfa5p+0, 0x1.99c2cfacc8953p-2, 0x1.f51d25222c9abp-1, -0x1.6eb574c9b16b2p-2 },
	  -0x1.6a0dbca818378p+5,
	  0x9c4eca3434cc9c17ull,
	  0x2daa2c4860f5ba17ull },
	{ "1",
	  { 1 },
	  0,
	  { 0x1.9fd5190657c50p+0, -0x1.393822fb7d9adp-1, -0x1.0e6c872548fd2p-1, -0x1.7ee2458ea67ffp-3 },
	  0x1.367ff3803226fp+5,
	  0xe25cd526e4a67b5cull,
	  0xe76be14616a84c9cull },
	{ "12345",
	  { 12345 },
	  0,
	  { -0x1.a33dc4f5d203dp-3, 0x1.ea701f566080fp-2, -0x1.09f3df0ae3d0ep-1, 0x1.5fb7492b810dfp+0 },
	  -0x1.2ce4192894ba0p+1,
	  0x2f6c20fc7222c5dbull,
	  0xe9bb5603c0b135caull },
	{ "[0x12345678, 0x9abcdef0]",
	  { 0x12345678, 0x9abcdef0 },
	  2,
	  { 0x1.889575302ccd7p-3, 0x1.1e44ff5e58c1ap+0, 0x1.4998b6794d2c8p+0, 0x1.0029f4d465db3p+0 },
	  0x1.a737fb5278f8bp+5,
	  0x5efa3300e460d85dull,
	  0x6ef6fc0f0c330b7full },
};

static void np_seed(struct gd_rng_mt *m, const struct np_normals *ref)
{
	if (ref->nkey)
		rng_mt_seed_array(m, ref->key, ref->nkey);
	else
		rng_mt_seed(m, ref->key[0]);
}

static void test_numpy_values(void)
{
	enum { N = 1000 };
	double a[N], b[N];
	float fa[N];
	struct gd_rng_mt m;
	for (size_t t = 0; t < sizeof(np_ref) / sizeof(np_ref[0]); t++) {
		const struct np_normals *ref = &np_ref[t];
		np_seed(&m, ref);
		rng_mt_normal_f64(&m, a, N);
		double sum = 0;
		for (int i = 0; i < N; i++)
			sum += a[i];
		uint64_t h64 = fnv1a(a, sizeof(a));
		tap_ok(a[0] == ref->at[0] && a[1] == ref->at[1] && a[2] == ref->at[2] &&
		           a[999] == ref->at[3] && sum == ref->sum && h64 == ref->h64,
		       "box-muller f64: RandomState(%s).normal(size=1000), bit for bit (first %a, sum %a, "
		       "digest %#llx)",
		       ref->seed, a[0], sum, (unsigned long long)h64);
		np_seed(&m, ref);
		rng_mt_normal_f32(&m, fa, N);
		uint64_t h32 = fnv1a(fa, sizeof(fa));
		size_t wrong = 0;
		for (int i = 0; i < N; i++)
			wrong += fa[i] != (float)a[i];
		tap_ok(wrong == 0 && h32 == ref->h32,
		       "box-muller f32: the same values as .astype(np.float32) (digest %#llx, %zu differ)",
		       (unsigned long long)h32, wrong);
		/* numpy keeps the spare between calls: pieces of odd lengths give the same values. */
		np_seed(&m, ref);
		rng_mt_normal_f64(&m, b, 1);
		rng_mt_normal_f64(&m, b + 1, 0);
		rng_mt_normal_f64(&m, b + 1, 2);
		rng_mt_normal_f64(&m, b + 3, N - 3);
		tap_ok(memcmp(a, b, sizeof(a)) == 0, "box-muller f64: RandomState(%s) in pieces 1, 2, 997",
		       ref->seed);
	}
}

/* numpy's legacy_gauss written out (numpy/random/src/legacy/legacy-distributions.c), on the MT's
 * legacy doubles: the reference the fills must equal, bit for bit, over many values. */
struct np_gauss {
	struct gd_rng_mt m;
	double gauss;
	int has_gauss;
};

static double np_legacy_gauss(struct np_gauss *st)
{
	if (st->has_gauss) {
		const double temp = st->gauss;
		st->has_gauss = 0;
		st->gauss = 0.0;
		return temp;
	}
	double f, x1, x2, r2;
	do {
		x1 = 2.0 * rng_mt_double(&st->m) - 1.0;
		x2 = 2.0 * rng_mt_double(&st->m) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	f = sqrt(-2.0 * log(r2) / r2);
	st->gauss = f * x1;
	st->has_gauss = 1;
	return f * x2;
}

static void test_polar_numpy(void)
{
	enum { N = 100001 };
	double *a = malloc(N * sizeof(*a));
	struct gd_rng r, copy;
	struct np_gauss *ref = calloc(1, sizeof(*ref));
	rng_stream(&r, 2024, 2);
	copy = r;
	/* A gd_rng's MT is RandomState([d mod 2^32, d >> 32]) of its next draw d. */
	uint64_t d = rng_next(&copy);
	uint32_t key[2] = { (uint32_t)d, (uint32_t)(d >> 32) };
	rng_mt_seed_array(&ref->m, key, 2);
	rng_fill_polar_f64(&r, a, N);
	size_t differ = 0;
	for (size_t i = 0; i < N; i++)
		differ += a[i] != np_legacy_gauss(ref);
	tap_ok(differ == 0,
	       "box-muller: %d values of a stream equal numpy's legacy gauss on RandomState([lo, hi]) of "
	       "the stream's first draw (%zu differ)",
	       N, differ);
	tap_ok(r.mt.has_gauss && ref->has_gauss && r.mt.gauss == ref->gauss &&
	           rng_mt_next32(&r.mt) == rng_mt_next32(&ref->m) && r.s[0] == copy.s[0],
	       "box-muller: an odd count keeps the pair's second value as the spare, as numpy does; the "
	       "stream took one draw");
	free(ref);
	free(a);
}

static void test_polar_reproducible(void)
{
	enum { N = 100001 };
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	float *fa = malloc(N * sizeof(*fa)), *fb = malloc(N * sizeof(*fb));
	struct gd_rng r1, r2;

	rng_stream(&r1, 77, 3);
	rng_stream(&r2, 77, 3);
	rng_fill_polar_f64(&r1, a, N);
	rng_fill_polar_f64(&r2, b, N);
	tap_ok(memcmp(a, b, N * sizeof(*a)) == 0,
	       "polar f64: the same seed and stream give identical buffers");
	rng_fill_polar_f32(&r1, fa, N);
	rng_fill_polar_f32(&r2, fb, N);
	tap_ok(memcmp(fa, fb, N * sizeof(*fa)) == 0,
	       "polar f32: the same seed and stream give identical buffers");

	/* Pieces of odd and even lengths: the spare carries a pair across calls. */
	rng_stream(&r1, 5, 1);
	rng_fill_polar_f64(&r1, a, N);
	rng_stream(&r2, 5, 1);
	rng_fill_polar_f64(&r2, b, 1);
	rng_fill_polar_f64(&r2, b + 1, 1);
	rng_fill_polar_f64(&r2, b + 2, 997);
	rng_fill_polar_f64(&r2, b + 999, 0);
	rng_fill_polar_f64(&r2, b + 999, N - 999);
	tap_ok(memcmp(a, b, N * sizeof(*a)) == 0,
	       "polar f64: a buffer filled in pieces equals one filled at once");
	rng_stream(&r2, 5, 1);
	int same = 1;
	for (size_t i = 0; i < N && same; i++) {
		double x;
		rng_fill_polar_f64(&r2, &x, 1);
		same = x == a[i];
	}
	tap_ok(same, "polar f64 one value at a time gives the same values");

	/* Floats are the doubles rounded, draw for draw, in pieces too. */
	rng_stream(&r2, 5, 1);
	rng_fill_polar_f32(&r2, fb, 3);
	rng_fill_polar_f32(&r2, fb + 3, N - 3);
	size_t wrong = 0;
	for (size_t i = 0; i < N; i++)
		wrong += fb[i] != (float)a[i];
	tap_ok(wrong == 0, "polar f32: every float is the f64 fill's value rounded to float (%zu differ)",
	       wrong);
	rng_stream(&r2, 5, 1);
	rng_fill_polar_f64(&r2, b, 3);
	rng_fill_polar_f32(&r2, fb, 4);
	tap_ok(b[2] == a[2] && fb[0] == (float)a[3] && fb[3] == (float)a[6],
	       "polar: f64 and f32 fills share one sequence, the spare included");

	/* Every value is finite, the largest magnitudes too (s near 0 gives the largest). */
	int finite = 1;
	double big = 0;
	for (size_t i = 0; i < N; i++) {
		finite &= isfinite(a[i]) && isfinite(fb[i]);
		big = fmax(big, fabs(a[i]));
	}
	tap_ok(finite && big < 10, "polar: no NaN or infinity (largest |x| %.2f)", big);

	/* Seeding and jumping drop the MT and its kept spare: the next fill seeds a new one. */
	rng_stream(&r1, 6, 0);
	rng_fill_polar_f64(&r1, a, 3);
	struct gd_rng r3 = r1;
	rng_jump(&r3);
	rng_stream(&r2, 6, 0);
	tap_ok(r1.mt_seeded && r1.mt.has_gauss && !r3.mt_seeded && !r2.mt_seeded,
	       "polar: the MT and its spare survive between fills, not a jump or a new seed");
	rng_fill_polar_f64(&r3, b, 2);
	rng_fill_polar_f64(&r1, a + 3, 1);
	tap_ok(b[0] != a[3] && b[1] != a[0], "polar: a jumped copy does not repeat the original's values");

	free(a);
	free(b);
	free(fa);
	free(fb);
}

static void test_jump(void)
{
	struct gd_rng a, b, c;
	rng_seed(&a, 11);
	b = a;
	rng_jump(&b);
	int differ = 1;
	for (int i = 0; i < 1000; i++)
		differ &= rng_next(&a) != rng_next(&b);
	tap_ok(differ, "a jumped state gives a different sequence (no equal draw among 1000)");

	/* The jump is a polynomial in the one-step transition, so it commutes with a step. */
	rng_seed(&a, 12);
	b = a;
	rng_jump(&a);
	rng_next(&a);
	rng_next(&b);
	rng_jump(&b);
	tap_ok(memcmp(a.s, b.s, sizeof(a.s)) == 0, "jump then step equals step then jump");

	rng_seed(&c, 13);
	rng_jump(&c);
	rng_jump(&c);
	rng_stream(&a, 13, 2);
	tap_ok(memcmp(a.s, c.s, sizeof(a.s)) == 0, "stream 2 is the seed's state jumped twice");
	rng_stream(&a, 13, 0);
	rng_seed(&b, 13);
	tap_ok(memcmp(a.s, b.s, sizeof(a.s)) == 0, "stream 0 is the seed's own state");
}

static void test_uniform(void)
{
	struct gd_rng r;
	rng_seed(&r, 7);
	int in_range = 1;
	for (int i = 0; i < 1000000; i++) {
		double u = rng_uniform(&r);
		in_range &= u > 0 && u < 1;
	}
	tap_ok(in_range, "uniforms stay inside (0, 1), so log(u) is always finite");
}

static void test_seed(void)
{
	struct gd_rng a, b;
	rng_seed(&a, 99);
	rng_seed(&b, 99);
	int same = 1;
	for (int i = 0; i < 100; i++)
		same &= rng_next(&a) == rng_next(&b);
	tap_ok(same, "the same seed gives the same sequence");
	rng_seed(&b, 100);
	tap_ok(rng_next(&a) != rng_next(&b), "another seed gives another sequence");
}

static void test_permutation(void)
{
	struct gd_rng r;
	rng_seed(&r, 3);
	const size_t n = 100000;
	int *p = malloc(n * sizeof(*p));
	char *seen = calloc(n, 1);
	rng_permutation(&r, p, n);
	size_t ok = 0, fixed = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0 && (size_t)p[i] < n && !seen[p[i]]) {
			seen[p[i]] = 1;
			ok++;
		}
		fixed += (size_t)p[i] == i;
	}
	tap_ok(ok == n, "every index appears exactly once");
	/* Fixed points of a random permutation are Poisson(1): more than 12 is p < 1e-9. */
	tap_ok(fixed <= 12, "%zu fixed points (a random permutation has about 1)", fixed);
	free(p);
	free(seen);
}

int main(void)
{
	test_distribution(0, 42);
	test_distribution(1, 43);
	test_streams(0);
	test_streams(1);
	test_reproducible();
	polar = 1;
	test_distribution(0, 44);
	test_distribution(1, 45);
	test_streams(0);
	test_streams(1);
	polar = 0;
	test_mt19937();
	test_numpy_values();
	test_polar_numpy();
	test_polar_reproducible();
	test_jump();
	test_uniform();
	test_seed();
	test_permutation();
	return tap_done();
}
