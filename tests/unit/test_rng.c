/* test_rng.c: the host generator: normal variates with mean 0 and variance 1 within
 * statistical bounds, permutations that are permutations, reproducible seeding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/rng.h"
#include "tap.h"

static void test_normal(void)
{
	struct gd_rng r;
	rng_seed(&r, 42);
	const size_t n = 1000000;
	double *x = malloc(n * sizeof(*x));
	rng_fill_normal_f64(&r, x, n);
	double sum = 0, sq = 0, m4 = 0;
	size_t beyond3 = 0;
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		beyond3 += fabs(x[i]) > 3;
	}
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;
		sq += d * d;
		m4 += d * d * d * d;
	}
	double var = sq / (double)(n - 1);
	double kurt = m4 / (double)n / (var * var);
	/* Standard errors for n = 1e6: mean 0.001, variance 0.0014, kurtosis 0.0049; bounds at
	 * five standard errors make a false failure about one in three million. */
	tap_ok(fabs(mean) < 0.005, "mean %.5f is within 5 standard errors of 0", mean);
	tap_ok(fabs(var - 1) < 0.0071, "variance %.5f is within 5 standard errors of 1", var);
	tap_ok(fabs(kurt - 3) < 0.025, "kurtosis %.4f is within 5 standard errors of 3 (normal tails)", kurt);
	/* P(|x| > 3) = 0.0027: expect 2700 +- 52. */
	tap_ok(beyond3 > 2440 && beyond3 < 2960, "%zu of 1e6 beyond 3 sigma (expect 2700)", beyond3);
	free(x);

	float f[1000];
	rng_fill_normal_f32(&r, f, 1000);
	int finite = 1;
	for (int i = 0; i < 1000; i++)
		finite &= isfinite(f[i]);
	tap_ok(finite, "float variates are finite");
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
	test_normal();
	test_uniform();
	test_seed();
	test_permutation();
	return tap_done();
}
