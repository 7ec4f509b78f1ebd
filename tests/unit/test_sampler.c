/* test_sampler.c: the profiling policies: which batches are profiled, how the period adapts to
 * the measured cost, and the estimate that stands in for an unprofiled batch. */
#include <math.h>
#include <string.h>

#include "../../src/worker/sampler.h"
#include "tap.h"

/* How many of the first n batches the policy profiles. */
static unsigned profiled_of(enum gd_profile p, uint32_t every, unsigned n)
{
	struct gd_sampler s;
	sampler_init(&s, p, every, 1);
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++)
		k += sampler_begin(&s);
	return k;
}

static void test_policies(void)
{
	TAP_EQ_U(profiled_of(GD_PROF_FULL, 0, 100), 100, "full profiles every batch");
	TAP_EQ_U(profiled_of(GD_PROF_OFF, 0, 100), 0, "off profiles none");
	TAP_EQ_U(profiled_of(GD_PROF_SAMPLED, 10, 100), 20, "sampled 1 in 10: two batches in every ten");
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 10, 1);
	bool run = sampler_begin(&s) && sampler_begin(&s) && !sampler_begin(&s);
	tap_ok(run, "the profiled batches come in consecutive pairs, so the gap between them is measured");
}

/* Completions 1000 ns apart; a profiled batch takes `prof` ns, and the completion right after
 * a profiled run takes `after` ns (the switch back between queues). Returns the period. */
static uint32_t adapt(uint32_t lanes, int64_t prof, int64_t after, unsigned batches)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, lanes);
	int64_t t = 1;
	bool was = false;
	for (unsigned i = 0; i < batches; i++) {
		bool p = sampler_begin(&s);
		t += p ? prof : was ? after : 1000;
		sampler_done(&s, p, t);
		was = p;
	}
	return s.every;
}

static void test_adapts(void)
{
	TAP_EQ_U(adapt(1, 1000, 1000, 20000), 8,
	         "free profiling: the shortest period that leaves clean batches");
	TAP_EQ_U(adapt(4, 1000, 1000, 20000), 20, "  which is longer with more queues");
	/* Each profiled batch takes twice as long: 2 in 128 cost 1.6%, 2 in 64 would cost 3.1%. */
	TAP_EQ_U(adapt(1, 2000, 1000, 60000), 128, "profiled batches twice as long: 2 in every 128");
	/* The cost lands on the batch after the run (the switch back): it is measured all the same. */
	TAP_EQ_U(adapt(1, 1000, 3000, 60000), 128, "a cost that lands after the run is measured too");
	TAP_EQ_U(adapt(1, 1000000, 1000, 2000000), SAMPLER_EVERY_MAX, "the period is bounded");
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 7, 1);
	int64_t t = 1;
	for (unsigned i = 0; i < 20000; i++) {
		bool p = sampler_begin(&s);
		sampler_done(&s, p, t += p ? 5000 : 1000);
	}
	tap_ok(s.every == 7 && s.share > SAMPLER_COST_MAX,
	       "--sample-every fixes the period, and the share is still measured");
}

static struct gd_rec profiled_rec(void)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = 4;
	r.items = 1000;
	r.kernels = 2;
	r.nkiv = 2;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = 10000;
	r.t_gen = 10100;
	r.h2d[0] = 10110;
	r.h2d[1] = 10130;
	r.kbase = 10140;
	r.kiv[0][0] = 0;
	r.kiv[0][1] = 50;
	r.kiv[1][0] = 60;
	r.kiv[1][1] = 110;
	r.kbusy_ns = 100;
	r.kgap_ns = 10;
	r.qwait_ns = 7;
	r.d2h[0] = 10260;
	r.d2h[1] = 10280;
	r.t_end = 10300;
	return r;
}

static void test_estimate(void)
{
	struct gd_sampler s;
	sampler_init(&s, GD_PROF_SAMPLED, 0, 1);
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.t_begin = 20000;
	r.t_gen = 20100;
	r.t_end = 20300;
	tap_ok(!sampler_estimate(&s, &r, 0) && !(r.flags & GD_REC_DEVTIME),
	       "no profiled batch yet: no estimate");
	struct gd_rec t = profiled_rec();
	sampler_keep(&s, &t);
	tap_ok(sampler_estimate(&s, &r, 0) && r.flags == (GD_REC_DEVTIME | GD_REC_ESTIMATED),
	       "an estimate is marked as one");
	tap_ok(r.kbase == 20140 && r.h2d[0] == 20110 && r.d2h[1] == 20280 && r.kbusy_ns == 100 &&
	           r.qwait_ns == 7 && r.nkiv == 2 && r.kiv[1][1] == 110,
	       "the template's device work, ending as long before the host saw it end");
	r.batch = 5;
	r.items = 1000;
	r.kernels = 2;
	tap_ok(gd_rec_valid(&r), "the estimate is a valid record");

	struct gd_rec early;
	memset(&early, 0, sizeof(early));
	early.t_begin = 30000;
	early.t_gen = 30250; /* generation took longer: the copy cannot start before it ends */
	early.t_end = 30300;
	sampler_estimate(&s, &early, 0);
	tap_ok(early.h2d[0] == 30250 && early.kbase == 30280,
	       "an estimate never starts before its input existed");

	struct gd_sampler off;
	sampler_init(&off, GD_PROF_OFF, 0, 1);
	sampler_keep(&off, &t);
	struct gd_rec none;
	memset(&none, 0, sizeof(none));
	tap_ok(!sampler_estimate(&off, &none, 0), "--profile off estimates nothing");
}

int main(void)
{
	test_policies();
	test_adapts();
	test_estimate();
	return tap_done();
}
