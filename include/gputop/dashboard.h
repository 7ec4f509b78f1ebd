/* dashboard.h: the interactive ncurses role. */
#ifndef GPUTOP_DASHBOARD_H
#define GPUTOP_DASHBOARD_H

#include "gputop/clx.h"
#include "gputop/opts.h"

/* Runs until q, F10, --duration or a quit signal; returns the process exit status. The
 * terminal is restored on every path before anything is printed. */
struct gd_trace;

/* Takes ownership of trace (NULL: none). */
int dashboard_run(const struct gd_opts *o, const struct clx_device *dev, struct gd_trace *trace);

#endif
