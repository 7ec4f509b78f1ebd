/* dashboard.h: the interactive ncurses role. */
#ifndef GPUTOP_DASHBOARD_H
#define GPUTOP_DASHBOARD_H

#include <stddef.h>

#include "gputop/device.h"
#include "gputop/opts.h"

struct gd_prom;
struct gd_sink;
struct gd_trace;

/* 0 if the terminal named by TERM can host the dashboard (it is known and can address the
 * cursor), else -1 with a one-line reason in err. Opens nothing and leaves no state behind:
 * it is checked before any file is opened. */
int dashboard_check_terminal(char *err, size_t errlen);
/* Runs until q, F10, --duration or a quit signal; returns the process exit status. The
 * terminal is restored on every path before anything is printed. Takes ownership of trace
 * and prom (NULL: none), and of sink (NULL: no log), which gets
 * every frame and an event row for every action. */
int dashboard_run(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                  struct gd_trace *trace, struct gd_prom *prom);

#endif
