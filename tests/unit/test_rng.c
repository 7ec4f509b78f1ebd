/* test_rng.c: the host generator. Normal variates of both methods, the ziggurat and the polar
 * method (f64 and f32), against the standard normal: moments, tail frequencies, a chi-square
 * over equal-probability bins and a Kolmogorov-Smirnov distance; independent streams;
 * reproducibility; the polar method against numpy's algorithm written out, its spare, its
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

/* ---- The polar method ---- */

/* numpy's legacy_gauss written out (numpy/random/src/legacy/legacy-distributions.c), on this
 * generator's 53-bit uniforms in [0, 1): the reference the fills must equal bit for bit. */
struct np_gauss {
	struct gd_rng g;
	double gauss;
	int has_gauss;
};

static double np_double(struct np_gauss *st)
{
	return (double)(rng_next(&st->g) >> 11) / 9007199254740992.0;
}

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
		x1 = 2.0 * np_double(st) - 1.0;
		x2 = 2.0 * np_double(st) - 1.0;
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
	struct gd_rng r;
	struct np_gauss ref = { .has_gauss = 0 };
	rng_stream(&r, 2024, 2);
	rng_stream(&ref.g, 2024, 2);
	rng_fill_polar_f64(&r, a, N);
	size_t differ = 0;
	for (size_t i = 0; i < N; i++)
		differ += a[i] != np_legacy_gauss(&ref);
	tap_ok(differ == 0, "polar: %d values equal numpy's legacy gauss on the same uniforms (%zu differ)",
	       N, differ);
	tap_ok(r.has_spare && ref.has_gauss && r.spare == ref.gauss && r.s[0] == ref.g.s[0],
	       "polar: an odd count keeps the pair's second value as the spare, as numpy does");
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

	/* Seeding and jumping drop a kept spare. */
	rng_stream(&r1, 6, 0);
	rng_fill_polar_f64(&r1, a, 3);
	struct gd_rng r3 = r1;
	rng_jump(&r3);
	rng_stream(&r2, 6, 0);
	tap_ok(r1.has_spare && !r3.has_spare && !r2.has_spare,
	       "polar: the spare survives between fills, not a jump or a new seed");
	rng_fill_polar_f64(&r3, b, 1);
	tap_ok(b[0] != r1.spare, "polar: a jumped copy does not repeat the original's spare");

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
	test_polar_numpy();
	test_polar_reproducible();
	test_jump();
	test_uniform();
	test_seed();
	test_permutation();
	return tap_done();
}
