/* bench_core.c: costs of the supervisor's per-window work, as ratios to a baseline measured
 * in the same run (a 256-byte memcpy), so the figures travel between machines:
 * - ring: publish + read of one record through shared memory;
 * - union: merging the kernel intervals of one window (16 workers, 10 launches, 100 batches);
 * - the host's normal generator, per value (the seed loop's host phase). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/ring.h"
#include "gputop/rng.h"
#include "gputop/stats.h"

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
	r.symbols = 1;
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

static double bench_normal(void)
{
	static double buf[100000];
	struct gd_rng g;
	rng_seed(&g, 2);
	const int reps = 100;
	int64_t t0 = now_ns();
	for (int i = 0; i < reps; i++)
		rng_fill_normal_f64(&g, buf, 100000);
	return per_op(t0, reps * 100000L);
}

int main(void)
{
	double base = bench_memcpy();
	double ring = bench_ring();
	double per_iv;
	double uni = bench_union(&per_iv);
	double normal = bench_normal();
	printf("baseline: one 256-byte memcpy = 1.0\n");
	printf("ring publish + read, per record      %8.1f x baseline\n", ring / base);
	printf("union of one window (16000 intervals) %8.0f x baseline (%.1f x per interval)\n", uni / base,
	       per_iv / base);
	printf("normal variate, per value             %8.1f x baseline\n", normal / base);
	printf("one window of 16 workers costs %.4f%% of a 1 s interval on this machine\n", uni / 1e7);
	return ring < 0 || uni < 0;
}
