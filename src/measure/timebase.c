/* timebase.c: the per-worker device-to-host clock offset estimate (see timebase.h). */
#include "timebase.h"

void timebase_init(struct gd_timebase_est *t)
{
	t->offset = INT64_MAX;
	t->samples = 0;
}

void timebase_observe(struct gd_timebase_est *t, int64_t host_after, int64_t dev_end)
{
	int64_t o = host_after - dev_end;
	if (o < t->offset)
		t->offset = o;
	t->samples++;
}

int64_t timebase_map(const struct gd_timebase_est *t, int64_t dev)
{
	return (dev == 0 || !t->samples) ? 0 : dev + t->offset;
}
