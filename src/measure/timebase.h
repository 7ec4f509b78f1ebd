/* timebase.h: mapping device timestamps onto the host's CLOCK_MONOTONIC, for the writers of
 * records: the workers (worker/) and the observation library inside observed programs
 * (observe/, libgputop-observe.so). The supervisor only reads the times they mapped.
 *
 * Where the device reports no host timer, the offset (host = device + offset) is estimated as
 * min over batches of (host time taken after completion - device END of the last command):
 * each sample is an upper bound of the true offset, so the minimum converges from above. */
#ifndef GPUTOP_TIMEBASE_H
#define GPUTOP_TIMEBASE_H

#include <stdint.h>

struct gd_timebase_est {
	int64_t offset; /* ns, host - device */
	uint64_t samples;
};

void timebase_init(struct gd_timebase_est *t);
/* One observation: host_after was read after the command that ended at dev_end completed. */
void timebase_observe(struct gd_timebase_est *t, int64_t host_after, int64_t dev_end);
/* Maps a device time; 0 stays 0 (absent). */
int64_t timebase_map(const struct gd_timebase_est *t, int64_t dev);

#endif
