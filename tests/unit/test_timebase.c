/* test_timebase.c: the device-to-host offset estimate on synthetic samples with a known
 * offset and random completion latency. */
#include <stdlib.h>

#include "measure/timebase.h"
#include "gputop/rng.h"
#include "tap.h"

int main(void)
{
	struct gd_rng r;
	rng_seed(&r, 5);
	const int64_t offset = -1700000000123456789LL; /* a Unix-epoch device clock */
	struct gd_timebase_est tb;
	timebase_init(&tb);
	tap_ok(tb.samples == 0 && timebase_map(&tb, 12345) == 0, "no sample: no mapping");
	int over = 0;
	for (int i = 0; i < 200; i++) {
		int64_t dev_end = 1700000000000000000LL + i * 1000000LL;
		/* The host notices completion 2..500 us late; one batch in ten is quick (2..5 us). */
		int64_t late = (i % 10 == 9) ? 2000 + (int64_t)(rng_next(&r) % 3000)
		                             : 20000 + (int64_t)(rng_next(&r) % 480000);
		timebase_observe(&tb, dev_end + offset + late, dev_end);
		over += tb.offset < offset;
	}
	tap_ok(over == 0, "the estimate never undershoots the true offset (each sample is an upper bound)");
	tap_ok(tb.offset - offset <= 5000, "after 200 batches the error is under 5 us (%lld ns)",
	       (long long)(tb.offset - offset));
	int64_t dev = 1700000000500000000LL;
	tap_ok(llabs(timebase_map(&tb, dev) - (dev + offset)) <= 5000, "device times map within the error");
	tap_ok(timebase_map(&tb, 0) == 0, "an absent time (0) stays absent");
	return tap_done();
}
