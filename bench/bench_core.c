/* bench_core.c: costs of the supervisor's per-window work, as ratios to a baseline measured
 * in the same run (a 256-byte memcpy), so the figures travel between machines:
 * - ring: publish + read of one record through shared memory;
 * - union: merging the kernel intervals of one window (16 workers, 10 launches, 100 batches);
 * - the host's normal generators, per value (a worker's host phase), f64 and f32: the ziggurat
 *   (on xoshiro256**) and box-muller, numpy's legacy normal (MT19937 and the polar method;
 *   --generator, the seed mode's default), measured in the same run, with ms per 100000 values
 *   (the default --size) to set beside numpy's own RandomState.normal(size=100000). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "ring/reader.h"
#include "ring/writer.h"
#include "gputop/rng.h"
#include "measure/stats.h"

static double per_op(int64_t t0, long n)
{
	return (double)(now_ns() - t0) / (double)n;
}

static double bench_memcpy(void)
{
	static unsigned char a[1 << 20], b[1 << 20];
	const long n = 20000000;
	int64_t t0 = now_ns();
	for (long i = 0; i < n; i++) {
		size_t off = (size_t)(i & 4095) * 256;
		memcpy(b + off, a + off, 256);
		__asm__ volatile("" ::: "memory");
	}
	return per_op(t0, n);
}

static double bench_ring(void)
{
	char name[64];
	snprintf(name, sizeof(name), "/gputop-decode-bench.%d", (int)getpid());
	struct gd_seg_info info = { .generation = 1 };
	char err[256];
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	struct gd_reader rd;
	if (!s || reader_open(&rd, name, getpid(), 1, err, sizeof(err)) != GD_OPEN_OK) {
		fprintf(stderr, "bench: %s\n", err);
		if (s)
			seg_close(s, true);
		return -1;
	}
	static struct gd_rec out[512];
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.items = 1;
	r.t_begin = r.t_gen = r.t_end = 1;
	const long n = 4000000;
	int64_t t0 = now_ns();
	for (long i = 0; i < n; i++) {
		r.batch = (uint64_t)i;
		seg_publish(s, &r);
		if ((i & 511) == 511)
			reader_poll(&rd, out, 512);
	}
	double ns = per_op(t0, n);
	reader_close(&rd);
	seg_close(s, true);
	return ns;
}

static double bench_union(double *per_interval)
{
	struct gd_rng g;
	rng_seed(&g, 1);
	enum { WORKERS = 16, BATCHES = 100, LAUNCHES = 10, N = WORKERS * BATCHES * LAUNCHES };
	static struct gd_iv base[N], work[N];
	for (int w = 0; w < WORKERS; w++) {
		int64_t t = (int64_t)(rng_next(&g) % 1000000);
		for (int k = 0; k < BATCHES * LAUNCHES; k++) {
			int64_t len = 15000 + (int64_t)(rng_next(&g) % 3000);
			base[w * BATCHES * LAUNCHES + k] = (struct gd_iv){ t, t + len };
			t += len + 1000 + (k % LAUNCHES == LAUNCHES - 1 ? 2600000 : 0);
		}
	}
	const int reps = 200;
	int64_t sum = 0, t0 = now_ns();
	for (int i = 0; i < reps; i++) {
		memcpy(work, base, sizeof(base));
		sum += stats_union(work, N, 0, 300000000);
	}
	double ns = per_op(t0, reps);
	*per_interval = ns / N;
	return sum > 0 ? ns : -1;
}

/* ns per value of each generator filling worker-sized batches (100000, the default --size): the
 * fastest of several rounds, each timing both in turn, so a busy machine slows both alike. */
struct normal_rates {
	double zig64, bm64, zig32, bm32;
};

enum { NB = 100000, NB_BATCHES = 20, NB_ROUNDS = 15 };

static double time_fill(int kind, struct gd_rng *g, void *buf)
{
	int64_t t0 = now_ns();
	for (int i = 0; i < NB_BATCHES; i++) {
		switch (kind) {
		case 0:
			rng_fill_normal_f64(g, buf, NB);
			break;
		case 1:
			rng_fill_polar_f64(g, buf, NB);
			break;
		case 2:
			rng_fill_normal_f32(g, buf, NB);
			break;
		default:
			rng_fill_polar_f32(g, buf, NB);
			break;
		}
		__asm__ volatile("" ::"r"(buf) : "memory");
	}
	return per_op(t0, (long)NB_BATCHES * NB);
}

static void bench_normal(struct normal_rates *nr)
{
	static double buf[NB];
	struct gd_rng g;
	rng_seed(&g, 2);
	double best[4] = { 1e30, 1e30, 1e30, 1e30 };
	for (int round = 0; round < NB_ROUNDS; round++) {
		for (int kind = 0; kind < 4; kind++) {
			double ns = time_fill(kind, &g, buf);
			if (ns < best[kind])
				best[kind] = ns;
		}
	}
	*nr = (struct normal_rates){ best[0], best[1], best[2], best[3] };
}

int main(void)
{
	double base = bench_memcpy();
	double ring = bench_ring();
	double per_iv;
	double uni = bench_union(&per_iv);
	struct normal_rates nr;
	bench_normal(&nr);
	printf("baseline: one 256-byte memcpy = 1.0\n");
	printf("ring publish + read, per record      %8.1f x baseline\n", ring / base);
	printf("union of one window (16000 intervals) %8.0f x baseline (%.1f x per interval)\n", uni / base,
	       per_iv / base);
	printf("normal variate (f64), per value       %8.2f x baseline (ziggurat)\n", nr.zig64 / base);
	printf("normal variate (f64), per value       %8.2f x baseline (box-muller)\n", nr.bm64 / base);
	printf("normal f64: ziggurat %.0f M/s, box-muller %.0f M/s: %.1fx\n", 1e3 / nr.zig64, 1e3 / nr.bm64,
	       nr.bm64 / nr.zig64);
	printf("normal f32: ziggurat %.0f M/s, box-muller %.0f M/s: %.1fx\n", 1e3 / nr.zig32, 1e3 / nr.bm32,
	       nr.bm32 / nr.zig32);
	printf("one worker batch of %d values: ziggurat %.0f us (f64), %.0f us (f32); box-muller %.0f us "
	       "(f64), %.0f us (f32)\n",
	       NB, nr.zig64 * NB / 1e3, nr.zig32 * NB / 1e3, nr.bm64 * NB / 1e3, nr.bm32 * NB / 1e3);
	printf("ms per %d f64 values: box-muller %.2f, ziggurat %.2f\n", NB, nr.bm64 * NB / 1e6,
	       nr.zig64 * NB / 1e6);
	printf("one window of 16 workers costs %.4f%% of a 1 s interval on this machine\n", uni / 1e7);
	return ring < 0 || uni < 0;
}
