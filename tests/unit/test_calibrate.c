/* test_calibrate.c: the calibration's answer line, parsed strictly: a child that printed
 * anything else has failed, and its figure is never taken; and the larger size's figure in
 * words. */
#include <math.h>
#include <string.h>

#include "measure/ceiling.h"
#include "session/calibrate.h"
#include "tap.h"

int main(void)
{
	struct gd_ceiling c;
	tap_ok(calibrate_parse("ceiling 612.5000 4 540.2500 1824 765.6250", &c) == 0 && c.rate == 612.5 &&
	           c.queues == 4 && c.one_queue == 540.25 && c.gap_ns == 1824 && c.rate_4x == 765.625,
	       "the answer line gives the ceiling, its queues, the one-queue figure, the launch gap and "
	       "the figure at the larger size");
	tap_ok(calibrate_parse("ceiling 612.5 4 540 1824 0", &c) == 0 && isnan(c.rate_4x) &&
	           isnan(ceiling_gain_4x(&c)),
	       "0 at the larger size: not measured (NAN), no gain");
	static const char *const bad[] = {
		"",
		"ceiling",
		"ceiling 612.5 4",
		"ceiling 612.5 4 540 0 0 extra",
		"ceiling 612.5 4 540 0",
		"ceiling abc 4 540 0 0",
		"ceiling 0 4 540 0 0",
		"ceiling -3 4 540 0 0",
		"ceiling nan 4 540 0 0",
		"ceiling inf 4 540 0 0",
		"ceiling 612.5 0 540 0 0",
		"ceiling 612.5 2.5 540 0 0",
		"ceiling 612.5 99 540 0 0",
		"ceiling 612.5 4 -1 0 0",
		"ceiling 612.5 4 540 -1 0",
		"ceiling 612.5 4 540 nan 0",
		"ceiling 612.5 4 540 0 -1",
		"ceiling 612.5 4 540 0 inf",
		"Ceiling 612.5 4 540 0 0",
		"clBuildProgram: CL_BUILD_PROGRAM_FAILURE",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0, sizeof(c));
		tap_ok(calibrate_parse(bad[i], &c) == -1 && c.rate == 0, "refused: '%s'", bad[i]);
	}

	/* The larger size in words: a gain beyond GD_CEILING_LAUNCH_BOUND names launch costs. */
	char buf[256];
	c = (struct gd_ceiling){ .rate = 1400, .queues = 8, .rate_4x = 1750 };
	tap_ok(fabs(ceiling_gain_4x(&c) - 0.25) < 1e-12, "the gain is rate_4x / rate - 1");
	ceiling_say_4x(buf, sizeof(buf), &c, "Mbit/s");
	tap_ok(strcmp(buf, "; 4x the size: 1750.0 Mbit/s, +25% (launch costs bound this size)") == 0,
	       "a ceiling 25%% higher at 4x the size: launch costs bound it ('%s')", buf);
	c.rate_4x = 1400 * (1 + GD_CEILING_LAUNCH_BOUND * 0.9);
	ceiling_say_4x(buf, sizeof(buf), &c, "Mbit/s");
	tap_ok(strstr(buf, "(the device's bound)") != NULL, "a gain within the bound is the device's ('%s')",
	       buf);
	c.rate_4x = 1300;
	ceiling_say_4x(buf, sizeof(buf), &c, "Mitem/s");
	tap_ok(strcmp(buf, "; 4x the size: 1300.0 Mitem/s, -7% (the device's bound)") == 0,
	       "a lower figure at the larger size is the device's bound too ('%s')", buf);
	c.rate_4x = NAN;
	tap_ok(ceiling_say_4x(buf, sizeof(buf), &c, "Mbit/s") == 0 && buf[0] == '\0',
	       "not measured: nothing said");
	return tap_done();
}
