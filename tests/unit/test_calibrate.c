/* test_calibrate.c: the calibration's answer line, parsed strictly: a child that printed
 * anything else has failed, and its figure is never taken. */
#include <string.h>

#include "gputop/calibrate.h"
#include "tap.h"

int main(void)
{
	struct gd_ceiling c;
	tap_ok(calibrate_parse("ceiling 612.5000 4 540.2500 1824", &c) == 0 && c.rate == 612.5 &&
	           c.queues == 4 && c.one_queue == 540.25 && c.gap_ns == 1824,
	       "the answer line gives the ceiling, its queues, the one-queue figure and the launch gap");
	static const char *const bad[] = {
		"",
		"ceiling",
		"ceiling 612.5 4",
		"ceiling 612.5 4 540 0 extra",
		"ceiling 612.5 4 540",
		"ceiling abc 4 540 0",
		"ceiling 0 4 540 0",
		"ceiling -3 4 540 0",
		"ceiling nan 4 540 0",
		"ceiling inf 4 540 0",
		"ceiling 612.5 0 540 0",
		"ceiling 612.5 2.5 540 0",
		"ceiling 612.5 99 540 0",
		"ceiling 612.5 4 -1 0",
		"ceiling 612.5 4 540 -1",
		"ceiling 612.5 4 540 nan",
		"Ceiling 612.5 4 540 0",
		"clBuildProgram: CL_BUILD_PROGRAM_FAILURE",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0, sizeof(c));
		tap_ok(calibrate_parse(bad[i], &c) == -1 && c.rate == 0, "refused: '%s'", bad[i]);
	}
	return tap_done();
}
