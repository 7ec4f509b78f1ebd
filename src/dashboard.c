/* dashboard.c: placeholder until the ncurses dashboard lands. */
#include "gputop/dashboard.h"

#include <stdio.h>

#include "gputop/common.h"

int dashboard_run(const struct gd_opts *o, const struct clx_device *dev, struct gd_trace *trace)
{
	(void)trace;
	(void)o;
	(void)dev;
	fprintf(stderr, GD_NAME ": the dashboard is not available yet: use --headless\n");
	return GD_EXIT_USAGE;
}
