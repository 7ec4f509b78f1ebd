/* dashboard.h: the interactive ncurses role. */
#ifndef GPUTOP_DASHBOARD_H
#define GPUTOP_DASHBOARD_H

#include "gputop/device.h"
#include "gputop/opts.h"

struct gd_trace;

/* Runs until q, F10, --duration or a quit signal; returns the process exit status. The
 * terminal is restored on every path before anything is printed. Takes ownership of trace
 * (NULL: none). */
int dashboard_run(const struct gd_opts *o, const struct gd_device *dev, struct gd_trace *trace);

#endif
