/* test_collect.c: the collector on its own, with hand-made workers and records: what waits for
 * its window, the window's figures (rates, busy times, the breakdown and gaps, all worked out
 * by hand), totals from the supervisor's counts, a record older than the open window counted
 * as lost, a window that was not observed (no rates, its records lost), a reset, forgetting a
 * worker, the per-device and overall sums of several devices, the count of estimated records
 * behind the device figures, batches of several lanes that overlap (no negative gap), and
 * windows in which no batch completed (not measured, unless no worker was at work). No clock is
 * read: every time is a literal. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "measure/collect.h"
#include "gputop/common.h"
#include "tap.h"

#define MS ((int64_t)1000000)
#define T0 ((int64_t)1000 * GD_NS_PER_S) /* the run's start */

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1);
}

/* Compares a figure with the value worked out by hand, showing both. */
#define TAP_NEAR(got, want, ...)                                       \
	do {                                                           \
		double g_ = (got), w_ = (want);                        \
		if (!tap_ok(near(g_, w_), __VA_ARGS__))                \
			printf("#   got %.12g, want %.12g\n", g_, w_); \
	} while (0)

static struct gd_device device(int p, int d)
{
	struct gd_device dev;
	memset(&dev, 0, sizeof(dev));
	dev.platform = p;
	dev.index = d;
	device_ref_text(dev.ref, sizeof(dev.ref), p, d);
	return dev;
}

static struct gd_row_info worker(unsigned id, int dev)
{
	struct gd_row_info w;
	memset(&w, 0, sizeof(w));
	w.id = id;
	w.pid = (pid_t)(4000 + id);
	w.device = dev;
	w.alive = w.active = true;
	w.state = GD_ST_RUNNING;
	w.timebase = GD_TB_OFFSET;
	return w;
}

/* Batch b of one kernel [ks, ke), all times in ms after T0: generation [begin, gen), the
 * output on the host at end. items per batch, device times present. */
static struct gd_rec batch(uint64_t b, int64_t begin, int64_t gen, int64_t ks, int64_t ke, int64_t end,
                           uint32_t items)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = b;
	r.items = items;
	r.kernels = 1;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = T0 + begin * MS;
	r.t_gen = T0 + gen * MS;
	r.t_end = T0 + end * MS;
	const int64_t kv[1][2] = { { T0 + ks * MS, T0 + ke * MS } };
	gd_rec_set_kernels(&r, kv, 1);
	r.sample_every = 8;
	r.share_ppm = 250000;
	return r;
}

/* A batch with host times only (--profile off). */
static struct gd_rec host_batch(uint64_t b, int64_t begin, int64_t end, uint32_t items)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = b;
	r.items = items;
	r.kernels = 1;
	r.t_begin = T0 + begin * MS;
	r.t_gen = r.t_begin;
	r.t_end = T0 + end * MS;
	r.share_ppm = GD_SHARE_NONE;
	return r;
}

/* One worker, one device, four windows of 1 s: two observed, one that was not, one after. */
static void test_windows(void)
{
	struct gd_device devs[1] = { device(0, 0) };
	struct gd_collector *c = collect_new(T0, true, devs, 1);
	struct gd_row_info w = worker(1, 0);
	struct gd_frame f;
	memset(&f, 0, sizeof(f));

	/* Window 1 [0, 1000) ms: batches 0 and 1 complete in it, batch 2 completes in the next. */
	struct gd_rec r0 = batch(0, 100, 150, 200, 400, 450, 1000000);
	struct gd_rec r1 = batch(1, 450, 500, 600, 800, 850, 1000000);
	struct gd_rec r2 = batch(2, 850, 900, 950, 1200, 1250, 1000000);
	collect_push(c, &w, &r0);
	collect_push(c, &w, &r1);
	collect_push(c, &w, &r2);
	TAP_EQ_U(collect_pending(c, 1), 3, "three records wait for their window");
	TAP_EQ_U(collect_pending(c, 99), 0, "a worker never seen has none waiting");
	w.batches = 3; /* the segment's own totals, as the supervisor read them */
	w.items = 3000000;
	collect_window(c, &w, 1, T0, T0 + 1000 * MS, &f);
	const struct gd_sample *s = &f.workers[0];
	tap_ok(f.observed && f.nworkers == 1 && s->id == 1 && s->pid == 4001 && s->device == 0 &&
	           s->state == GD_ST_RUNNING,
	       "window 1: one sample, the worker's id, pid, device and state");
	TAP_NEAR(f.t_s, 1.0, "window 1 ends 1 s after the start");
	TAP_NEAR(f.window_s, 1.0, "window 1 is 1 s long");
	TAP_EQ_U(s->win_batches, 2, "window 1: the two batches that completed in it");
	TAP_EQ_U(collect_pending(c, 1), 1, "the batch that completes later still waits");
	tap_ok(s->batches == 3 && s->items == 3000000 && s->lost == 0,
	       "totals are the supervisor's counts, not the records'");
	TAP_NEAR(s->rate, 2.0, "rate: 2e6 items in 1 s = 2 Mbit/s");
	/* Kernels [200, 400), [600, 800) and [950, 1200) clipped to 1000: 450 ms of 1000. */
	TAP_NEAR(s->kernel_busy, 0.45, "kernel busy: every kernel interval inside the window, clipped");
	TAP_NEAR(f.device_busy, 0.45, "device busy: the union of the intervals");
	TAP_NEAR(f.headroom, 2.0 / 0.45, "headroom: the rate over the busy share");
	TAP_NEAR(s->gen_busy, 0.1, "generation busy: 50 + 50 ms of 1000");
	TAP_NEAR(s->bd.gen_us, 50000, "mean generation: 50 ms");
	TAP_NEAR(s->bd.kernel_us, 200000, "mean kernel span: 200 ms");
	TAP_NEAR(s->bd.other_us, 125000, "mean other: batch less generation and kernel, (100 + 150 ms) / 2");
	TAP_NEAR(s->bd.gap_batch_us, 200000,
	         "gap between batches 0 and 1: 400 to 600 ms (the first not measured)");
	tap_ok(isnan(s->bd.gap_kernel_us), "one kernel per batch: no gap between kernels");
	tap_ok(s->sample_every == 8 && near(s->observer_share, 0.25),
	       "the sampling period and the observer's share of the latest record");
	tap_ok(f.agg.device == -1 && f.agg.win_batches == 2 && near(f.agg.rate, 2.0) && f.agg.batches == 3 &&
	           f.procs == 1,
	       "the aggregate: the one worker's figures");
	tap_ok(f.ndevs == 1 && f.devs[0].agg.device == 0 && near(f.devs[0].agg.rate, 2.0) &&
	           near(f.devs[0].device_busy, 0.45) && f.devs[0].procs == 1 && !f.devs[0].busy_from_sum,
	       "the device's aggregate: the same, its busy from the union");
	tap_ok(strcmp(frame_device_ref(&f, 0), "0:0") == 0 && strcmp(frame_device_ref(&f, -1), "all") == 0,
	       "frame_device_ref: the device's P:D, \"all\" for the aggregate");

	/* Window 2 [1000, 2000) ms: batch 2 (waiting) and batch 3. */
	struct gd_rec r3 = batch(3, 1250, 1300, 1500, 1700, 1900, 1000000);
	collect_push(c, &w, &r3);
	w.batches = 4;
	w.items = 4000000;
	collect_window(c, &w, 1, T0, T0 + 2000 * MS, &f);
	s = &f.workers[0];
	TAP_EQ_U(s->win_batches, 2, "window 2: the waiting batch and the new one");
	TAP_NEAR(s->rate, 2.0, "window 2: 2 Mbit/s");
	TAP_NEAR(s->kernel_busy, 0.4, "window 2: [1000, 1200) and [1500, 1700) busy");
	TAP_NEAR(s->bd.gap_batch_us, 225000, "window 2: gaps 800 to 950 and 1200 to 1500 ms, mean 225 ms");
	TAP_NEAR(f.t_s, 2.0, "window 2 ends at 2 s");
	TAP_EQ_U(collect_pending(c, 1), 0, "nothing waits");

	/* A record that completed before the open window [2000, ...) was reported with no window:
	 * lost, like the reader's own losses. */
	struct gd_rec r4 = batch(4, 1900, 1910, 1920, 1940, 1950, 1000000);
	collect_push(c, &w, &r4);
	TAP_EQ_U(collect_pending(c, 1), 0, "a record older than the open window does not wait");

	/* Window 3 [2000, 3000) ms was not observed: batch 5 completed in it, batch 6 after it. */
	struct gd_rec r5 = batch(5, 2000, 2100, 2200, 2400, 2500, 1000000);
	struct gd_rec r6 = batch(6, 2500, 2600, 2800, 3100, 3200, 1000000);
	collect_push(c, &w, &r5);
	collect_push(c, &w, &r6);
	w.batches = 7;
	w.items = 7000000;
	w.lost = 2; /* the reader's */
	collect_skip(c, &w, 1, T0, T0 + 3000 * MS, &f);
	s = &f.workers[0];
	tap_ok(!f.observed && isnan(s->rate) && isnan(s->kernel_busy) && isnan(s->gen_busy) &&
	           isnan(s->bd.gen_us) && s->win_batches == 0,
	       "an unobserved window: nothing measured (NAN), no batch counted in it");
	tap_ok(isnan(f.agg.rate) && isnan(f.devs[0].agg.rate) && isnan(f.device_busy) &&
	           isnan(f.devs[0].device_busy) && isnan(f.headroom),
	       "an unobserved window: the aggregates' rates and busy NAN too");
	TAP_EQ_U(s->lost, 4, "lost: the reader's 2, the late record and the record of the unobserved window");
	tap_ok(s->batches == 7 && s->items == 7000000 && f.agg.batches == 7 && f.agg.lost == 4,
	       "an unobserved window still carries the totals");
	TAP_NEAR(f.window_s, 1.0, "the unobserved window is 1 s long");
	TAP_EQ_U(collect_pending(c, 1), 1, "the record that completes after it still waits");

	/* Window 4 [3000, 4000) ms: batch 6 and batch 7. No gap is measured across the unobserved
	 * window: only 7's, from 6. */
	struct gd_rec r7 = batch(7, 3200, 3300, 3400, 3600, 3700, 1000000);
	collect_push(c, &w, &r7);
	w.batches = 8;
	w.items = 8000000;
	collect_window(c, &w, 1, T0, T0 + 4000 * MS, &f);
	s = &f.workers[0];
	tap_ok(f.observed && s->win_batches == 2 && near(s->rate, 2.0) && s->lost == 4,
	       "after it: measured again, its losses kept");
	TAP_NEAR(s->kernel_busy, 0.3, "window 4: [3000, 3100) and [3400, 3600) busy");
	TAP_NEAR(s->bd.gap_batch_us, 300000, "window 4: only the gap from batch 6 to 7, 3100 to 3400 ms");

	/* A reset forgets what was measured and counts from the supervisor's figures now. */
	struct gd_rec r8 = batch(8, 3700, 3800, 3900, 4100, 4200, 1000000);
	collect_push(c, &w, &r8);
	w.batches = 9;
	w.items = 9000000;
	collect_reset(c, &w, 1, T0 + 4500 * MS);
	TAP_EQ_U(collect_pending(c, 1), 0, "a reset forgets the waiting records");
	struct gd_rec r9 = batch(9, 4500, 4600, 4700, 4800, 4900, 500000);
	collect_push(c, &w, &r9);
	w.batches = 10;
	w.items = 9500000;
	collect_window(c, &w, 1, T0, T0 + 5000 * MS, &f);
	s = &f.workers[0];
	tap_ok(s->batches == 1 && s->items == 500000 && s->lost == 0 && s->win_batches == 1,
	       "after a reset: totals and losses count from it");
	TAP_NEAR(f.window_s, 0.5, "the window after a reset starts at the reset");
	TAP_NEAR(s->rate, 1.0, "5e5 items in 0.5 s = 1 Mbit/s");
	tap_ok(isnan(s->bd.gap_batch_us), "no gap measured from a batch that was not seen (8, forgotten)");

	/* Forgetting a worker drops what waits for it; a record after that starts afresh. */
	struct gd_rec r10 = batch(10, 4900, 4950, 5000, 5100, 5600, 500000);
	collect_push(c, &w, &r10);
	TAP_EQ_U(collect_pending(c, 1), 1, "one record waits");
	collect_forget(c, &w);
	TAP_EQ_U(collect_pending(c, 1), 0, "forgotten: nothing waits");
	collect_push(c, &w, &r10);
	collect_window(c, &w, 1, T0, T0 + 6000 * MS, &f);
	TAP_EQ_U(f.workers[0].batches, 10, "forgotten: its baselines are gone, totals are the supervisor's");

	collect_frame_free(&f);
	collect_free(c);
}

/* Two devices, three workers (one on each, one more on the first, one ended), --profile off,
 * a window of 0.5 s. */
static void test_devices(void)
{
	struct gd_device devs[2] = { device(0, 0), device(0, 1) };
	struct gd_collector *c = collect_new(T0, false, devs, 2);
	struct gd_row_info w[4] = { worker(1, 0), worker(2, 1), worker(3, 0), worker(4, 7) };
	w[2].alive = w[2].active = false;
	w[2].state = GD_ST_EXITED;
	w[1].timebase = GD_TB_NONE;
	w[0].batches = 5, w[0].items = 5000000, w[0].lost = 1;
	w[1].batches = 2, w[1].items = 1000000;
	w[2].batches = 1, w[2].items = 750000, w[2].lost = 2;
	struct gd_rec a = host_batch(0, 0, 100, 500000), b = host_batch(1, 100, 300, 500000);
	struct gd_rec d = host_batch(0, 50, 250, 125000);
	d.kernels = 2; /* a user kernel's batch: items per launch, times launches */
	d.flags |= GD_REC_PER_LAUNCH;
	struct gd_rec e = host_batch(0, 0, 400, 750000);
	collect_push(c, &w[0], &a);
	collect_push(c, &w[0], &b);
	collect_push(c, &w[1], &d);
	collect_push(c, &w[2], &e);
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	collect_window(c, w, 4, T0, T0 + 500 * MS, &f);
	TAP_NEAR(f.window_s, 0.5, "a window of 0.5 s");
	tap_ok(f.nworkers == 4 && f.workers[0].id == 1 && f.workers[1].id == 2 && f.workers[2].id == 3 &&
	           f.workers[3].id == 4,
	       "one sample per worker, in the supervisor's order");
	tap_ok(near(f.workers[0].rate, 2.0) && near(f.workers[1].rate, 0.5) && near(f.workers[2].rate, 1.5),
	       "rates: 1e6, 2 x 125000 and 750000 items in 0.5 s");
	tap_ok(f.workers[3].device == 0, "a device index out of range counts on the first device");
	tap_ok(f.workers[1].device == 1 && strcmp(frame_device_ref(&f, f.workers[1].device), "0:1") == 0,
	       "each worker names its device");
	TAP_NEAR(f.devs[0].agg.rate, 3.5, "device 0:0: the sum of its workers' rates");
	TAP_NEAR(f.devs[1].agg.rate, 0.5, "device 0:1: its one worker's rate");
	TAP_NEAR(f.agg.rate, 4.0, "overall: the sum of every worker's");
	tap_ok(f.devs[0].agg.win_batches == 3 && f.devs[1].agg.win_batches == 1 && f.agg.win_batches == 4,
	       "window batches per device and overall");
	tap_ok(f.devs[0].agg.batches == 6 && f.devs[0].agg.items == 5750000 && f.devs[1].agg.batches == 2 &&
	           f.devs[1].agg.items == 1000000 && f.agg.batches == 8 && f.agg.items == 6750000,
	       "totals per device and overall");
	tap_ok(f.devs[0].agg.lost == 3 && f.devs[1].agg.lost == 0 && f.agg.lost == 3,
	       "losses per device and overall");
	tap_ok(f.devs[0].procs == 2 && f.devs[1].procs == 1 && f.procs == 3,
	       "live workers per device and overall (the ended one not counted)");
	tap_ok(strcmp(f.devs[0].ref, "0:0") == 0 && strcmp(f.devs[1].ref, "0:1") == 0 &&
	           f.devs[0].agg.device == 0 && f.devs[1].agg.device == 1 && f.agg.device == -1,
	       "each device's aggregate names it; the overall one is -1");
	tap_ok(isnan(f.workers[0].kernel_busy) && isnan(f.devs[0].device_busy) &&
	           isnan(f.devs[1].device_busy) && isnan(f.device_busy) && isnan(f.headroom) &&
	           isnan(f.devs[0].headroom),
	       "--profile off: no busy share and no headroom anywhere");
	tap_ok(isnan(f.workers[0].observer_share) && f.workers[0].sample_every == 0,
	       "no sampling: no period and no observer share");
	TAP_NEAR(f.devs[0].agg.bd.gen_us, 0, "host-only batches still give the generation time (none here)");
	tap_ok(f.timebase == GD_TB_OFFSET, "the frame's timebase: a worker's that has one");
	collect_frame_free(&f);
	collect_free(c);
}

/* Estimated device times (--profile sampled, batches not profiled): each sample counts the
 * records its device figures rest on and the estimated ones among them, and so do the
 * aggregates; a window of measured records only is not marked. */
static void test_estimated(void)
{
	struct gd_device devs[1] = { device(0, 0) };
	struct gd_collector *c = collect_new(T0, true, devs, 1);
	struct gd_row_info w[2] = { worker(1, 0), worker(2, 0) };
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	/* Worker 1: a measured batch and an estimated one, and one completing in the next window
	 * whose kernel runs in this one (counted: busy rests on it), itself estimated. Worker 2:
	 * measured only, plus one whose kernel is wholly in the next window (not counted). */
	struct gd_rec r[5] = {
		batch(0, 0, 10, 20, 100, 150, 1000),        batch(1, 150, 160, 170, 300, 350, 1000),
		batch(2, 350, 360, 900, 1100, 1200, 1000),  batch(0, 0, 10, 20, 100, 150, 1000),
		batch(1, 150, 160, 1100, 1300, 1400, 1000),
	};
	r[1].flags |= GD_REC_ESTIMATED;
	r[2].flags |= GD_REC_ESTIMATED;
	r[4].flags |= GD_REC_ESTIMATED;
	for (int i = 0; i < 5; i++)
		collect_push(c, &w[i < 3 ? 0 : 1], &r[i]);
	collect_window(c, w, 2, T0, T0 + 1000 * MS, &f);
	const struct gd_sample *a = &f.workers[0], *b = &f.workers[1];
	tap_ok(a->win_devrecs == 3 && a->win_estimated == 2 && sample_estimated(a),
	       "worker 1: 3 records behind its device figures, 2 estimated (%llu, %llu): marked",
	       (unsigned long long)a->win_devrecs, (unsigned long long)a->win_estimated);
	tap_ok(b->win_devrecs == 1 && b->win_estimated == 0 && !sample_estimated(b),
	       "worker 2: 1 record, measured (a later one whose kernel runs after the window is not "
	       "counted): not marked (%llu, %llu)",
	       (unsigned long long)b->win_devrecs, (unsigned long long)b->win_estimated);
	tap_ok(f.agg.win_devrecs == 4 && f.agg.win_estimated == 2 && f.devs[0].agg.win_estimated == 2 &&
	           sample_estimated(&f.agg) && sample_estimated(&f.devs[0].agg),
	       "the aggregates sum them: marked");
	collect_skip(c, w, 2, T0, T0 + 2000 * MS, &f);
	tap_ok(f.workers[0].win_devrecs == 0 && !sample_estimated(&f.workers[0]) && !sample_estimated(&f.agg),
	       "an unobserved window: nothing counted, nothing marked");
	collect_frame_free(&f);
	collect_free(c);
}

/* Every field of a breakdown is >= 0 or NAN. */
static bool none_negative(const struct gd_breakdown *bd)
{
	double v[sizeof(*bd) / sizeof(double)];
	memcpy(v, bd, sizeof(v));
	for (size_t i = 0; i < GD_ARRAY_LEN(v); i++)
		if (v[i] < 0)
			return false;
	return true;
}

/* One worker with several lanes: its batches overlap on the device. The gap before a batch is
 * from the latest END of the earlier ones, clipped at 0; the overlap is counted apart. */
static void test_lanes(void)
{
	struct gd_device devs[1] = { device(0, 0) };
	struct gd_collector *c = collect_new(T0, true, devs, 1);
	struct gd_row_info w = worker(1, 0);
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	/* Kernels [100, 700), [300, 900), [500, 600), [800, 1100), [1200, 1300) ms. */
	const int64_t k[5][2] = { { 100, 700 }, { 300, 900 }, { 500, 600 }, { 800, 1100 }, { 1200, 1300 } };
	for (uint64_t b = 0; b < 5; b++) {
		struct gd_rec r =
		    batch(b, k[b][0] - 50, k[b][0] - 40, k[b][0], k[b][1], k[b][1] + 10, 1000000);
		collect_push(c, &w, &r);
	}
	w.batches = 5;
	w.items = 5000000;
	collect_window(c, &w, 1, T0, T0 + 2000 * MS, &f);
	const struct gd_sample *s = &f.workers[0];
	/* From the latest END so far: 300 - 700, 500 - 900, 800 - 900, 1200 - 1100 ms. Batch 3 starts
	 * after batch 2 ended, but batch 1 still ran: no idle time. */
	TAP_NEAR(s->bd.gap_batch_us, 25000,
	         "lanes: gap_batch_us is the mean idle time, (0 + 0 + 0 + 100 ms) / 4");
	TAP_NEAR(
	    s->bd.batch_overlap_us, 225000,
	    "lanes: batch_overlap_us the mean overlap with earlier batches, (400 + 400 + 100 + 0 ms) / 4");
	tap_ok(s->bd.gap_batch_p50_us == 0 && s->bd.gap_batch_p99_us >= 0 && f.agg.bd.gap_batch_p50_us == 0,
	       "lanes: the gap percentiles are not negative (p50 %.1f, p99 %.1f us)", s->bd.gap_batch_p50_us,
	       s->bd.gap_batch_p99_us);
	tap_ok(none_negative(&s->bd) && none_negative(&f.agg.bd) && none_negative(&f.devs[0].agg.bd),
	       "lanes: no breakdown field of the worker, the device or the aggregate is negative");
	TAP_NEAR(f.device_busy, 0.55,
	         "lanes: device busy is the union, [100, 1100) and [1200, 1300): 1100 of 2000 ms");
	collect_frame_free(&f);
	collect_free(c);
}

/* A window in which a working worker completed no batch measured nothing: no rate, no busy
 * share, no headroom; not 0. A paused worker, or no worker, has a rate of 0. */
static void test_unmeasured(void)
{
	struct gd_device devs[1] = { device(0, 0) };
	struct gd_collector *c = collect_new(T0, true, devs, 1);
	struct gd_row_info w = worker(1, 0);
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	/* A batch of 2.5 s: nothing completes in window 1 [0, 1000) ms. */
	collect_window(c, &w, 1, T0, T0 + 1000 * MS, &f);
	const struct gd_sample *s = &f.workers[0];
	tap_ok(f.observed && s->win_batches == 0 && isnan(s->rate) && isnan(s->kernel_busy) &&
	           isnan(s->gen_busy),
	       "a running worker that completed no batch: its rate and busy not measured (NAN), not 0");
	tap_ok(isnan(f.agg.rate) && isnan(f.devs[0].agg.rate) && isnan(f.device_busy) &&
	           isnan(f.devs[0].device_busy) && isnan(f.headroom) && isnan(f.devs[0].headroom),
	       "and so are the device's and the aggregate's rate, busy and headroom");
	struct gd_rec r0 = batch(0, 500, 600, 700, 3000, 3010, 1000000);
	struct gd_rec r1 = batch(1, 3010, 3020, 3030, 3500, 3510, 1000000);
	collect_push(c, &w, &r0);
	collect_push(c, &w, &r1);
	collect_window(c, &w, 1, T0, T0 + 2000 * MS, &f);
	tap_ok(isnan(f.workers[0].rate) && isnan(f.agg.rate),
	       "window 2: still no batch completed (the one read ends later): not measured");
	collect_window(c, &w, 1, T0, T0 + 4000 * MS, &f);
	tap_ok(f.workers[0].win_batches == 2 && near(f.workers[0].rate, 1.0) && near(f.agg.rate, 1.0) &&
	           !isnan(f.device_busy),
	       "window 3: two batches, 1 Mbit/s, measured again");
	w.state = GD_ST_PAUSED;
	collect_window(c, &w, 1, T0, T0 + 5000 * MS, &f);
	tap_ok(f.workers[0].rate == 0 && f.agg.rate == 0 && f.device_busy == 0,
	       "a paused worker runs nothing: a rate of 0 and busy 0, measured");
	collect_window(c, &w, 0, T0, T0 + 6000 * MS, &f);
	tap_ok(f.agg.rate == 0 && f.device_busy == 0, "no worker: a rate of 0");
	collect_frame_free(&f);
	collect_free(c);
}

/* The counters Prometheus takes rate() of (gd_counters): since the start, never reset, each the
 * sum of the windows' own figures; a device keeps what its forgotten workers counted; a phase
 * that a window did not measure (an estimated batch) waits for the next window that does. */
static void test_counters(void)
{
	struct gd_device devs[1] = { device(0, 0) };
	struct gd_collector *c = collect_new(T0, true, devs, 1);
	struct gd_row_info w[2] = { worker(1, 0), worker(2, 0) };
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	double busy_logged = 0; /* device_busy x window_s, as a reader of the log would sum them */
	/* Window 1 [0, 1000) ms: worker 1's batches 0 and 1, kernels [200, 400) and [600, 800),
	 * 50 ms of generation each; worker 2 still starting. */
	w[1].state = GD_ST_STARTING;
	struct gd_rec r0 = batch(0, 100, 150, 200, 400, 450, 1000000);
	struct gd_rec r1 = batch(1, 450, 500, 600, 800, 850, 1000000);
	collect_push(c, &w[0], &r0);
	collect_push(c, &w[0], &r1);
	w[0].batches = 2, w[0].items = 2000000, w[0].lost = 1;
	collect_window(c, w, 2, T0, T0 + 1000 * MS, &f);
	busy_logged += f.devs[0].device_busy * f.window_s;
	const struct gd_counters *t = &f.workers[0].tot;
	TAP_NEAR(t->kernel_s, 0.4, "window 1: the worker's kernel seconds, 2 x 200 ms");
	TAP_NEAR(t->phase_s[GD_PHASE_GEN], 0.1, "generation seconds: 2 x 50 ms");
	TAP_NEAR(t->phase_s[GD_PHASE_KERNEL], 0.4, "kernel phase seconds: 2 x 200 ms");
	TAP_NEAR(t->phase_s[GD_PHASE_OTHER], 0.25, "other: the rest of the wall times, 100 + 150 ms");
	TAP_NEAR(t->phase_s[GD_PHASE_H2D], 0, "no copy: 0 s, counted (device times measured)");
	tap_ok(t->bgap.n == 1 && t->bgap.sum_ns == 200 * MS && t->bgap.le[16] == 1 && t->kgap.n == 0,
	       "one gap between batches, 200 ms, under the 250 ms bound; no gap between kernels");
	const struct gd_counters *d = &f.devs[0].agg.tot;
	tap_ok(d->items == 2000000 && d->batches == 2 && d->lost == 1 && near(d->busy_s, 0.4),
	       "the device's counters: items, batches, lost, busy seconds");

	/* The r key: the log's totals count again, the counters do not. */
	collect_reset(c, w, 2, T0 + 1000 * MS);
	/* Window 2 [1000, 2000): worker 1's batch 2, kernel [1100, 1300); worker 2's first batch,
	 * estimated (not profiled), kernel [1400, 1600). */
	w[1].state = GD_ST_RUNNING;
	struct gd_rec r2 = batch(2, 1000, 1050, 1100, 1300, 1350, 1000000);
	struct gd_rec e0 = batch(0, 1300, 1350, 1400, 1600, 1650, 1000000);
	e0.flags |= GD_REC_ESTIMATED;
	collect_push(c, &w[0], &r2);
	collect_push(c, &w[1], &e0);
	w[0].batches = 3, w[0].items = 3000000;
	w[1].batches = 1, w[1].items = 1000000;
	collect_window(c, w, 2, T0, T0 + 2000 * MS, &f);
	busy_logged += f.devs[0].device_busy * f.window_s;
	tap_ok(f.workers[0].batches == 1 && f.workers[0].tot.batches == 3 &&
	           f.workers[0].tot.items == 3000000 && f.workers[0].tot.lost == 1,
	       "after a reset: the log's totals count from it, the counters from the start");
	TAP_NEAR(f.workers[1].tot.kernel_s, 0.2,
	         "an estimated batch counts in kernel seconds, as in kernel_busy");
	TAP_NEAR(f.workers[1].tot.phase_s[GD_PHASE_KERNEL], 0, "but its kernel phase waits: not measured");
	TAP_NEAR(f.devs[0].agg.tot.busy_s, 0.8, "device busy seconds: 0.4 + 0.4");

	/* Worker 1 ends and is forgotten; window 3 [2000, 3000): worker 2's batch 1, profiled,
	 * kernel [2100, 2500). */
	collect_forget(c, &w[0]);
	struct gd_rec e1 = batch(1, 2000, 2050, 2100, 2500, 2550, 1000000);
	collect_push(c, &w[1], &e1);
	w[1].batches = 2, w[1].items = 2000000;
	collect_window(c, &w[1], 1, T0, T0 + 3000 * MS, &f);
	busy_logged += f.devs[0].device_busy * f.window_s;
	t = &f.workers[0].tot;
	TAP_NEAR(t->phase_s[GD_PHASE_KERNEL], 0.4,
	         "the phase counts the measured batch alone: its 400 ms, never a mean times a count");
	TAP_NEAR(t->kernel_s, 0.6, "kernel seconds: 200 + 400 ms");
	d = &f.devs[0].agg.tot;
	tap_ok(d->items == 5000000 && d->batches == 5 && f.agg.tot.items == 5000000,
	       "the device keeps the forgotten worker's counts: 3 + 2 batches");
	TAP_NEAR(d->busy_s, 1.2, "device busy seconds keep counting: 0.4 + 0.4 + 0.4");
	TAP_NEAR(d->busy_s, busy_logged, "busy seconds are the sum of the logged device_busy x window_s");

	/* A window not observed: its record is lost, nothing is measured, the counts go on. */
	struct gd_rec e2 = batch(2, 3000, 3050, 3100, 3200, 3250, 1000000);
	collect_push(c, &w[1], &e2);
	w[1].batches = 3, w[1].items = 3000000;
	collect_skip(c, &w[1], 1, T0, T0 + 4000 * MS, &f);
	d = &f.devs[0].agg.tot;
	tap_ok(d->batches == 6 && d->lost == 2 && f.workers[0].tot.lost == 1 && near(d->busy_s, 1.2) &&
	           near(f.workers[0].tot.kernel_s, 0.6),
	       "a window not observed: batches and lost count, busy and kernel seconds do not");
	collect_frame_free(&f);
	collect_free(c);

	/* --profile off: no device time, so no device-time counter (NAN), generation counted. */
	c = collect_new(T0, false, devs, 1);
	memset(&f, 0, sizeof(f));
	struct gd_rec h = host_batch(0, 0, 100, 1000);
	h.t_gen = T0 + 30 * MS;
	collect_push(c, &w[0], &h);
	collect_window(c, &w[0], 1, T0, T0 + 1000 * MS, &f);
	t = &f.workers[0].tot;
	tap_ok(isnan(t->kernel_s) && isnan(t->phase_s[GD_PHASE_H2D]) && isnan(f.devs[0].agg.tot.busy_s) &&
	           near(t->phase_s[GD_PHASE_GEN], 0.03),
	       "--profile off: kernel, transfer and busy counters not a number; generation 30 ms");
	collect_frame_free(&f);
	collect_free(c);
}

/* An aggregate's figures that only grow between resets (frame.h): its totals since the last reset
 * (batches, items, lost) and its counters since the start, in that order. */
#define AGG_COUNTS 6
static void agg_counts(const struct gd_sample *s, uint64_t out[AGG_COUNTS])
{
	const uint64_t v[AGG_COUNTS] = { s->batches,     s->items,     s->lost,
		                         s->tot.batches, s->tot.items, s->tot.lost };
	memcpy(out, v, sizeof(v));
}

/* What an aggregate of device dev (-1: every device) should hold: the sums over every row it had,
 * listed or forgotten, since the reset (base) and since the start. */
static void agg_expected(const struct gd_row_info *rows, const struct gd_row_info *base, int n, int dev,
                         uint64_t out[AGG_COUNTS])
{
	memset(out, 0, AGG_COUNTS * sizeof(*out));
	for (int i = 0; i < n; i++) {
		if (dev >= 0 && rows[i].device != dev)
			continue;
		out[0] += rows[i].batches - base[i].batches;
		out[1] += rows[i].items - base[i].items;
		out[2] += rows[i].lost - base[i].lost;
		out[3] += rows[i].batches;
		out[4] += rows[i].items;
		out[5] += rows[i].lost;
	}
}

/* Rows that end and are forgotten after their last frame, as the headless mode prunes them: in
 * every window each aggregate (the run's, each device's) holds the sums over every row it had,
 * the forgotten ones included, and none of its figures goes backwards; a reset starts the totals
 * again from 0 (and a row forgotten after it keeps only what it counted since), not the
 * counters. Records and counts as the supervisor would hand them over. */
static void test_forgotten(void)
{
	struct gd_device devs[2] = { device(0, 0), device(0, 1) };
	struct gd_collector *c = collect_new(T0, true, devs, 2);
	struct gd_row_info rows[3] = { worker(1, 0), worker(2, 0), worker(3, 1) }, base[3], info[3];
	memset(base, 0, sizeof(base));
	bool listed[3] = { true, true, true };
	struct gd_frame f;
	memset(&f, 0, sizeof(f));
	uint64_t prev[3][AGG_COUNTS] = { { 0 } }, got[AGG_COUNTS], want[AGG_COUNTS];
	int equal = 0, sums = 0, rising = 0, windows = 7;
	for (int k = 0; k < windows; k++) {
		int n = 0;
		for (int i = 0; i < 3; i++) {
			if (!listed[i])
				continue;
			if (rows[i].alive) { /* a batch in window k [k s, k + 1 s), then its counts */
				int64_t t = k * 1000 + 100 + 200 * i;
				struct gd_rec r =
				    batch(rows[i].batches, t, t + 10, t + 20, t + 60, t + 80, 1000);
				collect_push(c, &rows[i], &r);
				rows[i].batches++, rows[i].items += 1000, rows[i].lost += (uint64_t)i + 1;
			}
			info[n++] = rows[i];
		}
		collect_window(c, info, n, T0, T0 + (k + 1) * 1000 * MS, &f);
		for (int d = -1; d < 2; d++) {
			const struct gd_sample *a = d < 0 ? &f.agg : &f.devs[d].agg;
			agg_counts(a, got);
			agg_expected(rows, base, 3, d, want);
			equal += memcmp(got, want, sizeof(got)) == 0;
			for (int j = 0; j < AGG_COUNTS; j++) /* the totals start again at the reset */
				rising += got[j] >= prev[d + 1][j] || (k == 4 && j < 3);
			memcpy(prev[d + 1], got, sizeof(got));
		}
		sums += f.agg.batches == f.devs[0].agg.batches + f.devs[1].agg.batches;
		if (k == 3) { /* the r key: every row listed counts from now on */
			memcpy(base, rows, sizeof(base));
			collect_reset(c, info, n, T0 + 4000 * MS);
		}
		if (k == 0 || k == 4) { /* a row ends: exited, its last counts */
			int i = k == 0 ? 1 : 0;
			rows[i].alive = rows[i].active = false;
			rows[i].state = GD_ST_EXITED;
			rows[i].lost++;
		}
		if (k == 1 || k == 5) { /* reported once as ended: forgotten, as session_prune does */
			int i = k == 1 ? 1 : 0;
			listed[i] = false;
			collect_forget(c, &rows[i]);
		}
	}
	TAP_EQ_U(equal, 3 * windows,
	         "every window: each aggregate holds the sums over every row, forgotten ones included");
	TAP_EQ_U(rising, 3 * windows * AGG_COUNTS,
	         "no aggregate's totals or counters go backwards (the totals start again at the reset)");
	TAP_EQ_U(sums, windows, "the run's totals are its devices'");
	tap_ok(f.nworkers == 1 && f.agg.batches == 1 + 3 && f.agg.tot.batches == 5 + 1 + 7 &&
	           f.devs[0].agg.batches == 1 && f.devs[0].agg.tot.batches == 5 + 1 &&
	           f.devs[0].agg.lost == 2,
	       "at the end: the forgotten rows' batches since the reset in the totals, all in the counters");
	collect_frame_free(&f);
	collect_free(c);
}

int main(void)
{
	test_windows();
	test_devices();
	test_estimated();
	test_lanes();
	test_unmeasured();
	test_counters();
	test_forgotten();
	return tap_done();
}
