/* test_obs_sample.c: the observed program's sampler (src/observe/sample.c) on simulated runs of
 * one queue: where profiling slows a batch beyond its calls (the runtime's part), the profiled
 * share falls until what it cost is about the budget; where it costs nothing, every batch is
 * profiled but one in OBS_RUN_MAX + 1, which measures it; a program of long batches is profiled
 * throughout but for those. With --sample-every N: the first two batches of a queue, then one in
 * N, the program's own profiled queue too; without it, every batch of that queue. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "observe/sample.c"
#include "tap.h"

struct obs_state obs;

struct sim {
	long batches, profiled, longest_run;
	double cost_ns, elapsed_ns; /* what profiling truly added; the run's time */
};

/* n batches of one queue, each `period` ns from the previous one's end when clean, `extra` ns
 * more when profiled; 10 launches a batch, every call 1 us with or without an added event (what
 * the calls tell the sampler: nothing). */
static struct sim run(long n, double period, double extra)
{
	memset(&obs, 0, sizeof(obs));
	obs.policy = GD_PROF_SAMPLED;
	struct obs_queue q = { .hidden = true };
	struct sim r = { 0 };
	int64_t now = 1000000000, t0 = now;
	long in_row = 0;
	for (long b = 0; b < n; b++) {
		q.added = 0;
		q.profiled = obs_sample_batch(&q, now);
		for (int k = 0; k < 10; k++) {
			obs_sample_call(q.profiled, 1000);
			if (q.profiled)
				obs_sample_added(&q);
		}
		int64_t end = now + (int64_t)(period + (q.profiled ? extra : 0));
		obs_sample_closed(&q, end);
		q.last_wait = end;
		now = end;
		r.batches++;
		r.profiled += q.profiled;
		r.cost_ns += q.profiled ? extra : 0;
		in_row = q.profiled ? in_row + 1 : 0;
		r.longest_run = in_row > r.longest_run ? in_row : r.longest_run;
	}
	r.elapsed_ns = (double)(now - t0);
	return r;
}

/* The batches of q (1-based) profiled among the first n, as a string of 1s and 0s, under
 * --sample-every every (0: not given). */
static const char *fixed(struct obs_queue q, uint32_t every, int n)
{
	static char out[64];
	memset(&obs, 0, sizeof(obs));
	obs.policy = GD_PROF_SAMPLED;
	obs.smp.every = every;
	for (int b = 0; b < n && b < (int)sizeof(out) - 1; b++)
		out[b] = obs_sample_batch(&q, 1000000 + b) ? '1' : '0';
	out[n] = '\0';
	return out;
}

int main(void)
{
	/* 1 ms batches that profiling slows by 10%, in the runtime and not in the calls. */
	struct sim s = run(20000, 1e6, 1e5);
	double share = (double)s.profiled / (double)s.batches, cost = s.cost_ns / s.elapsed_ns;
	tap_ok(cost <= 0.025, "profiling that costs 10%% of a batch: it cost %.2f%% of the run (budget 2%%)",
	       100 * cost);
	tap_ok(share > 0.05 && share < 0.4, "... a share of the batches still profiled: %.3f", share);

	/* The same batches that profiling does not slow. */
	s = run(20000, 1e6, 0);
	share = (double)s.profiled / (double)s.batches;
	tap_ok(s.longest_run == OBS_RUN_MAX,
	       "profiling that costs nothing: at most %d profiled in a row (%ld)", OBS_RUN_MAX,
	       s.longest_run);
	tap_ok(share >= 0.9, "... nearly every batch profiled: %.3f", share);

	/* Batches of 100 ms (a long kernel): profiled throughout, but one in OBS_RUN_MAX + 1. */
	s = run(200, 1e8, 2e4);
	share = (double)s.profiled / (double)s.batches;
	tap_ok(share >= 0.9, "100 ms batches: profiled throughout but for the clean ones: %.3f", share);

	const struct obs_queue added = { .hidden = true }, own = { .own = true };
	const char *got = fixed(added, 4, 14);
	tap_ok(!strcmp(got, "11001000100010"), "--sample-every 4: the first two, then one in 4 (%s)", got);
	struct obs_queue q = { .hidden = true };
	tap_ok(obs_sample_every(&q) == 3, "... sample_every, batches per profiled one so far: 14 / 5 -> %u",
	       obs_sample_every(&q));
	got = fixed(own, 3, 8);
	tap_ok(!strcmp(got, "11010010"), "... the program's own profiled queue too, one in 3 (%s)", got);
	got = fixed(own, 0, 8);
	tap_ok(!strcmp(got, "11111111"), "without it, every batch of the program's own (%s)", got);
	q = (struct obs_queue){ .own = true };
	tap_ok(obs_sample_every(&q) == 1, "... sample_every %u", obs_sample_every(&q));
	return tap_done();
}
