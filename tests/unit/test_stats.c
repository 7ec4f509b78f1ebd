/* test_stats.c: interval union and window clipping against a brute-force reference on
 * random interval sets; gap and breakdown arithmetic on synthetic batch records; batches whose
 * kernels span more than 2^32 ns; the log2 histogram of gaps and its percentiles; phases,
 * lanes and kernels that overlap (no negative field, the overlaps counted); the spread of
 * repeated runs and the rule that calls two of them indistinguishable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/rng.h"
#include "measure/stats.h"
#include "tap.h"

/* Brute force: walk every nanosecond tick of [a, b) on a small time axis. */
static int64_t brute_union(const struct gd_iv *iv, size_t n, int64_t a, int64_t b)
{
	int64_t total = 0;
	for (int64_t t = a; t < b; t++) {
		for (size_t i = 0; i < n; i++)
			if (iv[i].start <= t && t < iv[i].end) {
				total++;
				break;
			}
	}
	return total;
}

static void test_union_random(void)
{
	struct gd_rng r;
	rng_seed(&r, 11);
	struct gd_iv iv[40];
	int mismatches = 0, cases = 5000;
	for (int c = 0; c < cases; c++) {
		size_t n = rng_next(&r) % 40;
		for (size_t i = 0; i < n; i++) {
			int64_t s = (int64_t)(rng_next(&r) % 300) - 50;
			int64_t len = (int64_t)(rng_next(&r) % 60);
			if (rng_next(&r) % 8 == 0 && i) /* touching the previous one */
				s = iv[i - 1].end;
			if (rng_next(&r) % 8 == 0 && i) { /* nested in the previous one */
				s = iv[i - 1].start + 1;
				len = 0;
			}
			iv[i] = (struct gd_iv){ s, s + len };
		}
		int64_t a = (int64_t)(rng_next(&r) % 200) - 20, b = a + (int64_t)(rng_next(&r) % 200);
		int64_t want = brute_union(iv, n, a, b);
		int64_t got = stats_union(iv, n, a, b); /* sorts iv: the order given was random */
		if (got != want && mismatches++ < 5)
			printf("#   case %d: got %lld, want %lld\n", c, (long long)got, (long long)want);
	}
	tap_ok(mismatches == 0,
	       "union equals brute force on %d random sets (overlapping, touching, nested, "
	       "out of order, crossing window edges)",
	       cases);
}

static void test_union_cases(void)
{
	struct gd_iv a[] = { { 0, 10 }, { 10, 20 } };
	tap_ok(stats_union(a, 2, 0, 100) == 20, "touching intervals merge");
	struct gd_iv b[] = { { 30, 40 }, { 0, 100 }, { 50, 60 } };
	tap_ok(stats_union(b, 3, 0, 100) == 100, "nested intervals count once");
	struct gd_iv c[] = { { -50, 50 }, { 90, 150 } };
	tap_ok(stats_union(c, 2, 0, 100) == 60, "intervals crossing both window edges are clipped");
	struct gd_iv d[] = { { 200, 300 } };
	tap_ok(stats_union(d, 1, 0, 100) == 0, "an interval outside the window adds nothing");
	tap_ok(stats_union(d, 0, 0, 100) == 0, "no interval, no time");
}

static struct gd_rec batch(uint64_t i, int64_t t0)
{
	/* gen 100, write 20, 3 kernels of 50 with gaps 5, read 10, then 15 of other time. */
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = i;
	r.items = 1000;
	r.kernels = 3;
	r.nkiv = 3;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = t0;
	r.t_gen = t0 + 100;
	r.h2d[0] = t0 + 100;
	r.h2d[1] = t0 + 120;
	r.kbase = t0 + 120;
	for (uint32_t k = 0; k < 3; k++) {
		r.kiv[k][0] = 55 * k;
		r.kiv[k][1] = 55 * k + 50;
	}
	r.kbusy_ns = 150;
	r.kgap_ns = 10;
	r.d2h[0] = t0 + 280;
	r.d2h[1] = t0 + 290;
	r.t_end = t0 + 305;
	return r;
}

static void test_breakdown(void)
{
	struct gd_batch_acc acc;
	memset(&acc, 0, sizeof(acc));
	struct gd_rec r0 = batch(0, 1000), r1 = batch(1, 1400);
	tap_ok(gd_rec_valid(&r0), "the synthetic record is valid");
	stats_batch_add(&acc, &r0, 0);
	stats_batch_add(&acc, &r1, gd_rec_kernel_end(&r0));
	struct gd_breakdown bd;
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.gen_us - 0.100) < 1e-12 && fabs(bd.h2d_us - 0.020) < 1e-12 &&
	           fabs(bd.kernel_us - 0.160) < 1e-12 && fabs(bd.d2h_us - 0.010) < 1e-12 &&
	           fabs(bd.other_us - 0.015) < 1e-12,
	       "breakdown: gen 100, h2d 20, kernels 160 (first START to last END), d2h 10, other 15 ns");
	double parts = bd.gen_us + bd.h2d_us + bd.kernel_us + bd.d2h_us + bd.other_us;
	tap_ok(fabs(parts - 0.305) < 1e-12, "the parts add up to the batch's wall time");
	tap_ok(fabs(bd.gap_kernel_us - 0.005) < 1e-12, "mean gap between kernels: 5 ns");
	/* Batch 0's last kernel ends at 1000+120+160 = 1280; batch 1's first starts at 1520. */
	tap_ok(fabs(bd.gap_batch_us - 0.240) < 1e-12, "gap between batches: 240 ns, measured once");
	tap_ok(acc.n == 2 && acc.items == 2000, "batches and symbols are counted");

	struct gd_batch_acc none;
	memset(&none, 0, sizeof(none));
	stats_breakdown(&none, &bd);
	tap_ok(isnan(bd.gen_us) && isnan(bd.gap_batch_us), "no batch: not a number, never a made-up zero");
}

/* Queue wait is named in the breakdown and leaves "other"; --profile off measures only the
 * host; an estimated record counts in the breakdown but not in the measured gaps. */
static void test_policies(void)
{
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	memset(&acc, 0, sizeof(acc));
	struct gd_rec r = batch(0, 1000);
	r.qwait_ns = 5;
	tap_ok(gd_rec_valid(&r), "a record with a queue wait is valid");
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.queue_wait_us - 0.005) < 1e-12 && fabs(bd.other_us - 0.010) < 1e-12,
	       "queue wait 5 ns is named, and other shrinks from 15 to 10 ns");
	r.qwait_ns = -1;
	tap_ok(!gd_rec_valid(&r), "a negative queue wait is refused");

	memset(&acc, 0, sizeof(acc));
	struct gd_rec host = batch(0, 1000);
	host.flags = 0;
	host.nkiv = 0;
	stats_batch_add(&acc, &host, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.gen_us - 0.100) < 1e-12 && isnan(bd.h2d_us) && isnan(bd.kernel_us) &&
	           isnan(bd.d2h_us) && isnan(bd.queue_wait_us) && isnan(bd.other_us) &&
	           isnan(bd.gap_kernel_us),
	       "host times only: generation measured, every device field not a number");

	memset(&acc, 0, sizeof(acc));
	struct gd_rec r0 = batch(0, 1000), est = batch(1, 1400), r2 = batch(2, 1800);
	est.flags |= GD_REC_ESTIMATED;
	est.kgap_ns = 1000;
	tap_ok(stats_rec_profiled(&r0) && !stats_rec_profiled(&est) && !stats_rec_profiled(&host),
	       "profiled means measured: not estimated, not host-only");
	stats_batch_add(&acc, &r0, 0);
	stats_batch_add(&acc, &est, gd_rec_kernel_end(&r0));
	stats_batch_add(&acc, &r2, 0); /* after an estimate: the caller measures no gap */
	stats_breakdown(&acc, &bd);
	tap_ok(acc.n == 3 && acc.ndev == 2 && acc.kgap_n == 4 && fabs(bd.gap_kernel_us - 0.005) < 1e-12 &&
	           acc.bgap_n == 0,
	       "an estimated batch counts in the batches, not in the device phases nor the gaps");
}

static void test_rec_busy(void)
{
	struct gd_rec r = batch(0, 1000);
	/* Kernels at [1120,1170) [1175,1225) [1230,1280). */
	tap_ok(stats_rec_busy(&r, 0, 10000) == 150, "busy time of a record inside the window");
	tap_ok(stats_rec_busy(&r, 1150, 1200) == 20 + 25, "busy time clipped to a window");
	r.flags |= GD_REC_GROUPED;
	r.nkiv = 1;
	r.kiv[0][0] = 0;
	r.kiv[0][1] = 160;
	r.kbusy_ns = 150;
	tap_ok(stats_rec_busy(&r, 0, 10000) == 150, "grouped kernels: busy time scaled to the true sum");
}

/* A profiled batch around kernels kv[0..n) (host ns), filled the way a worker fills it. */
static struct gd_rec long_batch(const int64_t (*kv)[2], uint32_t n)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.items = 1000;
	r.kernels = n;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = kv[0][0] - 2000;
	r.t_gen = kv[0][0] - 1000;
	gd_rec_set_kernels(&r, kv, n);
	r.t_end = gd_rec_kernel_end(&r) + 1000;
	return r;
}

/* Kernels spanning more than 2^32 ns (4.29 s) in one batch: offsets that wrapped or saturated
 * there gave kernel_us 4294967.29, a device that looked idle while busy, and empty intervals. */
static void test_long_batches(void)
{
	const int64_t s = GD_NS_PER_S, t = 1000 * GD_NS_PER_S;
	/* Two kernels of 3 s with 0.5 s between them: 6.5 s from the first START to the last END. */
	int64_t two[2][2] = { { t, t + 3 * s }, { t + 7 * s / 2, t + 13 * s / 2 } };
	struct gd_rec r = long_batch((const int64_t(*)[2])two, 2);
	tap_ok(gd_rec_valid(&r), "a batch of 6.5 s of kernels is a valid record");
	int64_t k[2];
	gd_rec_kiv(&r, 1, k);
	tap_ok(k[0] == two[1][0] && k[1] == two[1][1], "its second kernel reads back exactly (%lld..%lld ns)",
	       (long long)(k[0] - t), (long long)(k[1] - t));
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	memset(&acc, 0, sizeof(acc));
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.kernel_us - 6.5e6) < 0.01, "kernel_us is 6500000 (%.2f)", bd.kernel_us);
	tap_ok(stats_rec_busy(&r, 0, INT64_MAX / 2) == 6 * s, "busy time is 6 s (%lld ns)",
	       (long long)stats_rec_busy(&r, 0, INT64_MAX / 2));
	tap_ok(stats_rec_busy(&r, t + 5 * s, t + 6 * s) == s,
	       "a window 5 s into the batch is fully busy (%lld ns)",
	       (long long)stats_rec_busy(&r, t + 5 * s, t + 6 * s));
	struct gd_iv *iv = NULL;
	size_t niv = 0, cap = 0;
	stats_rec_intervals(&r, &iv, &niv, &cap);
	int64_t u = stats_union(iv, niv, t, t + 10 * s);
	tap_ok(niv == 2 && u == 6 * s, "the union of its intervals is 6 s (%lld ns)", (long long)u);
	niv = 0;
	stats_rec_intervals(&r, &iv, &niv, &cap);
	u = stats_union(iv, niv, t + 5 * s, t + 6 * s);
	tap_ok(u == s, "and covers a window 5 s into the batch (%lld ns)", (long long)u);

	/* 1000 launches of 10 ms, 0.1 ms apart: grouped, 10.0999 s in all, 10 s busy. */
	static int64_t many[1000][2];
	for (int i = 0; i < 1000; i++) {
		many[i][0] = t + (int64_t)i * 10100000;
		many[i][1] = many[i][0] + 10000000;
	}
	r = long_batch((const int64_t(*)[2])many, 1000);
	tap_ok(gd_rec_valid(&r) && (r.flags & GD_REC_GROUPED),
	       "1000 launches over 10.1 s: a valid grouped record");
	memset(&acc, 0, sizeof(acc));
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.kernel_us - 10099900) < 0.01, "kernel_us is 10099900 (%.2f)", bd.kernel_us);
	tap_ok(stats_rec_busy(&r, 0, INT64_MAX / 2) == 10 * s, "busy time is the measured 10 s (%lld ns)",
	       (long long)stats_rec_busy(&r, 0, INT64_MAX / 2));
	tap_ok(gd_rec_kernel_end(&r) == many[999][1], "the last END reads back exactly");

	/* One kernel of 70 hours, near the longest span a record may describe. */
	int64_t day[1][2] = { { t, t + 70 * 3600 * s } };
	r = long_batch((const int64_t(*)[2])day, 1);
	memset(&acc, 0, sizeof(acc));
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(gd_rec_valid(&r) && fabs(bd.kernel_us - 70 * 3600e6) <= 65.536,
	       "a kernel of 70 hours is valid and measured to its unit of 2^16 ns (%.3f us)", bd.kernel_us);
	int64_t busy = stats_rec_busy(&r, 0, INT64_MAX / 2);
	tap_ok(llabs(busy - 70 * 3600 * s) <= 1, "and its busy time is 70 hours (%lld ns)", (long long)busy);
	free(iv);
}

/* Every bucket's edges: contiguous, in value order, and each value lands in the bucket whose
 * edges hold it. */
static void test_hist_edges(void)
{
	int bad = 0;
	double prev_hi = -INFINITY;
	for (unsigned b = 0; b < 2 * GD_HIST_HALF; b++) {
		double lo, hi;
		stats_hist_edges(b, &lo, &hi);
		if (b > 0 && (lo >= hi || (b > 1 && lo != prev_hi))) {
			if (bad++ < 3)
				printf("#   bucket %u: [%g, %g) after %g\n", b, lo, hi, prev_hi);
		}
		prev_hi = hi;
	}
	tap_ok(bad == 0, "bucket edges are contiguous and increasing");
	const int64_t probe[] = { 0,  1,  2,  3,  4,  7,     8,     1023,      1024,      1025,
		                  -1, -2, -3, -4, -5, -1024, -1025, INT64_MAX, INT64_MIN, 999999937 };
	bad = 0;
	for (size_t i = 0; i < GD_ARRAY_LEN(probe); i++) {
		double lo, hi, v = (double)probe[i];
		unsigned b = stats_hist_bucket(probe[i]);
		stats_hist_edges(b, &lo, &hi);
		/* The ends of int64_t round to 2^63 as doubles: the last buckets hold them anyway. */
		bool inside = (lo <= v && v < hi) || (probe[i] == INT64_MAX && b == 2 * GD_HIST_HALF - 1) ||
		              (probe[i] == INT64_MIN && b == 1);
		if (!inside && bad++ < 3)
			printf("#   %lld in bucket %u [%g, %g)\n", (long long)probe[i], b, lo, hi);
	}
	tap_ok(bad == 0,
	       "values land in the bucket whose edges hold them (0, powers of two, negatives, the ends)");
	tap_ok(stats_hist_bucket(1023) + 1 == stats_hist_bucket(1024) &&
	           stats_hist_bucket(1024) == stats_hist_bucket(2047) &&
	           stats_hist_bucket(0) + 1 == stats_hist_bucket(1) &&
	           stats_hist_bucket(-1) + 1 == stats_hist_bucket(0),
	       "1024..2047 share a bucket, 1023 is one below; -1 < 0 < 1 are neighbours");
	bad = 0;
	for (int64_t v = -3000; v <= 3000; v++)
		if (stats_hist_bucket(v) > stats_hist_bucket(v + 1) && bad++ < 3)
			printf("#   bucket of %lld > bucket of %lld\n", (long long)v, (long long)v + 1);
	tap_ok(bad == 0, "bucket order is value order (-3000..3000)");
}

/* The true p-quantile (nearest rank) of sorted v[0..n). */
static int64_t true_quantile(const int64_t *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p * (double)n - 1e-9);
	return v[rank < 1 ? 0 : rank - 1];
}

static int by_value(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static void test_hist_percentiles(void)
{
	struct gd_hist h;
	memset(&h, 0, sizeof(h));
	tap_ok(isnan(stats_hist_percentile(&h, 0.5)) && isnan(stats_hist_percentile(&h, 0.99)),
	       "an empty histogram has no percentile: NAN");
	stats_hist_add(&h, 5000, 7);
	tap_ok(stats_hist_percentile(&h, 0.5) == 5000 && stats_hist_percentile(&h, 0.99) == 5000,
	       "one value, 7 times: p50 = p99 = that value exactly (kept within min and max)");
	/* 1..1000 ns: p50 = 500 lies in [256, 512), p99 = 990 in [512, 1024); evenly spread, so
	 * interpolation between each bucket's least and greatest value finds them. */
	memset(&h, 0, sizeof(h));
	for (int64_t v = 1; v <= 1000; v++)
		stats_hist_add(&h, v, 1);
	double p50 = stats_hist_percentile(&h, 0.5), p99 = stats_hist_percentile(&h, 0.99);
	tap_ok(p50 >= 256 && p50 < 512 && p99 >= 512 && p99 <= 1000 && fabs(p50 - 500) < 1 &&
	           fabs(p99 - 990) < 1,
	       "uniform 1..1000: p50 %.1f (500), p99 %.1f (990): in their buckets and, interpolated, close",
	       p50, p99);
	/* 99 gaps of 10 us and one of 1 ms: p50 and p99 are the short gap, p100 the long one. */
	memset(&h, 0, sizeof(h));
	stats_hist_add(&h, 10000, 98);
	stats_hist_add(&h, 1000000, 2);
	tap_ok(stats_hist_percentile(&h, 0.5) == 10000 && stats_hist_percentile(&h, 0.98) == 10000,
	       "98 gaps of 10 us, 2 of 1 ms: p50 and p98 are 10 us");
	p99 = stats_hist_percentile(&h, 0.99);
	tap_ok(p99 == 1000000, "and p99 is the 1 ms gap (%.0f)", p99);
	/* Overlapping batches: negative gaps order before positive ones. */
	memset(&h, 0, sizeof(h));
	stats_hist_add(&h, -4000, 60);
	stats_hist_add(&h, 3000, 40);
	p50 = stats_hist_percentile(&h, 0.5);
	p99 = stats_hist_percentile(&h, 0.99);
	tap_ok(p50 == -4000 && p99 == 3000,
	       "60 gaps of -4 us and 40 of 3 us: p50 -4000, p99 3000 (%.0f, %.0f)", p50, p99);

	/* Random sets against the true quantiles: the estimate is in the true value's bucket, and
	 * p50 <= p99 always. */
	struct gd_rng r;
	rng_seed(&r, 23);
	static int64_t v[5000];
	int bad = 0, cases = 300;
	for (int c = 0; c < cases; c++) {
		size_t n = 1 + rng_next(&r) % 5000;
		int shift = (int)(rng_next(&r) % 30);
		memset(&h, 0, sizeof(h));
		for (size_t i = 0; i < n; i++) {
			v[i] = (int64_t)(rng_next(&r) % ((uint64_t)1 << shift)) - (c % 4 == 0 ? 1000 : 0);
			stats_hist_add(&h, v[i], 1);
		}
		qsort(v, n, sizeof(v[0]), by_value);
		const double ps[] = { 0.5, 0.99 };
		double got[2];
		for (int k = 0; k < 2; k++) {
			got[k] = stats_hist_percentile(&h, ps[k]);
			int64_t want = true_quantile(v, n, ps[k]);
			if (stats_hist_bucket((int64_t)floor(got[k])) != stats_hist_bucket(want) && bad++ < 3)
				printf("#   case %d p%.0f: got %.1f, true %lld\n", c, 100 * ps[k], got[k],
				       (long long)want);
		}
		if (!(got[0] <= got[1]) && bad++ < 3)
			printf("#   case %d: p50 %.1f > p99 %.1f\n", c, got[0], got[1]);
	}
	tap_ok(bad == 0, "%d random sets: p50 and p99 fall in the bucket of the true quantile, p50 <= p99",
	       cases);

	struct gd_hist a, b, both;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&both, 0, sizeof(both));
	for (int64_t x = 0; x < 300; x++) {
		stats_hist_add(x % 2 ? &a : &b, x * 37, 1);
		stats_hist_add(&both, x * 37, 1);
	}
	stats_hist_merge(&a, &b);
	bool same = a.n == both.n && a.min == both.min && a.max == both.max;
	for (unsigned k = 0; k < 2 * GD_HIST_HALF; k++)
		same = same && a.count[k] == both.count[k] &&
		       (!a.count[k] || (a.lo[k] == both.lo[k] && a.hi[k] == both.hi[k]));
	tap_ok(same, "merging two workers' histograms equals one histogram of all their gaps");

	/* The fixed bounds of the Prometheus histograms: a value counts under the first bound it
	 * does not exceed; a bound itself under that bound. */
	struct gd_hist fx;
	memset(&fx, 0, sizeof(fx));
	const int64_t at[] = { 0, 1000, 1001, 2500, 999999999, 1000000000, 1000000001, INT64_MAX };
	for (size_t i = 0; i < GD_ARRAY_LEN(at); i++)
		stats_hist_add(&fx, at[i], 2);
	tap_ok(
	    fx.le[0] == 4 && fx.le[1] == 4 && fx.le[GD_HIST_BOUNDS - 1] == 4 && fx.le[GD_HIST_BOUNDS] == 4,
	    "fixed bounds: 0 and 1 us under 1 us, 1.001 and 2.5 us under 2.5 us, up to 1 s, above it +Inf");
	bool rising = stats_hist_bounds[0] == 1000 && stats_hist_bounds[GD_HIST_BOUNDS - 1] == GD_NS_PER_S;
	for (int i = 1; i < GD_HIST_BOUNDS; i++)
		rising = rising && stats_hist_bounds[i] > stats_hist_bounds[i - 1];
	tap_ok(rising, "the bounds rise from 1 us to 1 s");
	uint64_t sum = 0;
	for (int i = 0; i <= GD_HIST_BOUNDS; i++)
		sum += a.le[i];
	tap_ok(sum == a.n, "merged: the fixed buckets hold every value once (%llu of %llu)",
	       (unsigned long long)sum, (unsigned long long)a.n);
}

/* The gaps of profiled records reach the histograms: one count per gap. */
static void test_hist_records(void)
{
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	memset(&acc, 0, sizeof(acc));
	struct gd_rec r0 = batch(0, 1000), r1 = batch(1, 1400);
	stats_batch_add(&acc, &r0, 0);
	stats_batch_add(&acc, &r1, gd_rec_kernel_end(&r0));
	stats_breakdown(&acc, &bd);
	tap_ok(acc.kgap.n == 4 && acc.bgap.n == 1,
	       "two batches of 3 kernels: 4 kernel gaps, 1 batch gap counted");
	tap_ok(bd.gap_kernel_p50_us == 0.005 && bd.gap_kernel_p99_us == 0.005 &&
	           bd.gap_batch_p50_us == 0.240 && bd.gap_batch_p99_us == 0.240,
	       "gaps of 5 ns and one of 240 ns: p50 = p99 = those values");
	/* Kernel gaps of 5 and 45 ns in one batch, read from its intervals one by one. */
	memset(&acc, 0, sizeof(acc));
	int64_t kv[3][2] = { { 5000, 5050 }, { 5055, 5105 }, { 5150, 5200 } };
	struct gd_rec r = batch(0, 1000);
	gd_rec_set_kernels(&r, (const int64_t(*)[2])kv, 3);
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(acc.kgap.min == 5 && acc.kgap.max == 45 && fabs(bd.gap_kernel_us - 0.025) < 1e-12,
	       "ungrouped kernels: each gap counted as it was (5 and 45 ns; mean 25)");
	/* With a launch limit of 20 ns: 5 ns is launch cost; of 45 ns, 20 are and 25 are late. */
	memset(&acc, 0, sizeof(acc));
	acc.launch_limit = 20;
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.launch_gap_us - 0.025) < 1e-12 && fabs(bd.late_gap_us - 0.025) < 1e-12 &&
	           fabs(bd.gap_kernel_us - 0.025) < 1e-12,
	       "launch limit 20 ns: gaps of 5 and 45 ns give 25 ns of launch cost and 25 late");
	/* Grouped: only the batch's mean gap is known, once per gap. */
	static int64_t many[40][2];
	for (int i = 0; i < 40; i++) {
		many[i][0] = 10000 + i * 110 + (i % 2) * 20;
		many[i][1] = many[i][0] + 100 - (i % 2) * 20;
	}
	memset(&acc, 0, sizeof(acc));
	r = long_batch((const int64_t(*)[2])many, 40);
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok((r.flags & GD_REC_GROUPED) && acc.kgap.n == 39 && acc.kgap.min == acc.kgap.max &&
	           acc.kgap.min == r.kgap_ns / 39,
	       "grouped kernels: 39 gaps, each the batch's mean gap (%lld ns)", (long long)(r.kgap_ns / 39));
	tap_ok(bd.late_gap_us == 0 && fabs(bd.launch_gap_us * 1e3 - (double)r.kgap_ns) < 1e-6,
	       "no launch limit: every gap is launch cost, none late");
	memset(&acc, 0, sizeof(acc));
	stats_breakdown(&acc, &bd);
	tap_ok(isnan(bd.gap_kernel_p50_us) && isnan(bd.gap_kernel_p99_us) && isnan(bd.gap_batch_p50_us) &&
	           isnan(bd.gap_batch_p99_us),
	       "no gaps: no percentiles (NAN)");
}

/* Every field of a breakdown is a duration: >= 0, or NAN where not measured. */
static bool none_negative(const struct gd_breakdown *bd)
{
	double v[sizeof(*bd) / sizeof(double)];
	_Static_assert(sizeof(*bd) % sizeof(double) == 0, "a breakdown is doubles");
	memcpy(v, bd, sizeof(v));
	for (size_t i = 0; i < GD_ARRAY_LEN(v); i++)
		if (v[i] < 0)
			return false;
	return true;
}

/* One kernel [ks, ke) in ns, no copies: a kernel-only batch on one of several lanes. */
static struct gd_rec lane_batch(uint64_t i, int64_t ks, int64_t ke)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = i;
	r.items = 1000;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = ks - 100;
	r.t_gen = ks - 100;
	const int64_t kv[1][2] = { { ks, ke } };
	gd_rec_set_kernels(&r, kv, 1);
	r.t_end = ke + 10;
	return r;
}

/* Phases that overlap, lanes whose batches overlap on the device, kernels that seem to overlap:
 * no duration is negative, and the overlap fields say by how much. */
static void test_overlaps(void)
{
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	memset(&acc, 0, sizeof(acc));
	/* A queue wait of 40 ns that ran while the write did: the phases add up to 330 ns of a
	 * 305 ns batch. The rest, -25 ns, is their overlap; other is 0. */
	struct gd_rec r0 = batch(0, 1000), r1 = batch(1, 1400);
	r0.qwait_ns = 40;
	tap_ok(gd_rec_valid(&r0), "a batch whose queue wait overlaps its write is a valid record");
	stats_batch_add(&acc, &r0, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(bd.other_us == 0 && fabs(bd.overlap_us - 0.025) < 1e-12 && none_negative(&bd),
	       "phases 25 ns longer than the batch: other 0, overlap_us 0.025, nothing negative");
	stats_batch_add(&acc, &r1, 0); /* other 15 ns, no overlap */
	stats_breakdown(&acc, &bd);
	tap_ok(fabs(bd.other_us - 0.0075) < 1e-12 && fabs(bd.overlap_us - 0.0125) < 1e-12,
	       "means over both batches: other 7.5 ns, overlap 12.5 ns (other - overlap is the old mean)");

	/* An estimated batch (--profile sampled): its device times are another batch's, placed;
	 * they count in busy times, not in the breakdown's device phases (nothing of them was
	 * measured), so they can never make "other" or the overlap up. */
	memset(&acc, 0, sizeof(acc));
	struct gd_rec est = batch(0, 1000);
	est.flags |= GD_REC_ESTIMATED;
	est.t_end = est.d2h[1] - 50; /* device phases 50 ns longer than the batch */
	stats_batch_add(&acc, &est, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(gd_rec_valid(&est) && acc.n == 1 && acc.ndev == 0 && fabs(bd.gen_us - 0.100) < 1e-12 &&
	           isnan(bd.other_us) && isnan(bd.overlap_us) && isnan(bd.kernel_us) && none_negative(&bd),
	       "an estimate counts its generation; its device phases, other and overlap are not measured");

	/* Three lanes: batches' kernels overlap on the device. The caller passes the latest END of
	 * the earlier batches (collect.c keeps it), so a short batch that ended early does not
	 * make the next one's start look like idle time. */
	memset(&acc, 0, sizeof(acc));
	struct gd_rec l0 = lane_batch(0, 1000, 1600), l1 = lane_batch(1, 1200, 1800),
	              l2 = lane_batch(2, 1400, 1500), l3 = lane_batch(3, 1700, 2000),
	              l4 = lane_batch(4, 2100, 2200);
	tap_ok(gd_rec_valid(&l0) && gd_rec_valid(&l3), "one-kernel lane batches are valid records");
	stats_batch_add(&acc, &l0, 0);
	stats_batch_add(&acc, &l1, 1600); /* starts 400 ns before batch 0 ends */
	stats_batch_add(&acc, &l2, 1800); /* 400 ns before batch 1 ends */
	stats_batch_add(&acc, &l3, 1800); /* after batch 2's end, 100 ns before batch 1's */
	stats_batch_add(&acc, &l4, 2000); /* 100 ns after every earlier one: idle */
	stats_breakdown(&acc, &bd);
	tap_ok(acc.bgap_n == 4 && fabs(bd.gap_batch_us - 0.025) < 1e-12 &&
	           fabs(bd.batch_overlap_us - 0.225) < 1e-12,
	       "lanes: gap_batch_us 0.025 (0, 0, 0, 100 ns), batch_overlap_us 0.225 (400, 400, 100, 0 ns)");
	tap_ok(bd.gap_batch_p50_us == 0 && bd.gap_batch_p99_us == 0.1 && acc.bgap.min == 0 &&
	           none_negative(&bd),
	       "lanes: gap percentiles 0 and 0.1 us, no negative gap in the histogram, nothing negative");

	/* Kernels of one batch whose intervals overlap by 10 ns (a device clock's step): the gap
	 * counts as 0, never as -10. */
	memset(&acc, 0, sizeof(acc));
	int64_t kv[3][2] = { { 5000, 5060 }, { 5050, 5100 }, { 5150, 5200 } };
	struct gd_rec r = batch(0, 1000);
	gd_rec_set_kernels(&r, (const int64_t(*)[2])kv, 3);
	stats_batch_add(&acc, &r, 0);
	stats_breakdown(&acc, &bd);
	tap_ok(gd_rec_valid(&r) && acc.kgap.min == 0 && acc.kgap.max == 50 &&
	           fabs(bd.gap_kernel_us - 0.025) < 1e-12 && bd.gap_kernel_p50_us == 0 && none_negative(&bd),
	       "overlapping kernels of one batch: gaps 0 and 50 ns, mean 25, p50 0");
	struct gd_batch_acc none;
	memset(&none, 0, sizeof(none));
	stats_breakdown(&none, &bd);
	tap_ok(isnan(bd.overlap_us) && isnan(bd.batch_overlap_us),
	       "no batch: the overlaps are not measured (NAN), like the rest");
}

static void test_spread(void)
{
	struct gd_spread a, b;
	const double runs[] = { 10, 12, NAN, 14 };
	stats_spread(runs, 4, &a);
	tap_ok(a.n == 3 && a.mean == 12 && a.min == 10 && a.max == 14 && fabs(a.sd - 2) < 1e-12,
	       "10, 12, (not measured), 14: 3 runs, mean 12, min 10, max 14, sd 2");
	stats_spread(runs, 1, &b);
	tap_ok(b.n == 1 && b.mean == 10 && b.min == 10 && b.max == 10 && isnan(b.sd), "one run: no sd");
	stats_spread(runs + 2, 1, &b);
	tap_ok(b.n == 0 && isnan(b.mean) && isnan(b.min), "no run measured: all NAN");
	/* The measured case: speedups of 1.18x and 0.90x from identical runs. */
	const double one[] = { 100, 100, 100 }, two[] = { 118, 90, 104 }, far[] = { 150, 152, 149 };
	struct gd_spread s1, s2, s3;
	stats_spread(one, 3, &s1);
	stats_spread(two, 3, &s2);
	stats_spread(far, 3, &s3);
	tap_ok(stats_within_spread(&s1, &s2) && stats_within_spread(&s2, &s1),
	       "100 against 118, 90, 104: the difference is within the spread, either way round");
	tap_ok(!stats_within_spread(&s2, &s3) && !stats_within_spread(&s1, &s3),
	       "150, 152, 149 is a measured difference from both");
	const double near[] = { 103, 104, 105 }, tight[] = { 100, 101, 102 };
	struct gd_spread s4, s5;
	stats_spread(near, 3, &s4);
	stats_spread(tight, 3, &s5);
	tap_ok(!stats_within_spread(&s4, &s5),
	       "means 104 and 101, ranges of 2: apart by more than the spread");
	stats_spread(one, 1, &s4);
	stats_spread(one + 1, 1, &s5);
	tap_ok(!stats_within_spread(&s4, &s5), "one run each: no spread, never called indistinguishable");
	stats_spread(runs + 2, 1, &s5);
	tap_ok(!stats_within_spread(&s1, &s5), "a step without a measurement: false");
}

/* No batches: every field of the breakdown is unmeasured, as GD_BREAKDOWN_NONE says. */
static void test_breakdown_none(void)
{
	struct gd_batch_acc acc;
	memset(&acc, 0, sizeof(acc));
	struct gd_breakdown bd, none = GD_BREAKDOWN_NONE;
	memset(&bd, 0, sizeof(bd));
	stats_breakdown(&acc, &bd);
	double got[sizeof(bd) / sizeof(double)], want[sizeof(bd) / sizeof(double)];
	memcpy(got, &bd, sizeof(bd));
	memcpy(want, &none, sizeof(none));
	int nan_both = 0;
	for (size_t i = 0; i < GD_ARRAY_LEN(got); i++)
		nan_both += isnan(got[i]) && isnan(want[i]);
	tap_ok(nan_both == (int)GD_ARRAY_LEN(got),
	       "no batches: all %d breakdown fields NAN, as GD_BREAKDOWN_NONE (%d)", (int)GD_ARRAY_LEN(got),
	       nan_both);
}

int main(void)
{
	test_union_random();
	test_union_cases();
	test_breakdown();
	test_breakdown_none();
	test_rec_busy();
	test_policies();
	test_long_batches();
	test_hist_edges();
	test_hist_percentiles();
	test_hist_records();
	test_overlaps();
	test_spread();
	return tap_done();
}
