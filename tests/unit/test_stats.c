/* test_stats.c: interval union and window clipping against a brute-force reference on
 * random interval sets; gap and breakdown arithmetic on synthetic batch records; batches whose
 * kernels span more than 2^32 ns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/rng.h"
#include "gputop/stats.h"
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
	r.symbols = 1000;
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
	tap_ok(acc.n == 2 && acc.symbols == 2000, "batches and symbols are counted");

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
	tap_ok(acc.ndev == 3 && acc.kgap_n == 4 && fabs(bd.gap_kernel_us - 0.005) < 1e-12 && acc.bgap_n == 0,
	       "an estimated batch counts in the breakdown, not in the gaps");
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
	r.symbols = 1000;
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

int main(void)
{
	test_union_random();
	test_union_cases();
	test_breakdown();
	test_rec_busy();
	test_policies();
	test_long_batches();
	return tap_done();
}
