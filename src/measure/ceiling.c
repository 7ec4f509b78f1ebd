/* ceiling.c: the calibrated ceiling's line and words (ceiling.h). */
#include "ceiling.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/spec.h"

/* A number after the word, with strtod's error reporting; NULL when there is none. */
static const char *number(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return end == s || errno || (*end != ' ' && *end != '\0') ? NULL : end;
}

int calibrate_parse(const char *line, struct gd_ceiling *out)
{
	static const char word[] = "ceiling ";
	double v[5];
	const char *s = line;
	if (strncmp(s, word, sizeof(word) - 1) != 0)
		return -1;
	s += sizeof(word) - 1;
	for (int i = 0; i < 5; i++)
		if (!(s = number(s, &v[i])))
			return -1;
	if (*s != '\0' || !isfinite(v[0]) || v[0] <= 0 || v[1] < 1 || v[1] > GD_QUEUES_MAX ||
	    v[1] != floor(v[1]) || !isfinite(v[2]) || v[2] < 0 || !isfinite(v[3]) || v[3] < 0 ||
	    !isfinite(v[4]) || v[4] < 0)
		return -1;
	*out = (struct gd_ceiling){ .rate = v[0],
		                    .queues = (int)v[1],
		                    .one_queue = v[2],
		                    .gap_ns = v[3],
		                    .rate_4x = v[4] > 0 ? v[4] : NAN };
	return 0;
}

int ceiling_say_4x(char *buf, size_t n, const struct gd_ceiling *c, const char *unit)
{
	double gain = ceiling_gain_4x(c);
	if (isnan(gain)) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	return snprintf(
	    buf, n, "; %dx the size: %.1f %s, %+.0f%% (%s)", GD_CEILING_LARGER, c->rate_4x, unit, 100 * gain,
	    gain > GD_CEILING_LAUNCH_BOUND ? "launch costs bound this size" : "the device's bound");
}

bool ceiling_stale(double of_ceiling)
{
	return of_ceiling > 1;
}
