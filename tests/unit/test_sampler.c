/* test_sampler.c: the profiling policies: which batches are profiled (rounds), how the period
 * adapts to the measured cost, the A/B share, and the estimate that stands in for an
 * unprofiled batch: never over the worker's earlier kernels, never outside the batch's time,
 * and as busy as the round says the device was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "worker/sampler.h"
#include "measure/stats.h"
#include "tap.h"

/* How many of the first n batches the policy profiles. */
static unsigned profiled_of(enum gd_profile p, uint32_t every, unsigned n)
{
	struct gd_sampler s;
	sampler_init(&s, p, every, 1, 1);
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++)
		k += sampler_begin(&s);
	sampler_free(&s);
	return k;
}

static void test_policies(void)
{
	TAP_EQ_U(profiled_of(GD_PROF_FULL, 0, 100), 100, "full profiles every batch");
	TAP_EQ_U(profiled_of(GD_PROF_OFF, 0, 100), 0, "off profiles none");
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 20, 1, 1);
	TAP_EQ_U(s.round, 4, "one lane, one batch in flight: a round is an edge each side and two between");
	sampler_free(&s);
	TAP_EQ_U(profiled_of(GD_PROF_SAMPLED, 20, 100), 20, "sampled 1 in 20: a round of 4 in every 20");
	sampler_init(&s, GD_PROF_SAMPLED, 20, 1, 1);
	bool run = sampler_begin(&s) && sampler_begin(&s) && sampler_begin(&s) && sampler_begin(&s) &&
	           !sampler_begin(&s);
	tap_ok(run, "a round's batches are consecutive");
	sampler_free(&s);
	sampler_init(&s, GD_PROF_SAMPLED, 0, 4, 8);
	TAP_EQ_U(s.round, 2 * 8 + 2 * 4, "4 lanes, 8 in flight: 8 at each edge and two per lane between");
	TAP_EQ_U(s.every, 2 * (24 + 8),
	         "  and the period leaves as many clean batches, clear of both rounds");
	sampler_free(&s);
	sampler_init(&s, GD_PROF_SAMPLED, 3, 1, 1);
	TAP_EQ_U(s.every, 10, "--sample-every shorter than a round and its clear batches is raised to them");
	sampler_free(&s);
}

/* A record of one kernel [ks, ke) of a batch begun at t_gen and seen complete at t_end. */
static struct gd_rec rec_of(uint64_t batch, int64_t t_gen, int64_t ks, int64_t ke, int64_t t_end)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = batch;
	r.items = 1000;
	r.kernels = 1;
	r.t_begin = r.t_gen = t_gen;
	r.t_end = t_end;
	r.flags = GD_REC_DEVTIME;
	int64_t kv[1][2] = { { ks, ke } };
	gd_rec_set_kernels(&r, (const int64_t(*)[2])kv, 1);
	return r;
}

/* A worker whose batches complete `iv` ns apart (`prof` apart in a round and for `inflight`
 * batches after it); each kernel takes the whole interval. Runs n batches; returns the sampler
 * (to be freed). */
static void simulate(struct gd_sampler *s, uint32_t every, uint32_t lanes, uint32_t inflight, int64_t iv,
                     int64_t prof, unsigned n)
{
	sampler_init(s, GD_PROF_SAMPLED, every, lanes, inflight);
	int64_t t = 1000;
	bool seen[64] = { false };
	unsigned since = 1000;
	for (unsigned i = 0; i < n; i++) {
		seen[i % 64] = sampler_begin(s);
		if (i + 1 < inflight)
			continue;
		/* Batch c completes once batch c + inflight - 1 has begun. */
		unsigned c = i + 1 - inflight;
		bool p = seen[c % 64];
		since = p ? 0 : since + 1;
		int64_t d = p || since <= inflight ? prof : iv;
		struct gd_rec r = rec_of(c, t, t, t + d, t + d);
		if (!p)
			sampler_estimate(s, &r, r.t_gen);
		t += d;
		sampler_done(s, &r, p);
	}
}

static void test_adapts(void)
{
	struct gd_sampler s;
	simulate(&s, 0, 1, 1, 1000, 1000, 20000);
	TAP_EQ_U(s.every, SAMPLER_EVERY0, "free profiling: the first period stays (the shortest that fits)");
	tap_ok(s.share == 0, "  and the share measured is 0");
	sampler_free(&s);
	/* A round of 4 and the batch after it take twice as long: 5000 ns lost per period, so
	 * 2% needs a period of 250 or more. */
	simulate(&s, 0, 1, 1, 1000, 2000, 200000);
	TAP_EQ_U(s.every, 256, "profiled batches twice as long: a round every 256");
	tap_ok(s.share > 0 && s.share <= SAMPLER_COST_MAX, "  which costs under 2%% (%.4f)", s.share);
	sampler_free(&s);
	simulate(&s, 0, 1, 1, 1000, 1000000, 2000000);
	TAP_EQ_U(s.every, SAMPLER_EVERY_MAX, "the period is bounded");
	sampler_free(&s);
	simulate(&s, 64, 1, 1, 1000, 3000, 20000);
	/* 5 of 64 completions take 3000: all = (59 x 1000 + 5 x 3000) / 64, clean = 1000. */
	double want = 1 - 1000.0 / ((59 * 1000.0 + 5 * 3000.0) / 64);
	tap_ok(s.every == 64 && fabs(s.share - want) < 1e-3,
	       "--sample-every fixes the period; the share is 1 - clean / all (%.4f, want %.4f)", s.share,
	       want);
	sampler_free(&s);
}

/* The union of the kernel intervals of recs[0..n). */
static int64_t union_of(const struct gd_rec *recs, size_t n, int64_t a, int64_t b)
{
	struct gd_iv *iv = NULL;
	size_t m = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		stats_rec_intervals(&recs[i], &iv, &m, &cap);
	int64_t u = stats_union(iv, m, a, b);
	free(iv);
	return u;
}

static void test_estimate(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, 1, 1);
	struct gd_rec r = rec_of(0, 20000, 0, 0, 20300);
	r.nkiv = 0;
	r.flags = 0;
	tap_ok(!sampler_estimate(&s, &r, r.t_gen) && !(r.flags & GD_REC_DEVTIME),
	       "no round yet: no estimate");
	/* One lane: a round of 4 batches, 1000 ns apart, a kernel of 100 ns ending 50 ns before the
	 * host sees it. */
	for (unsigned i = 0; i < 4; i++) {
		TAP_EQ_U(sampler_begin(&s), 1, "round batch %u is profiled", i);
		int64_t t = 1000 * (i + 1);
		struct gd_rec p = rec_of(i, t, t + 700, t + 800, t + 850);
		sampler_done(&s, &p, true);
	}
	tap_ok(s.have_tmpl && s.squeeze == 1, "a round of one lane: the device ran the kernels alone");
	sampler_begin(&s);
	r = rec_of(4, 6000, 0, 0, 6850);
	r.nkiv = 0;
	r.flags = 0;
	tap_ok(sampler_estimate(&s, &r, r.t_gen) && (r.flags & GD_REC_ESTIMATED) &&
	           (r.flags & GD_REC_DEVTIME),
	       "an estimate is marked as one");
	tap_ok(gd_rec_kernel_start(&r) == 6700 && gd_rec_kernel_end(&r) == 6800 && r.kbusy_ns == 100,
	       "the template's kernel, ending as long before the host saw it end");
	tap_ok(gd_rec_valid(&r), "the estimate is a valid record");
	struct gd_rec early = rec_of(5, 7790, 0, 0, 7850);
	early.nkiv = 0;
	sampler_estimate(&s, &early, early.t_gen);
	tap_ok(gd_rec_kernel_start(&early) >= 7790 && gd_rec_kernel_end(&early) <= 7850,
	       "an estimate never starts before its input existed, nor ends after the host saw it");
	struct gd_sampler off;
	sampler_init(&off, GD_PROF_OFF, 0, 1, 1);
	struct gd_rec none = rec_of(6, 8000, 0, 0, 8850);
	none.nkiv = 0;
	none.flags = 0;
	struct gd_rec prof = rec_of(0, 1000, 1700, 1800, 1850);
	sampler_begin(&off);
	sampler_done(&off, &prof, false);
	tap_ok(!sampler_estimate(&off, &none, none.t_gen) && none.flags == 0 && !off.have_tmpl,
	       "--profile off estimates nothing and keeps no template");
	sampler_free(&off);
	sampler_free(&s);
}

/* Two lanes whose kernels overlap: each batch's kernel takes 200 ns, two run at once, and a
 * batch completes every 100 ns: the device is always busy. The estimates must say so: their
 * union covers the time, and none overlaps another (the old estimate stacked them, and said
 * the device was half idle). */
static void test_lanes(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, 2, 4);
	enum { N = 2000 };
	static struct gd_rec recs[N];
	bool p[N];
	for (unsigned i = 0; i < N; i++) {
		p[i] = sampler_begin(&s);
		int64_t end = 100000 + 100 * (int64_t)i;
		recs[i] = rec_of(i, end - 400, end - 200, end, end + 10);
		if (!p[i]) {
			recs[i].nkiv = 0;
			recs[i].flags = 0;
			sampler_estimate(&s, &recs[i], recs[i].t_gen);
		}
		sampler_done(&s, &recs[i], p[i]);
	}
	tap_ok(s.have_tmpl && fabs(s.squeeze - 0.5) < 0.02, "two lanes overlapping fully: squeeze 0.5 (%.3f)",
	       s.squeeze);
	int64_t a = 100000 + 100 * (N / 2), b = 100000 + 100 * (N - 10);
	double busy = (double)union_of(recs, N, a, b) / (double)(b - a);
	tap_ok(busy > 0.95 && busy <= 1.0, "estimates of a saturated device say it is busy (%.3f)", busy);
	bool overlap = false, outside = false;
	for (unsigned i = 1; i < N; i++) {
		if (!(recs[i].flags & GD_REC_ESTIMATED))
			continue;
		if (recs[i - 1].nkiv && gd_rec_kernel_start(&recs[i]) < gd_rec_kernel_end(&recs[i - 1]) &&
		    (recs[i - 1].flags & GD_REC_ESTIMATED))
			overlap = true;
		if (gd_rec_kernel_start(&recs[i]) < recs[i].t_gen ||
		    gd_rec_kernel_end(&recs[i]) > recs[i].t_end)
			outside = true;
	}
	tap_ok(!overlap, "no estimate overlaps the one before it");
	tap_ok(!outside, "every estimate lies between its input and its completion");
	sampler_free(&s);
}

/* A host-bound worker: one lane, the kernel takes 100 ns of every 1000: estimates keep the
 * idle time (busy 0.1), they do not fill it. */
static void test_idle(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, 1, 1);
	enum { N = 500 };
	static struct gd_rec recs[N];
	for (unsigned i = 0; i < N; i++) {
		bool p = sampler_begin(&s);
		int64_t t = 1000 * (int64_t)(i + 1);
		recs[i] = rec_of(i, t, t + 850, t + 950, t + 1000);
		if (!p) {
			recs[i].nkiv = 0;
			recs[i].flags = 0;
			sampler_estimate(&s, &recs[i], recs[i].t_gen);
		}
		sampler_done(&s, &recs[i], p);
	}
	double busy = (double)union_of(recs, N, 100000, 480000) / 380000.0;
	tap_ok(fabs(busy - 0.1) < 0.005, "a host-bound worker's estimates keep its idle time (%.3f)", busy);
	sampler_free(&s);
}

/* Sampled against full at one lane: the same timeline of batches (generation times varying by
 * +-50% from batch to batch, kernel times by +-10%, seeded), once with every batch measured, once with the
 * sampler's estimates outside its rounds: device busy within 3 points. */
static double one_lane_busy(bool sampled, int64_t gen_mean, int64_t kern_mean)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, 1, 1);
	enum { N = 4000 };
	static struct gd_rec recs[N];
	uint64_t x = 88172645463325252ull; /* xorshift64: the same timeline for both */
	int64_t t = 1000;
	for (unsigned i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int64_t gen = gen_mean / 2 + (int64_t)(x % (uint64_t)gen_mean);
		int64_t kern = kern_mean * 9 / 10 + (int64_t)((x >> 20) % (uint64_t)(kern_mean / 5));
		bool p = sampler_begin(&s);
		int64_t tg = t + gen, ks = tg + 30, ke = ks + kern, te = ke + 20;
		recs[i] = rec_of(i, tg, ks, ke, te);
		if (sampled && !p) {
			recs[i].nkiv = 0;
			recs[i].flags = 0;
			sampler_estimate(&s, &recs[i], recs[i].t_gen);
		}
		sampler_done(&s, &recs[i], p || !sampled);
		t = te;
	}
	int64_t a = recs[N / 10].t_end, b = recs[N - 1].t_end;
	sampler_free(&s);
	return (double)union_of(recs, N, a, b) / (double)(b - a);
}

static void test_sampled_vs_full(void)
{
	static const int64_t cases[][2] = { { 900, 100 }, { 500, 500 }, { 100, 900 }, { 10, 1000 } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double full = one_lane_busy(false, cases[i][0], cases[i][1]);
		double smp = one_lane_busy(true, cases[i][0], cases[i][1]);
		tap_ok(fabs(full - smp) < 0.03,
		       "one lane, generation ~%lld ns, kernels ~%lld ns: sampled %.3f, full %.3f",
		       (long long)cases[i][0], (long long)cases[i][1], smp, full);
	}
}

/* A device-bound worker (one lane) whose kernels take twice as long when profiled (events
 * stretch kernels): the estimates hold more work than there was time for, so the device reads
 * busy throughout, never less. */
static void test_stretched(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 64, 1, 1);
	enum { N = 3000 };
	static struct gd_rec recs[N];
	int64_t t = 1000;
	for (unsigned i = 0; i < N; i++) {
		bool p = sampler_begin(&s);
		int64_t d = p ? 2000 : 1000;
		recs[i] = rec_of(i, t, t + 100, t + d - 50, t + d);
		if (!p) {
			recs[i].nkiv = 0;
			recs[i].flags = 0;
			sampler_estimate(&s, &recs[i], t);
		}
		sampler_done(&s, &recs[i], p);
		t += d;
	}
	int64_t a = recs[N / 2].t_end, b = recs[N - 2].t_end;
	double busy = (double)union_of(recs, N, a, b) / (double)(b - a);
	tap_ok(busy > 0.98 && busy <= 1.0, "profiled kernels twice as long: the device reads busy (%.3f)",
	       busy);
	sampler_free(&s);
}

/* One lane, device-bound, each batch two kernels of 30 ns with a launch gap of 40 ns between
 * them: the gap is idle time (no other lane fills it), so the device is 60% busy, and the
 * estimates say so; each estimate's kernels lie end to end (a gap inside an estimate would be
 * idle time of its own making). */
static void test_launch_gaps(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 64, 1, 1);
	enum { N = 3000 };
	static struct gd_rec recs[N];
	bool apart = false;
	for (unsigned i = 0; i < N; i++) {
		bool p = sampler_begin(&s);
		int64_t t = 1000 + 100 * (int64_t)i;
		recs[i] = rec_of(i, 0, 0, 0, t + 110);
		int64_t kv[2][2] = { { t, t + 30 }, { t + 70, t + 100 } };
		recs[i].kernels = 2;
		gd_rec_set_kernels(&recs[i], (const int64_t(*)[2])kv, 2);
		if (!p) {
			recs[i].nkiv = 0;
			recs[i].flags = 0;
			sampler_estimate(&s, &recs[i], 0); /* queued long before: work was waiting */
			int64_t k0[2], k1[2];
			gd_rec_kiv(&recs[i], 0, k0);
			if (recs[i].nkiv == 2 && (gd_rec_kiv(&recs[i], 1, k1), k1[0] != k0[1]))
				apart = true;
		}
		sampler_done(&s, &recs[i], p);
	}
	int64_t a = 1000 + 100 * (N / 2), b = 1000 + 100 * (N - 10);
	double busy = (double)union_of(recs, N, a, b) / (double)(b - a);
	tap_ok(fabs(busy - 0.6) < 0.03, "launch gaps on one lane are idle: the estimates say 0.6 (%.3f)",
	       busy);
	tap_ok(!apart, "an estimate's kernels lie end to end");
	sampler_free(&s);
}

int main(void)
{
	test_policies();
	test_adapts();
	test_estimate();
	test_lanes();
	test_idle();
	test_sampled_vs_full();
	test_stretched();
	test_launch_gaps();
	return tap_done();
}
